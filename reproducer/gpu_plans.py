"""The GPU plans as data: each stage's sizes and budgets (:class:`Plan`), the ``paper`` plan a lent GPU runs and the
``smoke`` plan of CI's dry run, and what a device call brings back. Read by the plan itself
(:mod:`reproducer.gpu_run`, a tool) and by the book's account of the GPU runs (:mod:`reproducer.report.gpu_runs`),
which must not import the tool.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from reproducer.errors import ReproducerError

#: Logeswaran & Lee's Table 1 tasks (``reproducer.papers.quick_thoughts.tables.TABLE1_COLUMNS``).
TABLE1_TASKS = ("MR", "CR", "SUBJ", "MPQA", "TREC", "MRPC", "SICK-R")
MAX_FILES, MAX_FILE_BYTES = 8, 16 * 2**20  # what a device call brings back


@dataclass(frozen=True)
class Plan:
    """The stages' sizes and budgets. ``bench_seconds``: training seconds per objective and preset;
    ``train_seconds``: the wall budget of each trained model (training time; evaluation comes after);
    ``eval_every``: training seconds between held-out losses; ``profile_steps``: steps of each objective profiled
    after its bench run at the last of ``bench_presets`` (where its time goes: :func:`reproducer.bench._profile`)."""

    name: str
    pack_scale: str  # the pack it reads (reproducer.gpu_pack.SCALES)
    bench_presets: tuple[str, ...]
    bench_seconds: float
    models: tuple[str, ...]
    train_preset: str
    train_seconds: float
    eval_every: float
    eval_tasks: tuple[str, ...] = TABLE1_TASKS
    eval_config: str = "paper"
    held_out_batches: int = 16
    check_timeout: float = 150.0  # seconds the CUDA check may take (the compile test is the slow one)
    profile_steps: int = 5  # steps profiled after each objective's bench run at the last bench preset (paper sizes)

    def estimate_seconds(self, n_objectives: int) -> float:
        """A wall-time estimate of the whole plan: start-up and unpacking (30 s), the check (60 s: 15 s on the CPU
        here), each bench run with its data and FLOP count (seconds + 8), each model's training and scoring on the
        seven Table 1 tasks (budget + 90)."""
        bench = len(self.bench_presets) * n_objectives * (self.bench_seconds + 8)
        return 30 + 60 + bench + len(self.models) * (self.train_seconds + 90)


PLANS = {
    # about 8.5 minutes on one H100 by Plan.estimate_seconds (the budget: 9), the CUDA check cut off at 150 s
    "paper": Plan("paper", "paper", ("default", "paper"), 5.0, ("uni-QT",), "paper", 150.0, 30.0),
    # the CPU dry run of CI: the same stages at smoke sizes, in seconds
    "smoke": Plan("smoke", "smoke", ("smoke",), 1.0, ("uni-QT",), "smoke", 2.0, 1.0, ("MR", "SICK-R"), "fast",
                  held_out_batches=2, check_timeout=600.0, profile_steps=2),
}


def plan_of(name: str, **overrides) -> Plan:
    """The plan called ``name`` with some fields replaced (``None`` ignored)."""
    if name not in PLANS:
        raise ReproducerError(f"Unknown GPU plan {name!r}; choose one of {', '.join(PLANS)}.")
    return dataclasses.replace(PLANS[name], **{k: v for k, v in overrides.items() if v is not None})

"""The GPU plans as data: each stage's sizes and budgets (:class:`Plan`), the ``paper`` plan a lent GPU runs and the
``smoke`` plan of CI's dry run, and what a device call brings back. Read by the plan itself
(:mod:`reproducer.gpu_run`, a tool) and by the book's account of the GPU runs (:mod:`reproducer.report.gpu_runs`),
which must not import the tool.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from reproducer.errors import ReproducerError

#: Logeswaran & Lee's Table 1 tasks (``reproducer.papers.quick_thoughts.tables.TABLE1_COLUMNS``).
TABLE1_TASKS = ("MR", "CR", "SUBJ", "MPQA", "TREC", "MRPC", "SICK-R")
MAX_FILES, MAX_FILE_BYTES = 8, 16 * 2**20  # what a device call brings back


@dataclass(frozen=True)
class PlannedModel:
    """A model the plan trains: its name in the registry, its budget in **steps** (the same model on a calm or a busy
    GPU) and the tasks it is scored on (its paper's main table)."""

    name: str
    steps: int
    tasks: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    """The stages' sizes and budgets. ``bench_seconds``: training seconds per objective and preset; ``models``: the
    models the plan trains (:class:`PlannedModel`), the held-out loss at ``eval_points`` points along each; each is
    then scored with ``eval_config`` on its tasks (``eval_tasks``, when given, replaces them all). ``profile_steps``:
    steps of each objective profiled after its bench run at the last of ``bench_presets`` (where its time goes:
    :func:`reproducer.bench._profile`). ``train_estimate_seconds`` and ``eval_estimate_seconds``: a model's expected
    training and scoring wall time, for :meth:`estimate_seconds` only."""

    name: str
    pack_scale: str  # the pack it reads (reproducer.gpu_pack.SCALES)
    bench_presets: tuple[str, ...]
    bench_seconds: float
    models: tuple[PlannedModel, ...]
    train_preset: str
    eval_points: int = 5
    eval_tasks: tuple[str, ...] | None = None
    eval_config: str = "paper"
    held_out_batches: int = 16
    check_timeout: float = 150.0  # seconds the CUDA check may take (the compile test is the slow one)
    profile_steps: int = 5  # steps profiled after each objective's bench run at the last bench preset (paper sizes)
    train_estimate_seconds: float = 60.0
    eval_estimate_seconds: float = 55.0

    def estimate_seconds(self, n_objectives: int) -> float:
        """A wall-time estimate of the whole plan: start-up and unpacking (30 s), the check (60 s: 15 s on the CPU
        here), each bench run with its data and FLOP count (seconds + 8), each model's training and scoring."""
        bench = len(self.bench_presets) * n_objectives * (self.bench_seconds + 8)
        return 30 + 60 + bench + len(self.models) * (self.train_estimate_seconds + self.eval_estimate_seconds)


#: The three paper-size models of a slice, each about 60 s of training at the rates the 2026-11-27 slice measured on
#: one H200 in bf16 (uni-QT 17,969 sentences/s in training = 45 steps of 400 a second; the MV consensus model 14,274
#: sentences/s in the bench = 36 steps of 400; the mean-max AAE 3,589 sentences/s = 56 steps of 64), rounded down, and
#: each scored on the tasks of its paper's main table: Logeswaran & Lee's Table 1 (7 tasks), Tang & de Sa's Table 6
#: (9), Zhang et al.'s Table 1 (10) — ``quick_thoughts.tables.TABLE1_COLUMNS``, ``consensus.tables.T6`` and
#: ``mean_max_aae.tables.TABLE1``, which this low module cannot import (``tests/test_gpu_plan.py`` checks they agree;
#: uni-QT's scoring took 52 s on that slice).
PAPER_MODELS = (PlannedModel("uni-QT", 2500, TABLE1_TASKS),
                PlannedModel("MV", 2000, ("MR", "CR", "SUBJ", "MPQA", "SST2", "TREC", "MRPC", "SICK-E", "SICK-R")),
                PlannedModel("mean-max AAE", 3000, ("MR", "CR", "SUBJ", "MPQA", "SST2", "TREC", "MRPC", "SICK-E",
                                                    "SICK-R", "STS14")))

PLANS = {
    # about 8.8 minutes on one H200 by Plan.estimate_seconds (the budget: 9), the CUDA check cut off at 150 s;
    # the bench at the paper's sizes only (the default sizes' rows of 2026-11-27 said little: 0.1-0.4% of the peak)
    "paper": Plan("paper", "paper", ("paper",), 5.0, PAPER_MODELS, "paper"),
    # the CPU dry run of CI: the same stages at smoke sizes, a few steps each
    "smoke": Plan("smoke", "smoke", ("smoke",), 1.0, tuple(replace(m, steps=4) for m in PAPER_MODELS), "smoke",
                  eval_points=2, eval_tasks=("MR", "SICK-R"), eval_config="fast", held_out_batches=2,
                  check_timeout=600.0, profile_steps=2, train_estimate_seconds=5.0, eval_estimate_seconds=10.0),
}


def plan_of(name: str, *, train_steps: int | None = None, **overrides) -> Plan:
    """The plan called ``name`` with some fields replaced (``None`` ignored); ``train_steps`` replaces every model's
    steps."""
    if name not in PLANS:
        raise ReproducerError(f"Unknown GPU plan {name!r}; choose one of {', '.join(PLANS)}.")
    plan = replace(PLANS[name], **{k: v for k, v in overrides.items() if v is not None})
    if train_steps is not None:
        plan = replace(plan, models=tuple(replace(m, steps=train_steps) for m in plan.models))
    return plan

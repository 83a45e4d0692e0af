"""Logeswaran & Lee 2018, *An efficient framework for learning sentence representations* — Quick-Thoughts
(chapter 02): choose the context sentence among the batch's instead of generating it.

- :mod:`.objective` — the two encoders f and g, the classifier loss (section 3), presets and variants
  (``uni-QT``, ``bi-QT``, ``BoW-QT``, ``MC-QT``);
- :mod:`.chapter` — chapter 02's models as units, the throughput benchmark, Figure 2's curves;
- :mod:`.tables`, :mod:`.claims` — the chapter's tables beside the paper's, and its claims judged against noise.
"""
from dataclasses import replace

from reproducer.declarations import Family, Line, Model, Paper, family_models

#: Each model's share of a preset's budget (uni-QT's and chapter 02's skip-thought's); the others train for the whole
#: budget. At ``default`` uni-QT and the skip-thought get about an epoch (Figure 2 compares them), bi-QT and MC-QT 15
#: minutes, BoW-QT 5; at every other preset BoW-QT a third.
BUDGET_SHARES = {"bi-QT": {"default": 3 / 7}, "MC-QT": {"default": 3 / 7},
                 "BoW-QT": {"smoke": 1 / 3, "quick": 1 / 3, "default": 1 / 7, "paper": 1 / 3}}


def load_objective():
    """The paper's :class:`~reproducer.fit.Objective`, imported on first use (the registry is read without torch)."""
    from reproducer.papers.quick_thoughts.objective import OBJECTIVE

    return OBJECTIVE


def timing_rows(folder, hardware: str) -> list[dict]:
    """Chapter 06's hardware rows from this chapter's results ``folder`` (its chapter module imported on first use)."""
    from reproducer.papers.quick_thoughts.chapter import timing_rows

    return timing_rows(folder, hardware)

PAPER = Paper(
    key="logeswaran2018", citation="Logeswaran & Lee 2018", label="Logeswaran 2018", title="Quick-Thoughts",
    chapter="02_quick_thoughts",
    families=(Family("quick-thought", load_objective),),
    models=(
        *(replace(m, budget_shares=BUDGET_SHARES.get(m.name, {})) for m in family_models(
            [("uni-QT", ("uni-QT",), "[f; g], two GRUs (Tang & de Sa's QT RNN is combine-QT)"),
             ("bi-QT", ("bi-QT",), "[f; g], two bidirectional GRUs"),
             ("BoW-QT", (), "[f; g], two word averages (the paper: QT (BoW))"),
             ("MC-QT", ("MC-QT",), "[f; g], two-channel bidirectional GRUs")],
            "quick-thought", bundle="ConcatEncoder")),
        Model("combine-QT", "quick-thought", parts=("uni-QT", "bi-QT"), bundle="ConcatEncoder",
              published=("combine-QT",), description="[uni-QT; bi-QT]"),
    ),
    neighbours="MC-QT",
    lines=(Line("Quick-Thoughts (uni-QT)", "quick-thought", "uni-QT"),),
    bench={"quick-thought": ("quick-thought", "uni-QT")},
    reads=("01_skip_thoughts",),
    tasks=("MR", "CR", "SUBJ", "MPQA", "TREC", "MRPC", "SST2", "SICK-R", "STS14"),
    timings=timing_rows,
)

"""Logeswaran & Lee 2018, *An efficient framework for learning sentence representations* — Quick-Thoughts
(chapter 02): choose the context sentence among the batch's instead of generating it.

- :mod:`.objective` — the two encoders f and g, the classifier loss (section 3), presets and variants
  (``uni-QT``, ``bi-QT``, ``BoW-QT``, ``MC-QT``);
- :mod:`.chapter` — chapter 02's models as units, the throughput benchmark, Figure 2's curves;
- :mod:`.tables`, :mod:`.claims` — the chapter's tables beside the paper's, and its claims judged against noise.
"""
from dataclasses import replace

from reproducer.declarations import Family, Line, Model, Paper, family_models

#: Each model's number of steps where it is not its preset's ``max_steps`` (uni-QT's): at ``default`` the steps each
#: made on a calm 2-core CPU in the time the chapter gave it before budgets were steps (seeds 1 and 2 of the committed
#: runs; seed 0 was slowed by another job): bi-QT and MC-QT in 15 minutes (2,695 and 2,637; 1,689 and 1,618 steps),
#: BoW-QT in 5 (6,048 and 6,057); at ``quick`` the same rates for 2 minutes (BoW-QT 40 s). At ``smoke`` and ``paper``
#: every model trains its preset's steps (the paper trains each model one epoch).
BUDGETS = {"bi-QT": {"quick": 350, "default": 2_600}, "MC-QT": {"quick": 220, "default": 1_600},
           "BoW-QT": {"quick": 800, "default": 6_000}}


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
        *(replace(m, budgets=BUDGETS.get(m.name, {})) for m in family_models(
            [("uni-QT", ("uni-QT",), "[f; g], two GRUs (Tang & de Sa's QT RNN is combine-QT)"),
             ("bi-QT", ("bi-QT",), "[f; g], two bidirectional GRUs"),
             ("BoW-QT", (), "[f; g], two word averages (the paper: QT (BoW))"),
             ("MC-QT", ("MC-QT",), "[f; g], two-channel bidirectional GRUs")],
            "quick-thought", bundle="ConcatEncoder")),
        Model("combine-QT", "quick-thought", parts=("uni-QT", "bi-QT"), bundle="ConcatEncoder",
              published=("combine-QT",), description="[uni-QT; bi-QT]"),
    ),
    neighbours="MC-QT",
    lines=(Line("Quick-Thoughts (uni-QT)", "quick-thought", "uni-QT", steps_per_second=2.07),),
    bench={"quick-thought": ("quick-thought", "uni-QT")},
    reads=("01_skip_thoughts",),
    tasks=("MR", "CR", "SUBJ", "MPQA", "TREC", "MRPC", "SST2", "SICK-R", "STS14"),
    timings=timing_rows,
)

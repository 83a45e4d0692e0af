"""Tang & de Sa 2019, *Improving Sentence Representations with Consensus Maximisation*
(chapter 04): a recurrent view and a linear view of each sentence agree on its neighbours.

- :mod:`.objective` — the views, the loss (Eq. 1-2 and the variants' Eq. 3-7), presets and variants;
- :mod:`.chapter` — chapter 04's models as units (Table 3: the views scored on task groups);
- :mod:`.tables` — Tables 3-6, Figure 1 and chapter 06's hardware rows; :mod:`.claims` — the paper's claims.

The views' encoder is :class:`reproducer.encoders.multiview.MultiViewEncoder` (bundle kind ``ViewSet``); scoring a
view is :mod:`reproducer.evaluate.views`.
"""
from reproducer.declarations import Family, Line, Model, Paper

_VIEWS = [
    ("MV", ("f", "g", "ensemble"), "multi-view f-g (Eq. 1)"),
    ("MV-ff", ("f1", "ensemble"), "multi-view f1-f2 (Eq. 3)"),
    ("MV-gg", ("g1", "ensemble"), "multi-view g1-g2 (Eq. 4)"),
    ("SV-f", ("f",), "single-view f (Eq. 5)"),
    ("SV-g", ("g",), "single-view g (Eq. 5)"),
    ("MV+SV", ("f", "g", "ensemble"), "multi-view + single-view (Eq. 7)"),
    ("skip", ("f", "g", "ensemble"), "skip connection f + g (Eq. 6)"),
]


def load_objective():
    """The paper's :class:`~reproducer.fit.Objective`, imported on first use (the registry is read without torch)."""
    from reproducer.papers.consensus.objective import OBJECTIVE

    return OBJECTIVE


def timing_rows(folder, hardware: str) -> list[dict]:
    """Chapter 06's hardware rows from this chapter's results ``folder`` (its tables imported on first use)."""
    from reproducer.papers.consensus.tables import timing_rows

    return timing_rows(folder, hardware)

PAPER = Paper(
    key="tang2019", citation="Tang & de Sa 2019", label="Tang 2019", title="Consensus maximisation",
    chapter="04_consensus",
    families=(Family("consensus", load_objective),),
    # chapter 04 scores its Table 3 rows on task groups; only MV's ensemble is scored on the transfer tasks (its
    # Table 6), compared with the paper's closest setting
    models=tuple(Model(v, "consensus", variant=v, bundle="ViewSet", published=tuple(f"{v} {view}" for view in views),
                       description=description, scored=v == "MV",
                       scored_as=("MV ensemble", "transfer", "Multi-view D1") if v == "MV" else None)
                 for v, views, description in _VIEWS),
    neighbours="MV ensemble",
    lines=(Line("consensus (MV)", "consensus", "MV", steps_per_second=5.03, inputs="fixed"),),
    bench={"consensus": ("consensus", "MV")},
    reads=("01_skip_thoughts", "02_quick_thoughts"),
    tasks=("MR", "CR", "SUBJ", "MPQA", "TREC", "MRPC", "SST2", "SICK-E", "SICK-R", "STS12", "STS13", "STS14",
           "STS15", "STS16", "STSB-R", "SICK-cos"),
    timings=timing_rows,
)

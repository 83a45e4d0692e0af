"""Kiros et al. 2015, *Skip-Thought Vectors* (chapter 01): a GRU encoder trained to generate the sentences around
it with two conditional GRU decoders, then vocabulary expansion.

- :mod:`.objective` — the model, the loss (Eq. 9), presets and variants (``uni-skip``, ``bi-skip``);
- :mod:`.chapter` — chapter 01's models as units and the paper's claims.
"""
from reproducer.declarations import Family, Line, Model, Paper, family_models


def load_objective():
    """The paper's :class:`~reproducer.fit.Objective`, imported on first use (the registry is read without torch)."""
    from reproducer.papers.skip_thoughts.objective import OBJECTIVE

    return OBJECTIVE


PAPER = Paper(
    key="kiros2015", citation="Kiros et al. 2015", label="Kiros 2015", title="Skip-Thought Vectors",
    chapter="01_skip_thoughts",
    families=(Family("skip-thought", load_objective),),
    models=(
        *family_models([("uni-skip", ("uni-skip",), "GRU encoder, two conditional GRU decoders"),
                        ("bi-skip", ("bi-skip",), "bidirectional GRU encoder")], "skip-thought"),
        Model("combine-skip", "skip-thought", parts=("uni-skip", "bi-skip"), bundle="ConcatEncoder",
              published=("combine-skip",), description="[uni-skip; bi-skip], vocabulary expanded"),
    ),
    neighbours="combine-skip",
    lines=(Line("skip-thought (uni-skip)", "skip-thought", "uni-skip", steps_per_second=0.861),),
    bench={"skip-thought": ("skip-thought", "uni-skip")},
    tasks=("MR", "CR", "SUBJ", "MPQA", "TREC", "MRPC", "SICK-R"),
)

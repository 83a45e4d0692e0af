"""Zhang et al. 2018, *Learning Universal Sentence Representations with Mean-Max Attention Autoencoder* (chapter 05):
a transformer encoder, mean-max pooling and a decoder that attends to the pooled vectors.

- :mod:`.objective` — the decoders (Eq. 15-21), the whole model, its loss (Eq. 22), presets and variants (Table 3);
- :mod:`.chapter` — chapter 05's models as units, held-out reconstruction, the decoder's attention;
- :mod:`.tables` — the chapter's tables, figures and the timing study; :mod:`.claims` — its claims;
  :mod:`.averages` — Table 2's averages.
"""
from reproducer.declarations import Family, Line, Paper, family_models


def load_objective():
    """The paper's :class:`~reproducer.fit.Objective`, imported on first use (the registry is read without torch)."""
    from reproducer.papers.mean_max_aae.objective import OBJECTIVE

    return OBJECTIVE


def timing_rows(folder, hardware: str) -> list[dict]:
    """Chapter 06's hardware rows from this chapter's results ``folder`` (its tables imported on first use)."""
    from reproducer.papers.mean_max_aae.tables import timing_rows

    return timing_rows(folder, hardware)

PAPER = Paper(
    key="zhang2018", citation="Zhang et al. 2018", label="Zhang 2018", title="Mean-max attention autoencoder",
    chapter="05_mean_max_aae",
    families=(Family("autoencoder", load_objective),),
    models=family_models([(v, (v,), description) for v, description in [
        ("mean-max AAE", "self-attention encoder, mean-max pooling and attention"),
        ("mean AAE", "mean pooling only"), ("max AAE", "max pooling only"),
        ("mean-max RAE", "BiLSTM encoder, LSTM decoder, mean-max"), ("mean RAE", "RAE, mean pooling"),
        ("max RAE", "RAE, max pooling"),
    ]], "autoencoder"),
    neighbours="mean-max AAE",
    lines=(Line("mean-max AAE", "autoencoder", "mean-max AAE", steps_per_second=5.25, inputs="fixed"),
           Line("mean-max RAE", "autoencoder", "mean-max RAE", steps_per_second=5.23, inputs="fixed")),
    bench={"AAE": ("autoencoder", "mean-max AAE"), "RAE": ("autoencoder", "mean-max RAE")},
    reads=("00b_baselines", "01_skip_thoughts", "02_quick_thoughts", "04_consensus"),
    tasks=("MR", "CR", "SUBJ", "MPQA", "TREC", "MRPC", "SST2", "SICK-E", "SICK-R", "STS14"),
    timings=timing_rows,
)

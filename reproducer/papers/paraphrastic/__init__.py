"""Wieting et al. 2016, *Towards Universal Paraphrastic Sentence Embeddings* (chapter 03): word averaging to LSTMs
trained on paraphrase pairs with a margin loss.

- :mod:`.objective` — the compositional models' training with Eq. 11 (MAX/MIX negatives), presets and variants
  (Table 2's models); :mod:`.supervised` — the models trained on a task (section 4.3, Table 5);
- :mod:`.chapter` — chapter 03's training runs (the reduced grid, the chosen models, Table 5);
- :mod:`.tables`, :mod:`.claims` — the similarity suite beside the paper's tables, and its claims.

Wieting et al. report SICK-E and SST with models fine-tuned on the task (their Table 5), not frozen probes; their
Twitter numbers are on SemEval-2015 PIT, for which the Twitter URL corpus stands in here.
"""
from reproducer.declarations import Family, Line, Paper, family_models


def load_objective():
    """The paper's :class:`~reproducer.fit.Objective`, imported on first use (the registry is read without torch)."""
    from reproducer.papers.paraphrastic.objective import OBJECTIVE

    return OBJECTIVE


PAPER = Paper(
    key="wieting2016", citation="Wieting et al. 2016", label="Wieting 2016",
    title="Paraphrastic sentence embeddings", chapter="03_paraphrastic",
    families=(Family("paraphrastic", load_objective),),
    models=family_models([
        ("PP", ("paragram-phrase",), "word averaging (paragram-phrase)"),
        ("proj", ("projection",), "averaging, then a linear projection"),
        ("DAN", ("DAN",), "deep averaging network"),
        ("RNN", ("RNN",), "Elman RNN"),
        ("iRNN", ("iRNN",), "identity-initialised RNN"),
        ("LSTM (no o.g.)", ("LSTM (no o.g.)",), "LSTM without output gate"),
        ("LSTM (o.g.)", ("LSTM (o.g.)",), "LSTM with output gate"),
    ], "paraphrastic"),
    lines=(Line("paraphrastic PP (pairs)", "paraphrastic", "PP", steps_per_second=25.2, on_pairs=True,
                inputs="initialised"),),
    bench={"PP": ("paraphrastic", "PP"), "LSTM": ("paraphrastic", "LSTM (o.g.)")},
    reads=("01_skip_thoughts",),
    tasks=("SST2", "SICK-E", "SICK-R", "STS12", "STS13", "STS14", "STS15", "SICK-cos", "PPDB", "Twitter"),
)

"""The Quick-Thoughts chapter's tables of our runs beside Logeswaran & Lee's (2018): the training runs, Table 1 (the
downstream tasks, with training times; :func:`earlier_skip_thoughts` adds the previous chapter's skip-thought rows,
:func:`published_comparison` the published numbers) and Table 8 (STS14 per sub-dataset), with their captions."""
from __future__ import annotations

import pandas as pd

from reproducer.evaluate import Results
from reproducer.papers.registry import published_names
from reproducer.report.published import compare_all
from reproducer.report.tables import log_table, paper_table, versus_by_model, versus_matched

#: Table 1's columns: (task, metric).
TABLE1_COLUMNS = [("MR", "acc"), ("CR", "acc"), ("SUBJ", "acc"), ("MPQA", "acc"), ("TREC", "acc"), ("MRPC", "acc"),
                  ("MRPC", "f1"), ("SICK-R", "pearson"), ("SICK-R", "spearman"), ("SICK-R", "mse")]
#: Concatenated models: their training time is their parts' (trained one after the other).
COMBINED = {"combine-QT": ("uni-QT", "bi-QT"), "combine-skip": ("uni-skip", "bi-skip")}
#: The previous chapter's skip-thought models, in Table 1 when that chapter has been run at the same preset.
SKIP_THOUGHTS = ("uni-skip", "bi-skip", "combine-skip")
#: Table 8's caption.
TABLE8_CAPTION = ("**Table 8**: STS14 Pearson r (ours: Gutenberg, minutes of CPU training, 600-d QT (RNN) and BoW-QT, "
                  "300-d ST; paper: BookCorpus, one epoch or more on a GPU). The last block compares each of our models "
                  "with the paper's model of the same kind (our ST with Kiros et al.'s skip-thoughts).")
#: Table 8's STS14 sub-datasets (SentEval's names → the paper's columns); "Overall" is SentEval's weighted mean.
STS14_SUBSETS = {"deft-news": "News", "deft-forum": "Forum", "OnWN": "WordNet", "tweet-news": "Tweets",
                 "images": "Images", "headlines": "Headlines", "wmean": "Overall"}


def training_table(records: dict[str, dict], corpus_sentences: int | None) -> pd.DataFrame:
    """One row per training record (a ``TrainLog.to_dict()`` with the vector size ``dim``): vector size, steps,
    seconds, sentences per second, sentences seen, the share of one epoch of a corpus of ``corpus_sentences``
    sentences (NaN when ``None``) and the final loss."""
    table = log_table(records, extra={"vector size": "dim", "sentences seen": "examples"})
    table["share of one epoch"] = table["sentences seen"] / corpus_sentences if corpus_sentences else float("nan")
    return table[["vector size", "steps", "training seconds", "sentences / second", "sentences seen",
                  "share of one epoch", "final loss"]]


def training_seconds(records: dict[str, dict]) -> dict[str, float]:
    """Training seconds by model, the :data:`COMBINED` models included when both parts have a record."""
    seconds = {name: r["seconds"] for name, r in records.items()}
    for combined, parts in COMBINED.items():
        if all(p in seconds for p in parts):
            seconds[combined] = sum(seconds[p] for p in parts)
    return seconds


def table1(ours: pd.DataFrame, comparison: pd.DataFrame, models: list[str], seconds: dict[str, float],
           hours: pd.Series) -> pd.DataFrame:
    """Table 1: for each of ``models``, our row (``ours``: ``Results.to_frame()`` rows stacked), the paper's (the
    ``published`` column of a :func:`~reproducer.report.published.compare` frame with an ``encoder`` column) and
    ours − paper over :data:`TABLE1_COLUMNS`, plus a ``training`` column (ours in seconds, the paper's in hours);
    rows with no number dropped."""
    wide = {"index": "encoder", "columns": ["task", "metric"]}
    mine = ours.pivot_table(values="value", **wide).reindex(index=models, columns=pd.MultiIndex.from_tuples(TABLE1_COLUMNS))
    table = versus_by_model(mine, comparison.pivot_table(values="published", aggfunc="first", **wide))
    table[("training", "")] = [f"{seconds[n]:.0f} s" if row == "ours" and n in seconds else
                               f"{hours[n]:g} h" if row == "paper" and n in hours else "" for n, row in table.index]
    return table.dropna(how="all", subset=TABLE1_COLUMNS)


def earlier_skip_thoughts(run) -> tuple[dict, dict[str, dict]]:
    """The :data:`SKIP_THOUGHTS` of chapter ``01_skip_thoughts`` at ``run``'s preset, where it has been run: their
    :class:`~reproducer.evaluate.harness.Results` by name, and their training records by name (combine-skip has
    none)."""
    results, records = {}, {}
    for name in SKIP_THOUGHTS:
        scores = run.earlier("01_skip_thoughts", f"eval_{name}", default=None)
        if scores is None:
            continue
        results[name] = Results.from_json(scores)
        if (record := run.earlier("01_skip_thoughts", f"{name}_training", default=None)) is not None:
            records[name] = record
    return results, records


def published_comparison(ours: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """:func:`~reproducer.report.published.compare` of each of ``models`` (``ours``: ``Results.to_frame()`` rows
    stacked) with the published rows its declaration names, stacked, with an ``encoder`` column."""
    return compare_all(ours, {n: published_names(n) for n in models})


def table1_caption(settings) -> str:
    """Table 1's caption (Markdown) for the Quick-Thoughts preset ``settings`` (its name and protocol)."""
    return (f"**Table 1** (Logeswaran & Lee), paper vs ours ({settings.name} preset, {settings.eval_config} protocol). "
            "Paper rows: BookCorpus, 2400-d (combine, MC: 4800-d), 9-11 h on a GPU; MC-QT with GloVe 840B 300d. "
            "Ours: Gutenberg, 600-d (combine, MC: 1200-d; BoW-QT 600-d), minutes on a CPU; MC-QT with GloVe 6B 50d. "
            "Skip-thought paper rows: Kiros et al. (MSRP, SICK from their Table 3).")


def sts14_subsets(results: dict) -> pd.DataFrame:
    """STS14 Pearson r per sub-dataset (columns named as the paper's Table 8) of each named
    :class:`~reproducer.evaluate.harness.Results`."""
    return pd.DataFrame({name: {label: r.scores["STS14"][f"{subset}.pearson"] for subset, label in STS14_SUBSETS.items()}
                         for name, r in results.items()}).T


def paper_table8() -> pd.DataFrame:
    """The paper's Table 8: its models (in its order) × the STS14 sub-datasets."""
    paper = paper_table("logeswaran2018", "Table 8", columns="metric")
    return paper.rename(columns=lambda metric: STS14_SUBSETS[metric.removesuffix(".pearson")])


def table8(results: dict, matches: dict[str, str]) -> pd.DataFrame:
    """Table 8: our models' STS14 sub-dataset scores, every row of the paper's, and ours − paper for ``matches`` (our
    row → the paper's model of the same kind)."""
    return versus_matched(sts14_subsets(results), paper_table8(), matches)

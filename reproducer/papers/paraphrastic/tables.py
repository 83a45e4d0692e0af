"""Paper-vs-ours tables of Wieting et al.'s (2016) similarity suite (:mod:`reproducer.evaluate.similarity`).

A *suite* is :func:`~reproducer.evaluate.similarity.similarity_suite`'s frame as records (``task, dataset, metric,
score``), the form the chapter caches. From suites and ``published.csv``:

- :class:`SimilarityTable`: Table 2, ours and the paper's rows under one (task, dataset) index, with the mean over
  the datasets both have (the yearly *average* rows left out);
- :func:`in_domain_table`: Table 3, the Pavlick et al. PPDB pairs (oracle and chosen-on-dev scores);
- :func:`length_tables`: Table 7, Pearson's r per sentence-length bin, ours and the paper's;
- :func:`reweighting_table`: section 6, how much of PP's gain a word reweighting of the initial vectors recovers;
- :func:`sts_pool`: the STS 2012-2015 sentences the neighbour explorer searches, and its queries.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from reproducer.errors import ReproducerError
from reproducer.evaluate.length_bins import bin_labels
from reproducer.evaluate.similarity import YEARS
from reproducer.report.published import published
from reproducer.papers import registry

PAPER = registry.paper("wieting2016")  # this chapter's declaration (reproducer/papers/paraphrastic/__init__.py)

#: The paper's rows whose dataset is not named by its metric, under our dataset names.
DATASET_OF = {"SICK-R": "test (cosine)", "Twitter": "test (graded)"}
#: The paper's columns that are official SemEval submissions, not models.
OFFICIAL = ["50%", "75%", "Max"]


def ppdb_score(suite: list[dict], half: str = "dev") -> float:
    """Spearman's ρ × 100 of a suite on the ``dev``, ``test`` or ``all`` Pavlick et al. PPDB pairs."""
    found = [r["score"] for r in suite if r["task"] == "PPDB" and r["dataset"] == half]
    if not found:
        raise ReproducerError(f"The suite has no PPDB {half!r} score.")
    return found[0]


def suite_mean(suite: list[dict], datasets: list[tuple[str, str]]) -> float:
    """The mean score of a suite over ``datasets`` ((task, dataset) pairs; missing ones are skipped)."""
    return pd.DataFrame(suite).set_index(["task", "dataset"]).score.reindex(datasets).mean()


def paper_rows(table: str = "Table 2") -> pd.DataFrame:
    """The paper's rows of ``table`` with a ``dataset`` column in our suite's names."""
    rows = published(PAPER.key)
    rows = rows[rows.table == table].copy()
    rows["dataset"] = [DATASET_OF.get(t, m.removesuffix(".pearson")) for t, m in zip(rows.task, rows.metric)]
    return rows


@dataclass
class SimilarityTable:
    """Table 2: ``ours`` ((task, dataset) × our models, in the paper's row order, rows both have), ``paper`` (the
    paper's numbers for the same rows and models, columns named as ours), ``official`` (its SemEval 50% / 75% / Max
    columns) and ``datasets`` (the rows that are datasets, not yearly averages)."""

    ours: pd.DataFrame
    paper: pd.DataFrame
    official: pd.DataFrame
    datasets: list

    @classmethod
    def build(cls, suites: dict[str, list[dict]], paper_names: dict[str, str]) -> "SimilarityTable":
        """From our suites (model → records, in column order) and ``paper_names`` (our model → the paper's)."""
        scores = pd.concat([pd.DataFrame(s).assign(model=n) for n, s in suites.items()], ignore_index=True)
        paper2 = paper_rows("Table 2")
        order = list(dict.fromkeys(zip(paper2.task, paper2.dataset)))  # the paper's row order
        ours_keys = set(zip(scores.task, scores.dataset))
        shared = [key for key in order if key in ours_keys]
        ours = scores.pivot_table(index=["task", "dataset"], columns="model", values="score").reindex(shared)
        ours = ours[[n for n in suites if n in ours.columns]]
        paper_wide = paper2.pivot_table(index=["task", "dataset"], columns="model", values="value").reindex(shared)
        paper = paper_wide[[paper_names[n] for n in ours.columns]].copy()
        paper.columns = ours.columns
        return cls(ours, paper, paper_wide[OFFICIAL], [(t, d) for t, d in shared if d != "average"])

    @property
    def mean_label(self) -> tuple[str, str]:
        return ("all", f"mean of {len(self.datasets)}")

    def mean(self, frame: pd.DataFrame | None = None) -> pd.Series:
        """Column means of ``frame`` (default: ours) over the datasets."""
        return (self.ours if frame is None else frame).loc[self.datasets].mean()

    def with_mean(self, frame: pd.DataFrame) -> pd.DataFrame:
        """A copy of ``frame`` with the mean row appended."""
        out = frame.copy()
        out.loc[self.mean_label, :] = self.mean(frame)
        return out

    def table(self) -> pd.DataFrame:
        """Ours next to the paper's SemEval columns (``paper 50%`` …), with the mean row."""
        table = self.ours.join(self.official.add_prefix("paper "))
        table.loc[self.mean_label, :] = self.mean(self.ours).tolist() + self.mean(self.official).tolist()
        return table

    def difference(self) -> pd.DataFrame:
        """Ours − the paper, mean row included."""
        return self.with_mean(self.ours) - self.with_mean(self.paper)


def in_domain_table(runs: dict[str, list[dict]], chosen: dict[str, dict], baselines: dict[str, list[dict]],
                    paper_names: dict[str, str]) -> pd.DataFrame:
    """Table 3 on the Pavlick et al. pairs: ``oracle`` (the best grid configuration judged on the test half),
    ``test`` (the configuration chosen on dev, scored on test; untuned baselines: both their score) and the paper's
    columns. ``runs``: model → its grid records (each with a ``suite``); ``chosen``: model → the chosen record."""
    rows = {n: {"oracle": max(ppdb_score(r["suite"], "test") for r in records),
                "test": ppdb_score(chosen[n]["suite"], "test")} for n, records in runs.items()}
    rows.update({n: {"oracle": ppdb_score(s, "test"), "test": ppdb_score(s, "test")} for n, s in baselines.items()})
    paper3 = paper_rows("Table 3").pivot_table(index="model", columns="metric", values="value")
    table = pd.DataFrame(rows).T
    for column, metric in [("paper oracle", "oracle.spearman"), ("paper test", "test.spearman"),
                           ("paper Annotated-PPDB", "spearman")]:
        table[column] = [paper3.loc[paper_names[n], metric] for n in table.index]
    table["test − paper test"] = table["test"] - table["paper test"]
    return table


def length_bin_frame(encoders: dict) -> pd.DataFrame:
    """:func:`~reproducer.evaluate.length_bins.length_bin_scores` of each encoder (name → encoder) on all STS
    2012-2015 pairs, stacked with a ``model`` column."""
    from reproducer.evaluate.length_bins import length_bin_scores, sts_pairs

    sts = sts_pairs(YEARS)
    return pd.concat([length_bin_scores(encoder, sts).assign(model=name) for name, encoder in encoders.items()],
                     ignore_index=True)


def length_tables(bins: pd.DataFrame, paper_names: dict[str, str]) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    """Table 7 from :func:`length_bin_frame`'s frame (as cached: bins may come back from CSV as numbers): ours and
    the paper's Pearson's r × 100 (models × bins, our model names, ``paper_names`` our → the paper's) and our pairs
    per bin."""
    labels = bin_labels()
    bins = bins.assign(pearson=bins["pearson"] * 100, bin=bins["bin"].astype(str))
    ours = bins.pivot(index="model", columns="bin", values="pearson").reindex(index=list(paper_names), columns=labels)
    counts = bins.drop_duplicates("bin").set_index("bin").n.reindex(labels)
    paper = paper_rows("Table 7")
    paper["bin"] = (paper.metric.str.removeprefix("bin").str.removesuffix(".pearson").str.replace("<=", "≤")
                    .str.replace(">=", "≥"))
    paper = paper.pivot_table(index="model", columns="bin", values="value").reindex(
        index=list(paper_names.values()), columns=labels)
    paper.index = pd.Index(list(paper_names), name="model")
    return ours, paper, counts


def reweighting_table(initial: list[dict], reweighted: list[dict], trained: list[dict],
                      datasets: list) -> tuple[pd.DataFrame, dict[str, float]]:
    """Section 6: the mean score over ``datasets`` of the initial vectors, the initial vectors × PP's word weights and
    PP, ours and the paper's (columns ``ours``, ``paper``); and the share of PP's gain over the initial vectors that
    the reweighting recovers, per column."""
    paper6 = paper_rows("Section 6").set_index("model").value
    table = pd.Series({"initial vectors": suite_mean(initial, datasets),
                       "initial × PP weight": suite_mean(reweighted, datasets),
                       "PP": suite_mean(trained, datasets)}, name="ours").to_frame()
    table = table.assign(paper=[paper6["paragram-sl999"], paper6["paragram-sl999 x PP weight"],
                                paper6["paragram-phrase"]])
    share = {c: (table.loc["initial × PP weight", c] - table.loc["initial vectors", c])
             / (table.loc["PP", c] - table.loc["initial vectors", c]) for c in ("ours", "paper")}
    return table, share


def sts_pool(n_queries: int, *, seed: int = 0, limit: int | None = None) -> tuple[list[str], list[str]]:
    """Every distinct sentence of STS 2012-2015 (the first ``limit`` if given) and ``n_queries`` of them drawn with
    ``seed``: the explorer's pool and queries."""
    from reproducer.evaluate.length_bins import sts_pairs

    sts = sts_pairs(YEARS)
    pool = list(dict.fromkeys([*sts.a, *sts.b]))[:limit]
    rng = np.random.default_rng(seed)
    return pool, [pool[i] for i in rng.choice(len(pool), size=min(n_queries, len(pool)), replace=False)]

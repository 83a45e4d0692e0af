"""Paper-vs-ours tables: the shapes every chapter's tables take, built from ``published.csv`` and our results.

- :func:`paper_table`: one published table as a wide frame (rows: models, columns: e.g. tasks).
- :func:`versus`: ours, the paper's and their difference stacked (``ours`` / ``paper`` / ``ours − paper``).
- :func:`side_by_side`: a :func:`~reproducer.report.published.compare` frame pivoted to encoders × (task, metric)
  with the published value, ours and the difference next to each other.
"""
from __future__ import annotations

from typing import Iterable

import pandas as pd

from reproducer.report.published import published


def paper_table(paper: str, table: str | Iterable[str] | None = None, *, index: str | list[str] = "model",
                columns: str | list[str] = "task", values: str = "value", rename: dict | None = None) -> pd.DataFrame:
    """The rows of ``paper`` (and ``table``: one name or several) pivoted ``index`` × ``columns``; ``rename`` maps the
    paper's model names to ours (rows not in it are kept as they are)."""
    rows = published(paper)
    if table is not None:
        rows = rows[rows.table.isin([table] if isinstance(table, str) else list(table))]
    if rename:
        rows = rows.assign(model=rows.model.map(lambda m: rename.get(m, m)))
    return rows.pivot_table(index=index, columns=columns, values=values, sort=False)


def versus(ours: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """``ours``, ``paper`` and ``ours − paper`` stacked (paper aligned to our rows and columns)."""
    paper = paper.reindex(index=ours.index, columns=ours.columns)
    return pd.concat({"ours": ours, "paper": paper, "ours − paper": ours - paper})


def side_by_side(comparison: pd.DataFrame, metrics: Iterable[tuple[str, str]], order: list[str]) -> pd.DataFrame:
    """A :func:`~reproducer.report.published.compare` frame (several encoders stacked, column ``encoder``) for the
    ``(task, metric)`` pairs in ``metrics``: rows the encoders in ``order``, columns (task, metric, published / ours /
    diff)."""
    metrics = set(metrics)
    rows = comparison[[(t, m) in metrics for t, m in zip(comparison.task, comparison.metric)]]
    table = rows.pivot_table(index="encoder", columns=["task", "metric"], values=["published", "ours", "diff"])
    table = table.reorder_levels([1, 2, 0], axis=1).sort_index(axis=1, level=[0, 1], sort_remaining=False)
    return table.reindex(order)


def log_table(logs: dict[str, dict], *, loss: str = "final loss", extra: dict[str, str] | None = None) -> pd.DataFrame:
    """One row per training log (name → ``TrainLog.to_dict()``, possibly with more keys): steps, training seconds,
    sentences / second, the last recorded loss (column ``loss``) and ``extra`` columns (column → key of the log)."""
    return pd.DataFrame({
        name: {"steps": log["step"], "training seconds": log["seconds"],
               "sentences / second": log["examples"] / log["seconds"], loss: log["losses"][-1]["loss"],
               **{column: log[key] for column, key in (extra or {}).items()}}
        for name, log in logs.items()}).T


def first_neighbours(neighbours: pd.DataFrame, encoders: list[str], queries: list[str], display=None) -> pd.DataFrame:
    """Each query's nearest pool sentence under each of ``encoders`` (rank 1 of a
    :func:`~reproducer.report.explorer.neighbour_frame`): rows the ``queries`` in order, columns the ``encoders``
    (e.g. Kiros et al.'s Table 2); ``display`` (e.g. :func:`~reproducer.report.explorer.readable`) maps every
    sentence to its shown text."""
    top = neighbours[(neighbours["rank"] == 1) & neighbours.encoder.isin(encoders)]
    table = top.pivot(index="query", columns="encoder", values="neighbour").reindex(queries)[list(encoders)]
    if display is not None:
        table = table.map(display)
        table.index = table.index.map(display)
    return table.rename_axis("query (held out)")


def versus_by_model(ours: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """:func:`versus` with each model's rows together: index (model, ``ours`` | ``paper`` | ``ours − paper``), models
    in ``ours``' order (e.g. Logeswaran & Lee's Table 1 with our row under each published one)."""
    stacked = versus(ours, paper)
    return pd.concat({model: stacked.xs(model, level=1) for model in ours.index})


def versus_matched(ours: pd.DataFrame, paper: pd.DataFrame, matches: dict[str, str]) -> pd.DataFrame:
    """``ours``, every row of ``paper`` (its own models, in its order) and ``ours − paper`` for the pairs in ``matches``
    (our row → the paper's row of the same kind), stacked; the columns are ``ours``'."""
    diff = pd.DataFrame({o: ours.loc[o] - paper.loc[p, list(ours.columns)] for o, p in matches.items()}).T
    return pd.concat({"ours": ours, "paper": paper[list(ours.columns)], "ours − paper": diff})[list(ours.columns)]


def beside(ours: pd.DataFrame, paper: pd.DataFrame, compared: Iterable[str] | None = None) -> pd.DataFrame:
    """``ours``, ``paper`` and ``ours − paper`` side by side as column groups (the paper's rows aligned to ours; its
    columns may differ, e.g. training hours against our minutes); ``compared``: the columns whose difference is shown
    (default: those both have)."""
    paper = paper.reindex(ours.index)
    compared = [c for c in ours.columns if c in paper.columns] if compared is None else list(compared)
    return pd.concat({"ours": ours, "paper": paper, "ours − paper": (ours - paper)[compared]}, axis=1)


def held_out_change(evals: list[dict], key: str = "held-out loss", tail: float = 1 / 3) -> float:
    """The relative change (%) of ``key`` over the last ``tail`` of a run's training seconds (from the evaluation
    record nearest to the start of that stretch to the last one): near 0, the curve has flattened. NaN with fewer
    than two records."""
    points = [(e["seconds"], e[key]) for e in evals if key in e]
    if len(points) < 2:
        return float("nan")
    start = points[-1][0] * (1 - tail)
    first = min(points[:-1], key=lambda p: abs(p[0] - start))[1]
    return 100 * (points[-1][1] - first) / abs(first)


def training_extent(records: dict[str, dict], corpus_sentences: int | None) -> pd.DataFrame:
    """How far each model trained (name → ``TrainLog.to_dict()``): steps, training seconds, sentences / second,
    sentences seen, **epochs** of a corpus of ``corpus_sentences`` (NaN when ``None``), the first and last
    **held-out loss** of its curve and its change over the last third of training (%, :func:`held_out_change`;
    NaN for a model without a held-out curve)."""
    rows = {}
    for name, log in records.items():
        held = [e["held-out loss"] for e in log.get("evals", []) if "held-out loss" in e]
        rows[name] = {"steps": log["step"], "training seconds": log["seconds"],
                      "sentences / second": log["examples"] / log["seconds"], "sentences seen": log["examples"],
                      "epochs": log["examples"] / corpus_sentences if corpus_sentences else float("nan"),
                      "held-out loss (first)": held[0] if held else float("nan"),
                      "held-out loss (last)": held[-1] if held else float("nan"),
                      "held-out change, last third (%)": held_out_change(log.get("evals", []))}
    return pd.DataFrame(rows).T

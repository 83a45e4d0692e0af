"""Published numbers as data (``published.csv``: paper, table, model, setting, task, metric, value)
and the paper-vs-ours comparison every table in the book is built from.

STS14 in Zhang et al. Table 1 (copied from Conneau et al. 2017) is SentEval's ``all`` aggregate,
which SentEval computes as a mean and a weighted mean over the sub-datasets; the papers do not say
which one they print. It is stored as ``wmean`` (SentEval's weighted mean) and compared to ours.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pandas as pd

from reproducer.models import published_names


@lru_cache(maxsize=1)
def _table() -> pd.DataFrame:
    return pd.read_csv(Path(__file__).with_name("published.csv"))


def published(paper: str | None = None, model: str | list[str] | None = None) -> pd.DataFrame:
    """Published rows, optionally filtered by paper key (e.g. ``"zhang2018"``) and model name(s)."""
    df = _table()
    if paper is not None:
        df = df[df.paper == paper]
    if model is not None:
        df = df[df.model.isin([model] if isinstance(model, str) else model)]
    return df.reset_index(drop=True)


def compare(ours: pd.DataFrame, encoder: str) -> pd.DataFrame:
    """Paper vs ours for one of our encoders: one row per published (paper, table, task, metric)
    with the published value, ours and the difference (ours - published); the published rows are those
    :mod:`reproducer.models` names for the encoder (e.g. GloVe averaging for ``glove-bow``). ``ours`` is
    ``Results.to_frame()`` (several encoders may be stacked)."""
    rows = published(model=published_names(encoder)).rename(columns={"value": "published"})
    mine = ours[ours.encoder == encoder].set_index(["task", "metric"])["value"]
    rows["ours"] = [mine.get((t, m), float("nan")) for t, m in zip(rows.task, rows.metric)]
    rows["diff"] = rows["ours"] - rows["published"]
    return rows

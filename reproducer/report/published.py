"""Published numbers as data (``published.csv``: paper, table, model, setting, task, metric, value)
and the paper-vs-ours comparison every table in the book is built from.

STS14 in Zhang et al. Table 1 (copied from Conneau et al. 2017) is SentEval's ``all`` aggregate,
which SentEval computes as a mean and a weighted mean over the sub-datasets; the papers do not say
which one they print. It is stored as ``wmean`` (SentEval's weighted mean) and compared to ours.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Sequence

import pandas as pd


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


def compare(ours: pd.DataFrame, encoder: str, published_as: Sequence[str]) -> pd.DataFrame:
    """Paper vs ours for one of our encoders: one row per published (paper, table, task, metric) of the rows
    ``published_as`` (the published names of the encoder's method, as its declaration gives them:
    :func:`reproducer.papers.registry.published_names`, e.g. GloVe averaging for ``glove-bow``) with the published
    value, ours and the difference (ours - published). ``ours`` is ``Results.to_frame()`` (several encoders may be
    stacked)."""
    rows = published(model=list(published_as)).rename(columns={"value": "published"})
    mine = ours[ours.encoder == encoder].set_index(["task", "metric"])["value"]
    rows["ours"] = [mine.get((t, m), float("nan")) for t, m in zip(rows.task, rows.metric)]
    rows["diff"] = rows["ours"] - rows["published"]
    return rows


def compare_all(ours: pd.DataFrame, published_as: dict[str, Sequence[str]]) -> pd.DataFrame:
    """:func:`compare` of each encoder of ``published_as`` (encoder → its published names), stacked, with an
    ``encoder`` column."""
    return pd.concat([compare(ours, name, rows).assign(encoder=name) for name, rows in published_as.items()],
                     ignore_index=True)

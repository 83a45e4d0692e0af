"""Similarity scores by sentence length (Wieting et al. 2016, section 5, Table 7).

Wieting et al. pool the pairs of every SemEval STS dataset, give each pair the token count of its longer
sentence, bin the pairs by that count (≤4, 5, 6, 7, 8, 9, ≥10) and compute, per bin, the Pearson
correlation between the cosine of the two sentence vectors and the gold score. Any chapter can use it:
:func:`sts_pairs` pools the pairs, :func:`length_bin_scores` scores an encoder.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from reproducer.data.loaders import STS_DATASETS, load_sts
from reproducer.errors import ReproducerError
from reproducer.evaluate.harness import encode_unique
from reproducer.evaluate.protocols import cosine_correlations

DEFAULT_EDGES = (4, 5, 6, 7, 8, 9)  # bins ≤4, 5, 6, 7, 8, 9, ≥10 (Wieting et al., Table 7)


def bin_labels(edges: Sequence[int] = DEFAULT_EDGES) -> list[str]:
    """``["≤4", "5", ..., "9", "≥10"]`` for ``edges = (4, 5, ..., 9)``: the first bin is every length up to
    ``edges[0]``, then one bin per further edge, then everything longer than the last edge."""
    edges = list(edges)
    if not edges or any(b <= a for a, b in zip(edges, edges[1:])):
        raise ReproducerError(f"Bin edges must be a non-empty increasing sequence, got {edges}.")
    middle = [str(e) if e == prev + 1 else f"{prev + 1}-{e}" for prev, e in zip(edges, edges[1:])]
    return [f"≤{edges[0]}", *middle, f"≥{edges[-1] + 1}"]


def length_bin(lengths: Sequence[int] | np.ndarray, edges: Sequence[int] = DEFAULT_EDGES) -> np.ndarray:
    """The bin label of each length (see :func:`bin_labels`)."""
    labels = np.array(bin_labels(edges), dtype=object)
    return labels[np.searchsorted(np.asarray(edges), np.asarray(lengths), side="left")]


def pair_length(a: str, b: str) -> int:
    """Tokens of the longer sentence of a pair (whitespace tokens: the STS files are tokenized)."""
    return max(len(a.split()), len(b.split()))


def sts_pairs(years: Sequence[str] | None = None) -> pd.DataFrame:
    """Every scored pair of the SemEval STS years (default: all we have, STS12-16) as a frame with
    ``year, dataset, a, b, score, length``."""
    rows = [{"year": year, "dataset": name, "a": p.a, "b": p.b, "score": p.label, "length": pair_length(p.a, p.b)}
            for year in (years or list(STS_DATASETS)) for name, pairs in load_sts(year).items() for p in pairs]
    return pd.DataFrame(rows)


def binned_correlations(u: np.ndarray, v: np.ndarray, gold: np.ndarray, lengths: np.ndarray,
                        edges: Sequence[int] = DEFAULT_EDGES) -> pd.DataFrame:
    """Per length bin: the number of pairs and the Pearson and Spearman correlations between
    ``cos(u_i, v_i)`` and ``gold``; one row per bin, in order (an empty bin has ``n = 0`` and NaN)."""
    if not len(u) == len(v) == len(gold) == len(lengths):
        raise ReproducerError(f"Got {len(u)}, {len(v)}, {len(gold)} and {len(lengths)} rows; they must match.")
    bins = length_bin(lengths, edges)
    rows = []
    for label in bin_labels(edges):
        chosen = bins == label
        r = cosine_correlations(u[chosen], v[chosen], gold[chosen]) if chosen.sum() > 1 else \
            {"pearson": np.nan, "spearman": np.nan}
        rows.append({"bin": label, "n": int(chosen.sum()), "pearson": r["pearson"], "spearman": r["spearman"]})
    return pd.DataFrame(rows)


def length_bin_replicates(encoder, pairs: pd.DataFrame, edges: Sequence[int] = DEFAULT_EDGES, resamples: int = 1000,
                          batch_size: int = 256) -> dict[str, dict]:
    """Per length bin of ``pairs`` (as :func:`length_bin_scores`): Pearson's r × 100 of ``encoder``'s cosines and its
    ``resamples`` bootstrap replicates, which resample the bin's pairs with indices that depend only on the bin and its
    size (:func:`~reproducer.evaluate.uncertainty.item_replicates`: paired across encoders and training seeds; 4
    significant digits). Bins with fewer than two pairs are left out."""
    from reproducer.evaluate.uncertainty import item_replicates

    u, v = _encoded(encoder, pairs, batch_size)
    gold, bins = pairs.score.to_numpy(float), length_bin(pairs.length.to_numpy(), edges)
    out = {}
    for label in bin_labels(edges):
        chosen = bins == label
        if chosen.sum() > 1:
            scores = cosine_correlations(u[chosen], v[chosen], gold[chosen])
            replicates = 100 * item_replicates("pearson", scores["_items"], f"length bin {label}", resamples)
            out[label] = {"pearson": 100 * scores["pearson"], "n": int(chosen.sum()),
                          "replicates": [float(f"{r:.4g}") for r in replicates]}
    return out


def length_bin_scores(encoder, pairs: pd.DataFrame, edges: Sequence[int] = DEFAULT_EDGES,
                      batch_size: int = 256) -> pd.DataFrame:
    """:func:`binned_correlations` of an encoder on ``pairs`` (a frame with ``a, b, score, length``, e.g.
    :func:`sts_pairs`); each distinct sentence is encoded once."""
    u, v = _encoded(encoder, pairs, batch_size)
    return binned_correlations(u, v, pairs.score.to_numpy(float), pairs.length.to_numpy(), edges)


def _encoded(encoder, pairs: pd.DataFrame, batch_size: int) -> tuple[np.ndarray, np.ndarray]:
    """The vectors of ``pairs``' first and second sentences, each distinct sentence encoded once."""
    table = encode_unique(encoder, list(dict.fromkeys([*pairs.a, *pairs.b])), batch_size, progress=False)
    return np.stack([table[s] for s in pairs.a]), np.stack([table[s] for s in pairs.b])

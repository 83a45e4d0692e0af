"""What word embeddings learned, word by word: cosine nearest neighbours in an embedding table (Wieting et al.'s
Table 8, d2l's ``knn``) and each word's weight as the L1 norm of its vector (their section 6).

Tables are ``(len(vocab), d)`` arrays whose row ``vocab.stoi[w]`` is word ``w`` (e.g. a trained ``embed.weight`` and
the initial table of :func:`reproducer.papers.paraphrastic.objective.initial_vocabulary`), so several tables over one
vocabulary compare row for row.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from reproducer.errors import ReproducerError

MISSING = "not in our vocabulary"


def nearest_words(table: np.ndarray, vocab, word: str, candidates: list[str], k: int = 6) -> list[str]:
    """The ``k`` words of ``candidates`` whose rows of ``table`` are most cosine-similar to ``word``'s (the word
    itself left out), best first."""
    if word not in vocab.stoi:
        raise ReproducerError(f"{word!r} is not in the vocabulary.")
    rows = table[[vocab.stoi[w] for w in candidates]]
    rows = rows / np.linalg.norm(rows, axis=1, keepdims=True).clip(1e-9)
    q = table[vocab.stoi[word]]
    sims = rows @ (q / max(np.linalg.norm(q), 1e-9))
    return [candidates[i] for i in np.argsort(-sims) if candidates[i] != word][:k]


def neighbour_words(tables: dict[str, np.ndarray], vocab, queries: list[str], candidates: list[str],
                    k: int = 6) -> pd.DataFrame:
    """One row per query word: its :func:`nearest_words` in each table (one column per table, comma-separated); a
    query outside ``vocab`` says so in the first column."""
    rows = []
    for word in queries:
        if word in vocab.stoi:
            rows.append({"word": word, **{name: ", ".join(nearest_words(t, vocab, word, candidates, k))
                                          for name, t in tables.items()}})
        else:
            rows.append({"word": word, **{name: MISSING if i == 0 else "" for i, name in enumerate(tables)}})
    return pd.DataFrame(rows)


def word_weights(table: np.ndarray, vocab) -> pd.Series:
    """Each word's weight: the sum of the absolute values of its vector's components (Wieting et al. section 6)."""
    table = np.asarray(table)
    if len(table) != len(vocab):
        raise ReproducerError(f"A table of {len(table)} rows for a vocabulary of {len(vocab)} words.")
    return pd.Series(np.abs(table).sum(axis=1), index=vocab.itos)


def weight_extremes(weights: pd.Series, words: list[str], n: int = 12) -> pd.DataFrame:
    """The ``n`` words of ``words`` with the smallest and the ``n`` with the largest weight, side by side."""
    ranked = weights[words].sort_values()
    return pd.DataFrame({"smallest": ranked.index[:n], "weight (small)": ranked.values[:n],
                         "largest": ranked.index[::-1][:n], "weight (large)": ranked.values[::-1][:n]})

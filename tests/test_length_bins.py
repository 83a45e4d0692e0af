"""Scores by sentence length (Wieting et al. 2016, Table 7): binning and per-bin correlations."""
import numpy as np
import pandas as pd
import pytest

from reproducer.errors import ReproducerError
from reproducer.evaluate.length_bins import (bin_labels, binned_correlations, length_bin, length_bin_scores,
                                             pair_length, sts_pairs)


def test_bins_are_the_papers():
    assert bin_labels() == ["≤4", "5", "6", "7", "8", "9", "≥10"]
    assert length_bin([1, 4, 5, 9, 10, 40]).tolist() == ["≤4", "≤4", "5", "9", "≥10", "≥10"]
    assert bin_labels([3, 6]) == ["≤3", "4-6", "≥7"]
    assert pair_length("a b c", "a b c d e") == 5
    with pytest.raises(ReproducerError, match="increasing"):
        bin_labels([5, 4])


def test_binned_correlations_score_each_bin_on_its_own_pairs():
    rng = np.random.default_rng(0)
    n = 400
    lengths = rng.integers(2, 14, size=n)
    gold = rng.uniform(0, 5, size=n)
    u = rng.normal(size=(n, 8))
    # short pairs: v's cosine to u follows the gold score; long pairs: v is noise
    v = np.where((lengths <= 6)[:, None], u + (5 - gold)[:, None] * rng.normal(size=(n, 8)) * 0.3, rng.normal(size=(n, 8)))
    table = binned_correlations(u, v, gold, lengths).set_index("bin")
    assert table.n.sum() == n and table.loc["≤4", "n"] == (lengths <= 4).sum()
    assert table.loc[["≤4", "5", "6"], "pearson"].min() > 0.5
    assert table.loc[["8", "9", "≥10"], "pearson"].abs().max() < 0.4
    with pytest.raises(ReproducerError, match="must match"):
        binned_correlations(u, v[:-1], gold, lengths)


def test_length_bin_scores_encodes_each_sentence_once():
    class Counting:
        calls = []

        def encode(self, sentences, batch_size=256, show_progress_bar=False):
            self.calls.append(list(sentences))
            return np.array([[len(s), 1.0 + s.count("x")] for s in sentences], dtype=float)

    pairs = pd.DataFrame({"a": ["x y", "x y", "p q r s t u"], "b": ["x y z", "y", "p"], "score": [4.0, 2.0, 1.0]})
    pairs["length"] = [pair_length(a, b) for a, b in zip(pairs.a, pairs.b)]
    enc = Counting()
    table = length_bin_scores(enc, pairs)
    assert sorted(enc.calls[0]) == sorted({"x y", "x y z", "y", "p q r s t u", "p"})
    assert table.n.tolist() == [2, 0, 1, 0, 0, 0, 0]


def test_sts_pairs_pool_every_year():
    pairs = sts_pairs(["STS12"])
    assert len(pairs) == 3108 and set(pairs.columns) >= {"year", "dataset", "a", "b", "score", "length"}
    assert (pairs.length == [pair_length(a, b) for a, b in zip(pairs.a, pairs.b)]).all()

"""Evaluation protocols on hand-made features with known answers."""
from __future__ import annotations

import numpy as np
import pytest

from reproducer.evaluate import protocols as P

FAST = P.ClassifierConfig(kfold=3, inner_kfold=3, cs=(0.5, 2.0), max_iter=200, n_jobs=1)


def separable(n=120, d=5, classes=2, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    x = rng.normal(size=(n, d)) * 0.1
    x[np.arange(n), y] += 5.0  # class c is far along axis c
    return x, y


def test_cv_accuracy_is_perfect_on_separable_features():
    x, y = separable()
    out = P.cv_accuracy(x, y, FAST)
    assert out["acc"] == 100.0 and out["dev_acc"] == 100.0


def test_cv_accuracy_is_chance_on_noise():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(400, 20)), np.arange(400) % 2
    assert 35 < P.cv_accuracy(x, y, FAST)["acc"] < 65


def test_train_test_accuracy_and_f1():
    x, y = separable(classes=2)
    out = P.train_test_accuracy(x[:90], y[:90], x[90:], y[90:], FAST)
    assert out["acc"] == 100.0 and out["f1"] == 100.0
    x3, y3 = separable(classes=3)
    out3 = P.train_test_accuracy(x3[:90], y3[:90], x3[90:], y3[90:], FAST)
    assert out3["acc"] == 100.0 and "f1" not in out3


def test_dev_accuracy_uses_the_dev_split():
    x, y = separable(n=150, classes=3)
    out = P.dev_accuracy(x[:90], y[:90], x[90:120], y[90:120], x[120:], y[120:], FAST)
    assert out.pop("_items") == {"correct": "1" * 30}  # every one of the 30 test items, correct
    assert out == {"acc": 100.0, "dev_acc": 100.0}


def test_pair_features():
    u, v = np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]])
    assert P.pair_features(u, v).tolist() == [[2.0, 3.0, 3.0, -2.0]]
    assert P.pair_features(u, v, with_uv=True).shape == (1, 8)


@pytest.mark.parametrize("score", [1.0, 1.4, 2.5, 3.0, 4.2, 5.0])
def test_score_distribution_expectation_is_the_score(score):
    p = P.score_distribution(np.array([score]))[0]
    assert p.sum() == pytest.approx(1.0)
    assert p @ np.arange(1, 6) == pytest.approx(score)
    assert (p > 0).sum() <= 2


def test_relatedness_learns_a_linear_score():
    rng = np.random.default_rng(0)
    def make(n):
        y = rng.uniform(1, 5, size=n)
        x = np.c_[y, rng.normal(size=(n, 3))]
        return x, y
    (xt, yt), (xd, yd), (xs, ys) = make(300), make(100), make(100)
    cfg = P.RelatednessConfig(epochs_per_round=20, patience=1, max_epochs=200)
    out = P.relatedness(xt, yt, xd, yd, xs, ys, cfg)
    assert out["pearson"] > 0.95 and out["spearman"] > 0.95
    assert out["mse"] < np.var(ys), "better than predicting the mean score"
    import torch

    torch.manual_seed(123)
    state = torch.random.get_rng_state()
    with torch.no_grad():  # as inside the trainer's evaluation callback
        again = P.relatedness(xt, yt, xd, yd, xs, ys, cfg)
    assert again == out, "same seed, same result, with or without grad mode"
    assert torch.equal(torch.random.get_rng_state(), state), "the caller's random state is left alone"


def test_cosine_identical_orthogonal_and_zero():
    u = np.array([[1.0, 2.0], [1.0, 0.0], [0.0, 0.0]])
    v = np.array([[1.0, 2.0], [0.0, 3.0], [1.0, 1.0]])
    assert P.cosine(u, v).tolist() == pytest.approx([1.0, 0.0, 0.0])


def test_cosine_correlations_and_sts_aggregates():
    rng = np.random.default_rng(0)
    u = rng.normal(size=(50, 8))
    noise = np.linspace(0, 3, 50)[:, None] * rng.normal(size=(50, 8))
    v = u + noise
    gold = -np.linspace(0, 3, 50)  # less noise -> more similar
    r = P.cosine_correlations(u, v, gold)
    assert r["spearman"] > 0.6 and r["n"] == 50
    assert P.cosine_correlations(u, u, gold)["pearson"] == 0.0  # constant similarity: reported as 0
    per = {"a": {"pearson": 0.2, "spearman": 0.1, "n": 10}, "b": {"pearson": 0.8, "spearman": 0.4, "n": 30}}
    agg = P.aggregate_sts(per, {"pearson": 0.5, "spearman": 0.3})
    assert agg["mean.pearson"] == pytest.approx(0.5)
    assert agg["wmean.pearson"] == pytest.approx((0.2 * 10 + 0.8 * 30) / 40)
    assert agg["all.pearson"] == 0.5 and agg["wmean.spearman"] == pytest.approx(0.325)

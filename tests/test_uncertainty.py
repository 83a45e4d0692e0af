"""Intervals and the three outcomes of a claim (reproducer.evaluate.uncertainty)."""
from __future__ import annotations

import numpy as np
import pytest

from reproducer.evaluate.uncertainty import bootstrap_interval, decide, seed_interval


def test_the_bootstrap_interval_of_an_accuracy_has_the_binomial_width():
    correct = np.random.default_rng(0).random(2000) < 0.7
    low, high = bootstrap_interval(np.mean, correct, resamples=1000)
    assert low < correct.mean() < high
    expected = 2 * 1.96 * np.sqrt(0.7 * 0.3 / 2000)  # the normal approximation: 0.040
    assert high - low == pytest.approx(expected, rel=0.15)


def test_a_paired_bootstrap_resamples_items_together():
    rng = np.random.default_rng(1)
    gold = rng.normal(size=500)
    good, noisy = gold + rng.normal(scale=0.3, size=500), gold + rng.normal(scale=1.5, size=500)

    def r_gap(g, a, b):
        return np.corrcoef(g, a)[0, 1] - np.corrcoef(g, b)[0, 1]

    low, high = bootstrap_interval(r_gap, gold, good, noisy, resamples=500)
    assert 0 < low < r_gap(gold, good, noisy) < high  # the better encoder is better beyond the noise
    with pytest.raises(ValueError, match="same length"):
        bootstrap_interval(r_gap, gold, good[:-1], noisy)


def test_the_seed_interval_is_students_t():
    mean, low, high = seed_interval([1.0, 2.0, 3.0])
    assert mean == 2.0 and high - mean == pytest.approx(4.303 * 1.0 / np.sqrt(3), rel=1e-3)  # t(0.975, 2) = 4.303
    with pytest.raises(ValueError, match="two seeds"):
        seed_interval([1.0])


@pytest.mark.parametrize("low, high, threshold, outcome", [
    (0.2, 0.9, 0.0, "reproduced"), (-0.3, 0.4, 0.0, "inconclusive"), (-0.9, -0.1, 0.0, "not reproduced"),
    (4.9, 5.6, 4.8, "reproduced"), (4.1, 4.9, 4.8, "inconclusive"), (3.0, 4.5, 4.8, "not reproduced"),
])
def test_a_claim_is_decided_only_when_its_whole_interval_is_on_one_side(low, high, threshold, outcome):
    assert decide(low, high, threshold) == outcome


def test_an_interval_must_be_ordered():
    with pytest.raises(ValueError, match="low <= high"):
        decide(1.0, 0.0)

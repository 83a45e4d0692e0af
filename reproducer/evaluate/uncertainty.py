"""How sure a number is, and what a claim's outcome is given that: bootstrap intervals over test items (evaluation
noise), intervals over training seeds (training noise), and the three outcomes of a claim.

A claim is a quantity and the threshold the paper's wording sets ("≥ 4.8× faster": the speed ratio and 4.8; "MV beats
SV": the difference and 0). With an interval ``[low, high]`` for the quantity, the claim is *reproduced* when the
whole interval clears the threshold, *not reproduced* when the whole interval falls short of it (the reverse holds
beyond the noise), and *inconclusive* otherwise (:func:`decide`).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

OUTCOMES = ("reproduced", "not reproduced", "inconclusive")


def bootstrap_interval(statistic: Callable[..., float], *samples, level: float = 0.95, resamples: int = 2000,
                       seed: int = 0) -> tuple[float, float]:
    """The percentile bootstrap interval of ``statistic(*samples)`` resampling test items: the samples are arrays of
    the same length whose ``i``-th entries belong to item ``i`` and are resampled together (paired), e.g. per-item
    correctness (``np.mean``: accuracy), predictions and gold scores (a correlation), or two encoders' per-item
    correctness on the same test set (their difference). ``scipy.stats.bootstrap`` does the work."""
    from scipy.stats import bootstrap

    samples = [np.asarray(s) for s in samples]
    if not samples or len({len(s) for s in samples}) != 1 or len(samples[0]) < 2:
        raise ValueError("Give one or more samples of the same length (at least 2 items).")
    result = bootstrap(samples, statistic, paired=True, vectorized=False, confidence_level=level,
                       n_resamples=resamples, method="percentile", rng=np.random.default_rng(seed))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def seed_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)`` of a quantity measured once per training seed: Student's t interval of the mean (at least
    two seeds)."""
    from scipy import stats

    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        raise ValueError("An interval over seeds needs at least two seeds.")
    mean = float(values.mean())
    half = float(stats.t.ppf(0.5 + level / 2, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values)))
    return mean, mean - half, mean + half


def decide(low: float, high: float, threshold: float = 0.0) -> str:
    """The outcome of the claim "the quantity is at least ``threshold``" given its interval ``[low, high]``:
    ``"reproduced"`` (``low ≥ threshold``), ``"not reproduced"`` (``high < threshold``) or ``"inconclusive"``. For a
    claim that a quantity is at most a threshold, pass the negated interval and threshold."""
    if not low <= high:
        raise ValueError(f"An interval needs low <= high, got [{low}, {high}].")
    return "reproduced" if low >= threshold else "not reproduced" if high < threshold else "inconclusive"

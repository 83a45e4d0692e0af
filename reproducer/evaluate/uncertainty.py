"""How sure a number is, and what a claim's outcome is given that: bootstrap intervals over test items (evaluation
noise), intervals over training seeds (training noise), and the three outcomes of a claim.

A claim is a quantity and the threshold the paper's wording sets ("≥ 4.8× faster": the speed ratio and 4.8; "MV beats
SV": the difference and 0), and, where the paper prints it, the paper's own effect size (the gap in its table, its
ratio, its share). With an interval ``[low, high]`` for the quantity, the claim is *reproduced* when the whole interval
clears the threshold, *not reproduced* when the whole interval falls short of it (the reverse holds beyond the noise),
*smaller than published* when the interval contains the threshold but excludes the paper's effect (no effect of the
paper's size at our scale: decided, though not in the paper's favour), and *inconclusive* otherwise (:func:`decide`).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from reproducer.errors import ReproducerError
from reproducer.evaluate.items import arrays, main_score
from reproducer.evaluate.tasks import TASKS

OUTCOMES = ("reproduced", "not reproduced", "smaller than published", "inconclusive")


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


def decide(low: float, high: float, threshold: float = 0.0, effect: float | None = None) -> str:
    """The outcome of the claim "the quantity is at least ``threshold``" given its interval ``[low, high]``:
    ``"reproduced"`` (``low ≥ threshold``), ``"not reproduced"`` (``high < threshold``), ``"smaller than published"``
    (the interval contains the threshold but lies below ``effect``, the paper's own effect size, which must be at
    least the threshold) or ``"inconclusive"``. For a claim that a quantity is at most a threshold, pass the negated
    interval, threshold and effect."""
    if not low <= high:
        raise ValueError(f"An interval needs low <= high, got [{low}, {high}].")
    if effect is not None and effect < threshold:
        raise ValueError(f"The paper's effect {effect} lies on the wrong side of its own threshold {threshold}.")
    if low >= threshold:
        return "reproduced"
    if high < threshold:
        return "not reproduced"
    if effect is not None and high < effect:
        return "smaller than published"
    return "inconclusive"


def task_replicates(results, task: str, resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """``resamples`` bootstrap replicates of ``results``' main score on ``task`` (a
    :class:`~reproducer.evaluate.harness.Results` with per-item outcomes), resampling its test items. The resampled
    indices depend only on the task, the item count and ``seed``, so two encoders' replicates on one task are
    **paired** (the same resampled test sets): subtract them for the replicates of a difference, average them over
    tasks for a mean over tasks (each task resampled independently)."""
    items = results.items.get(task)
    if items is None:
        raise ReproducerError(f"{results.encoder} has no per-item outcomes on {task}: evaluate it again (results "
                              "stored before per-item outcomes were kept have none).")
    return item_replicates(TASKS[task].main_metric, items, task, resamples, seed)


#: Bootstrap indices are drawn in chunks of this many replicates from one generator: the first chunk is what a
#: 1,000-replicate bootstrap always drew, so asking for more replicates keeps those and adds others (and a chunk of
#: ``(CHUNK, n)`` indices stays small however many are asked for).
CHUNK = 1000


def resampled_indices(n: int, entropy: list[int], resamples: int):
    """The bootstrap's ``(rows, n)`` index chunks over ``n`` units, ``resamples`` rows in all, from one generator
    seeded with ``entropy`` (:data:`CHUNK` rows a chunk)."""
    rng = np.random.default_rng(entropy)
    for start in range(0, resamples, CHUNK):
        yield rng.integers(0, n, size=(min(CHUNK, resamples - start), n))


def item_replicates(metric: str, items: dict, key: str, resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """``resamples`` bootstrap replicates of ``metric`` (e.g. ``"spearman"``) on per-item outcomes ``items``
    (:mod:`reproducer.evaluate.items`), resampling the items with indices that depend only on ``key``, the item count
    and ``seed``: two encoders scored on the same items under the same ``key`` get paired replicates (the first
    1,000 the same whatever ``resamples`` is: :func:`resampled_indices`)."""
    import zlib

    a = arrays(items)
    n = len(a["correct"] if "correct" in a else a["pred"])
    return np.concatenate([main_score(metric, items, index)
                           for index in resampled_indices(n, [seed, zlib.crc32(key.encode()), n], resamples)])


def quantile_mc_error(replicates, q: float) -> float:
    """The Monte Carlo standard error of the ``q`` quantile of bootstrap ``replicates`` (how much the interval end
    would move with other draws of the same number): half the distance between the order statistics at ranks
    ``R·q ± √(R·q·(1−q))``, the one-standard-error band of the rank the quantile falls at (binomial),
    distribution-free."""
    ordered = np.sort(np.asarray(replicates, dtype=float))
    size = len(ordered)
    band = np.sqrt(size * q * (1 - q))
    low, high = (int(np.clip(r, 0, size - 1)) for r in (np.floor(size * q - band), np.ceil(size * q + band)))
    return float(ordered[high] - ordered[low]) / 2


def judge(value: float, replicates=None, seed_values=None, threshold: float = 0.0, level: float = 0.95,
          at_most: bool = False, effect: float | None = None, averaged: bool = False) -> dict:
    """The outcome of the claim "``value`` ≥ ``threshold``" (``at_most``: "≤") with both kinds of noise:

    - evaluation noise: the percentile interval of the quantity's bootstrap ``replicates`` over test items;
    - training noise: the spread of the same quantity over training seeds or repeats (``seed_values``, one per seed,
      at least 2): Student's t half-width ``t · s`` when ``value`` is one run, ``t · s / √n`` when it is the mean of
      the ``n`` values (``averaged``, e.g. the mean of a benchmark's repeats).

    The interval is ``value`` minus/plus the two half-widths added in quadrature (independent sources), and
    :func:`decide` gives the outcome, with the paper's own ``effect`` size where it prints one (same units and
    direction as the quantity). Returns ``{value, low, high, outcome, boot_low, boot_high, seed_sd, seeds, effect,
    mc_low, mc_high}`` (``None`` for a part not given; ``mc_low``, ``mc_high``: the Monte Carlo standard errors of the
    interval's ends from the bootstrap's finite replicates, :func:`quantile_mc_error`, 0 without replicates)."""
    from scipy import stats

    value = float(value)
    boot_low = boot_high = None
    down = up = 0.0
    mc = (0.0, 0.0)  # the Monte Carlo errors of the bootstrap's two ends
    if replicates is not None:
        reps = np.asarray(replicates, dtype=float)
        ends = (0.5 - level / 2, 0.5 + level / 2)
        boot_low, boot_high = (float(q) for q in np.quantile(reps, ends))
        down, up = max(value - boot_low, 0.0), max(boot_high - value, 0.0)
        mc = tuple(quantile_mc_error(reps, q) for q in ends)
    boot = (down, up)
    seed_sd, seeds = None, 0
    if seed_values is not None and len(seed_values) >= 2:
        seeds = len(seed_values)
        seed_sd = float(np.std(np.asarray(seed_values, dtype=float), ddof=1))
        half = float(stats.t.ppf(0.5 + level / 2, seeds - 1) * seed_sd / (np.sqrt(seeds) if averaged else 1.0))
        down, up = float(np.hypot(down, half)), float(np.hypot(up, half))
    low, high = value - down, value + up
    # an end moves with its bootstrap end by d(hypot(b, h))/db = b / hypot(b, h) (0 where the bootstrap adds nothing)
    mc_low, mc_high = (error * b / total if total > 0 else 0.0 for error, b, total in zip(mc, boot, (down, up)))
    if at_most:
        outcome = decide(-high, -low, -threshold, None if effect is None else -effect)
    else:
        outcome = decide(low, high, threshold, effect)
    return {"value": value, "low": low, "high": high, "outcome": outcome, "boot_low": boot_low,
            "boot_high": boot_high, "seed_sd": seed_sd, "seeds": seeds, "effect": effect,
            "mc_low": mc_low, "mc_high": mc_high}


#: How many Monte Carlo standard errors an interval end must lie from a boundary it is compared with (the threshold,
#: the paper's effect) for its outcome to stand on the bootstrap's replicates: at 3, other draws of as many replicates
#: would move it across about once in 700.
MC_MARGIN = 3.0


def could_flip(judged: dict, threshold: float, effect: float | None = None, margin: float = MC_MARGIN) -> bool:
    """Whether other draws of the same number of bootstrap replicates could change ``judged``'s outcome (a
    :func:`judge` result): an interval end within ``margin`` Monte Carlo errors of the threshold or the paper's
    effect."""
    bounds = [threshold] + ([] if effect is None else [effect])
    return any(abs(end - b) < margin * error for end, error in ((judged["low"], judged["mc_low"]),
                                                                  (judged["high"], judged["mc_high"]))
               for b in bounds if error > 0)


def worst_column(per_seed, at_most: bool = False) -> tuple[int, float, np.ndarray]:
    """For a claim about every column: ``per_seed`` ``(seeds, columns)`` values → the column whose **mean over the
    seeds** is the smallest (the largest with ``at_most``), that mean, and the seeds' values of that column (their
    spread is the claim's training noise). Taking each seed's own smallest column and averaging would bias the value
    low: the minimum of noisy numbers sits below the minimum of their means."""
    per_seed = np.asarray(per_seed, dtype=float).reshape(len(per_seed), -1)
    means = per_seed.mean(axis=0)
    k = int(np.argmax(means) if at_most else np.argmin(means))
    return k, float(means[k]), per_seed[:, k]

"""Where a claim is heading with more training (issue 70): its quantity at several budgets, its change per doubling of
training steps, the direction that change takes relative to the paper, and — labelled as an extrapolation — the
budget at which the fitted line would reach the claim's threshold.

One budget is a snapshot: a "not reproduced" after a fraction of an epoch is mostly "not yet". So each claim is also
read along its training. At every budget ``b`` (``steps[b]`` optimiser steps) each training seed ``k`` gives the
quantity ``values[b, k]`` and its bootstrap replicates over the test items ``replicates[b, k, :]`` (resampled alike
for every seed and budget, as the claims' evidence draws them). Then:

- the **change per doubling** is the least-squares slope of the seeds' mean against ``log2(steps)``;
- its interval is the book's one rule for a claim's noise (:func:`reproducer.evaluate.uncertainty.judge`): the
  percentile interval of the slope refitted on each item replicate (the items' noise), and Student's t over the
  seeds' own slopes (the training noise), added in quadrature — conservative, as every claim's interval is: the
  seeds' spread already holds part of the items' noise (on constructed data it covered the true slope in 100 of 100
  draws). A bootstrap over three seeds would understate their spread: three values have at most ten distinct
  resampled means.
- the **direction** is *toward the paper* when the interval excludes 0 on the side the claim's wording points to
  (up for "at least", down for "at most"), *away from it* when it excludes 0 on the other side, and *flat* otherwise;
- where it heads toward the paper and the line has not reached the threshold at our largest budget, the **crossing**
  is the budget at which it would, shown only within :data:`HORIZON` times our largest budget — an extrapolation,
  and said to be one.

:func:`doubling_trend` works on the numbers; :func:`claim_trend` takes a :class:`~reproducer.report.claims.Claim` and
each budget's seeds' :class:`~reproducer.report.claims.Evidence`.
"""
from __future__ import annotations

import numpy as np

from reproducer.errors import ReproducerError
from reproducer.evaluate.uncertainty import judge, worst_column

#: How far beyond our largest budget a crossing may be projected (16×: four doublings).
HORIZON = 16
DIRECTIONS = ("toward the paper", "away from it", "flat")
ARROWS = {"toward the paper": "↗", "away from it": "↘", "flat": "→"}
#: The direction of a claim that cannot be read along its training (:func:`trend_rows`).
NOT_READ = "not read"


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    """The least-squares slope of ``y`` on ``x`` over their finite pairs (NaN with fewer than two distinct ``x``)."""
    keep = np.isfinite(y)
    x, y = x[keep], y[keep]
    if len(np.unique(x)) < 2:
        return float("nan")
    x = x - x.mean()
    return float((x * (y - y.mean())).sum() / (x * x).sum())


def doubling_trend(steps, values, replicates=None, threshold: float = 0.0, at_most: bool = False,
                   horizon: float = HORIZON, level: float = 0.95) -> dict:
    """A claim's quantity along its training. ``steps``: each budget's training steps (at least two distinct);
    ``values``: ``(budgets, seeds)``, NaN where a seed has no run at that budget; ``replicates``: ``(budgets, seeds,
    R)`` item replicates or None; ``threshold``/``at_most``: the claim's. Returns ``slope`` (change per doubling),
    ``low``/``high`` (its interval), ``direction`` (:data:`DIRECTIONS`), ``crossing`` (steps at which the fitted line
    reaches the threshold, or None), ``crossing_note`` (why there is none, or that it is an extrapolation), ``past``
    (the line is past the threshold at our largest budget) and ``budgets`` (each budget's steps, seeds, mean)."""
    steps = np.asarray(steps, dtype=float)
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or values.shape[0] != len(steps):
        raise ReproducerError(f"values must be (budgets, seeds) with one row per budget: got {values.shape} for "
                              f"{len(steps)} budgets.")
    if np.any(steps <= 0) or len(np.unique(steps)) < 2:
        raise ReproducerError(f"A trend needs at least two distinct positive budgets, got steps {steps.tolist()}.")
    x = np.log2(steps)
    with np.errstate(invalid="ignore"):
        means = np.nanmean(values, axis=1)
    if not np.isfinite(means).all():
        raise ReproducerError("Every budget needs at least one seed's value.")
    if replicates is not None and np.shape(replicates)[:2] != values.shape:
        raise ReproducerError(f"replicates must be (budgets, seeds, R) like values {values.shape}, got "
                              f"{np.shape(replicates)}.")
    slope, seed_slopes, judged = _line_statistic(_slope, x, values, replicates, level)
    low, high = judged["low"], judged["high"]
    up = -1.0 if at_most else 1.0  # the side the claim's wording points to
    if low > 0 or high < 0:
        direction = "toward the paper" if np.sign(slope) == up else "away from it"
    else:
        direction = "flat"
    intercept = float(means.mean() - slope * x.mean())
    fitted_last = intercept + slope * x.max()
    past = bool(fitted_last <= threshold if at_most else fitted_last >= threshold)
    crossing, note = None, ""
    if past:
        note = "the fitted line is past the threshold at our largest budget"
    elif direction != "toward the paper":
        note = f"not heading toward the threshold ({direction})"
    else:
        at = 2.0 ** ((threshold - intercept) / slope)
        if at <= horizon * steps.max():
            crossing, note = float(at), f"extrapolated from {len(steps)} budgets; not measured"
        else:
            note = f"beyond {horizon:g}× our largest budget: not projected"
    budgets = [{"steps": int(s), "seeds": int(np.isfinite(values[b]).sum()), "mean": float(means[b])}
               for b, s in enumerate(steps)]
    return {"slope": slope, "low": low, "high": high, "direction": direction, "crossing": crossing,
            "crossing_note": note, "past": past, "budgets": budgets, "seed_slopes": seed_slopes}


def claim_trend(claim, budgets: dict[int, list], resamples: int = 1000, horizon: float = HORIZON) -> dict:
    """:func:`doubling_trend` of ``claim`` (a :class:`~reproducer.report.claims.Claim`) from ``budgets``: training
    steps → that budget's seeds' :class:`~reproducer.report.claims.Evidence` (in seed order; a budget may have fewer
    seeds). A claim about every column is read, at each budget, at the column that is worst for the seeds' mean there
    (:func:`~reproducer.evaluate.uncertainty.worst_column`), as :func:`~reproducer.report.claims.check` reads it. A seed
    whose evidence lacks a number the claim reads is left out of that budget, a budget with no such seed left out;
    fewer than two budgets left is an error (the claim cannot be read along its training)."""
    return doubling_trend(*_along(claim, budgets, resamples), claim.threshold, claim.at_most, horizon)


def _along(claim, budgets: dict[int, list], resamples: int) -> tuple[list[int], np.ndarray, np.ndarray]:
    """``(steps, values, replicates)`` of ``claim`` read on each budget's seeds' evidence (:func:`claim_trend`)."""
    read = {}  # budget -> [(point, replicates) or None per seed]: None where that seed's evidence lacks a number
    for steps in sorted(budgets):
        seeds = [_read(claim, e, resamples) for e in budgets[steps]]
        if any(s is not None for s in seeds):
            read[steps] = seeds
    if len(read) < 2:
        raise ReproducerError(f"read at {len(read)} budget(s) of {len(budgets)}: a trend needs two")
    order = sorted(read)
    width = max(len(read[s]) for s in order)
    values = np.full((len(order), width), np.nan)
    replicates = np.full((len(order), width, resamples), np.nan)
    for b, steps in enumerate(order):
        points = [seed[0] for seed in read[steps] if seed is not None]
        column = worst_column(points, claim.at_most)[0] if claim.every_column else 0
        for k, seed in enumerate(read[steps]):
            if seed is not None:
                values[b, k] = seed[0][column]
                replicates[b, k] = seed[1][column][:resamples]
    return order, values, replicates


def _line_at(x: np.ndarray, y: np.ndarray, at: float) -> float:
    """The least-squares line of ``y`` on ``x`` (finite pairs) evaluated at ``at`` (NaN with fewer than two distinct
    ``x``)."""
    keep = np.isfinite(y)
    x, y = x[keep], y[keep]
    if len(np.unique(x)) < 2:
        return float("nan")
    return float(y.mean() + _slope(x, y) * (at - x.mean()))


def _line_statistic(stat, x: np.ndarray, values: np.ndarray, replicates, level: float) -> tuple:
    """``stat(x, y)`` (a number of the least-squares line of ``y`` on ``x``: its slope, its value at some ``x``) of the
    seeds' mean at each budget, with the book's interval (:func:`~reproducer.evaluate.uncertainty.judge`): ``stat`` of
    the seeds' mean of each item replicate (the items' noise) and of each seed's own values (the training noise, from
    two seeds on), added in quadrature. Returns ``(value, each seed's value, judge's record)``."""
    with np.errstate(invalid="ignore"):
        point = stat(x, np.nanmean(values, axis=1))
        at_replicates = None
        if replicates is not None:
            mean_replicates = np.nanmean(np.asarray(replicates, dtype=float), axis=1)  # (budgets, R)
            at_replicates = np.array([stat(x, mean_replicates[:, r]) for r in range(mean_replicates.shape[1])])
    per_seed = [v for v in (stat(x, values[:, k]) for k in range(values.shape[1])) if np.isfinite(v)]
    judged = judge(point, at_replicates, per_seed if len(per_seed) >= 2 else None, 0.0, level=level, averaged=True)
    return point, per_seed, judged


def projection(steps, values, replicates=None, at: float = 1.0, level: float = 0.95) -> dict:
    """The quantity a claim's line over log2(``steps``) (as :func:`doubling_trend` fits it: the seeds' mean at each
    budget) projects at ``at`` steps — an extrapolation beyond our budgets — with the book's interval
    (:func:`~reproducer.evaluate.uncertainty.judge`): the line refitted on each item replicate (the items' noise) and
    each seed's own line (the training noise), added in quadrature. Returns ``value``, ``low``, ``high``."""
    x = np.log2(np.asarray(steps, dtype=float))
    point, _, judged = _line_statistic(lambda x, y: _line_at(x, y, np.log2(at)), x, np.asarray(values, dtype=float),
                                       replicates, level)
    return {"value": point, "low": judged["low"], "high": judged["high"]}


def extrapolation_check(claim, budgets: dict[int, list], steps: int, evidence, resamples: int = 1000,
                        horizon: float = HORIZON, level: float = 0.95) -> dict:
    """Issue 70: the book's own extrapolation of ``claim`` checked against a run trained longer. ``budgets``: the
    claim's budgets (steps → that budget's seeds' evidence), as :func:`claim_trend` reads it; ``steps``, ``evidence``:
    one run's (the main seed's) trained beyond them. Returns the trend over ``budgets`` (:func:`claim_trend`: its
    projected crossing), the ``projected`` quantity at ``steps`` (:func:`projection`), the ``measured`` one (that
    run's: its item bootstrap and, as it is one seed, the spread of the seeds at our largest budget, Student's t · s;
    with its ``outcome`` against the claim's threshold), their ``difference`` (measured − projected, its interval the
    two half-widths added in quadrature) and ``hit``: whether that interval contains 0 — the projection agreed with
    the measurement within their noise. A claim about every column is measured at the run's worst column."""
    order, values, replicates = _along(claim, budgets, resamples)
    trend = doubling_trend(order, values, replicates, claim.threshold, claim.at_most, horizon, level)
    projected = projection(order, values, replicates, steps, level)
    read = _read(claim, evidence, resamples)
    if read is None:
        raise ReproducerError(f"the longer run's evidence has not got the numbers {claim.claim!r} reads")
    point, reps = read
    column = worst_column([point], claim.at_most)[0] if claim.every_column else 0
    last = values[-1][np.isfinite(values[-1])]  # the seeds at our largest budget: a single run's training noise
    measured = judge(point[column], reps[column][:resamples], last if len(last) >= 2 else None, claim.threshold,
                     level=level, at_most=claim.at_most)
    difference = measured["value"] - projected["value"]
    down = float(np.hypot(measured["value"] - measured["low"], projected["high"] - projected["value"]))
    up = float(np.hypot(measured["high"] - measured["value"], projected["value"] - projected["low"]))
    return {"trend": trend, "steps": int(steps), "projected": projected,
            "measured": {k: measured[k] for k in ("value", "low", "high", "outcome")},
            "difference": {"value": difference, "low": difference - down, "high": difference + up},
            "hit": bool(difference - down <= 0 <= difference + up)}


def _read(claim, evidence, resamples: int):
    """``claim``'s quantity on one seed's ``evidence`` (its point values and replicates, one row per column), or None
    where that evidence has not got a number the claim reads (a model not scored at that budget: a seed whose
    half-budget encoder was not saved)."""
    try:
        point = np.atleast_1d(np.asarray(claim.quantity(evidence, False), dtype=float))
        reps = np.asarray(claim.quantity(evidence, resamples), dtype=float).reshape(len(point), -1)
    except (KeyError, ReproducerError):  # Evidence.score: "No results of <model> in this evidence"; a task not scored
        return None
    return point, reps


def trend_text(trend: dict, unit: str = "{:+.2f}") -> str:
    """One line for a claims box or table: the arrow, the change per doubling with its interval, and the projected
    crossing where there is one (labelled an extrapolation)."""
    change = (f"{ARROWS[trend['direction']]} {unit.format(trend['slope'])} per doubling "
              f"[{unit.format(trend['low'])}, {unit.format(trend['high'])}], {trend['direction']}")
    if trend["crossing"] is not None:
        change += f"; would reach the threshold near {trend['crossing']:,.0f} steps (an extrapolation)"
    return change


def trend_rows(claims: list, budgets: dict[int, list], resamples: int = 1000, horizon: float = HORIZON) -> list[dict]:
    """Each of ``claims`` along its training (:func:`claim_trend` over ``budgets``: steps → that budget's seeds'
    evidence), as the rows the claims tables and the scorecard JSON carry: ``claim``, ``trend`` (:func:`trend_text`),
    ``direction``, ``slope``, ``low``, ``high``, ``crossing``, ``crossing note`` and ``budgets``. A claim whose
    quantity cannot be read at some budget (a number that budget's evidence has not got, e.g. a timing measured once)
    gets the direction ``"not read"`` and the reason, instead of a trend over fewer budgets than the others; so does
    a claim whose quantity does not depend on the budget (its ``budget_free`` reason)."""
    def not_read(claim, why) -> dict:
        return {"claim": claim.claim, "trend": f"not read along training: {why}", "direction": NOT_READ,
                "slope": None, "low": None, "high": None, "crossing": None, "crossing note": "", "budgets": []}

    rows = []
    for claim in claims:
        if claim.budget_free:
            rows.append(not_read(claim, claim.budget_free))
            continue
        try:
            trend = claim_trend(claim, budgets, resamples, horizon)
        except (KeyError, ValueError, ReproducerError) as missing:
            rows.append(not_read(claim, missing))
            continue
        rows.append({"claim": claim.claim, "trend": trend_text(trend, claim.unit), "direction": trend["direction"],
                     "slope": trend["slope"], "low": trend["low"], "high": trend["high"],
                     "crossing": trend["crossing"], "crossing note": trend["crossing_note"],
                     "budgets": trend["budgets"]})
    return rows


def extrapolation_rows(claims: list, budgets: dict[int, list], steps: int, evidence, resamples: int = 1000,
                       horizon: float = HORIZON) -> list[dict]:
    """The book's extrapolations checked (issue 70): :func:`extrapolation_check` of each of ``claims`` whose quantity
    the longer run's ``evidence`` (``steps``) can give and that is read along ``budgets`` — the others (a number that
    run has not got, a claim that does not depend on the budget or cannot be read along it) are left out. Rows:
    ``claim``, ``steps``, ``budgets`` (the steps the line was fitted on), ``direction`` and ``crossing`` (the
    trend's), ``projected``/``projected low``/``projected high``, ``measured``/``measured low``/``measured high``,
    ``difference``/``difference low``/``difference high``, ``hit`` and ``outcome there`` (the claim's outcome on the
    longer run alone)."""
    rows = []
    for claim in claims:
        if claim.budget_free:
            continue
        try:
            check = extrapolation_check(claim, budgets, steps, evidence, resamples, horizon)
        except (KeyError, ValueError, ReproducerError):
            continue
        trend, projected, measured, difference = (check[k] for k in ("trend", "projected", "measured",
                                                                     "difference"))
        rows.append({"claim": claim.claim, "steps": check["steps"], "budgets": [b["steps"] for b in trend["budgets"]],
                     "direction": trend["direction"], "crossing": trend["crossing"],
                     "projected": projected["value"], "projected low": projected["low"],
                     "projected high": projected["high"], "measured": measured["value"],
                     "measured low": measured["low"], "measured high": measured["high"],
                     "difference": difference["value"], "difference low": difference["low"],
                     "difference high": difference["high"], "hit": check["hit"],
                     "outcome there": measured["outcome"]})
    return rows

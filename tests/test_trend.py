"""Where a claim is heading (issue 70): the change per doubling of training steps recovered on constructed data,
flat when it is flat, and no projection beyond 16× our largest budget."""
from __future__ import annotations

import numpy as np
import pytest

from reproducer.errors import ReproducerError
from reproducer.report.trend import HORIZON, claim_trend, doubling_trend, trend_text

STEPS = [1000, 3000, 6000]


def constructed(slope: float, start: float = 0.0, seeds: int = 3, items: int = 400, seed_sd: float = 0.3,
                item_sd: float = 2.0, rng_seed: int = 0):
    """Each seed's quantity = start + slope·log2(steps/1000) + its own offset, measured on ``items`` test items with
    noise ``item_sd``; replicates resample the items alike for every seed and budget."""
    rng = np.random.default_rng(rng_seed)
    offsets = rng.normal(0, seed_sd, seeds)
    draws = rng.integers(0, items, (1000, items))  # one set of item resamples, shared (paired)
    values = np.empty((len(STEPS), seeds))
    replicates = np.empty((len(STEPS), seeds, 1000))
    for b, steps in enumerate(STEPS):
        for k in range(seeds):
            per_item = start + slope * np.log2(steps / 1000) + offsets[k] + rng.normal(0, item_sd, items)
            values[b, k] = per_item.mean()
            replicates[b, k] = per_item[draws].mean(axis=1)
    return values, replicates


def test_a_known_slope_is_recovered_with_a_covering_interval():
    values, replicates = constructed(slope=0.8, start=-4.0)
    trend = doubling_trend(STEPS, values, replicates, threshold=0.0)
    assert trend["low"] < 0.8 < trend["high"] and abs(trend["slope"] - 0.8) < 0.4
    assert trend["direction"] == "toward the paper" and not trend["past"]
    # the line reaches 0 after 4 / 0.8 = 5 doublings past 1,000 steps: near 32,000 steps, within 16 × 6,000
    assert trend["crossing"] is not None and 12_000 < trend["crossing"] < HORIZON * 6000
    assert "extrapolat" in trend["crossing_note"] and "extrapolation" in trend_text(trend)
    assert [b["steps"] for b in trend["budgets"]] == STEPS and all(b["seeds"] == 3 for b in trend["budgets"])


def test_the_interval_holds_both_the_items_and_the_seeds_noise():
    values, replicates = constructed(slope=0.5, seed_sd=1.5)
    with_seeds = doubling_trend(STEPS, values, replicates)
    items_only = doubling_trend(STEPS, values[:, :1], replicates[:, :1])
    assert len(with_seeds["seed_slopes"]) == 3
    assert with_seeds["high"] - with_seeds["low"] > 0  # and both sources enter
    no_items = doubling_trend(STEPS, values)
    assert no_items["high"] - no_items["low"] > 0 and items_only["high"] - items_only["low"] > 0


def test_a_flat_case_is_called_flat():
    values, replicates = constructed(slope=0.0, start=1.0)
    trend = doubling_trend(STEPS, values, replicates, threshold=3.0)
    assert trend["direction"] == "flat" and trend["low"] < 0 < trend["high"]
    assert trend["crossing"] is None and "flat" in trend["crossing_note"]


def test_away_from_the_paper_and_the_at_most_side():
    values, replicates = constructed(slope=-1.0, start=0.0)
    assert doubling_trend(STEPS, values, replicates, threshold=1.0)["direction"] == "away from it"
    # "at most 1": going down is toward the paper; already below the threshold: past it, nothing projected
    at_most = doubling_trend(STEPS, values, replicates, threshold=1.0, at_most=True)
    assert at_most["direction"] == "toward the paper" and at_most["past"] and at_most["crossing"] is None


def test_an_extrapolation_beyond_16x_is_refused():
    values, replicates = constructed(slope=0.4, start=-10.0, item_sd=0.5)
    trend = doubling_trend(STEPS, values, replicates, threshold=0.0)
    # 10 / 0.4 = 25 doublings past 1,000 steps: far beyond 16 × 6,000
    assert trend["direction"] == "toward the paper" and trend["crossing"] is None
    assert "beyond 16×" in trend["crossing_note"]
    assert doubling_trend(STEPS, values, replicates, threshold=0.0, horizon=2**30)["crossing"] is not None


def test_bad_budgets_raise():
    with pytest.raises(ReproducerError, match="two distinct"):
        doubling_trend([1000, 1000], np.zeros((2, 3)))
    with pytest.raises(ReproducerError, match="one row per budget"):
        doubling_trend(STEPS, np.zeros((2, 3)))


def test_a_claims_trend_reads_its_quantity_from_each_budgets_evidence():
    """claim_trend: each budget's seeds' quantity (here a fake Evidence whose score grows with the budget)."""
    from reproducer.report.claims import Claim

    class Fake:
        def __init__(self, value):
            self.value = value

        def quantity(self, replicates):
            if replicates is False:
                return self.value
            return self.value + np.random.default_rng(0).normal(0, 0.1, replicates)

    claim = Claim("A beats B", lambda ev, r: ev.quantity(r), threshold=0.0)
    budgets = {steps: [Fake(-3 + np.log2(steps / 1000) + 0.01 * k) for k in range(3)] for steps in STEPS}
    budgets[1000] = budgets[1000][:2]  # a budget with fewer seeds
    trend = claim_trend(claim, budgets, resamples=200)
    assert trend["slope"] == pytest.approx(1.0, abs=0.02) and trend["direction"] == "toward the paper"
    assert [b["seeds"] for b in trend["budgets"]] == [2, 3, 3]


def test_trend_rows_read_every_claim_or_say_why_not():
    from reproducer.report.claims import Claim
    from reproducer.report.trend import trend_rows

    class Fake:
        def __init__(self, scores):
            self.scores = scores

        def score(self, name, replicates):
            value = self.scores[name]  # KeyError where a budget has not got the number
            return value if replicates is False else value + np.zeros(replicates)

    budgets = {steps: [Fake({"A": np.log2(steps) + k, **({"timing": 2.0} if steps == 6000 else {})})
                       for k in range(2)] for steps in STEPS}
    rows = trend_rows([Claim("A grows", lambda ev, r: ev.score("A", r)),
                       Claim("timing", lambda ev, r: ev.score("timing", r), unit="{:.2f}×")], budgets, resamples=50)
    assert rows[0]["direction"] == "toward the paper"  # no noise at all: the interval is the slope itself
    assert rows[0]["slope"] == pytest.approx(1.0) and "per doubling" in rows[0]["trend"]
    assert rows[1]["direction"] == "not read" and "not read along training" in rows[1]["trend"]



def _evidence(mean: float, seed: int, models: tuple[str, ...] = ("A",), items: int = 300):
    """One seed's evidence: ``models``' per-item scores on task t around ``mean`` (none: a seed whose half-budget
    encoder was not saved)."""
    from reproducer.report.claims import Evidence

    rng = np.random.default_rng(seed)
    return Evidence({}, samples={(m, "t"): mean + rng.normal(0, 1, items) for m in models}, seed=seed)


def test_a_seed_without_the_number_is_left_out_of_that_budget():
    """A seed whose evidence at a budget lacks what the claim reads leaves that budget (the others' seeds stay); a
    claim read at one budget only has no trend, and says so."""
    from reproducer.report.claims import Claim

    claim = Claim("A is positive", lambda e, r: e.score("A", "t", r))
    budgets = {3000: [_evidence(1.0, 0, ()), _evidence(1.0, 1), _evidence(1.0, 2)],
               6000: [_evidence(2.0, k) for k in range(3)]}
    trend = claim_trend(claim, budgets, resamples=200)
    assert [b["seeds"] for b in trend["budgets"]] == [2, 3]
    assert trend["slope"] == pytest.approx(1.0, abs=0.3) and trend["direction"] == "toward the paper"
    with pytest.raises(ReproducerError, match="1 budget"):
        claim_trend(claim, {3000: [_evidence(1.0, 0, ())], 6000: [_evidence(2.0, 0)]}, resamples=50)


def test_check_reads_each_claim_along_its_training():
    """check(..., along=...): every row carries its trend (the arrow and change per doubling in the claims table and
    in the box's one-line reason); a claim not read at two budgets says why, and its reason has no arrow."""
    from reproducer.report.claims import Claim, check, claim_table, verdict_reason

    main = [_evidence(2.0, k, ("A", "B")) for k in range(3)]
    budgets = {3000: [_evidence(1.0, k) for k in range(3)], 6000: main}  # B not scored at half the budget
    claims = [Claim("A is positive", lambda e, r: e.score("A", "t", r)),
              Claim("B is positive", lambda e, r: e.score("B", "t", r))]
    rows = check(claims, main[0], main, budget="default", along=budgets)
    a, b = rows.iloc[0], rows.iloc[1]
    assert a["direction"] == "toward the paper" and "per doubling" in a["trend"]
    assert [x["steps"] for x in a["trend budgets"]] == [3000, 6000]
    assert "along training ↗" in verdict_reason(a)
    assert b["outcome"] == "reproduced" and b["direction"] == "not read" and "1 budget" in b["trend"]
    assert "along training" not in verdict_reason(b)
    shown = claim_table(rows).data
    assert "trend" in shown and "slope" not in shown  # the text shown, the raw numbers kept for the scorecard
    assert "trend" not in check(claims, main[0], main)  # without along: the rows as before


def test_a_claim_that_does_not_depend_on_the_budget_is_not_read_along_it():
    """A claim whose ``budget_free`` says why its quantity does not depend on the steps (chapter 03's Table 5 and
    Figure 1) is not read along training, whatever its evidence, and its row gives the reason."""
    from dataclasses import replace

    from reproducer.papers.paraphrastic import claims as pc
    from reproducer.report.claims import Claim, Evidence
    from reproducer.report.trend import NOT_READ, trend_rows

    claim = Claim("a fixed quantity", lambda ev, r: np.full(1000, 1.0) if r else 1.0)
    budgets = {100: [Evidence({})], 200: [Evidence({})], 400: [Evidence({})]}
    assert trend_rows([claim], budgets)[0]["direction"] == "flat"
    row = trend_rows([replace(claim, budget_free="trained for its own epochs")], budgets)[0]
    assert row["direction"] == NOT_READ and row["trend"] == "not read along training: trained for its own epochs"
    supervised = pc.supervised_claims(["PP", "DAN", "LSTM (o.g.)"])
    assert supervised and all(c.budget_free == pc.SUPERVISED_BUDGET for c in supervised)
    figure1 = pc.figure1_claims([50, 100, 200])
    assert [bool(c.budget_free) for c in figure1] == [True, True, True, False]  # section 6's share reads PP itself


# --- issue 70, item 3: the book's extrapolations checked against a run trained longer --------------------------------

def test_a_projection_of_a_known_line_covers_its_value_four_budgets_out():
    """projection: the line over log2(steps) at 4 × our largest budget (two doublings past 6,000 steps)."""
    from reproducer.report.trend import projection

    values, replicates = constructed(slope=0.8, start=-4.0)
    at = projection(STEPS, values, replicates, at=24_000)
    truth = -4.0 + 0.8 * np.log2(24)
    assert at["low"] < truth < at["high"] and abs(at["value"] - truth) < 1.0
    near = projection(STEPS, values, replicates, at=6000)
    assert at["high"] - at["low"] > near["high"] - near["low"]  # further out, wider
    exact = projection(STEPS, np.array([[1.0], [2.0], [3.0]]), at=12_000)  # no noise: the least-squares line
    line = np.polyval(np.polyfit(np.log2(STEPS), [1.0, 2.0, 3.0], 1), np.log2(12_000))
    assert exact["value"] == pytest.approx(line) and exact["low"] == exact["high"] == pytest.approx(line)


def _seeds_at(mean: float, seeds: int = 3, first_seed: int = 0):
    return [_evidence(mean + 0.2 * k, first_seed + k, items=400) for k in range(seeds)]


def test_an_extrapolation_that_the_longer_run_meets_is_a_hit_and_one_it_misses_is_not():
    """extrapolation_check: the claim's line over its budgets projected to the longer run's steps, against what that
    run measured (its items' noise and the seeds' spread at our largest budget): a hit where the difference's
    interval holds 0; a plateau the line did not foresee is a miss, and the measured outcome is the run's own."""
    from reproducer.report.claims import Claim
    from reproducer.report.trend import extrapolation_check

    claim = Claim("A is positive", lambda e, r: e.score("A", "t", r), threshold=0.0)
    budgets = {steps: _seeds_at(-3.0 + np.log2(steps / 1000)) for steps in STEPS}  # +1 per doubling
    on_line = extrapolation_check(claim, budgets, 24_000, _evidence(-3.0 + np.log2(24), 9, items=400),
                                  resamples=300)
    assert on_line["trend"]["direction"] == "toward the paper" and on_line["trend"]["crossing"] is not None
    assert on_line["projected"]["low"] < on_line["measured"]["value"] < on_line["projected"]["high"]
    assert on_line["hit"] and on_line["difference"]["low"] < 0 < on_line["difference"]["high"]
    assert on_line["measured"]["outcome"] == "reproduced" and on_line["steps"] == 24_000
    plateau = extrapolation_check(claim, budgets, 24_000, _evidence(-0.5, 9, items=400), resamples=300)
    assert not plateau["hit"] and plateau["difference"]["high"] < 0  # measured well below the projection
    assert plateau["measured"]["outcome"] in ("not reproduced", "inconclusive")
    with pytest.raises(ReproducerError, match="longer run"):
        extrapolation_check(claim, budgets, 24_000, _evidence(0.0, 9, models=("B",)), resamples=50)


def test_extrapolation_rows_check_the_claims_the_longer_run_can_give():
    from reproducer.report.claims import Claim
    from reproducer.report.trend import extrapolation_rows

    grows = Claim("A is positive", lambda e, r: e.score("A", "t", r), threshold=0.0)
    other = Claim("B is positive", lambda e, r: e.score("B", "t", r), threshold=0.0)  # B: not trained longer
    fixed = Claim("A's timing", lambda e, r: e.score("A", "t", r), budget_free="timed once")
    budgets = {steps: [_evidence(-3.0 + np.log2(steps / 1000) + 0.2 * k, k, models=("A", "B"), items=400)
                       for k in range(3)] for steps in STEPS}
    rows = extrapolation_rows([grows, other, fixed], budgets, 24_000, _evidence(1.6, 9, items=400), resamples=200)
    assert [r["claim"] for r in rows] == ["A is positive"]
    row = rows[0]
    assert row["budgets"] == STEPS and row["steps"] == 24_000 and row["hit"] is True
    assert row["projected low"] < row["projected"] < row["projected high"] and row["crossing"] is not None
    assert row["outcome there"] == "reproduced" and row["difference low"] < 0 < row["difference high"]

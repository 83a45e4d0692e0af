"""Claim tables: outcomes as plain words (no Markdown shown literally), coloured by outcome."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reproducer.report.claims import COLOURS, claim_table, outcome_changes, verdict


def test_verdict_words():
    assert verdict(True) == "reproduced" and verdict(np.bool_(False)) == "not reproduced"
    assert verdict(None) == "not checked"


def test_claim_table_colours_each_outcome_and_rejects_other_words():
    claims = pd.DataFrame([{"claim": "a", "outcome": verdict(True), "numbers": "1 vs 0"},
                           {"claim": "b", "outcome": verdict(False), "numbers": "0 vs 1"},
                           {"claim": "c", "outcome": verdict(None), "numbers": "–"},
                           {"claim": "d", "outcome": "inconclusive", "numbers": "1 vs 1"},
                           {"claim": "e", "outcome": "smaller than published", "numbers": "1 vs 3"}])
    html = claim_table(claims).to_html()
    assert "**" not in html
    for outcome, style in COLOURS.items():
        assert outcome in html and style.split(";")[0].replace(" ", "") in html.replace(" ", "")
    with pytest.raises(ValueError, match="Outcomes must be one of reproduced, .*got \\['\\*\\*reproduced\\*\\*'\\]"):
        claim_table(claims.assign(outcome="**reproduced**"))


def test_claim_table_hides_the_raw_values_of_checked_claims():
    claims = pd.DataFrame([{"claim": "a", "outcome": "inconclusive", "ours": "+0.10 [-1.00, +1.20]", "threshold": "≥ 0",
                            "paper": "p", "numbers": "n", "noise": "test items (bootstrap)", "value": 0.1,
                            "low": -1.0, "high": 1.2}])
    styler = claim_table(claims)
    html = styler.to_html()
    assert "+0.10 [-1.00, +1.20]" in html and "test items (bootstrap)" in html
    assert list(styler.data.columns) == ["claim", "outcome", "ours", "threshold", "paper", "numbers", "noise"]


def test_thresholds_print_as_a_reader_reads_them():
    """Issue 42: "≥ 4.76923" printed the raw ratio; three significant digits and the quantity's unit instead."""
    from reproducer.report.claims import threshold_text

    assert threshold_text(31 / 6.5, "{:.2f}×") == "≥ 4.77×"
    assert threshold_text(0.0, "{:+.2f}") == "≥ 0"
    assert threshold_text(64.76, "{:.1f}%") == "≥ 64.8%"
    assert threshold_text(0.5, "{:.3f}", at_most=True) == "≤ 0.5"


class _Columns:
    """A stand-in for one seed's evidence: a claim quantity reads ``gaps`` (points) and ``replicates`` from it."""

    def __init__(self, gaps, seed=0):
        self.gaps, self.seed = np.asarray(gaps, dtype=float), seed

    def quantity(self, replicates: bool):
        return np.repeat(self.gaps[:, None], 4, axis=1) + np.array([-1, 0, 0, 1]) if replicates else self.gaps


def test_a_claim_about_every_column_takes_the_smallest_column_of_the_seeds_mean():
    """Issue 68: averaging each seed's own smallest gap is biased low; the claim reads the smallest column of the
    mean over seeds, and its training noise is the seeds' spread in that column."""
    from reproducer.report.claims import Claim, _quantity, worst_column

    seeds = [_Columns([0.0, 1.5]), _Columns([2.0, 1.5])]  # the per-seed minima 0.0 and 1.5: mean 0.75
    k, value, values = worst_column([s.gaps for s in seeds])
    assert (k, value, list(values)) == (0, 1.0, [0.0, 2.0])  # the column means 1.0 and 1.5
    every = Claim("every column", lambda ev, r: ev.quantity(r), every_column=True)
    per_seed, value, replicates = _quantity(every, seeds)
    assert value == pytest.approx(1.0) and per_seed == [0.0, 2.0]
    assert replicates.tolist() == [0.0, 1.0, 1.0, 2.0]  # the seeds' mean replicates, the smaller column of each
    biased = Claim("each seed's minimum", lambda ev, r: np.min(ev.quantity(r), axis=0))
    assert _quantity(biased, seeds)[1] == pytest.approx(0.75)  # what the old construction gave
    at_most = Claim("at most", lambda ev, r: ev.quantity(r), every_column=True, at_most=True)
    assert _quantity(at_most, seeds)[1] == pytest.approx(1.5)  # the largest column of the means
    plain = Claim("one column", lambda ev, r: ev.quantity(r)[0])
    assert _quantity(plain, seeds)[:2] == ([0.0, 2.0], 1.0)


def test_a_claim_with_several_values_must_say_it_is_about_every_column():
    from reproducer.errors import ReproducerError
    from reproducer.report.claims import Claim, _quantity

    stray = Claim("two values, no declaration", lambda ev, r: ev.quantity(r))
    with pytest.raises(ReproducerError, match="declare every_column=True"):
        _quantity(stray, [_Columns([0.0, 1.5])])


def test_outcome_changes_lists_the_claims_whose_outcome_moved():
    old = [{"claim": "a", "outcome": "reproduced", "ours": "1.0 [0.5, 1.5]"},
           {"claim": "b", "outcome": "inconclusive", "ours": "0.1 [-0.2, 0.4]"},
           {"claim": "gone", "outcome": "reproduced", "ours": "2"}]
    new = [{"claim": "a", "outcome": "reproduced", "ours": "1.2 [0.7, 1.7]"},
           {"claim": "b", "outcome": "reproduced", "ours": "0.5 [0.2, 0.8]"},
           {"claim": "added", "outcome": "not checked"}]
    changed = outcome_changes(old, new).set_index("claim")
    assert list(changed.index) == ["b", "gone", "added"]  # "a" kept its outcome though its value moved
    assert changed.loc["b"].tolist() == ["inconclusive", "0.1 [-0.2, 0.4]", "reproduced", "0.5 [0.2, 0.8]"]
    assert changed.loc["gone", "new outcome"] == "(absent)" and changed.loc["added", "old outcome"] == "(absent)"
    assert changed.loc["added", "new value"] == ""  # a "not checked" row has no value
    assert outcome_changes(new, new).empty


def test_a_claim_near_its_boundary_is_judged_on_more_replicates():
    """Issue 68: an interval end within a few Monte Carlo errors of the threshold could flip with other bootstrap
    draws: the claim is judged again on 4× as many replicates (up to 16,000), and its row says how many and the error
    of its ends; a claim far from its boundary keeps 1,000."""
    from reproducer.report.claims import MAX_RESAMPLES, RESAMPLES, Claim, Evidence, check

    deviations = np.random.default_rng(0).normal(size=200)
    deviations = (deviations - deviations.mean()) / deviations.std()

    def claim(mean):
        ev = Evidence({}, samples={("A", "t"): mean + deviations})
        return check([Claim("A is positive", lambda e, r: e.score("A", "t", r))], ev).iloc[0]

    far = claim(1.0)
    assert far.resamples == RESAMPLES and far.bootstrap.startswith("1,000 replicates; ends ±")
    near = claim(1.96 / np.sqrt(200))  # the 95% interval's low end at about 0
    assert near.resamples > RESAMPLES and near["low mc"] < far["low mc"]
    assert near.bootstrap.startswith(f"{near.resamples:,} replicates")
    assert near.resamples < MAX_RESAMPLES or "could still move an end across the boundary" in near.bootstrap

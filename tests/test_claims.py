"""Claim tables: outcomes as plain words (no Markdown shown literally), coloured by outcome."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reproducer.report.claims import COLOURS, claim_table, verdict


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

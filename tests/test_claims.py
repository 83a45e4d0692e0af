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
                           {"claim": "c", "outcome": verdict(None), "numbers": "–"}])
    html = claim_table(claims).to_html()
    assert "**" not in html
    for outcome, style in COLOURS.items():
        assert outcome in html and style.split(";")[0].replace(" ", "") in html.replace(" ", "")
    with pytest.raises(ValueError, match="verdict"):
        claim_table(claims.assign(outcome="**reproduced**"))

"""Where each verdict is heading (issue 70, chapter 06): the claims read along their training listed with their
trend, counted by direction, summarised with their extrapolations labelled, and drawn as their distance to the
threshold; a scorecard whose chapters read no claim along training says so."""
from __future__ import annotations

import pandas as pd
import pytest

from reproducer.overview.heading import (NOT_READ, direction_counts, heading_summary, heading_table, margin_figure,
                                         margins)

BUDGETS = [{"steps": 3000, "seeds": 3, "mean": 0.5}, {"steps": 6000, "seeds": 3, "mean": 1.5}]


def card() -> pd.DataFrame:
    row = {"paper": "Logeswaran & Lee 2018", "chapter": "02_quick_thoughts", "threshold value": 0.0,
           "at most": False, "low": 0.5, "high": 2.5, "crossing": None, "trend budgets": BUDGETS}
    return pd.DataFrame([
        {**row, "claim": "uni-QT beats ST (Table 1: the mean over the transfer tasks)", "outcome": "reproduced",
         "trend": "↗ +1.00 per doubling [+0.5, +1.5], toward the paper", "direction": "toward the paper"},
        {**row, "claim": "MC-QT beats combine-skip", "outcome": "inconclusive", "crossing": 9000.0,
         "trend": "↗ +0.40 per doubling [+0.1, +0.7], toward the paper; would reach …", "direction": "toward the paper"},
        {**row, "claim": "BoW-QT is worse than uni-QT", "outcome": "not reproduced", "at most": True,
         "trend": "→ +0.10 per doubling [-0.3, +0.5], flat", "direction": "flat"},
        {**row, "claim": "QT trains faster", "outcome": "reproduced", "trend": None, "direction": None,
         "trend budgets": None},
        {**row, "paper": "Kiros et al. 2015", "claim": "combine-skip beats uni-skip", "outcome": "inconclusive",
         "trend": "not read along training: read at 1 budget(s) of 2", "direction": "not read", "trend budgets": []}])


def test_the_table_lists_only_the_claims_read_along_training():
    table = heading_table(card())
    assert table["claim"].tolist() == ["uni-QT beats ST", "MC-QT beats combine-skip", "BoW-QT is worse than uni-QT"]
    assert table.loc[0, "budgets"] == "3,000 / 6,000 steps" and table.loc[0, "trend"].startswith("↗")


def test_directions_are_counted_with_the_claims_not_read():
    counts = direction_counts(card())
    assert counts.to_dict() == {"toward the paper": 2, "away from it": 0, "flat": 1, NOT_READ: 2}
    assert direction_counts(card().drop(columns=["direction"]))[NOT_READ] == 5  # a scorecard before issue 70


def test_the_summary_names_the_pending_claims_and_labels_each_extrapolation():
    text = heading_summary(card())
    assert text.startswith("3 of the 5 claims were read at two budgets or more: **2** toward the paper")
    assert "heading toward the paper (1): MC-QT beats combine-skip (inconclusive)" in text
    assert "extrapolations, not measurements: MC-QT beats combine-skip near 9,000 steps" in text
    assert heading_summary(card().assign(direction=None)).startswith("None of the 5 claims")


def test_margins_are_in_half_widths_on_the_side_the_wording_points_to():
    rows = card()
    x, y = margins(rows.iloc[0])  # interval half-width 1: the mean is its distance
    assert x.tolist() == [0.5, 1.0] and y.tolist() == pytest.approx([0.5, 1.5])
    _, flipped = margins(rows.iloc[2])  # "at most": above the threshold is the wrong side
    assert flipped.tolist() == pytest.approx([-0.5, -1.5])


def test_the_figure_has_a_panel_per_paper_with_a_trend():
    fig = margin_figure(card())
    assert [ax.get_title() for ax in fig.axes] == ["Logeswaran & Lee 2018"]  # Kiros' claim was not read: no panel
    assert len(fig.axes[0].lines) == 3 + 3  # three claims, three reference lines
    assert margin_figure(card().assign(direction=None)) is None


def test_the_headline_counts_the_directions():
    from reproducer.report.page import Page

    counts = pd.DataFrame({"reproduced": [2], "inconclusive": [2], "not reproduced": [1], "decided": [3],
                           "claims": [5]}, index=["Logeswaran & Lee 2018"])
    counts.loc["total"] = counts.sum()
    html = Page("06_comparison").headline(counts, "default", directions=direction_counts(card())).html
    assert ("Along their training (3 claims read at two budgets or more): <b>2</b> toward the paper, "
            "<b>0</b> away from it, <b>1</b> flat.") in html
    assert "Along their training" not in Page("06_comparison").headline(counts, "default").html

"""Issue 70, item 3: the book's extrapolations checked against runs trained longer — the table, the gathering for
chapter 06 and the sentence."""
from __future__ import annotations

from reproducer.files import write_json
from reproducer.report.extrapolations import extrapolation_frame, extrapolation_summary, gathered


def row(claim: str, hit: bool, difference: float) -> dict:
    return {"claim": claim, "steps": 24000, "budgets": [350, 3000, 6000], "direction": "toward the paper",
            "crossing": 11929.0, "projected": 1.5, "projected low": 0.5, "projected high": 2.5,
            "measured": 1.5 + difference, "measured low": 1.0 + difference, "measured high": 2.0 + difference,
            "difference": difference, "difference low": difference - 1.2, "difference high": difference + 1.2,
            "hit": hit, "outcome there": "reproduced" if difference > -1 else "inconclusive"}


def test_the_table_gives_both_numbers_with_their_intervals_and_says_hit_or_miss():
    frame = extrapolation_frame([row("Training uni-QT beats its untrained twin on STS (STS14)", True, 0.2),
                                 row("Training uni-QT beats its untrained twin on the transfer mean", False, -3.0)])
    assert list(frame.columns) == ["claim", "line fitted on", "checked at", "projected", "measured",
                                   "measured − projected", "agree", "outcome there"]
    assert frame["agree"].tolist() == ["hit", "miss"]
    assert frame.loc[0, "projected"] == "+1.50 [+0.50, +2.50]" and frame.loc[1, "measured"] == "-1.50 [-2.00, -1.00]"
    assert frame.loc[0, "line fitted on"] == "350 / 3,000 / 6,000 steps" and frame.loc[0, "checked at"] == "24,000 steps"


def test_chapter_06_gathers_every_chapters_checks_with_its_paper(tmp_path):
    write_json(tmp_path / "02_quick_thoughts" / "default" / "extrapolations.json", [row("A", True, 0.0)])
    write_json(tmp_path / "02_quick_thoughts" / "quick" / "extrapolations.json", [row("B", False, -2.0)])
    chapters = {"01_skip_thoughts": "Kiros et al. 2015", "02_quick_thoughts": "Logeswaran & Lee 2018"}
    rows = gathered(chapters, "default", tmp_path)
    assert [(r["claim"], r["paper"], r["chapter"]) for r in rows] == [("A", "Logeswaran & Lee 2018",
                                                                       "02_quick_thoughts")]
    assert extrapolation_frame(rows).columns[0] == "paper"
    assert gathered(chapters, "paper", tmp_path) == []


def test_the_sentence_counts_hits_and_misses_and_which_way_the_misses_fell():
    text = extrapolation_summary([row("A", True, 0.1), row("B", False, -3.0), row("C", False, 2.5)])
    assert "3 projections checked" in text and "**1 met**" in text and "**2 missed**" in text
    assert "1 below the line" in text and "1 above it" in text
    assert "No projection has been checked" in extrapolation_summary([])

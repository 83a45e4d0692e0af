"""Issue 70, item 3: the book's extrapolations checked against runs trained longer — the table, the gathering for
chapter 06 and the sentence."""
from __future__ import annotations

import pytest

from reproducer.errors import ReproducerError
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


def test_check_longer_trains_each_named_model_once_as_a_unit_with_its_twin_and_reads_the_stored_run():
    import numpy as np
    from types import SimpleNamespace

    from reproducer.report.claims import Claim, Evidence
    from reproducer.report.extrapolations import check_longer

    def seed(mean, k):
        rng = np.random.default_rng(k)
        return Evidence({}, samples={("A", "t"): mean + rng.normal(0, 1, 300)}, seed=k)

    units = []

    class Longer:
        settings = SimpleNamespace(max_steps=24000)

        def unit(self, name, neighbours=True):
            units.append((name, neighbours))

        def twins(self, names):
            units.append(("twins", tuple(names)))

        def stored(self):
            return "stored view"

    factors = []
    models = SimpleNamespace(longer=lambda factor: factors.append(factor) or Longer())
    claim = Claim("A is positive", lambda e, r: e.score("A", "t", r))
    along = {s: [seed(-3 + np.log2(s / 1000) + 0.1 * k, k) for k in range(3)] for s in (1000, 3000, 6000)}
    read = []
    rows = check_longer(models, "uni-QT, MC-QT", [claim], along,
                        lambda view: read.append(view) or seed(-3 + np.log2(24), 7))
    assert units == [("uni-QT", False), ("MC-QT", False), ("twins", ("uni-QT", "MC-QT"))] and read == ["stored view"]
    assert len(rows) == 1 and rows[0]["steps"] == 24000 and rows[0]["hit"]
    assert check_longer(models, "", [claim], along, lambda view: None) == [] and len(units) == 3
    check_longer(models, "uni-skip, bi-skip", [claim], along, lambda view: seed(0, 7), twins=("combine-skip",))
    assert units[-1] == ("twins", ("combine-skip",)) and factors == [4, 4]
    check_longer(models, "uni-QT", [claim], along, lambda view: seed(0, 7), factor=2)
    assert factors[-1] == 2  # a run that fits a session: twice the budget
    with pytest.raises(ReproducerError, match="at least 2"):
        check_longer(models, "uni-QT", [claim], along, lambda view: seed(0, 7), factor=1)

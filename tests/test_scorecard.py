"""The claims scorecard (chapter 06): every chapter's claims.json in one table, counted per paper."""
import json
import math

import pandas as pd
import pytest

from reproducer.errors import ReproducerError
from reproducer.report.claims import BOOK
from reproducer.overview.scorecard import (
    BOOK_ROW,
    COLUMNS,
    OUTCOMES,
    across_presets,
    chapters,
    paper_counts,
    scorecard,
    scorecard_table,
)


def claim(text, outcome, value=1.0):
    return {"claim": text, "outcome": outcome, "ours": f"{value:+.2f} [0, 2]", "threshold": "≥ 0",
            "paper's effect": "+1.5", "paper": "printed", "numbers": "",
            "noise": "test items (bootstrap) + 3 training seeds at `quick`", "value": value, "low": 0.0, "high": 2.0,
            "threshold value": 0.0, "at most": False}


def write(root, chapter, rows, preset="default"):
    folder = root / chapter / preset
    folder.mkdir(parents=True)
    (folder / "claims.json").write_text(json.dumps(rows))


@pytest.fixture
def two_chapters(tmp_path):
    write(tmp_path, "02_quick_thoughts", [claim("QT is fast", "reproduced"), claim("MC-QT best", "not reproduced"),
                                          claim("analogies", "inconclusive")])
    write(tmp_path, "01_skip_thoughts", [claim("combine beats uni", "reproduced")])
    return tmp_path


def test_scorecard_reads_every_chapter_in_chapter_order(two_chapters):
    card = scorecard("default", two_chapters, missing="skip")
    assert list(card.columns) == COLUMNS
    assert list(card["chapter"]) == ["01_skip_thoughts"] + ["02_quick_thoughts"] * 3
    assert list(card["paper"]) == [chapters()["01_skip_thoughts"][0]] + [chapters()["02_quick_thoughts"][0]] * 3
    # the chapter's "paper" column (the paper's number) becomes "published"
    assert set(card["published"]) == {"printed"}


def test_scorecard_raises_on_a_missing_chapter_unless_told_to_skip(two_chapters):
    with pytest.raises(ReproducerError, match="03_paraphrastic.*-p preset default"):
        scorecard("default", two_chapters)
    assert scorecard("quick", two_chapters, missing="skip").empty
    with pytest.raises(ValueError, match="missing must be"):
        scorecard("default", two_chapters, missing="ignore")


def test_scorecard_rejects_a_file_that_is_not_a_claims_table(tmp_path):
    write(tmp_path, "01_skip_thoughts", [claim("x", "probably")])
    with pytest.raises(ReproducerError, match="probably"):
        scorecard("default", tmp_path, missing="skip")


def test_paper_counts_count_outcomes_and_decided_claims(two_chapters):
    counts = paper_counts(scorecard("default", two_chapters, missing="skip"))
    qt = counts.loc[chapters()["02_quick_thoughts"][0]]
    assert (qt["reproduced"], qt["not reproduced"], qt["inconclusive"], qt["decided"], qt["claims"]) == (1, 1, 1, 2, 3)
    assert list(counts.index) == [chapters()["01_skip_thoughts"][0], chapters()["02_quick_thoughts"][0], "total"]
    assert counts.loc["total", "claims"] == 4 and counts.loc["total", "decided"] == 3


def test_the_books_own_claims_are_counted_in_their_own_row(tmp_path):
    """Issue 44: "training beats the same encoder untrained" is asked of every paper; the scorecard counts it apart
    from the papers' claims, and rows written before (no ``source``) are the papers'."""
    write(tmp_path, "01_skip_thoughts", [claim("combine beats uni", "reproduced"),
                                         {**claim("training uni-skip beats untrained", "reproduced"), "source": BOOK}])
    write(tmp_path, "02_quick_thoughts", [{**claim("training uni-QT beats untrained", "inconclusive"), "source": BOOK},
                                          {**claim("QT is fast", "not reproduced"), "source": "paper"}])
    card = scorecard("default", tmp_path, missing="skip")
    assert list(card["source"]) == ["paper", BOOK, BOOK, "paper"]
    counts = paper_counts(card)
    assert list(counts.index) == [chapters()["01_skip_thoughts"][0], chapters()["02_quick_thoughts"][0], BOOK_ROW,
                                  "total"]
    assert counts.loc[BOOK_ROW, "claims"] == 2 and counts.loc[BOOK_ROW, "decided"] == 1
    assert counts.loc[chapters()["02_quick_thoughts"][0], "claims"] == 1 and counts.loc["total", "claims"] == 4


def test_scorecard_table_links_each_claim_to_its_chapter(two_chapters):
    html = scorecard_table(scorecard("default", two_chapters, missing="skip")).to_html()
    assert '<a href="02_quick_thoughts.html">02</a>' in html
    assert "not reproduced" in html and "#b42318" in html
    # issue 42: the paper's effect and the noise (its sources, n seeds and their preset) beside each outcome
    assert "paper&#x27;s effect" in html or "paper's effect" in html
    assert "+1.5" in html and "3 training seeds at `quick`" in html


def test_the_committed_chapters_claims_are_readable():
    # every chapter that has claims at default must parse (the scorecard of the book reads them)
    card = scorecard("default", "results", missing="skip")
    assert not card.empty
    assert card["outcome"].isin(OUTCOMES).all()
    assert isinstance(paper_counts(card), pd.DataFrame)


def test_every_committed_claim_quotes_the_paper_and_the_book_checks_enough_of_them():
    """Issue 42: ≥ 45 claims in the scorecard at default, each row quoting the paper's sentence (in quotation marks)
    or naming the table or figure whose cells it reads (or saying it is the book's own check), and naming the seeds'
    budget where seeds give its noise."""
    import re

    card = scorecard("default", "results", missing="skip")
    assert len(card) >= 45
    cites = card["published"].fillna("").map(lambda p: bool(re.search(r'"[^"]{12,}"|\b(Tables?|Figure|section)\s', p)))
    cites |= card["claim"].str.contains("the book's own")  # a check of the book's, not a claim of the paper
    cites |= card["source"].eq(BOOK)  # issue 44: training beats the same encoder untrained, asked of every paper
    assert cites.all(), card.loc[~cites, ["chapter", "claim", "published"]].to_string()
    seeded = card["noise"].str.contains("training seeds")
    assert card.loc[seeded, "noise"].str.contains(r"training seeds at `\w+`").all()


def test_across_presets_pairs_each_claim_and_keeps_the_ones_that_moved(two_chapters):
    write(two_chapters, "02_quick_thoughts", [claim("QT is fast", "reproduced", 3.0),
                                              claim("MC-QT best", "inconclusive", 0.5),
                                              claim("only at quick", "reproduced")], preset="quick")
    moved = across_presets(two_chapters)
    assert list(moved["claim"]) == ["MC-QT best"]
    row = moved.iloc[0]
    assert (row["outcome (quick)"], row["outcome (default)"]) == ("inconclusive", "not reproduced")
    assert row["ours (quick)"].startswith("+0.50") and row["chapter"] == "02_quick_thoughts"
    every = across_presets(two_chapters, changed_only=False)
    # matched by wording: the claim checked at quick only, and chapter 01 (no quick run), are left out
    assert sorted(every["claim"]) == ["MC-QT best", "QT is fast"]


def test_the_stable_summary_is_generated_from_both_presets(two_chapters):
    """Issue 42: chapter 06's "what holds everywhere" and "real disagreement" bullets were typed beside the numbers."""
    from reproducer.overview.scorecard import stable_summary

    write(two_chapters, "02_quick_thoughts", [claim("QT is fast", "reproduced", 3.0),
                                              claim("MC-QT best", "not reproduced", -1.0),
                                              claim("analogies", "inconclusive", -0.5)], preset="quick")
    card = scorecard("default", two_chapters, missing="skip")
    card.loc[card.claim == "analogies", "value"] = -0.2  # leans against the paper at default too
    (two_chapters / "02_quick_thoughts/default/claims.json").write_text(
        card[card.chapter == "02_quick_thoughts"].drop(columns=["paper", "chapter"]).rename(
            columns={"published": "paper"}).to_json(orient="records"))
    text = stable_summary(two_chapters)
    assert "**What holds at both budgets** (1 claims *reproduced*" in text and "QT is fast (chapter 02)" in text
    assert "**Against the paper at both budgets** (1): MC-QT best (chapter 02)" in text
    assert "**Leaning against the paper, undecided** (1" in text and "analogies (chapter 02)" in text
    assert stable_summary(two_chapters, ("smoke", "default")) == ""


def test_the_undecided_summary_counts_why_from_the_seeds():
    """Issue 42: chapter 06 said most inconclusive outcomes are seeds that disagree; the summary now counts it."""
    from reproducer.overview.scorecard import COLUMNS, undecided_summary

    def row(outcome, seeds, threshold=0.0):
        return {"outcome": outcome, "seed values": seeds, "threshold value": threshold}

    card = pd.DataFrame([row("inconclusive", [0.5, 0.8, 1.1]),       # all above 0: t(2) widens one run's spread
                         row("inconclusive", [-0.5, 0.8, 1.1]),      # the seeds disagree
                         row("inconclusive", []),                    # no seeds
                         row("inconclusive", [4.0, 4.5], 5.0),       # all below 5
                         row("reproduced", [1.0, 2.0, 3.0])]).reindex(columns=COLUMNS)
    text = undecided_summary(card)
    assert "Of the **4 inconclusive** claims, **2** have every training seed on the same side" in text
    assert "t = 12.7 for 2 seeds, t = 4.3 for 3 seeds" in text
    assert "**1** have seeds on both sides" in text and "**1** have no seeds" in text
    assert undecided_summary(card[card.outcome == "reproduced"]) == "No claim is inconclusive at this preset."


def test_the_seeds_summary_counts_where_the_training_noise_comes_from():
    """Issue 43: a claim's training noise comes from seeds trained as long as the run it is about; the summary counts
    the claims that still borrow it from another preset."""
    from reproducer.overview.scorecard import COLUMNS, seeds_summary

    noises = ["test items (bootstrap) + the mean of 3 training seeds at `default`",
              "the mean of 5 training seeds at `default`",
              "test items (bootstrap) + 3 training seeds at `quick`",  # one default run, quick seeds' spread
              "test items (bootstrap)", "the mean of 3 repeats"]
    card = pd.DataFrame({"noise": noises}).reindex(columns=COLUMNS).assign(noise=noises)
    text = seeds_summary(card, "default")
    assert text.startswith("Of the **5** claims at `default`, **2** are the mean over training seeds trained at "
                           "`default` itself")
    assert "**1** are one run judged on the spread of seeds trained at `quick` (shorter runs" in text
    assert text.endswith("**2** have no training seeds (the test items' noise, or timing repeats, alone).")
    assert "one run" not in seeds_summary(card.iloc[[0, 1, 3]], "default")


def test_claim_rows_keep_the_numbers_the_scorecard_reasons_with():
    from reproducer.report.claims import point_claim

    row = point_claim("x", 5.0, 4.8, seed_values=[4.0, 5.0, 6.0], unit="{:.1f}×")
    assert row["threshold value"] == 4.8 and row["at most"] is False and row["seed values"] == [4.0, 5.0, 6.0]
    assert point_claim("y", 5.0, 4.8)["seed values"] == []


def test_multiplicity_reads_p_off_each_interval_and_holm_keeps_only_the_clear_decisions():
    """Issue 68: each claim's p-value equivalent comes from its own interval (p < 0.05 exactly when the interval
    excludes the boundary that decided it), and Holm's correction across the scorecard turns the decisions that do not
    survive into *inconclusive*."""
    from reproducer.overview.scorecard import holm, multiplicity, p_equivalent

    def row(outcome, value, low, high, threshold=0.0, effect=float("nan")):
        return {"outcome": outcome, "value": value, "low": low, "high": high, "threshold value": threshold,
                "at most": False, "effect value": effect}

    edge = row("reproduced", 1.96, 0.0, 3.92)  # the interval touches 0: p = 0.05
    assert p_equivalent(edge) == pytest.approx(0.05, rel=1e-6)
    assert p_equivalent(row("reproduced", 10.0, 8.04, 11.96)) < 1e-20
    assert p_equivalent(row("not reproduced", -1.0, -2.0, -0.02)) == pytest.approx(0.045, abs=1e-3)  # the high side
    smaller = row("smaller than published", 1.0, 0.5, 1.5, effect=2.0)  # 2.0 is 1.96 x 2 SE away: against the effect
    assert p_equivalent(smaller) == pytest.approx(math.erfc(3.92 / math.sqrt(2)), rel=1e-3)
    assert math.isnan(p_equivalent(row("smaller than published", 1.0, 0.5, 1.5)))  # no effect stored
    assert holm(pd.Series([0.01, 0.04, float("nan"), 0.03])).tolist()[:2] == pytest.approx([0.03, 0.06])
    card = pd.DataFrame([row("reproduced", 3.0, 1.0, 5.0), row("reproduced", 2.2, 0.1, 4.3),
                         row("inconclusive", 0.5, -1.0, 2.0), row("not checked", float("nan"), float("nan"),
                                                                  float("nan"))])
    out = multiplicity(card)
    assert out["outcome (Holm)"].tolist() == ["reproduced", "inconclusive", "inconclusive", "not checked"]
    assert out["p (Holm)"].iloc[1] > 0.05 > out["p"].iloc[1]  # decided alone, not among three tests


def test_the_holm_summary_names_the_decisions_that_fall():
    from reproducer.overview.scorecard import holm_summary, multiplicity

    rows = [{"claim": c, "outcome": "reproduced", "value": v, "low": lo, "high": 2 * v - lo, "threshold value": 0.0,
             "at most": False, "effect value": float("nan")} for c, v, lo in (("a", 3.0, 1.0), ("b", 2.2, 0.1))]
    rows.append({**rows[0], "claim": "c", "outcome": "inconclusive", "value": 0.5, "low": -1.0, "high": 2.0})
    text = holm_summary(multiplicity(pd.DataFrame(rows)))  # p: 0.003, 0.040, 0.51 -> Holm: 0.010, 0.080, 0.51
    assert "3 claims are tests at 95%" in text and "**1 stand**" in text and "**1 become inconclusive**: b (" in text
    assert holm_summary(multiplicity(pd.DataFrame(rows[:1]))).endswith("none becomes inconclusive.")


def test_stale_names_what_changed(two_chapters):
    from reproducer.files import write_json
    from reproducer.overview.scorecard import COMPARISON, stale

    assert stale("default", two_chapters)[0].startswith("no scorecard at 'default'")
    assert stale("quick", two_chapters) == []  # no chapter has claims at quick, nothing to be stale about
    card = scorecard("default", two_chapters, missing="skip")
    (two_chapters / COMPARISON / "default").mkdir(parents=True)
    write_json(two_chapters / COMPARISON / "default" / "scorecard.json", card.to_dict(orient="records"))
    assert stale("default", two_chapters) == []
    write(two_chapters, "03_paraphrastic", [claim("PP wins", "reproduced")])  # a chapter re-run after chapter 06
    rows = [claim("QT is fast", "reproduced", 0.5), claim("MC-QT best", "not reproduced")]  # one moved, one gone
    (two_chapters / "02_quick_thoughts" / "default" / "claims.json").write_text(json.dumps(rows))
    lines = stale("default", two_chapters)
    assert len(lines) == 3
    assert any("'PP wins' is missing" in line for line in lines)
    assert any("'analogies' is no longer a claim" in line for line in lines)
    assert any("'QT is fast' changed (value 1.0 -> 0.5)" in line for line in lines)


@pytest.mark.parametrize("preset", ["default", "quick"])
def test_committed_scorecards_are_current(preset):
    """Chapter 06's committed scorecard says what the chapters' committed claims say, at both presets (issue 68)."""
    from pathlib import Path

    from reproducer.overview.scorecard import stale

    root = Path(__file__).resolve().parents[1] / "results"
    lines = stale(preset, root)
    assert not lines, (f"chapter 06's {preset} scorecard is older than the chapters' claims — re-execute "
                       f"notebooks/06_comparison.ipynb at {preset}:\n" + "\n".join(lines))

"""The reader's page (issue 41): the book's number rule and table style, the claims box, the regenerate line, the loss
source, readable figures, and plumbing kept off the page."""
from __future__ import annotations

import re
from html import unescape

import matplotlib
import numpy as np
import pandas as pd
import pytest

from reproducer.report.page import NUMBER_RULE, Page, number, quick_minutes

matplotlib.use("Agg")


def _cells(html: str) -> list[str]:
    return re.findall(r"<td[^>]*>([^<]*)</td>", html)


@pytest.mark.parametrize("value, shown", [(64.78, "64.8"), (-9.29, "-9.3"), (0.0673, "0.0673"), (1200.0, "1,200"),
                                          (77, "77"), (float("nan"), "—"), (None, "—"), (0.49, "0.49"),
                                          (np.float32(3.14159), "3.1"), ("MR", "MR"), (float("inf"), "∞")])
def test_one_rule_for_every_number(value, shown):
    assert number(value) == shown


def test_a_table_is_boxed_formatted_and_says_how_to_regenerate_it():
    frame = pd.DataFrame({"ours": [64.78, np.nan], "paper": [77.0, 80.1], "r": [0.0673, 0.5]}, index=["MR", "CR"])
    html = Page("01_skip_thoughts").table(frame, {"paper": "{:.2f}"}, caption="<b>Table 1</b>").html
    assert '<div class="book-table">' in html and "overflow-x:auto" in html  # scrolls in its own box
    assert _cells(html) == ["64.8", "77.00", "0.067", "—", "80.10", "0.500"]  # r: its column alike
    assert html.index("<b>Table 1</b>") < html.index("<table")
    assert ("papermill notebooks/01_skip_thoughts.ipynb out.ipynb -p preset quick --cwd notebooks</code> (about 40 "
            "minutes at <code>quick</code>") in html
    assert "regenerate" not in Page("01_skip_thoughts").table(frame, regenerate=False).html.split("</table>")[-1]


def test_a_styler_keeps_its_own_formats_and_gets_the_rule_elsewhere():
    frame = pd.DataFrame({"a": [1.23456], "b": [12.345]})
    html = Page("01_skip_thoughts").table(frame.style.format("{:.3f}", subset=["a"])).html
    assert _cells(html) == ["1.235", "12.3"]


def test_text_columns_can_wrap():
    frame = pd.DataFrame({"claim": ["a long claim " * 10], "value": [1.0]})
    html = Page("01_skip_thoughts").table(frame, wrap=("claim",), index=False).html
    assert "white-space: normal" in html


def test_a_table_of_sentences_wraps_every_text_column_and_can_be_downloaded():
    """Issue 69: the text tables (neighbours, answer examples, samples) through page.table too: wrap=True wraps
    every text column (not the numbers), and the CSV link is under it."""
    frame = pd.DataFrame({"query": ["a sentence " * 8], "neighbour": ["another one " * 8], "cosine": [0.93]})
    html = Page("02_quick_thoughts").table(frame, wrap=True, index=False).html
    import re

    wrapped = re.search(r"([^{}]*)\{\s*white-space: normal", html).group(1)
    assert "row0_col0" in wrapped and "row0_col1" in wrapped and "row0_col2" not in wrapped
    assert "download=" in html and "CSV" in html


def test_quick_minutes_come_from_the_parameters_cell():
    assert quick_minutes("01_skip_thoughts") == 40
    assert quick_minutes("02_quick_thoughts") == 60  # "about 1 hour"
    assert quick_minutes("00_data") is None  # no quick preset: the line gives the default command, no time
    assert "-p preset default" in Page("00_data").regenerate() and "minutes" not in Page("00_data").regenerate()


def test_the_claims_box_gives_each_claim_its_outcome_and_reason():
    claims = pd.DataFrame([
        {"claim": "A beats <B>", "outcome": "reproduced", "ours": "+2.18 [+0.06, +4.23]", "threshold": "≥ 0"},
        {"claim": "C beats D", "outcome": "inconclusive", "ours": "-0.05 [-3.50, +3.42]", "threshold": "≥ 0"},
        {"claim": "E is faster", "outcome": "not checked", "ours": "", "threshold": "≥ 4.8"},
        {"claim": "F beats G", "outcome": "smaller than published", "ours": "-0.52 [-2.36, +1.32]",
         "threshold": "≥ 0", "paper's effect": "+4.20"}])
    html = Page("01_skip_thoughts").claims_box(claims, "corpus: ours; protocol: `paper`").html
    # issue 69: compact, the outcome in column 2, the effect the interval excludes, the glossary a click away
    text = unescape(html)
    rows = re.findall(r"<tr><td>(.*?)</td><td[^>]*>(.*?)</td><td>(.*?)</td></tr>", text)
    assert rows == [("A beats <B>", "reproduced", "+2.18 [+0.06, +4.23] against ≥ 0"),
                    ("C beats D", "inconclusive", "-0.05 [-3.50, +3.42] against ≥ 0"),
                    ("E is faster", "not checked", "a number it needs is missing"),
                    ("F beats G", "smaller than published", "-0.52 [-2.36, +1.32] against ≥ 0; the paper's +4.20")]
    assert "A beats &lt;B&gt;" in html  # escaped
    assert text.count("the paper's +") == 1 and '<a href="../book/glossary.html">glossary</a>' in html
    assert "excludes the paper's own effect" in text and "the whole interval clears the threshold" in text
    assert "(4: 1 reproduced, 1 smaller than published, 1 inconclusive, 1 not checked;" in html
    assert "protocol: <code>paper</code>" in html and "max-height:440px" in html
    with pytest.raises(KeyError):
        Page("01_skip_thoughts").claims_box(claims.assign(outcome="maybe"), "")


def test_the_claims_end_stores_counts_glues_and_shows_the_table(tmp_path, monkeypatch):
    """The one ending of every paper's chapter: claims.json in the run's folder (what chapter 06 reads), the count of
    decided claims, the box glued for the chapter's top, and the table returned for the cell to show."""
    import IPython.display
    import myst_nb

    from reproducer.files import read_json
    from reproducer.results_store import NotebookRun

    glued, shown_first = {}, []
    monkeypatch.setattr(myst_nb, "glue", lambda name, value, display=False: glued.update({name: value}))
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown_first.append(obj.data))
    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path))
    claims = pd.DataFrame([
        {"claim": "A beats B", "outcome": "reproduced", "ours": "+2.18 [+0.06, +4.23]", "threshold": "≥ 0",
         "paper": "", "numbers": "", "noise": ""},
        {"claim": "C beats D", "outcome": "inconclusive", "ours": "-0.05 [-3.50, +3.42]", "threshold": "≥ 0",
         "paper": "", "numbers": "", "noise": ""}])
    run = NotebookRun("01_skip_thoughts", "quick")
    shown = Page("01_skip_thoughts").claims_end(run, claims, "corpus: ours")
    assert read_json(tmp_path / "01_skip_thoughts" / "quick" / "claims.json") == claims.to_dict(orient="records")
    assert shown_first == ["**1 of 2 claims decided** (1 reproduced) at the `quick` preset."]
    assert "claims-box" in glued["claims_box"].html and "corpus: ours" in glued["claims_box"].html
    assert "C beats D" in shown.html and "regenerate" in shown.html


def test_the_headline_counts_the_outcomes():
    counts = pd.DataFrame({"reproduced": [2, 1], "not reproduced": [0, 1], "inconclusive": [3, 0],
                           "not checked": [0, 0], "decided": [2, 2], "claims": [5, 2]}, index=["Kiros", "Zhang"])
    counts.loc["total"] = counts.sum()
    html = Page("06_comparison").headline(counts, "default").html
    assert "of the <b>7</b> claims" in html and "<b>3</b> reproduced, <b>1</b> not reproduced, <b>3</b> inconclusive" in html
    assert "4 are decided" in html and "Zhang" in html
    assert "the book's own" not in html
    from reproducer.overview.scorecard import BOOK_ROW  # issue 44: the book's own claims, counted in their own row

    counts.loc[BOOK_ROW] = [1, 0, 1, 0, 1, 2]
    counts.loc["total"] = counts.drop(index="total").sum()
    html = Page("06_comparison").headline(counts, "default").html
    assert "of the <b>9</b> claims this book checks at the <code>default</code> preset (2 of them the book's own " \
        "questions: training beats the same encoder untrained, and checks no paper states)" in html


def test_the_headline_also_counts_the_outcomes_after_holms_correction():
    """Issue 68: the headline counts both ways, the outcomes as decided and after Holm's correction."""
    from reproducer.overview.scorecard import multiplicity, paper_counts

    card = pd.DataFrame({"paper": ["Kiros et al. 2015"] * 3, "claim": ["a", "b", "c"],
                         "outcome": ["reproduced", "reproduced", "inconclusive"],
                         "value": [5.0, 2.1, 0.5], "low": [4.0, 0.05, -1.0], "high": [6.0, 4.0, 2.0],
                         "threshold value": [0.0, 0.0, 0.0], "effect value": [None] * 3})
    card = multiplicity(card)  # b's p ≈ 0.04: below 0.05 alone, not after Holm (x 2)
    assert card["outcome (Holm)"].tolist() == ["reproduced", "inconclusive", "inconclusive"]
    counts, corrected = paper_counts(card), paper_counts(card, "outcome (Holm)")
    html = Page("06_comparison").headline(counts, "default", corrected).html
    assert "<b>2</b> reproduced, <b>1</b> inconclusive; 2 are decided" in html
    assert "After Holm's correction across the scorecard (the chance of even one wrong decision kept at 5%): " \
        "<b>1</b> reproduced, <b>2</b> inconclusive; 1 decided." in html
    assert "After Holm" not in Page("06_comparison").headline(counts, "default").html


def test_the_loss_source_names_its_file_and_line():
    from reproducer.papers.quick_thoughts.objective import quick_thought_loss

    html = Page.source(quick_thought_loss, summary="The loss").html
    assert html.startswith('<details class="loss-source"><summary><b>The loss</b> '
                           "(<code>reproducer/papers/quick_thoughts/objective.py</code>, line ")
    assert "quick_thought_loss" in re.sub(r"<[^>]+>", "", html)


def test_the_number_rule_is_stated():
    assert "one decimal" in NUMBER_RULE and "three significant digits" in NUMBER_RULE and "—" in NUMBER_RULE


def test_figures_are_narrowed_and_their_small_text_raised():
    import matplotlib.pyplot as plt

    from reproducer.plot_style import FIGURE_WIDTH, SMALLEST_FONT, readable_figure

    fig, ax = plt.subplots(figsize=(14, 3.6))
    ax.plot([0, 1], label="a line")
    ax.legend(fontsize=7)
    ax.annotate("note", (0, 0), fontsize=6)
    readable_figure(fig)
    assert tuple(fig.get_size_inches()) == (FIGURE_WIDTH, 3.6)
    sizes = [t.get_fontsize() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
    assert sizes and min(sizes) >= SMALLEST_FONT
    plt.close(fig)


def test_every_palette_colour_stands_out_on_the_white_page():
    """Issue 69: the palette's yellow (1.37:1) drew whole bars and lines nearly invisibly."""
    from reproducer.plot_style import MIN_CONTRAST, PALETTE, contrast

    assert contrast("#000000") == pytest.approx(21.0) and contrast("#ffffff") == pytest.approx(1.0)
    assert contrast("#ece133") == pytest.approx(1.37, abs=0.01)  # the old yellow
    assert min(contrast(c) for c in PALETTE) >= MIN_CONTRAST and len(set(PALETTE)) == len(PALETTE) == 10


def test_plumbing_goes_to_the_log_when_executed_for_the_book(tmp_path, monkeypatch, capsys):
    from reproducer.log import QUIET_ENV, log_to, logger, note, progress_bar

    monkeypatch.delenv(QUIET_ENV, raising=False)
    log_to(tmp_path / "run.log")
    logger.info("[reused] results/x.json")
    note("a note for whoever runs it")
    assert "[reused] results/x.json\na note for whoever runs it" in capsys.readouterr().out
    assert not (tmp_path / "run.log").exists()
    assert not progress_bar(range(2)).disable

    monkeypatch.setenv(QUIET_ENV, "1")
    log_to(tmp_path / "run.log")
    logger.info("[computed in 1.0 s] results/y.json")
    note("analogy_x: needs y, not saved in default/")  # issue 69: a note is plumbing on the book's page too
    assert capsys.readouterr().out == ""
    assert "[computed in 1.0 s] results/y.json" in (tmp_path / "run.log").read_text()
    assert "analogy_x: needs y, not saved in default/" in (tmp_path / "run.log").read_text()
    assert progress_bar(range(2)).disable
    monkeypatch.delenv(QUIET_ENV)
    log_to(None)


def test_the_settings_table_shows_dashes_not_none_or_nan():
    """Issue 69: an unset field and a field only one model has read as a dash, explained in the caption."""
    from reproducer.papers.registry import preset

    qt, st = preset("quick-thought", "default"), preset("skip-thought", "default")
    shown = Page("02_quick_thoughts").settings({"QT": qt, "ST": st}).html
    cells = [unescape(c).strip() for c in _cells(shown)]
    assert not {"None", "nan", "NaN"} & set(cells), cells
    assert "—" in cells and "not a setting of that column" in shown
    assert "max_steps" in shown and f"{qt.max_steps:,}" in cells
    single = Page("03_paraphrastic").settings({"default": preset("paraphrastic", "default")}).html
    assert "None" not in _cells(single) and "Regenerate" not in single


def test_the_one_screen_verdict_groups_claims_by_paper_then_the_books_own():
    """Issue 69: chapter 06 opens with every claim's short name, outcome and reason, grouped by paper (linked to its
    chapter, with its counts) and the book's own questions last, in three columns that wrap to the text column."""
    from reproducer.overview.scorecard import BOOK_ROW, chapters, verdicts
    from reproducer.report.claims import BOOK

    (first, (kiros, _)), (second, (logeswaran, _)) = list(chapters().items())[:2]
    card = pd.DataFrame([
        {"paper": logeswaran, "chapter": second, "claim": "QT is faster (Appendix C: sentences per second over "
         "skip-thought's, same encoder)", "outcome": "reproduced", "ours": "15.5× [9.7×, 21.2×]", "threshold": "≥ 4.8×",
         "paper's effect": "", "source": "paper"},
        {"paper": kiros, "chapter": first, "claim": "Training combine-skip beats the same encoder untrained on STS "
         "(STS14)", "outcome": "reproduced", "ours": "+12.66 [+9.66, +15.70]", "threshold": "≥ 0",
         "paper's effect": "", "source": BOOK},
        {"paper": kiros, "chapter": first, "claim": "uni-skip beats bi-skip (mean accuracy, Tables 3-5; the book's "
         "reading)", "outcome": "smaller than published", "ours": "-0.52 [-2.36, +1.32]", "threshold": "≥ 0",
         "paper's effect": "+1.67", "source": "paper"}])
    frame = verdicts(card)
    assert list(frame["group"]) == [kiros, logeswaran, BOOK_ROW]  # chapter order, the book's own last
    assert list(frame["claim"]) == ["uni-skip beats bi-skip", "QT is faster",
                                    "Training combine-skip beats its untrained twin on STS (STS14)"]
    assert frame["reason"][0] == "-0.52 [-2.36, +1.32] against ≥ 0; the paper's +1.67"
    html = unescape(Page("06_comparison").verdicts(frame).html)
    groups = re.findall(r'<tr class="group"><th colspan="3">(.*?)</th></tr>', html)
    assert groups[0] == f'<a href="{first}.html">{kiros}</a> <span class="counts">(1 smaller than published)</span>'
    assert groups[2].startswith(BOOK_ROW) and "table-layout:fixed" in html and "max-height:none" in html
    assert html.index("uni-skip beats bi-skip") < html.index("QT is faster") < html.index("Training combine-skip")


@pytest.mark.parametrize("claim, short", [
    ("MC-QT is the best of the family (mean accuracy, Table 1; the book's reading of the table)",
     "MC-QT is the best of the family"),
    ("QT (RNN) beats skip-thought on STS14 (Table 8, Pearson r × 100; ours: combine-QT against chapter 01's "
     "combine-skip (Kiros et al.'s model, retrained))", "QT (RNN) beats skip-thought on STS14"),
    ("Mean-max pooling beats mean and max pooling (RAE, 8-task macro, Table 3)",
     "Mean-max pooling beats mean and max pooling (RAE, 8-task macro, Table 3)"),
    ("word " * 40, ("word " * 20).strip() + " …")])
def test_a_claims_short_name_keeps_the_short_details_that_tell_claims_apart(claim, short):
    from reproducer.report.claims import short_claim

    assert short_claim(claim) == short


@pytest.mark.parametrize("values, shown", [
    ([-9.2, -9.0, 64.78], ["-9.2", "-9.0", "64.8"]),  # issue 69: "−9.2 | −9 | −9.0" in one column
    ([1600, 1200.0, np.nan], ["1,600", "1,200", "—"]),
    ([0.0673, 0.012, 0.5], ["0.067", "0.012", "0.500"]),
    ([0.0673, 0.012], ["0.0673", "0.0120"]),
    (["MR", 3.0, None], ["MR", "3", "—"])])
def test_a_column_prints_its_numbers_alike(values, shown):
    from reproducer.report.page import column_number

    assert [column_number(values)(v) for v in values] == shown


def test_a_tables_columns_each_keep_one_number_of_decimals():
    frame = pd.DataFrame({"a": [1.0, 2.5, 12.0], "b": [3.0, 4.0, 5.0], "c": [0.25, 0.5, 0.125]})
    cells = _cells(Page("06_comparison").table(frame, index=False, regenerate=False).html)
    assert cells == ["1.0", "3", "0.250", "2.5", "4", "0.500", "12.0", "5", "0.125"]


def test_every_table_downloads_as_a_plain_csv_of_its_full_numbers():
    """Issue 69, item 7: each table links its CSV (in the link itself: offline, no library), numbered per page unless
    named, with the numbers unrounded and the index kept where the table shows it."""
    import base64
    import re

    page = Page("02_quick_thoughts")
    frame = pd.DataFrame({"MR": [70.6543, 61.96], "steps": [1600, 2600]}, index=["MC-QT", "bi-QT"])
    first, second = page.table(frame).html, page.table(frame, index=False, regenerate=False, name="x.csv").html
    found = [re.search(r'download="([^"]+)" href="data:text/csv;charset=utf-8;base64,([^"]+)"', t) for t in (first, second)]
    assert [f.group(1) for f in found] == ["02_quick_thoughts-table1.csv", "x.csv"]
    assert base64.b64decode(found[0].group(2)).decode() == ",MR,steps\nMC-QT,70.6543,1600\nbi-QT,61.96,2600\n"
    assert base64.b64decode(found[1].group(2)).decode().startswith("MR,steps\n70.6543,1600")
    assert "Regenerate this table:" in first and "Regenerate" not in second and "70.7" in first  # shown rounded, downloaded whole


def test_the_retrain_line_goes_under_the_first_table_that_has_a_regenerate_line():
    """A chapter's first table is its settings (no regenerate line): the whole-chapter command must not vanish."""
    page = Page("02_quick_thoughts")
    page.table(pd.DataFrame({"a": [1]}), regenerate=False)
    first, second = (page.table(pd.DataFrame({"b": [2]})).html for _ in range(2))
    assert "Retrain the chapter" in first and "book table 02_quick_thoughts 2" in first
    assert "Retrain the chapter" not in second and "book table 02_quick_thoughts 3" in second


def test_the_regenerate_line_says_what_a_new_machine_builds_first_as_this_one_measured_it(tmp_path, monkeypatch):
    """Issue 69 item 7: a first run builds the corpus and our word2vec before the first cell with results; the line
    gives the minutes this machine's caches recorded, and nothing where they were not built here."""
    import json

    from reproducer.data.corpus import CorpusConfig, corpus_dir
    from reproducer.data.vectors import Word2VecConfig, build_seconds, word2vec_dir

    monkeypatch.setenv("REPRODUCER_DATA_DIR", str(tmp_path))
    assert build_seconds() == {} and "minutes" not in Page("00_data").regenerate(1).split("Retrain")[0]
    corpus = corpus_dir(CorpusConfig())
    corpus.mkdir(parents=True)
    (corpus / "meta.json").write_text(json.dumps({"build_seconds": 87.0}))
    assert build_seconds() == {"corpus": 87.0}
    vectors = word2vec_dir(corpus.name, Word2VecConfig())
    vectors.mkdir(parents=True)
    (vectors / "meta.json").write_text(json.dumps({"train_seconds": 414.0}))
    assert build_seconds() == {"corpus": 87.0, "word2vec": 414.0}
    line = Page("03_paraphrastic").regenerate(2)
    assert "here, on 2 CPU cores, the corpus took 1.4 minutes, and our word2vec vectors" in line
    assert "start from, 6.9 minutes)" in line

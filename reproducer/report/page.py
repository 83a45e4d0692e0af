"""What a chapter's page shows a reader, in one style for the whole book: the claims box that opens each chapter, its
tables, the line that regenerates them, its figures' captions.

- :data:`NUMBER_RULE`, :func:`number` and :func:`column_number`: how every table prints a number — scores in points
  (accuracy in %, correlations × 100); a column alike: whole numbers with thousands separators, one decimal where it
  reaches magnitude 1, else three significant digits of its largest; a missing value as "—".
- :class:`Page`: one chapter's page. :meth:`Page.table` shows a frame in the book's style (padded cells, the rule
  above unless a column says otherwise, a box that scrolls sideways when the table is wider than the text column)
  with the ``papermill`` command that regenerates it underneath; :meth:`Page.claims_box` is the short box of each
  claim's outcome and reason that the chapter opens with (glued to its top with myst-nb's ``glue``, since the claims are
  computed at the end); :meth:`Page.glue` puts any value where the prose quotes it.
"""
from __future__ import annotations

import base64
import html
import inspect
import math
import re
from dataclasses import dataclass
from numbers import Number
from pathlib import Path

import pandas as pd
from pandas.io.formats.style import Styler
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from reproducer.notebook import notebook_path, parameters_source
from reproducer.report.claims import BOOK, COLOURS, claim_table, counts, short_claim, verdict_reason
from reproducer.report.trend import NOT_READ

_CHECKOUT = Path(__file__).resolve().parents[2]
#: The one rule for numbers in the book's tables (stated in the intro's "How to read a table").
NUMBER_RULE = ("Scores are in points (accuracy in %, correlations × 100); a table's column prints all its numbers alike: "
               "whole numbers with thousands separators, a column whose numbers reach 1 or more with one decimal, a "
               "column of smaller numbers with the decimals its largest needs for three significant digits; "
               "— marks a value that does not exist for that row (e.g. a task the paper did not report).")
#: A one-line reason per outcome, completed with the claim's interval and threshold.
#: The glossary's page from a chapter's page (notebooks/<chapter>.html beside book/glossary.html in the built book).
GLOSSARY = "../book/glossary.html"
REASONS = {"reproduced": "the whole interval clears the threshold",
           "not reproduced": "the whole interval lies on the wrong side of the threshold",
           "smaller than published": "the interval contains the threshold but excludes the paper's own effect",
           "inconclusive": "the interval contains the threshold",
           "not checked": "a number it needs is missing"}
_STYLE = ("<style>.book-table{overflow-x:auto;max-width:100%;margin:0.5em 0}"
          ".book-table table{border-collapse:collapse;font-size:0.88em}"
          ".book-table th,.book-table td{padding:3px 9px;text-align:right;white-space:nowrap}"
          ".book-table td:first-child,.book-table th.row_heading{text-align:left}"
          ".book-table .wrap{white-space:normal;text-align:left;min-width:16em}"
          ".table-foot{font-size:0.8em;color:#555;margin:0 0 1.2em 0}"
          ".claims-box{border:1px solid #ccc;border-left:5px solid #0173b2;border-radius:4px;padding:0.6em 0.9em;"
          "margin:0.8em 0 1.2em 0;background:#f8fafc}"
          ".claims-box ul{margin:0.3em 0 0.3em 1.1em;padding:0}.claims-box li{margin:0.2em 0}"
          ".claims-box .setting{font-size:0.88em;color:#333}"
          ".claims-box .book-table th{white-space:normal}"
          ".verdicts{overflow-y:auto;max-height:440px;margin:0.4em 0}"
          ".verdicts.whole{max-height:none}"
          ".verdicts table{width:100%;table-layout:fixed;border-collapse:collapse;font-size:0.84em}"
          ".verdicts td,.verdicts th{padding:2px 6px;vertical-align:top;text-align:left;white-space:normal;"
          "overflow-wrap:anywhere;border-bottom:1px solid #e5e7eb}"
          ".verdicts col.claim{width:50%}.verdicts col.outcome{width:8.5em}"
          ".verdicts tr.group th{background:#eef2f7;font-weight:bold;padding-top:5px}"
          ".verdicts .counts{font-weight:normal;color:#333}"
          ".outcomes{font-size:0.8em;color:#333;margin:0.2em 0}</style>")


def _verdict_table(groups: list[tuple[str | None, list[tuple[str, str, str]]]], whole: bool = False) -> str:
    """The compact claims table of the claims box and of chapter 06's verdict: ``groups`` of (its header row's HTML,
    or None for no header; its rows of claim, outcome, reason). ``whole``: no height limit (chapter 06)."""
    body = []
    for header, rows in groups:
        if header:
            body.append(f'<tr class="group"><th colspan="3">{header}</th></tr>')
        body += [f'<tr><td>{_code(claim)}</td><td style="{COLOURS[outcome]}">{outcome}</td>'
                 f"<td>{html.escape(reason)}</td></tr>" for claim, outcome, reason in rows]
    return (f'<div class="verdicts{" whole" if whole else ""}"><table><colgroup><col class="claim"><col class="outcome">'
            '<col class="reason"></colgroup><thead><tr><th>claim</th><th>outcome</th><th>ours against the threshold'
            f'</th></tr></thead><tbody>{"".join(body)}</tbody></table></div>')


def _counts_text(outcomes: pd.Series) -> str:
    """How many claims had each outcome, in the book's order: "3 reproduced, 1 inconclusive"."""
    counted = outcomes.value_counts()
    return ", ".join(f"{counted[o]} {o}" for o in COLOURS if o in counted)


def _outcome_legend(outcomes) -> str:
    """One line saying what each of ``outcomes`` means (:data:`REASONS`), in the book's order."""
    shown = [o for o in COLOURS if o in set(outcomes)]
    return ('<p class="outcomes">' + "; ".join(f'<span style="{COLOURS[o]}">{o}</span>: {REASONS[o]}' for o in shown)
            + ".</p>")


def _code(text: str) -> str:
    """``text`` escaped for HTML, with its Markdown `code` spans as ``<code>``."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def number(x) -> str:
    """``x`` by :data:`NUMBER_RULE`: ``64.78`` → ``64.8``, ``-9.29`` → ``-9.3``, ``0.0673`` → ``0.0673``, ``1200.0`` →
    ``1,200``, ``nan`` → ``—``; anything not a number as it is."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if isinstance(x, bool) or not isinstance(x, Number):
        return str(x)
    x = float(x)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x.is_integer():
        return f"{x:,.0f}"
    return f"{x:,.1f}" if abs(x) >= 1 else f"{x:.3g}"


def column_decimals(values) -> int | None:
    """The decimals :data:`NUMBER_RULE` gives a whole column of ``values``: 0 when every number is whole (printed with
    thousands separators), 1 when the largest magnitude is 1 or more, else as many as the largest needs for three
    significant digits (``[0.0673, 0.012]`` → 4); ``None`` when the column holds no finite number."""
    finite = [float(v) for v in values if isinstance(v, Number) and not isinstance(v, bool) and math.isfinite(float(v))]
    if not finite:
        return None
    if all(v.is_integer() for v in finite):
        return 0
    largest = max(abs(v) for v in finite)
    return 1 if largest >= 1 else 2 - math.floor(math.log10(largest))


def column_number(values):
    """The formatter of a column of ``values`` by :data:`NUMBER_RULE` (:func:`column_decimals`); a cell that is not a
    number prints as :func:`number` prints it."""
    decimals = column_decimals(values)

    def shown(x) -> str:
        if decimals is None or isinstance(x, bool) or not isinstance(x, Number) or not math.isfinite(float(x)):
            return number(x)
        return f"{float(x):,.{decimals}f}"
    return shown


@dataclass
class Shown:
    """HTML that Jupyter and the book display as is (``_repr_html_``)."""

    html: str
    text: str = "(shown as HTML)"

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:  # the text/plain of the output: the HTML is not stored twice
        return self.text


def first_build() -> str:
    """What the corpus and our word2vec took to build on the machine that executed the page (their caches' records,
    :func:`~reproducer.data.vectors.build_seconds`), as the regenerate line says it; ``""`` where neither was built."""
    from reproducer.data.vectors import build_seconds

    took = build_seconds()
    parts = [f"{what} {took[key] / 60:.1f} minutes" for key, what in
             (("corpus", "the corpus took"), ("word2vec", "our word2vec vectors, which most chapters start from,"))
             if key in took]
    return f"; here, on 2 CPU cores, {', and '.join(parts)}" if parts else ""


def quick_minutes(notebook: str) -> float | None:
    """How long ``notebook`` takes at the ``quick`` preset on 2 CPU cores, as its parameters cell states it
    (``"quick" (about 40 minutes …)`` or ``(about 1 hour …)``); ``None`` for a notebook without a ``quick`` preset."""

    found = re.search(r'"quick" \(about ([\d.]+) (minutes?|hours?)', parameters_source(notebook_path(notebook)))
    if not found:
        return None
    return float(found.group(1)) * (60 if found.group(2).startswith("hour") else 1)


class Page:
    """One chapter's page: ``notebook`` is its file name without ``.ipynb`` (the regenerate line's time at ``quick``
    comes from its parameters cell, :func:`quick_minutes`)."""

    def __init__(self, notebook: str):
        self.notebook, self.quick_minutes = notebook, quick_minutes(notebook)
        self.tables = 0  # the tables shown so far: the default name of each one's CSV
        self.regenerated = 0  # those with a regenerate line: the first also says how to retrain the chapter

    def download(self, frame: pd.DataFrame, name: str = "", index: bool = True) -> str:
        """A link that downloads ``frame`` as a plain CSV file (full precision, not the rounded numbers shown; UTF-8)
        named ``name`` (by default ``<chapter>-table<n>.csv``, its place among the page's tables): the file is in
        the link itself (a ``data:`` address), so it works in the built book, offline, and in the notebook alike,
        and a reader needs neither the library nor the results folder (issue 69, item 7)."""
        self.tables += 1
        name = name or f"{self.notebook}-table{self.tables}.csv"
        data = base64.b64encode(frame.to_csv(index=index).encode("utf-8")).decode("ascii")
        return (f'<a class="download" data-table="{self.tables}" download="{html.escape(name, quote=True)}" '
                f'href="data:text/csv;charset=utf-8;base64,{data}">CSV</a>')

    def regenerate(self, number: int | None = None) -> str:
        """The line under a results table (:meth:`table`): the command that regenerates table ``number`` of the page
        alone from the committed results (:mod:`reproducer.table_command`) and, under the page's first table with
        such a line (a settings table has none), the one that retrains the whole chapter and how long it takes
        (issue 69: the same chapter command under every table)."""
        preset = "quick" if self.quick_minutes else "default"
        command = f"papermill notebooks/{self.notebook}.ipynb out.ipynb -p preset {preset} --cwd notebooks"
        took = (f" (about {self.quick_minutes:,.0f} minutes at <code>quick</code> on 2 CPU cores; "
                "<code>-p preset default</code> gives the numbers shown)" if self.quick_minutes else "")
        whole = f'Retrain the chapter: <code>{html.escape(command)}</code>{took}.'
        if number is None:
            return whole
        one = (f"Regenerate this table: <code>python -m reproducer book table {self.notebook} {number}</code> (runs "
               "the chapter's cells up to it, reusing the committed results; a new machine first builds the corpus "
               f"and word vectors they were computed from{first_build()}).")
        return f"{one} {whole}" if self.regenerated <= 1 else one

    def table(self, frame: pd.DataFrame | Styler, formats: dict | None = None, *,
              index: bool = True, wrap: tuple[str, ...] | bool = (), caption: str = "", regenerate: bool = True,
              name: str = "") -> Shown:
        """``frame`` in the book's style: every column's numbers alike by :func:`column_number` unless ``formats``
        (column → format string or function) says otherwise, ``wrap``'s text columns wrapped instead of kept on one
        line (``True``: every text column, for a table of sentences or words), in a box that scrolls sideways when
        wider than the text column, with ``caption`` above and below it
        the link that downloads it as CSV (:meth:`download`, named ``name``) and the regenerate line. A Styler
        keeps its own styles (colours, gradients) and gets the rule for the columns it did not format."""
        styler = frame if isinstance(frame, Styler) else frame.style
        data = styler.data
        own = set(getattr(styler, "_display_funcs", {}))  # cells the caller's Styler formatted already
        base = [c for j, c in enumerate(data.columns) if not any(col == j for _, col in own)]
        for column in base:  # one format per column (issue 69: 138 of 449 columns mixed decimal places)
            styler = styler.format(column_number(data[column]), subset=[column], na_rep="—")
        for column, fmt in (formats or {}).items():
            styler = styler.format(fmt, subset=[column], na_rep="—")
        if wrap is True:
            wrap = [c for c in data.columns if data[c].dtype == object or pd.api.types.is_string_dtype(data[c])]
        wrap = [c for c in wrap if c in styler.data]  # a column a table has not got (a claims table without bootstrap)
        if wrap:
            styler = styler.set_properties(subset=wrap, **{"white-space": "normal", "text-align": "left",
                                                           "min-width": "16em"})
        if not index:
            styler = styler.hide(axis="index")
        head = f"<p>{caption}</p>" if caption else ""
        link = self.download(data, name, index)
        self.regenerated += regenerate
        again = f' · <span class="regenerate">{self.regenerate(self.tables)}</span>' if regenerate else ""
        tail = f'<p class="table-foot">{link}{again}</p>'
        return Shown(f'{_STYLE}{head}<div class="book-table">{styler.to_html()}</div>{tail}')

    def settings(self, columns: dict) -> Shown:
        """The chapter's training settings: one column per preset object of ``columns`` (column name → an object with
        ``to_dict()``), one row per field. A field a preset leaves unset (``None``) or a model has not got is a dash,
        and the caption says so, instead of pandas' ``None`` and ``NaN`` (issue 69)."""
        frame = pd.DataFrame({name: settings.to_dict() for name, settings in columns.items()}).astype(object)
        frame = frame.where(frame.notna(), None)
        note = ("—: not set at this preset (no limit, or the code's default applies)"
                + ("; or not a setting of that column's model" if len(columns) > 1 else "") + ".")
        by_cell = {column: number for column in frame.columns}  # a column of unlike fields: each cell by its own value
        return self.table(frame, by_cell, caption=note if frame.isna().any(axis=None) else "", regenerate=False)

    def claims_box(self, claims: pd.DataFrame, setting: str) -> Shown:
        """The box a chapter opens with: a compact table of each claim's short name (:func:`short_claim`), its outcome
        (coloured, column 2) and a one-line reason (:func:`verdict_reason`: our interval against the threshold, and
        the paper's effect where the outcome is *smaller than published*), at most ~600 px tall (it scrolls beyond);
        what each outcome means; then the setting in one line (corpus, budget, protocol)."""
        rows = [(short_claim(row["claim"]), row["outcome"], verdict_reason(row))
                for row in claims.to_dict(orient="records")]
        return Shown(f'{_STYLE}<div class="claims-box"><b>The claims, at a glance</b> ({len(claims)}: '
                     f'{_counts_text(claims["outcome"])}; each '
                     f'claim\'s wording, the paper\'s sentence and the numbers are in the table at the end; the terms '
                     f'are in the <a href="{GLOSSARY}">glossary</a>){_verdict_table([(None, rows)])}'
                     f"{_outcome_legend(claims['outcome'])}"
                     f'<div class="setting"><b>Setting:</b> {_code(setting)}</div></div>')

    def verdicts(self, frame: pd.DataFrame, link: str = "{chapter}.html") -> Shown:
        """Chapter 06's one-screen verdict (issue 69): ``frame`` from
        :func:`reproducer.overview.scorecard.verdicts`, one group per paper (its name linked to its chapter by
        ``link``, and its counts), then the book's own questions; each claim's short name, its coloured outcome and a
        one-line reason, in three columns that wrap to the text column (no sideways scroll)."""
        groups = []
        for group, rows in frame.groupby("group", sort=False):
            chapters = list(dict.fromkeys(rows["chapter"]))
            title = html.escape(str(group))
            if len(chapters) == 1 and not str(group).startswith(BOOK):  # the book's own: from every chapter
                title = f'<a href="{html.escape(link.format(chapter=chapters[0]))}">{title}</a>'
            groups.append((f'{title} <span class="counts">({_counts_text(rows["outcome"])})</span>',
                           list(rows[["claim", "outcome", "reason"]].itertuples(index=False, name=None))))
        return Shown(f"{_STYLE}{_verdict_table(groups, whole=True)}{_outcome_legend(frame['outcome'].unique())}")

    def claims_end(self, run, claims: pd.DataFrame, setting: str) -> Shown:
        """The ending every paper's chapter shares: its judged ``claims`` (:func:`~reproducer.report.claims.check`)
        stored as ``claims.json`` in ``run``'s folder (chapter 06's scorecard reads them), how many are decided, the
        box the chapter opens with (:meth:`claims_box` with ``setting``, glued as ``claims_box``) and the claims
        table, returned so that the cell shows it."""
        from IPython.display import Markdown, display

        run.record("claims", claims.to_dict(orient="records"))
        n = counts(claims)
        display(Markdown(f"**{n['decided']} of {len(claims)} claims decided** ({n['reproduced']} reproduced) at the "
                         f"`{run.preset}` preset."))
        self.glue("claims_box", self.claims_box(claims, setting))
        return self.table(claim_table(claims), wrap=("claim", "paper", "numbers", "noise", "bootstrap"), index=False)

    def extrapolations(self, run, rows: list[dict], models: str) -> Shown:
        """Issue 70's check of the chapter's own extrapolations: ``rows``
        (:func:`~reproducer.report.trend.extrapolation_rows`: the claims the longer run of ``models`` can give)
        stored as ``extrapolations.json`` in ``run``'s folder (chapter 06 gathers them), a sentence that counts the
        hits, and the table (:func:`~reproducer.report.extrapolations.extrapolation_frame`)."""
        from IPython.display import Markdown, display

        from reproducer.report.extrapolations import FILE, extrapolation_frame, extrapolation_summary

        run.record(FILE, rows)
        display(Markdown(f"{models}, trained longer: {extrapolation_summary(rows)}"))
        return self.table(extrapolation_frame(rows), wrap=("claim",), index=False, name=FILE)

    def headline(self, counts: pd.DataFrame, preset: str, corrected: pd.DataFrame | None = None,
                 directions: pd.Series | None = None) -> Shown:
        """The book's verdict in one box: how many of the claims reproduce, and the outcomes per paper (``counts`` from
        :func:`reproducer.overview.scorecard.paper_counts`, with its ``total`` row); ``corrected``: the same counts
        after Holm's correction across the scorecard (``paper_counts(card, "outcome (Holm)")``), given in a second
        sentence (the table stays the uncorrected counts); ``directions``: where the claims read along their training
        are heading (:func:`reproducer.overview.heading.direction_counts`), in a third."""
        total = counts.loc["total"]
        parts = [f"<b>{total[o]}</b> {o}" for o in COLOURS if total.get(o, 0)]
        after = ""
        if corrected is not None:
            fixed = corrected.loc["total"]
            after = (" After Holm's correction across the scorecard (the chance of even one wrong decision kept at "
                     "5%): " + ", ".join(f"<b>{fixed[o]}</b> {o}" for o in COLOURS if fixed.get(o, 0))
                     + f"; {fixed['decided']} decided.")
        heading = None if directions is None else directions.drop(NOT_READ, errors="ignore")
        if heading is not None and heading.sum():
            after += (f" Along their training ({heading.sum()} claims read at two budgets or more): "
                      + ", ".join(f"<b>{n}</b> {d}" for d, n in heading.items()) + ".")
        own = sum(int(counts.loc[row, "claims"]) for row in counts.index if str(row).startswith(BOOK))
        mine = (f" ({own} of them the book's own questions: training beats the same encoder untrained, and checks no "
                f"paper states)" if own else "")
        shown = counts[[c for c in counts.columns if c not in COLOURS or total[c]]]  # outcomes no claim had: left out
        table = shown.rename_axis(None).style.map(lambda v: COLOURS["reproduced"] if v else "",
                                                  subset=[c for c in ["reproduced"] if c in shown])  # none: no column
        return Shown(f'{_STYLE}<div class="claims-box"><b>The verdict:</b> of the <b>{total["claims"]}</b> claims this '
                     f"book checks at the <code>{html.escape(preset)}</code> preset{mine}, {', '.join(parts)}; "
                     f"{total['decided']} are decided (reproduced, not reproduced, or smaller than published).{after}"
                     '<div class="book-table">'
                     f"{table.to_html()}</div></div>")

    @staticmethod
    def source(*objects, summary: str = "The loss in code") -> Shown:
        """The source of ``objects`` (functions, classes, methods of the library) in a collapsed block, with the file
        and line each comes from: the code beside the equation it implements."""
        blocks, where = [], []
        for obj in objects:
            lines, first = inspect.getsourcelines(obj)
            path = Path(inspect.getsourcefile(obj)).resolve()
            shown = path.relative_to(_CHECKOUT).as_posix() if path.is_relative_to(_CHECKOUT) else path.name
            where.append(f"<code>{html.escape(shown)}</code>, line {first}")
            blocks.append(highlight("".join(lines), PythonLexer(), HtmlFormatter(noclasses=True, nobackground=True)))
        return Shown(f'<details class="loss-source"><summary><b>{html.escape(summary)}</b> '
                     f'({"; ".join(where)})</summary>{"".join(blocks)}</details>')

    @staticmethod
    def glue(name: str, value, display: bool = False):
        """myst-nb's ``glue``: ``value`` under ``name`` for the prose (``{glue:text}`name` ``) and the chapter's
        top (``{glue:} name``); shown here too when ``display``."""
        from myst_nb import glue

        glue(name, value, display=display)
        return value

"""The book's own extrapolations, checked (issue 70, item 3). A claim read along its training
(:mod:`reproducer.report.trend`) projects where its quantity would be with more training; for the models whose claims
head toward the paper, each chapter trains its main seed :data:`~reproducer.report.units.LONGER` times its step budget
(:meth:`~reproducer.report.units.ChapterModels.longer`) and compares what that run measured with what the line projected
(:func:`~reproducer.report.trend.extrapolation_rows`). A hit and a miss are both results: a miss says our curves bend,
and how far the book's extrapolations may be trusted.

- :func:`check_longer`: a chapter trains its ``longer`` models and checks the claims they give;
- :func:`extrapolation_frame`: a chapter's rows as the table it shows (and chapter 06's, with a ``paper`` column);
- :func:`gathered`: every chapter's stored rows at a preset (``extrapolations.json``), for chapter 06;
- :func:`extrapolation_summary`: how many projections the longer runs met, in a sentence.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from reproducer.errors import ReproducerError
from reproducer.files import read_json, stored_json
from reproducer.report.claims import short_claim
from reproducer.report.units import LONGER

#: The file each chapter stores its checked extrapolations in (:meth:`~reproducer.report.page.Page.extrapolations`).
FILE = "extrapolations"


def _interval(value: float, low: float, high: float) -> str:
    return f"{value:+.2f} [{low:+.2f}, {high:+.2f}]"


def extrapolation_frame(rows: list[dict]) -> pd.DataFrame:
    """``rows`` (:func:`~reproducer.report.trend.extrapolation_rows`, with a ``paper`` each where gathered) as a
    table: the claim (short), the budgets its line was fitted on, the longer run's steps, the projected and the
    measured quantity with their intervals, their difference, whether they agree (``hit``: the difference's interval
    holds 0) and the claim's outcome on the longer run."""
    columns = ["claim", "line fitted on", "checked at", "projected", "measured", "measured − projected", "agree",
               "outcome there"]
    if any("paper" in r for r in rows):
        columns.insert(0, "paper")
    frame = pd.DataFrame([{
        "paper": r.get("paper", ""), "claim": short_claim(r["claim"]),
        "line fitted on": " / ".join(f"{s:,}" for s in r["budgets"]) + " steps",
        "checked at": f"{r['steps']:,} steps",
        "projected": _interval(r["projected"], r["projected low"], r["projected high"]),
        "measured": _interval(r["measured"], r["measured low"], r["measured high"]),
        "measured − projected": _interval(r["difference"], r["difference low"], r["difference high"]),
        "agree": "hit" if r["hit"] else "miss", "outcome there": r["outcome there"]} for r in rows],
        columns=columns)
    return frame


def gathered(chapters: dict[str, str], preset: str = "default", root: str | Path = "results") -> list[dict]:
    """Every chapter's checked extrapolations at ``preset`` (``chapters``: folder → its paper's citation, e.g.
    :func:`~reproducer.overview.scorecard.chapters`), each row with its ``paper`` and ``chapter``; a chapter that
    has checked none is left out."""
    rows = []
    for chapter, paper in chapters.items():
        path = Path(root) / chapter / preset / f"{FILE}.json"
        if stored_json(path) is not None:
            rows += [{**r, "paper": paper, "chapter": chapter} for r in read_json(path)]
    return rows


def extrapolation_summary(rows: list[dict]) -> str:
    """Markdown: how many of the book's projections a longer run checked, how many it met (hits) and missed, and of
    the misses which way the measurement fell."""
    if not rows:
        return ("No projection has been checked yet: no chapter has trained a model beyond its budget "
                "(its `longer` parameter).")
    hits = sum(r["hit"] for r in rows)
    below = sum(not r["hit"] and r["difference"] < 0 for r in rows)
    text = (f"{len(rows)} projections checked against a run trained longer: **{hits} met** (the measurement within "
            f"the projection's noise), **{len(rows) - hits} missed**")
    if len(rows) - hits:
        text += f" ({below} below the line: the curve flattened; {len(rows) - hits - below} above it)"
    return text + "."


def check_longer(models, names: str, claims: list, along: dict[int, list], evidence,
                 twins: tuple[str, ...] | None = None, factor: int = LONGER) -> list[dict]:
    """A chapter's check of its own extrapolations: the main seed of ``models`` (a
    :class:`~reproducer.report.units.ChapterModels`) trained ``factor`` times its budget (by default
    :data:`~reproducer.report.units.LONGER`; a chapter whose longer run would not fit a session of 2 CPU cores with
    its scoring asks for less and says so) (:meth:`~reproducer.report.units.ChapterModels.longer`: a run of its own),
    one unit per model of ``names`` (a
    comma-separated list: the notebook's ``longer`` parameter; ``""``: none, nothing trained, no rows) and the
    untrained twins of ``twins`` (default: those of ``names``; the same initial weights, stored under that run's key:
    chapter 01's twin is combine-skip's, which uni- and bi-skip make); then
    :func:`~reproducer.report.trend.extrapolation_rows` of ``claims`` along ``along`` (the budgets the claims were
    read at) against ``evidence(view)``, the chapter's evidence of that run's stored results (the claims that need a
    model it did not train are left out)."""
    from reproducer.report.trend import extrapolation_rows

    wanted = [n.strip() for n in names.split(",") if n.strip()]
    if not wanted:
        return []
    if factor < 2:
        raise ReproducerError(f"A longer run checks a projection beyond the budgets the line was fitted on: factor "
                              f"{factor} must be at least 2.")
    trained = models.longer(factor)
    for name in wanted:
        trained.unit(name, neighbours=False)
    trained.twins(wanted if twins is None else list(twins))  # for the "training beats untrained" claims
    return extrapolation_rows(claims, along, trained.settings.max_steps, evidence(trained.stored()))

"""Where each verdict is heading (issue 70): the claims of chapter 06's scorecard that their chapters also read along
their training (:func:`reproducer.report.claims.check` with ``along``: the quantity at several budgets and its change
per doubling of the training steps, :mod:`reproducer.report.trend`).

- :func:`heading_table`: one row per claim read along its training: its paper, short name, outcome, trend and the
  budgets it was read at.
- :func:`direction_counts`: how many claims head toward the paper, away from it, stay flat, or were not read.
- :func:`heading_summary`: the same in a sentence, with the claims whose line would cross the threshold within
  :data:`~reproducer.report.trend.HORIZON` times our largest budget (extrapolations, said to be).
- :func:`margin_figure`: every claim's distance to its threshold against its training steps, one panel per paper.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from reproducer.report.claims import short_claim
from reproducer.report.trend import DIRECTIONS, HORIZON, NOT_READ


def _directions(card: pd.DataFrame) -> pd.Series:
    """Each row's direction along training (empty where the scorecard predates issue 70)."""
    return card["direction"] if "direction" in card else pd.Series(index=card.index, dtype=object)


def _read(card: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``card`` whose claim was read along its training (a direction of :data:`DIRECTIONS`)."""
    return card[_directions(card).isin(DIRECTIONS)]


def _budgets(trend_budgets) -> str:
    return " / ".join(f"{b['steps']:,}" for b in trend_budgets) + " steps"


def heading_table(card: pd.DataFrame) -> pd.DataFrame:
    """The claims of ``card`` (:func:`~reproducer.overview.scorecard.scorecard`) read along their training, in the
    scorecard's order: ``paper``, ``claim`` (:func:`~reproducer.report.claims.short_claim`), ``outcome`` (at the
    preset), ``trend`` (the arrow, the change per doubling with its interval, the direction, a projected crossing
    labelled an extrapolation) and ``budgets`` (the steps of the chapter's main model at each budget)."""
    read = _read(card)
    return pd.DataFrame({"paper": read["paper"], "claim": read["claim"].map(short_claim), "outcome": read["outcome"],
                         "trend": read["trend"], "budgets": read["trend budgets"].map(_budgets)},
                        columns=["paper", "claim", "outcome", "trend", "budgets"]).reset_index(drop=True)


def direction_counts(card: pd.DataFrame) -> pd.Series:
    """How many claims of ``card`` head each way (:data:`~reproducer.report.trend.DIRECTIONS`), and how many were
    not read along their training (:data:`NOT_READ`)."""
    direction = _directions(card)
    direction = direction.where(direction.isin(DIRECTIONS), NOT_READ)
    return direction.value_counts().reindex([*DIRECTIONS, NOT_READ], fill_value=0)


def heading_summary(card: pd.DataFrame) -> str:
    """Markdown: of the claims of ``card``, how many were read along their training and which way each group heads;
    the undecided or failed claims heading toward the paper; and the projected crossings (within
    :data:`~reproducer.report.trend.HORIZON` × our largest budget), each labelled an extrapolation."""
    counts, read = direction_counts(card), _read(card)
    if read.empty:
        return (f"None of the {len(card)} claims was read at two budgets yet: each chapter reads its claims along "
                "training once its seeds exist at half the budget.")
    text = (f"{len(read)} of the {len(card)} claims were read at two budgets or more: "
            + ", ".join(f"**{counts[d]}** {d}" for d in DIRECTIONS) + ".")
    pending = read[(read["direction"] == DIRECTIONS[0]) & (read["outcome"] != "reproduced")]
    if len(pending):
        text += (f" Not reproduced yet but heading toward the paper ({len(pending)}): "
                 + "; ".join(f"{short_claim(r.claim)} ({r.outcome})" for r in pending.itertuples()) + ".")
    crossing = read[read["crossing"].notna()]
    if len(crossing):
        text += (f" Projected to reach the threshold within {HORIZON}× our largest budget — extrapolations, not "
                 "measurements: " + "; ".join(f"{short_claim(r.claim)} near {r.crossing:,.0f} steps"
                                                for r in crossing.itertuples()) + ".")
    return text


def margins(row) -> tuple[np.ndarray, np.ndarray]:
    """One claim's path toward its threshold: each budget's steps as a fraction of its largest, and the seeds' mean
    minus the threshold on the side the wording points to (up for "at least", down for "at most"), in half-widths
    of the claim's interval at the preset: above 1 the interval clears the threshold, as a *reproduced* claim's
    does; below −1 it falls on the other side."""
    steps = np.array([b["steps"] for b in row["trend budgets"]], dtype=float)
    means = np.array([b["mean"] for b in row["trend budgets"]], dtype=float)
    side = -1.0 if row["at most"] else 1.0
    half_width = (row["high"] - row["low"]) / 2 or 1.0
    return steps / steps.max(), side * (means - row["threshold value"]) / half_width


def _fraction(x: float, _position=None) -> str:
    """A budget's fraction of the preset's as the axis prints it: 1, 1/2, 1/4, … (2, 4 beyond)."""
    return f"{x:g}" if x >= 1 else f"1/{1 / x:g}"


def margin_figure(card: pd.DataFrame):
    """Every claim of ``card`` read along its training: its distance to the threshold (:func:`margins`) against its
    training steps (log scale, as a fraction of its chapter's budget), one panel per paper, one line per claim
    coloured by its direction. ``None`` when no claim was read at two budgets."""
    import matplotlib.pyplot as plt

    read = _read(card)
    if read.empty:
        return None
    papers = list(dict.fromkeys(read["paper"]))
    colours = {DIRECTIONS[0]: "#1a7f37", DIRECTIONS[1]: "#cf222e", DIRECTIONS[2]: "#57606a"}
    fig, axes = plt.subplots(1, len(papers), figsize=(3.2 * len(papers) + 1, 3.4), sharey=True, squeeze=False)
    for ax, paper in zip(axes[0], papers):
        for _, row in read[read["paper"] == paper].iterrows():
            x, y = margins(row)
            ax.plot(x, y, marker="o", color=colours[row["direction"]], alpha=0.7, lw=1.2)
        ax.axhline(1, color="#1a7f37", ls=":", lw=0.8)
        ax.axhline(0, color="black", lw=0.8)
        ax.axhline(-1, color="#cf222e", ls=":", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(plt.FuncFormatter(_fraction))
        ax.set_title(str(paper), fontsize=9)
        ax.set_xlabel("training steps (fraction of the preset's)")
    axes[0][0].set_ylabel("distance to the threshold\n(half-widths of the interval)")
    handles = [plt.Line2D([], [], color=c, marker="o", label=d) for d, c in colours.items()]
    fig.legend(handles=handles, loc="lower center", ncol=3, frameon=False, bbox_to_anchor=(0.5, -0.08))
    fig.tight_layout()
    return fig

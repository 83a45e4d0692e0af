"""Where the papers' own hardware figures stand (chapter 06): each timing the papers print (on their GPUs) beside the
same quantity measured here (on a 2-core CPU), as ratios — relative costs where the papers give hours per model,
speed-ups where they compare two objectives, absolute minutes per 1000 batches where that is what they print.

Read from the chapters' results at one preset by each paper's ``timing_rows`` (its declaration's ``timings``: chapter
02's throughput benchmark, chapter 04's training records, chapter 05's timing study). :func:`hardware_table` gathers
them; :func:`hardware_figure` draws paper against ours.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from reproducer.errors import ReproducerError
from reproducer.papers.registry import DECLARATIONS
from reproducer.report.plots import legend_below

COLUMNS = ["paper", "figure", "quantity", "paper's value", "paper's hardware", "ours", "our hardware",
           "ours / paper", "note"]


def hardware_table(preset: str = "default", root: str | Path = "results", hardware: str = "2-core CPU") -> pd.DataFrame:
    """Every paper timing the chapters measured at ``preset`` (:data:`COLUMNS`), read from ``root``; the chapters
    not yet run are left out. Raises when none has run."""
    root = Path(root)
    timed = [p for p in DECLARATIONS.values() if p.timings]
    rows = [row for p in timed for row in p.timing_rows(root / p.chapter / preset, hardware)]
    if not rows:
        chapters = ", ".join(p.chapter[:2] for p in timed)
        raise ReproducerError(f"No timing of chapters {chapters} at the {preset!r} preset under {root}: run them first.")
    return pd.DataFrame(rows, columns=COLUMNS)


def hardware_figure(table: pd.DataFrame):
    """Paper against ours for every row with both (log-log, the diagonal drawn: on it, our CPU reproduces the
    paper's ratio), each point labelled with its row's number in ``table`` (1, 2, …: the table shown under the figure
    numbers its rows alike; quantity names would overlap). Returns the figure."""
    import matplotlib.pyplot as plt

    numbered = table.reset_index(drop=True).assign(number=lambda t: t.index + 1)
    both = numbered.dropna(subset=["paper's value", "ours"])
    fig, ax = plt.subplots(figsize=(7, 5))
    for paper, rows in both.groupby("paper", sort=False):
        ax.scatter(rows["paper's value"], rows["ours"], label=paper, s=40)
        for _, r in rows.iterrows():
            ax.annotate(str(r["number"]), (r["paper's value"], r["ours"]), xytext=(4, 3), textcoords="offset points")
    low = min(both["paper's value"].min(), both["ours"].min()) / 1.5
    high = max(both["paper's value"].max(), both["ours"].max()) * 1.5
    ax.plot([low, high], [low, high], color="grey", lw=1, ls="--", label="ours = paper")
    ax.set(xscale="log", yscale="log", xlabel="the paper's figure (its GPU)", ylabel="ours (2-core CPU)",
           title="Timing figures: paper vs ours (numbers: rows of the table below)")
    legend_below(ax, ncol=2)
    fig.tight_layout()
    return fig

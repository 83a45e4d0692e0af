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


#: The CPU benchmark chapter 06 reads: ``python -m reproducer bench train --preset default --seconds 30
#: --profile-steps 5 --json results/bench/train_default.json`` (run three times one after the other, nothing else on
#: the machine: ``runs`` is the first, with its profile; ``repeats`` all three).
CPU_BENCH = Path("bench") / "train_default.json"


def machine_use(root: str | Path = "results") -> pd.DataFrame:
    """How much of each machine every objective uses: one row per objective of ``bench train`` with its share of the
    matrix-product peak on our 2-core CPU (``default`` sizes, fp32 sgemm measured in the same process:
    :data:`CPU_BENCH`) and on the last GPU slice (the paper's sizes, bf16: the newest ``results/gpu/<date>/``), with
    each machine's sentences per second and, where profiled, the share of the step spent in matrix products. Columns
    of a machine not measured are left out; raises when neither was."""
    from reproducer.files import read_json
    from reproducer.report import gpu_runs

    root = Path(root)
    rows: dict[str, dict] = {}
    cpu = read_json(root / CPU_BENCH)
    for r in (cpu or {}).get("runs", []):
        if "error" not in r:
            rows.setdefault(r["objective"], {})
            rows[r["objective"]].update({"CPU % of peak": r["percent_of_peak"], "CPU sentences/s":
                                         r["sentences_per_second"], "CPU step in matrix products":
                                         100 * r["profile"]["matmul_share"] if isinstance(r.get("profile"), dict)
                                         else float("nan")})
    gpu = gpu_runs.latest(root)
    for r in (gpu or {}).get("bench", []):
        if "error" not in r and r["preset"] == "paper":
            rows.setdefault(r["objective"], {})
            rows[r["objective"]].update({"GPU % of peak": r["percent_of_peak"],
                                         "GPU sentences/s": r["sentences_per_second"]})
    if not rows:
        raise ReproducerError(f"No benchmark in {root}: run `python -m reproducer bench train --preset default "
                              f"--seconds 30 --profile-steps 5 --json {root / CPU_BENCH}` (and a GPU slice).")
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("objective")
    if gpu:
        table.attrs["gpu"] = f"{gpu['environment'].get('gpu', 'GPU')}, {gpu['started'][:10]}"
    return table


def machine_use_figure(table: pd.DataFrame):
    """:func:`machine_use`'s shares of peak as bars, one group per objective: the CPU at ``default`` sizes beside the
    GPU slice at the paper's (a missing bar: not measured there)."""
    import matplotlib.pyplot as plt
    import numpy as np

    columns = [c for c in ("CPU % of peak", "GPU % of peak") if c in table]
    fig, ax = plt.subplots(figsize=(8, 3.4))
    x, width = np.arange(len(table)), 0.8 / len(columns)
    for i, column in enumerate(columns):
        ax.bar(x + (i - (len(columns) - 1) / 2) * width, table[column].fillna(0), width,
               label=column.replace(" % of peak", ""))
    ax.set_xticks(x, table.index, rotation=0)
    ax.set(ylabel="% of the matrix-product peak", ylim=(0, 100),
           title="How much of each machine an objective's training step uses")
    legend_below(ax, ncol=len(columns))
    fig.tight_layout()
    return fig

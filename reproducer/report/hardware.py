"""Where the papers' own hardware figures stand (chapter 06): each timing the papers print (on their GPUs) beside the
same quantity measured here (on a 2-core CPU), as ratios — relative costs where the papers give hours per model,
speed-ups where they compare two objectives, absolute minutes per 1000 batches where that is what they print.

Read from the chapters' results at one preset: chapter 02's throughput benchmark (``throughput_benchmark.json``),
chapter 04's training records (``<variant>_training.json``) and chapter 05's timing study (``timing.json``).
:func:`hardware_table` gathers them; :func:`hardware_figure` draws paper against ours.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reproducer.errors import ReproducerError
from reproducer.io import read_json

#: Chapter 04's variants timed against MV (Tang & de Sa Table 3's training hours, equal data for every variant).
CONSENSUS_VARIANTS = ("SV-f", "SV-g", "MV-ff", "MV-gg")
#: Table 3's model row whose training hours stand for each variant.
CONSENSUS_ROWS = {"MV": "MV ensemble", "SV-f": "SV-f f", "SV-g": "SV-g g", "MV-ff": "MV-ff ensemble",
                  "MV-gg": "MV-gg ensemble"}
COLUMNS = ["paper", "figure", "quantity", "paper's value", "paper's hardware", "ours", "our hardware",
           "ours / paper", "note"]


def quick_thought_rows(bench: dict, hardware: str) -> list[dict]:
    """Logeswaran & Lee's appendix C: QT's speed-up over skip-thought (31 over 6.5 training hours for one epoch on a
    GTX Titan X) beside our throughput benchmark's (QT against exact- and sampled-softmax skip-thought, the mean of
    the repeats)."""
    from reproducer.report.efficiency import paper_speed_ratio, speed_ratios, speed_table

    ratios = np.array([speed_ratios(speed_table(runs)) for runs in bench.get("repeats", [bench["runs"]])])
    paper = paper_speed_ratio()
    rows = []
    for i, softmax in enumerate(("exact", "sampled")):
        ours = float(np.nanmean(ratios[:, i]))
        rows.append({"paper": "Logeswaran & Lee 2018", "figure": "Appendix C",
                     "quantity": f"speed-up of QT over skip-thought ({softmax} softmax here)",
                     "paper's value": paper, "paper's hardware": "GTX Titan X (one epoch of BookCorpus)",
                     "ours": ours, "our hardware": hardware, "ours / paper": ours / paper,
                     "note": f"mean of {len(ratios)} benchmark repeats; sentences per second"})
    return rows


def consensus_rows(records: dict[str, dict], hardware: str) -> list[dict]:
    """Tang & de Sa's Table 3: each variant's training hours relative to MV's (equal data), beside our training
    seconds per batch relative to MV's (``records``: variant → its training record)."""
    from reproducer.report.published import published

    hours = published("tang2019").query("task == 'training'").set_index("model")["value"]
    mv = records["MV"]["seconds"] / records["MV"]["step"]
    rows = []
    for variant in CONSENSUS_VARIANTS:
        if variant not in records:
            continue
        paper = hours[CONSENSUS_ROWS[variant]] / hours[CONSENSUS_ROWS["MV"]]
        ours = records[variant]["seconds"] / records[variant]["step"] / mv
        rows.append({"paper": "Tang & de Sa 2019", "figure": "Table 3 (training hours)",
                     "quantity": f"{variant}'s training time relative to MV's", "paper's value": paper,
                     "paper's hardware": "GPU (hours for the same data)", "ours": ours, "our hardware": hardware,
                     "ours / paper": ours / paper, "note": "seconds per batch, same batches for every variant"})
    return rows


def autoencoder_rows(timing: dict, hardware: str) -> list[dict]:
    """Zhang et al.'s section 4.4: minutes per 1000 batches of skip-thought on a GTX 1080 (the AAE's own figure is
    missing from the paper's text) beside ours for skip-thought, the AAE and the RAE on the same batches."""
    from reproducer.report.autoencoders import our_minutes, paper_timing

    paper = paper_timing()[0]
    ours = our_minutes(timing)
    skip = ours.get("skip-thought (uni)")
    sizes = timing.get("settings", {})
    ours_is = (f"ours: hidden {sizes['hidden']}, batch {sizes['batch_size']}, a far smaller model; "
               if {"hidden", "batch_size"} <= set(sizes) else "")
    rows = []
    for model, minutes in ours.items():
        reference = paper.get("skip-thought (TensorFlow)") if model.startswith("skip") else np.nan
        rows.append({"paper": "Zhang et al. 2018", "figure": "Section 4.4",
                     "quantity": f"minutes per 1000 batches, {model}", "paper's value": reference,
                     "paper's hardware": "GTX 1080 (TensorFlow skip-thought)" if model.startswith("skip") else "–",
                     "ours": minutes, "our hardware": hardware,
                     "ours / paper": minutes / reference if reference == reference else np.nan,
                     "note": (f"{skip / minutes:.2f}× skip-thought's speed here" if skip and not model.startswith("skip")
                              else ours_is + "the paper prints no AAE figure (its text leaves the number out)"
                              if model.startswith("skip") else "")})
    return rows


def hardware_table(preset: str = "default", root: str | Path = "results", hardware: str = "2-core CPU") -> pd.DataFrame:
    """Every paper timing the chapters measured at ``preset`` (:data:`COLUMNS`), read from ``root``; the chapters
    not yet run are left out. Raises when none has run."""
    root = Path(root)
    rows = []
    bench = read_json(root / "02_quick_thoughts" / preset / "throughput_benchmark.json")
    if bench:
        rows += quick_thought_rows(bench, hardware)
    records = {v: r for v in CONSENSUS_ROWS if (r := read_json(root / "04_consensus" / preset / f"{v}_training.json"))}
    if "MV" in records:
        rows += consensus_rows(records, hardware)
    timing = read_json(root / "05_mean_max_aae" / preset / "timing.json")
    if timing:
        rows += autoencoder_rows(timing, hardware)
    if not rows:
        raise ReproducerError(f"No timing of chapters 02, 04 or 05 at the {preset!r} preset under {root}: run them first.")
    return pd.DataFrame(rows, columns=COLUMNS)


def hardware_figure(table: pd.DataFrame):
    """Paper against ours for every row with both (log-log, the diagonal drawn: on it, our CPU reproduces the
    paper's ratio). Returns the figure."""
    import matplotlib.pyplot as plt

    both = table.dropna(subset=["paper's value", "ours"])
    fig, ax = plt.subplots(figsize=(6.5, 5))
    for paper, rows in both.groupby("paper", sort=False):
        ax.scatter(rows["paper's value"], rows["ours"], label=paper, s=40)
        for _, r in rows.iterrows():
            ax.annotate(r["quantity"].split(",")[0][:32], (r["paper's value"], r["ours"]), fontsize=7,
                        xytext=(3, 3), textcoords="offset points")
    low = min(both["paper's value"].min(), both["ours"].min()) / 1.5
    high = max(both["paper's value"].max(), both["ours"].max()) * 1.5
    ax.plot([low, high], [low, high], color="grey", lw=1, ls="--", label="ours = paper")
    ax.set(xscale="log", yscale="log", xlabel="the paper's figure (its GPU)", ylabel="ours (2-core CPU)",
           title="Timing figures: paper vs ours")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig

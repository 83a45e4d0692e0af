"""The GPU runs in the book: what the prepared plan (:mod:`reproducer.gpu_run`) brought back, committed under
``results/gpu/<date>/``, beside the CPU rows — or, until a GPU run exists, a sentence that says so.

Chapters 02 and 06 show: Logeswaran & Lee's Table 1 numbers for uni-QT, ours at the ``default`` sizes on the CPU and
ours at the ``paper`` sizes on the GPU (:func:`table1`), with the setting each was measured in (device, minutes,
epochs, precision: :func:`caption`), and the bench of every objective on the GPU (:func:`bench_table`).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from reproducer.files import read_json, stored_json
from reproducer.gpu_plans import PLANS

#: The tasks and metrics of Logeswaran & Lee's Table 1 (as chapter 02's ``TABLE1_COLUMNS``).
TABLE1 = [("MR", "acc"), ("CR", "acc"), ("SUBJ", "acc"), ("MPQA", "acc"), ("TREC", "acc"), ("MRPC", "acc"),
          ("MRPC", "f1"), ("SICK-R", "pearson"), ("SICK-R", "spearman"), ("SICK-R", "mse")]


def runs(root: str | Path) -> list[Path]:
    """The committed GPU runs (``<root>/gpu/<date>/plan.json``, plain or compressed), oldest first."""
    folder = Path(root) / "gpu"
    return sorted(p for p in folder.iterdir() if stored_json(p / "plan.json")) if folder.is_dir() else []


def latest(root: str | Path) -> dict | None:
    """The newest GPU run's record (``plan.json`` with its folder as ``"folder"``), or ``None`` when there is none."""
    found = runs(root)
    if not found:
        return None
    return {**read_json(found[-1] / "plan.json"), "folder": str(found[-1])}


def empty_state(root: str | Path) -> str:
    """The sentence a chapter shows while no GPU run is committed: what the plan would do and, from our FLOP counts
    (``results/bench/epoch_paper.json``), how much of our corpus its budget covers."""
    plan = PLANS["paper"]
    epoch = {r["model"]: r for r in read_json(Path(root) / "bench" / "epoch_paper.json") or []}
    qt, planned = epoch.get("uni-QT"), plan.models[0]
    cost = (f" One epoch of our corpus at those sizes is {qt['tflop_per_epoch']:,.0f} TFLOP of useful work "
            "(`python -m reproducer bench epoch`)" if qt else "")
    if qt and qt.get("batches_per_epoch"):
        cost += f"; uni-QT's {planned.steps:,} steps are {planned.steps / qt['batches_per_epoch']:.2f} of an epoch"
    cost += "." if cost else ""
    models = ", ".join(f"{m.name} ({m.steps:,} steps)" for m in plan.models)
    return ("**No GPU run yet.** Every number above was measured on 2 CPU cores with models narrower than the papers' (uni-QT: GRUs of 300 against 1,200). "
            "The prepared plan (`make gpu-pack` here, then `sh scripts/gpu_run.sh` on a GPU machine: README, *Running "
            f"the paper presets on a GPU*) trains {models} at the paper's sizes on one GPU and scores each with the "
            "`paper` protocol on its paper's main table." + cost + " When its results are committed under "
            "`results/gpu/<date>/`, they appear here beside the CPU rows.")


def caption(record: dict) -> str:
    """Where and how the GPU rows were measured: device, date, and per trained model its minutes, steps, epochs and
    precision."""
    env = record["environment"]
    models = "; ".join(f"{m['model']} at `{m['preset']}` sizes: {m['training_seconds'] / 60:.1f} training minutes, "
                       f"{m['steps']:,} steps of {m['settings']['batch_size']} = {m['epochs']:.2f} epochs of our "
                       f"corpus, {m['precision']}" for m in record.get("models", []))
    return (f"**On a GPU** ({env.get('gpu', env['device'])}, torch {env['torch']}, {record['started']}; "
            f"`{Path(record['folder']).name}`): {models or 'no model finished'}. Same corpus, same protocol (`paper`) "
            "as the CPU rows.")


def table1_beside_gpu(record: dict, ours_cpu: dict[str, dict], cpu_preset: str) -> pd.DataFrame:
    """For each model the GPU run trained: Table 1's cells as rows, with the paper's number, ours on the CPU at
    ``cpu_preset`` (``ours_cpu[model]``: a :class:`~reproducer.evaluate.harness.Results` JSON's ``results``, or
    missing), ours on the GPU at the paper's sizes, and GPU − paper."""
    from reproducer.report.published import published

    rows = []
    for model in record.get("models", []):
        name = model["model"]
        paper = published("logeswaran2018", name)
        if paper.empty:  # another paper's model (chapters 04 and 05 show theirs)
            continue
        cpu = ours_cpu.get(name) or {}
        for task, metric in TABLE1:
            theirs = paper[(paper["task"] == task) & (paper["metric"] == metric)]["value"]
            gpu = model["scores"].get(task, {}).get(metric)
            value = float(theirs.iloc[0]) if len(theirs) else None
            rows.append({"model": name, "task": task, "metric": metric, "paper": value,
                         f"ours, CPU ({cpu_preset})": cpu.get(task, {}).get(metric), "ours, GPU (paper sizes)": gpu,
                         "GPU − paper": None if gpu is None or value is None else gpu - value})
    return pd.DataFrame(rows)


def bench_table(record: dict) -> pd.DataFrame:
    """The GPU bench: one row per objective and preset — sentences/s (overall and after start-up), useful TFLOP/s, % of
    the bf16 matrix-product rate measured in the same process, peak GPU memory; an error in place of a failed one."""
    rows = []
    for r in record.get("bench") or []:
        if "error" in r:
            rows.append({"preset": r["preset"], "objective": r["objective"], "error": r["error"]})
            continue
        rows.append({"preset": r["preset"], "objective": r["objective"], "model": r["variant"], "batch": r["batch_size"],
                     "steps": r["steps"], "sentences/s": r["sentences_per_second"],
                     "after start-up": r.get("steady_sentences_per_second"), "TFLOP/s": r["gflops_per_second"] / 1e3,
                     "% of bf16 peak": r["percent_of_peak"], "memory (GiB)": r["peak_memory_bytes"] / 2**30})
    return pd.DataFrame(rows)


def gap_summary(table: pd.DataFrame, cpu_preset: str) -> str:
    """What the GPU rows of :func:`table1_beside_gpu` say, one line per model: the mean difference to the paper over
    Table 1's accuracies of our CPU row (at ``cpu_preset``) and of the GPU row at the paper's sizes, the share of the
    CPU row's shortfall the GPU run closes, and SICK-R's Pearson r of the three; empty where a model lacks the
    numbers."""
    cpu, gpu = f"ours, CPU ({cpu_preset})", "ours, GPU (paper sizes)"
    lines = []
    for model, rows in table.groupby("model", sort=False):
        acc = rows[rows.metric == "acc"].dropna(subset=["paper", cpu, gpu])
        if acc.empty:
            continue
        cpu_gap, gpu_gap = (acc[cpu] - acc["paper"]).mean(), (acc[gpu] - acc["paper"]).mean()
        line = (f"- **{model}**, Table 1's {len(acc)} accuracies: our CPU row (`{cpu_preset}`) is {cpu_gap:+.1f} "
                f"points from the paper on average, the GPU row at the paper's sizes {gpu_gap:+.1f}")
        if cpu_gap < 0:
            line += f", so the GPU run closes {1 - gpu_gap / cpu_gap:.0%} of the CPU row's shortfall"
        sick = rows[(rows.task == "SICK-R") & (rows.metric == "pearson")].dropna(subset=["paper", cpu, gpu])
        if len(sick):
            s = sick.iloc[0]
            line += (f"; SICK-R Pearson r {s[cpu]:.3f} on the CPU, {s[gpu]:.3f} on the GPU, {s['paper']:.3f} in the "
                     "paper")
        lines.append(line + ".")
    return "\n".join(lines)

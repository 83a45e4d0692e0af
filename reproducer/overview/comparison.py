"""Chapter 06's one table: every model of the book (:data:`reproducer.papers.registry.MODELS`) with the scores its chapter
computed at one preset, read from ``results/`` (nothing is trained or encoded here), beside the papers' numbers.

- :func:`evaluation_of`: a model's cached :class:`~reproducer.evaluate.harness.Results` and where it came from.
- :func:`one_table`: one row per model with scores — paper, chapter, protocol, training seconds and sentences seen,
  then the main score of every task (accuracy %, correlations × 100; empty where the chapter did not score it).
- :func:`paper_vs_ours`: every (model, task) pair with a published number, ours beside it (the scatter's data).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reproducer.evaluate import Results
from reproducer.evaluate.tasks import TASKS as ALL
from reproducer.evaluate.tasks import points_scale
from reproducer.files import read_json, stored_json
from reproducer.papers.registry import DECLARATIONS, MODELS, PAPERS, published_names
from reproducer.results_store import slug
from reproducer.report.plots import legend_below
from reproducer.report.units import eval_key

#: The tasks of the one table, in order (SentEval's transfer tasks, then STS).
TASKS = ("MR", "CR", "SUBJ", "MPQA", "TREC", "SST2", "MRPC", "SICK-E", "SICK-R", "STS12", "STS13", "STS14", "STS15",
         "STS16", "STSB")


def evaluation_of(model, preset: str = "default", root: str | Path = "results"):
    """``(results, file)`` for a :class:`~reproducer.declarations.Model`: its chapter's cached evaluation at ``preset``
    (chapter 00b's ``<name>.json``; the row and part its declaration's ``scored_as`` names, e.g. chapter 04's Table 6
    row; else ``eval_<name>.json``), or ``(None, None)`` when its chapter did not evaluate it on the tasks."""
    folder = Path(root) / model.chapter / preset
    if not model.scored:
        return None, None
    if model.family == "baseline":
        path = folder / f"{slug(model.name)}.json"
        found = read_json(path)
    elif model.scored_as:
        row, part, _ = model.scored_as
        path = folder / f"{eval_key(row)}.json"
        found = (read_json(path) or {}).get(part)
    else:
        path = folder / f"{eval_key(model.name)}.json"
        found = read_json(path)
    if not found or "results" not in found:
        return None, None
    return Results.from_json(found), path


def training_of(model, preset: str = "default", root: str | Path = "results") -> dict:
    """Training seconds, sentences (examples) seen and trainable parameters of ``model`` from its chapter's training
    records (a combination sums its parts; parameters are missing from records written before they were recorded);
    empty for a baseline or a model without a record."""
    folder = Path(root) / model.chapter / preset
    names = model.parts or (model.name,)
    records = [read_json(folder / f"{slug(n)}_training.json") for n in names]
    if model.family == "baseline" or not all(records):
        return {}
    return {"training seconds": sum(r["seconds"] for r in records),
            "sentences seen": sum(r.get("examples", np.nan) for r in records),
            "parameters": sum(r.get("parameters") or np.nan for r in records),
            "dimension": sum(r.get("dim") or np.nan for r in records)}  # chapter 02's records carry the vector size


def one_table(preset: str = "default", root: str | Path = "results", tasks=TASKS) -> pd.DataFrame:
    """One row per model of the book whose chapter scored it at ``preset``: paper, chapter, protocol, vector size
    (``dimension``, when its results record it), trainable parameters, training seconds, sentences seen and each of
    ``tasks``' main score in points (accuracy %, correlations × 100), indexed by model name."""
    rows = []
    for model in MODELS.values():
        results, path = evaluation_of(model, preset, root)
        if results is None:
            continue
        main = results.main_scores()
        row = {"model": model.name, "paper": PAPERS.get(model.paper, "baseline"), "chapter": model.chapter,
               "protocol": results.config, **training_of(model, preset, root)}
        row["dimension"] = results.dim or row.get("dimension", np.nan)
        for task in tasks:
            value = main.get(task, np.nan)
            row[task] = float(value) * points_scale(task)
        rows.append(row)
    front = ["paper", "chapter", "protocol", "dimension", "parameters", "training seconds", "sentences seen"]
    table = pd.DataFrame(rows, columns=["model", *front, *tasks]).set_index("model")
    return table[front + list(tasks)]


def paper_vs_ours(table: pd.DataFrame) -> pd.DataFrame:
    """Every (model, task) of ``table`` (:func:`one_table`) with a published number for that task's main metric
    (:func:`~reproducer.report.published.published`, the model's published names; the model's own paper first, else
    the first table that prints it; chapter 04's MV ensemble against the paper's closest setting): model, task, paper
    (the publication, cited), published and ours in points, and their difference."""
    from reproducer.report.published import published

    rows = []
    for model in table.index:
        declared = MODELS.get(model)
        names = [declared.scored_as[2]] if declared and declared.scored_as else published_names(model)
        printed = published(model=names)
        own = declared.paper if declared else None
        printed = printed.assign(own=printed.paper == own).sort_values("own", ascending=False, kind="stable")
        for task in table.columns.intersection(list(ALL)):
            metric = ALL[task].main_metric
            match = printed[(printed.task == task) & (printed.metric == metric)]
            ours = table.loc[model, task]
            if match.empty or not np.isfinite(ours):
                continue
            value = float(match.value.iloc[0])
            value = value if metric == "acc" or abs(value) > 1 else 100 * value  # correlations in points
            rows.append({"model": model, "task": task, "paper": PAPERS.get(match.paper.iloc[0], match.paper.iloc[0]),
                         "published": value,
                         "ours": ours, "diff": ours - value})
    return pd.DataFrame(rows, columns=["model", "task", "paper", "published", "ours", "diff"])


def paper_vs_ours_figure(pairs: pd.DataFrame):
    """Published against ours for every (model, task) pair, one colour per paper, the diagonal drawn (on it, ours
    equals the paper's). Returns the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 6))
    for paper, rows in pairs.groupby("paper", sort=False):
        ax.scatter(rows["published"], rows["ours"], s=18, alpha=0.8, label=paper)
    low = float(np.nanmin(pairs[["published", "ours"]].values)) - 5
    high = float(np.nanmax(pairs[["published", "ours"]].values)) + 5
    ax.plot([low, high], [low, high], color="grey", lw=1, ls="--", label="ours = paper")
    ax.set(xlim=(low, high), ylim=(low, high), xlabel="published (points)", ylabel="ours (points)",
           title=f"Paper vs ours: {len(pairs)} (model, task) pairs")
    legend_below(ax, ncol=2)
    fig.tight_layout()
    return fig


def best() -> dict[str, tuple[str, str]]:
    """The encoder of each paper shown side by side in the explorer (its declaration's ``neighbours``: its headline
    model; all search the same held-out Gutenberg pool): paper's citation -> (chapter, encoder). Chapter 03's models
    are searched on STS sentences instead (its own explorer), so the paraphrastic paper declares none."""
    return {p.citation: (p.chapter, p.neighbours) for p in DECLARATIONS.values() if p.neighbours}


def best_neighbours(preset: str = "default", root: str | Path = "results", chosen: dict | None = None) -> pd.DataFrame:
    """The cached neighbour tables (``neighbours_<encoder>.csv``, or a chapter's ``neighbours.csv`` of all its
    encoders) of each paper's encoder in ``chosen`` (default :func:`best`) at ``preset``, on the queries they all share,
    the encoder labelled with its paper; the chapters without one are left out (compare the labels with ``chosen``).
    Empty when none has one."""
    frames = []
    for paper, (chapter, encoder) in (chosen or best()).items():
        folder = Path(root) / chapter / preset
        found = [p for p in (folder / f"neighbours_{slug(encoder)}.csv", folder / "neighbours.csv") if stored_json(p)]
        frame = pd.read_csv(stored_json(found[0])) if found else pd.DataFrame(columns=["encoder"])
        if (frame["encoder"] == encoder).any():
            frames.append(frame[frame["encoder"] == encoder].assign(encoder=f"{encoder} ({paper})"))
    if not frames:
        return pd.DataFrame(columns=["query", "encoder", "rank", "neighbour", "cosine"])
    shared = set.intersection(*(set(f["query"]) for f in frames))
    order = [q for q in dict.fromkeys(frames[0]["query"]) if q in shared]
    out = pd.concat(frames, ignore_index=True)
    out = out[out["query"].isin(shared)]
    out["query"] = pd.Categorical(out["query"], categories=order, ordered=True)
    return out.sort_values(["query"], kind="stable").assign(query=lambda f: f["query"].astype(str)).reset_index(drop=True)

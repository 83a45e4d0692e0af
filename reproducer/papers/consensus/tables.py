"""The tables and figures of the multi-view study (Tang & de Sa 2019, chapter 04): our numbers next to the paper's,
from the results a notebook stored (training logs, :mod:`reproducer.evaluate.views` records).

- :func:`training_table`: the variants' training runs (steps, time, log_table, final loss, learned τ).
- :func:`figure1_frame` / :func:`plot_figure1`: U of each view during training, multi-view against single-view.
- :func:`paper_table3`: Table 3's published columns (U, S, B, MRPC, hours) per row of ours.
- :func:`readings_table`: U under both readings of Eq. 1 (is a sentence its own candidate?).
- :func:`table4`, :func:`table5`, :func:`table6`: unsupervised similarity per dataset, STS14 alone, supervised
  transfer — ours, our earlier chapters' models (:func:`earlier_sts14`, :func:`earlier_transfer_rows`) and the
  paper's.
- :func:`consensus_rows` / :func:`timing_rows`: chapter 06's hardware rows (Table 3's training hours).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reproducer.errors import ReproducerError
from reproducer.evaluate.harness import Results
from reproducer.files import read_json
from reproducer.papers import registry
from reproducer.report.plots import legend_below
from reproducer.report.published import published
from reproducer.report.tables import log_table, paper_table

PAPER = registry.paper("tang2019")  # this chapter's declaration (reproducer/papers/consensus/__init__.py)

#: Figure 1's runs: SV-g before SV-f (SV f's ensemble borrows SV g at the same step).
CURVES = ("MV", "SV-g", "SV-f")
#: The metrics of the MV-vs-SV claims.
METRICS = ["U", "S", "B", "MRPC acc"]
#: Table 6's tasks (SICK-R: Pearson × 100; the others: accuracy), then MRPC's F1.
T6 = ["SICK-R", "SICK-E", "MRPC", "TREC", "MR", "CR", "SUBJ", "MPQA", "SST2"]
#: Our row of Table 6 (the paper's multi-view rows are ensembles), scored at the preset's ``eval_config``.
TRANSFER_ROW = "MV ensemble"
#: The paper's Table 6 rows we show, in order.
T6_PAPER_ROWS = ["InferSent", "GloVe+WR", "fastText+bow", "FastSent", "Skip-thought", "MC-QT", "Multi-view D1",
                 "Multi-view D2", "Multi-view D3"]
#: Our earlier models in Table 6: chapter and the training runs behind each (combine-skip = uni-skip + bi-skip).
EARLIER = {"combine-skip": ("01_skip_thoughts", ["uni-skip", "bi-skip"]), "uni-QT": ("02_quick_thoughts", ["uni-QT"]),
           "bi-QT": ("02_quick_thoughts", ["bi-QT"]), "MC-QT": ("02_quick_thoughts", ["MC-QT"])}


def training_table(training: dict[str, dict], epoch: int, variants: dict):
    """One row per variant's training record (``TrainLog.to_dict()`` plus ``tau``): its agreement (from ``variants``,
    :data:`~reproducer.papers.consensus.objective.VARIANTS`), steps, seconds, log_table, share of an ``epoch`` of
    sentences, final loss and learned τ (:func:`~reproducer.report.tables.log_table`); a formatted Styler."""
    frame = log_table(training, extra={"learned τ": "tau"})
    frame.insert(0, "agreement a_ij", [variants[name].description for name in frame.index])
    frame.insert(4, "share of one epoch", [training[name]["examples"] / epoch for name in frame.index])
    return frame.style.format({"steps": "{:,.0f}", "training seconds": "{:,.0f}", "sentences / second": "{:,.0f}",
                               "share of one epoch": "{:.1%}", "final loss": "{:.3f}", "learned τ": "{:.3f}"})


def figure1_frame(training: dict[str, dict], runs=CURVES) -> pd.DataFrame:
    """Figure 1's points: ``step``, ``seconds``, ``curve`` (``"MV f"``, ``"SV ensemble"``, ...) and ``U`` from the
    evaluation records of the ``runs``. The SV ensemble's seconds are those of SV f plus SV g up to that step (the
    cost of the pair)."""
    rows = [{"step": e["step"], "seconds": e["seconds"], "curve": f"{'MV' if name == 'MV' else 'SV'} {view}",
             "U": e[f"{view}.U"]}
            for name in runs for e in training[name]["evals"] for view in ("f", "g", "ensemble") if f"{view}.U" in e]
    fig1 = pd.DataFrame(rows)
    g_seconds = {e["step"]: e["seconds"] for e in training["SV-g"]["evals"]}
    pair = fig1.curve == "SV ensemble"
    fig1.loc[pair, "seconds"] += fig1.loc[pair, "step"].map(g_seconds)
    return fig1


def plot_figure1(fig1: pd.DataFrame):
    """Figure 1 from :func:`figure1_frame`: U against training seconds, multi-view solid, single-view dashed, one
    colour per view (f, g, ensemble). Returns the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    palette = {"MV f": "C0", "MV g": "C1", "MV ensemble": "C2", "SV f": "C0", "SV g": "C1", "SV ensemble": "C2"}
    for name, group in fig1.groupby("curve"):
        ax.plot(group.seconds, group.U, marker="o", color=palette[name], ls="-" if name.startswith("MV") else "--",
                label=name)
    ax.set(xlabel="training seconds (2 CPU cores)", ylabel="mean r × 100 (STS12-16, SICK)",
           title="Figure 1: multi-view (solid) vs single-view (dashed)")
    legend_below(ax)
    return fig


def paper_table3(rows) -> pd.DataFrame:
    """The paper's Table 3 as our columns — ``U``, ``S`` (mean Pearson × 100), ``B`` (mean accuracy), ``MRPC acc``,
    ``MRPC F1``, training ``hours`` — for our ``rows`` (our row names are the paper's)."""
    paper = paper_table(PAPER.key, "Table 3", columns=["task", "metric"])
    return pd.DataFrame({"U": paper["U", "mean.pearson"], "S": paper["S", "mean.pearson"], "B": paper["B", "mean.acc"],
                         "MRPC acc": paper["MRPC", "acc"], "MRPC F1": paper["MRPC", "f1"],
                         "hours": paper["training", "hours"]}).reindex(rows)


def readings_table(ours3: pd.DataFrame, other: dict[str, float], self_pairs: bool) -> pd.DataFrame:
    """U of MV f, g, ensemble and of SV f, g and their ensemble under Table 3's reading of Eq. 1 (``self_pairs``, from
    ``ours3``) and under the other one (``other``: name -> U), with the MV − SV gap of the ensembles."""
    rows_as = {"MV f": "MV f", "MV g": "MV g", "MV ensemble": "MV ensemble", "SV f": "SV-f f", "SV g": "SV-g g",
               "SV ensemble": "ens(SV-f f, SV-g g)"}
    readings = pd.DataFrame({f"self pairs = {self_pairs} (Table 3)": {k: ours3.loc[v, "U"] for k, v in rows_as.items()},
                             f"self pairs = {not self_pairs}": other})
    readings.loc["MV − SV (ensembles)"] = readings.loc["MV ensemble"] - readings.loc["SV ensemble"]
    return readings


def paper_table4(tasks: list[str]) -> pd.DataFrame:
    """The paper's Table 4 (Pearson r × 100 per dataset, and the average) for the multi-view models and baselines."""
    paper4 = paper_table(PAPER.key, "Table 4", index="task", columns="model")
    average = paper4.loc["U"]
    paper4 = paper4.drop(index="U") * 100
    paper4.loc["average"] = average
    return paper4.reindex(tasks + ["average"])[["Multi-view D1", "Multi-view D2", "Multi-view D3", "fastText avg",
                                                "fastText WR", "GloVe UP", "InferSent"]]


def table4(ours: dict[str, dict], tasks: list[str]) -> pd.DataFrame:
    """Table 4: Pearson r × 100 per dataset of ``tasks`` and the average, for ``ours`` (column name -> a
    ``Results.to_json()`` record) next to the paper's columns, with the MV ensemble's difference to the paper's
    closest setting (D1, BookCorpus: books, like our Gutenberg corpus)."""
    ours4 = 100 * pd.DataFrame({name: Results.from_json(r).main_scores() for name, r in ours.items()}).loc[tasks]
    ours4.loc["average"] = ours4.mean()
    table = ours4.join(paper_table4(tasks).add_suffix(" (paper)"))
    table["MV ensemble − Multi-view D1"] = table["MV ensemble (ours)"] - table["Multi-view D1 (paper)"]
    return table


def earlier_sts14(run, names=("uni-QT", "bi-QT", "BoW-QT", "MC-QT"), chapter: str = "02_quick_thoughts"
                  ) -> dict[str, float]:
    """STS14 Pearson r × 100 of chapter 02's models that ``run`` (a :class:`~reproducer.results_store.NotebookRun`)
    finds at its preset, as ``"<name> (ours, ch. 02)"``; models not evaluated there are left out."""
    out = {}
    for name in names:
        try:
            record = run.earlier(chapter, f"eval_{name}")
        except ReproducerError:
            continue
        out[f"{name} (ours, ch. {chapter[:2]})"] = 100 * record["results"]["STS14"]["wmean.pearson"]
    return out


def table5(table4: pd.DataFrame, earlier: dict[str, float]) -> pd.DataFrame:
    """Table 5: STS14 alone — our MV views (from :func:`table4`), our ``earlier`` models and the paper's rows."""
    paper = published(PAPER.key).query("table == 'Table 5'").set_index("model").value
    return pd.Series({**{f"MV {v} (ours)": table4.loc["STS14", f"MV {v} (ours)"] for v in ("f", "g", "ensemble")},
                      **earlier, **{f"{m} (paper)": 100 * v for m, v in paper.items()}},
                     name="STS14 Pearson r x 100").to_frame()


def transfer_row(results: dict, training) -> dict:
    """A row of Table 6 from our ``Results.to_json()`` record: the ``training`` time, SICK-R Pearson × 100, the other
    tasks' accuracy and MRPC F1 (NaN for tasks not evaluated)."""
    r = results["results"]
    row = {t: (100 * r[t]["pearson"] if t == "SICK-R" else r[t]["acc"]) if t in r else np.nan for t in T6}
    row["MRPC F1"] = r["MRPC"]["f1"] if "MRPC" in r else np.nan
    return {"training": training, **row}


def earlier_transfer_rows(run, earlier: dict = EARLIER) -> dict[str, dict]:
    """:func:`transfer_row` of our earlier chapters' models that ``run`` finds at its preset (``earlier``: name ->
    (chapter, training runs)), with the minutes of the training runs found; models not evaluated are left out."""
    rows = {}
    for name, (chapter, runs) in earlier.items():
        try:
            record = run.earlier(chapter, f"eval_{name}")
        except ReproducerError:
            continue
        seconds = 0
        for part in runs:
            try:
                seconds += run.earlier(chapter, f"{part}_training")["seconds"]
            except ReproducerError:
                pass
        rows[f"{name} (ours, ch. {chapter[:2]})"] = transfer_row(record, seconds / 60)
    return rows


def paper_transfer_rows(models=T6_PAPER_ROWS) -> dict[str, dict]:
    """The paper's Table 6 rows (``"<model> (paper)"``) in :func:`transfer_row`'s columns; training in hours."""
    rows = {}
    for model, group in published(PAPER.key).query("table == 'Table 6'").groupby("model", sort=False):
        v = group.set_index(["task", "metric"]).value
        row = {t: (100 * v.get((t, "pearson"), np.nan) if t == "SICK-R" else v.get((t, "acc"), np.nan)) for t in T6}
        rows[f"{model} (paper)"] = {"training": v.get(("training", "hours"), np.nan), **row,
                                    "MRPC F1": v.get(("MRPC", "f1"), np.nan)}
    return {f"{m} (paper)": rows[f"{m} (paper)"] for m in models}


def table6_note() -> str:
    """The note under Table 6 (Markdown): which of the paper's numbers it prints as bounds (e.g. InferSent's "<24"
    hours, stored as 24), read from the settings of the published rows."""
    rows = published(PAPER.key).query("table == 'Table 6'")
    bounds = rows[rows.setting.str.contains("upper bound")]
    return "" if bounds.empty else "The paper prints " + "; ".join(
        f"{r.model}'s {r.task} ({r.metric}) as < {r.value:g}" for r in bounds.itertuples()) + \
        ": an upper bound, shown here as its value."


def table6(ours: dict[str, dict]) -> pd.DataFrame:
    """Table 6: ``ours`` (row name -> :func:`transfer_row`, training in minutes) then the paper's rows (hours), and
    the MV ensemble's difference to the paper's closest setting, D1 (not for the training time)."""
    table = pd.DataFrame({**ours, **paper_transfer_rows()}).T[["training", *T6, "MRPC F1"]]
    table.loc["MV ensemble − Multi-view D1"] = (table.loc["MV ensemble (ours)"]
                                                - table.loc["Multi-view D1 (paper)"]).where(table.columns != "training")
    return table.rename(columns={"training": "training (ours: min; paper: h)"})


#: Chapter 04's variants timed against MV (Tang & de Sa Table 3's training hours, equal data for every variant).
CONSENSUS_VARIANTS = ("SV-f", "SV-g", "MV-ff", "MV-gg")
#: Table 3's model row whose training hours stand for each variant.
CONSENSUS_ROWS = {"MV": "MV ensemble", "SV-f": "SV-f f", "SV-g": "SV-g g", "MV-ff": "MV-ff ensemble",
                  "MV-gg": "MV-gg ensemble"}


def consensus_rows(records: dict[str, dict], hardware: str) -> list[dict]:
    """Tang & de Sa's Table 3: each variant's training hours relative to MV's (equal data), beside our training
    seconds per batch relative to MV's (``records``: variant → its training record)."""
    hours = published(PAPER.key).query("task == 'training'").set_index("model")["value"]
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


def timing_rows(folder, hardware: str) -> list[dict]:
    """Chapter 06's hardware rows of this paper (:func:`consensus_rows`) from the training records in the chapter's
    results ``folder``; none before MV has trained."""
    records = {v: r for v in CONSENSUS_ROWS if (r := read_json(Path(folder) / f"{v}_training.json"))}
    return consensus_rows(records, hardware) if "MV" in records else []

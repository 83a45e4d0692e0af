"""Zhang et al. (2018) against our mean-max autoencoders: the chapter's tables and figures.

- Table 1 (:func:`table1`): our mean-max AAE, the paper's row, and the earlier chapters' models read from ``results/``,
  in the paper's columns (:data:`TABLE1`, from Conneau et al. 2017);
- Table 2 (:func:`table2`): macro and micro averages over the paper's task sets
  (:func:`~reproducer.papers.mean_max_aae.averages.task_averages`) next to the printed ones;
- Table 3 (:func:`variant_rows`, :func:`paper_variant_rows`): the six pooling × architecture variants;
- training and timing (:func:`training_table`, :func:`timing_table`, :func:`model_sizes`) and the figures (Figure 2:
  :func:`figure2`);
- the timing study (:func:`timing`, repeated for its noise) and chapter 06's hardware rows (:func:`timing_rows`).

The claims are :mod:`~reproducer.papers.mean_max_aae.claims`; the models,
:mod:`~reproducer.papers.mean_max_aae.chapter`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from reproducer.encoders.attention import AAEConfig
from reproducer.encoders.recurrent import RecurrentConfig
from reproducer.errors import ReproducerError
from reproducer.files import read_json, stored_json
from reproducer.results_store import slug
from reproducer.papers.mean_max_aae.averages import TASK_SETS, task_averages
from reproducer.papers.mean_max_aae.objective import MeanMaxAAE
from reproducer.papers.mean_max_aae.chapter import PAPER, trainable
from reproducer.papers.skip_thoughts.objective import SkipThought, SkipThoughtConfig
from reproducer.report.plots import curves as loss_curves
from reproducer.report.plots import score_curves
from reproducer.report.tables import paper_table

#: Zhang et al.'s Table 1 columns: column -> (task, metric) in our results and in ``published.csv``.
TABLE1 = {"MR": ("MR", "acc"), "CR": ("CR", "acc"), "SUBJ": ("SUBJ", "acc"), "MPQA": ("MPQA", "acc"),
          "SST2": ("SST2", "acc"), "TREC": ("TREC", "acc"), "MRPC": ("MRPC", "acc"), "MRPC F1": ("MRPC", "f1"),
          "SICK-E": ("SICK-E", "acc"), "SICK-R": ("SICK-R", "pearson"), "STS14 r": ("STS14", "wmean.pearson"),
          "STS14 ρ": ("STS14", "wmean.spearman")}
#: The correlation columns (shown with three decimals; the rest are accuracies in %).
CORRELATIONS = ["SICK-R", "STS14 r", "STS14 ρ"]
#: The 8 tasks of the paper's main average.
EIGHT = ("MR", "CR", "SUBJ", "MPQA", "SST2", "TREC", "MRPC", "SICK-E")
#: Chapter 00b's baselines in Table 1: our result file -> (our row, the paper's row or None).
BASELINES = {"word2vec-bow": ("word2vec avg (ours, ch. 00b)", "word2vec BOW"),
             "glove-bow": ("GloVe-50d avg (ours, ch. 00b)", "GloVe BOW"),
             "sif-glove": ("GloVe-50d SIF (ours, ch. 00b)", "SIF (GloVe + WR)"),
             "minilm": ("all-MiniLM-L6-v2 (ours, ch. 00b)", None)}
#: The models of the timing study (``reproducer.bench`` objectives) by their names here.
TIMED = {"aae": "mean-max AAE", "rae": "mean-max RAE", "skip_thought": "skip-thought (uni)"}


def transfer_row(results) -> dict:
    """One row in the :data:`TABLE1` columns from our results (task -> metric -> value, as ``Results.to_json()``'s
    ``results``) or from a published row (a Series indexed by (task, metric)); NaN where a score is missing."""
    def get(task, metric):
        if isinstance(results, pd.Series):
            return results.get((task, metric), np.nan)
        return results.get(task, {}).get(metric, np.nan)

    return {column: get(*key) for column, key in TABLE1.items()}


def set_averages(row) -> dict:
    """The macro and micro averages of a row's 8 task accuracies over the paper's task sets, keyed (set, kind)."""
    frame = task_averages({t: row[t] for t in EIGHT})
    return {(s, kind): frame.loc[s, kind] for s in TASK_SETS for kind in ("macro", "micro")}


def paper_rows() -> pd.DataFrame:
    """The paper's Table 3 and Table 1 rows, one per model, columns (task, metric)."""
    return paper_table(PAPER.key, ["Table 3", "Table 1"], columns=["task", "metric"])


def earlier_neighbours(run, chapter: str, name: str) -> pd.DataFrame:
    """Model ``name``'s neighbour table stored by an earlier ``chapter`` in the folder of the same name as ``run``'s
    (:meth:`~reproducer.report.units.ModelProducts.neighbours`; the same queries and pool when both chapters draw them
    alike), or an empty table."""
    found = stored_json(run.earlier_path(chapter, f"neighbours_{slug(name)}.csv", same_seed=True))
    return pd.read_csv(found) if found else pd.DataFrame(columns=["query", "encoder", "rank", "neighbour", "cosine"])


def earlier_json(run, chapter: str, name: str) -> dict | None:
    """:meth:`run.earlier <reproducer.results_store.NotebookRun.earlier>`, or ``None`` when that chapter has not been
    run at this preset (its rows are then left out)."""
    try:
        return run.earlier(chapter, name)
    except ReproducerError:
        return None


def timing(settings, seconds: float, books: int, seed: int = 0, repeats: int = 1) -> dict:
    """The timing study: the mean-max AAE, the mean-max RAE and uni-skip at the preset's widths, each trained for
    ``seconds`` on ``books`` books in its own process (:func:`~reproducer.papers.widths.bench_widths`), the whole
    repeated
    ``repeats`` times (seeds ``seed``, ``seed + 1``, …): ``{"runs": the first repeat's runs, "repeats": [...],
    "settings": the study's widths}``."""
    from reproducer.papers.widths import bench_widths

    out = [bench_widths(["aae", "rae", "skip_thought"], hidden=settings.d_model, word_dim=settings.word2vec_dim,
                        vocab_size=settings.vocab_size, seconds=seconds, max_books=books, seed=seed + r,
                        batch_size=settings.batch_size) for r in range(repeats)]
    return {"runs": out[0]["runs"], "repeats": [o["runs"] for o in out], "settings": out[0]["settings"]}


def timing_sizes(timing: dict, settings=None) -> dict[str, dict[str, int]]:
    """Each timed model's trainable parameters with and without its learned word embeddings (skip-thought learns
    its words; the autoencoders read fixed vectors), the count Zhang et al. compare (section 4.4: "excluding the
    number of parameters used in the word embeddings, the skip-thought model ... contains 40 million parameters,
    while our mean-max AAE has approximately 39 million"): from the record, or, for records that predate the split,
    counted on the models built at the chapter's ``settings`` (its widths, which the study used) or at the record's
    own ``settings``."""
    from reproducer.papers.widths import parameter_counts

    study = timing.get("settings", {})
    widths = ((settings.d_model, settings.word2vec_dim, settings.vocab_size) if settings is not None
              else (study.get("hidden"), study.get("word_dim"), study.get("vocab_size")))
    sizes = {}
    for r in timing["runs"]:
        if "word_embedding_parameters" not in r and None in widths:
            raise ReproducerError("The timing record has no word-embedding counts and no widths: pass the chapter's "
                                  "settings.")
        counts = ({k: r[k] for k in ("parameters", "word_embedding_parameters")} if "word_embedding_parameters" in r
                  else parameter_counts(r["objective"], *widths))
        if counts["parameters"] != r["parameters"]:
            raise ReproducerError(f"{r['objective']}: {counts['parameters']:,} parameters at the chapter's widths, "
                                  f"{r['parameters']:,} in the timing record: pass the settings it was timed at.")
        sizes[TIMED[r["objective"]]] = {**counts, "without word embeddings": counts["parameters"]
                                        - counts["word_embedding_parameters"]}
    return sizes


def countable(timing: dict) -> bool:
    """Whether :func:`timing_sizes` can count the record ``timing`` on its own (each run carries its word-embedding
    count, or the record names the widths it was timed at), without the chapter's settings."""
    study = timing.get("settings", {})
    return all("parameters" in r for r in timing["runs"]) and (
        all("word_embedding_parameters" in r for r in timing["runs"])
        or None not in (study.get("hidden"), study.get("word_dim"), study.get("vocab_size")))


def table1(ours: dict, paper: pd.DataFrame, run) -> pd.DataFrame:
    """Table 1: our mean-max AAE (``ours``: its results), the paper's row and their difference, then the earlier
    chapters' models read from ``results/`` with ``run`` (combine-skip, scored by chapter 01 on this chapter's tasks
    too; quick-thoughts; the multi-view ensemble; the baselines, each beside the paper's row of its method)."""
    rows = {"mean-max AAE (ours)": transfer_row(ours), "mean-max AAE (paper)": transfer_row(paper.loc["mean-max AAE"])}
    rows["ours − paper"] = {k: rows["mean-max AAE (ours)"][k] - rows["mean-max AAE (paper)"][k] for k in TABLE1}
    if (r := earlier_json(run, "01_skip_thoughts", "eval_combine-skip")):
        rows["combine-skip (ours, ch. 01)"] = transfer_row(r["results"])
    for name in ("uni-QT", "MC-QT"):
        if (r := earlier_json(run, "02_quick_thoughts", f"eval_{name}")):
            rows[f"{name} (ours, ch. 02)"] = transfer_row(r["results"])
    if (r := earlier_json(run, "04_consensus", "eval_MV_ensemble")):
        both = {**r["supervised"]["results"], **r["unsupervised"]["results"]}
        rows["MV ensemble (ours, ch. 04)"] = transfer_row(both)
    for key, (ours_name, paper_name) in BASELINES.items():
        if (r := earlier_json(run, "00b_baselines", key)):
            rows[ours_name] = transfer_row(r["results"])
        if paper_name:
            rows[f"{paper_name} (paper)"] = transfer_row(paper.loc[paper_name])
    return pd.DataFrame(rows).T


def table2(table1: pd.DataFrame) -> pd.DataFrame:
    """Table 2: :func:`set_averages` of every row of :func:`table1` (not the difference), the paper's printed
    averages, and our mean-max AAE minus the paper's (computed from its Table 1 row); columns (set, kind)."""
    from reproducer.report.published import published

    table = pd.DataFrame({name: set_averages(row) for name, row in table1.drop(index="ours − paper").iterrows()}).T
    printed = published(PAPER.key).query("table == 'Table 2'")
    for model, group in printed.groupby("model", sort=False):
        values = group.set_index(["task", "metric"]).value
        table.loc[f"{model} (paper, as printed)"] = [values.get(k, np.nan) for k in table.columns]
    table.loc["mean-max AAE: ours − paper"] = table.loc["mean-max AAE (ours)"] - table.loc["mean-max AAE (paper)"]
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    return table


def flat_columns(table: pd.DataFrame, sep: str = " ", index: str = "model") -> pd.DataFrame:
    """A table with two-level columns as a CSV of ``results/`` stores it: columns ``"<a><sep><b>"``, the index as
    the first column, named ``index``."""
    return table.set_axis([f"{a}{sep}{b}" for a, b in table.columns], axis=1).reset_index(names=index)


def variant_rows(results: dict[str, dict]) -> pd.DataFrame:
    """Table 3's rows for our models (name -> results as ``Results.to_json()['results']``): :data:`TABLE1` columns and
    the ``8-task macro`` average."""
    rows = pd.DataFrame({name: transfer_row(r) for name, r in results.items()}).T
    rows["8-task macro"] = [set_averages(rows.loc[n])[("8 tasks", "macro")] for n in rows.index]
    return rows.astype(float)


def paper_variant_rows(paper: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """The paper's Table 3 rows of ``names`` in the columns of :func:`variant_rows` (its printed 8-task macro)."""
    rows = {name: {**transfer_row(paper.loc[name]), "8-task macro": paper.loc[name].get(("8 tasks", "macro"))}
            for name in names}
    return pd.DataFrame(rows).T.astype(float)


def training_table(training: dict[str, dict], epoch: int):
    """The training of each variant (name -> its stored record): batches, parameters, seconds and speed, share of an
    epoch of ``epoch`` sentences, final loss, held-out accuracy and attention on ``z_mean``; a formatted Styler."""
    table = pd.DataFrame({
        name: {"batches": r["step"], "trainable parameters": r["parameters"], "training seconds": r["seconds"],
               "minutes per 1000 batches (whole run)": r["seconds"] / r["step"] * 1000 / 60,
               "share of one epoch": r["examples"] / epoch,
               "final loss": r["losses"][-1]["loss"], "held-out reconstruction accuracy": r["held_out"]["accuracy"],
               "attention on z_mean": r["held_out"]["attention"].get("z_mean", np.nan)}
        for name, r in training.items()}).T
    return table.style.format(
        {"batches": "{:,.0f}", "trainable parameters": "{:,.0f}", "training seconds": "{:,.0f}",
         "minutes per 1000 batches (whole run)": "{:.1f}", "share of one epoch": "{:.1%}", "final loss": "{:.3f}",
         "held-out reconstruction accuracy": "{:.1%}", "attention on z_mean": "{:.3f}"}, na_rep="–")


def curve_logs(training: dict[str, dict], untrained: dict[str, dict], names) -> dict[str, dict]:
    """The training curves of ``names`` as logs (name -> ``{"evals": [...]}``): the untrained model's point (step 0)
    followed by the points recorded while training."""
    return {n: {"evals": [untrained[n]["point"], *training[n]["evals"]]} for n in names}


def training_figure(training: dict[str, dict], curves: dict[str, dict]):
    """The training loss of every variant by batch, and the held-out reconstruction accuracy and STS14 of the
    ``curves`` logs (:func:`curve_logs`) against training minutes."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(8, 9))  # stacked: three panels side by side would not read in the column
    loss_curves(training, "loss", axes[0], x="step", xlabel="batch", ylabel="label-smoothed\ncross-entropy",
                title="Training loss, six variants")
    axes[0].get_legend().set_title("variant")
    for ax, metric, label in [(axes[1], "accuracy", "held-out reconstruction accuracy"),
                              (axes[2], "STS14", "STS14 Pearson r")]:
        score_curves(curves, metric, ax, xlabel="training minutes (2 CPU cores)", ylabel=label.replace(" acc", "\nacc"),
                     title=f"{label} vs wall-clock")
    fig.tight_layout()
    return fig


def paper_timing() -> tuple[pd.Series, pd.DataFrame]:
    """The paper's section 4.4: minutes per 1000 batches by model, and all its rows (parameters, hours)."""
    from reproducer.report.published import published

    section = published(PAPER.key).query("table == 'Section 4.4'")
    return section.query("metric == 'minutes per 1000 batches'").set_index("model").value, section


def our_minutes(timing: dict) -> dict[str, float]:
    """Minutes per 1000 batches of each timed model (:data:`TIMED` names) from a ``bench_widths`` record."""
    return {TIMED[r["objective"]]: r["minutes_per_1000_batches"] for r in timing["runs"]}


def timing_table(timing: dict, settings=None):
    """The timing study (a ``bench_widths`` record) beside the paper's minutes per 1000 batches, with each model's
    trainable parameters with and without its word embeddings (:func:`timing_sizes`; ``settings``: the chapter's, for
    records that predate the split) and the paper's counts; a formatted Styler."""
    sizes = timing_sizes(timing, settings)
    table = pd.DataFrame({TIMED[r["objective"]]: {
        "batch": r["batch_size"], "batches timed": r["steps"],
        "minutes per 1000 batches (ours, timing study)": r["minutes_per_1000_batches"],
        "sentences / second": r["sentences_per_second"], "trainable parameters": r["parameters"],
        "without word embeddings": sizes[TIMED[r["objective"]]]["without word embeddings"],
        "peak memory (MiB)": r["peak_memory_bytes"] / 2**20} for r in timing["runs"]}).T
    paper_minutes, section = paper_timing()
    millions = section.query("metric == 'millions of parameters'").set_index("model").value
    for model, minutes in paper_minutes.items():
        table.loc[f"{model} (paper, GTX 1080)", "minutes per 1000 batches (paper)"] = minutes
    for model, count in millions.items():
        table.loc[f"{model} (paper)", "without word embeddings"] = count * 1e6
    counts = ["batch", "batches timed", "trainable parameters", "without word embeddings"]
    return table.style.format("{:,.1f}", na_rep="–").format("{:,.0f}", subset=counts, na_rep="–")


def size_ratio(sizes: dict[str, dict[str, int]]) -> str:
    """Skip-thought's and the AAE's parameters without word embeddings (:func:`timing_sizes`) and their ratio beside the
    paper's (40M over 39M), as a phrase."""
    millions = paper_timing()[1].query("metric == 'millions of parameters'").set_index("model").value
    skip, ours = (sizes[m]["without word embeddings"] for m in ("skip-thought (uni)", "mean-max AAE"))
    return (f"without word embeddings skip-thought has {skip / 1e6:.2f}M parameters, the AAE {ours / 1e6:.2f}M "
            f"({skip / ours:.2f}×; the paper's {millions['skip-thought']:g}M and {millions['mean-max AAE']:g}M, "
            f"{millions['skip-thought'] / millions['mean-max AAE']:.2f}×)")


def timing_figure(ours: dict[str, float], paper: pd.Series):
    """Minutes per 1000 batches as horizontal bars: ours (CPU) then the paper's (GPU)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 2.8))
    bars = pd.Series({**{f"{k} (ours, CPU)": v for k, v in ours.items()},
                      **{f"{k} (paper, GPU)": v for k, v in paper.items()}})
    ax.barh(bars.index, bars.values, color=["C0" if "ours" in k else "C7" for k in bars.index])
    ax.invert_yaxis()
    ax.set(xlabel="minutes per 1000 batches", title="Training speed per batch (lower is faster)")
    return fig


def model_sizes() -> pd.DataFrame:
    """Millions of trainable parameters at the paper's sizes (built on PyTorch's ``meta`` device, no memory; fixed
    word vectors excluded): the mean-max AAE (d_m 2048, d_f 4096, 21.6k output words) and uni-skip (2400, 620-d
    words, 20k words), by part, beside the paper's counts (section 4.4)."""
    import torch


    with torch.device("meta"):
        aae = MeanMaxAAE(np.zeros((8, 300), np.float32), AAEConfig(21600, 300, 2048, 4096))
        st = SkipThought(SkipThoughtConfig(RecurrentConfig(20000, 620, 2400), 2400))
    embeddings = st.encoder.embed.weight.numel()
    sizes = pd.DataFrame({
        "mean-max AAE (d_m 2048, d_f 4096, 21.6k words)": {
            "encoder": trainable(aae.encoder),
            "decoder without output layer": trainable(aae.decoder) - trainable(aae.decoder.project),
            "output layer": trainable(aae.decoder.project), "all, word vectors excluded": trainable(aae)},
        "skip-thought (uni, 2400, 620-d words, 20k words)": {
            "encoder": trainable(st.encoder) - embeddings,
            "decoder without output layer": trainable(st.decode_prev) + trainable(st.decode_next),
            "output layer": trainable(st.out), "all, word vectors excluded": trainable(st) - embeddings}}).T / 1e6
    section = paper_timing()[1].query("metric == 'millions of parameters'").set_index("model").value
    sizes["paper (millions)"] = [section["mean-max AAE"], section["skip-thought"]]
    return sizes


def macro_figure(ours: pd.DataFrame, paper: pd.DataFrame):
    """Table 3's 8-task macro averages as two heatmaps (AAE/RAE × mean-max/mean/max), ours and the paper's; rows of
    both frames in the order mean-max, mean, max AAE, then the same RAE."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    macro = pd.DataFrame({"ours": ours["8-task macro"], "paper": paper["8-task macro"]}).astype(float)
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.4))
    for ax, source in zip(axes, ["ours", "paper"]):
        values = macro[source].values.reshape(2, 3)
        sns.heatmap(pd.DataFrame(values, index=["AAE", "RAE"], columns=["mean-max", "mean", "max"]), annot=True,
                    fmt=".1f", cmap="Blues", ax=ax, cbar=False)
        ax.set(title=f"8-task macro average, {source}")
    return fig


def attention_figure(maps: list[dict]):
    """Figure 2: for each sentence of ``maps`` (:func:`~reproducer.papers.mean_max_aae.chapter.attention_maps`), the
    decoder's weight on each pooled vector while predicting each token, as a heatmap."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, axes = plt.subplots(len(maps), 1, figsize=(8, 1.6 * len(maps) + 0.8), squeeze=False)
    for ax, m in zip(axes[:, 0], maps):
        frame = attention_frame(m)
        sns.heatmap(frame, vmin=0, vmax=1, cmap="viridis", annot=True, fmt=".1f", cbar=False, ax=ax,
                    xticklabels=m["words"])
        ax.tick_params(axis="x", labelrotation=30)
        ax.tick_params(axis="y", labelrotation=0)  # z_mean, z_max read across
    fig.suptitle("Mean-max attention of the AAE decoder\nwhile predicting each token (mean over heads)")
    fig.tight_layout()
    return fig


def figure2(run, maps: Callable[[], list[dict]]) -> list[dict] | None:
    """Figure 2 drawn from its data, ``figure2_attention.json`` (computed by ``maps()`` when missing, which needs the
    trained mean-max AAE's decoder), and saved as ``figure2_attention.png``; returns the data. Results stored before
    that data was kept have only the figure: it is shown as stored (nothing is trained, the file is untouched) unless
    ``run.retrain``, and ``None`` is returned."""
    png, stored = run.path("figure2_attention.png"), run.path("figure2_attention.json")
    if png.is_file() and not stored.is_file() and not run.retrain:
        from IPython.display import Image, display

        display(Image(filename=str(png)))
        return None
    maps = run.json("figure2_attention", maps)
    run.save_figure(attention_figure(maps), "figure2_attention")
    return maps


def attention_frame(m: dict) -> pd.DataFrame:
    """One sentence's attention map: rows the pooled vectors, columns the decoding steps (float32, as computed)."""
    weights = np.asarray(m["weights"], dtype=np.float32)
    return pd.DataFrame(weights, index=m["pooled"], columns=range(len(m["words"])))


def attention_note(maps: list[dict] | None) -> str:
    """What the example sentences show: the weight on ``z_mean`` at the first token and at ``</s>``, and whether it
    grows along every sentence (``None``: the figure was stored without its data, see :func:`figure2`)."""
    if maps is None:
        return ("The figure above is the stored one: the per-token weights behind it were not kept with these results "
                "(they need the trained model, whose checkpoint is not committed).")
    steps = [attention_frame(m).loc["z_mean"].round(3).tolist() for m in maps]
    if all(s[-1] > s[0] for s in steps):
        return ("In these sentences the weight on z_mean is " + ", ".join(
            f"{s[0]:.2f} at the first token and {s[-1]:.2f} at `</s>`" for s in steps)
            + ": the decoder leans on z_max early in the sentence and more on z_mean as it goes.")
    return "In these sentences the weight on z_mean does not grow steadily along the sentence."


def attention_table(training: dict[str, dict], names) -> pd.DataFrame:
    """The mean attention weight on each pooled vector over the held-out tokens, for the variants ``names``."""
    table = pd.DataFrame({name: training[name]["held_out"]["attention"] for name in names}).T
    table["held-out tokens"] = [training[name]["held_out"]["tokens"] for name in names]
    return table


def autoencoder_rows(timing: dict, hardware: str) -> list[dict]:
    """Zhang et al.'s section 4.4: minutes per 1000 batches of skip-thought on a GTX 1080 (the AAE's own figure is
    missing from the paper's text) beside ours for skip-thought, the AAE and the RAE on the same batches."""
    paper = paper_timing()[0]
    ours = our_minutes(timing)
    skip = ours.get("skip-thought (uni)")
    sizes = timing.get("settings", {})
    counted = f" ({size_ratio(timing_sizes(timing))})" if countable(timing) else ""
    ours_is = (f"ours: hidden {sizes['hidden']}, batch {sizes['batch_size']}, a far smaller model{counted}; "
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


def timing_rows(folder, hardware: str) -> list[dict]:
    """Chapter 06's hardware rows of this paper (:func:`autoencoder_rows`) from the timing study in the chapter's
    results ``folder``; none before it has run."""
    timing = read_json(Path(folder) / "timing.json")
    return autoencoder_rows(timing, hardware) if timing else []

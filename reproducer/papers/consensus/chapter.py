"""The tables, figures and claims of the multi-view study (Tang & de Sa 2019, chapter 04): our numbers next to the
paper's, from the results a notebook stored (training logs, :mod:`reproducer.evaluate.views` records).

- :func:`training_table`: the variants' training runs (steps, time, log_table, final loss, learned τ).
- :func:`figure1_frame` / :func:`plot_figure1`: U of each view during training, multi-view against single-view.
- :func:`paper_table3`: Table 3's published columns (U, S, B, MRPC, hours) per row of ours.
- :func:`readings_table`: U under both readings of Eq. 1 (is a sentence its own candidate?).
- :func:`table4`, :func:`table5`, :func:`table6`: unsupervised similarity per dataset, STS14 alone, supervised
  transfer — ours, our earlier chapters' models (:func:`earlier_sts14`, :func:`earlier_transfer_rows`) and the
  paper's.
- :func:`consensus_claims`: the paper's claims (sections 4.1-4.4, Figure 1) checked on our numbers.
- :func:`twin_row_claims`: the book's own claims (issue 44), MV's row against its untrained twin.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd

from reproducer.data.fixed_vectors import FixedVectorData
from reproducer.errors import ReproducerError
from reproducer.evaluate.harness import Results
from reproducer.evaluate.training_curve import combined, held_out_loss
from reproducer.evaluate.views import ROWS, ProjectionSnapshots, RowEncoders, curve_callback
from reproducer.files import read_json
from reproducer.models import family
from reproducer.results_store import slug
from reproducer.papers.consensus import PAPER
from reproducer.report.claims import Claim, Evidence, seeds_point_claim, twin_claim, untrained, verdict
from reproducer.report.plots import legend_below
from reproducer.report.published import published
from reproducer.report.tables import log_table, paper_table
from reproducer.report.units import ChapterModels
from reproducer.runtime import default_device

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


def _beats(ours3: pd.DataFrame, a: str, b: str, metrics=METRICS) -> tuple[bool, str]:
    wins = {m: ours3.loc[a, m] > ours3.loc[b, m] for m in metrics}
    text = ", ".join(f"{m} {ours3.loc[a, m]:.1f} vs {ours3.loc[b, m]:.1f}" for m in metrics)
    return all(wins.values()), f"{sum(wins.values())}/{len(wins)}: {text}"


def consensus_claims(ours3: pd.DataFrame, fig1: pd.DataFrame) -> pd.DataFrame:
    """The paper's claims checked on Table 3 (``ours3``: rows of :data:`~reproducer.evaluate.views.ROWS`, columns
    :data:`METRICS`) and Figure 1 (:func:`figure1_frame`): one row per claim with ``claim``, ``outcome``
    (:func:`~reproducer.report.claims.verdict`) and the ``numbers`` behind it."""
    checks = []
    for view in ("f", "g"):
        ok, text = _beats(ours3, f"MV {view}", f"SV-{view} {view}")
        checks.append({"claim": f"MV {view} beats SV {view} (U, S, B, MRPC)", "outcome": verdict(ok), "numbers": text})
    ok, text = _beats(ours3, "MV ensemble", "ens(SV-f f, SV-g g)")
    checks.append({"claim": "The MV ensemble beats the SV ensemble (U, S, B, MRPC)", "outcome": verdict(ok),
                   "numbers": text})
    u = ours3["U"]
    checks.append({"claim": "The MV ensemble beats each of its views on U",
                   "outcome": verdict(u["MV ensemble"] > max(u["MV f"], u["MV g"])),
                   "numbers": f"ensemble {u['MV ensemble']:.1f}, f {u['MV f']:.1f}, g {u['MV g']:.1f}"})
    independent = {"ens(MV-ff f1, MV-gg g1)": ("MV-ff f1", "MV-gg g1"), "ens(SV-f f, SV-g g)": ("SV-f f", "SV-g g")}
    checks.append({"claim": "Ensembling independently trained views does not help U (below its better view)",
                   "outcome": verdict(all(u[e] < max(u[a], u[b]) for e, (a, b) in independent.items())),
                   "numbers": "; ".join(f"{e} {u[e]:.1f} vs {a} {u[a]:.1f}, {b} {u[b]:.1f}"
                                        for e, (a, b) in independent.items())})
    checks.append({"claim": "MV f–g beats the same-architecture pairs f1–f2 and g1–g2 on U (ensembles)",
                   "outcome": verdict(u["MV ensemble"] > max(u["MV-ff ensemble"], u["MV-gg ensemble"])),
                   "numbers": f"MV {u['MV ensemble']:.1f}, f1–f2 {u['MV-ff ensemble']:.1f}, "
                              f"g1–g2 {u['MV-gg ensemble']:.1f}"})
    curves = fig1.pivot_table(index="step", columns="curve", values="U")
    pairs = [("MV f", "SV f"), ("MV g", "SV g"), ("MV ensemble", "SV ensemble")]
    ahead = {mv: (curves[mv] >= curves[sv]) for mv, sv in pairs}
    checks.append({"claim": "At every checkpoint of Figure 1, MV ≥ SV for f, g and the ensemble",
                   "outcome": verdict(all(a.all() for a in ahead.values())),
                   "numbers": "; ".join(f"{mv}: ahead at {int(a.sum())}/{len(a)} (last {curves[mv].iloc[-1]:.1f} vs "
                                        f"{curves[sv].iloc[-1]:.1f})" for (mv, sv), a in zip(pairs, ahead.values()))})
    return pd.DataFrame(checks)


# --- the chapter's models as units, and the claims judged against their noise ---------------------------------------

#: The variants in training order (SV-g before SV-f: the SV ensemble's curve borrows SV g at the same step); the three
#: trained again under the other reading of Eq. 1; those trained with several seeds for the claims.
ORDER = ("MV", "SV-g", "SV-f", "MV-ff", "MV-gg", "MV+SV", "skip")
READING = ("MV", "SV-f", "SV-g")
SEED_MODELS = ORDER  # every variant: each is read by a claim
#: The rows of Table 3 the claims compare (the seeds' runs evaluate only these).
CLAIM_ROWS = ("MV f", "MV g", "MV ensemble", "SV-f f", "SV-g g", "ens(SV-f f, SV-g g)", "MV-ff f1", "MV-gg g1",
              "MV-ff ensemble", "MV-gg ensemble", "ens(MV-ff f1, MV-gg g1)", "MV+SV ensemble", "skip f", "skip g",
              "skip ensemble")
#: The neighbour table's encoders: Table 3 rows (unsupervised pooling) and the plain average of the fixed vectors.
NEIGHBOURS = ("MV ensemble", "ens(SV-f f, SV-g g)", "word2vec avg")
#: Table 4's baselines on our vectors: name -> how to build it from the chapter's data.
BASELINE_NAMES = ("word2vec avg (ours)", "word2vec SIF (ours)", "GloVe-50d avg (ours)", "GloVe-50d SIF (ours)")
#: The Table 3 rows whose untrained twins every seed scores (issue 44): MV's main row (Table 6's, chapter 06's MV).
TWIN_ROWS = (TRANSFER_ROW,)
#: Their twins' rows (:func:`~reproducer.report.claims.untrained` of the row: ``"MV ensemble (untrained)"``): the same
#: views of each variant's twin (``"MV (untrained)"``: :meth:`ConsensusModels.twin_views`).
TWINS_OF_ROWS = {untrained(row): [(untrained(v), view) for v, view in ROWS[row]] for row in TWIN_ROWS}


class ConsensusModels(ChapterModels):
    """Chapter 04's variants by name, as units: each trained (or reloaded) at the preset ``settings`` with its held-out
    loss (and, for Figure 1's runs, U of each view) at the preset's evaluation points; Table 3's rows
    (:data:`~reproducer.evaluate.views.ROWS`) scored on the task ``groups`` as soon as their variants are trained;
    :meth:`unit` trains a variant and caches everything the chapter shows of it."""

    family = "consensus"
    EXTRA_TASKS = ()

    def __init__(self, run, settings, *, groups: dict[str, list[str]], seed: int = 0, progress: bool = True,
                 pool_size: int = 20000, n_queries: int = 8):
        tasks = [t for g in ("U", "S", "B", "M") for t in groups[g]]
        super().__init__(run, settings, tasks=tasks, seed=seed, progress=progress, pool_size=pool_size,
                         n_queries=n_queries)
        self.groups = groups
        self.snapshots = ProjectionSnapshots(run.path("checkpoints/SV-g.snapshots.pt"))
        self.rows = RowEncoders(self.viewset, {**ROWS, **TWINS_OF_ROWS})
        self._twin_views: dict = {}
        self.other = settings.with_overrides(self_pairs=not settings.self_pairs)

    def sibling(self, run, settings, seed: int) -> "ConsensusModels":
        return ConsensusModels(run, settings, groups=self.groups, seed=seed, progress=self.progress,
                               pool_size=self.pool_size, n_queries=self.n_queries)

    @functools.cached_property
    def data(self):
        """The fixed word vectors and the corpus as their ids (a
        :class:`~reproducer.data.fixed_vectors.FixedVectorData`, loaded on first use)."""
        return FixedVectorData(self.corpus_config, self.settings.word2vec_dim)

    def twin_inputs(self, name: str) -> tuple:
        """Every variant trains at the chapter's settings on :attr:`data`'s training data."""
        return self.settings, self.data.training_data()

    def settings_record(self) -> dict:
        return {"consensus": self.settings.to_dict(), "seed": self.seed, "device": str(default_device()),
                **self.groups}

    def fit(self, name: str, variant: str | None = None, config=None):
        """The :class:`~reproducer.fit.Fitted` variant ``name`` (``variant`` and ``config``: another reading's
        runs), trained or reloaded by ``run.model``, with its held-out loss and, for :data:`CURVES`, Figure 1's U."""
        config = config or self.settings
        variant = variant or name

        def train(state):
            data = self.data.training_data()
            curve = (curve_callback(name, self.snapshots, self.data.table, self.data.vocab, config.dim)
                     if name in CURVES else None)
            held = held_out_loss(family(self.family).held_out_batches(variant, config, data))
            return family(self.family).fit(variant, config, data, checkpoint=state, evaluate=combined(curve, held),
                                           seed=self.seed, progress=self.progress)

        return self.run.model(name, train)

    def record(self, name: str) -> dict:
        """Variant ``name``'s training log and learned τ: ``<name>_training.json`` if cached."""
        return self.run.training_record(name, lambda: {
            **self.fit(name).log.to_dict(), "tau": float(self.fit(name).module.temperature.tau.detach())})

    def viewset(self, name: str):
        """Variant ``name``'s trained views (a :class:`~reproducer.encoders.multiview.ViewSet`): this kernel's, its
        saved bundle, else :meth:`fit`'s; for ``"<variant> (untrained)"``, that variant's views at initialisation
        (:meth:`twin_views`)."""
        twin = next((v for v in ORDER if untrained(v) == name), None)
        if twin:
            return self.twin_views(twin)
        return self.run.encoder(name, view="all") or self.fit(name).encoder

    def twin_views(self, variant: str):
        """Variant ``variant``'s views at initialisation (:func:`~reproducer.untrained_twins.untrained_twin` from this
        chapter's settings and data, :meth:`twin_inputs`, with this seed): what :meth:`fit` starts from, the same
        fixed word2vec inputs; built once per unit."""
        from reproducer.untrained_twins import untrained_twin

        if variant not in self._twin_views:
            self._twin_views[variant] = untrained_twin(variant, *self.twin_inputs(variant), seed=self.seed)
        return self._twin_views[variant]

    def trained(self, name: str):
        """The unsupervised encoder of a Table 3 row, or the average of the fixed word vectors (``word2vec avg``)."""
        if name == "word2vec avg":
            from reproducer.encoders.bow import word_average_encoder

            return word_average_encoder(self.data.vectors)
        return self.rows.encoder(name, "unsupervised")

    def row(self, row: str) -> dict:
        """Row ``row`` of Table 3 scored on the groups at the preset's ``rows_config``, and for
        :data:`TRANSFER_ROW` on Table 6's tasks at its ``eval_config``
        (:meth:`~reproducer.evaluate.views.RowEncoders.evaluate`, per-item outcomes kept): ``eval_<row>.json`` if
        cached."""
        return self.run.json(f"eval_{row.replace(' ', '_')}", lambda: self.rows.evaluate(
            row, self.groups, self.settings.rows_config, T6 if row == TRANSFER_ROW else (),
            self.settings.eval_config))

    def twin_row(self, row: str = TRANSFER_ROW) -> dict:
        """The untrained twin of row ``row`` of :data:`TWIN_ROWS` (issue 44): the same views of the same variant with
        this seed's initial weights (:data:`TWINS_OF_ROWS`), scored as :meth:`row` scores the row on the groups at the
        preset's ``rows_config`` (not on Table 6's tasks: at ``paper`` that is another 9 minutes of a 2,100-d
        encoder): ``eval_<row>_untrained.json`` if cached."""
        return self.run.json(f"eval_{slug(untrained(row))}", lambda: self.rows.evaluate(
            untrained(row), self.groups, self.settings.rows_config))

    def reading(self) -> dict:
        """U of MV, SV-f and SV-g trained under the other reading of Eq. 1: ``other_reading.json``."""
        from reproducer.evaluate.views import reading_scores

        return self.run.json("other_reading", lambda: reading_scores(
            *(self.fit(f"{name} (other reading)", name, self.other).encoder for name in READING)))

    def baselines(self) -> dict[str, dict]:
        """Table 4's baselines on our vectors scored on U (:data:`BASELINE_NAMES`)."""
        from reproducer.encoders.baselines import load_baseline
        from reproducer.encoders.bow import sif_encoder, word_average_encoder
        from reproducer.evaluate import evaluate, quick_look

        make = {"word2vec avg (ours)": lambda: word_average_encoder(self.data.vectors),
                "word2vec SIF (ours)": lambda: sif_encoder(self.data.vectors, self.data.counts),
                "GloVe-50d avg (ours)": lambda: load_baseline("glove-bow"),
                "GloVe-50d SIF (ours)": lambda: load_baseline("sif-glove")}
        return {name: self.run.json(f"eval_baseline_{slug(name.split(' (')[0])}", lambda m=make[name]: evaluate(
            m(), self.groups["U"], quick_look(self.settings.eval_config), progress=False).to_json())
            for name in BASELINE_NAMES}

    def unit(self, name: str, rows=None, neighbours: bool = True) -> None:
        """Everything the chapter shows of variant ``name`` (a variant of :data:`ORDER`, ``"reading"`` for the three
        runs of the other reading, ``"baselines"`` for Table 4's), computed right after it trains and cached: its
        training record; every row of ``rows`` (by default all of Table 3) whose variants are now all trained, and the
        untrained twin of each of them in :data:`TWIN_ROWS` (:meth:`twin_row`, every seed); with ``neighbours`` the
        neighbour tables it completes."""
        if name == "reading":
            self.reading()
            return
        if name == "baselines":
            self.baselines()
            if neighbours:
                self.products.neighbours("word2vec avg")
            return
        self.record(name)
        done = set(ORDER[:ORDER.index(name) + 1])
        for row, parts in ROWS.items():
            variants = {v for v, _ in parts}
            if (rows is None or row in rows) and name in variants and variants <= done:
                self.row(row)
                if row in TWIN_ROWS:
                    self.twin_row(row)
                if neighbours and row in NEIGHBOURS:
                    self.products.neighbours(row)
        self.rows.clear()
        self._twin_views.clear()

    def evidence(self, baselines: bool = True, rows: tuple[str, ...] = CLAIM_ROWS):
        """This seed's :class:`~reproducer.report.claims.Evidence`: each of ``rows``' unsupervised results as
        ``"<row> U"`` and supervised ones as ``"<row> S"``, those of :data:`TWIN_ROWS`' untrained twins (this seed's
        initialisation) as ``"<row> (untrained) U"`` and ``… S``, and Table 4's baselines as ``"<name> U"``."""
        results = {}
        records = {**{row: self.row(row) for row in rows},
                   **{untrained(row): self.twin_row(row) for row in rows if row in TWIN_ROWS}}
        for row, record in records.items():
            results[f"{row} U"] = Results.from_json(record["unsupervised"])
            results[f"{row} S"] = Results.from_json(record["supervised"])
        if baselines:
            results.update({f"{n} U": Results.from_json(r) for n, r in self.baselines().items()})
        return Evidence(results, seed=self.seed)


def _group_score(ev, row: str, group: str, groups: dict, reps: bool):
    """Table 3's column ``group`` (U, S, B or MRPC acc) of ``row`` in points."""
    if group == "U":
        return ev.mean(f"{row} U", groups["U"], reps)
    if group == "MRPC acc":
        return ev.score(f"{row} S", "MRPC", reps)
    return ev.mean(f"{row} S", groups[group], reps)


#: Tang & de Sa's contribution 2 (section 1): each view of MV beats its single-view counterpart.
VIEWS_WORDS = ("\"maximising the agreement between representations from two encoding functions/views gives improved "
               "performance of each individual view on all evaluation tasks compared to their single-view trained "
               "counterparts\" (section 1)")


def multiview_claims(groups: dict[str, list[str]]) -> list:
    """Tang & de Sa's claims on Table 3's rows and Table 4 as :class:`~reproducer.report.claims.Claim` (judged on
    each seed's :meth:`ConsensusModels.evidence`): MV beats SV view by view and as ensembles on every column (the
    smallest of the four gaps), the MV ensemble beats its views, ensembles of independent views do not help,
    f–g beats f1–f2 and g1–g2, and the MV ensemble beats the other unsupervised methods of Table 4 but GloVe+UP
    (ours: averages and SIF on our word2vec and on GloVe-50d)."""
    def score(ev, row, group, r):
        return _group_score(ev, row, group, groups, r)

    def every_column(a, b):
        return lambda ev, r: np.minimum.reduce([np.asarray(score(ev, a, m, r) - score(ev, b, m, r)) for m in METRICS])

    def columns(a, b):
        return lambda ev: "; ".join(f"{m} {score(ev, a, m, False):.1f} vs {score(ev, b, m, False):.1f}"
                                    for m in METRICS)

    def u(ev, row, r=False):
        return score(ev, row, "U", r)

    claims = [Claim(f"MV {v} beats SV {v} on U, S, B and MRPC (Table 3; the smallest gap)",
                    every_column(f"MV {v}", f"SV-{v} {v}"), effect=effect,
                    paper=f"{VIEWS_WORDS}; Table 3: smallest gap {effect:+.1f} ({where})",
                    numbers=columns(f"MV {v}", f"SV-{v} {v}"))
              for v, effect, where in (("f", 0.7, "MRPC, 75.5 vs 74.8"), ("g", 0.5, "U, 69.2 vs 68.7"))]
    claims += [
        Claim("The MV ensemble beats the SV ensemble on U, S, B and MRPC (Table 3; the smallest gap)",
              every_column("MV ensemble", "ens(SV-f f, SV-g g)"), effect=0.3,
              paper="\"the ensemble of views trained with consensus maximisation between the two different "
                    "architectures performs better on downstream tasks than an analogous ensemble made from the "
                    "single-view trained counterparts\" (abstract); Table 3: smallest gap +0.3 (B, 86.6 vs 86.3)",
              numbers=columns("MV ensemble", "ens(SV-f f, SV-g g)")),
        Claim("The MV ensemble beats each of its views on U (Table 3)",
              lambda ev, r: u(ev, "MV ensemble", r) - np.maximum(u(ev, "MV f", r), u(ev, "MV g", r)),
              effect=71.4 - 69.2,
              paper="\"the ensemble of z^f and z^g performs even better than each one of them\" (section 4.1); Table "
                    "3, U: 71.4 vs f 67.4, g 69.2",
              numbers=lambda ev: f"ensemble {u(ev, 'MV ensemble'):.1f}, f {u(ev, 'MV f'):.1f}, g {u(ev, 'MV g'):.1f}"),
        Claim("Ensembling independently trained views does not help U (the ensemble at most its better view)",
              lambda ev, r: np.maximum(
                  u(ev, "ens(MV-ff f1, MV-gg g1)", r) - np.maximum(u(ev, "MV-ff f1", r), u(ev, "MV-gg g1", r)),
                  u(ev, "ens(SV-f f, SV-g g)", r) - np.maximum(u(ev, "SV-f f", r), u(ev, "SV-g g", r))),
              at_most=True, effect=68.6 - 68.7,
              paper="\"The ensemble of two independently trained z^f and z^g provides worse results than z^g does "
                    "solely on unsupervised evaluation tasks\" (section 4.1); Table 3, U: f1–g1 67.5 vs g1 68.5, SV "
                    "ensemble 68.6 vs SV g 68.7",
              numbers=lambda ev: f"ens(MV-ff f1, MV-gg g1) {u(ev, 'ens(MV-ff f1, MV-gg g1)'):.1f} vs "
                                 f"{u(ev, 'MV-ff f1'):.1f}, {u(ev, 'MV-gg g1'):.1f}; SV ensemble "
                                 f"{u(ev, 'ens(SV-f f, SV-g g)'):.1f} vs {u(ev, 'SV-f f'):.1f}, {u(ev, 'SV-g g'):.1f}"),
        Claim("MV f–g beats the same-architecture pairs f1–f2 and g1–g2 on U (ensembles, Table 3)",
              lambda ev, r: u(ev, "MV ensemble", r) - np.maximum(u(ev, "MV-ff ensemble", r),
                                                                 u(ev, "MV-gg ensemble", r)),
              effect=71.4 - 69.1,
              paper="Table 3, U (ensembles): f–g 71.4 vs f1–f2 57.3 (↓14.1), g1–g2 69.1 (↓2.3); the text states no "
                    "comparison",
              numbers=lambda ev: f"MV {u(ev, 'MV ensemble'):.1f}, f1–f2 {u(ev, 'MV-ff ensemble'):.1f}, "
                                 f"g1–g2 {u(ev, 'MV-gg ensemble'):.1f}"),
        Claim("The multi-view ensemble beats the other unsupervised methods except GloVe+UP (Table 4, U; ours: "
              "averages and SIF on our word2vec and GloVe-50d)",
              lambda ev, r: u(ev, "MV ensemble", r) - np.maximum.reduce(
                  [np.asarray(ev.mean(f"{n} U", groups["U"], r)) for n in BASELINE_NAMES]),
              effect=71.4 - 67.8,
              paper="\"Our consensus maximisation learning method slightly underperforms GloVe+UP on STS12-14 tasks, "
                    "and outperforms all other unsupervised learning methods on all other tasks\" (section 5.1); "
                    "Table 4, average: 71.4 vs fastText+WR 67.8",
              numbers=lambda ev: f"MV ensemble {u(ev, 'MV ensemble'):.1f}; " + ", ".join(
                  f"{n} {ev.mean(f'{n} U', groups['U']):.1f}" for n in BASELINE_NAMES)),
    ]
    return claims


def twin_row_claims(groups: dict[str, list[str]], rows=TWIN_ROWS) -> list[Claim]:
    """The book's own claims (issue 44; :func:`~reproducer.report.claims.twin_claim`): training beats the same
    encoder untrained, for each row of ``rows`` (the MV ensemble) against its twin of :meth:`ConsensusModels.twin_row`,
    on the transfer mean (Table 3's supervised tasks: S, B and MRPC, their main scores in points) and on STS (U),
    judged on each seed's :meth:`ConsensusModels.evidence` (each seed's twin is that seed's initialisation)."""
    transfer = groups["S"] + groups["B"] + groups["M"]
    return [twin_claim(f"the {row}", what, tasks, f"{row} {g}", f"{untrained(row)} {g}") for row in rows
            for what, tasks, g in (("the transfer mean", transfer, "S"), ("STS", groups["U"], "U"))]


def variant_claims(groups: dict[str, list[str]]) -> list:
    """Tang & de Sa's claims on the regularising variants of Table 3 (judged on each seed's
    :meth:`ConsensusModels.evidence`, like :func:`multiview_claims`): MV beats the same RNN regularised with a skip
    connection (contribution 3; on U, where the paper's margins are clear: the smallest gap over f, g and the
    ensemble), and MV+SV is slightly below MV (section 4.4; the ensembles, the smallest gap over U, S, B and MRPC)."""
    def u(ev, row, r=False):
        return _group_score(ev, row, "U", groups, r)

    views = ("f", "g", "ensemble")
    return [
        Claim("MV beats the skip-connection regulariser on U (Table 3: f, g and the ensemble; the smallest gap)",
              lambda ev, r: np.minimum.reduce([np.asarray(u(ev, f"MV {v}", r) - u(ev, f"skip {v}", r)) for v in views]),
              effect=6.9,
              paper="\"maximising the agreement between representations from an RNN and a linear model does more than "
                    "regularising the same RNN model with a skip connection\" (section 1); Table 3, U: smallest gap "
                    "+6.9 (ensemble)",
              numbers=lambda ev: "; ".join(f"{v}: MV {u(ev, f'MV {v}'):.1f} vs skip {u(ev, f'skip {v}'):.1f}"
                                           for v in views)),
        Claim("MV+SV is slightly below MV (Table 3, ensembles: MV minus MV+SV, the smallest gap over U, S, B and MRPC)",
              lambda ev, r: np.minimum.reduce([np.asarray(_group_score(ev, "MV ensemble", m, groups, r)
                                                          - _group_score(ev, "MV+SV ensemble", m, groups, r))
                                               for m in METRICS]),
              effect=0.1,
              paper="\"The performance of this variant is slightly worse than our method learnt with only multi-view "
                    "maximisation\" (section 4.4); Table 3 (ensembles): smallest gap +0.1 (B)",
              numbers=lambda ev: "; ".join(f"{m} {_group_score(ev, 'MV ensemble', m, groups, False):.1f} vs "
                                           f"{_group_score(ev, 'MV+SV ensemble', m, groups, False):.1f}"
                                           for m in METRICS)),
    ]


def figure1_claim(fig1: pd.DataFrame, seed_frames: list[pd.DataFrame], budget: str | None = None) -> dict:
    """"At every checkpoint of Figure 1, MV ≥ SV for f, g and the ensemble": the smallest MV − SV gap (U) over the
    checkpoints and the three pairs, the mean over the seeds' Figure 1 frames (:func:`figure1_frame`; every seed
    trained at the preset ``budget``, the main run's ``fig1`` among them) with their spread, or ``fig1``'s alone with
    fewer than two seeds."""
    pairs = [("MV f", "SV f"), ("MV g", "SV g"), ("MV ensemble", "SV ensemble")]

    def smallest(frame):
        curves = frame.pivot_table(index="step", columns="curve", values="U")
        return float(min((curves[mv] - curves[sv]).min() for mv, sv in pairs))

    curves = fig1.pivot_table(index="step", columns="curve", values="U")
    values = [smallest(f) for f in seed_frames]
    return seeds_point_claim(
        "At every checkpoint of Figure 1, MV ≥ SV for f, g and the ensemble (the smallest gap, U)", smallest(fig1),
        values, 0.0, budget=budget, unit="{:+.1f}",
        paper="\"our consensus maximisation with two different views improves both f and g on unsupervised tasks "
              "compared to their singleview learnt counterparts during learning\" (Figure 1's caption; no values "
              "printed)",
        numbers=("smallest gap per seed: " + ", ".join(f"{v:+.1f}" for v in values) + "; " if values else "")
        + "main run, last checkpoint: " + "; ".join(f"{mv} − {sv} {curves[mv].iloc[-1] - curves[sv].iloc[-1]:+.1f}"
                                                    for mv, sv in pairs))


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

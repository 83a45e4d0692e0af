"""Training efficiency of Quick-Thoughts against skip-thought (Logeswaran & Lee 2018, Appendices C and D), from our runs.

- **The chapter's models**: :class:`QuickThoughtModels` trains or reloads each by name (the family, the efficiency
  study's skip-thought, Table 9's sizes), records its training log and evaluates it; :func:`training_loss_figure`
  draws the training losses.
- **Figure 2** (Appendix C): the same GRU encoder trained with both objectives. :func:`matched_skip_thought` is the
  skip-thought preset of a Quick-Thoughts encoder (sizes, data, optimiser, budget); :func:`measure_throughput` times both
  objectives, each in its own process (:func:`reproducer.papers.widths.bench_widths`); :func:`speed_table` and
  :func:`speed_ratios` read its runs; :func:`curve_changes` counts the tasks whose score fell while training;
  :func:`figure2` draws the curves, :func:`figure2_note` and :func:`speed_note` say what they and the benchmark show.
- **Table 9** (Appendix D): MC-QT at several sizes for the same number of steps: :func:`smaller_mc_qt` (the smaller
  models' preset overrides), :func:`size_table` (ours), :func:`paper_sizes` (the paper's) and :func:`size_figure`
  (accuracy against training time, both side by side); :func:`size_caption` heads our table.
"""
from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
import pandas as pd

from reproducer.evaluate import quick_look
from reproducer.evaluate.training_curve import held_out_loss
from reproducer.files import read_json
from reproducer.papers import registry
from reproducer.papers.registry import family, models, preset
from reproducer.papers.registry import family as family_of
from reproducer.report.plots import curves, log_frame, task_curves
from reproducer.report.published import published
from reproducer.report.tables import held_out_change
from reproducer.report.units import ChapterModels
from reproducer.runtime import default_device

PAPER = registry.paper("logeswaran2018")  # this chapter's declaration (reproducer/papers/quick_thoughts/__init__.py)


def matched_skip_thought(qt):
    """The skip-thought preset of the efficiency study for a :class:`~reproducer.papers.quick_thoughts.objective.QuickThoughtPreset`
    ``qt``: uni-skip with QT's encoder (vocabulary, word size, GRU width ``qt.hidden``, decoders as wide), batch,
    sentence length and optimiser, trained for the time uni-QT trains: ``qt.max_steps`` times
    :data:`~reproducer.papers.quick_thoughts.objective.ST_STEPS_PER_QT_STEP` steps, its curve scored as many times
    as uni-QT's; the rest (e.g. the sampled softmax) from the skip-thought preset of the same scale."""
    from reproducer.papers.quick_thoughts.objective import ST_STEPS_PER_QT_STEP

    def steps(n):
        return n and max(1, round(n * ST_STEPS_PER_QT_STEP))

    return preset("skip-thought", qt.name, vocab_size=qt.vocab_size, word_dim=qt.word_dim, uni_hidden=qt.hidden,
                  decoder_hidden=qt.hidden, batch_size=qt.batch_size, lr=qt.lr, clip=qt.clip, max_len=qt.max_len,
                  max_steps=steps(qt.max_steps), eval_steps=steps(qt.eval_steps), eval_every=qt.eval_every)


#: The throughput benchmark's file in the chapter's results (``<name>.json``): both objectives at QT's batch size,
#: as the paper timed them (appendix C: "batch size 400" for both, 6.5 h against 31 h). An earlier record,
#: ``throughput_benchmark``, ran skip-thought at Kiros et al.'s batch of 128 (issue 68): not the paper's comparison.
BENCHMARK = "throughput_benchmark_same_batch"


def measure_throughput(qt, st, seconds: float, seed: int = 0, repeats: int = 1) -> dict:
    """``{"runs": [...], "repeats": [[...], ...]}``: Quick-Thoughts and exact-softmax skip-thought with QT's encoder
    sizes and QT's batch size (``qt.batch_size`` for both, as Logeswaran & Lee's appendix C trains both at batch
    400), each trained for ``seconds`` in a fresh process (:func:`~reproducer.papers.widths.bench_widths`: a rate is
    measured over time, the one place a budget in seconds is right); also the sampled-softmax skip-thought when the
    skip-thought preset ``st`` uses one. The whole measurement is repeated ``repeats`` times (seeds ``seed``,
    ``seed + 1``, …: the timing noise of the speed claim); ``runs`` is the first."""
    from reproducer.papers.widths import bench_widths

    out = []
    for r in range(repeats):
        sizes = dict(hidden=qt.hidden, word_dim=qt.word_dim, vocab_size=qt.vocab_size, seconds=seconds,
                     max_books=qt.max_books, seed=seed + r, batch_size=qt.batch_size)
        runs = bench_widths(["quick_thought", "skip_thought"], n_sampled=0, **sizes)["runs"]
        if st.n_sampled:
            runs += bench_widths(["skip_thought"], n_sampled=st.n_sampled, **sizes)["runs"]
        out.append(runs)
    return {"runs": out[0], "repeats": out}


def speed_table(runs: list[dict]) -> pd.DataFrame:
    """The benchmark's runs indexed by softmax (``in-batch`` is Quick-Thoughts; ``exact``, ``sampled``: skip-thought):
    objective, batch size, steps, sentences per second, QT's speed-up over each, peak memory in MiB, parameters."""
    speed = pd.DataFrame(runs).set_index("softmax")
    speed["speed-up of QT"] = speed.loc["in-batch", "sentences_per_second"] / speed["sentences_per_second"]
    speed["peak memory (MiB)"] = speed["peak_memory_bytes"] / 2**20
    return speed[["objective", "batch_size", "steps", "sentences_per_second", "speed-up of QT", "peak memory (MiB)",
                  "parameters"]]


def speed_ratios(speed: pd.DataFrame) -> tuple[float, float]:
    """QT's sentences per second over exact-softmax and over sampled-softmax skip-thought (NaN when not measured)."""
    qt_rate = speed.loc["in-batch", "sentences_per_second"]
    exact = qt_rate / speed.loc["exact", "sentences_per_second"]
    sampled = qt_rate / speed.loc["sampled", "sentences_per_second"] if "sampled" in speed.index else float("nan")
    return exact, sampled


def repeats(bench: dict) -> list[list[dict]]:
    """The runs of each repeat of a throughput benchmark record (:func:`measure_throughput`)."""
    return bench.get("repeats", [bench["runs"]])


def mean_speed_table(bench: dict) -> pd.DataFrame:
    """:func:`speed_table` averaged over the benchmark's repeats (the speed-ups are the mean of each repeat's ratio,
    the figure chapter 06's hardware table and the speed claim use)."""
    tables = [speed_table(runs) for runs in repeats(bench)]
    numbers = pd.concat(tables).drop(columns="objective").groupby(level=0, sort=False).mean()
    return tables[0][["objective"]].join(numbers)[tables[0].columns]


def mean_speed_ratios(bench: dict) -> tuple[float, float]:
    """QT's mean speed-up over exact- and over sampled-softmax skip-thought across the benchmark's repeats."""
    ratios = np.array([speed_ratios(speed_table(runs)) for runs in repeats(bench)])
    with np.errstate(invalid="ignore"):
        return tuple(float(np.nanmean(ratios[:, i])) if np.isfinite(ratios[:, i]).any() else float("nan")
                     for i in range(2))


def training_hours() -> pd.Series:
    """The paper's training times in hours by model (Table 1, Table 9 and the efficiency study)."""
    return published(PAPER.key).query("task == 'training'").set_index("model")["value"]


def paper_speed_ratio() -> float:
    """The paper's speed-up of QT over skip-thought in the efficiency study (ST hours over QT hours)."""
    hours = training_hours()
    return hours["ST (efficiency study)"] / hours["QT (efficiency study)"]


def smaller_mc_qt(qt) -> dict[str, dict]:
    """Table 9's smaller MC-QT models beside the preset's: name (``MC-QT <vector size>d``) → preset overrides, each
    channel's GRU a third and two thirds as wide (their vectors: 8 × ``bi_hidden``)."""
    return {f"MC-QT {8 * h}d": {"bi_hidden": h} for h in (qt.bi_hidden // 3, 2 * qt.bi_hidden // 3)}


def curve_changes(evals: list[dict], tasks: list[str]) -> dict[str, int]:
    """Between the first and the last evaluation record of a training log: on how many of ``tasks`` the score
    ``"fell"`` and on how many it ``"rose"``."""
    first, last = pd.Series(evals[0])[tasks], pd.Series(evals[-1])[tasks]
    return {"fell": int((first > last).sum()), "rose": int((first < last).sum())}


def size_table(records: dict[str, dict], mean_accuracy: dict[str, float]) -> pd.DataFrame:
    """Table 9, ours: one row per model (``records``: its training record with ``dim``, ``step``, ``seconds``;
    ``mean_accuracy``: its mean classification accuracy), named ``MC-QT <dim>d``, smallest first."""
    rows = {f"MC-QT {r['dim']}d": {"vector size": r["dim"], "steps": r["step"], "training seconds": r["seconds"],
                                   "mean accuracy": mean_accuracy[name]} for name, r in records.items()}
    return pd.DataFrame(rows).T.sort_values("vector size")


def paper_sizes() -> pd.DataFrame:
    """Table 9, the paper's: MC-QT by size with its vector size, training hours and mean accuracy."""
    paper = published(PAPER.key).query("table == 'Table 9'").pivot(index="model", columns="task", values="value")
    paper = paper.rename(columns={"training": "training hours", "classification mean": "mean accuracy"})
    paper.insert(0, "vector size", paper.index.str.extract(r"(\d+)d", expand=False).astype(int).to_numpy())
    return paper


def size_figure(ours: pd.DataFrame, paper: pd.DataFrame):
    """Mean accuracy against training time, each model a dot sized and labelled by its vector size: ours (seconds,
    the same number of steps) beside the paper's (hours, one epoch)."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    for ax, frame, x, title in ((axes[0], ours, "training seconds", "ours (same number of steps)"),
                                (axes[1], paper, "training hours", "paper (one epoch)")):
        sns.scatterplot(data=frame, x=x, y="mean accuracy", size="vector size", sizes=(40, 200), legend=False, ax=ax)
        for _, r in frame.iterrows():
            ax.annotate(f"{r['vector size']:,.0f}-d", (r[x], r["mean accuracy"]), xytext=(4, 4),
                        textcoords="offset points")
        ax.set(title=title)
    return fig


#: uni-QT's input encoder ``f`` alone, scored beside ST in the efficiency study (the same encoder size).
UNI_QT_F = "uni-QT f"
#: The models whose neighbours (Table 5, the explorer) and analogy answers (Tables 6-7) the chapter shows.
NEIGHBOUR_MODELS = ("uni-QT", "ST", "MC-QT", "glove-bow")
#: The headline encoders whose neighbours of every held-out pool sentence the searchable explorer shows.
SEARCH_MODELS = ("uni-QT", "MC-QT")
ANALOGY_MODELS = ("uni-QT", "MC-QT", "ST", "glove-bow")
#: The models of :class:`QuickThoughtModels` that train (``combine-QT`` and ``glove-bow`` are built from others).
FAMILY = ("uni-QT", "ST", "bi-QT", "MC-QT", "BoW-QT")
#: The models trained with several seeds (the claims' training noise): every model a claim compares, so the whole
#: family (with Table 9's smallest MC-QT: :meth:`QuickThoughtModels.seed_units`).
SEED_MODELS = FAMILY


class QuickThoughtModels(ChapterModels):
    """The chapter's models by name, each trained or reloaded once through :meth:`run.model
    <reproducer.results_store.NotebookRun.model>` (this kernel's model, else trained, resuming from its checkpoint; a
    finished one is reloaded): the Quick-Thoughts ``uni-QT``, ``bi-QT``, ``MC-QT`` and ``BoW-QT`` (their steps: each
    model's ``budgets``, :class:`~reproducer.declarations.Model`) of the preset ``settings``; ``ST``,
    the efficiency study's skip-thought
    (:func:`matched_skip_thought`); Table 9's smaller MC-QT (:func:`smaller_mc_qt`, as many steps as MC-QT).
    ``combine-QT`` is ``[uni-QT; bi-QT]``, ``uni-QT f`` uni-QT's input encoder alone and ``glove-bow`` GloVe
    averaging. ST and uni-QT's input encoder ``f`` are scored on ``curve_tasks`` while they train (Figure 2). The
    training data (the corpus, its word ids, MC-QT's ids of a large vocabulary: ours, then every other GloVe word) are
    loaded on first use. A :class:`~reproducer.report.units.ChapterModels`: :meth:`unit` trains a model and caches
    everything the chapter shows of it."""

    family = "quick-thought"
    paper = PAPER
    #: Every seed answers the same analogy questions (mined with seed 0), as chapter 01's combine-skip does: the
    #: analogy claim compares the two on one question set, as Table 6 does.
    QUESTION_SEED = 0
    #: The untrained twins (issue 44): uni-QT's (also with our word2vec in its learned embeddings) and MC-QT's (its
    #: fixed GloVe channel as it is, the learned one at its draw).
    TWINS, WORD2VEC_TWINS = ("uni-QT", "MC-QT"), ("uni-QT",)
    SEARCH = SEARCH_MODELS

    def __init__(self, run, settings, curve_tasks: list[str], *, tasks: list[str] | None = None, seed: int = 0,
                 progress: bool = True, pool_size: int = 20000, n_queries: int = 10):
        super().__init__(run, settings, tasks=list(tasks or curve_tasks), seed=seed, progress=progress,
                         pool_size=pool_size, n_queries=n_queries)
        self.curve_tasks = curve_tasks
        self.classification = [t for t in self.tasks if t not in ("SICK-R", "STS14")]
        self.st_settings = matched_skip_thought(settings)
        self.sizes = smaller_mc_qt(settings)
        own = {m.name: {"max_steps": m.budgeted(settings).max_steps}  # the models' own budgets
               for m in models(family=self.family) if m.budgets}
        # Table 9's smaller MC-QTs train as many steps as MC-QT
        self.overrides = {**own, **{name: {**own.get("MC-QT", {}), **o} for name, o in self.sizes.items()}}

    @property
    def smallest(self) -> str:
        """The smallest MC-QT of our Table 9 (a claim compares it with chapter 01's combine-skip)."""
        return next(iter(self.sizes))

    @property
    def seed_units(self) -> tuple[str, ...]:
        """The models every training seed trains for the claims, in order: :data:`SEED_MODELS`, then :attr:`smallest`
        (as many steps as that seed's MC-QT)."""
        return (*SEED_MODELS, self.smallest)

    def sibling(self, run, settings, seed: int) -> "QuickThoughtModels":
        return QuickThoughtModels(run, settings, self.curve_tasks, tasks=self.tasks, seed=seed, progress=self.progress,
                                  pool_size=self.pool_size, n_queries=self.n_queries)

    def settings_record(self) -> dict:
        return {"quick_thought": self.settings.to_dict(), "skip_thought": self.st_settings.to_dict(),
                "seed": self.seed, "tasks": self.tasks, "curve_tasks": self.curve_tasks,
                "device": str(default_device())}

    @functools.cached_property
    def data(self):
        """The corpus as ids of its ``settings.vocab_size`` most frequent words: the family's ``training_data``
        (what ``python -m reproducer train`` trains on too)."""
        return family(self.family).training_data("uni-QT", self.settings)

    def twin_inputs(self, name: str) -> tuple:
        """A Quick-Thoughts variant's settings (with the chapter's overrides for it) and data, as :meth:`fit` trains
        it: MC-QT on :attr:`glove_data`, the others on :attr:`data`; combine-QT as its parts."""
        variant = name.split()[0]
        data = self.glove_data if variant == "MC-QT" else self.data
        return self.settings.with_overrides(**self.overrides.get(name, {})), data

    @functools.cached_property
    def glove_data(self):
        """MC-QT's ids: ours, then every other GloVe word (fixed vectors; zero rows for ours without one): the
        family's ``training_data`` for MC-QT."""
        return family(self.family).training_data("MC-QT", self.settings)

    def held_out(self, family: str, variant: str, settings):
        """The held-out loss callback of a model (:func:`~reproducer.evaluate.training_curve.held_out_loss` on 16
        batches of the held-out books)."""
        return held_out_loss(family_of(family).held_out_batches(variant, settings, self.data))

    def fit(self, name: str):
        """The :class:`~reproducer.fit.Fitted` model ``name`` (``ST``, a Quick-Thoughts variant, or one of
        :attr:`sizes`), trained or reloaded by ``run.model``; its encoder carries the name. Every model but MC-QT
        records its held-out loss at the preset's evaluation points; uni-QT's input encoder ``f`` and ST are also
        scored on the curve tasks (Figure 2)."""
        from reproducer.evaluate.training_curve import combined, curve_scores

        config = quick_look(self.settings.eval_config)

        def train(checkpoint):
            options = dict(checkpoint=checkpoint, seed=self.seed, progress=self.progress)
            if name == "ST":
                evaluate = combined(curve_scores(self.curve_tasks, config), self.held_out("skip-thought", "uni-skip",
                                                                                  self.st_settings))
                skip_thought = family("skip-thought")  # on QT's data: the same sentences and vocabulary
                fitted = skip_thought.fit("uni-skip", self.st_settings, self.data, evaluate=evaluate, **options)
            else:
                variant = name.split()[0]
                f_scores = curve_scores(self.curve_tasks, config,
                                        encoder=lambda fitted: fitted.encoder.encoders[0])  # f alone
                settings = self.settings.with_overrides(**self.overrides.get(name, {}))
                evaluate = None if variant == "MC-QT" else combined(
                    f_scores if name == "uni-QT" else None, self.held_out("quick-thought", variant, settings))
                data = self.glove_data if variant == "MC-QT" else self.data
                fitted = family(self.family).fit(variant, settings, data, evaluate=evaluate, **options)
            fitted.encoder.name = name  # its bundle and its results carry the model's name
            return fitted

        return self.run.model(name, train)

    def record(self, name: str) -> dict:
        """Model ``name``'s training log with its vector size ``dim``: ``<name>_training.json`` if present, else
        from :meth:`fit`."""
        return self.run.training_record(name, lambda: {
            **self.fit(name).log.to_dict(), "dim": int(self.fit(name).encoder.encode(["a sentence ."]).shape[1])})

    def trained(self, name: str):
        """Model ``name``'s encoder: this kernel's or the saved one, else :meth:`fit`'s; ``combine-QT`` is
        ``[uni-QT; bi-QT]``, ``glove-bow`` GloVe averaging."""
        if name == "combine-QT":
            from reproducer.encoders.trained import ConcatEncoder

            return ConcatEncoder([self.trained("uni-QT"), self.trained("bi-QT")], name)
        if name == UNI_QT_F:  # uni-QT's input encoder alone: the size of ST's encoder (Figure 2)
            import copy

            f = copy.copy(self.trained("uni-QT").encoders[0])  # the same module, under its own name
            f.name = name
            return f
        if name == "glove-bow":
            from reproducer.encoders.baselines import load_baseline

            return load_baseline(name)
        return self.saved(name, self.fit)

    def unit(self, name: str, neighbours: bool = True) -> None:
        """Everything the chapter shows of model ``name``, computed right after it trains and cached (the chapter
        resumes from the last finished unit): its training record; its evaluation (Table 9's sizes: the
        classification tasks only); after uni-QT, its input encoder f's on Figure 2's tasks; after bi-QT,
        combine-QT's; for :data:`TWINS`, their untrained twins' (every seed); for the explorer's models
        (``neighbours``) and the analogies' models, their neighbours and analogy answers (and for :data:`SEARCH_MODELS`
        their neighbours of every pool sentence, :meth:`search`); then the evaluations (and
        MC-QT's analogy answers) of the same encoders at half the model's step budget (:meth:`halfway`)."""
        if name in (*FAMILY, *self.sizes):
            self.record(name)
        self.evaluated(name, self.classification if name in self.sizes else None)
        if name == "uni-QT":
            self.evaluated(UNI_QT_F, self.curve_tasks)
        if name == "bi-QT":
            self.evaluated("combine-QT")
        self.twins([name])
        if neighbours and name in NEIGHBOUR_MODELS:
            self.products.neighbours(name)
        if neighbours and name in self.SEARCH:  # the searchable explorer over the whole pool (issue 69)
            self.search(name)
        if name in ANALOGY_MODELS:
            self.analogy(name, () if name == "glove-bow" else None)
        if name in (*FAMILY, *self.sizes):
            halves = {name: (self.classification if name in self.sizes else None, (name,)),
                      **({UNI_QT_F: (self.curve_tasks, ("uni-QT",))} if name == "uni-QT" else {}),
                      **({"combine-QT": (None, ("uni-QT", "bi-QT"))} if name == "bi-QT" else {})}
            self.halfway(halves, {"MC-QT": ("MC-QT",)} if name == "MC-QT" else None)


def analogy_answers(models: "QuickThoughtModels") -> dict:
    """The analogy claim's evidence of one seed (:func:`~reproducer.papers.quick_thoughts.claims.analogy_claims`):
    ``models``' MC-QT answers and chapter 01's combine-skip answers of the same seed (its folder of the same name),
    each with the category of every question, when both answered the same questions; ``{}`` otherwise (a chapter not
    run, or run before every seed answered seed 0's questions)."""
    def theirs(name):
        return models.run.earlier("01_skip_thoughts", name, default=None, same_seed=True)

    ours, their_answers = models.products.stored_analogy("MC-QT"), theirs("analogy_combine-skip")
    questions = read_json(models.run.path("analogy_questions.json"))
    their_questions = theirs("analogy_questions")
    if None in (ours, their_answers, questions, their_questions) or (questions["questions"]
                                                                      != their_questions["questions"]):
        return {}
    categories = [q["category"] for q in questions["questions"]]
    return {"MC-QT": {**ours, "categories": categories}, "combine-skip": {**their_answers, "categories": categories}}


def training_loss_figure(records: dict[str, dict]):
    """The training loss of every Quick-Thoughts record (left) and of the skip-thought ``ST`` (right, per token), with
    the held-out loss of each (dots) where it was recorded."""
    import matplotlib.pyplot as plt
    import seaborn as sns


    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    qt = {n: r for n, r in records.items() if n != "ST"}
    curves(qt, "loss", axes[0], xlabel="training seconds", ylabel="KL to the context distribution",
           title="Quick-Thoughts loss (lines: training; dots: held-out)")
    sns.lineplot(data=pd.DataFrame(records["ST"]["losses"]), x="seconds", y="loss", ax=axes[1], color="C7",
                 label="training")
    palette = dict(zip(qt, sns.color_palette()))  # the training lines' colours, in the same order
    for ax, logs, colour in ((axes[0], qt, None), (axes[1], {"ST": records["ST"]}, "black")):
        held = log_frame(logs, "evals") if any(log.get("evals") for log in logs.values()) else pd.DataFrame()
        if "held-out loss" in held:
            held = held.dropna(subset=["held-out loss"])
            style = {"color": colour, "label": "held-out"} if colour else {"hue": "model", "palette": palette}
            sns.scatterplot(data=held, x="seconds", y="held-out loss", ax=ax, legend=False, zorder=3, **style)
    axes[1].set(xlabel="training seconds", ylabel="loss (two decoders, per token)",
                title="Skip-thought (same encoder) loss")
    return fig


def figure2(qt: dict, st: dict, tasks: list[str], settings):
    """Figure 2: one panel per task, the score of uni-QT's ``f`` (record ``qt``) and of ``ST`` (record ``st``)
    against training time on the calm machine the budgets were set on (steps × each objective's declared seconds
    per step, :data:`~reproducer.papers.quick_thoughts.objective.QT_CALM_SECONDS_PER_STEP`: the same axis on every
    machine; :func:`~reproducer.report.plots.task_curves`)."""
    from reproducer.papers.quick_thoughts.objective import QT_CALM_SECONDS_PER_STEP, ST_STEPS_PER_QT_STEP

    clock = {"QT (f only)": QT_CALM_SECONDS_PER_STEP, "ST": QT_CALM_SECONDS_PER_STEP / ST_STEPS_PER_QT_STEP}
    return task_curves({"QT (f only)": qt, "ST": st}, tasks, ylabel="accuracy (%); SICK-R: Pearson r",
                       title=f"Same encoder (GRU {settings.hidden}, words {settings.word_dim}), two objectives",
                       seconds_per_step=clock,
                       xlabel=f"seconds on a calm 2-core CPU (steps × {clock['QT (f only)']:.2f} s QT, "
                              f"× {clock['ST']:.2f} s ST)")


def figure2_note(qt: dict, st: dict, tasks: list[str], corpus_sentences: int | None = None) -> str:
    """What Figure 2 shows (Markdown), from the two training records: the updates (and epochs of a corpus of
    ``corpus_sentences``) each objective made, on how many of ``tasks`` each score rose between the first and the last
    evaluation, and how much each held-out loss still moved over the last third of training."""
    def epochs(r):
        return f" ({r['examples'] / corpus_sentences:.2f} epochs)" if corpus_sentences else ""

    rose = {n: curve_changes(r["evals"], tasks)["rose"] for n, r in (("uni-QT", qt), ("ST", st))}
    change = {n: held_out_change(r["evals"]) for n, r in (("uni-QT", qt), ("ST", st))}
    held = ("" if any(math.isnan(c) for c in change.values()) else
            f" Over the last third of training the held-out loss changed by {change['uni-QT']:+.1f}% for QT and "
            f"{change['ST']:+.1f}% for ST (near 0: that objective has flattened at this size).")
    return (
        f"In equal time on a calm machine (the step budgets: the step counts each made in the same seconds there) "
        f"the skip-thought makes **{st['step']:,} updates** of 400 sentences{epochs(st)}, Quick-Thoughts "
        f"**{qt['step']:,}**{epochs(qt)}; on the machine that ran this notebook they took {st['seconds'] / 60:.0f} and "
        f"{qt['seconds'] / 60:.0f} minutes. Between the first and the last evaluation QT's score rose on "
        f"{rose['uni-QT']} of {len(tasks)} tasks and ST's on {rose['ST']}.{held} The two encoders start from different "
        "initialisations (QT's GRU is Xavier-uniform with gate biases 1, as Logeswaran & Lee; ST's has orthogonal "
        "recurrent weights, as Kiros et al.), so the first points differ for that reason too.")


def speed_note(bench: dict, vocab_size: int, qt: dict, st: dict) -> str:
    """The speed ratio (Markdown): QT over exact- and sampled-softmax skip-thought in the throughput benchmark
    ``bench`` (the mean over its repeats, :func:`mean_speed_ratios`), QT over ST in the training runs ``qt`` and ``st``
    (sentences per training second), and the paper's."""
    exact, sampled = mean_speed_ratios(bench)
    runs = repeats(bench)
    hours = training_hours()
    qt_rate, st_rate = (r["examples"] / r["seconds"] for r in (qt, st))
    return (
        f"**Speed ratio (sentences/second, QT ÷ ST, mean of {len(runs)} benchmark repeat(s), {runs[0][0]['device']}):** "
        f"**{exact:.1f}×** against skip-thought with the paper's exact softmax over {vocab_size:,} words, "
        f"**{sampled:.1f}×** against our sampled-softmax skip-thought (the one trained above), every objective at "
        f"batch {runs[0][0]['batch_size']}, as the paper timed both. In the training runs "
        f"of the study (batch 400 for both): QT {qt_rate:,.0f} vs ST {st_rate:,.0f} sentences/s "
        f"= {qt_rate / st_rate:.1f}×. The paper: {hours['ST (efficiency study)']:g} h ÷ "
        f"{hours['QT (efficiency study)']:g} h = **{paper_speed_ratio():.1f}×** at $H = 1000$ on a GPU.")


def size_caption(table: pd.DataFrame, tasks: list[str]) -> str:
    """Table 9's caption (Markdown) for our :func:`size_table` ``table``, its accuracy the mean over ``tasks``."""
    return (f"**Table 9**, ours: MC-QT at {len(table)} sizes, {int(table.steps.iloc[0]):,} steps each "
            f"(mean accuracy over {', '.join(tasks)}).")


def quick_thought_rows(bench: dict, hardware: str) -> list[dict]:
    """Logeswaran & Lee's appendix C: QT's speed-up over skip-thought (31 over 6.5 training hours for one epoch on a
    GTX Titan X) beside our throughput benchmark's (QT against exact- and sampled-softmax skip-thought, the mean of
    the repeats)."""
    paper = paper_speed_ratio()
    rows = []
    for softmax, ours in zip(("exact", "sampled"), mean_speed_ratios(bench)):
        rows.append({"paper": "Logeswaran & Lee 2018", "figure": "Appendix C",
                     "quantity": f"speed-up of QT over skip-thought ({softmax} softmax here)",
                     "paper's value": paper, "paper's hardware": "GTX Titan X (one epoch of BookCorpus)",
                     "ours": ours, "our hardware": hardware, "ours / paper": ours / paper,
                     "note": f"mean of {len(repeats(bench))} benchmark repeats; sentences per second"})
    return rows


def timing_rows(folder, hardware: str) -> list[dict]:
    """Chapter 06's hardware rows of this paper (:func:`quick_thought_rows`) from the throughput benchmark in the
    chapter's results ``folder``; none before it has run."""
    bench = read_json(Path(folder) / f"{BENCHMARK}.json")
    return quick_thought_rows(bench, hardware) if bench else []

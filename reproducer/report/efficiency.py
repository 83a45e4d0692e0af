"""Training efficiency of Quick-Thoughts against skip-thought (Logeswaran & Lee 2018, Appendices C and D), from our runs.

- **The chapter's models**: :class:`QuickThoughtModels` trains or reloads each by name (the family, the efficiency
  study's skip-thought, Table 9's sizes), records its training log and evaluates it; :func:`training_loss_figure`
  draws the training losses.
- **Figure 2** (Appendix C): the same GRU encoder trained with both objectives. :func:`matched_skip_thought` is the
  skip-thought preset of a Quick-Thoughts encoder (sizes, data, optimiser, budget); :func:`throughput` times both
  objectives, each in its own process (:func:`reproducer.bench.bench_train`); :func:`speed_table` and
  :func:`speed_ratios` read its runs; :func:`curve_changes` counts the tasks whose score fell while training;
  :func:`figure2` draws the curves, :func:`figure2_note` and :func:`speed_note` say what they and the benchmark show.
- **Table 9** (Appendix D): MC-QT at several sizes for the same number of steps: :func:`smaller_mc_qt` (the smaller
  models' preset overrides), :func:`size_table` (ours), :func:`paper_sizes` (the paper's) and :func:`size_figure`
  (accuracy against training time, both side by side); :func:`size_caption` heads our table.
"""
from __future__ import annotations

import functools
import math

import pandas as pd

from reproducer.report.published import published

PAPER = "logeswaran2018"


def matched_skip_thought(qt):
    """The skip-thought preset of the efficiency study for a :class:`~reproducer.objectives.quick_thought.QuickThoughtPreset`
    ``qt``: uni-skip with QT's encoder (vocabulary, word size, GRU width ``qt.hidden``, decoders as wide), batch,
    sentence length, optimiser and budget; the rest (e.g. the sampled softmax) from the skip-thought preset of the
    same scale."""
    from reproducer.presets import preset

    return preset("skip-thought", qt.name, vocab_size=qt.vocab_size, word_dim=qt.word_dim, uni_hidden=qt.hidden,
                  decoder_hidden=qt.hidden, batch_size=qt.batch_size, lr=qt.lr, clip=qt.clip, max_len=qt.max_len,
                  max_seconds=qt.max_seconds, max_steps=qt.max_steps, eval_every=qt.eval_every)


def throughput(qt, st, seconds: float, seed: int = 0) -> dict:
    """``{"runs": [...]}``: Quick-Thoughts and exact-softmax skip-thought with QT's encoder sizes, each trained for
    ``seconds`` in a fresh process (:func:`~reproducer.bench.bench_train`); also the sampled-softmax skip-thought when
    the skip-thought preset ``st`` uses one."""
    from reproducer.bench import bench_train

    sizes = dict(hidden=qt.hidden, word_dim=qt.word_dim, vocab_size=qt.vocab_size, seconds=seconds,
                 max_books=qt.max_books, seed=seed)
    runs = bench_train(["quick_thought", "skip_thought"], n_sampled=0, **sizes)["runs"]
    if st.n_sampled:
        runs += bench_train(["skip_thought"], n_sampled=st.n_sampled, **sizes)["runs"]
    return {"runs": runs}


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


def training_hours() -> pd.Series:
    """The paper's training times in hours by model (Table 1, Table 9 and the efficiency study)."""
    return published(PAPER).query("task == 'training'").set_index("model")["value"]


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
    paper = published(PAPER).query("table == 'Table 9'").pivot(index="model", columns="task", values="value")
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


def faster(*ratios: float) -> bool:
    """Whether every measured speed ratio (NaN: not measured) is above 1."""
    return all(r > 1 for r in ratios if not math.isnan(r))


#: Each model's share of the preset's budget (uni-QT's and ST's); the rest train for the whole budget. At ``default``
#: uni-QT and ST get about an epoch (Figure 2 compares them), bi-QT and MC-QT 15 minutes, BoW-QT 5.
BUDGET_SHARES = {"quick": {"BoW-QT": 1 / 3}, "default": {"bi-QT": 3 / 7, "MC-QT": 3 / 7, "BoW-QT": 1 / 7}}

#: The models of :class:`QuickThoughtModels` that train (``combine-QT`` and ``glove-bow`` are built from others).
FAMILY = ("uni-QT", "ST", "bi-QT", "MC-QT", "BoW-QT")


class QuickThoughtModels:
    """The chapter's models by name, each trained or reloaded once through :meth:`run.model
    <reproducer.notebook.NotebookRun.model>` (this kernel's model, else trained, resuming from its checkpoint; a
    finished one is reloaded): the Quick-Thoughts ``uni-QT``, ``bi-QT``, ``MC-QT`` and ``BoW-QT`` (a third of the
    budget) of the preset ``settings``; ``ST``, the efficiency study's skip-thought (:func:`matched_skip_thought`);
    Table 9's smaller MC-QT (:func:`smaller_mc_qt`, as many steps as MC-QT took). ``combine-QT`` is ``[uni-QT; bi-QT]``
    and ``glove-bow`` GloVe averaging. ST and uni-QT's input encoder ``f`` are scored on ``curve_tasks`` while they
    train (Figure 2). The training data (the corpus, its word ids, MC-QT's ids of a large vocabulary: ours, then every
    other GloVe word) are loaded on first use."""

    def __init__(self, run, settings, curve_tasks: list[str], *, seed: int = 0, progress: bool = True):
        from reproducer.data.corpus import CorpusConfig

        self.run, self.settings, self.curve_tasks, self.seed, self.progress = run, settings, curve_tasks, seed, progress
        self.st_settings = matched_skip_thought(settings)
        self.corpus_config = CorpusConfig(max_books=settings.max_books)
        self.sizes = smaller_mc_qt(settings)
        shares = BUDGET_SHARES.get(settings.name, BUDGET_SHARES["quick"])
        self.overrides = {**{name: {"max_seconds": settings.max_seconds and settings.max_seconds * share}
                             for name, share in shares.items()}, **self.sizes}

    @functools.cached_property
    def corpus(self):
        """The training corpus (:func:`~reproducer.data.corpus.load_corpus`)."""
        from reproducer.data.corpus import load_corpus

        return load_corpus("train", self.corpus_config, progress=False)

    @functools.cached_property
    def data(self):
        """The corpus as ids of its ``settings.vocab_size`` most frequent words."""
        from reproducer.data.training_corpus import word_ids

        return word_ids(self.corpus, self.settings.vocab_size)

    @functools.cached_property
    def glove_data(self):
        """MC-QT's ids: ours, then every other GloVe word (fixed vectors; zero rows for ours without one)."""
        from reproducer.data.pretrained_ids import with_pretrained_channel
        from reproducer.data.vectors import load_glove

        return with_pretrained_channel(self.corpus, self.data, load_glove())

    def held_out(self, family: str, variant: str, settings):
        """The held-out loss callback of a model (:func:`~reproducer.evaluate.training_curve.held_out_loss` on 16
        batches of the held-out books)."""
        from reproducer.evaluate.training_curve import held_out_loss
        from reproducer.models import family as family_of

        return held_out_loss(family_of(family).held_out_batches(variant, settings, self.data))

    def fit(self, name: str):
        """The :class:`~reproducer.train.Fitted` model ``name`` (``ST``, a Quick-Thoughts variant, or one of
        :attr:`sizes`), trained or reloaded by ``run.model``; its encoder carries the name. Every model but MC-QT
        records its held-out loss at the preset's evaluation points; uni-QT's input encoder ``f`` and ST are also
        scored on the curve tasks (Figure 2)."""
        from reproducer.evaluate.training_curve import combined, curve_scores
        from reproducer.objectives.quick_thought import fit_quick_thought
        from reproducer.objectives.skip_thought import fit_skip_thought

        def train(checkpoint):
            options = dict(checkpoint=checkpoint, seed=self.seed, progress=self.progress)
            if name == "ST":
                evaluate = combined(curve_scores(self.curve_tasks), self.held_out("skip-thought", "uni-skip",
                                                                                  self.st_settings))
                fitted = fit_skip_thought("uni-skip", self.st_settings, self.data, evaluate=evaluate, **options)
            else:
                variant, steps = name.split()[0], self.record("MC-QT")["step"] if name in self.sizes else None
                f_scores = curve_scores(self.curve_tasks, encoder=lambda fitted: fitted.encoder.encoders[0])  # f alone
                settings = self.settings.with_overrides(max_steps=steps, **self.overrides.get(name, {}))
                evaluate = None if variant == "MC-QT" else combined(
                    f_scores if name == "uni-QT" else None, self.held_out("quick-thought", variant, settings))
                fitted = fit_quick_thought(variant, settings, self.glove_data if variant == "MC-QT" else self.data,
                                           evaluate=evaluate, **options)
            fitted.encoder.name = name  # its bundle and its results carry the model's name
            return fitted

        return self.run.model(name, train)

    def record(self, name: str) -> dict:
        """Model ``name``'s training log with its vector size ``dim``: ``<name>_training.json`` if present, else
        from :meth:`fit`."""
        from reproducer.notebook import slug

        return self.run.json(f"{slug(name)}_training", lambda: {
            **self.fit(name).log.to_dict(), "dim": int(self.fit(name).encoder.encode(["a sentence ."]).shape[1])})

    def trained(self, name: str):
        """Model ``name``'s encoder: this kernel's or the saved one, else :meth:`fit`'s; ``combine-QT`` is
        ``[uni-QT; bi-QT]``, ``glove-bow`` GloVe averaging."""
        if name == "combine-QT":
            from reproducer.encoders.trained import ConcatEncoder

            return ConcatEncoder([self.trained("uni-QT"), self.trained("bi-QT")], name)
        if name == "glove-bow":
            from reproducer.encoders.baselines import load_baseline

            return load_baseline(name)
        return self.run.encoder(name) or self.fit(name).encoder

    def evaluated(self, name: str, tasks: list[str], key: str | None = None):
        """Model ``name``'s :class:`~reproducer.evaluate.harness.Results` on ``tasks`` (the preset's protocol):
        ``<key>.json`` (by default ``eval_<name>``) if present, else evaluated (about a minute per encoder at the
        prototype protocol)."""
        from reproducer.evaluate import Results, evaluate
        from reproducer.notebook import slug

        return Results.from_json(self.run.json(key or f"eval_{slug(name)}", lambda: evaluate(
            self.trained(name), list(tasks), self.settings.eval_config, progress=False).to_json()))


def training_loss_figure(records: dict[str, dict]):
    """The training loss of every Quick-Thoughts record (left) and of the skip-thought ``ST`` (right, per token)."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    from reproducer.report.plots import curves

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    curves({n: r for n, r in records.items() if n != "ST"}, "loss", axes[0], xlabel="training seconds",
           ylabel="KL to the context distribution", title="Quick-Thoughts training loss")
    sns.lineplot(data=pd.DataFrame(records["ST"]["losses"]), x="seconds", y="loss", ax=axes[1], color="C7")
    axes[1].set(xlabel="training seconds", ylabel="loss (two decoders, per token)",
                title="Skip-thought (same encoder) loss")
    return fig


def figure2(qt: dict, st: dict, tasks: list[str], settings):
    """Figure 2: one panel per task, the score of uni-QT's ``f`` (record ``qt``) and of ``ST`` (record ``st``)
    against training seconds (:func:`~reproducer.report.plots.task_curves`)."""
    from reproducer.report.plots import task_curves

    return task_curves({"QT (f only)": qt, "ST": st}, tasks, ylabel="accuracy (%); SICK-R: Pearson r",
                       title=f"Same encoder (GRU {settings.hidden}, words {settings.word_dim}), two objectives")


def figure2_note(qt: dict, st: dict, tasks: list[str]) -> str:
    """What Figure 2 shows (Markdown): the updates each objective made in its budget, why the first points differ,
    and on how many of ``tasks`` each score fell between the first and the last evaluation."""
    falls = {n: curve_changes(r["evals"], tasks)["fell"] for n, r in (("uni-QT", qt), ("ST", st))}
    return (
        f"In {st['seconds']:.0f} s the skip-thought made **{st['step']} updates** of 400 sentences, "
        f"Quick-Thoughts **{qt['step']}**. At this scale both encoders are still close to their random "
        "initialisations, and those differ: QT's GRU is Xavier-uniform with gate biases 1 (Logeswaran & Lee), ST's has "
        "orthogonal recurrent weights (Kiros et al.), while the paper's study drew both from one distribution; so part of "
        "the gap at the first point is the initialisation, not the objective. Between the first and the last evaluation "
        f"ST's score falls on {falls['ST']} of {len(tasks)} tasks and QT's on {falls['uni-QT']}: neither has "
        "trained long enough for its curve to rise as the paper's do over 30 hours.")


def speed_note(runs: list[dict], vocab_size: int, qt: dict, st: dict) -> str:
    """The speed ratio (Markdown): QT over exact- and sampled-softmax skip-thought in the benchmark's ``runs``, QT
    over ST in the training runs ``qt`` and ``st`` (sentences per training second), and the paper's."""
    exact, sampled = speed_ratios(speed_table(runs))
    hours = training_hours()
    qt_rate, st_rate = (r["examples"] / r["seconds"] for r in (qt, st))
    return (
        f"**Speed ratio (sentences/second, QT ÷ ST, same benchmark run, {runs[0]['device']}):** "
        f"**{exact:.1f}×** against skip-thought with the paper's exact softmax over {vocab_size:,} words, "
        f"**{sampled:.1f}×** against our sampled-softmax skip-thought (the one trained above). In the training runs "
        f"of the study (batch 400 for both): QT {qt_rate:,.0f} vs ST {st_rate:,.0f} sentences/s "
        f"= {qt_rate / st_rate:.1f}×. The paper: {hours['ST (efficiency study)']:g} h ÷ "
        f"{hours['QT (efficiency study)']:g} h = **{paper_speed_ratio():.1f}×** at $H = 1000$ on a GPU.")


def size_caption(table: pd.DataFrame, tasks: list[str]) -> str:
    """Table 9's caption (Markdown) for our :func:`size_table` ``table``, its accuracy the mean over ``tasks``."""
    return (f"**Table 9**, ours: MC-QT at {len(table)} sizes, {int(table.steps.iloc[0]):,} steps each "
            f"(mean accuracy over {', '.join(tasks)}).")

"""Chapter 06's equal-compute study: every objective that trains on the book corpus given **the same training time on
one calm machine** and scored at the same shares of it — Quick-Thoughts' Figure 2 (Logeswaran & Lee 2018, section 4.1:
downstream accuracy against training time, QT against skip-thought) generalised to the five papers. The time is
turned into each line's number of steps by its declared calm rate
(:attr:`~reproducer.declarations.Line.steps_per_second`, measured with ``bench train``), so a busy machine or another
one trains the same models, and the figure's clock (steps over that rate) reads the same everywhere.

- :func:`all_lines`: every paper's lines (its declaration's ``lines``: label → family and variant of
  :mod:`reproducer.papers.registry`), the objectives on the books first; :func:`pairs_lines`: those that train on paraphrase
  pairs instead (the paraphrastic PP, drawn as a separate, labelled line).
- :func:`line_steps`: a line's steps for the study's seconds; :func:`budget_preset`: a family's preset (its sizes,
  its optimiser) with those steps and evaluation points.
- :func:`score_encoder`, :func:`curve_point`: an encoder's two scores (the mean over the transfer tasks and the mean
  over the STS years), and the callback that takes them while a line trains.
- :data:`REFERENCES`: fixed encoders scored the same way (:meth:`EqualCompute.reference`) and drawn across the figure:
  the height a line has before its objective has taught it anything beyond its input vectors.
- :class:`EqualCompute`: one unit per (line, seed) — trains (resuming from its checkpoint), then caches its curve in
  ``equal_<line>_seed<k>.json``: steps, calm and measured seconds, FLOPs and the scores at each point.
- :func:`curve_frame`, :func:`ranking`, :func:`equal_compute_figure`: the curves as one table, the objectives ranked
  at the budget (mean over seeds, with their spread), and the figure (score against calm seconds and against FLOPs,
  seeds as bands); :func:`ranking_summary`: the chapter's reading of them, generated from the same numbers.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

import numpy as np
import pandas as pd

from reproducer.errors import ReproducerError
from reproducer.evaluate.tasks import points_scale
from reproducer.papers.registry import DECLARATIONS
from reproducer.papers.registry import family as family_of
from reproducer.results_store import slug
from reproducer.papers.registry import preset

#: The transfer tasks whose mean is the first score: those of Quick-Thoughts' Figure 2 (chapter 02's efficiency study).
TRANSFER = ("SICK-R", "MRPC", "MR", "CR", "SUBJ", "MPQA")
#: The STS years whose mean is the second score (cosine, weighted-mean Pearson r).
STS = ("STS12", "STS13", "STS14", "STS15", "STS16")
#: Fixed encoders drawn as references: the average of our word2vec vectors, the fixed inputs of consensus MV and the
#: autoencoders and PP's initial vectors (word2vec itself trains in about 4 minutes here, outside the lines' budget).
REFERENCES = ("word2vec-bow",)
#: How many batches estimate a step's FLOPs.
FLOP_BATCHES = 8


def declared_lines() -> dict:
    """Every declared paper's :class:`~reproducer.declarations.Line` by label."""
    return {line.label: line for paper in DECLARATIONS.values() for line in paper.lines}


def all_lines() -> dict[str, tuple[str, str]]:
    """Every declared paper's lines (:class:`~reproducer.declarations.Line`), label -> (family, variant): those trained on
    the book corpus in chapter order, then those trained on paraphrase pairs (:func:`pairs_lines`)."""
    lines = sorted(declared_lines().values(), key=lambda line: line.on_pairs)
    return {line.label: (line.family, line.variant) for line in lines}


def line_inputs() -> dict[str, str]:
    """Every line's word vectors (:attr:`~reproducer.declarations.Line.inputs`), label -> ``"learned"``, ``"fixed"`` or
    ``"initialised"``."""
    return {label: line.inputs for label, line in declared_lines().items()}


def line_of(label: str) -> tuple[str, str]:
    """Line ``label``'s family and variant (:func:`all_lines`); a clear error naming the lines otherwise."""
    lines = all_lines()
    if label not in lines:
        raise ReproducerError(f"Unknown line {label!r}; choose one of {', '.join(lines)}.")
    return lines[label]


def pairs_lines() -> set[str]:
    """The labels of the lines that train on paraphrase pairs, not on the books (drawn dashed)."""
    return {label for label, line in declared_lines().items() if line.on_pairs}


def line_steps(label: str, seconds: float) -> int:
    """Line ``label``'s number of steps for ``seconds`` of training on the calm machine: the seconds times its declared
    :attr:`~reproducer.declarations.Line.steps_per_second`, rounded (at least 1)."""
    line_of(label)
    return max(1, round(seconds * declared_lines()[label].steps_per_second))


def calm_seconds(label: str, step: int) -> float:
    """The study's clock: the seconds line ``label`` takes for ``step`` steps on the calm machine its rate was
    measured on (the same on every machine)."""
    return step / declared_lines()[label].steps_per_second


def budget_preset(family: str, scale: str, steps: int, points: int):
    """``family``'s ``scale`` preset (its sizes, data and optimiser unchanged) trained for ``steps`` steps and scored
    every ``ceil(steps / points)`` steps (and at the end)."""
    if steps < 1 or points < 1:
        raise ReproducerError(f"The budget must be at least one step with at least one point, got {steps} step(s) and "
                              f"{points} point(s).")
    return replace(preset(family, scale), max_steps=int(steps), max_seconds=None, eval_every=None,
                   eval_steps=-(-int(steps) // points))


def test_encoder(fitted):
    """The encoder a line is scored with while it trains, as its chapter scores it: the family's test-time encoder
    (an autoencoder's pools its halves each scaled to unit length: its family's ``fit_options``); for a consensus model the
    unsupervised ensemble of its views without their vector cache (the views change between points)."""
    fresh = getattr(fitted.encoder, "unsupervised_encoder", None)
    return fresh() if fresh is not None else fitted.encoder


def score_encoder(encoder, config: str = "fast", transfer=TRANSFER, sts=STS) -> dict:
    """``encoder``'s scores: ``transfer`` (mean main score over ``transfer``, in points: accuracy %, SICK-R Pearson
    × 100) under the ``config`` protocol, ``STS`` (mean weighted Pearson r × 100 over ``sts``, cosine: nothing is
    trained) and each task's score."""
    from reproducer.evaluate.harness import evaluate

    transfer, sts = list(transfer), list(sts)
    main = {}
    if transfer:
        main.update(evaluate(encoder, transfer, config, progress=False).main_scores())
    if sts:
        main.update(evaluate(encoder, sts, config, progress=False).main_scores())
    points = {t: float(v) * points_scale(t) for t, v in main.items()}
    return {"transfer": float(np.mean([points[t] for t in transfer])) if transfer else float("nan"),
            "STS": float(np.mean([points[t] for t in sts])) if sts else float("nan"), **points}


def curve_point(config: str = "fast", transfer=TRANSFER, sts=STS) -> Callable[[object, int], dict]:
    """The callback ``(fitted, step) -> scores`` of every line: :func:`score_encoder` of the line's
    :func:`test_encoder`."""
    def scores(fitted, step: int) -> dict:
        return score_encoder(test_encoder(fitted), config, transfer, sts)

    return scores


def step_flops(family, fitted, n: int = FLOP_BATCHES) -> float:
    """Useful training FLOPs of one step of ``fitted`` (:meth:`reproducer.declarations.Family.batch_flops`), averaged over
    its first ``n`` batches."""
    if fitted.batches is None:
        raise ReproducerError("This fitted model does not keep its batches: its FLOPs cannot be counted.")
    return float(np.mean([family.batch_flops(fitted.module, fitted.batches(i)) for i in range(n)]))


class EqualCompute:
    """The study in one chapter run: every line of :func:`all_lines` at ``scale``'s sizes, trained for the steps it
    makes in ``seconds`` on the calm machine (:func:`line_steps`) and scored at ``points`` evaluation points by
    :func:`curve_point` under ``config``, for ``seeds`` seeds from ``first_seed``.
    ``run`` is the notebook's :class:`~reproducer.results_store.NotebookRun`: each (line, seed) is a unit cached in
    ``equal_<line>_seed<k>.json`` (re-executing trains nothing; an interrupted unit resumes from its checkpoint)."""

    def __init__(self, run, scale: str, seconds: float, points: int, *, seeds: int = 2, first_seed: int = 0,
                 config: str = "fast", transfer=TRANSFER, sts=STS, progress: bool = True):
        self.run, self.scale, self.seconds, self.points = run, scale, seconds, points
        self.seeds, self.first_seed = seeds, first_seed
        self.config, self.transfer, self.sts, self.progress = config, tuple(transfer), tuple(sts), progress

    def settings_record(self) -> dict:
        return {"scale": self.scale, "seconds": self.seconds, "points": self.points, "seeds": self.seeds,
                "first_seed": self.first_seed,
                "steps": {label: line_steps(label, self.seconds) for label in all_lines()},
                "config": self.config, "transfer": list(self.transfer), "sts": list(self.sts),
                "lines": {k: list(v) for k, v in all_lines().items()}}

    def budget(self, label: str):
        """Line ``label``'s family preset at the study's scale, its steps and the points (:func:`budget_preset`): what
        every unit and start of the line is built with."""
        return budget_preset(line_of(label)[0], self.scale, line_steps(label, self.seconds), self.points)

    def unit(self, label: str, seed: int) -> dict:
        """Line ``label`` trained with ``seed``: its curve (``points``: step, calm seconds (:func:`calm_seconds`),
        measured training seconds, FLOPs and scores at each evaluation point), steps per second and the budget,
        cached as ``equal_<label>_seed<seed>.json``."""
        family_name, variant = line_of(label)
        name = f"equal_{slug(label)}_seed{seed}"

        def compute() -> dict:
            family, settings = family_of(family_name), self.budget(label)
            data = family.training_data(variant, settings)
            scorer = curve_point(self.config, self.transfer, self.sts)
            fitted = self.run.model(name, lambda checkpoint: family.fit(
                variant, settings, data, checkpoint=checkpoint, evaluate=scorer, seed=seed, progress=self.progress,
                **family.fit_options))
            flops = step_flops(family, fitted)
            points = [{**e, "calm seconds": calm_seconds(label, e["step"]), "flops": e["step"] * flops}
                      for e in fitted.log.evals]
            return {"line": label, "family": family_name, "variant": variant, "seed": seed,
                    "budget_seconds": self.seconds, "budget_steps": settings.max_steps,
                    "seconds": fitted.log.seconds, "steps": fitted.log.step,
                    "examples": fitted.log.examples, "step_flops": flops, "points": points}

        return self.run.json(name, compute)

    def start(self, label: str, seed: int) -> dict:
        """Line ``label``'s untrained twin for ``seed``: the model the unit of ``seed`` trains, with the same initial
        weights, scored before its first step as the points are (issue 44: the line's own starting reference, beside
        the fixed :data:`REFERENCES`), cached as ``equal_<label>_seed<seed>_untrained.json``: line, seed, seconds
        (0) and :func:`score_encoder`'s scores."""
        family_name, variant = line_of(label)

        def compute() -> dict:
            family, settings = family_of(family_name), self.budget(label)
            fitted = family.untrained(variant, settings, family.training_data(variant, settings), seed=seed)
            return {"line": label, "seed": seed, "seconds": 0.0,
                    **score_encoder(test_encoder(fitted), self.config, self.transfer, self.sts)}

        return self.run.json(f"equal_{slug(label)}_seed{seed}_untrained", compute)

    def all_starts(self, lines=None) -> list[dict]:
        """:meth:`start` of every (line, seed) of ``lines`` (by default all), as :meth:`all_units`."""
        return [self.start(label, seed) for label in (lines or all_lines())
                for seed in range(self.first_seed, self.first_seed + self.seeds)]

    def reference(self, name: str) -> dict:
        """Baseline ``name`` (:func:`reproducer.encoders.baselines.load_baseline`, e.g. :data:`REFERENCES`) scored as
        the lines are at each point, cached as ``equal_reference_<name>.json``: ``name`` and :func:`score_encoder`'s
        scores."""
        from reproducer.encoders.baselines import BASELINES, is_baseline, load_baseline

        if not is_baseline(name):
            raise ReproducerError(f"Unknown reference {name!r}; choose one of {', '.join(BASELINES)} or an untrained "
                                  "<borep|lstm|esn>-<word2vec|glove>-<width>.")
        return self.run.json(f"equal_reference_{slug(name)}", lambda: {
            "name": name, **score_encoder(load_baseline(name), self.config, self.transfer, self.sts)})

    def all_units(self, lines=None) -> list[dict]:
        """Every (line, seed) unit of ``lines`` (by default all), line by line."""
        return [self.unit(label, seed) for label in (lines or all_lines())
                for seed in range(self.first_seed, self.first_seed + self.seeds)]


#: The columns of :func:`curve_frame`.
CURVE_COLUMNS = ["line", "seed", "calm seconds", "seconds", "step", "flops", "transfer", "STS"]


def curve_frame(units: list[dict]) -> pd.DataFrame:
    """The units' curves as one table: line, seed, calm seconds (the study's clock), measured seconds, step, flops,
    transfer, STS (one row per point)."""
    rows = [{"line": u["line"], "seed": u["seed"], **{k: p.get(k, np.nan) for k in CURVE_COLUMNS[2:]}}
            for u in units for p in u["points"]]
    return pd.DataFrame(rows, columns=CURVE_COLUMNS)


def ranking(units: list[dict], score: str = "transfer") -> pd.DataFrame:
    """The lines ranked by ``score`` at the end of the budget (their last point): mean over seeds, the seeds'
    standard deviation, their count, steps per second and the FLOPs spent, best first."""
    if score not in ("transfer", "STS"):
        raise ReproducerError(f"score must be 'transfer' or 'STS', got {score!r}")
    last = pd.DataFrame([{"line": u["line"], "seed": u["seed"], score: u["points"][-1][score],
                          "steps / second": u["steps"] / u["seconds"] if u["seconds"] else np.nan,
                          "training FLOPs": u["points"][-1]["flops"]} for u in units if u["points"]])
    if last.empty:
        raise ReproducerError("No curve has a point yet: train the units first.")
    table = last.groupby("line").agg(**{score: (score, "mean"), "seed sd": (score, "std"), "seeds": ("seed", "count"),
                                        "steps / second": ("steps / second", "mean"),
                                        "training FLOPs": ("training FLOPs", "mean")})
    return table.sort_values(score, ascending=False)


def equal_compute_figure(units: list[dict], references: list[dict] = (), starts: list[dict] = ()):
    """Two rows (mean transfer score, mean STS) by two columns (against calm seconds, the study's clock, and against
    training FLOPs):
    one line per objective (the mean over seeds at each evaluation point), a band from the lowest to the highest
    seed, the pairs-trained line dashed; each of ``references`` (:meth:`EqualCompute.reference`) a dotted grey
    horizontal line; ``starts`` (:meth:`EqualCompute.start`): each line's untrained twin, the mean over its seeds, a
    hollow marker at 0 seconds joined to the line's first point by a dotted segment (the FLOPs axes are logarithmic:
    no zero to draw it at). Returns the figure."""
    import matplotlib.pyplot as plt

    frame = curve_frame(units)
    if frame.empty:
        raise ReproducerError("No curve has a point yet: train the units first.")
    frame["point"] = frame.groupby(["line", "seed"]).cumcount()
    fig, axes = plt.subplots(2, 2, figsize=(8, 8), sharey="row")
    colours = dict(zip(all_lines(), plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for row, score in enumerate(("transfer", "STS")):
        for col, x in enumerate(("calm seconds", "flops")):
            ax = axes[row, col]
            for label, line in frame.groupby("line", sort=False):
                by = line.groupby("point").agg(x=(x, "mean"), mean=(score, "mean"), low=(score, "min"),
                                               high=(score, "max"))
                dashed = label in pairs_lines()
                ax.plot(by["x"], by["mean"], "--" if dashed else "-", marker="o", color=colours.get(label),
                        label=label)
                ax.fill_between(by["x"], by["low"], by["high"], alpha=0.2, color=colours.get(label))
                begin = [st[score] for st in starts if st["line"] == label]
                if begin and x == "calm seconds":
                    ax.plot([0.0, by["x"].iloc[0]], [np.mean(begin), by["mean"].iloc[0]], ":", marker="o",
                            markevery=[0], markerfacecolor="white", color=colours.get(label))
            for reference in references:
                ax.axhline(reference[score], linestyle=":", color="grey", label=f"{reference['name']} (fixed)")
            ax.set_xscale("log" if x == "flops" else "linear")
            ax.set_xlabel("seconds on the calm 2-core CPU (steps ÷ the line's rate)" if x == "calm seconds"
                          else "training FLOPs (useful, counted)")
            ax.set_ylabel("mean transfer score (points)" if score == "transfer" else "mean STS12-16 (Pearson r × 100)")
            ax.grid(alpha=0.3)
    handles, labels = axes[0, 1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, bbox_to_anchor=(0.5, 0))  # below the panels, off the lines
    fig.suptitle("Equal compute: every objective, the same time on one calm machine (as steps)")
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    return fig


def start_gains(units: list[dict], starts: list[dict]) -> pd.DataFrame:
    """What each line's training bought within the budget: for ``transfer`` and ``STS``, the line's untrained twin
    (``starts``, :meth:`EqualCompute.start`), its last point and the gain, each the mean over the seeds both have."""
    rows = []
    for u in units:
        begin = [st for st in starts if st["line"] == u["line"] and st["seed"] == u["seed"]]
        if begin and u["points"]:
            rows.append({"line": u["line"], "seed": u["seed"],
                         **{(score, when): value for score in ("transfer", "STS") for when, value in
                            (("untrained", begin[0][score]), ("at the budget", u["points"][-1][score]))}})
    if not rows:
        raise ReproducerError("No line has both its untrained start and a trained point.")
    table = pd.DataFrame(rows).drop(columns="seed").groupby("line", sort=False).mean()
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    for score in ("transfer", "STS"):
        table[(score, "gain")] = table[(score, "at the budget")] - table[(score, "untrained")]
    return table[[(score, c) for score in ("transfer", "STS") for c in ("untrained", "at the budget", "gain")]]


#: Within this many points of the reference a line "sits on" it; a line gaining at least this much between its first
#: and last points "is still climbing".
NEAR, CLIMBING = 1.5, 2.0


def _signed(x: float) -> str:
    """``x`` to one decimal with its sign, and no negative zero."""
    return f"{round(x, 1) + 0.0:+.1f}"


def _names(labels) -> str:
    labels = list(labels)
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def ranking_summary(units: list[dict], references: list[dict] = (), word2vec_seconds: float | None = None) -> str:
    """Markdown bullets reading chapter 06's equal-compute study, every number taken from ``units`` (the mean over
    seeds at each point) and the first of ``references`` (the word2vec average): what the lines over our word2vec
    (:func:`line_inputs` ``fixed`` or ``initialised``) add to the average on the transfer tasks and on STS at their
    first and last points; how the lines that learn their words from the text compare at the end (the gap, whether
    the seeds' ranges separate, the ratio of their updates: Logeswaran & Lee's Figure 2 generalised); which lines
    are still climbing (a gain of at least :data:`CLIMBING` points); and how few FLOPs the cheapest line spends.
    ``word2vec_seconds``: the training time of the word2vec vectors, which no line's budget counts."""
    frame = curve_frame(units)
    if frame.empty:
        raise ReproducerError("No curve has a point yet: train the units first.")
    frame["point"] = frame.groupby(["line", "seed"]).cumcount()
    mean = frame.groupby(["line", "point"])[["calm seconds", "step", "flops", "transfer", "STS"]].mean()
    first = mean.groupby(level="line").head(1).droplevel("point")
    last = mean.groupby(level="line").tail(1).droplevel("point")
    ends = frame[frame.point == frame.groupby(["line", "seed"]).point.transform("max")]
    low, high = ends.groupby("line")[["transfer", "STS"]].min(), ends.groupby("line")[["transfer", "STS"]].max()
    inputs, minutes = line_inputs(), lambda s: f"{s / 60:.0f} minute{'s' if round(s / 60) != 1 else ''}"
    at = (f"at the first point ({minutes(first['calm seconds'].mean())} in) and at the end "
          f"({minutes(last['calm seconds'].mean())})")
    bullets = []

    over = [label for label in last.index if inputs.get(label) in ("fixed", "initialised")]
    if references and over:
        ref = references[0]
        gap = {score: {label: (first.loc[label, score] - ref[score], last.loc[label, score] - ref[score])
                       for label in over} for score in ("transfer", "STS")}
        fixed = [label for label in over if inputs[label] == "fixed"]
        read = (f"{_names(fixed)} read our word2vec vectors as fixed inputs" if fixed else "")
        started = [label for label in over if inputs[label] == "initialised"]
        read += ("; " if read else "") + (f"{_names(started)} starts from them" if started else "")
        numbers = "; ".join(f"{label} {_signed(t0)} → {_signed(t1)} (STS {_signed(s0)} → {_signed(s1)})"
                            for label, (t0, t1), (s0, s1) in zip(over, gap["transfer"].values(), gap["STS"].values()))
        near = [label for label in over if max(map(abs, gap["transfer"][label])) <= NEAR]
        above = [label for label in over if min(gap["STS"][label]) > NEAR]
        below = [label for label in over if gap["STS"][label][1] < -NEAR]
        text = (f"- **The lines over word2vec against the word2vec average** (transfer {ref['transfer']:.1f}, STS "
                f"{ref['STS']:.1f}). {read}. Their distance from it in points, {at}: {numbers}.")
        if near:
            text += (f" On the transfer tasks {_names(near)} stay within {NEAR:g} points of the average from the first "
                     "point: what carries them there is their inputs, and their objectives add little.")
        if above:
            text += (f" On STS {_names(above)} {'is' if len(above) == 1 else 'are'} more than {NEAR:g} points above "
                     "it from the first point: their objectives teach cosine similarity something early.")
        if below:
            text += f" On STS {_names(below)} end{'s' if len(below) == 1 else ''} below it."
        if word2vec_seconds:
            text += (f" The word2vec vectors took {minutes(word2vec_seconds)} to train here; no line's budget counts "
                     "them.")
        bullets.append(text)

    learned = [label for label in last.index if inputs.get(label) == "learned"]
    if len(learned) >= 2:
        best, other = sorted(learned, key=lambda label: -last.loc[label, "transfer"])[:2]
        d = {score: last.loc[best, score] - last.loc[other, score] for score in ("transfer", "STS")}
        apart = low.loc[best, "transfer"] > high.loc[other, "transfer"]
        sts_apart = (low.loc[best, "STS"] > high.loc[other, "STS"]) or (high.loc[best, "STS"] < low.loc[other, "STS"])
        bullets.append(
            f"- **Among the lines that learn their words from the text, {best} leads {other} at equal time** on the "
            f"transfer tasks, by {d['transfer']:.1f} points at the end, "
            f"{'outside' if apart else 'inside'} the two lines' seed ranges, with "
            f"{last.loc[best, 'step'] / last.loc[other, 'step']:.1f} times as many updates. On STS the gap is "
            f"{_signed(d['STS'])} ({'outside' if sts_apart else 'inside'} the seed ranges).")

    gains = (last.transfer - first.transfer).sort_values(ascending=False)
    climbing = [label for label in gains.index if gains[label] >= CLIMBING]
    if climbing:
        bullets.append(
            f"- **Still climbing at the end of the budget: {_names(climbing)}.** Between the first and the last point "
            + "; ".join(f"{label} gains {gains[label]:.1f} points on the transfer tasks (STS "
                        f"{first.loc[label, 'STS']:.1f} → {last.loc[label, 'STS']:.1f})" for label in climbing)
            + (f". The others move by {gains.drop(climbing).abs().max():.1f} points or less; a longer budget would "
               "change these lines most." if len(climbing) < len(gains) else "."))

    flops = last.flops.sort_values()
    if len(flops) >= 2:
        cheap, nextcheap, ratio = flops.index[0], flops.index[1], flops.iloc[1] / flops.iloc[0]
        bullets.append(
            f"- **Against FLOPs, {cheap} {'is in a class of its own' if ratio >= 10 else 'is the cheapest'}.** It "
            f"spends {ratio:,.{0 if ratio >= 10 else 1}f} times fewer FLOPs than the next cheapest line ({nextcheap}) "
            f"and ends at {last.loc[cheap, 'transfer']:.1f} "
            f"on the transfer tasks (the best line: {last.transfer.idxmax()}, {last.transfer.max():.1f}) and "
            f"{last.loc[cheap, 'STS']:.1f} on STS (the best: {last.STS.idxmax()}, {last.STS.max():.1f}).")
    return "\n".join(bullets)

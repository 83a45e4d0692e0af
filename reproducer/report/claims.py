"""The claims of a paper checked on our numbers, each judged against its noise: one row per claim with its outcome
(*reproduced*, *not reproduced*, *inconclusive*), our value with its interval, the paper's, and the numbers behind it.

- :class:`Evidence`: one training seed's scores — each (model, task) main score in points (accuracy in %,
  correlations × 100) with its paired bootstrap replicates over test items
  (:func:`reproducer.evaluate.uncertainty.task_replicates`); analogy answers enter as the task ``analogy`` (over the
  questions) or :data:`ANALOGY_CATEGORIES` (over their categories).
- :class:`Claim`: the paper's wording, the quantity it is about (a function of an :class:`Evidence`, computed alike on
  the point values and on the replicates) and the threshold the wording sets.
- :func:`check`: the claims on the mean over the training seeds' evidence (all trained at the claim's own budget, the
  main run among them; :class:`SeedMean`), with the test items resampled alike for every seed and the seeds' spread,
  through :func:`reproducer.evaluate.uncertainty.judge`; :func:`claim_table` shows them; :func:`counts` counts the
  outcomes; :func:`short_claim` and :func:`verdict_reason` give a claim's name and one-line reason where a page shows
  many claims at once (the claims box, chapter 06's one-screen verdict).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from reproducer.errors import ReproducerError
from reproducer.evaluate.tasks import points_scale
from reproducer.evaluate.uncertainty import judge, worst_column  # noqa: F401 (worst_column: the chapters import it here)
from reproducer.report.trend import DIRECTIONS, trend_rows

#: Colours of the outcome column (green, red, purple, amber, grey); the order outcomes are counted and shown in.
COLOURS = {"reproduced": "color: #1a7f37; font-weight: bold", "not reproduced": "color: #b42318; font-weight: bold",
           "smaller than published": "color: #6f42c1; font-weight: bold",
           "inconclusive": "color: #9a6700; font-weight: bold", "not checked": "color: #666666"}
#: The outcomes that decide a claim (the interval says which side of the threshold, or of the paper's effect, it is).
DECIDED = ("reproduced", "not reproduced", "smaller than published")
#: How many bootstrap replicates every interval uses first; :func:`check` draws more (×4, up to
#: :data:`MAX_RESAMPLES`) for a claim whose outcome the replicates' Monte Carlo error could flip.
RESAMPLES = 1000
MAX_RESAMPLES = 16000
#: The task of an analogy score averaged over the question categories (answers with ``categories``); ``analogy``: over
#: the questions.
ANALOGY_CATEGORIES = "analogy categories"


def verdict(ok: bool | None) -> str:
    """``"reproduced"``, ``"not reproduced"``, or ``"not checked"`` when a needed number is missing (``None``): for
    a claim with no noise to judge it against (e.g. a yes/no property of a table)."""
    return "not checked" if ok is None else "reproduced" if ok else "not reproduced"


class Evidence:
    """One seed's scores: ``results`` maps model name → :class:`~reproducer.evaluate.harness.Results` (with per-item
    outcomes); ``analogies`` maps model name → its analogy answers (with ``hits``: the task ``analogy``);
    ``samples`` maps (model name, key) → per-unit values whose mean is the score (e.g. the per-dataset correlations
    × 100 of a similarity suite: resampling the datasets); ``replicated`` maps (model name, key) → a score computed
    elsewhere with its :data:`RESAMPLES` paired replicates (``(value, replicates)``, e.g.
    :func:`~reproducer.evaluate.similarity.pavlick_test_score`). :meth:`score` gives a main score in points, or with
    ``replicates=True`` its :data:`RESAMPLES` paired bootstrap replicates (a number: that many, the first
    :data:`RESAMPLES` the same; a score ``replicated`` elsewhere has only its own)."""

    def __init__(self, results: dict, analogies: dict | None = None, *, samples: dict | None = None,
                 replicated: dict | None = None, seed: int = 0):
        self.results, self.analogies, self.seed = dict(results), dict(analogies or {}), seed
        self.samples = {key: np.asarray(values, dtype=float) for key, values in (samples or {}).items()}
        self.replicated = {key: (float(value), np.asarray(reps, dtype=float))
                           for key, (value, reps) in (replicated or {}).items()}
        self._cache: dict = {}

    def score(self, name: str, task: str, replicates: bool | int = False):
        key = (name, task, _count(replicates) if replicates else 0)  # True and RESAMPLES: the same replicates
        if key not in self._cache:
            if (name, task) in self.samples:
                self._cache[key] = _resampled_mean(self.samples[name, task], task, replicates)
            elif (name, task) in self.replicated:
                self._cache[key] = self.replicated[name, task][1 if replicates else 0]
            elif task in ("analogy", ANALOGY_CATEGORIES):
                answers = self.analogies[name]
                hits = (np.frombuffer(answers["hits"].encode("ascii"), dtype=np.uint8) == ord("1")).astype(float)
                self._cache[key] = 100 * (_resampled_mean(hits, task, replicates) if task == "analogy" else
                                          _category_mean(hits, answers["categories"], task, replicates))
            else:
                if name not in self.results:
                    raise ReproducerError(f"No results of {name} in this evidence (seed {self.seed}).")
                result = self.results[name]
                scale = points_scale(task)
                if replicates:
                    from reproducer.evaluate.uncertainty import task_replicates

                    self._cache[key] = scale * task_replicates(result, task, _count(replicates))
                else:
                    self._cache[key] = scale * float(result.main_scores()[task])
        return self._cache[key]

    def mean(self, name: str, tasks, replicates: bool = False):
        """The mean of ``name``'s scores (points) over ``tasks``."""
        return sum(self.score(name, t, replicates) for t in tasks) / len(tasks)


class SeedMean:
    """Several training seeds' :class:`Evidence` as one: each score, and each of its bootstrap replicates, averaged
    over the seeds. The replicates of every seed resample the same test items (they depend only on the task and the
    item count), so the averaged replicates are a paired bootstrap of the mean over seeds. What a claim row's
    ``numbers`` show when its quantity is the mean over seeds."""

    def __init__(self, seeds: list[Evidence]):
        if not seeds:
            raise ReproducerError("SeedMean needs at least one seed's evidence.")
        self.seeds, self.seed = list(seeds), None

    def score(self, name: str, task: str, replicates: bool = False):
        return sum(e.score(name, task, replicates) for e in self.seeds) / len(self.seeds)

    mean = Evidence.mean


def _category_mean(values: np.ndarray, categories: list[str], key: str, replicates: bool):
    """The mean over ``categories`` of the mean of per-unit ``values`` in each (every category weighs the same), or
    its bootstrap replicates: the units are resampled as :func:`_resampled_mean` resamples them (paired across
    models), each replicate's category means taken over the units it drew of that category."""
    codes = np.unique(np.asarray(categories), return_inverse=True)[1]
    if len(codes) != len(values):
        raise ReproducerError(f"{len(values)} outcomes but {len(codes)} categories.")
    if not replicates:
        return float(np.mean([values[codes == c].mean() for c in range(codes.max() + 1)]))
    drawn = _draws(len(values), key, _count(replicates))
    means = [np.where(codes[drawn] == c, values[drawn], 0.0).sum(-1) / np.maximum((codes[drawn] == c).sum(-1), 1)
             for c in range(codes.max() + 1)]
    return np.mean(means, axis=0)


def _resampled_mean(values: np.ndarray, key: str, replicates: bool):
    """The mean of per-unit ``values``, or its bootstrap replicates; the resampled units depend only on ``key`` and
    the number of units (:func:`_draws`), so two models' replicates of the same key are paired."""
    return values[_draws(len(values), key, _count(replicates))].mean(-1) if replicates else float(values.mean())


def _count(replicates: bool | int) -> int:
    """How many bootstrap replicates ``replicates`` asks for: ``True`` → :data:`RESAMPLES`, a number → that many."""
    return RESAMPLES if replicates is True else int(replicates)


def _draws(n: int, key: str, resamples: int = RESAMPLES) -> np.ndarray:
    """The ``resamples`` × ``n`` unit indices of the bootstrap over ``n`` units under ``key``: the same for every
    model, so their replicates are paired (the first :data:`RESAMPLES` rows the same whatever ``resamples`` is)."""
    import zlib

    from reproducer.evaluate.uncertainty import resampled_indices

    return np.concatenate(list(resampled_indices(n, [0, n, zlib.crc32(key.encode())], resamples)))


@dataclass(frozen=True)
class Claim:
    """A claim as the paper words it (``claim``) and how we measure it: ``quantity(evidence, replicates)`` (computed
    alike on point values and on replicates: use :meth:`Evidence.score` and :meth:`Evidence.mean`, and
    ``np.maximum``/``np.minimum`` rather than ``max``/``min``), reproduced when it is ≥ ``threshold`` (``at_most``:
    ≤) beyond the noise. ``paper``: the paper's numbers in words; ``numbers(evidence)``: ours, the parts behind the
    quantity; ``unit``: how the quantity prints; ``effect``: the paper's own value of the quantity (its gap, ratio or
    share), which makes *smaller than published* an outcome (:func:`~reproducer.evaluate.uncertainty.decide`)."""

    claim: str
    quantity: Callable[[Evidence, bool], float | np.ndarray]
    threshold: float = 0.0
    at_most: bool = False
    paper: str = ""
    numbers: Callable[[Evidence], str] | None = None
    unit: str = "{:+.2f}"
    effect: float | None = None  # the paper's own effect size, in the quantity's units, where it prints one
    own: bool = False  # the book's own claim (no paper states it: :func:`twin_claims`), marked in its row's ``source``
    #: ``quantity`` gives one value per column (a gap per task, per pooling, per rival model: stacked on the first
    #: axis) and the claim is about every column: its value is the smallest column *of the mean over seeds* (the
    #: largest, with ``at_most``), not the mean of each seed's own smallest, which is biased toward the threshold's
    #: far side (:func:`~reproducer.evaluate.uncertainty.worst_column`).
    every_column: bool = False
    #: What the bootstrap resamples, as the row's noise names it: test items, or the datasets of a similarity suite
    #: whose mean over datasets is the score (Wieting et al.'s Table 2).
    resampled: str = "test items"
    #: Why the quantity does not depend on the training steps the chapter's claims are read along (issue 70), where it
    #: does not (a model trained for its own epochs whatever the step budget): such a claim is not read along training,
    #: and its row says why (:func:`~reproducer.report.trend.trend_rows`).
    budget_free: str = ""


def check(claims: list[Claim], evidence: Evidence, seeds: list[Evidence] | None = None,
          budget: str | None = None, along: dict[int, list[Evidence]] | None = None) -> pd.DataFrame:
    """Each claim judged against its noise. With ``seeds`` (at least two: every training seed's evidence at the
    claim's own budget, the preset ``budget``, the main run ``evidence`` among them) the quantity is **the mean over
    the seeds** of its value on each; its interval adds in quadrature (independent sources) the percentile interval
    of the seeds' mean over a paired bootstrap of the test items (every seed's replicates resample the same items:
    their mean is the replicate of the mean) and the training noise ``t(n−1) · s / √n`` of the seeds' values.
    Without seeds the quantity is ``evidence``'s, with the test items' noise alone. Columns: claim, outcome, ours
    (value and 95% interval), threshold, paper, numbers (of the seeds' mean: :class:`SeedMean`), noise (its sources,
    the number of seeds and their budget), and the raw ``value``, ``low``, ``high``.

    ``along``: the claims read along their training too (issue 70; :func:`~reproducer.report.trend.trend_rows`):
    training steps → that budget's seeds' evidence (this budget's among them). Each row then also has ``trend`` (the
    arrow, the change per doubling of the steps with its interval, the direction; or why it cannot be read) and the
    raw ``direction``, ``slope``, ``slope low``, ``slope high``, ``crossing`` and ``trend budgets``."""
    rows = []
    seeds = list(seeds) if seeds and len(seeds) >= 2 else None
    shown = SeedMean(seeds) if seeds else evidence
    for c in claims:
        seed_values, value, replicates = _quantity(c, seeds or [evidence])
        seed_values = seed_values if seeds else None
        j = judge(value, replicates, seed_values, c.threshold, at_most=c.at_most, effect=c.effect, averaged=True)
        j, resamples = _enough_replicates(c, seeds or [evidence], j, value, seed_values)
        noise = [f"{c.resampled} (bootstrap)"] + (["the mean of " + seeds_text(j["seeds"], "training seeds", budget)]
                                              if j["seeds"] else [])
        rows.append({"claim": c.claim, "outcome": j["outcome"],
                     "ours": f"{c.unit.format(j['value'])} [{c.unit.format(j['low'])}, {c.unit.format(j['high'])}]",
                     "threshold": threshold_text(c.threshold, c.unit, c.at_most),
                     "paper's effect": "" if c.effect is None else c.unit.format(c.effect), "paper": c.paper,
                     "source": BOOK if c.own else "paper",
                     "numbers": c.numbers(shown) if c.numbers else "", "noise": " + ".join(noise),
                     "bootstrap": _monte_carlo(c, j, resamples),
                     "value": j["value"], "low": j["low"], "high": j["high"], **_raw(c.threshold, c.at_most,
                                                                                    seed_values, c.effect),
                     "resamples": resamples, "low mc": j["mc_low"], "high mc": j["mc_high"]})
    if along:
        for row, trend in zip(rows, trend_rows(claims, along)):
            row.update({"trend": trend["trend"], "direction": trend["direction"], "slope": trend["slope"],
                        "slope low": trend["low"], "slope high": trend["high"], "crossing": trend["crossing"],
                        "trend budgets": trend["budgets"]})
    return pd.DataFrame(rows)


def _enough_replicates(c: "Claim", seeds: list, judged: dict, value: float, seed_values) -> tuple[dict, int]:
    """``judged`` (the claim's :func:`~reproducer.evaluate.uncertainty.judge` on :data:`RESAMPLES` replicates) and
    that number, or, while an interval end lies within :data:`~reproducer.evaluate.uncertainty.MC_MARGIN` Monte Carlo
    errors of a boundary it is compared with (:func:`~reproducer.evaluate.uncertainty.could_flip`), the claim judged
    again on four times as many replicates (the first ones kept), up to :data:`MAX_RESAMPLES`. A score replicated
    elsewhere (its own :data:`RESAMPLES`) cannot be drawn again: then the first judgement stands, its error shown."""
    from reproducer.evaluate.uncertainty import could_flip

    resamples = RESAMPLES
    while could_flip(judged, c.threshold, c.effect) and resamples < MAX_RESAMPLES:
        more = min(4 * resamples, MAX_RESAMPLES)
        try:
            _, _, replicates = _quantity(c, seeds, more)
        except ValueError:  # replicates of different lengths: a score with only its own
            break
        if len(replicates) != more:
            break
        judged, resamples = judge(value, replicates, seed_values, c.threshold, at_most=c.at_most, effect=c.effect,
                                  averaged=True), more
    return judged, resamples


def _monte_carlo(c: "Claim", judged: dict, resamples: int) -> str:
    """The bootstrap's size and the larger Monte Carlo error of the interval's two ends, as a claim row's noise says
    it, with a warning where that error could still move an end across a boundary."""
    from reproducer.evaluate.uncertainty import could_flip

    text = f"{resamples:,} replicates; ends ±{max(judged['mc_low'], judged['mc_high']):.2g} (Monte Carlo)"
    return text + (", which could still move an end across the boundary" if could_flip(judged, c.threshold, c.effect)
                   else "")


def _quantity(c: Claim, seeds: list, resamples: int = RESAMPLES) -> tuple[list[float], float, np.ndarray]:
    """A claim's per-seed values, its value (their mean; for :attr:`Claim.every_column`, the worst column of the seeds'
    mean: :func:`~reproducer.evaluate.uncertainty.worst_column`) and its ``resamples`` bootstrap replicates (the
    seeds' mean of each replicate, reduced over the columns alike)."""
    points = [np.atleast_1d(np.asarray(c.quantity(e, False), dtype=float)) for e in seeds]
    replicates = np.mean([np.asarray(c.quantity(e, resamples), dtype=float).reshape(len(points[0]), -1)
                          for e in seeds], axis=0)
    if not c.every_column:
        if len(points[0]) != 1:
            raise ReproducerError(f"The claim {c.claim!r} gives {len(points[0])} values per seed: declare "
                                  "every_column=True for a claim about each of them, or give one value.")
        values = [float(v[0]) for v in points]
        return values, float(np.mean(values)), replicates[0]
    _, value, values = worst_column(points, c.at_most)
    return [float(v) for v in values], value, replicates.max(axis=0) if c.at_most else replicates.min(axis=0)


#: The columns of a claim row that the scorecard reasons with and the claims table does not show.
RAW_COLUMNS = ("value", "low", "high", "threshold value", "at most", "effect value", "seed values", "source",
               "resamples", "low mc", "high mc", "direction", "slope", "slope low", "slope high", "crossing",
               "trend budgets")
#: A claim row's ``source`` when no paper states the claim: the book asks it of every paper (:func:`twin_claims`).
BOOK = "the book's own"


def untrained(name: str, vectors: str | None = None) -> str:
    """The name under which model ``name``'s untrained twin (its encoder with the weights at initialisation:
    :func:`~reproducer.untrained_twins.untrained_twin`; ``vectors``: the name of the word vectors put in its learned
    embeddings) enters an :class:`Evidence` (:func:`twin_claims`): the twin encoder's own name."""
    from reproducer.untrained_twins import twin_name

    return twin_name(name, vectors)


#: The ``paper`` text of the book's own claims (:func:`twin_claim`): no paper asks the question.
UNTRAINED_QUESTION = ("— (the book's own question: no paper compares its encoder with the same encoder untrained; "
                      "Wieting & Kiela 2019 find random encoders within a few points of trained ones)")


def twin_claims(names, transfer: list[str], sts: list[str] | None = None, *,
                vectors: str | None = None) -> list[Claim]:
    """The book's own claims (issue 44; no paper checks them): *training beats the same encoder untrained*, for each
    model of ``names``, on the mean over the ``transfer`` tasks and, with ``sts``, on the mean over those similarity
    tasks: the trained model's score minus its twin's (:func:`untrained`; ``vectors``: the twin whose learned word
    embeddings hold those vectors), ≥ 0 beyond the noise. Each seed's twin is that seed's initialisation, so the
    seeds' spread holds the draw of the random weights as well as the training. Wieting & Kiela (2019) found random
    encoders within a few points of trained ones on SentEval; that is the floor a claim that an objective learns
    sentence meaning should clear."""
    groups = [("the transfer mean", transfer)] + ([("STS", sts)] if sts else [])
    return [twin_claim(name, what, list(tasks), vectors=vectors) for name in names for what, tasks in groups]


def twin_claim(name: str, what: str, tasks: list[str], trained: str | None = None, twin: str | None = None, *,
               vectors: str | None = None) -> Claim:
    """One of :func:`twin_claims`: training ``name`` beats the same encoder untrained on the mean over ``tasks``
    (``what``: ``"the transfer mean"``, ``"STS"``), read in an :class:`Evidence` as ``trained`` (by default ``name``)
    minus ``twin`` (by default ``untrained(name, vectors)``): a chapter whose evidence names its results otherwise
    (chapter 04: a Table 3 row's ``"<row> U"``) gives those names."""
    trained, twin = trained or name, twin or untrained(name, vectors)
    same = "the same encoder untrained" + (f" with {vectors} as its word embeddings" if vectors else "")
    return Claim(f"Training {name} beats {same} on {what} ({', '.join(tasks)})",
                 lambda ev, r: ev.mean(trained, tasks, r) - ev.mean(twin, tasks, r), paper=UNTRAINED_QUESTION,
                 numbers=lambda ev: f"trained {ev.mean(trained, tasks):.1f}, untrained {ev.mean(twin, tasks):.1f}",
                 own=True)


def _raw(threshold: float, at_most: bool, seed_values, effect: float | None = None) -> dict:
    """The numbers behind a row that the scorecard reasons with: the threshold, its direction, the paper's effect
    (NaN where it prints none) and the quantity on each training seed (or repeat)."""
    return {"threshold value": float(threshold), "at most": bool(at_most),
            "effect value": float("nan") if effect is None else float(effect),
            "seed values": [float(v) for v in seed_values] if seed_values is not None and len(seed_values) >= 2 else []}


def threshold_text(threshold: float, unit: str = "", at_most: bool = False) -> str:
    """The threshold as a reader reads it: three significant digits and the quantity's unit (``≥ 4.77×``, not
    ``≥ 4.76923``; ``≥ 0``); a fraction shown as a percentage as the paper writes it (``≥ 64.76%``, not ``≥ 0.6476``)."""
    sign = "≤" if at_most else "≥"
    if unit.endswith("%}"):  # a fraction printed as a percentage ("{:.0%}")
        return f"{sign} {100 * threshold:.4g}%"
    suffix = next((s for s in ("×", "%") if unit.endswith(s)), "")
    return f"{sign} {threshold:.3g}{suffix}"


def seeds_text(n: int, spread: str, budget: str | None = None) -> str:
    """How a row names its training noise: ``"3 training seeds at `quick`"`` (``budget``: the preset they trained at)."""
    return f"{n} {spread}" + (f" at `{budget}`" if budget else "")


def point_claim(claim: str, value: float | None, threshold: float, *, at_most: bool = False, paper: str = "",
                numbers: str = "", noise: str = "none measured", seed_values=None, unit: str = "{:.2f}",
                spread: str = "repeats", effect: float | None = None, averaged: bool = False,
                budget: str | None = None, own: bool = False) -> dict:
    """A claim row (as :func:`check` makes) for a quantity without test items (a timing, a training curve):
    judged on the spread of ``seed_values`` (repeated measurements, or the same quantity per training seed: say
    which in ``spread``, e.g. ``"training seeds"``) when given, else on the value alone; ``None``: not checked.
    ``averaged``: ``value`` is the mean of ``seed_values`` (its half-width is ``t · s / √n``); ``effect``: the paper's
    own value of the quantity; ``budget``: the preset the seeds trained at; ``own``: the book's own claim (no paper
    states it), marked in the row's ``source``."""
    common = {"claim": claim, "threshold": threshold_text(threshold, unit, at_most),
              "paper's effect": "" if effect is None else unit.format(effect), "paper": paper, "numbers": numbers,
              "source": BOOK if own else "paper"}
    common.update(_raw(threshold, at_most, seed_values, effect))
    if value is None or np.isnan(float(value)):
        return {**common, "outcome": "not checked", "ours": "", "noise": noise, "value": np.nan, "low": np.nan,
                "high": np.nan}
    j = judge(value, None, seed_values, threshold, at_most=at_most, effect=effect, averaged=averaged)
    spread = ("the mean of " if averaged else "") + seeds_text(j["seeds"], spread, budget)
    return {**common, "outcome": j["outcome"],
            "ours": f"{unit.format(j['value'])} [{unit.format(j['low'])}, {unit.format(j['high'])}]",
            "noise": spread if j["seeds"] else noise, "value": j["value"], "low": j["low"], "high": j["high"]}


def seeds_point_claim(claim: str, main: float | None, seed_values, threshold: float, *, budget: str | None = None,
                      **options) -> dict:
    """:func:`point_claim` for a quantity measured once per training seed (a training curve, an attention share),
    without test items to resample: with at least two ``seed_values`` (every seed at the claim's own budget, the main
    run among them) the quantity is their mean, its half-width ``t(n−1) · s / √n``; with fewer, the main run's value
    ``main`` alone ("one run")."""
    values = [float(v) for v in seed_values] if seed_values is not None and len(seed_values) >= 2 else None
    return point_claim(claim, float(np.mean(values)) if values else main, threshold, seed_values=values,
                       averaged=bool(values), spread="training seeds", noise="one run", budget=budget, **options)


def counts(claims: pd.DataFrame) -> dict[str, int]:
    """How many claims had each outcome, and how many were *decided* (:data:`DECIDED`: reproduced, not reproduced,
    or smaller than published)."""
    out = {o: int((claims["outcome"] == o).sum()) for o in COLOURS}
    out["decided"] = sum(out[o] for o in DECIDED)
    out["claims"] = len(claims)
    return out


def claim_table(claims: pd.DataFrame):
    """``claims`` (columns ``claim``, ``outcome``, ``numbers`` and, from :func:`check`, ``ours``, ``threshold``,
    ``paper``, ``noise``, ``bootstrap``) as a Styler: no index, the raw value columns hidden, outcomes coloured."""
    unknown = set(claims["outcome"]) - set(COLOURS)
    if unknown:
        raise ValueError(f"Outcomes must be one of {', '.join(COLOURS)}: got {sorted(unknown)}.")
    shown = claims.drop(columns=[c for c in RAW_COLUMNS if c in claims])
    return shown.style.hide(axis="index").map(COLOURS.get, subset=["outcome"]).format(na_rep="")  # no bootstrap: blank


#: Wordings the one-screen verdict shortens (the glossary's "untrained twin").
SHORTER = {"the same encoder untrained with word2vec-300d as its word embeddings":
           "its untrained twin with word2vec-300d words", "the same encoder untrained": "its untrained twin"}


def short_claim(claim: str, detail: int = 30, longest: int = 100) -> str:
    """A claim's name for the one-screen verdict: its wording without the parenthesised details longer than ``detail``
    characters (where every chapter puts the tables, task lists and comparators; short ones such as "(RNN)" or
    "(STS14)" tell claims apart and stay), cut at a word to at most ``longest`` characters."""
    kept, depth, group = [], 0, ""
    for char in str(claim):
        if char == "(":
            depth += 1
        if depth:
            group += char
        else:
            kept.append(char)
        if char == ")" and depth:
            depth -= 1
            if not depth:
                kept.append(group if len(group) <= detail + 2 else "")
                group = ""
    name = re.sub(r"\s+", " ", "".join(kept) + group).strip().rstrip(":,;")
    for wording, shorter in SHORTER.items():
        name = name.replace(wording, shorter)
    name = re.sub(r" ([,;.])", r"\1", name)
    if len(name) > longest:
        name = name[:longest].rsplit(" ", 1)[0] + " …"
    return name


def verdict_reason(row) -> str:
    """One line of why a claim has its outcome: our value and 95% interval against the threshold, and, where the
    outcome is *smaller than published*, the paper's own effect that the interval excludes; where the claim was read
    along its training (:func:`check`'s ``along``), its arrow, change per doubling and direction."""
    ours, threshold = row.get("ours"), row.get("threshold")
    if row["outcome"] == "not checked" or not isinstance(ours, str) or not ours:
        return "a number it needs is missing"
    reason = f"{ours} against {threshold}"
    effect = row.get("paper's effect")
    if row["outcome"] == "smaller than published" and isinstance(effect, str) and effect:
        reason += f"; the paper's {effect}"
    trend = row.get("trend")
    if isinstance(trend, str) and row.get("direction") in DIRECTIONS:  # read along training: its arrow and change
        reason += f"; along training {trend.split(' [')[0]}, {row['direction']}"
    return reason


def outcome_changes(old: list[dict] | pd.DataFrame, new: list[dict] | pd.DataFrame) -> pd.DataFrame:
    """The claims of two stored runs of one chapter (``claims.json`` rows: before and after a retraining) whose
    outcome differs, matched by their ``claim`` text: one row each with the old and new outcome and value
    (``ours``: the value with its interval); a claim only one run states has ``"(absent)"`` on the other side."""
    old, new = (pd.DataFrame(rows).set_index("claim") for rows in (old, new))
    rows = []
    for claim in [*old.index, *new.index.difference(old.index, sort=False)]:
        before = old.loc[claim] if claim in old.index else None
        after = new.loc[claim] if claim in new.index else None
        outcomes = [side["outcome"] if side is not None else "(absent)" for side in (before, after)]
        values = ["" if side is None or pd.isna(side.get("ours")) else side["ours"] for side in (before, after)]
        if outcomes[0] != outcomes[1]:
            rows.append({"claim": claim, "old outcome": outcomes[0], "old value": values[0],
                         "new outcome": outcomes[1], "new value": values[1]})
    return pd.DataFrame(rows, columns=["claim", "old outcome", "old value", "new outcome", "new value"])

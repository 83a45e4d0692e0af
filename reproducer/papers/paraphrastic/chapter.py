"""Training runs of the Wieting et al. (2016) chapter, each cached in the chapter's results: the paper's reduced grid
(every configuration trained once with Eq. 11 of :mod:`reproducer.papers.paraphrastic.objective`, scored on the similarity
suite, the configuration chosen on the PPDB dev half), the chosen models as encoders (train-or-reload through
:meth:`reproducer.results_store.NotebookRun.model`), the baselines of Table 2, Figure 1's nested training sets and
Table 5's supervised runs.

Results file names keep the chapter's rule (:func:`file_key`), e.g. ``grid/LSTM__no_o.g.___lr_0.005.json``.
"""
from __future__ import annotations

import functools
import math

import pandas as pd

from reproducer.data.pairs import TrainingPair, nested_subsets
from reproducer.data.training_data import TrainingData
from reproducer.encoders.compositional import CompositionalConfig, CompositionalEncoder
from reproducer.errors import ReproducerError
from reproducer.evaluate.word_neighbours import neighbour_words, weight_extremes, word_weights
from reproducer.files import read_json, stored_json, write_json
from reproducer.log import note
from reproducer.papers import registry
from reproducer.papers.registry import family, preset, published_names
from reproducer.results_store import results_root, slug
from reproducer.papers.paraphrastic.claims import (
    IN_DOMAIN,
    LENGTH_CLAIM_MODELS,
    REWEIGHTED,
    figure1_name,
    length_key,
    supervised_key,
)
from reproducer.papers.paraphrastic.objective import (
    NEGATIVE_MODES,
    VARIANTS,  # our model -> its CompositionalConfig options
    initial_vocabulary,
    norm_weighted_vectors,
)
from reproducer.papers.paraphrastic.supervised import SupervisedModel, fit_supervised, task_data
from reproducer.papers.paraphrastic.tables import (
    ppdb_score,
    suite_mean,
)
from reproducer.report.explorer import NeighbourIndex, neighbour_frame
from reproducer.report.tables import paper_table
from reproducer.report.units import LONGER, ChapterModels, seed_siblings
from reproducer.runtime import default_device

PAPER = registry.paper("wieting2016")  # this chapter's declaration (reproducer/papers/paraphrastic/__init__.py)

#: PP's grid (the paper's section 4.3): MAX or MIX negatives × λ_w at the ends of the paper's range.
PP_GRID: dict[str, dict] = {f"{n}, λw={w:g}": {"negatives": n, "lambda_w": w} for n in ("MAX", "MIX")
                            for w in (1e-5, 1e-8)}
#: The models scored at every seed on the transfer tasks beside their untrained twins (issue 44): PP (its twin
#: averages the initial vectors: Table 2's *initial vectors*) and the LSTM with output gates (a random LSTM over the
#: initial vectors, as Wieting & Kiela's 2019 random LSTMs).
TWINS = ("PP", "LSTM (o.g.)")
#: Table 2's baselines: ours → the paper's row.
BASELINES = {"skip-thought": "skip-thought", "GloVe": "GloVe", "initial vectors": "paragram-sl999"}
#: Table 7's models (length bins), the explorer's, and the word-level analyses' (PP).
LENGTH_MODELS = ("PP", "LSTM (no o.g.)", "LSTM (o.g.)", "initial vectors")
EXPLORER = ("PP", "LSTM (no o.g.)", "initial vectors")
#: Table 8's query words (the paper's).
TABLE8_QUERIES = ["unlike", "2", "ladies", "lookin", "disagree"]
#: Results carrying 1,000 bootstrap replicates are stored compressed whatever their size (about 4× smaller: the
#: repository must leave room for the GPU pack in one device call's 64 MiB).
REPLICATES = 0
#: Table 5: the supervised tasks (ours → the paper's column), its optimisers and its models (ours → paper's).
TASKS = {"relatedness": "SICK-R", "entailment": "SICK-E", "sentiment": "SST2"}
#: The tasks every chapter scores its models on at the paper protocol (chapter 06's one table): PP is scored on them too.
TRANSFER_TASKS = ("MR", "CR", "SUBJ", "MPQA", "TREC", "MRPC", "SICK-R", "STS14", "SST2", "SICK-E")
OPTIMISERS = {"AdaGrad 0.05": {"optimizer": "adagrad", "lr": 0.05}, "Adam 0.001": {"optimizer": "adam", "lr": 0.001}}
SUPERVISED = {"PP": "word averaging", "proj": "projection", "DAN": "DAN", "RNN": "RNN",
              "LSTM (no o.g.)": "LSTM (no o.g.)", "LSTM (o.g.)": "LSTM (o.g.)"}


def paper_names() -> dict[str, str]:
    """Our models and baselines → their rows in the paper's tables (from :mod:`reproducer.papers.registry`)."""
    return {**{n: published_names(n)[0] for n in VARIANTS}, **BASELINES}


def file_key(text: str) -> str:
    """The chapter's results file names: ASCII letters, digits, ``-`` and ``.`` kept, anything else ``_``
    (``"LSTM (no o.g.)"`` → ``LSTM__no_o.g._``)."""
    return "".join(c if (c.isascii() and c.isalnum()) or c in "-." else "_" for c in text)


def grid(name: str, pp_choice: str | None = None) -> dict[str, dict]:
    """The configurations of one model, label → preset overrides: PP's :data:`PP_GRID`; every other model takes
    PP's λ_w and tunes, as the paper does for each model (section 4.2.2), MAX or MIX negatives (PP's choice first)
    × the learning rate (proj, DAN: 0.05 or 0.005; recurrent models: 0.005 or 0.0005, as 0.05 breaks them), or for
    the iRNN × λ_c (1 or 100) at 0.005."""
    if name == "PP":
        return PP_GRID
    base = PP_GRID[pp_choice]
    modes = sorted(NEGATIVE_MODES, key=lambda mode: mode != base["negatives"])
    if name == "iRNN":
        return {f"{mode}, lr=0.005, λc={c}": {**base, "negatives": mode, "lr": 0.005, "lambda_c": c}
                for mode in modes for c in (1.0, 100.0)}
    rates = (0.05, 0.005) if VARIANTS[name]["kind"] in ("proj", "DAN") else (0.005, 0.0005)
    return {f"{mode}, lr={lr}": {**base, "negatives": mode, "lr": lr} for mode in modes for lr in rates}


def dev_score(record: dict) -> float:
    """A grid record's selection score: Spearman's ρ on the PPDB dev half."""
    return ppdb_score(record["suite"], "dev")


class ParaphraseModels(ChapterModels):
    """Chapter 03's models (Wieting et al. 2016) as units: each model's grid trained on the chapter's paraphrase
    pairs (``data``: the pairs and the initial vectors W_w) under the preset ``settings``, cached in ``run``'s
    results. After :meth:`train_grid`: ``runs`` (model → grid records), ``best`` (model → chosen record) and
    ``pp_choice`` (PP's winning configuration, shared by the others). ``choices`` (model → configuration label) fixes
    each model's configuration instead of tuning it: only that one trains (the claims' seeds train the main run's
    choices, :meth:`seeds`). The products of :class:`~reproducer.report.units.ChapterModels` (:attr:`products`,
    :meth:`evaluated`, :meth:`twin_results`) are the transfer tasks at the ``paper`` protocol
    (:data:`TRANSFER_TASKS`; ``smoke``: two tasks, ``prototype``); the chapter's own products (similarity suites,
    Tables 3, 5, 7 and 8, Figure 1) are its methods."""

    family = "paraphrastic"
    paper = PAPER
    EXTRA_TASKS = ()
    SEARCH = ("PP", "LSTM (no o.g.)")
    TWINS = TWINS  # the views' evidence (at half the budget, at quick) reads their untrained twins too (issue 70)
    #: A chosen configuration whose checkpoint is gone trains again into it for the searchable explorer (issue 69
    #: item 8; :meth:`encoder`): its grid run again, from the same seed and steps (from this machine's word2vec, so
    #: not bit-identical to the committed run: :meth:`~reproducer.report.units.ChapterModels.train_again`).
    TRAINS_AGAIN = True

    def __init__(self, run, settings, *, data, figure_epochs: int = 3, supervised_epochs: int = 1, n_queries: int = 8,
                 choices: dict | None = None):
        smoke = run.preset == "smoke"
        tasks, config = (["MRPC", "STS14"], "smoke") if smoke else (list(TRANSFER_TASKS), "paper")
        super().__init__(run, settings, tasks=tasks, seed=run.seed, progress=not smoke, n_queries=n_queries,
                         eval_config=config)
        self.pairs, self.vectors = data.pairs, data.vectors
        self.products.pool_source = lambda: self.pool  # the searchable explorer searches the STS sentences too
        self.figure_epochs, self.supervised_epochs, self.choices = figure_epochs, supervised_epochs, choices
        self.runs: dict = {}
        self.best: dict = {}
        self.pp_choice: str | None = None
        self._fitted: dict = {}
        self._half: dict = {}  # model -> its chosen configuration's encoder at half the step budget (issue 70)
        self._supervised_data: dict = {}

    @classmethod
    def prepare(cls, run, max_steps: int | None = None, **options) -> "ParaphraseModels":
        """The chapter's models at ``run``'s preset (``max_steps`` overrides its budget) on its training pairs
        (:func:`~reproducer.data.pairs.training_pairs` at the preset's ``wiki_min_score``) and initial vectors:
        chapter 00's word2vec (300-d); at ``smoke`` a 32-d word2vec of 3 books (chapter 01's smoke vectors).
        ``options``: ``figure_epochs``, ``supervised_epochs``, ``n_queries``."""
        settings = preset("paraphrastic", run.preset, max_steps=max_steps)
        return cls(run, settings, data=family("paraphrastic").training_data("PP", settings), **options)

    def settings_record(self) -> dict:
        """What the chapter's results depend on besides the parameters (its key: :meth:`declare`)."""
        return {"paraphrastic": self.settings.to_dict(), "seed": self.seed, "figure_epochs": self.figure_epochs,
                "supervised_epochs": self.supervised_epochs, "training_pairs": len(self.pairs),
                "device": str(default_device())}

    def seeds(self, seeds: int) -> list["ParaphraseModels"]:
        """The chapter's models for the claims' seeds (:func:`~reproducer.report.units.seed_siblings`): these models
        for their own seed and, for the ``seeds - 1`` after it, the same models at the same preset and budget, each in
        its sibling run (declared). The seeds train each model's configuration chosen here (after
        :meth:`train_grid`) instead of tuning the grid again: their spread is the training noise of the models the
        claims are about, at a seventh of the grid's cost (section 4.2.2 tunes once per model)."""
        choices = self.chosen_configurations("The claims' seeds train") if seeds > 1 else None
        return seed_siblings(self, self.run, self.seed, seeds,
                             lambda run, seed: self.sibling(run, self.settings, seed, choices))

    def longer(self, factor: int = LONGER) -> "ParaphraseModels":
        """These models trained ``factor`` times their step budget (issue 70:
        :meth:`~reproducer.report.units.ChapterModels.longer`), each model at the configuration chosen here (after
        :meth:`train_grid`), as the claims' seeds train it: the longer run checks where the line through this run's
        budgets projects the same models, not a grid tuned again at another budget."""
        choices = self.chosen_configurations("A longer run trains")
        view = super().longer(factor)
        view.choices = choices
        return view

    def chosen_configurations(self, who: str) -> dict[str, str]:
        """Each model's configuration chosen by this run's grid (``{model: label}``), what :meth:`seeds` and
        :meth:`longer` train; an error naming ``who`` (``"The claims' seeds train"``) before :meth:`train_grid`."""
        if set(self.best) != set(VARIANTS):
            raise ReproducerError(f"{who} the configurations this run chose: call train_grid() first "
                                  f"(chosen so far: {', '.join(self.best) or 'none'}).")
        return {n: self.best[n]["config"] for n in VARIANTS}

    def sibling(self, run, settings, seed: int, choices: dict | None = None) -> "ParaphraseModels":
        """The same models in ``run`` (whose seed is ``seed``) at ``settings``, on the same pairs and vectors,
        training ``choices``' configurations."""
        return type(self)(run, settings, data=self.data(), figure_epochs=self.figure_epochs,
                          supervised_epochs=self.supervised_epochs, n_queries=self.n_queries, choices=choices)

    def unit(self, name: str, neighbours: bool = True) -> None:
        """Everything the chapter shows of model ``name``, right after it trains, cached: its grid (PP first: the
        others take PP's choice) and the chosen configuration; for Table 7's models their length bins; with
        ``neighbours``, for the explorer's models their neighbours (PP's and the LSTM's of every pool sentence too:
        :meth:`search`); for PP the word-level analyses (Table 8, section 6); for
        :data:`TWINS` (every seed) the transfer scores and their untrained twins' (issue 44). ``name``
        ``"baselines"``: the baselines' similarity suites and the initial vectors' length bins and neighbours."""
        if name == "baselines":
            self.baseline_suites()
        else:
            if name != "PP" and self.pp_choice is None:
                self.unit("PP", neighbours)
            self.runs[name] = self.train_model(name, self.pp_choice)
            self.best[name] = max(self.runs[name], key=dev_score)
            self.forget_if_rechosen(name)
            if (name, self.best[name]["config"]) in self._fitted:  # trained here: save its encoder bundle
                self.chosen(name)
            if name == "PP":
                self.pp_choice = self.best["PP"]["config"]
        model = "initial vectors" if name == "baselines" else name
        if model in LENGTH_MODELS:
            self.length_bins(model)
        if neighbours and model in EXPLORER:
            self.neighbours(model)
        if neighbours and model in self.SEARCH:  # the searchable explorer over the whole pool (issue 69)
            self.search(model)
        if name in TWINS:  # every seed: the book's own claim that training beats the twin (issue 44)
            self.transfer(name)
            self.twin_results(name)
        if name == "PP":
            self.pp_word_table("table8_neighbours", lambda: self.word_neighbours(TABLE8_QUERIES))
            self.pp_word_table("word_weights", self.word_weight_extremes)
            self.run.json("norm_analysis", self.reweighted_suite)

    #: What the chapter caches of a model's chosen configuration (per model, ``{}`` its :func:`file_key`).
    CHOSEN_PRODUCTS = ("length_bins_{}.csv", "neighbours_{}.csv", "length_replicates_{}.json", "in_domain_{}.json")
    #: What it caches of PP's chosen configuration alone: its word-level analyses, Figure 1 (PP's configuration on the
    #: nested subsets) and its transfer scores.
    PP_PRODUCTS = ("table8_neighbours.json", "word_weights.json", "norm_analysis.json", "figure1.json")
    #: What it caches of a model's chosen configuration under :func:`slug` names: its transfer scores, its untrained
    #: twin's and its searchable explorer's neighbours (:meth:`search`).
    TRANSFER_PRODUCTS = ("eval_{}.json", "eval_{}_untrained.json", "search_{}.json")

    def forget_if_rechosen(self, name: str) -> None:
        """Delete what is cached of ``name``'s chosen configuration (:data:`CHOSEN_PRODUCTS`, for PP
        :data:`PP_PRODUCTS`, and its saved encoder) when that configuration is not the one they were computed from (a
        grid that grew, a dev score that moved, a seed given the main run's choice), as recorded in ``choices.json``
        (written here): their names carry the model, not the configuration, so a new choice must not reuse them."""
        chosen, choices = self.best[name]["config"], self.recorded_choices()
        if choices.get(name, chosen) != chosen:
            products = [kind.format(file_key(name)) for kind in self.CHOSEN_PRODUCTS] + [
                kind.format(slug(name)) for kind in self.TRANSFER_PRODUCTS]
            for stale in [*(self.run.path(f) for f in products + list(self.PP_PRODUCTS if name == "PP" else ())),
                          self.run.bundle_path(name)]:
                found = stored_json(stale)
                if found:
                    found.unlink()
                    note(f"{name}: chosen configuration now {chosen!r} (was {choices[name]!r}): "
                          f"{found.name} is computed again")
        if choices.get(name) != chosen:
            write_json(self.run.path("choices.json"), {**choices, name: chosen})

    def recorded_choices(self) -> dict[str, str]:
        """The configuration this run chose for each model (``{model: label}``), as its ``choices.json`` records it
        (empty before :meth:`train_grid`): a :meth:`stored_at` view's are its own preset's, which may differ."""
        path = self.run.path("choices.json")
        return read_json(path) if path.is_file() else {}

    def transfer(self, name: str):
        """Model ``name`` on SentEval's transfer tasks and STS14 (:data:`TRANSFER_TASKS`) at the ``paper`` protocol
        (``smoke``: two tasks, ``prototype``), with per-item outcomes: ``eval_<name>.json``. Wieting et al. report
        no such scores; chapter 06's one table compares every encoder of the book on them."""
        return self.evaluated(name)

    def twin_inputs(self, name: str) -> tuple:
        """Model ``name``'s untrained twin (:meth:`twin_results`, on the transfer tasks) is built from its chosen
        configuration's settings on the chapter's pairs and initial vectors, with this seed's initial weights (PP's
        twin averages its initial vectors)."""
        return self.config(**self.best[name]["overrides"]), self.data()

    def length_bins(self, name: str) -> pd.DataFrame:
        """Table 7's rows of ``name`` (:func:`~reproducer.papers.paraphrastic.tables.length_bin_frame`):
        ``length_bins_<name>.csv``."""
        from reproducer.papers.paraphrastic.tables import length_bin_frame

        return self.run.frame(f"length_bins_{file_key(name)}", lambda: length_bin_frame({name: self.encoder(name)}))

    @functools.cached_property
    def pool(self) -> tuple[list[str], list[str]]:
        """The explorer's pool (every distinct STS 2012-2015 sentence) and queries."""
        from reproducer.papers.paraphrastic.tables import sts_pool

        return sts_pool(self.n_queries, seed=self.seed, limit=2000 if self.smoke else None)

    def neighbours(self, name: str) -> pd.DataFrame:
        """``name``'s top 5 pool sentences for each query: ``neighbours_<name>.csv``."""
        return self.run.frame(f"neighbours_{file_key(name)}", lambda: neighbour_frame(
            [NeighbourIndex.build(self.encoder(name), self.pool[0], name=name)], self.pool[1], 5))

    @property
    def smoke(self) -> bool:
        return self.run.preset == "smoke"

    def config(self, **overrides):
        """The chapter's :class:`~reproducer.papers.paraphrastic.objective.ParaphrasticPreset` (:attr:`settings`)
        with ``overrides`` (a configuration of a grid)."""
        return self.settings.with_overrides(**overrides)

    def data(self, pairs: list | None = None):
        return TrainingData(pairs=self.pairs if pairs is None else pairs, vectors=self.vectors)

    def grid_checkpoint(self, name: str, label: str, half: bool = False):
        """Where configuration ``label`` of ``name`` trains: ``checkpoints/<model>__<label>.train.pt`` (``half``:
        ``…__half.train.pt``, its own run to half the step budget: :meth:`half_chosen`)."""
        return self.run.path(f"checkpoints/{file_key(name)}__{file_key(label)}{'__half' if half else ''}.train.pt")

    def half_chosen(self, name: str):
        """Issue 70: the encoder of ``name``'s chosen configuration at half the step budget, named ``name``: the one
        its grid run saved halfway (:func:`~reproducer.checkpoints.half_budget_bundle`) when that run trained in this
        folder, else the configuration trained again, as a run of its own, to half the budget
        (:meth:`grid_checkpoint` with ``half``). The two are the same encoder: AdaGrad at a constant rate, batches
        and negatives drawn by step (a test checks it), so a seed whose checkpoints are gone is read at half its
        budget for half its training. Once per kernel."""
        from reproducer.checkpoints import half_budget_bundle
        from reproducer.encoders.bundles import load_encoder

        if name not in self._half:
            best = self.best[name]
            saved = half_budget_bundle(self.grid_checkpoint(name, best["config"]))
            if saved.is_file() and not self.run.retrain:
                encoder = load_encoder(saved)
            else:
                state = self.grid_checkpoint(name, best["config"], half=True)
                if self.run.retrain:
                    state.unlink(missing_ok=True)
                settings = self.config(**{**best["overrides"], "max_steps": self.settings.max_steps // 2})
                encoder = family("paraphrastic").fit(name, settings, self.data(), checkpoint=state, seed=self.seed,
                                                     progress=not self.smoke).encoder
            encoder.name = name
            self._half[name] = encoder
        return self._half[name]

    def fit(self, name: str, label: str, overrides: dict, checkpoint=None):
        """Train (or resume from ``checkpoint``, default the configuration's own) one configuration of the grid; once
        per kernel. A :class:`~reproducer.fit.Fitted`."""
        if (name, label) not in self._fitted:
            state = checkpoint or self.grid_checkpoint(name, label)
            if self.run.retrain:
                state.unlink(missing_ok=True)
            fitted = family("paraphrastic").fit(name, self.config(**overrides), self.data(), checkpoint=state,
                                                seed=self.seed, progress=not self.smoke)
            fitted.encoder.name = name
            self._fitted[name, label] = fitted
        return self._fitted[name, label]

    def record(self, name: str, label: str, overrides: dict) -> dict:
        """One configuration trained and scored: its training log and its similarity suite."""
        from reproducer.evaluate.similarity import similarity_suite

        fitted = self.fit(name, label, overrides)
        log = fitted.log.to_dict()
        suite = similarity_suite(fitted.encoder, seed=self.seed, config=self.settings.eval_config)
        return {"model": name, "config": label, "overrides": overrides, "steps": log["step"], "seconds": log["seconds"],
                "pairs_per_second": log["examples"] / log["seconds"], "losses": log["losses"],
                "suite": suite.to_dict(orient="records")}

    def train_model(self, name: str, pp_choice: str | None = None) -> list[dict]:
        """Every configuration of ``name``'s grid (the first only at ``smoke``; only the one of :attr:`choices` when
        given), each cached as ``grid/<key>.json``."""
        configs = list(grid(name, pp_choice).items())
        if self.choices:
            configs = [(label, overrides) for label, overrides in configs if label == self.choices.get(name)]
            if not configs:
                raise ReproducerError(f"{name}: the configuration {self.choices.get(name)!r} is not in its grid "
                                      f"({', '.join(grid(name, pp_choice))}).")
        configs = configs[:1 if self.smoke else None]
        return [self.run.json(f"grid/{file_key(name)}__{file_key(label)}", lambda: self.record(name, label, overrides))
                for label, overrides in configs]

    def train_grid(self, neighbours: bool = True) -> dict[str, dict]:
        """Every model's :meth:`unit` in order (PP's grid first, then every other model's with PP's choice); the
        chosen record of each model."""
        for name in VARIANTS:
            self.unit(name, neighbours)
        return self.best

    def grid_table(self) -> pd.DataFrame:
        """One row per trained configuration: budget, speed, final loss, dev score and whether it was chosen."""
        return pd.DataFrame([
            {"model": r["model"], "configuration": r["config"], "steps": r["steps"], "seconds": r["seconds"],
             "pairs / second": r["pairs_per_second"], "final loss": r["losses"][-1]["loss"],
             "PPDB dev ρ": dev_score(r),
             "chosen": "✓" if r is self.best[r["model"]] else ""}
            for records in self.runs.values() for r in records])

    def chosen(self, name: str):
        """The chosen configuration of ``name`` as a :class:`~reproducer.fit.Fitted`, through ``run.model`` (which
        saves its encoder bundle): trained in this kernel, or reloaded from (or trained into) its grid checkpoint."""
        best = self.best[name]
        return self.run.model(name, lambda checkpoint: self.fit(name, best["config"], best["overrides"]))

    def trained(self, name: str):
        """:meth:`encoder`: what the transfer tasks score (:attr:`products`)."""
        return self.encoder(name)

    def encoder(self, name: str):
        """The encoder of a chosen model or a baseline: this kernel's, else a saved bundle, else trained now."""
        if name in BASELINES:
            return self.baseline(name)
        if self.half:
            return self.half_chosen(name)
        return self.run.encoder(name) or self.chosen(name).encoder

    def baseline(self, name: str):
        """A Table 2 baseline encoder: GloVe 6B 50d averaged, or the average of our initial vectors (skip-thought's
        scores come from chapter 01's results: :meth:`baseline_suites`)."""
        if name == "initial vectors":  # the average of the very vectors every model starts from
            from reproducer.encoders.bow import word_average_encoder

            return word_average_encoder(self.vectors, name="initial vectors")
        from reproducer.encoders.baselines import load_baseline

        return load_baseline("glove-bow")

    def baseline_suites(self) -> dict[str, list[dict]]:
        """The similarity suite of each baseline, cached as ``baseline_<name>.json``. Skip-thought's is chapter 01's
        combine-skip at the same seed, read from its results; it is left out where chapter 01 has not got that seed
        (it trains three, this chapter five). Only the main seed's Table 2 shows it and no claim reads it, so only a
        missing main-seed result is noted (issue 69: the other seeds' notes reached the page)."""
        from reproducer.evaluate.similarity import similarity_suite

        suites = {}
        for name in BASELINES:
            if name == "skip-thought":  # chapter 01 scores its combine-skip on the suite: read from results/
                if self.stored_only:  # a stored view reads this run's results only
                    continue
                path = self.run.earlier_path("01_skip_thoughts", "similarity_combine-skip.json", same_seed=True)
                if stored_json(path) is not None:
                    suites[name] = read_json(path)
                elif self.seed == 0:
                    note(f"skip-thought: {path.relative_to(results_root().parent)} is missing (run notebook 01 at "
                          "this preset first); column left out")
                continue
            suite = self.cached(f"baseline_{slug(name)}", lambda: similarity_suite(
                self.baseline(name), seed=self.seed, config=self.settings.eval_config).to_dict(orient="records"))
            if suite is not None:
                suites[name] = suite
        return suites

    def word_tables(self):
        """PP's vocabulary, its initial and trained word embedding tables, and the 10,000 most frequent words of the
        initial vectors that it has (trains PP's chosen configuration when no encoder of it is at hand)."""
        pp = self.encoder("PP")
        vocab = pp.vocab
        initial = initial_vocabulary(self.vectors, self.pairs, self.settings.vocab_size, self.seed)[1]
        trained = pp.module.embed.weight.detach().cpu().numpy()
        return vocab, initial, trained, [w for w in self.vectors.words[:10_000] if w in vocab.stoi]

    def word_neighbours(self, queries: list[str], k: int = 6) -> pd.DataFrame:
        """Table 8: the nearest frequent words of each query in PP's trained and in its initial embeddings."""
        vocab, initial, trained, frequent = self.word_tables()
        return neighbour_words({"PP (trained)": trained, "initial word2vec": initial}, vocab, queries, frequent, k)

    def word_weight_extremes(self, n: int = 12, among: int = 5000) -> pd.DataFrame:
        """Section 6: the alphabetic words among the ``among`` most frequent with the smallest and largest PP weight
        (the L1 norm of the trained vector)."""
        vocab, _, trained, frequent = self.word_tables()
        return weight_extremes(word_weights(trained, vocab), [w for w in frequent[:among] if w.isalpha()], n)

    def pp_word_table(self, name: str, compute) -> pd.DataFrame | None:
        """A table of PP's trained word vectors (``compute()``: Table 8, the word weights), cached as ``<name>.json``.
        Computed only when PP's encoder is at hand without training (trained in this kernel, or a saved bundle):
        checkpoints are not committed, and a re-executed notebook trains nothing. Otherwise ``None``, with a note."""
        if self.run.reusable(f"{name}.json") or self.run.has_model("PP"):
            return pd.DataFrame(self.run.json(name, lambda: compute().to_dict(orient="records")))

        folder = self.run.bundle_path("PP").parent.relative_to(results_root().parent)
        note(f"{name}: needs PP's trained word vectors, and no PP encoder is saved in {folder}/ (not committed); "
              f"training.chosen('PP') trains it (15 s at default).")
        return None

    def reweighted_suite(self) -> list[dict]:
        """Section 6: the similarity suite of the initial vectors, each multiplied by its word's PP weight, averaged
        (:func:`~reproducer.papers.paraphrastic.objective.norm_weighted_vectors`)."""
        from reproducer.encoders.bow import word_average_encoder
        from reproducer.evaluate.similarity import similarity_suite

        vocab, initial, trained, _ = self.word_tables()
        weighted = norm_weighted_vectors(vocab, initial, trained)
        return similarity_suite(word_average_encoder(weighted, name="initial × PP weight"), seed=self.seed,
                                config=self.settings.eval_config).to_dict(orient="records")

    def subset_score(self, order: str, size: int, datasets: list, epochs: int) -> dict:
        """Figure 1: PP (its chosen configuration) trained ``epochs`` epochs on the ``size`` first pairs of the
        ``order`` ("random" or "ordered") nested subsets; its mean score over ``datasets`` and its similarity suite
        (the claims resample its datasets)."""
        from reproducer.evaluate.similarity import similarity_suite

        settings = self.settings
        subset = next(s for s in nested_subsets(self.pairs, order, seed=self.seed) if len(s) == size)
        batch = min(settings.batch_size, len(subset))
        steps = max(1, math.ceil(epochs * len(subset) / batch))
        overrides = {**PP_GRID[self.pp_choice], "batch_size": batch, "max_steps": steps}
        if self.smoke:
            overrides["max_steps"] = min(steps, settings.max_steps)
        fitted = family("paraphrastic").fit("PP", self.config(**overrides), self.data(subset), seed=self.seed,
                                            progress=False)
        suite = similarity_suite(fitted.encoder, seed=self.seed, config=self.settings.eval_config).to_dict(
            orient="records")
        return {"order": order, "pairs": size, "steps": overrides["max_steps"],
                "mean r": float(suite_mean(suite, datasets)), "suite": suite}

    def figure1(self, datasets: list, epochs: int) -> list[dict]:
        """Figure 1's points (:meth:`subset_score`): every other nested subset size (largest first; two at ``smoke``)
        in random order, the same sizes but the full set in the given (confidence) order, and the full set once more
        as "ordered"."""
        sizes = [len(s) for s in nested_subsets(self.pairs, "random", seed=self.seed)][::-1][::2]
        sizes = sizes[:2] if self.smoke else sizes
        rows = [self.subset_score("random", n, datasets, epochs) for n in sizes]
        rows += [self.subset_score("ordered", n, datasets, epochs) for n in sizes if n != len(self.pairs)]
        full = next(r for r in rows if r["pairs"] == len(self.pairs))
        return rows + [{**full, "order": "ordered"}]

    def supervised_data(self, task: str):
        """A Table 5 task's splits (a few hundred examples each at ``smoke``) with the vocabulary and initial table of
        its training texts."""
        if task not in self._supervised_data:
            data = task_data(task)
            if self.smoke:
                data = {split: (texts[:300], labels[:300]) for split, (texts, labels) in data.items()}
            pairs = [TrainingPair(*(t if isinstance(t, tuple) else (t, t)), 0.0, task) for t in data["train"][0]]
            vocab, table = initial_vocabulary(self.vectors, pairs, self.settings.vocab_size, self.seed)
            self._supervised_data[task] = data, vocab, table
        return self._supervised_data[task]

    def supervised(self, name: str, task: str, epochs: int) -> dict:
        """Table 5: a fresh ``name`` model trained on ``task``'s labels under each of :data:`OPTIMISERS`; the one
        with the best dev score is reported."""
        data, vocab, table = self.supervised_data(task)
        reports = {}
        def make():
            return SupervisedModel(CompositionalEncoder(CompositionalConfig(vocab_size=len(vocab), dim=self.vectors.dim,
                                                                            **VARIANTS[name]), table), task)

        for label, optimiser in OPTIMISERS.items():
            reports[label] = fit_supervised(make, task, vocab, data, epochs=epochs, seed=self.seed, **optimiser)
        chosen = max(reports, key=lambda label: reports[label]["dev"])
        return {"model": name, "task": task, "optimiser": chosen, **reports[chosen],
                "dev_by_optimiser": {label: r["dev"] for label, r in reports.items()}}

    def figure1_points(self, datasets: list) -> list[dict]:
        """:meth:`figure1` at :attr:`figure_epochs`, each point with its similarity suite: ``figure1.json``."""
        return self.run.json("figure1", lambda: self.figure1(datasets, self.figure_epochs))

    def figure1_frame(self, datasets: list) -> pd.DataFrame:
        """Figure 1's points as a table: ``order, pairs, steps, mean r``."""
        return pd.DataFrame(self.figure1_points(datasets)).drop(columns="suite")

    def claim_suites(self, datasets: list) -> dict[str, list[dict]]:
        """The similarity suites the claims on Table 2, Figure 1 and section 6 resample dataset by dataset
        (:func:`~reproducer.papers.paraphrastic.claims.suite_samples`): every chosen model's, the baselines', the
        initial vectors reweighted by PP's norms (:data:`~reproducer.papers.paraphrastic.claims.REWEIGHTED`) and PP's
        at each point of Figure 1 (:func:`~reproducer.papers.paraphrastic.claims.figure1_name`)."""
        suites = {**{n: self.best[n]["suite"] for n in self.best}, **self.baseline_suites(),
                  REWEIGHTED: self.run.json("norm_analysis", self.reweighted_suite)}
        return suites | {figure1_name(p["order"], p["pairs"]): p["suite"] for p in self.figure1_points(datasets)}

    def suffix(self, name: str) -> str:
        """The suffix of ``name``'s products in this view: ``_half`` for a chosen model in the :meth:`at_half` view;
        none for a baseline (the same at every budget) or the full models."""
        return "" if name in BASELINES else self.products.suffix

    def suite(self, name: str) -> list[dict]:
        """Chosen model ``name``'s similarity suite (Table 2): its grid record's; in the :meth:`at_half` view its
        half-budget encoder's, ``suite_<name>_half.json``."""
        from reproducer.evaluate.similarity import similarity_suite

        if self.stored_only:  # the grid record of the configuration that run chose, if it stored it
            label = self.recorded_choices().get(name)
            record = self.cached(f"grid/{file_key(name)}__{file_key(label)}", None) if label else None
            return record and record["suite"]
        if not self.half:
            return self.best[name]["suite"]
        return self.run.json(f"suite_{file_key(name)}{self.products.suffix}", lambda: similarity_suite(
            self.encoder(name), seed=self.seed, config=self.settings.eval_config).to_dict(orient="records"))

    def at_half(self) -> "ParaphraseModels":
        """These models at half their step budget (issue 70; :meth:`~reproducer.report.units.ChapterModels.at_half`):
        each chosen configuration's encoder is :meth:`half_chosen`'s, and what the claims read of it is cached with
        the suffix ``_half`` (``suite_PP_half.json``, ``in_domain_PP_half.json``, ``eval_PP_half.json``…). Needs
        :meth:`train_grid` first (the configurations it chose); shares this kernel's half-budget encoders."""
        if set(self.best) != set(VARIANTS):
            raise ReproducerError("The models at half their budget are the configurations this run chose: call "
                                  f"train_grid() first (chosen so far: {', '.join(self.best) or 'none'}).")
        return super().at_half()

    def along_evidence(self, datasets: list):
        """This seed's evidence of the claims that depend on the step budget, for reading them along training (issue
        70), in the :meth:`at_half` view (computed: its encoders trained to half the budget) or a
        :meth:`~reproducer.report.units.ChapterModels.stored_at` view of another preset's run (only what that run
        stored, under its own choices; a part it has not got is left out, and the claims that read it are not read
        at that budget): Table 2's suites of the chosen models with the baselines' and the initial
        vectors reweighted by PP's norms; Table 3's and Table 7's scores with their replicates; the transfer scores of
        :data:`TWINS` beside their untrained twins (shared with the full models). Figure 1 and Table 5 are left out:
        they train PP on nested subsets for ``figure_epochs`` and fresh supervised models for ``supervised_epochs``
        whatever the step budget, so their claims are not read along it."""
        from reproducer.papers.paraphrastic import claims as paraphrase_claims
        from reproducer.report.claims import Evidence

        suites = {n: suite for n in VARIANTS if (suite := self.suite(n)) is not None} | self.baseline_suites()
        if (reweighted := self.cached(f"norm_analysis{self.products.suffix}", self.reweighted_suite)) is not None:
            suites[REWEIGHTED] = reweighted
        bins = {(n, length_key(b)): (v["pearson"], v["replicates"])
                for n in LENGTH_CLAIM_MODELS for b, v in (self.length_replicates(n) or {}).items()}
        transfer = self.evaluations(list(TWINS)) if self.stored_only else {n: self.transfer(n) for n in TWINS}
        return Evidence(transfer | self.twins(TWINS), samples=paraphrase_claims.suite_samples(suites, datasets),
                        replicated=self.in_domain_scores() | bins, seed=self.seed)

    def supervised_models(self) -> list[str]:
        """Table 5's models (PP and the LSTM without output gate at ``smoke``)."""
        return ["PP", "LSTM (no o.g.)"] if self.smoke else list(SUPERVISED)

    def in_domain(self, name: str) -> dict:
        """Table 3's score of ``name`` (a chosen model or the initial vectors) with its bootstrap replicates, on the
        Pavlick test half split alike for every seed (:func:`~reproducer.evaluate.similarity.pavlick_test_score`):
        ``in_domain_<name>.json``. Needs the model's encoder (this kernel's, saved, or its configuration trained
        again: its checkpoint resumes)."""
        from reproducer.evaluate.similarity import pavlick_test_score

        return self.cached(f"in_domain_{file_key(name)}{self.suffix(name)}", lambda: pavlick_test_score(
            self.encoder(name), config=self.settings.eval_config), compress_above=REPLICATES)

    def length_replicates(self, name: str) -> dict:
        """Table 7's Pearson's r × 100 of ``name`` in each length bin with its bootstrap replicates
        (:func:`~reproducer.evaluate.length_bins.length_bin_replicates`, on Table 7's STS 2012-2015 pairs):
        ``length_replicates_<name>.json``. Needs the model's encoder, as :meth:`in_domain`."""
        from reproducer.evaluate.length_bins import length_bin_replicates, sts_pairs
        from reproducer.evaluate.similarity import YEARS

        return self.cached(f"length_replicates_{file_key(name)}{self.suffix(name)}", lambda: length_bin_replicates(
            self.encoder(name), sts_pairs(YEARS)), compress_above=REPLICATES)

    def replicated_scores(self) -> dict:
        """The evidence of the claims on Tables 3, 7 and 5
        (:func:`~reproducer.papers.paraphrastic.claims.in_domain_claims`,
        :func:`~reproducer.papers.paraphrastic.claims.length_bin_claim`,
        :func:`~reproducer.papers.paraphrastic.claims.supervised_claims`): (model, key) → (score, replicates) of
        :meth:`in_domain_scores`, for PP and the LSTMs of each length bin (:meth:`length_replicates`; the key
        :func:`~reproducer.papers.paraphrastic.claims.length_key`), and of :meth:`supervised_scores`."""
        bins = {(n, length_key(b)): (v["pearson"], v["replicates"])
                for n in LENGTH_CLAIM_MODELS for b, v in self.length_replicates(n).items()}
        return self.in_domain_scores() | bins | self.supervised_scores()

    def in_domain_scores(self) -> dict:
        """The evidence of Table 3's claims (:func:`~reproducer.papers.paraphrastic.claims.in_domain_claims`):
        (model, :data:`~reproducer.papers.paraphrastic.claims.IN_DOMAIN`) → (score, replicates) of every chosen model
        and the initial vectors (:meth:`in_domain`)."""
        return {(n, IN_DOMAIN): (r["spearman"], r["replicates"])
                for n in [*(self.recorded_choices() if self.stored_only else self.best), "initial vectors"]
                if (r := self.in_domain(n))}

    def supervised_runs(self, models: list[str], epochs: int) -> list[dict]:
        """:meth:`supervised` for every model and task, each cached with its test score's paired replicates as
        ``table5/<model>__<task>.json``."""
        return [self.run.json(f"table5/{file_key(n)}__{task}", lambda: self.supervised(n, task, epochs),
                              compress_above=REPLICATES) for n in models for task in TASKS]

    def supervised_scores(self) -> dict:
        """The evidence of Table 5's claims (:func:`~reproducer.papers.paraphrastic.claims.supervised_claims`):
        (model, :func:`~reproducer.papers.paraphrastic.claims.supervised_key` of the task) → (test score, replicates)
        of :meth:`supervised_runs` at :attr:`supervised_epochs`."""
        return {(r["model"], supervised_key(TASKS[r["task"]])): (r["test"], r["replicates"])
                for r in self.supervised_runs(self.supervised_models(), self.supervised_epochs)}


def pair_tables(pairs: list) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The training pairs by source (pairs, mean and median tokens per phrase, and all together) and three examples
    of each source."""
    stats = pd.DataFrame([{"source": p.source, "tokens": (len(p.a.split()) + len(p.b.split())) / 2} for p in pairs])
    summary = stats.groupby("source").tokens.agg(pairs="size", mean_tokens="mean", median_tokens="median")
    summary.loc["all"] = [len(stats), stats.tokens.mean(), stats.tokens.median()]
    examples = pd.DataFrame([{"source": p.source, "x1": p.a, "x2": p.b} for source in ("ppdb-wiki", "twitter")
                             for p in [q for q in pairs if q.source == source][:3]])
    return summary, examples


def supervised_tables(records: list[dict], models: list[str]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Table 5 from :meth:`ParaphraseModels.supervised_runs`: our test scores and the paper's (models × SICK-R,
    SICK-E, SST2) and the optimiser chosen on dev (models × task)."""
    frame = pd.DataFrame(records)
    ours = frame.pivot(index="model", columns="task", values="test").reindex(models)[list(TASKS)]
    ours.columns = [TASKS[t] for t in ours.columns]
    paper = paper_table("wieting2016", "Table 5", rename={p: n for n, p in SUPERVISED.items()})
    paper = paper.reindex(models)[list(ours.columns)].rename_axis(None)
    return ours, paper, frame.pivot(index="model", columns="task", values="optimiser").reindex(models)

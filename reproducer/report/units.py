"""A chapter's models as units: each model trains, then everything the chapter shows of it is computed at once and
cached in ``results/`` — so a long ``default`` run that is interrupted resumes from the last finished model, and no
later cell needs a checkpoint (checkpoints are not committed).

:class:`ModelProducts` computes and caches the products every chapter shares, per model: its evaluation at the
chapter's protocol with per-item outcomes (``eval_<model>.json``, the input of the bootstrap intervals), its nearest
neighbours of the held-out queries (``neighbours_<model>.csv``) and its answers to the sentence analogies
(``analogy_<model>.json``). A chapter's unit calls the ones it needs right after training a model; its tables read the
cached products (:meth:`ModelProducts.neighbour_table`, :meth:`ModelProducts.analogy_table`).
"""
from __future__ import annotations

import functools
from typing import Callable

import pandas as pd

from reproducer.data.corpus import CorpusConfig
from reproducer.evaluate import Results
from reproducer.errors import ReproducerError
from reproducer.files import read_json
from reproducer.log import note
from reproducer.results_store import slug
from reproducer.report.analogies import answer, mine_questions
from reproducer.report.explorer import NeighbourIndex, neighbour_frame

#: How many times its step budget a model is trained to check the projections of its claims (issue 70:
#: :meth:`ChapterModels.longer`).
LONGER = 4
#: The suffix of a product of a model at half its step budget (``eval_uni-QT_half``: :meth:`ChapterModels.at_half`).
HALF = "_half"


class ModelProducts:
    """The per-model products of one chapter execution (``run``, a :class:`~reproducer.results_store.NotebookRun`).
    ``encoder(name)`` gives a model's encoder (training it when needed): it is called only for a product that is not
    cached. ``tasks`` and ``eval_config``: the evaluation; ``pool_size``, ``n_queries``: the neighbour search among
    held-out sentences (``corpus_config``'s held-out books); ``seed`` picks them, and the analogy questions unless
    ``question_seed`` is given (the same questions for every training seed); ``pool_source``, when given, makes the
    ``(pool, queries)`` instead (chapter 03 searches the STS sentences). ``suffix`` ends the name of every
    product of a model (``eval_<name><suffix>``, ...; ``"_half"``: the models at half their step budget,
    :meth:`ChapterModels.at_half`); an evaluation given its own ``key`` (an untrained twin's) and the analogy questions
    are shared."""

    def __init__(self, run, encoder: Callable[[str], object], *, tasks: list[str], eval_config: str,
                 corpus_config=None, pool_size: int = 20000, n_queries: int = 10, k: int = 5, seed: int = 0,
                 question_seed: int | None = None, suffix: str = "",
                 pool_source: Callable[[], tuple[list[str], list[str]]] | None = None):
        self.run, self.encoder, self.tasks, self.eval_config = run, encoder, list(tasks), eval_config
        self.pool_source = pool_source
        self.suffix = suffix
        self.corpus_config, self.pool_size, self.n_queries, self.k, self.seed = (corpus_config, pool_size, n_queries,
                                                                                 k, seed)
        self.question_seed = seed if question_seed is None else question_seed

    def evaluation(self, name: str, tasks: list[str] | None = None, key: str | None = None,
                   encoder: Callable[[], object] | None = None):
        """Model ``name``'s :class:`~reproducer.evaluate.harness.Results` on ``tasks`` (by default the chapter's),
        with per-item outcomes: ``<key>.json`` (``eval_<name>``) if cached, else evaluated (the encoder from
        ``encoder()`` when given, else ``self.encoder(name)``)."""
        from reproducer.evaluate import Results, evaluate

        return Results.from_json(self.run.json(key or eval_key(name, self.suffix), lambda: evaluate(
            encoder() if encoder else self.encoder(name), tasks or self.tasks, self.eval_config,
            progress=False).to_json()))

    @functools.cached_property
    def pool(self) -> tuple[list[str], list[str]]:
        """``(pool, queries)``: held-out sentences searched and the queries (:func:`~reproducer.report.explorer.held_out_pool`)."""
        from reproducer.report.explorer import held_out_pool

        if self.pool_source is not None:
            return self.pool_source()
        return held_out_pool(self.pool_size, self.n_queries, config=self.corpus_config, seed=self.seed)

    def neighbours(self, name: str) -> pd.DataFrame:
        """Model ``name``'s ``k`` nearest pool sentences for each query (rows of
        :func:`~reproducer.report.explorer.neighbour_frame`): ``neighbours_<name>.csv``."""
        return self.run.frame(f"neighbours_{slug(name)}{self.suffix}", lambda: neighbour_frame(
            [NeighbourIndex.build(self.encoder(name), self.pool[0], name=name)], self.pool[1], self.k))

    def search(self, name: str) -> dict:
        """Every pool sentence's :attr:`k` nearest other pool sentences by model ``name``
        (:func:`~reproducer.report.explorer.pool_neighbours`; cosines to 3 decimals): ``search_<name>.json``, the data
        of the chapter's searchable explorer (:func:`~reproducer.report.explorer.search_explorer`), committed with the
        results so the explorer is drawn again without the model."""
        from reproducer.report.explorer import pool_neighbours

        def compute():
            found = pool_neighbours(NeighbourIndex.build(self.encoder(name), self.pool[0], name=name), self.k)
            return {"ids": found["ids"].tolist(), "cosines": found["cosines"].round(3).tolist()}

        return self.run.json(search_key(name, self.suffix), compute)

    def neighbour_table(self, names: list[str]) -> pd.DataFrame:
        """The neighbour rows of ``names`` together, in that order (the static explorer's input)."""
        return pd.concat([self.neighbours(n) for n in names], ignore_index=True)

    def questions(self, sentences: Callable[[], list[str]], per_category: int = 200) -> dict:
        """The analogy questions mined from ``sentences()`` (the training corpus; called only when not cached) with
        :attr:`question_seed`: ``analogy_questions.json`` (:func:`~reproducer.report.analogies.mine_questions`).
        Questions cached from another seed (before every seed answered the same questions: no ``seed`` recorded,
        the run's own) are forgotten, with every answer to them."""
        def mine():
            return mine_questions(sentences(), per_category, self.question_seed)

        study = self.run.json("analogy_questions", mine)
        if study.get("seed", self.seed) != self.question_seed:
            for stale in sorted(self.run.dir.glob("analogy_*.json*")):
                stale.unlink()
            note(f"{self.run.dir.name}: the analogy questions of seed {study.get('seed', self.seed)} are replaced by "
                  f"those of seed {self.question_seed} (every seed answers the same questions); their answers are "
                  "forgotten")
            study = self.run.json("analogy_questions", mine)
        return study

    def analogy(self, name: str, sentences: Callable[[], list[str]]) -> dict | None:
        """Model ``name``'s answers to the analogy questions (:func:`~reproducer.evaluate.analogy.analogy_accuracy`):
        ``analogy_<name>.json``; ``None`` when the corpus gave no question."""
        study = self.questions(sentences)
        if not study["questions"]:
            return None
        return self.run.json(f"analogy_{slug(name)}{self.suffix}", lambda: answer(self.encoder(name), study))

    def stored_analogy(self, name: str) -> dict | None:
        """Model ``name``'s cached answers to the analogy questions (``analogy_<name>.json`` stored under this run's
        key), ``None`` when there are none: what a claim reads without computing anything."""
        file = f"analogy_{slug(name)}{self.suffix}.json"
        return read_json(self.run.path(file)) if self.run.reusable(file) else None

    def analogy_table(self, names: list[str], sentences: Callable[[], list[str]]) -> dict:
        """The analogy study of ``names`` in the shape of :func:`~reproducer.report.analogies.analogy_study`:
        ``{"pairs", "questions", name: answers, ...}``."""
        study = dict(self.questions(sentences))
        for n in names if study["questions"] else ():
            study[n] = self.analogy(n, sentences)
        return study


def seed_siblings(own, run, seed: int, seeds: int, make: Callable) -> list:
    """The claims' training seeds of a chapter's training ``own`` (run ``run`` with ``seed``): ``seed .. seed +
    seeds - 1``, ``own`` itself for its own seed and, for each other, the same training at the same preset and
    parameters (the budget of the claims: a claim's training noise comes from seeds trained as long as the run it is
    about) in its sibling run (:meth:`~reproducer.results_store.NotebookRun.sibling`), made by ``make(sibling_run, k)``
    and declared."""
    others = [make(run.sibling(seed=k), k) for k in range(seed + 1, seed + seeds)]
    for other in others:
        other.declare()
    return [own, *others][:seeds]  # none when seeds < 1


class ChapterModels:
    """A chapter's models by name, as units (the base of each chapter's model class, e.g.
    :class:`reproducer.papers.quick_thoughts.chapter.QuickThoughtModels`): ``run`` and the preset ``settings`` of the chapter's
    family (:attr:`family`), the evaluation ``tasks`` (plus ``extra_tasks`` scored by every model, e.g. STS14) at the
    preset's protocol (or ``eval_config``), the neighbour search (``pool_size``, ``n_queries``), the training ``seed``.

    A subclass gives :meth:`trained` (a model's encoder, training it if needed), :meth:`settings_record` (what its
    results depend on) and :meth:`unit`; this class gives the cached products (:attr:`products`), the training corpus,
    :meth:`declare`, and :meth:`seeds`: the same models with other seeds at the same settings, for the claims'
    training noise."""

    family: str = ""
    #: The declaration of the chapter's paper (``PAPER`` of its package, :class:`~reproducer.declarations.Paper`): the
    #: models whose untrained twins it builds (:meth:`twin_results`).
    paper = None
    #: Tasks every model is also scored on, beyond the chapter's (later chapters read them from ``results/``).
    EXTRA_TASKS: tuple[str, ...] = ("STS14",)
    #: The seed of the analogy questions: ``None`` mines them with each training seed; a number gives every seed the
    #: same questions (:class:`ModelProducts`).
    QUESTION_SEED: int | None = None
    #: The models whose untrained twins the chapter scores at every seed, for the book's own claim that training
    #: beats them (issue 44; :meth:`twins`), and those of them (learned word embeddings) also scored with our word2vec
    #: in their embeddings.
    TWINS: tuple[str, ...] = ()
    WORD2VEC_TWINS: tuple[str, ...] = ()
    #: The headline encoders whose neighbours of every held-out pool sentence the main run's units store for the
    #: chapter's searchable explorer (:meth:`search`, :meth:`search_explorer`; issue 69).
    SEARCH: tuple[str, ...] = ()

    def __init__(self, run, settings, *, tasks: list[str], seed: int = 0, progress: bool = True,
                 pool_size: int = 20000, n_queries: int = 10, extra_tasks: tuple[str, ...] | None = None,
                 eval_config: str | None = None):
        self.run, self.settings, self.seed, self.progress = run, settings, seed, progress
        self.tasks = list(tasks)
        self.extra_tasks = tuple(t for t in (self.EXTRA_TASKS if extra_tasks is None else extra_tasks)
                                 if t not in self.tasks)
        self.pool_size, self.n_queries = pool_size, n_queries
        self.corpus_config = CorpusConfig(max_books=getattr(settings, "max_books", None))
        self.products = ModelProducts(run, self.trained, tasks=[*self.tasks, *self.extra_tasks],
                                      eval_config=eval_config or settings.eval_config, corpus_config=self.corpus_config,
                                      pool_size=pool_size, n_queries=n_queries, seed=seed,
                                      question_seed=self.QUESTION_SEED)

    @functools.cached_property
    def corpus(self):
        """The training corpus (:func:`~reproducer.data.corpus.load_corpus`)."""
        from reproducer.data.corpus import load_corpus

        return load_corpus("train", self.corpus_config, progress=False)

    @property
    def word2vec_config(self):
        """The settings of :attr:`word2vec` (300-d; 32-d at ``smoke``)."""
        from reproducer.data.vectors import Word2VecConfig

        return Word2VecConfig(vector_size=32) if self.settings.name == "smoke" else Word2VecConfig()

    @property
    def word2vec_name(self) -> str:
        """:attr:`word2vec`'s name (``word2vec-300d``) without training it: the key of results made with it."""
        from reproducer.data.vectors import word2vec_name

        return word2vec_name(self.word2vec_config)

    @functools.cached_property
    def word2vec(self):
        """Our word2vec on the training books (:attr:`word2vec_config`): chapter 01's vocabulary expansion, and the
        word embeddings of an untrained twin given good word vectors (:meth:`twin_results`). Trained (about half an
        hour on 2 cores, then cached in the data folder) only when a result needs the vectors themselves."""
        from reproducer.data.vectors import train_word2vec

        return train_word2vec(self.corpus_config, self.word2vec_config, progress=False)

    #: Whether these are the models at half their step budget (:meth:`at_half`).
    half: bool = False
    #: Whether this is a view that reads stored results only and trains or scores nothing (:meth:`stored_at`).
    stored_only: bool = False

    def trained(self, name: str):
        raise NotImplementedError

    def at_half(self) -> "ChapterModels":
        """These models at half their step budget: the same chapter and seed whose trained models are the encoders
        their runs saved halfway (:meth:`~reproducer.results_store.NotebookRun.half_encoder`) and whose products are
        cached as ``<product>_half`` (``eval_uni-QT_half.json``): a claim read at a second budget without training
        again (claims along their training: issue 70). Untrained twins and the analogy questions are shared with the
        full models."""
        import copy

        view = copy.copy(self)  # shares the cached corpus, data and word vectors
        view.half = True
        view.products = copy.copy(self.products)
        view.products.encoder, view.products.suffix = view.trained, HALF
        return view

    def longer(self, factor: int = LONGER) -> "ChapterModels":
        """These models (this seed) trained ``factor`` times their step budget (issue 70: the check of the book's own
        extrapolations, :func:`~reproducer.report.trend.extrapolation_rows`): the chapter's run whose ``max_steps``
        parameter is that many steps — the folder and keys executing the notebook with ``-p max_steps <steps>``
        gives — with these settings at those steps, declared. Its :meth:`unit` of a model trains it there."""
        steps = self.settings.max_steps * factor
        view = self.sibling(self.run.sibling(changes={"max_steps": steps}),
                            self.settings.with_overrides(max_steps=steps), self.seed)
        view.declare()
        return view

    def stored(self) -> "ChapterModels":
        """These models as a view that reads what their run has stored and trains, scores and writes nothing (as
        :meth:`stored_at` does for another preset's run): the evidence of a run whose units trained only some of the
        chapter's models (:meth:`longer`)."""
        import copy

        view = copy.copy(self)
        view.stored_only = True
        return view

    def stored_at(self, preset: str, settings) -> "ChapterModels":
        """These models (this seed) as the chapter's run at another ``preset`` (its family's ``settings`` there)
        stored them: a third budget for the claims along their training (issue 70) that trains and scores nothing
        and writes nothing — its :meth:`evaluations` and :meth:`twins` are those stored under that run's key (none
        where that run is stale or missing: the claims are then read at the other budgets)."""
        run = self.run.sibling(preset=preset, reset=tuple(k for k in self.run.changed if k != "seed"))
        view = self.sibling(run, settings, self.seed)
        view.stored_only = True
        run.settings(view.settings_record(), write=False)
        return view

    def saved(self, name: str, fit: Callable[[str], object], **options):
        """Trained model ``name``'s encoder: this kernel's, its saved bundle, else ``fit(name).encoder`` (training it);
        in the :meth:`at_half` view its half-budget encoder, saved halfway by its run, else (a chapter that
        :data:`TRAINS_TO_HALF`) :meth:`train_to_half`'s; otherwise an error when it is gone. While :attr:`again`, a
        full model whose bundle is gone is :meth:`train_again`'s. ``options``: how a bundle
        is loaded (``view="all"``: a consensus model's views)."""
        if not self.half:
            encoder = self.run.encoder(name, **options)
            if encoder is None and self.again:
                encoder = self.run.encoder(again_run(name), **options) or self.train_again(name)
                encoder.name = name
            return encoder or fit(name).encoder
        encoder = self.run.half_encoder(name, **options)
        if encoder is None and self.TRAINS_TO_HALF:
            encoder = self.run.encoder(half_run(name), **options) or self.train_to_half(name)
            encoder.name = name
        if encoder is None:
            raise ReproducerError(f"{name}: its encoder at half its step budget is not saved in {self.run.dir.name}/"
                                  "checkpoints/ (checkpoints are not committed): only training it again makes it.")
        return encoder

    #: Whether a model whose encoder saved at half its step budget is gone (checkpoints are not committed) is trained
    #: again to half its budget, as a run of its own (:meth:`train_to_half`; issue 70), when a product needs it.
    TRAINS_TO_HALF: bool = False

    def train_to_half(self, name: str):
        """Issue 70: model ``name`` trained again, as a run of its own (:func:`half_run`, its own checkpoint), for half
        the step budget of these models' settings, from the same seed: its encoder. Called by :meth:`saved` when
        the half-budget encoder its full run saved is gone; a chapter that :data:`TRAINS_TO_HALF` gives it."""
        raise NotImplementedError(f"{type(self).__name__} does not train its models again to half their budget.")

    #: Whether the main run trains a model again from its seed, as a run of its own, when a product of the chapter's
    #: searchable explorer needs it and its checkpoint is gone (:meth:`search`, :meth:`train_again`; issue 69 item 8).
    TRAINS_AGAIN: bool = False
    #: Whether a product being made now may train its models again (:meth:`search` sets it while it searches).
    again: bool = False

    def train_again(self, name: str):
        """Issue 69 item 8: model ``name`` trained again from this seed for its whole step budget, as a run of its own
        (:func:`again_run`, its own checkpoint and bundle): a step budget trains the same model on any machine from the
        same inputs (the retraining tests: the same loss at every logged step), so the main run's explorer is made
        when the model's checkpoint is gone. Inputs made by gensim's word2vec (2 workers: not bit-reproducible) differ
        from machine to machine, and so does a model trained from them: chapter 03's PP trained again here scored its
        similarity suite 0.25 points below the committed run, its LSTM 0.56 (2.1 a dataset on average). Called by
        :meth:`saved` inside :meth:`search`; a chapter that :data:`TRAINS_AGAIN` gives it."""
        raise NotImplementedError(f"{type(self).__name__} does not train its models again.")

    def half_settings(self):
        """These models' settings with half their step budget (what :meth:`train_to_half` trains with)."""
        return self.settings.with_overrides(max_steps=self.settings.max_steps // 2)

    def at_hand(self, *names: str) -> bool:
        """Whether the trained models ``names`` are at hand without training: trained in this kernel or saved (in
        the :meth:`at_half` view: their half-budget encoders saved, or to be trained again to half their budget by
        a chapter that :data:`TRAINS_TO_HALF`)."""
        return (self.TRAINS_TO_HALF or self.run.has_half(*names)) if self.half else self.run.has_model(*names)

    def cached(self, name: str, compute: Callable[[], object], **kwargs):
        """Product ``name`` (a results file without ``.json``) through ``run.json`` (``kwargs``: its own), except in
        a :meth:`stored_at` view, which trains and writes nothing: there as that run stored it under its key, or
        ``None`` where it has not got it (the claims that read it are then not read at that budget)."""
        if self.stored_only:
            return read_json(self.run.path(f"{name}.json")) if self.run.reusable(f"{name}.json") else None
        return self.run.json(name, compute, **kwargs)

    def obtainable(self, key: str, parts, then: str, needs: str = "") -> bool:
        """Whether product ``key`` (a results file's name without ``.json``) can be had without training: cached under
        this run's key, or the trained models ``parts`` it is made of :meth:`at_hand`. If not, a note says what it
        ``needs`` (``"the half-budget encoders of "``…) and ``then`` what would make it: a cached unit whose
        checkpoints are gone (they are not committed) leaves that product out rather than training again."""
        if self.run.reusable(f"{key}.json") or self.at_hand(*parts):
            return True
        note(f"{key}: needs {needs}{' and '.join(parts)}, not saved in {self.run.dir.name}/ (checkpoints are not "
             f"committed): {then}")
        return False

    def settings_record(self) -> dict:
        raise NotImplementedError

    def analogy(self, name: str, parts: tuple[str, ...] | None = None) -> dict | None:
        """Encoder ``name``'s answers to the analogy questions (:meth:`ModelProducts.analogy`:
        ``analogy_<name>.json``). Computed only when the trained models it is made of (``parts``, by default
        ``name`` itself; none for an untrained baseline) are at hand without training (trained in this kernel, or
        saved): a cached unit whose checkpoints are gone answers nothing, and ``None`` is returned, with a note."""
        parts = (name,) if parts is None else parts
        self.products.questions(lambda: self.corpus.sentences)  # first forget answers to another seed's questions
        if self.obtainable(f"analogy_{slug(name)}{self.products.suffix}", parts, "the next training answers the "
                           "questions."):
            return self.products.analogy(name, lambda: self.corpus.sentences)
        return None

    def search(self, name: str, parts: tuple[str, ...] | None = None) -> dict | None:
        """Every pool sentence's neighbours by encoder ``name`` (:meth:`ModelProducts.search`: ``search_<name>.json``).
        Computed without training when the trained models it is made of (``parts``, by default ``name`` itself) are at
        hand; else, in a chapter that :data:`TRAINS_AGAIN`, from those models trained again (:meth:`train_again`),
        and otherwise ``None``, with a note (as :meth:`analogy`)."""
        parts = (name,) if parts is None else parts
        key = search_key(name, self.products.suffix)
        if self.TRAINS_AGAIN and not (self.run.reusable(f"{key}.json") or self.at_hand(*parts)):
            note(f"{key}: {' and '.join(parts)} not saved in {self.run.dir.name}/ (checkpoints are not committed): "
                 "trained again from the same seed and step budget, as a run of its own")
            self.again = True
            try:
                return self.products.search(name)
            finally:
                self.again = False
        if self.obtainable(key, parts, "the next training searches the pool."):
            return self.products.search(name)
        return None

    def searches(self, names) -> dict[str, dict]:
        """The stored :meth:`search` data of ``names`` (those cached under this run's key), by name: the searchable
        explorer's models; computes nothing."""
        return {n: read_json(self.run.path(f"{key}.json")) for n in names
                if self.run.reusable(f"{(key := search_key(n, self.products.suffix))}.json")}

    def search_explorer(self, names=None, note: str = ""):
        """The chapter's searchable explorer (:func:`~reproducer.report.explorer.search_explorer`, key
        ``<notebook>-<preset>``, its file in ``results/explorer/``, which names the stored searches instead of copying
        them) over every held-out pool sentence, for the :meth:`searches` stored of ``names`` (by default
        :data:`SEARCH`); ``None`` (nothing shown) when none is stored."""
        from reproducer.report.explorer import readable, search_explorer
        from reproducer.results_store import results_root

        found = self.searches(self.SEARCH if names is None else names)
        if not found:
            return None
        pool = self.products.pool[0]
        sources = {n: self.run.path(f"{search_key(n, self.products.suffix)}.json") for n in found}  # named, not copied
        return search_explorer(pool, found, key=f"{self.run.notebook}-{self.run.preset}", sources=sources,
                               folder=results_root() / "explorer", display=readable,
                               note=note or f"Search all {len(pool):,} held-out sentences; top 5 neighbours of each "
                               f"by cosine; encoders: {', '.join(found)}.")

    def halfway(self, evaluations: dict[str, tuple], analogies: dict[str, tuple[str, ...]] | None = None) -> None:
        """The products of some encoders at half their step budget (:meth:`at_half`), computed in a model's unit while
        the half-budget encoders exist (checkpoints are not committed): ``evaluations`` maps an encoder to ``(tasks,
        parts)`` (its tasks, ``None``: the chapter's; the trained models it is made of), ``analogies`` an encoder to its
        parts. One not cached whose parts' half-budget encoders are gone is left out, with a note — or, in a chapter
        that :data:`TRAINS_TO_HALF`, computed from its parts trained again to half their budget."""
        half = self.at_half()
        for name, (tasks, parts) in evaluations.items():
            if half.obtainable(eval_key(name, half.products.suffix), parts, "only training again makes them.",
                               needs="the half-budget encoders of "):
                half.evaluated(name, tasks)
        for name, parts in (analogies or {}).items():
            half.analogy(name, parts)

    def evaluations(self, names: list[str], tasks: dict[str, list[str]] | None = None) -> dict:
        """``names``' evaluations by name (:meth:`evaluated`, each on ``tasks.get(name)``, by default the chapter's).
        In the :meth:`at_half` view only those stored (the units scored every half-budget encoder they had; one whose
        encoders were not saved is left out, and the claims that read it are not read at this budget); in a
        :meth:`stored_at` view only those stored under that run's key."""
        tasks = tasks or {}
        if self.half or self.stored_only:
            names = [n for n in names if self.run.reusable(f"{eval_key(n, self.products.suffix)}.json")]
        return {n: self.evaluated(n, tasks.get(n)) for n in names}

    def evaluated(self, name: str, tasks: list[str] | None = None, key: str | None = None):
        """Model ``name``'s :class:`~reproducer.evaluate.harness.Results` on ``tasks`` (by default the chapter's and
        the extra tasks) at the preset's protocol, with per-item outcomes: ``<key>.json`` (``eval_<name>``) if
        cached, else evaluated."""
        return self.products.evaluation(name, tasks, key)

    def twin_inputs(self, name: str) -> tuple:
        """``(settings, data)``: the preset and the training data this chapter trains model ``name`` with, for its
        untrained twin (:meth:`twin_results`); a chapter with twins gives it."""
        raise NotImplementedError(f"{type(self).__name__} builds no untrained twins.")

    def twin_results(self, name: str, word_vectors=None, vectors_name: str | None = None):
        """Model ``name``'s untrained twin on the chapter's and the extra tasks (:func:`twin_evaluation`), from this
        chapter's settings and data (:meth:`twin_inputs`) with this seed's initial weights, finished as the trained
        encoder is (:meth:`finish_twin`)."""
        return twin_evaluation(self.products, self.paper, name, lambda: self.twin_inputs(name), seed=self.seed,
                               word_vectors=word_vectors, vectors_name=vectors_name,
                               finish=lambda twin: self.finish_twin(name, twin))

    def finish_twin(self, name: str, twin):
        """What the chapter does to model ``name``'s encoder after training, done to its untrained ``twin`` too (a
        chapter whose encoders are more than the trained module overrides this: chapter 01 expands the
        vocabulary); by default the twin as it is."""
        return twin

    def twins(self, names=None) -> dict[str, Results]:
        """The untrained twins of ``names`` (by default every one of :data:`TWINS`) this chapter scores
        (:meth:`twin_results`; :data:`WORD2VEC_TWINS` also with :attr:`word2vec`), by the name each enters a claim's
        evidence under (:func:`~reproducer.report.claims.untrained`): computed once, then read from the run's
        folder."""
        from reproducer.report.claims import untrained

        names = self.TWINS if names is None else [n for n in names if n in self.TWINS]
        wanted = [(n, None) for n in names] + [(n, self.word2vec_name) for n in names if n in self.WORD2VEC_TWINS]
        if self.stored_only:  # a view of another run's stored results (:meth:`stored_at`)
            wanted = [(n, v) for n, v in wanted if self.run.reusable(f"{twin_key(n, v)}.json")]
        return {untrained(n, v): self.twin_results(n, *((lambda: self.word2vec, v) if v else ())) for n, v in wanted}

    def declare(self) -> None:
        """Declare the run's settings (:meth:`~reproducer.results_store.NotebookRun.settings`): the key of its
        results."""
        self.run.settings(self.settings_record())

    def sibling(self, run, settings, seed: int) -> "ChapterModels":
        """The same chapter's models in ``run`` at ``settings`` and ``seed`` (a subclass with more constructor
        arguments overrides this)."""
        return type(self)(run, settings, tasks=self.tasks, seed=seed, progress=self.progress,
                          pool_size=self.pool_size, n_queries=self.n_queries, extra_tasks=self.extra_tasks)

    def seeds(self, seeds: int) -> list["ChapterModels"]:
        """The models of the claims' training seeds (:func:`seed_siblings`): these models for their own seed and,
        for the ``seeds - 1`` after it, the same models at the same settings (the same budget), each in its run's
        folder (:meth:`~reproducer.results_store.NotebookRun.sibling`), its settings declared."""
        return seed_siblings(self, self.run, self.seed, seeds, lambda run, seed: self.sibling(run, self.settings, seed))


def twin_evaluation(products: ModelProducts, paper, name: str, inputs: Callable[[], tuple], *, seed: int,
                    word_vectors=None, vectors_name: str | None = None, finish: Callable | None = None) -> Results:
    """The :class:`~reproducer.evaluate.harness.Results` of model ``name``'s untrained twin
    (:func:`~reproducer.untrained_twins.untrained_twin` of the model ``paper`` declares, from ``inputs()``, the
    ``(settings, data)`` its chapter trains it with, and ``seed``; ``word_vectors`` in place of learned word
    embeddings, or a function that makes them, called only when the twin is not cached (then ``vectors_name`` names
    them); ``finish``: what the chapter does to the trained encoder, done to the twin) on ``products``' tasks, with
    per-item outcomes: ``eval_<name>_untrained.json`` (``…_untrained_<vectors>.json``) if cached."""
    from reproducer.untrained_twins import untrained_twin

    def twin():
        vectors = word_vectors() if callable(word_vectors) else word_vectors
        encoder = untrained_twin(name, *inputs(), paper=paper, seed=seed, word_vectors=vectors)
        return finish(encoder) if finish else encoder

    if word_vectors is not None and vectors_name is None:
        if callable(word_vectors):
            raise ValueError("twin_evaluation: word vectors given as a function need their vectors_name")
        vectors_name = word_vectors.name
    return products.evaluation(name, key=twin_key(name, vectors_name), encoder=twin)


def eval_key(name: str, suffix: str = "") -> str:
    """The file name (without ``.json``) of model ``name``'s evaluation: ``eval_<name><suffix>`` (``suffix``:
    :data:`HALF` for the model at half its step budget, ``"_untrained…"`` for its twin: :func:`twin_key`)."""
    return f"eval_{slug(name)}{suffix}"


def search_key(name: str, suffix: str = "") -> str:
    """The file name (without ``.json``) of model ``name``'s pool neighbours (:meth:`ModelProducts.search`)."""
    return f"search_{slug(name)}{suffix}"


def half_run(name: str) -> str:
    """The name of model ``name``'s run of its own to half its step budget (:meth:`ChapterModels.train_to_half`):
    ``"<name> (half budget)"``, its checkpoint and encoder bundle beside the full run's."""
    return f"{name} (half budget)"


def again_run(name: str) -> str:
    """The name of model ``name``'s run of its own trained again for its whole step budget
    (:meth:`ChapterModels.train_again`): ``"<name> (again)"``, its checkpoint and encoder bundle beside the first run's."""
    return f"{name} (again)"


def twin_key(name: str, vectors_name: str | None = None) -> str:
    """The file name (without ``.json``) of model ``name``'s untrained twin's evaluation (``vectors_name``: the word
    vectors in its learned embeddings): ``eval_<name>_untrained[_<vectors>]``."""
    return eval_key(name, "_untrained" + (f"_{slug(vectors_name)}" if vectors_name is not None else ""))


def earlier_results(run, chapter: str, name: str, half: bool = False) -> Results | None:
    """Model ``name``'s :class:`~reproducer.evaluate.harness.Results` stored by an earlier ``chapter`` in the folder
    of the same name as ``run``'s (the same preset, seed and parameters:
    :meth:`~reproducer.results_store.NotebookRun.earlier` with ``same_seed``), or ``None`` when it has none: how a
    chapter compares with another chapter's model seed by seed (chapter 02 and 05 with chapter 01's combine-skip).
    ``half``: the same model at half its step budget (``eval_<name>_half``: :meth:`ChapterModels.at_half`)."""
    found = run.earlier(chapter, eval_key(name, HALF if half else ""), default=None, same_seed=True)
    return None if found is None else Results.from_json(found)

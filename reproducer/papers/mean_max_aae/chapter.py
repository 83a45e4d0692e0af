"""Chapter 05's models (Zhang et al. 2018) as units, and what the chapter does around training them: their data,
held-out reconstruction, the decoder's attention, the untrained starting point, and train-or-reload of the Table 3
variants.

The loss and the model are in :mod:`reproducer.papers.mean_max_aae.objective`; the tables and figures in
:mod:`~reproducer.papers.mean_max_aae.tables`, the claims in :mod:`~reproducer.papers.mean_max_aae.claims`. Here:

- :class:`AutoencoderModels` — the Table 3 variants by name, each a unit (trained or reloaded, scored, cached);
- :class:`AutoencoderData` — the fixed word vectors, vocabulary and corpus ids of
  :class:`~reproducer.data.fixed_vectors.FixedVectorData` (the first ``vocab_size`` words are the output words), with
  the preset's sentence batches, held-out batches (the ``valid`` books) and Figure 2's example sentences;
- :func:`curve_point` — one point of a training curve: held-out reconstruction accuracy, the mean attention on each
  pooled vector, STS14;
- :func:`train_or_reload` — a variant trained (or reloaded from its checkpoint) through
  :meth:`~reproducer.results_store.NotebookRun.model`, its test-time encoder set to ``normalize_halves``;
- :func:`training_record`, :func:`untrained_record` — what the chapter stores per variant;
- :func:`attention_maps` — Figure 2's data: each decoding step's weights on ``z_max`` and ``z_mean``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from reproducer.data.batches import SentenceSampler
from reproducer.data.fixed_vectors import FixedVectorData
from reproducer.data.training_data import TrainingData
from reproducer.errors import ReproducerError
from reproducer.evaluate import quick_look
from reproducer.papers import registry
from reproducer.papers.registry import family
from reproducer.results_store import slug
from reproducer.papers.mean_max_aae.objective import decoder_attention, held_out_statistics
from reproducer.report.units import ChapterModels, again_run, half_run
from reproducer.runtime import default_device

PAPER = registry.paper("zhang2018")  # this chapter's declaration (reproducer/papers/mean_max_aae/__init__.py)

#: The zero-shot task of the training curves (cosine similarity, no training on the task: fast).
CURVE_TASK = "STS14"


@dataclass
class AutoencoderData:
    """What the autoencoders of one preset read: ``source``'s fixed word vectors (``vectors``), ``vocab`` and ``table``
    (row ``i`` the vector of word ``i``, the most frequent words first, so the first ``preset.vocab_size`` are the
    output vocabulary) and corpus splits as ids of ``vocab`` (a
    :class:`~reproducer.data.fixed_vectors.FixedVectorData`: everything loaded on first use); ``seed`` draws the
    held-out batches and Figure 2's examples."""

    preset: object  # an AutoencoderPreset
    source: object  # FixedVectorData, or anything with vectors, vocab, table, corpus_config and tokenized(split)
    seed: int = 0
    held_out_batches: int = 16
    _cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, preset, seed: int = 0, held_out_batches: int = 16) -> "AutoencoderData":
        """Our word2vec of ``preset.word2vec_dim`` dimensions on the corpus of ``preset.max_books`` books (cached on
        disk), every word with a vector read by the encoder."""
        return cls(preset, FixedVectorData.of(preset), seed, held_out_batches)

    @property
    def vectors(self):
        """The fixed :class:`~reproducer.data.vectors.WordVectors`."""
        return self.source.vectors

    @property
    def vocab(self):
        return self.source.vocab

    @property
    def table(self) -> np.ndarray:
        return self.source.table

    @property
    def corpus_config(self):
        return self.source.corpus_config

    def tokenized(self, split: str = "train"):
        """The split as ids of :attr:`vocab` (a :class:`~reproducer.data.batches.TokenizedCorpus`)."""
        return self.source.tokenized(split)

    def training_data(self):
        """The :class:`~reproducer.data.training_data.TrainingData` of
        the autoencoders' objective (:func:`reproducer.fit.fit`)."""
        return TrainingData(tokenized=self.tokenized("train"), vocab=self.vocab, vectors=self.table)

    def sampler(self, split: str = "train", seed: int | None = None):
        """Sentences of the preset's 4-32 tokens of a split, each followed by ``</s>``, in batches."""
        p = self.preset
        return SentenceSampler(self.tokenized(split), p.batch_size, eos=self.vocab.eos_id, min_tokens=p.min_tokens,
                               max_tokens=p.max_tokens, seed=self.seed if seed is None else seed)

    def held_out(self) -> list:
        """The first :attr:`held_out_batches` batches of the held-out books (``valid``: no model trains on them), for
        reconstruction accuracy and attention."""
        if self.held_out_batches < 1:
            raise ReproducerError(f"Give at least one held-out batch, got {self.held_out_batches}.")
        if "held_out" not in self._cache:
            self._cache["held_out"] = [self.sampler("valid").batch(i) for i in range(self.held_out_batches)]
        return self._cache["held_out"]

    def summary(self) -> str:
        """One Markdown sentence: vocabulary, output share of the training tokens, training sentences and batches."""
        p, tokenized = self.preset, self.tokenized("train")
        sampler = self.sampler("train", seed=0)
        share = (tokenized.ids < p.vocab_size).mean()
        return (f"{len(self.vocab):,} words with {self.vectors.dim}-d vectors ({self.vectors.name}); output "
                f"vocabulary: the {p.vocab_size:,} most frequent, **{share:.1%}** of the training tokens. Training "
                f"sentences of {p.min_tokens}-{p.max_tokens} tokens: {len(sampler.positions):,} of {len(tokenized):,} "
                f"({sampler.steps_per_epoch:,} batches of {p.batch_size} per epoch).")

    def epoch(self) -> int:
        """Training sentences in one epoch (those of the preset's lengths)."""
        return len(self.sampler("train").positions)

    def examples(self, n: int = 3, min_tokens: int = 8, max_tokens: int = 14) -> list[np.ndarray]:
        """``n`` held-out sentences of ``min_tokens``..``max_tokens`` tokens (drawn with :attr:`seed`), as ids followed
        by ``</s>``: Figure 2's examples."""
        valid = self.tokenized("valid")
        lengths = np.diff(valid.offsets)
        candidates = np.flatnonzero((lengths >= min_tokens) & (lengths <= max_tokens))
        if len(candidates) < n:
            raise ReproducerError(f"Only {len(candidates)} held-out sentences of {min_tokens}-{max_tokens} tokens.")
        picked = np.random.default_rng(self.seed).choice(candidates, n, replace=False)
        return [np.append(valid.sentence(int(i)), self.vocab.eos_id) for i in picked]


def curve_point(module, encoder, held_out: list, config: str = "prototype") -> dict:
    """One point of a training curve: held-out reconstruction ``accuracy`` and mean attention on each pooled vector
    (:func:`~reproducer.papers.mean_max_aae.objective.held_out_statistics`), and the encoder's STS14 Pearson r under
    ``config``."""
    from reproducer.evaluate import evaluate

    stats = held_out_statistics(module, held_out)
    sts = evaluate(encoder, [CURVE_TASK], config, progress=False).main_scores()[CURVE_TASK]
    return {"accuracy": stats["accuracy"], **stats["attention"], CURVE_TASK: float(sts)}


def train_or_reload(run, name: str, data: AutoencoderData, *, normalize_halves: bool, curves=(), progress: bool = True,
                    variant: str | None = None, preset=None):
    """The :class:`~reproducer.fit.Fitted` Table 3 variant ``name``: this kernel's, else trained (resuming from, or
    reloading, its checkpoint; seeded with ``data.seed``) by :meth:`run.model
    <reproducer.results_store.NotebookRun.model>`,
    which saves its encoder bundle. Variants in ``curves`` record a :func:`curve_point` on ``data.held_out()`` at the
    preset's evaluation points. The test-time encoder pools with ``normalize_halves`` (also in its saved bundle).
    ``variant`` and ``preset``: another run of a variant under its own ``name`` (by default ``name`` itself at
    ``data.preset``; e.g. its run to half the budget, :meth:`AutoencoderModels.train_to_half`)."""
    variant, preset = variant or name, preset or data.preset

    def point(fitted, step):
        return curve_point(fitted.module, fitted.encoder, data.held_out(), quick_look(data.preset.eval_config))

    def fit(checkpoint):
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        return family("autoencoder").fit(variant, preset, data.training_data(), checkpoint=checkpoint, seed=data.seed,
                                         progress=progress, evaluate=point if name in curves else None,
                                         normalize_halves=normalize_halves)

    return run.model(name, fit)


def trainable(module) -> int:
    """Trainable parameters of ``module`` (fixed word vectors excluded)."""
    return sum(p.numel() for p in module.parameters() if p.requires_grad)


def training_record(fitted, data: AutoencoderData) -> dict:
    """What a trained variant stores: its training log (losses, curve points, steps, seconds, sentences), its
    statistics on ``data.held_out()`` after training and its trainable parameters."""
    return {**fitted.log.to_dict(), "held_out": held_out_statistics(fitted.module, data.held_out()),
            "parameters": trainable(fitted.module)}


def untrained_record(name: str, data: AutoencoderData, *, normalize_halves: bool) -> dict:
    """Variant ``name`` as it is before its first batch (built by :func:`reproducer.fit.fit` with ``data.seed``, so
    the trained run's initial weights): its step-0 curve ``point`` on ``data.held_out()``. Its scores on the tasks are
    its untrained twin's (:meth:`AutoencoderModels.twin_results`)."""
    from reproducer.fit import at_initialisation

    with at_initialisation():
        fitted = family("autoencoder").fit(name, data.preset, data.training_data(), seed=data.seed, progress=False,
                                           normalize_halves=normalize_halves)
    point = curve_point(fitted.module, fitted.encoder, data.held_out(), quick_look(data.preset.eval_config))
    return {"point": {"step": 0, "seconds": 0.0, **point}}


def attention_maps(module, examples: list[np.ndarray], vocab, vocab_size: int) -> list[dict]:
    """Figure 2's data: for each example (ids, ``</s>`` included) its ``words`` (``→<unk>`` marks a word outside the
    output vocabulary), the ``pooled`` vectors' names and ``weights[k][t]``, the decoder's attention on pooled vector
    ``k`` while predicting token ``t`` (mean over heads)."""
    maps = []
    for ids in examples:
        weights, names = decoder_attention(module, ids)
        words = [vocab.itos[i] if i < vocab_size else f"{vocab.itos[i]}→<unk>" for i in ids]
        maps.append({"words": words, "pooled": names, "weights": weights.mean(0).T.tolist()})
    return maps


#: The six variants in the chapter's order, the two the claims and the explorer centre on, and those trained with
#: several seeds for the claims.
ORDER = ("mean-max AAE", "mean AAE", "max AAE", "mean-max RAE", "mean RAE", "max RAE")
CURVES = ("mean-max AAE", "mean-max RAE")
SEED_MODELS = ORDER


class AutoencoderModels(ChapterModels):
    """Chapter 05's six variants by name, as units: each trained (or reloaded) by :func:`train_or_reload` with a
    training curve (held-out reconstruction accuracy, attention on each pooled vector, STS14) at the preset's
    evaluation points, its test-time encoder pooling with ``normalize_halves``; :meth:`unit` trains a variant and
    caches everything the chapter shows of it. ``held_out_batches``: the held-out batches of those statistics."""

    family = "autoencoder"
    paper = PAPER
    EXTRA_TASKS = ()
    TWINS = CURVES  # fixed word2vec inputs: no second twin
    SEARCH = ("mean-max AAE",)

    def __init__(self, run, settings, *, tasks: list[str], seed: int = 0, progress: bool = True,
                 pool_size: int = 20000, n_queries: int = 10, normalize_halves: bool = True,
                 held_out_batches: int = 16):
        super().__init__(run, settings, tasks=tasks, seed=seed, progress=progress, pool_size=pool_size,
                         n_queries=n_queries)
        self.normalize_halves, self.held_out_batches = normalize_halves, held_out_batches

    def sibling(self, run, settings, seed: int) -> "AutoencoderModels":
        return AutoencoderModels(run, settings, tasks=self.tasks, seed=seed, progress=self.progress,
                                 pool_size=self.pool_size, n_queries=self.n_queries,
                                 normalize_halves=self.normalize_halves, held_out_batches=self.held_out_batches)

    @functools.cached_property
    def data(self) -> AutoencoderData:
        """The fixed word vectors, vocabulary and corpus ids (:class:`AutoencoderData`), loaded on first use."""
        return AutoencoderData.load(self.settings, seed=self.seed, held_out_batches=self.held_out_batches)

    def twin_inputs(self, name: str) -> tuple:
        """Every variant trains at the chapter's settings on :attr:`data`'s training data."""
        return self.settings, self.data.training_data()

    def settings_record(self) -> dict:
        return {"autoencoder": self.settings.to_dict(), "seed": self.seed, "device": str(default_device()),
                "tasks": self.tasks, "normalize_halves": self.normalize_halves}

    def fit(self, name: str):
        """The :class:`~reproducer.fit.Fitted` variant ``name`` (:func:`train_or_reload`, every variant with its
        training curve)."""
        return train_or_reload(self.run, name, self.data, normalize_halves=self.normalize_halves, curves=ORDER,
                               progress=self.progress)

    TRAINS_TO_HALF = TRAINS_AGAIN = True

    def train_apart(self, run_name: str, name: str, settings):
        """Variant ``name`` trained again from this seed at ``settings``, as a run of its own named ``run_name``
        (:func:`train_or_reload`, without a training curve): its encoder."""
        return train_or_reload(self.run, run_name, self.data, normalize_halves=self.normalize_halves,
                               progress=self.progress, variant=name, preset=settings).encoder

    def train_to_half(self, name: str):
        """Issue 70: variant ``name`` trained again for half the step budget (:meth:`train_apart`,
        :func:`~reproducer.report.units.half_run`, at :meth:`half_settings`): a seed whose half-budget encoder was not
        saved (checkpoints are not committed) is read at half its budget all the same."""
        return self.train_apart(half_run(name), name, self.half_settings())

    def train_again(self, name: str):
        """Issue 69 item 8: variant ``name`` trained again for its whole step budget (:meth:`train_apart`,
        :func:`~reproducer.report.units.again_run`): the mean-max AAE of the searchable explorer where its checkpoint
        is gone."""
        return self.train_apart(again_run(name), name, self.settings)

    def record(self, name: str) -> dict:
        """Variant ``name``'s :func:`training_record`: ``<name>_training.json`` if cached."""
        return self.run.training_record(name, lambda: training_record(self.fit(name), self.data))

    def trained(self, name: str):
        """Variant ``name``'s encoder: this kernel's, its saved bundle (which keeps ``normalize_halves``), else
        :meth:`fit`'s; in the :meth:`~reproducer.report.units.ChapterModels.at_half` view the encoder its training
        saved at half the step budget."""
        return self.saved(name, self.fit)

    def untrained(self, name: str) -> dict:
        """Variant ``name``'s step-0 curve point (:func:`untrained_record`): ``<name>_untrained.json``."""
        return self.run.json(f"{slug(name)}_untrained", lambda: untrained_record(
            name, self.data, normalize_halves=self.normalize_halves))

    def attention(self) -> list[dict]:
        """Figure 2's data from the trained mean-max AAE (:func:`attention_maps` of three held-out sentences):
        ``figure2_attention.json``."""
        return self.run.json("figure2_attention", lambda: attention_maps(
            self.fit("mean-max AAE").module, self.data.examples(3), self.data.vocab, self.settings.vocab_size))

    def unit(self, name: str, neighbours: bool = True) -> None:
        """Everything the chapter shows of variant ``name``, computed right after it trains and cached: its training
        record and evaluation, and for the two mean-max models their untrained twin's evaluation (every seed: the
        book's claim that training beats it) and its evaluation at half its step budget (issue 70: the encoder its
        training saved halfway, or where that is gone the variant trained again to half, :meth:`train_to_half`);
        with ``neighbours`` (the main run, not the seeds' runs) also, for the two mean-max models, their step-0 curve
        point and neighbour tables (the mean-max AAE's also of every pool sentence,
        :meth:`~reproducer.report.units.ChapterModels.search`), and after the mean-max AAE Figure 2's attention."""
        self.record(name)
        self.evaluated(name)
        self.halfway({name: (None, (name,))})
        self.twins([name])
        if name in CURVES and neighbours:
            self.untrained(name)
            self.products.neighbours(name)
        if name in self.SEARCH and neighbours:  # the searchable explorer over the whole pool (issue 69)
            self.search(name)
        if name == "mean-max AAE" and neighbours:
            self.attention()

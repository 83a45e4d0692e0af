"""Training throughput at one width (chapters 02 and 05): objectives of different papers built at the same encoder width
and trained for the same time, one after the other.

Logeswaran & Lee (2018, section 4.2, Figure 2) compare Quick-Thoughts with skip-thought at equal encoder
size: QT needs no decoder and no softmax over the vocabulary, so it processes more sentences per second.
Zhang et al. (2018, section 4.4) compare minutes per 1000 batches of the mean-max AAE with skip-thought.
``bench_widths`` measures both on this machine: each objective trains for ``seconds`` of training time, in its own
process (so each peak memory is its own), one after the other (never two at once), on the same corpus and
vocabulary, through :func:`reproducer.fit.fit`. Widths: the GRU encoders (QT, skip-thought) have ``hidden`` units,
skip-thought's decoders too; the mean-max AAE has ``d_m = hidden``, ``d_f = 2 hidden``, 8 heads; the mean-max RAE a
BiLSTM of ``hidden / 2`` per direction and an LSTM decoder of ``hidden``. Skip-thought and the autoencoders predict
the same ``vocab_size`` words (exact softmax unless ``n_sampled``); the autoencoders read fixed random vectors of
``word_dim`` (their values do not change the cost). Batch sizes are each paper's (QT 400, skip-thought 128, AAE/RAE
64) unless ``batch_size``. Each paper offers its models for the study in its objective
(:attr:`~reproducer.fit.Objective.widths`, an :class:`~reproducer.fit.AtWidth` each); this module imports no paper.
The command line: ``python -m reproducer bench widths`` (:mod:`reproducer.bench`).
"""
from __future__ import annotations

import time

import torch

from reproducer.data.corpus import CorpusConfig, load_corpus
from reproducer.data.batches import TokenizedCorpus
from reproducer.data.vocab import Vocabulary
from reproducer.fit import AtWidth, Objective, fit
from reproducer.papers.registry import FAMILIES
from reproducer.runtime import default_device, one_process_each, peak_rss
from reproducer.train import Preset


def at_widths() -> dict[str, AtWidth]:
    """Every model the papers offer for the study, by name (each family's :attr:`~reproducer.fit.Objective.widths`:
    ``quick_thought``, ``skip_thought``, ``aae``, ``rae``)."""
    return {name: at for family in FAMILIES.values() for name, at in family.objective().widths.items()}


class SameWidth(Objective):
    """The models of :func:`bench_widths` at one width, as one :class:`~reproducer.fit.Objective` whose variants are
    :func:`at_widths`' names: each built at ``hidden`` units over ``word_dim``-d words (the module docstring gives each
    one's sizes), on one corpus and vocabulary (``data``: ``(vocab, tokenized)``)."""

    name = "same width"

    def __init__(self, hidden: int, word_dim: int, n_sampled: int, batch_size: int):
        self.hidden, self.word_dim, self.n_sampled, self.batch_size = hidden, word_dim, n_sampled, batch_size
        self.models = at_widths()
        self.variants = {o: f"{o} at {hidden} units" for o in self.models}

    def build(self, variant, preset, data, *, device, seed=0):
        return self.models[variant].build(data[0], self.hidden, self.word_dim).to(device), None

    def sampler(self, variant, preset, data, seed=0, encoder=None):
        vocab, tokenized = data
        model = self.models[variant]
        return model.sampler(vocab, tokenized, self.batch_size or model.batch, seed, self.n_sampled)


def _run_one(objective: str, hidden: int, word_dim: int, vocab_size: int, seconds: float, max_books: int | None,
             n_sampled: int, seed: int, device: str | None, batch_size: int = 0) -> dict:
    corpus = load_corpus("train", CorpusConfig(max_books=max_books), progress=False)
    vocab = Vocabulary.build(corpus.sentences, max_size=vocab_size)
    data = (vocab, TokenizedCorpus.from_corpus(corpus, vocab))
    device = default_device(device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    t0 = time.perf_counter()
    same = SameWidth(hidden, word_dim, n_sampled, batch_size)
    fitted = fit(same, objective, Preset(name="bench", lr=5e-4, max_seconds=seconds), data, seed=seed, device=device,
                 progress=False)
    log, model = fitted.log, fitted.module
    peak = torch.cuda.max_memory_allocated(device) if device.type == "cuda" else peak_rss()
    return {"objective": objective, "batch_size": batch_size or same.models[objective].batch, "steps": log.step,
            "training_seconds": log.seconds, "minutes_per_1000_batches": log.seconds / log.step * 1000 / 60,
            "wall_seconds": time.perf_counter() - t0, "sentences_per_second": log.examples_per_second,
            "final_loss": log.losses[-1]["loss"] if log.losses else None, "peak_memory_bytes": int(peak),
            "memory_kind": "cuda max allocated" if device.type == "cuda" else "process max RSS",
            **parameter_split(model), "device": str(device),
            "softmax": same.models[objective].softmax_kind(n_sampled)}


def parameter_split(model: torch.nn.Module) -> dict[str, int]:
    """A model's trainable parameters, ``parameters``, and those of its learned word embeddings (``torch.nn.Embedding``
    tables), ``word_embedding_parameters``: Zhang et al. (2018, section 4.4) count sizes "excluding the number of
    parameters used in the word embeddings" (skip-thought 40M, the mean-max AAE 39M)."""
    embeddings = {id(p) for m in model.modules() if isinstance(m, torch.nn.Embedding) for p in m.parameters()}
    trainable = [p for p in model.parameters() if p.requires_grad]
    return {"parameters": sum(p.numel() for p in trainable),
            "word_embedding_parameters": sum(p.numel() for p in trainable if id(p) in embeddings)}


def parameter_counts(objective: str, hidden: int, word_dim: int, vocab_size: int) -> dict[str, int]:
    """:func:`parameter_split` of one of :func:`at_widths`' models as :func:`bench_widths` builds it at ``hidden``
    units over ``word_dim``-d words and a vocabulary of ``vocab_size`` words (for records that predate the split)."""
    with torch.random.fork_rng():
        return parameter_split(at_widths()[objective].build(range(vocab_size), hidden, word_dim))


def bench_widths(objectives=None, *, hidden: int = 600, word_dim: int = 300, vocab_size: int = 20000,
                 seconds: float = 60, max_books: int | None = None, n_sampled: int = 0, seed: int = 0,
                 device: str | None = None, batch_size: int = 0) -> dict:
    """Train each of ``objectives`` (names of :func:`at_widths`; all by default) for ``seconds`` in a fresh process,
    one after the other; return the measurements and the speed ratio (sentences per second) of the first objective
    to each other one. ``batch_size`` 0: each paper's batch size."""
    known = list(at_widths())
    runs = one_process_each(_run_one, known if objectives is None else list(objectives), known, hidden, word_dim,
                            vocab_size, seconds, max_books, n_sampled, seed, device, batch_size)
    first = runs[0]
    ratios = {f"{first['objective']}/{r['objective']}": first["sentences_per_second"] / r["sentences_per_second"]
              for r in runs[1:]}
    return {"settings": {"hidden": hidden, "word_dim": word_dim, "vocab_size": vocab_size, "seconds": seconds,
                         "max_books": max_books, "n_sampled": n_sampled, "seed": seed, "batch_size": batch_size},
            "runs": runs, "speed_ratio": ratios}

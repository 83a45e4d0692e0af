"""Consensus maximisation (Tang & de Sa 2019, section 2 and the variants of section 4).

Two views of every sentence of a batch of ``N`` **contiguous** sentences — f (bidirectional GRU, last state)
and g (``avg(WX)``), both over fixed word vectors — should agree across neighbouring sentences. With
``a_ij = cos(z_i^f, z_j^g) + cos(z_i^g, z_j^f)`` and a **learnable temperature** τ (Eq. 1-2)::

    p_ij = exp(a_ij / τ) / Σ_n exp(a_in / τ),        L = − Σ_{0 < |i − j| ≤ c} log p_ij

over the sentences of the batch. Read literally, ``|i − j| ≤ c`` includes ``j = i`` and the sum over ``n`` runs over
the whole window: the sentence itself is both a target and a candidate, so the two views of *the same sentence* must
agree ("consensus"), besides those of its neighbours. That is our default (``self_pairs=True``); with ``False`` a
sentence is not its own candidate, as in Quick-Thoughts. As Quick-Thoughts, a row's target is uniform over its
targets and the loss is reported as the KL divergence to it (0 is perfect); context pairs never cross a book.
Before the cosines, the top principal component of each view's batch is removed (power iteration, section 2.3).

A **variant is data**: which views are trained and which cosine terms make up ``a_ij``
(:data:`VARIANTS`: Eq. 1, 3-7; a term side ``"f+g"`` is the sum of the two views, the skip connection of Eq. 6).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from reproducer.data.batches import ContiguousSampler
from reproducer.data.fixed_vectors import FixedVectorData
from reproducer.encoders.layers import fixed_embedding, remove_top_component
from reproducer.encoders.multiview import ViewSet, make_view
from reproducer.errors import ReproducerError
from reproducer.flops import rnn_token_macs, training_flops
from reproducer.objectives.context import context_loss, context_targets
from reproducer.fit import Objective
from reproducer.train import Preset


@dataclass(frozen=True, kw_only=True)
class ConsensusPreset(Preset):
    """Tang & de Sa (2019): sizes, optimiser and budget of the consensus-maximisation variants. The paper gives
    neither ``d`` nor ``N`` nor ``c`` (tuned on STS14); every variant of Table 3 uses the same ``N`` and ``d``.
    f is a bidirectional GRU of ``dim / 2`` per direction, g a ``dim × word_dim`` projection; the word vectors
    are our word2vec (the paper: fastText 300d), fixed."""

    max_books: int | None  # corpus books (None: all 389 + 10)
    dim: int  # d, the size of each view's representation
    word2vec_dim: int = 300  # the fixed word vectors: our word2vec of this size
    batch_size: int = 400  # N contiguous sentences = the candidates of each softmax (as Quick-Thoughts)
    context: int = 1  # c: neighbours on each side that count as context
    max_len: int = 30
    temperature: float = 0.1  # initial τ, then learned
    remove_pc: bool = True  # remove each view's top batch component during training (section 2.3)
    self_pairs: bool = True  # Eq. 1-2 read literally (|i - j| <= c, n runs over the whole window): the sentence
    # itself is a target and a candidate, so its two views must agree; False: only its neighbours, as Quick-Thoughts
    lr: float = 1e-3  # Adam (the paper: Adam, rate not given)
    clip: float = 5.0  # gradient-norm clipping (the paper: clipping, threshold not given)
    rows_eval_config: str = ""  # Table 3's many 900- to 2,100-d rows: this protocol ("" : eval_config, which
    # Table 6's MV ensemble keeps); "fast", SentEval's prototyping config, where the paper protocol does not fit

    @property
    def rows_config(self) -> str:
        """The evaluation protocol of Table 3's rows (:attr:`rows_eval_config`, else :attr:`eval_config`)."""
        return self.rows_eval_config or self.eval_config


PRESETS: dict[str, ConsensusPreset] = {p.name: p for p in [
    ConsensusPreset(name="smoke", max_books=3, dim=16, word2vec_dim=32, batch_size=32, max_len=20, max_steps=20,
                    eval_steps=10, eval_config="smoke"),
    # 200k sentences per variant
    # Table 3's 17 rows at SentEval's prototyping config, Table 6's MV ensemble at the paper protocol: at the paper
    # protocol alone a 1,200-d encoder costs about 9 minutes on 2 CPU cores (17 rows: hours)
    ConsensusPreset(name="quick", max_books=None, dim=300, max_steps=500, eval_steps=125, eval_config="paper",
                    rows_eval_config="fast"),
    # quick's sizes for 2,000 batches of 400 per variant, 55% of an epoch of our corpus (3,642 batches): the seven
    # variants and the other reading's three train on the same batches (Table 3 compares them at equal budget)
    ConsensusPreset(name="default", max_books=None, dim=300, max_steps=2000, eval_steps=400, eval_config="paper",
                    rows_eval_config="fast"),
    # one epoch of our 1.46M-sentence corpus at N = 400; d as the paper's contemporaries (MC-QT: 2 x 2 x 600)
    # MV: 1,417 TFLOP per epoch (3,642 batches of 400): 14 s at a sustained 100 TFLOP/s, 2.2 h at this CPU's sgemm rate
    ConsensusPreset(name="paper", max_books=None, dim=2048, max_steps=3650, eval_steps=365, eval_config="paper"),
]}


@dataclass(frozen=True)
class Variant:
    """A training variant: the views it trains (kind = first letter, ``f`` or ``g``) and the cosine terms
    ``(left, right)`` whose sum is the agreement ``a_ij = Σ cos(z_i^left, z_j^right)``."""

    name: str
    views: tuple[str, ...]
    terms: tuple[tuple[str, str], ...]
    description: str = ""

    def __post_init__(self):
        used = {v for term in self.terms for side in term for v in side.split("+")}
        if not used or not used <= set(self.views) or set(self.views) - used:
            raise ReproducerError(f"Variant {self.name}: the terms {self.terms} must use exactly the views {self.views}.")


VARIANTS: dict[str, Variant] = {v.name: v for v in [
    Variant("MV", ("f", "g"), (("f", "g"), ("g", "f")), "multi-view f–g, Eq. 1 (the method)"),
    Variant("MV-ff", ("f1", "f2"), (("f1", "f2"), ("f2", "f1")), "multi-view f1–f2, Eq. 3"),
    Variant("MV-gg", ("g1", "g2"), (("g1", "g2"), ("g2", "g1")), "multi-view g1–g2, Eq. 4"),
    Variant("SV-f", ("f",), (("f", "f"),), "single-view f, Eq. 5"),
    Variant("SV-g", ("g",), (("g", "g"),), "single-view g, Eq. 5"),
    Variant("MV+SV", ("f", "g"), (("f", "g"), ("g", "f"), ("f", "f"), ("g", "g")), "multi-view + single-view, Eq. 7"),
    Variant("skip", ("f", "g"), (("f+g", "f+g"),), "skip connection f + g, Eq. 6"),
]}


def agreement(z: dict[str, torch.Tensor], terms: tuple[tuple[str, str], ...]) -> torch.Tensor:
    """``(N, N)`` matrix ``a_ij = Σ_(left, right) cos(z_i^left, z_j^right)``; a side ``"f+g"`` is ``z^f + z^g``."""
    def side(expr: str) -> torch.Tensor:
        return F.normalize(sum(z[v] for v in expr.split("+")), dim=-1)

    return sum(side(left) @ side(right).T for left, right in terms)


class Temperature(nn.Module):
    """The learnable temperature τ of Eq. 2, kept positive as ``exp(log τ)`` and at least ``minimum``."""

    def __init__(self, initial: float = 0.1, minimum: float = 0.01):
        super().__init__()
        if not initial > minimum:
            raise ReproducerError(f"The initial temperature must exceed its minimum {minimum}, got {initial}.")
        self.log_tau = nn.Parameter(torch.tensor(math.log(initial)))
        self.minimum = minimum

    @property
    def tau(self) -> torch.Tensor:
        return self.log_tau.exp().clamp(min=self.minimum)

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        return scores / self.tau


def consensus_loss(z: dict[str, torch.Tensor], terms, targets: torch.Tensor, temperature, *,
                   self_pairs: bool = False) -> torch.Tensor:
    """Eq. 1-2: the in-batch classification of each sentence's context by ``a_ij / τ`` (see the module docstring).
    ``z``: each view's ``(N, d)`` batch representations; ``temperature``: a :class:`Temperature` or a number;
    ``self_pairs``: the sentence itself is a candidate (and ``targets`` should count it, ``include_self``)."""
    scores = agreement(z, terms)
    scores = temperature(scores) if callable(temperature) else scores / temperature
    return context_loss(scores, targets, exclude_self=not self_pairs)


class Consensus(nn.Module):
    """The views of a :class:`Variant` over one fixed embedding table, a temperature, and ``forward(batch) ->
    loss`` for a :class:`~reproducer.data.batches.ContiguousBatch`."""

    def __init__(self, variant: Variant, vectors, dim: int, *, context: int = 1, temperature: float = 0.1,
                 remove_pc: bool = True, pc_iterations: int = 20, self_pairs: bool = False):
        super().__init__()
        embed = fixed_embedding(vectors)
        self.variant, self.context, self.remove_pc, self.pc_iterations = variant, context, remove_pc, pc_iterations
        self.self_pairs = self_pairs
        self.views = nn.ModuleDict({name: make_view(name, embed, dim) for name in variant.views})
        self.temperature = Temperature(temperature)

    def represent(self, ids: torch.Tensor, lengths: torch.Tensor) -> dict[str, torch.Tensor]:
        """Each view's training representation (f: last state, g: average), top component removed."""
        z = {name: view(ids, lengths) for name, view in self.views.items()}
        return {n: remove_top_component(v, self.pc_iterations) for n, v in z.items()} if self.remove_pc else z

    def forward(self, batch) -> torch.Tensor:
        targets = context_targets(batch.positions, batch.book_ids, self.context, include_self=self.self_pairs)
        return consensus_loss(self.represent(batch.ids, batch.lengths), self.variant.terms, targets, self.temperature,
                              self_pairs=self.self_pairs)


def batch_flops(model: Consensus, batch) -> float:
    """Useful training FLOPs of a :class:`~reproducer.data.batches.ContiguousBatch` (:mod:`reproducer.flops`): per
    real token, the recurrent view's ``2 · 3(d/2)(W + d/2)`` (a bidirectional GRU of ``d/2``) and the linear view's
    ``W · d`` — the products with the fixed word vectors (``W``) need no input gradient; per agreement term of the
    variant an ``N × N`` score matrix of ``N² · d``; removing each view's top component costs ``2 N d`` per power
    iteration, without gradients."""
    tokens, n = int(batch.lengths.sum()), len(batch)
    fixed = sum(rnn_token_macs(view, "input") or view.proj.in_features * view.proj.out_features
                for view in model.views.values())
    recurrent = sum(rnn_token_macs(view, "rest") for view in model.views.values())
    dim = next(iter(model.views.values())).output_dim
    pc = len(model.views) * model.pc_iterations * 2 * n * dim if model.remove_pc else 0
    return training_flops(tokens * recurrent + len(model.variant.terms) * n * n * dim, pc, tokens * fixed)


class ConsensusObjective(Objective):
    """Consensus maximisation for :func:`reproducer.fit.fit`: a :class:`Variant` (or its name in :data:`VARIANTS`)
    trained on contiguous batches of ``data.tokenized`` (ids of ``data.vocab``, whose row ``i`` of ``data.vectors``
    is word ``i``'s fixed vector). The test-time encoder is the trained views as a
    :class:`~reproducer.encoders.multiview.ViewSet` (encodes with the unsupervised ensemble; ``.encoders(rule)``
    gives each view under either pooling rule)."""

    name, presets, variants = "consensus", PRESETS, VARIANTS
    reads, inputs = "books", "fixed"

    @staticmethod
    def variant_of(variant: str | Variant) -> Variant:
        found = VARIANTS[variant] if isinstance(variant, str) and variant in VARIANTS else variant
        if not isinstance(found, Variant):
            raise ReproducerError(f"Unknown consensus variant {variant!r}; choose one of {', '.join(VARIANTS)}.")
        return found

    def check_variant(self, variant) -> None:
        self.variant_of(variant)

    def training_data(self, variant, preset: ConsensusPreset):
        """As chapter 04 builds it: our word2vec of ``word2vec_dim`` (cached on disk), the vocabulary of every word it
        covers and the training split as ids of it."""
        return FixedVectorData.of(preset).training_data()

    def build(self, variant, preset: ConsensusPreset, data, *, device, seed: int = 0):
        variant = self.variant_of(variant)
        if len(data.vectors) != len(data.vocab):
            raise ReproducerError(f"{len(data.vectors)} word vectors for a vocabulary of {len(data.vocab)} words.")
        model = Consensus(variant, np.asarray(data.vectors), preset.dim, context=preset.context,
                          temperature=preset.temperature, remove_pc=preset.remove_pc,
                          self_pairs=preset.self_pairs).to(device)
        return model, ViewSet(model.views, data.vocab, variant.name, device=device)

    def sampler(self, variant, preset: ConsensusPreset, data, seed: int = 0, encoder=None):
        """Contiguous sentences of one book at a time (also the held-out batches of a training curve)."""
        return ContiguousSampler(data.tokenized, preset.batch_size, max_len=preset.max_len, seed=seed)

    def held_out_data(self, variant, preset: ConsensusPreset, data):
        """The held-out books as ids of the training vocabulary, with the same fixed vectors."""
        return FixedVectorData.of(preset).training_data("valid")

    def batch_flops(self, module: Consensus, batch) -> float:
        return batch_flops(module, batch)


#: The consensus-maximisation objective (:func:`reproducer.fit.fit`).
OBJECTIVE = ConsensusObjective()

"""The paraphrastic margin objective of Wieting et al. (2016), "Towards Universal Paraphrastic Sentence
Embeddings", section 3.1.

Training data are phrase pairs ``<x_1, x_2>`` assumed to be paraphrases (PPDB). Each phrase should be
closer (in cosine) to its partner than to a negative example ``t`` taken from the minibatch, by a margin δ
(Eq. 11)::

    min  1/|X| Σ_<x1,x2>  max(0, δ − cos(g(x1), g(x2)) + cos(g(x1), g(t1)))
                        + max(0, δ − cos(g(x1), g(x2)) + cos(g(x2), g(t2)))
         + λ_c ‖W_c‖² + λ_w ‖W_w,initial − W_w‖²

Negatives (section 3.1.1, Eq. 12): **MAX** takes for each phrase the most cosine-similar phrase of the
minibatch outside its own pair; **MIX** does so with probability 0.5 and otherwise takes a random phrase
of the minibatch outside its own pair. The pool is all ``2B`` phrases of the ``B`` pairs (both sides).

The maths lives in functions of embeddings (:func:`paraphrase_margin_loss`, :func:`negatives`,
:func:`squared_distance`), testable without text; :class:`ParaphraseModel` wires them to an encoder
(e.g. :class:`~reproducer.encoders.compositional.CompositionalEncoder`) for :func:`reproducer.train.train`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from reproducer.data.batches import PairBatch  # noqa: F401  (re-exported: the batch this objective reads)
from reproducer.data.corpus import CorpusConfig
from reproducer.data.pairs import PairSampler, training_pairs
from reproducer.data.tokenize import tokenize
from reproducer.data.training_data import TrainingData
from reproducer.data.vectors import WordVectors
from reproducer.data.vocab import SPECIALS, Vocabulary
from reproducer.encoders.compositional import CompositionalConfig, CompositionalEncoder
from reproducer.encoders.trained import TokenEncoder
from reproducer.errors import ReproducerError
from reproducer.flops import training_flops
from reproducer.fit import Objective
from reproducer.train import Preset

NEGATIVE_MODES = ("MAX", "MIX")
ANCHORS = ("paper", "initial")


@dataclass(frozen=True, kw_only=True)
class ParaphrasticPreset(Preset):
    """Wieting et al. (2016): loss, optimiser and budget of the six compositional models. The paper's own
    reduced grid fixes batch 100, δ 0.4 and AdaGrad at 0.05 and tunes ``lambda_w``, MIX/MAX and (for the
    compositional models) ``lambda_c``; a notebook grid overrides those fields."""

    wiki_min_score: float = 4.0  # PPDB-wiki pairs kept for training (plus the Twitter URL paraphrases)
    vocab_size: int | None = None  # words of the initial vectors kept (None: all), plus every training word
    batch_size: int = 100  # pairs per batch = the pool of negatives
    delta: float = 0.4  # the margin δ
    negatives: str = "MAX"  # "MAX" | "MIX"
    lambda_c: float = 1e-6  # compositional weights (the iRNN's toward their initial values)
    lambda_w: float = 0.0  # word embeddings toward their initial values
    train_words: bool = True  # False: the paper's "do not update W_w" setting
    optimizer: str = "adagrad"  # the paper tunes AdaGrad vs Adam; PP's best is AdaGrad 0.05
    lr: float = 0.05
    clip: float = 1e9  # the paper tunes clipping at 1 vs none; none here (a very large threshold)
    max_len: int = 40


PRESETS: dict[str, ParaphrasticPreset] = {p.name: p for p in [
    ParaphrasticPreset(name="smoke", vocab_size=2000, batch_size=16, max_steps=20, eval_config="smoke"),
    ParaphrasticPreset(name="quick", max_steps=200, eval_config="paper"),  # two epochs of our 10,131 training pairs
    # ten epochs of our pairs, as the paper's ten of PPDB: the recurrent models need them to learn
    ParaphrasticPreset(name="default", max_steps=1010, eval_config="paper"),
    # an epoch of our 10,131 pairs is 101 batches: 1.2 TFLOP for the LSTM, seconds anywhere (bench epoch)
    ParaphrasticPreset(name="paper", max_steps=10 * 30_000),  # 10 epochs of PPDB XL (3M pairs, batch 100)
]}


def _check_same_shape(**tensors: torch.Tensor) -> None:
    shapes = {name: tuple(t.shape) for name, t in tensors.items()}
    first = next(iter(shapes.values()))
    if len(first) != 2 or any(s != first for s in shapes.values()):
        raise ReproducerError("Expected embeddings of one shape (pairs, dim), got "
                              + ", ".join(f"{n} {s}" for n, s in shapes.items()) + ".")


def cosine_matrix(a: torch.Tensor, b: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """``(N, M)`` cosine similarities between the rows of ``a`` ``(N, d)`` and ``b`` ``(M, d)``."""
    return F.normalize(a, dim=-1, eps=eps) @ F.normalize(b, dim=-1, eps=eps).T


def paraphrase_margin_loss(g1: torch.Tensor, g2: torch.Tensor, t1: torch.Tensor, t2: torch.Tensor,
                           delta: float) -> torch.Tensor:
    """Eq. 11 without the regularisers: the mean over the ``B`` pairs of
    ``max(0, δ − cos(g1, g2) + cos(g1, t1)) + max(0, δ − cos(g1, g2) + cos(g2, t2))``.

    ``g1``, ``g2``: embeddings ``(B, d)`` of the two sides of each pair; ``t1``, ``t2``: embeddings of the
    negative examples of ``x_1`` and ``x_2`` (e.g. ``pool[i]`` with the indices of :func:`negatives`).
    """
    _check_same_shape(g1=g1, g2=g2, t1=t1, t2=t2)
    positive = F.cosine_similarity(g1, g2, dim=-1)
    hinge1 = torch.relu(delta - positive + F.cosine_similarity(g1, t1, dim=-1))
    hinge2 = torch.relu(delta - positive + F.cosine_similarity(g2, t2, dim=-1))
    return (hinge1 + hinge2).mean()


@torch.no_grad()
def negatives(g1: torch.Tensor, g2: torch.Tensor, mode: str = "MAX",
              generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Negative examples from the minibatch (section 3.1.1, Eq. 12).

    The pool is ``torch.cat([g1, g2])``: the ``2B`` phrases of the ``B`` pairs. Returns ``(t1, t2)``, two
    ``(B,)`` index tensors into the pool: for ``x_1`` of pair ``k`` (pool row ``k``) and ``x_2`` (row
    ``B + k``), never a phrase of pair ``k`` itself.

    - ``"MAX"``: the most cosine-similar phrase (Eq. 12);
    - ``"MIX"``: for each phrase independently, with probability 0.5 a uniformly random phrase instead
      (drawn with ``generator`` when given, for reproducible batches).
    """
    _check_same_shape(g1=g1, g2=g2)
    if mode not in NEGATIVE_MODES:
        raise ReproducerError(f"Unknown negative sampling mode {mode!r}; choose one of {', '.join(NEGATIVE_MODES)}.")
    pairs = g1.shape[0]
    if pairs < 2:
        raise ReproducerError(f"Negatives come from the other pairs of the minibatch: it needs at least 2 pairs, "
                              f"got {pairs}.")
    pool = torch.cat([g1, g2])
    pair_of = torch.arange(2 * pairs, device=pool.device) % pairs
    other_pair = pair_of.unsqueeze(1) != pair_of.unsqueeze(0)  # (2B, 2B): t may be a negative of row i
    choice = cosine_matrix(pool, pool).masked_fill(~other_pair, float("-inf")).argmax(dim=1)  # MAX
    if mode == "MIX":
        device = generator.device if generator is not None else pool.device
        draws = torch.rand(2 * pairs, 2 * pairs + 1, generator=generator, device=device).to(pool.device)
        coin, scores = draws[:, -1] < 0.5, draws[:, :-1]
        random_pick = scores.masked_fill(~other_pair, -1.0).argmax(dim=1)  # uniform over the allowed phrases
        choice = torch.where(coin, random_pick, choice)
    return choice[:pairs], choice[pairs:]


def squared_distance(params: Mapping[str, torch.Tensor], anchors: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """``Σ_name ‖params[name] − anchors[name]‖²``: the regularisers of Eq. 11 (``λ_c‖W_c − A‖²`` with
    ``A`` zero, or the iRNN's initial values; ``λ_w‖W_w,initial − W_w‖²``). Zero for no parameters."""
    if set(params) != set(anchors):
        raise ReproducerError(f"Parameters and anchors differ: {sorted(set(params) ^ set(anchors))}.")
    terms = []
    for name, p in params.items():
        if p.shape != anchors[name].shape:
            raise ReproducerError(f"{name}: parameter {tuple(p.shape)} but anchor {tuple(anchors[name].shape)}.")
        terms.append((p - anchors[name]).pow(2).sum())
    return torch.stack(terms).sum() if terms else torch.zeros(())


class Snapshot(nn.Module):
    """Frozen copies of named tensors, kept as buffers (they follow ``.to(device)`` and ``state_dict``)."""

    def __init__(self, tensors: Mapping[str, torch.Tensor]):
        super().__init__()
        self.names = list(tensors)
        for i, t in enumerate(tensors.values()):
            self.register_buffer(f"t{i}", t.detach().clone())

    def as_dict(self) -> dict[str, torch.Tensor]:
        return {name: getattr(self, f"t{i}") for i, name in enumerate(self.names)}


class ParaphraseModel(nn.Module):
    """An encoder trained with Eq. 11: ``forward(batch) -> loss`` for a :class:`PairBatch` (or any object
    with ``ids1, lengths1, ids2, lengths2``), so it plugs into :func:`reproducer.train.train`.

    - ``delta``: the margin δ (tuned over {0.4, 0.6, 0.8}); ``mode``: ``"MAX"`` or ``"MIX"`` negatives.
    - ``lambda_c``: weight of ``‖W_c − A‖²``; ``anchor="paper"``: ``A`` is the encoder's
      ``compositional_anchors()`` (zero, or the identity-RNN's initial values, as in the paper);
      ``anchor="initial"``: ``A`` is a snapshot of ``W_c`` at construction, for every kind.
    - ``lambda_w``: weight of ``‖W_w,initial − W_w‖²``, ``W_w,initial`` being the embeddings at construction
      (the pre-trained vectors); ``train_words=False``: the paper's "do not update W_w" setting.
    - ``seed``: MIX draws come from a generator seeded by ``(seed, number of training batches so far)``; the
      count is a buffer, so a run resumed from a checkpoint draws what an uninterrupted one would.

    The encoder must have ``embed`` and the ``compositional_parameters()`` / ``compositional_anchors()`` of
    :class:`~reproducer.encoders.compositional.CompositionalEncoder`.

    Optimiser: :func:`reproducer.train.train` uses Adam. The paper tunes over AdaGrad and Adam (learning
    rates {0.05, 0.005, 0.0005}) and over gradient clipping at 1 (``TrainConfig.clip``); AdaGrad would need
    an optimiser option in :class:`~reproducer.train.TrainConfig`.
    """

    def __init__(self, encoder: nn.Module, *, delta: float = 0.4, mode: str = "MAX", lambda_c: float = 0.0,
                 lambda_w: float = 0.0, anchor: str = "paper", train_words: bool = True, seed: int = 0):
        super().__init__()
        if mode not in NEGATIVE_MODES:
            raise ReproducerError(f"Unknown negative sampling mode {mode!r}; "
                                  f"choose one of {', '.join(NEGATIVE_MODES)}.")
        if anchor not in ANCHORS:
            raise ReproducerError(f"Unknown regularisation anchor {anchor!r}; choose one of {', '.join(ANCHORS)}.")
        if lambda_c < 0 or lambda_w < 0:
            raise ReproducerError(f"Regularisation weights must be >= 0, got lambda_c={lambda_c}, lambda_w={lambda_w}.")
        self.encoder = encoder
        self.delta, self.mode, self.lambda_c, self.lambda_w, self.seed = delta, mode, lambda_c, lambda_w, seed
        self.anchor = anchor
        encoder.embed.weight.requires_grad_(train_words)
        self.initial_compositional = (Snapshot(encoder.compositional_parameters()) if anchor == "initial" else None)
        self.register_buffer("words_init", encoder.embed.weight.detach().clone() if lambda_w and train_words else None)
        self.register_buffer("batches_seen", torch.zeros((), dtype=torch.long))

    def compositional_penalty(self) -> torch.Tensor:
        """``‖W_c − A‖²`` (unweighted)."""
        anchors = (self.initial_compositional.as_dict() if self.initial_compositional is not None
                   else self.encoder.compositional_anchors())
        return squared_distance(self.encoder.compositional_parameters(), anchors)

    def word_penalty(self) -> torch.Tensor:
        """``‖W_w,initial − W_w‖²`` (unweighted; zero when the words are not regularised)."""
        if self.words_init is None:
            return torch.zeros((), device=self.encoder.embed.weight.device)
        return squared_distance({"W_w": self.encoder.embed.weight}, {"W_w": self.words_init})

    def _generator(self) -> torch.Generator | None:
        if self.mode != "MIX":
            return None
        generator = torch.Generator().manual_seed(self.seed * 1_000_003 + int(self.batches_seen))
        if self.training:
            self.batches_seen += 1
        return generator

    def forward(self, batch) -> torch.Tensor:
        g1 = self.encoder(batch.ids1, batch.lengths1)
        g2 = self.encoder(batch.ids2, batch.lengths2)
        t1, t2 = negatives(g1, g2, self.mode, self._generator())
        pool = torch.cat([g1, g2])  # gradients also flow through the negatives g(t1), g(t2)
        loss = paraphrase_margin_loss(g1, g2, pool[t1], pool[t2], self.delta)
        if self.lambda_c:
            loss = loss + self.lambda_c * self.compositional_penalty()
        if self.lambda_w and self.words_init is not None:
            loss = loss + self.lambda_w * self.word_penalty()
        return loss


def batch_flops(model: ParaphraseModel, batch) -> float:
    """Useful training FLOPs of a :class:`~reproducer.data.batches.PairBatch` (:mod:`reproducer.flops`) of ``B``
    pairs: per real token the recurrent models' ``2d²`` (RNN: ``W_x``, ``W_h``) or ``gates · 2d²`` (LSTM, 4 gates
    with the output gate, 3 without); per phrase the averaging models' ``layers · d²`` (proj, DAN; PP: none); the
    cosines of the ``2B × 2B`` pool that choose the negatives, ``(2B)² d`` without gradients, and the margin's ``4Bd``.
    Word averaging itself is additions; PP's step is dominated by the update of its ``V × d`` embeddings."""
    config = model.encoder.config
    d, pairs = config.dim, len(batch)
    tokens = int(batch.lengths1.sum() + batch.lengths2.sum())
    gates = {"RNN": 1, "iRNN": 1, "LSTM": 4 if config.output_gate else 3}.get(config.kind, 0)
    macs = tokens * gates * 2 * d * d + 2 * pairs * config.affine_layers * d * d + 4 * pairs * d
    return training_flops(macs, (2 * pairs) ** 2 * d)


def initial_vocabulary(vectors, pairs, max_words: int | None = None, seed: int = 0):
    """The vocabulary of a paraphrastic model and its initial embeddings: the special tokens, the first
    ``max_words`` words of the pre-trained ``vectors`` (all if None), then every other word of the training
    ``pairs``, lower-cased tokens. Rows of words without a vector are drawn from U[-0.1, 0.1]; ``<pad>`` is 0."""
    import numpy as np


    words = list(vectors.words[:max_words] if max_words else vectors.words)
    known = set(words) | set(SPECIALS)
    extra = dict.fromkeys(t for p in pairs for s in (p.a, p.b) for t in tokenize(s, lowercase=True) if t not in known)
    vocab = Vocabulary(list(SPECIALS) + words + list(extra))
    table = np.random.default_rng(seed).uniform(-0.1, 0.1, (len(vocab), vectors.dim)).astype(np.float32)
    table[len(SPECIALS):len(SPECIALS) + len(words)] = np.asarray([vectors[w] for w in words], dtype=np.float32)
    table[0] = 0.0
    return vocab, table


VARIANTS = {  # the models of Table 2 (our names): CompositionalConfig options (kind, layers, activation, output gate)
    "PP": {"kind": "PP"}, "proj": {"kind": "proj"}, "DAN": {"kind": "DAN", "layers": 1, "activation": "tanh"},
    "RNN": {"kind": "RNN", "activation": "tanh"}, "iRNN": {"kind": "iRNN"},
    "LSTM (no o.g.)": {"kind": "LSTM", "output_gate": False}, "LSTM (o.g.)": {"kind": "LSTM", "output_gate": True},
}


class ParaphrasticObjective(Objective):
    """Wieting et al.'s models for :func:`reproducer.fit.fit`, trained with Eq. 11 on ``data.pairs``
    (:func:`reproducer.data.pairs.training_pairs`), word embeddings initialised from ``data.vectors``. A variant is a
    name of :data:`VARIANTS` or the options of :class:`~reproducer.encoders.compositional.CompositionalConfig`
    (``kind``, ``layers``, ``activation``, ``output_gate``). The test-time encoder is a
    :class:`~reproducer.encoders.trained.TokenEncoder` (savable)."""

    name, presets, variants = "paraphrastic", PRESETS, VARIANTS
    reads, inputs = "pairs", "initialised"

    def training_data(self, variant: str, preset: ParaphrasticPreset):
        """As chapter 03 builds it: the training pairs at the preset's ``wiki_min_score`` and our 300-d word2vec as
        initial vectors (at ``smoke``, a 32-d word2vec of 3 books)."""
        from reproducer.data.vectors import Word2VecConfig, train_word2vec

        vectors = (train_word2vec(CorpusConfig(max_books=3), Word2VecConfig(vector_size=32), progress=False)
                   if preset.name == "smoke" else train_word2vec(progress=False))
        return TrainingData(pairs=training_pairs(preset.wiki_min_score), vectors=vectors)

    def options(self, variant: str | dict) -> dict:
        """The :class:`~reproducer.encoders.compositional.CompositionalConfig` options of ``variant``."""
        options = VARIANTS.get(variant) if isinstance(variant, str) else dict(variant)
        if options is None:
            raise ReproducerError(f"Unknown paraphrastic model {variant!r}; choose one of {', '.join(VARIANTS)}.")
        return options

    def check_variant(self, variant) -> None:
        self.options(variant)

    def label(self, variant) -> str:
        return self.options(variant)["kind"]

    def build(self, variant: str | dict, preset: ParaphrasticPreset, data, *, device, seed: int = 0):
        options, pairs, vectors = self.options(variant), data.pairs, data.vectors
        vocab, table = initial_vocabulary(vectors, pairs, preset.vocab_size, seed)
        config = CompositionalConfig(options["kind"], len(vocab), vectors.dim, layers=options.get("layers", 1),
                                     activation=options.get("activation"), output_gate=options.get("output_gate", True))
        encoder = CompositionalEncoder(config, table)
        model = ParaphraseModel(encoder, delta=preset.delta, mode=preset.negatives, lambda_c=preset.lambda_c,
                                lambda_w=preset.lambda_w, train_words=preset.train_words, seed=seed).to(device)
        return model, TokenEncoder(encoder, vocab, options["kind"], device=device)

    def sampler(self, variant, preset: ParaphrasticPreset, data, seed: int = 0, encoder=None):
        """Minibatches of pairs, as ids of the vocabulary :meth:`build` made (``encoder.vocab``)."""
        if encoder is None:
            raise ReproducerError("The paraphrastic batches are ids of the vocabulary a model was built with: pass "
                                  "the encoder that build() returned.")
        return PairSampler(data.pairs, encoder.vocab, preset.batch_size, max_len=preset.max_len, seed=seed)

    def batch_flops(self, module: ParaphraseModel, batch) -> float:
        return batch_flops(module, batch)


#: Wieting et al.'s objective (:func:`reproducer.fit.fit`).
OBJECTIVE = ParaphrasticObjective()


def norm_weighted_vectors(vocab, initial, trained, name: str = "initial x trained weight"):
    """Wieting et al.'s section 6 analysis: each word's *initial* vector multiplied by a weight, the sum of
    the absolute values of its *trained* (paragram-phrase) vector's components. Averaging these reweighted
    initial vectors tests how much of PP's gain is a learned word weighting. ``initial`` and ``trained`` are
    ``(len(vocab), d)`` tables (e.g. :func:`initial_vocabulary`'s and the trained ``embed.weight``); returns
    :class:`~reproducer.data.vectors.WordVectors` over the vocabulary's words (special tokens dropped)."""
    import numpy as np


    initial, trained = np.asarray(initial, dtype=np.float32), np.asarray(trained, dtype=np.float32)
    if initial.shape != trained.shape or len(initial) != len(vocab):
        raise ReproducerError(f"Tables of shape {initial.shape} and {trained.shape} for a vocabulary of {len(vocab)}.")
    weights = np.abs(trained).sum(axis=1, keepdims=True)
    start = len(SPECIALS)
    return WordVectors(vocab.itos[start:], (initial * weights)[start:], name=name)

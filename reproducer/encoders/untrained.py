"""Sentence encoders that are never trained: random weights over fixed pre-trained word vectors (Wieting & Kiela 2019,
*No Training Required: Exploring Random Encoders for Sentence Classification*).

Each reads a sentence's word vectors ``e_1 … e_n`` (frozen; a word without a vector reads the zero vector), composes
them with weights drawn once from ``config.seed`` and never updated, and pools the ``n`` composed states:

- **BOREP**, a bag of random embedding projections: ``h = pool_t(W e_t)``, ``W`` of shape ``(dim, d)`` drawn
  U[−1/√d, 1/√d] (PyTorch's initialisation of a linear layer, which the authors' code keeps), no bias; optionally a
  ReLU after the pooling.
- **Random LSTM**: a (bidirectional) LSTM of ``dim / 2`` units a direction, every weight and bias drawn
  U[−1/√H, 1/√H] (PyTorch's LSTM initialisation, which the authors' code keeps); its hidden states pooled.
- **ESN**, an echo state network (Jaeger 2001): ``h_t = f(W_in e_t + W h_{t−1})`` in each direction, ``W_in`` drawn
  U[−s, s] (``input_scale``), ``W`` drawn U[−0.5, 0.5] with a share ``sparsity`` of its entries zeroed and then scaled
  to spectral radius ``spectral_radius`` (the reservoir recipe; the authors' code scales before zeroing, which leaves
  a smaller radius); ``f`` is ``state_activation`` (their example command uses none, the identity); states pooled.

Pooling is over each sentence's own positions (:func:`reproducer.encoders.layers.pool`: ``"max"`` or ``"avg"``).
``dim`` is the width of the sentence vector (both directions together), so an untrained encoder can be set at the
width of a trained one. The same config and seed give the same weights on every machine (draws from a
``torch.Generator``, on the CPU, before the module moves). Read, not copied, from facebookresearch/randsent.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from reproducer.data.vectors import WordVectors, pretrained_channel
from reproducer.data.vocab import SPECIALS, Vocabulary
from reproducer.encoders.bundles import ConfiguredModule, savable
from reproducer.encoders.layers import fixed_embedding, pool
from reproducer.encoders.trained import TokenEncoder
from reproducer.errors import ReproducerError
from reproducer.runtime import default_device

KINDS = ("borep", "lstm", "esn")
ACTIVATIONS = {"none": lambda x: x, "relu": torch.relu, "tanh": torch.tanh}


#: The largest input scale an untrained encoder takes (its inputs are word vectors of norm ~1-10; beyond this the
#: recurrent states saturate or overflow).
MAX_INPUT_SCALE = 1e3
#: The most weights an untrained encoder may have (4 GiB of float32): checked before its word vectors load.
MAX_WEIGHTS = 2**30


def weight_count(kind: str, word_dim: int, dim: int, bidirectional: bool = True) -> int:
    """The weights of an untrained encoder of ``kind`` over ``word_dim``-d words, ``dim`` wide: BOREP's projection, the
    ESN's input and reservoir matrices, the LSTM's four gates (per direction)."""
    directions = 2 if kind != "borep" and bidirectional else 1
    hidden = dim // directions
    per_direction = {"borep": word_dim * dim, "esn": word_dim * hidden + hidden * hidden,
                     "lstm": 4 * hidden * (word_dim + hidden + 2)}[kind]
    return per_direction * (1 if kind == "borep" else directions)


def check_size(kind: str, word_dim: int, dim: int, bidirectional: bool = True) -> None:
    """:class:`ReproducerError` when an untrained encoder would have more than :data:`MAX_WEIGHTS` weights (before
    anything is allocated or loaded)."""
    if kind in KINDS and dim > 0 and (count := weight_count(kind, word_dim, dim, bidirectional)) > MAX_WEIGHTS:
        raise ReproducerError(f"An untrained {kind} {dim:,} wide over {word_dim}-d words has {count:,} weights "
                              f"({count * 4 / 2**30:.0f} GiB), above {MAX_WEIGHTS:,}: choose a smaller width (the papers "
                              "go up to 4,096).")


@dataclass(frozen=True)
class UntrainedConfig:
    """What an untrained encoder is: its kind (:data:`KINDS`), the word table's size, the sentence vector's width
    ``dim`` and how its weights are drawn (``seed``). ``output_activation`` follows the pooling (BOREP, random LSTM);
    ``state_activation`` is the ESN's ``f``."""

    kind: str
    vocab_size: int
    word_dim: int
    dim: int = 4096
    pooling: str = "max"
    bidirectional: bool = True
    output_activation: str = "none"
    state_activation: str = "none"
    spectral_radius: float = 1.0
    sparsity: float = 0.5
    input_scale: float = 0.1
    seed: int = 0

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ReproducerError(f"Unknown untrained encoder {self.kind!r}; choose from {', '.join(KINDS)}.")
        if self.pooling not in ("max", "avg"):
            raise ReproducerError(f"pooling must be 'max' or 'avg', got {self.pooling!r}.")
        for field in ("output_activation", "state_activation"):
            if getattr(self, field) not in ACTIVATIONS:
                raise ReproducerError(f"{field} must be one of {', '.join(ACTIVATIONS)}, got {getattr(self, field)!r}.")
        if self.dim < 1 or (self.recurrent and self.bidirectional and self.dim % 2):
            raise ReproducerError(f"dim must be positive (and even for a bidirectional {self.kind}), got {self.dim}.")
        if not 0 <= self.sparsity < 1 or not (math.isfinite(self.spectral_radius) and self.spectral_radius > 0):
            raise ReproducerError(f"An ESN needs 0 <= sparsity < 1 and a positive, finite spectral radius; got "
                                  f"sparsity {self.sparsity!r}, spectral radius {self.spectral_radius!r}.")
        if not (math.isfinite(self.input_scale) and 0 < self.input_scale <= MAX_INPUT_SCALE):
            raise ReproducerError(f"input_scale must be a finite number in (0, {MAX_INPUT_SCALE:g}], got "
                                  f"{self.input_scale!r} (0 gives all-zero vectors, a huge one NaN).")
        check_size(self.kind, self.word_dim, self.dim, self.bidirectional)

    @property
    def recurrent(self) -> bool:
        return self.kind != "borep"

    @property
    def directions(self) -> int:
        return 2 if self.recurrent and self.bidirectional else 1

    @property
    def hidden(self) -> int:
        """Units a direction."""
        return self.dim // self.directions

    def to_dict(self) -> dict:
        return asdict(self)


def reservoir(hidden: int, sparsity: float, radius: float, generator: torch.Generator) -> torch.Tensor:
    """An ESN's recurrent matrix: U[−0.5, 0.5], a share ``sparsity`` of its entries zeroed, scaled so that its largest
    eigenvalue modulus is ``radius`` (float64 eigenvalues: the same scale on every machine to float32 precision)."""
    w = torch.rand(hidden, hidden, generator=generator, dtype=torch.float64) - 0.5
    w[torch.rand(hidden, hidden, generator=generator, dtype=torch.float64) < sparsity] = 0.0
    largest = torch.linalg.eigvals(w).abs().max().item()
    return (w * (radius / largest if largest > 0 else 1.0)).float()


def reverse_within(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """``x (B, T, d)`` with each sentence's own positions reversed (``0 … n−1`` → ``n−1 … 0``), padding left in place:
    applied twice, the identity."""
    t = torch.arange(x.shape[1], device=x.device)[None, :]
    n = lengths.to(x.device)[:, None]
    index = torch.where(t < n, n - 1 - t, t)
    return x.gather(1, index[:, :, None].expand_as(x))


@savable
class UntrainedEncoder(ConfiguredModule, nn.Module):
    """Token ids ``(B, T)`` and lengths ``(B,)`` → sentence vectors ``(B, dim)``: one of Wieting & Kiela's random
    encoders over a frozen word table (``vectors``, row ``i`` the vector of word ``i``; zeros when rebuilt from a spec,
    then filled by the state dict)."""

    config_class = UntrainedConfig

    def __init__(self, config: UntrainedConfig, vectors: np.ndarray | None = None):
        super().__init__()
        self.config = config
        if vectors is None:
            vectors = np.zeros((config.vocab_size, config.word_dim), dtype=np.float32)
        if tuple(vectors.shape) != (config.vocab_size, config.word_dim):
            raise ReproducerError(f"The word table is {tuple(vectors.shape)}, the config says "
                                  f"({config.vocab_size}, {config.word_dim}).")
        self.embed = fixed_embedding(vectors)
        g = torch.Generator().manual_seed(config.seed)
        d, h = config.word_dim, config.hidden
        if config.kind == "borep":
            self.proj = nn.Linear(d, config.dim, bias=False)
            with torch.no_grad():
                self.proj.weight.uniform_(-1 / math.sqrt(d), 1 / math.sqrt(d), generator=g)
        elif config.kind == "lstm":
            self.rnn = nn.LSTM(d, h, batch_first=True, bidirectional=config.bidirectional)
            with torch.no_grad():
                for p in self.rnn.parameters():
                    p.uniform_(-1 / math.sqrt(h), 1 / math.sqrt(h), generator=g)
        else:
            s, k = config.input_scale, config.directions
            self.register_buffer("w_in", (torch.rand(k, h, d, generator=g) * 2 - 1) * s)
            self.register_buffer("w", torch.stack([reservoir(h, config.sparsity, config.spectral_radius, g)
                                                   for _ in range(k)]))
        self.requires_grad_(False)

    @property
    def output_dim(self) -> int:
        return self.config.dim

    def states(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Every position's composed state ``(B, T, dim)`` (both directions concatenated; zero beyond a sentence's
        length for the recurrent kinds, ignored by the pooling in any case)."""
        x = self.embed(ids)
        if self.config.kind == "borep":
            return self.proj(x)
        if self.config.kind == "lstm":
            packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
            out, _ = self.rnn(packed)
            return pad_packed_sequence(out, batch_first=True, total_length=ids.shape[1])[0]
        inputs = [x, reverse_within(x, lengths)][: self.config.directions]
        runs = [self._esn(inp, k) for k, inp in enumerate(inputs)]
        if len(runs) == 2:
            runs[1] = reverse_within(runs[1], lengths)  # the backward states back at their words' positions
        return torch.cat(runs, dim=-1)

    def _esn(self, x: torch.Tensor, k: int) -> torch.Tensor:
        """One direction of the reservoir over ``x (B, T, d)``: the input part of every step in one product."""
        f = ACTIVATIONS[self.config.state_activation]
        drive = x @ self.w_in[k].T
        h = x.new_zeros(x.shape[0], self.config.hidden)
        out = []
        for t in range(x.shape[1]):
            h = f(drive[:, t] + h @ self.w[k].T)
            out.append(h)
        return torch.stack(out, dim=1)

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        if (lengths < 1).any():
            raise ReproducerError("Every sentence needs at least one token (empty sentences get <unk>).")
        pooled = pool(self.states(ids, lengths), lengths, None, (self.config.pooling,))
        return ACTIVATIONS[self.config.output_activation](pooled)


def untrained_encoder(kind: str, vectors: WordVectors, *, dim: int = 4096, seed: int = 0, name: str | None = None,
                      device=None, **options) -> TokenEncoder:
    """An untrained encoder of ``kind`` (:data:`KINDS`) over ``vectors`` (every word they cover; others read zero),
    ``dim`` wide, its weights drawn from ``seed``; ``options`` are the other fields of :class:`UntrainedConfig`. Behind
    the one encoder contract (:class:`~reproducer.encoders.trained.TokenEncoder`: lower-cased tokens)."""
    vocab, table = pretrained_channel(Vocabulary(list(SPECIALS)), vectors)
    config = UntrainedConfig(kind, len(vocab), vectors.dim, dim=dim, seed=seed, **options)
    device = default_device(device)
    module = UntrainedEncoder(config, table).to(device)
    return TokenEncoder(module, vocab, name or f"{kind}-{vectors.name or 'vectors'}-{dim}", device=device)

"""The mean-max attention autoencoder (Zhang et al. 2018, section 3): a one-block self-attention encoder, mean-max
pooling, and a decoder that attends over the two pooled vectors.

- Input (Eq. 1-2): ``x_t = e_t + p_t`` with **fixed** pre-trained word vectors ``e_t`` and sinusoidal positions
  ``p_t`` (Vaswani et al. 2017; the authors' code learns the positions: ``positions="learned"``).
- :class:`MultiHeadAttention` (Eq. 3-7): ``h`` heads of scaled dot-product attention. Queries of size ``d_q``, keys
  and values of size ``d_kv``, output of size ``d_model``: the encoder's self-attention has **no residual**
  (Eq. 8-9, ``ā = LN(MultiHead(x, x, x))``), which is what lets the width grow from ``d_w`` to ``d_m``.
- Encoder (Eq. 8-11): ``h = LN(FFN(ā) + ā)``, FFN = ``max(0, ā W1 + b1) W2 + b2`` of inner size ``d_f``.
- Mean-max representation (Eq. 12-14): ``z = [max_t h_t ; mean_t h_t]`` over each sentence's own positions
  (:func:`~reproducer.encoders.multiview.pool`), ``2 d_m`` values.
- Decoder (Eq. 15-20; :class:`~reproducer.papers.mean_max_aae.objective.MeanMaxDecoder`, with the loss and the whole model
  in :mod:`reproducer.papers.mean_max_aae.objective`), teacher forcing on ``y = (<s>, w_1, ..., w_{n})``: causal self-attention without residual
  + LN; **mean-max attention** — queries the decoder states, keys and values the two vectors ``z_max`` and
  ``z_mean`` — with residual + LN; FFN with residual + LN; a softmax over the output vocabulary (Eq. 21).

The variants of Table 3 change one setting each (:class:`AAEConfig`): ``pooling`` — mean-max, mean or max (the
decoder then attends over one vector) — and ``family``: ``"RAE"`` replaces the self-attention blocks by a BiLSTM
encoder (``d_m / 2`` per direction) and an LSTM decoder (``d_m``) that keep the pooling, the mean-max attention and
the output layer ("consistent" sizes: the paper gives none). RAE count:
``2 · 4h(d_w + h + 2)`` (h = d_m/2) ``+ 4 d_m(d_w + d_m + 2) + attention(d_m, d_m) + LN + d_m V + V``.

Every linear map has a bias. Parameter count (:meth:`AAEConfig.parameter_count`), with ``d_w``, ``d_m``, ``d_f``,
output vocabulary ``V`` and learned positions of ``L`` rows in the encoder and in the decoder (0 for sinusoidal)::

    attention(d_q, d_kv) = d_q d_m + 2 d_kv d_m + d_m² + 4 d_m
    FFN = 2 d_m d_f + d_f + d_m,      LN = 2 d_m
    encoder = attention(d_w, d_w) + FFN + 2 LN
    decoder = attention(d_w, d_w) + attention(d_m, d_m) + FFN + 3 LN + (d_m V + V)
    total = encoder + decoder + 2 L d_w        (the word vectors are fixed: not counted)
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from reproducer.encoders.bundles import build_module, module_spec, savable
from reproducer.encoders.layers import fixed_embedding, pool
from reproducer.errors import ReproducerError


def sinusoidal_positions(length: int, dim: int) -> torch.Tensor:
    """``(length, dim)``: ``sin(t / 10000^(2i/dim))`` in even columns, ``cos`` in odd ones (Zhang et al. Eq. 2)."""
    t = torch.arange(length, dtype=torch.float32)[:, None]
    rate = torch.exp(-math.log(10000.0) * torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    out = torch.zeros(length, dim)
    out[:, 0::2] = torch.sin(t * rate)
    out[:, 1::2] = torch.cos(t * rate[: dim // 2])
    return out


class MultiHeadAttention(nn.Module):
    """``h`` heads of scaled dot-product attention (Eq. 3-7): ``(B, Tq, d_q)`` queries over ``(B, Tk, d_kv)``
    keys/values → ``(B, Tq, d_model)`` and the weights ``(B, h, Tq, Tk)``. ``key_mask (B, Tk)`` is True where a key
    may be attended; ``causal`` forbids query ``t`` to see keys after ``t``."""

    def __init__(self, d_q: int, d_kv: int, d_model: int, heads: int, dropout: float = 0.0):
        super().__init__()
        if d_model % heads:
            raise ReproducerError(f"The model width {d_model} must divide into {heads} heads.")
        self.heads, self.d_head = heads, d_model // heads
        self.q, self.k, self.v = nn.Linear(d_q, d_model), nn.Linear(d_kv, d_model), nn.Linear(d_kv, d_model)
        self.out = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query: torch.Tensor, keys: torch.Tensor, key_mask: torch.Tensor | None = None,
                causal: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        b, tq, tk = query.shape[0], query.shape[1], keys.shape[1]

        def split(x: torch.Tensor) -> torch.Tensor:  # (B, T, d_model) -> (B, h, T, d_head)
            return x.view(b, -1, self.heads, self.d_head).transpose(1, 2)

        q, k, v = split(self.q(query)), split(self.k(keys)), split(self.v(keys))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.d_head)
        allowed = torch.ones(b, 1, tq, tk, dtype=torch.bool, device=query.device)
        if key_mask is not None:
            allowed = allowed & key_mask[:, None, None, :]
        if causal:
            allowed = allowed & torch.ones(tq, tk, dtype=torch.bool, device=query.device).tril()
        weights = scores.masked_fill(~allowed, float("-inf")).softmax(dim=-1)
        mixed = (self.dropout(weights) @ v).transpose(1, 2).reshape(b, tq, -1)
        return self.out(mixed), weights


class FeedForward(nn.Module):
    """``max(0, x W1 + b1) W2 + b2`` (Eq. 10 and 19)."""

    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.inner, self.outer = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.outer(torch.relu(self.inner(x)))


@dataclass(frozen=True)
class AAEConfig:
    """Sizes of a mean-max AAE. Paper: ``d_w`` 300 (GloVe), ``d_m`` 2048, ``d_f`` 4096, 8 heads, ~21.6k output words."""

    vocab_size: int  # the output vocabulary (the decoder's softmax); the input reads every word with a vector
    word_dim: int = 300
    d_model: int = 2048
    d_ff: int = 4096
    heads: int = 8
    dropout: float = 0.0  # the authors' code: 0.5 on embeddings and attention weights
    positions: str = "sinusoidal"  # "sinusoidal" (the paper) | "learned" (the authors' code)
    max_len: int = 64  # rows of the position table
    pooling: tuple[str, ...] = ("max", "avg")  # mean-max; ("avg",) mean AAE/RAE; ("max",) max AAE/RAE (Table 3)
    family: str = "AAE"  # "AAE" (self-attention) | "RAE" (BiLSTM encoder, LSTM decoder, same pooling and attention)

    def __post_init__(self):
        if self.positions not in ("sinusoidal", "learned"):
            raise ReproducerError(f"Unknown positions {self.positions!r}; choose sinusoidal or learned.")
        if self.family not in ("AAE", "RAE"):
            raise ReproducerError(f"Unknown family {self.family!r}; choose AAE or RAE.")
        if not self.pooling or set(self.pooling) - {"max", "avg"}:
            raise ReproducerError(f"Pooling must be some of max and avg, got {self.pooling!r}.")
        if self.family == "RAE" and self.d_model % 2:
            raise ReproducerError(f"The RAE's BiLSTM splits d_model={self.d_model} over two directions: make it even.")

    def parameter_count(self) -> int:
        """The formulas of the module docstring (trainable parameters)."""
        w, m, f, v = self.word_dim, self.d_model, self.d_ff, self.vocab_size

        def attention(d_q: int, d_kv: int) -> int:
            return d_q * m + 2 * d_kv * m + m * m + 4 * m

        def lstm(d_in: int, h: int) -> int:  # PyTorch keeps two bias vectors
            return 4 * h * (d_in + h + 2)

        ffn, ln, output = 2 * m * f + f + m, 2 * m, m * v + v
        if self.family == "RAE":
            return 2 * lstm(w, m // 2) + lstm(w, m) + attention(m, m) + ln + output
        encoder = attention(w, w) + ffn + 2 * ln
        decoder = attention(w, w) + attention(m, m) + ffn + 3 * ln + output
        return encoder + decoder + (2 * self.max_len * w if self.positions == "learned" else 0)

    def to_dict(self) -> dict:
        return asdict(self)


class Inputs(nn.Module):
    """``x_t = e_t + p_t`` over fixed word vectors (Eq. 1), with dropout."""

    def __init__(self, embed: nn.Embedding, config: AAEConfig):
        super().__init__()
        self.embed, self.dropout = embed, nn.Dropout(config.dropout)
        if config.positions == "learned":
            self.positions = nn.Parameter(torch.randn(config.max_len, embed.embedding_dim) * 0.02)
        else:
            self.register_buffer("positions", sinusoidal_positions(config.max_len, embed.embedding_dim), persistent=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.embed(ids) + self.table(ids.shape[1]))

    def table(self, length: int) -> torch.Tensor:
        """``p_1 .. p_length``. Training sentences fit the table (``max_len``); a longer test sentence gets the
        sinusoid's further rows, or, with learned positions, the last learned row repeated."""
        table, extra = self.positions, length - len(self.positions)
        if extra <= 0:
            return table[:length]
        if isinstance(table, nn.Parameter):
            return torch.cat([table, table[-1:].expand(extra, -1)])
        return sinusoidal_positions(length, table.shape[1]).to(table)


def token_mask(ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """``(B, T)``: True at each sentence's own positions, False on padding."""
    return torch.arange(ids.shape[1], device=ids.device)[None, :] < lengths.to(ids.device)[:, None]


class _PooledEncoder(nn.Module):
    """What the AAE and RAE encoders share: ``forward`` pools ``states`` (Eq. 12-14); saved as its config and the
    size of its fixed word table."""

    def spec(self) -> dict:
        return {"config": {**self.config.to_dict(), "pooling": list(self.config.pooling)},
                "words": self.embed.num_embeddings}

    @classmethod
    def from_spec(cls, spec: dict):
        config = AAEConfig(**{**spec["config"], "pooling": tuple(spec["config"]["pooling"])})
        return cls(fixed_embedding(torch.zeros(spec["words"], config.word_dim)), config)

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return pool(self.states(ids, lengths), lengths, None, self.config.pooling)


@savable
class MeanMaxEncoder(_PooledEncoder):
    """Eq. 8-14: ``(ids (B, T), lengths (B,))`` → ``z = [z_max; z_mean]`` ``(B, 2 d_m)``; padding never counts."""

    def __init__(self, embed: nn.Embedding, config: AAEConfig):
        super().__init__()
        self.config, self.inputs = config, Inputs(embed, config)
        self.attention = MultiHeadAttention(config.word_dim, config.word_dim, config.d_model, config.heads, config.dropout)
        self.norm1, self.norm2 = nn.LayerNorm(config.d_model), nn.LayerNorm(config.d_model)
        self.ffn = FeedForward(config.d_model, config.d_ff)
        self.output_dim = len(config.pooling) * config.d_model

    @property
    def embed(self) -> nn.Embedding:
        return self.inputs.embed

    def states(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """``h_t`` of Eq. 11, ``(B, T, d_m)``."""
        x = self.inputs(ids)
        a, _ = self.attention(x, x, key_mask=token_mask(ids, lengths))
        a = self.norm1(a)  # Eq. 9: no residual
        return self.norm2(self.ffn(a) + a)


@savable
class LSTMEncoder(_PooledEncoder):
    """The RAE encoder (Table 3): a BiLSTM of ``d_m / 2`` per direction over the fixed word vectors, its states
    pooled as the AAE's."""

    def __init__(self, embed: nn.Embedding, config: AAEConfig):
        super().__init__()
        self.config, self.embed, self.dropout = config, embed, nn.Dropout(config.dropout)
        self.rnn = nn.LSTM(config.word_dim, config.d_model // 2, batch_first=True, bidirectional=True)
        self.output_dim = len(config.pooling) * config.d_model

    def states(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        packed = pack_padded_sequence(self.dropout(self.embed(ids)), lengths.cpu(), batch_first=True,
                                      enforce_sorted=False)
        out, _ = self.rnn(packed)
        return pad_packed_sequence(out, batch_first=True, total_length=ids.shape[1])[0]


@savable
class SentenceVector(nn.Module):
    """An autoencoder's encoder as a ``(ids, lengths) -> z`` module for
    :class:`~reproducer.encoders.trained.TokenEncoder`: appends ``</s>`` to every sentence (as in training), then
    pools; with ``normalize_halves`` each pooled part is scaled to unit length, as the authors' evaluation code."""

    def __init__(self, encoder: nn.Module, eos_id: int = 3, normalize_halves: bool = False):
        super().__init__()
        self.encoder, self.eos_id, self.normalize_halves = encoder, eos_id, normalize_halves
        self.parts = len(encoder.config.pooling)
        self.output_dim = encoder.output_dim

    @property
    def embed(self) -> nn.Embedding:
        return self.encoder.embed

    def spec(self) -> dict:
        return {"encoder": module_spec(self.encoder), "eos_id": self.eos_id, "normalize_halves": self.normalize_halves}

    @classmethod
    def from_spec(cls, spec: dict) -> "SentenceVector":
        return cls(build_module(spec["encoder"]), spec["eos_id"], spec["normalize_halves"])

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        ids = torch.cat([ids, torch.zeros_like(ids[:, :1])], dim=1)
        ids[torch.arange(len(ids), device=ids.device), lengths.to(ids.device)] = self.eos_id
        z = self.encoder(ids, lengths + 1)
        if self.normalize_halves:
            z = F.normalize(z.view(len(z), self.parts, -1), dim=-1).flatten(1)
        return z

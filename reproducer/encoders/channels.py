"""Trainable token-id encoders besides the GRU: word averaging, and several encoders side by side.

- :class:`AverageEncoder` — the mean of (trainable) word embeddings over a sentence's tokens: the
  bag-of-words Quick-Thoughts encoder (Logeswaran & Lee 2018, Appendix B) and Wieting et al.'s (2016)
  PARAGRAM-PHRASE word averaging.
- :class:`MultiChannelEncoder` — channels reading the same ids, vectors concatenated. MC-QT
  (Logeswaran & Lee 2018, section 4.1) has two bidirectional GRUs: one over **fixed** pre-trained vectors
  with a large vocabulary, one over embeddings trained from scratch with a small one. Both read ids of
  the large vocabulary, ordered so that the small vocabulary is its prefix (the corpus's most frequent
  words first); a channel with ``vocab_limit`` maps every id beyond it to ``<unk>``.

Every module here maps ``(ids (B, T), lengths (B,)) -> (B, output_dim)`` and has an ``embed`` layer,
so :class:`~reproducer.encoders.trained.TokenEncoder` can wrap it.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from reproducer.data.vocab import Vocabulary
from reproducer.encoders.bundles import build_module, module_spec, savable
from reproducer.encoders.recurrent import RecurrentConfig, RecurrentEncoder
from reproducer.errors import ReproducerError


@savable
class AverageEncoder(nn.Module):
    """Mean of the word embeddings of the non-padding tokens; ``output_dim`` = word dimension."""

    def __init__(self, vocab_size: int, word_dim: int):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, word_dim, padding_idx=0)
        nn.init.uniform_(self.embed.weight, -0.1, 0.1)
        with torch.no_grad():
            self.embed.weight[0].zero_()
        self.output_dim = word_dim

    def spec(self) -> dict:
        return {"vocab_size": self.embed.num_embeddings, "word_dim": self.output_dim}

    @classmethod
    def from_spec(cls, spec: dict) -> "AverageEncoder":
        return cls(spec["vocab_size"], spec["word_dim"])

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return self.embed(ids).sum(dim=1) / lengths.clamp(min=1).unsqueeze(1).to(self.embed.weight.dtype)


@savable
class LimitedVocabulary(nn.Module):
    """A channel that only knows the first ``limit`` ids: larger ids become ``<unk>``."""

    def __init__(self, inner: nn.Module, limit: int, unk_id: int = 1):
        super().__init__()
        self.inner, self.limit, self.unk_id = inner, limit, unk_id

    @property
    def output_dim(self) -> int:
        return self.inner.output_dim

    def spec(self) -> dict:
        return {"inner": module_spec(self.inner), "limit": self.limit, "unk_id": self.unk_id}

    @classmethod
    def from_spec(cls, spec: dict) -> "LimitedVocabulary":
        return cls(build_module(spec["inner"]), spec["limit"], spec["unk_id"])

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return self.inner(torch.where(ids < self.limit, ids, torch.full_like(ids, self.unk_id)), lengths)


@savable
class MultiChannelEncoder(nn.Module):
    """Channels over the same ids, outputs concatenated (MC-QT)."""

    def __init__(self, channels: list[nn.Module]):
        super().__init__()
        if not channels:
            raise ReproducerError("A multi-channel encoder needs at least one channel.")
        self.channels = nn.ModuleList(channels)
        self.output_dim = sum(c.output_dim for c in channels)

    def spec(self) -> dict:
        return {"channels": [module_spec(c) for c in self.channels]}

    @classmethod
    def from_spec(cls, spec: dict) -> "MultiChannelEncoder":
        return cls([build_module(c) for c in spec["channels"]])

    @property
    def embed(self) -> nn.Embedding:
        """The embedding of the channel with the largest vocabulary (what the ids index)."""
        return max((_embedding(c) for c in self.channels), key=lambda e: e.num_embeddings)

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return torch.cat([c(ids, lengths) for c in self.channels], dim=-1)


def _embedding(module: nn.Module) -> nn.Embedding:
    return _embedding(module.inner) if isinstance(module, LimitedVocabulary) else module.embed


def multichannel_gru(big_vocab: Vocabulary, vectors: np.ndarray, small_vocab_size: int, hidden: int,
                     word_dim: int) -> MultiChannelEncoder:
    """MC-QT's encoder: a bidirectional GRU over fixed ``vectors`` (one row per ``big_vocab`` id; rows of
    words without a vector are zero) and one over ``word_dim``-d embeddings of the first ``small_vocab_size``
    ids trained from scratch."""
    if vectors.shape[0] != len(big_vocab):
        raise ReproducerError(f"{vectors.shape[0]} pre-trained rows for a vocabulary of {len(big_vocab)}.")
    fixed = RecurrentEncoder(RecurrentConfig(len(big_vocab), vectors.shape[1], hidden, bidirectional=True))
    fixed.embed = nn.Embedding.from_pretrained(torch.as_tensor(vectors, dtype=torch.float32), freeze=True,
                                               padding_idx=0)
    tuned = RecurrentEncoder(RecurrentConfig(small_vocab_size, word_dim, hidden, bidirectional=True))
    return MultiChannelEncoder([fixed, LimitedVocabulary(tuned, small_vocab_size)])

"""The two views of consensus maximisation (Tang & de Sa 2019, sections 2-3 and Table 2) and their test-time use.

- **f**: a bidirectional GRU (:class:`~reproducer.encoders.recurrent.RecurrentEncoder`, ``d/2`` per direction)
  over **fixed** pre-trained word vectors; training uses its last hidden state.
- **g**: :class:`LinearView`, "average of projected word vectors" ``z^g = avg(W X)`` over the same fixed vectors.
- Pooling (Table 2), one function :func:`pool` over a view's per-word states ``H``: *unsupervised*
  ``z^f = avg(H)``, ``z^g = avg(WX)``; *supervised* ``z^f = [max; avg; min; last](H)``, ``z^g = [max; avg; min](WX)``.
- Post-processing (section 2.3, after Arora et al. 2017): the top principal component of the encoded set is
  removed (power iteration, :func:`top_component`) and each vector L2-normalised, per view. The ensemble of
  the views is their average (unsupervised) or concatenation (supervised).

At test time the principal component is that of the sentences encoded together — one evaluation task at a
time in :func:`~reproducer.evaluate.harness.evaluate`, as our SIF baseline.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from reproducer.encoders.recurrent import RecurrentConfig, RecurrentEncoder
from reproducer.encoders.trained import ConcatEncoder, TokenEncoder
from reproducer.errors import ReproducerError

PARTS = ("max", "avg", "min", "last")
POOLING = {  # Table 2, per view kind (training uses f's last state and g's average: each view's forward)
    "unsupervised": {"f": ("avg",), "g": ("avg",)},
    "supervised": {"f": ("max", "avg", "min", "last"), "g": ("max", "avg", "min")},
}
COMBINE = {"unsupervised": "mean", "supervised": "concat"}


def top_component(z: torch.Tensor, iterations: int = 20) -> torch.Tensor:
    """The unit vector ``u`` maximising ``‖z u‖`` — the first right singular vector of ``z`` (not centred, as
    Arora et al.'s common component) — by power iteration on ``zᵀz`` (von Mises & Pollaczek-Geiringer 1929).
    Starts from the mean row, which for uncentred sentence vectors is already close. No gradient flows through
    it: the component is a statistic of the batch, removed as a constant."""
    z = z.detach()
    u = z.mean(dim=0)
    if u.norm() < 1e-12:
        u = torch.ones_like(u)
    u = u / u.norm()
    for _ in range(iterations):
        v = z.T @ (z @ u)
        norm = v.norm()
        if norm < 1e-12:  # z is zero (or orthogonal to every start): nothing to remove
            break
        u = v / norm
    return u


def remove_top_component(z: torch.Tensor, iterations: int = 20) -> torch.Tensor:
    """``z − (z u) uᵀ`` with ``u`` = :func:`top_component` of ``z`` (Arora et al. 2017, Algorithm 1, line 5)."""
    u = top_component(z, iterations)
    return z - (z @ u).unsqueeze(1) * u


def pool(states: torch.Tensor, lengths: torch.Tensor, last: torch.Tensor | None, parts: tuple[str, ...]) -> torch.Tensor:
    """Concatenated global poolings over time of ``states (B, T, d)``: ``max``, ``avg``, ``min`` over each
    sentence's own positions (padding never counts) and ``last`` (the recurrent view's final state)."""
    mask = (torch.arange(states.shape[1], device=states.device)[None, :] < lengths.to(states.device)[:, None]).unsqueeze(-1)
    out = []
    for part in parts:
        if part == "avg":
            out.append((states * mask).sum(dim=1) / lengths.clamp(min=1).to(states)[:, None])
        elif part == "max":
            out.append(states.masked_fill(~mask, float("-inf")).amax(dim=1))
        elif part == "min":
            out.append(states.masked_fill(~mask, float("inf")).amin(dim=1))
        elif part == "last":
            if last is None:
                raise ReproducerError("'last' pooling needs a recurrent view (the linear view has no last state).")
            out.append(last)
        else:
            raise ReproducerError(f"Unknown pooling {part!r}; choose from {', '.join(PARTS)}.")
    return torch.cat(out, dim=-1)


def fixed_embedding(vectors: np.ndarray | torch.Tensor) -> nn.Embedding:
    """A frozen embedding table (row ``i`` = pre-trained vector of word ``i``; row 0 the zero padding)."""
    return nn.Embedding.from_pretrained(torch.as_tensor(vectors, dtype=torch.float32), freeze=True, padding_idx=0)


class LinearView(nn.Module):
    """g (section 2.1): ``avg(W X)`` — each word vector projected by ``W`` (``d × word_dim``, no bias), then
    averaged over the sentence. Its per-word states ``W x_t`` serve the supervised pooling."""

    def __init__(self, embed: nn.Embedding, dim: int):
        super().__init__()
        self.embed = embed
        self.proj = nn.Linear(embed.embedding_dim, dim, bias=False)
        nn.init.xavier_uniform_(self.proj.weight)
        self.output_dim = dim

    def states(self, ids: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, None]:
        return self.proj(self.embed(ids)), None

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return pool(self.states(ids, lengths)[0], lengths, None, ("avg",))


def recurrent_view(embed: nn.Embedding, dim: int) -> RecurrentEncoder:
    """f (section 2.1): a bidirectional GRU of ``dim / 2`` per direction (Xavier weights, as our Quick-Thoughts)
    reading the fixed ``embed``; ``forward`` gives the last hidden state of both directions (``dim``)."""
    if dim % 2:
        raise ReproducerError(f"The recurrent view is bidirectional: its size must be even, got {dim}.")
    f = RecurrentEncoder(RecurrentConfig(embed.num_embeddings, embed.embedding_dim, dim // 2, bidirectional=True,
                                         init="xavier"))
    f.embed = embed
    return f


def make_view(name: str, embed: nn.Embedding, dim: int) -> nn.Module:
    """The view called ``name``: its kind is the first letter, ``f`` (recurrent) or ``g`` (linear)."""
    kind = name[:1]
    if kind == "f":
        return recurrent_view(embed, dim)
    if kind == "g":
        return LinearView(embed, dim)
    raise ReproducerError(f"A view's name starts with f (recurrent) or g (linear), not {name!r}.")


class PooledView(nn.Module):
    """A view with a pooling rule: ``forward(ids, lengths)`` → the pooled parts (what :class:`TokenEncoder` wraps)."""

    def __init__(self, view: nn.Module, parts: tuple[str, ...]):
        super().__init__()
        self.view, self.parts = view, tuple(parts)
        self.output_dim = len(self.parts) * view.output_dim

    @property
    def embed(self) -> nn.Embedding:
        return self.view.embed

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        states, last = self.view.states(ids, lengths)
        return pool(states, lengths, last, self.parts)


class ViewEncoder:
    """One view as an encoder: ``encode(sentences)`` pools, removes the set's top principal component and
    L2-normalises (section 2.3). The full supervised pooling of every sentence is computed once and kept
    (``cache``), so the unsupervised rule — a slice of it — and ensembles re-use it."""

    def __init__(self, view: nn.Module, kind: str, vocab, name: str, rule: str = "unsupervised", *,
                 postprocess: bool = True, cache: dict | None = None, device=None):
        if rule not in ("unsupervised", "supervised"):
            raise ReproducerError(f"Unknown pooling rule {rule!r}; choose unsupervised or supervised.")
        all_parts = POOLING["supervised"][kind]
        d = view.output_dim
        self.columns = np.concatenate([np.arange(all_parts.index(p) * d, (all_parts.index(p) + 1) * d)
                                       for p in POOLING[rule][kind]])
        self.tokens = TokenEncoder(PooledView(view, all_parts), vocab, name, device=device)
        self.name, self.rule, self.postprocess = name, rule, postprocess
        self.cache = {} if cache is None else cache

    @property
    def dim(self) -> int:
        return len(self.columns)

    def encode(self, sentences: list[str], batch_size: int = 128, show_progress_bar: bool = False) -> np.ndarray:
        missing = list(dict.fromkeys(s for s in sentences if s not in self.cache))
        if missing:
            self.cache.update(zip(missing, self.tokens.encode(missing, batch_size, show_progress_bar)))
        x = np.stack([self.cache[s][self.columns] for s in sentences]) if sentences else np.zeros((0, self.dim), np.float32)
        if not self.postprocess:
            return x
        z = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
        if len(z) > 1:
            z = remove_top_component(z)
        return F.normalize(z, dim=1).numpy()


class EnsembleEncoder(ConcatEncoder):
    """The views' vectors averaged (``combine="mean"``: the unsupervised ensemble ``(ẑ^f + ẑ^g) / 2``) or
    concatenated (``"concat"``: the supervised one)."""

    def __init__(self, encoders: list, name: str, combine: str = "mean"):
        super().__init__(encoders, name)
        if combine not in ("mean", "concat"):
            raise ReproducerError(f"Unknown combination {combine!r}; choose mean or concat.")
        self.combine = combine

    def encode(self, sentences: list[str], batch_size: int = 128, show_progress_bar: bool = False) -> np.ndarray:
        if self.combine == "concat":
            return super().encode(sentences, batch_size, show_progress_bar)
        parts = [e.encode(sentences, batch_size, show_progress_bar) for e in self.encoders]
        if len({p.shape[1] for p in parts}) > 1:
            raise ReproducerError("Averaged views must have the same size.")
        return np.mean(parts, axis=0)

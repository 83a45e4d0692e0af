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

from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from reproducer.data.vocab import Vocabulary
from reproducer.encoders.bundles import (
    build_module,
    encoder_kind,
    module_spec,
    new_bundle,
    python_modules,
    savable,
    save_encoder,
)
from reproducer.encoders.inputs import check_sentences
from reproducer.encoders.layers import fixed_embedding, pool, remove_top_component
from reproducer.encoders.recurrent import RecurrentConfig, RecurrentEncoder
from reproducer.encoders.trained import ConcatEncoder, TokenEncoder
from reproducer.errors import ReproducerError
from reproducer.runtime import default_device

POOLING = {  # Table 2, per view kind (training uses f's last state and g's average: each view's forward)
    "unsupervised": {"f": ("avg",), "g": ("avg",)},
    "supervised": {"f": ("max", "avg", "min", "last"), "g": ("max", "avg", "min")},
}
COMBINE = {"unsupervised": "mean", "supervised": "concat"}


@savable
class LinearView(nn.Module):
    """g (section 2.1): ``avg(W X)`` — each word vector projected by ``W`` (``d × word_dim``, no bias), then
    averaged over the sentence. Its per-word states ``W x_t`` serve the supervised pooling."""

    def __init__(self, embed: nn.Embedding, dim: int):
        super().__init__()
        self.embed = embed
        self.proj = nn.Linear(embed.embedding_dim, dim, bias=False)
        nn.init.xavier_uniform_(self.proj.weight)
        self.output_dim = dim

    def spec(self) -> dict:
        return {"vocab_size": self.embed.num_embeddings, "word_dim": self.embed.embedding_dim, "dim": self.output_dim}

    @classmethod
    def from_spec(cls, spec: dict) -> "LinearView":
        return cls(fixed_embedding(torch.zeros(spec["vocab_size"], spec["word_dim"])), spec["dim"])

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
        sentences = check_sentences(sentences)
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
        sentences = check_sentences(sentences)
        if self.combine == "concat":
            return super().encode(sentences, batch_size, show_progress_bar)
        parts = [e.encode(sentences, batch_size, show_progress_bar) for e in self.encoders]
        if len({p.shape[1] for p in parts}) > 1:
            raise ReproducerError("Averaged views must have the same size.")
        return np.mean(parts, axis=0)


@encoder_kind
class ViewSet:
    """The trained views of a consensus model (name -> module; the kind is the name's first letter) and their
    vocabulary: what a consensus bundle saves. :meth:`encoders` gives each view's encoder and the ensemble under
    a pooling rule; loading a bundle picks one of them (``view``) under one rule (``pooling``)."""

    def __init__(self, views, vocab, name: str, *, device=None):
        self.views, self.vocab, self.name, self.device = nn.ModuleDict(dict(views)), vocab, name, device
        self._default = None

    def encode(self, sentences: list[str], batch_size: int = 128, show_progress_bar: bool = False) -> np.ndarray:
        """The unsupervised rule's ensemble of the views (the only view for a single-view variant)."""
        sentences = check_sentences(sentences)
        if self._default is None:
            self._default = self.unsupervised_encoder()
        return self._default.encode(sentences, batch_size, show_progress_bar)

    def unsupervised_encoder(self):
        """A new encoder of the unsupervised rule's ensemble (the only view for a single-view variant) with an empty
        vector cache. :meth:`encode` keeps one and its vectors; score views that are still training with a new one
        at each point."""
        encoders = self.encoders("unsupervised", prefix="")
        return encoders.get("ensemble") or next(iter(encoders.values()))

    def encoders(self, rule: str = "unsupervised", *, prefix: str | None = None, caches: dict | None = None,
                 device=None) -> dict:
        """One encoder per view plus ``"ensemble"`` (mean for the unsupervised rule, concatenation for the supervised
        one; section 3 and Table 2). Pass the same ``caches`` dict to the encoders of both rules to encode each
        sentence once."""
        prefix = f"{self.name}." if prefix is None else prefix
        caches = {} if caches is None else caches
        device = self.device if device is None else device
        out = {name: ViewEncoder(view, name[0], self.vocab, f"{prefix}{name}", rule, cache=caches.setdefault(name, {}),
                                 device=device)
               for name, view in self.views.items()}
        if len(out) > 1:
            out["ensemble"] = EnsembleEncoder(list(out.values()), f"{prefix}ensemble", COMBINE[rule])
        return out

    def to_bundle(self) -> dict:
        specs = {name: module_spec(view) for name, view in self.views.items()}
        return new_bundle(self, views=specs, modules=[m for s in specs.values() for m in python_modules(s)],
                          vocab=list(self.vocab.itos),
                          state_dict={k: t.cpu() for k, t in self.views.state_dict().items()})

    def save(self, path) -> Path:
        return save_encoder(self, path)

    @classmethod
    def from_bundle(cls, bundle: dict, device=None, *, view: str | None = None, pooling: str = "unsupervised"):
        """The encoder of one view (or ``"ensemble"``; by default the ensemble, or the only view of a single-view
        variant) under a pooling rule; ``view="all"``: the :class:`ViewSet` itself (every view, either rule)."""
        device = default_device(device)
        views = cls({name: build_module(spec) for name, spec in bundle["views"].items()},
                    Vocabulary(bundle["vocab"]), bundle["name"], device=device)
        views.views.load_state_dict(bundle["state_dict"])
        views.views.to(device)
        if view == "all":
            return views
        encoders = views.encoders(pooling)
        view = view or ("ensemble" if "ensemble" in encoders else next(iter(encoders)))
        if view not in encoders:
            raise ReproducerError(f"{bundle['name']} has the views {', '.join(encoders)}; not {view!r}.")
        return encoders[view]

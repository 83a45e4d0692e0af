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

from reproducer.encoders.multiview import COMBINE, EnsembleEncoder, ViewEncoder, fixed_embedding, make_view, \
    remove_top_component
from reproducer.errors import ReproducerError
from reproducer.objectives.quick_thought import context_loss, context_targets


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


def view_encoders(model: Consensus, vocab, rule: str = "unsupervised", *, prefix: str = "", caches: dict | None = None,
                  device=None) -> dict:
    """Test-time encoders of a trained model: one per view plus ``"ensemble"`` (mean for the unsupervised rule,
    concatenation for the supervised one; section 3 and Table 2). Pass the same ``caches`` dict to the encoders
    of both rules to encode each sentence once."""
    caches = {} if caches is None else caches
    out = {name: ViewEncoder(view, name[0], vocab, f"{prefix}{name}", rule, cache=caches.setdefault(name, {}),
                             device=device)
           for name, view in model.views.items()}
    if len(out) > 1:
        out["ensemble"] = EnsembleEncoder(list(out.values()), f"{prefix}ensemble", COMBINE[rule])
    return out


def fit_consensus(variant: str | Variant, preset, tokenized, vocab, vectors, *, checkpoint=None, evaluate=None,
                  seed: int = 0, device=None, progress: bool = True):
    """Train one variant on contiguous batches of a :class:`~reproducer.data.batches.TokenizedCorpus` (ids of
    ``vocab``, whose row ``i`` of ``vectors`` is word ``i``'s fixed vector) under a
    :class:`~reproducer.presets.ConsensusPreset`. ``evaluate(model, step)`` is called at the preset's evaluation
    points (in eval mode, without gradients). Returns the model and the training log."""
    from reproducer.data.batches import ContiguousSampler
    from reproducer.runtime import default_device, seed_everything
    from reproducer.train import TrainConfig, train

    variant = VARIANTS[variant] if isinstance(variant, str) and variant in VARIANTS else variant
    if not isinstance(variant, Variant):
        raise ReproducerError(f"Unknown consensus variant {variant!r}; choose one of {', '.join(VARIANTS)}.")
    if len(vectors) != len(vocab):
        raise ReproducerError(f"{len(vectors)} word vectors for a vocabulary of {len(vocab)} words.")
    seed_everything(seed)
    model = Consensus(variant, np.asarray(vectors), preset.dim, context=preset.context, temperature=preset.temperature,
                      remove_pc=preset.remove_pc, self_pairs=preset.self_pairs)
    device = default_device(device)
    model.to(device)
    sampler = ContiguousSampler(tokenized, preset.batch_size, max_len=preset.max_len, seed=seed)
    done = {"steps": 0}

    def batches(step: int):
        done["steps"] = step + 1  # evaluate() follows a finished step
        return sampler.batch(step)

    log = train(model, batches, TrainConfig.from_preset(preset, seed), checkpoint=checkpoint, device=device,
                progress=progress, desc=variant.name,
                evaluate=(lambda: evaluate(model, done["steps"])) if evaluate else None)
    return model, log


def save_consensus(model: Consensus, vocab, path, name: str) -> None:
    """An encoder bundle of a trained model (every view, the fixed vectors, the vocabulary), for
    :func:`~reproducer.encoders.trained.load_encoder` and ``python -m reproducer evaluate --encoder``."""
    from reproducer.io import atomic_path

    v = model.variant
    bundle = {"format": "reproducer-encoder/1", "kind": "Consensus", "name": name, "lowercase": True,
              "variant": {"name": v.name, "views": list(v.views), "terms": [list(t) for t in v.terms],
                          "description": v.description},
              "dim": next(iter(model.views.values())).output_dim, "context": model.context, "vocab": list(vocab.itos),
              "state_dict": {k: t.cpu() for k, t in model.state_dict().items()}}
    with atomic_path(path) as tmp:
        torch.save(bundle, tmp)


def consensus_from_bundle(bundle: dict, rule: str = "unsupervised", view: str = "ensemble", device=None):
    """The encoder of one view (or ``"ensemble"``) under a pooling rule, from a bundle of :func:`save_consensus`."""
    from reproducer.data.vocab import Vocabulary
    from reproducer.runtime import default_device

    spec = bundle["variant"]
    variant = Variant(spec["name"], tuple(spec["views"]), tuple(tuple(t) for t in spec["terms"]), spec["description"])
    table = next(t for k, t in bundle["state_dict"].items() if k.endswith("embed.weight"))
    model = Consensus(variant, torch.zeros_like(table), bundle["dim"], context=bundle["context"])
    model.load_state_dict(bundle["state_dict"])
    device = default_device(device)
    encoders = view_encoders(model.to(device), Vocabulary(bundle["vocab"]), rule, prefix=f"{bundle['name']}.",
                             device=device)
    if view not in encoders:
        raise ReproducerError(f"{bundle['name']} has the views {', '.join(encoders)}; not {view!r}.")
    return encoders[view]

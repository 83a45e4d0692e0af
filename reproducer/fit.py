"""One training contract for every model of the book: a paper supplies an :class:`Objective`, and :func:`fit` trains any
variant of it — the chapters, ``python -m reproducer train``, ``bench train`` and the GPU plan all go through it.

The objective says *what* is trained (the paper's presets and variants, its training data, how a variant's module and
test-time encoder are built, the step-indexed batches it reads, the useful FLOPs of a batch); :func:`fit` owns *how*:
the seed (set once, here, for every model of the book), the device, and the trainer of :mod:`reproducer.train`
(precision, step budget, checkpoint and exact resume, progress, the evaluation callback)::

    fitted = fit(QUICK_THOUGHTS, "uni-QT", preset, data, seed=1, checkpoint="uni-qt.train.pt")
    fitted.encoder.encode(["a sentence ."])
"""
from __future__ import annotations

import contextlib
import contextvars
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from reproducer.errors import ReproducerError
from reproducer.files import exclusive
from reproducer.runtime import default_device, seed_everything
from reproducer.train import Preset, TrainLog, restore_rng, rng_state, train


@dataclass(frozen=True)
class AtWidth:
    """One of a paper's models built at a given encoder width, for the throughput studies that compare papers at one
    width (:mod:`reproducer.papers.widths`: Logeswaran & Lee 2018, section 4.2; Zhang et al. 2018, section 4.4).
    ``build(vocab, hidden, word_dim)``: the module (its ``forward(batch)`` the loss); ``sampler(vocab, tokenized, size,
    seed, n_sampled)``: its step-indexed batches; ``batch``: the paper's batch size; ``softmax``: ``"in-batch"`` (it
    picks among the batch's sentences) or ``"vocabulary"`` (it predicts words: ``"sampled"`` when ``n_sampled`` is
    given and ``samples``, else ``"exact"``). Its functions are module-level: each measurement runs in a process of
    its own."""

    build: Callable[..., torch.nn.Module]
    sampler: Callable[..., Any]
    batch: int
    softmax: str = "vocabulary"
    samples: bool = False

    def softmax_kind(self, n_sampled: int) -> str:
        """``"in-batch"``, ``"sampled"`` or ``"exact"`` for a run with ``n_sampled`` sampled words."""
        if self.softmax == "in-batch":
            return "in-batch"
        return "sampled" if n_sampled and self.samples else "exact"


class Objective:
    """A paper's training objective, the one thing a paper implements to train through :func:`fit` (and so through
    every caller of it). Subclass it in the paper's ``objective.py`` and declare one instance; class attributes:

    - ``name``: the family's name in the registry (``"quick-thought"``);
    - ``presets``: scale name → :class:`~reproducer.train.Preset` subclass instance (``smoke``, ``quick``, ``default``,
      ``paper``); ``variants``: variant name → what it is;
    - ``fit_options``: keyword arguments of :meth:`build` its chapter trains with (e.g. the autoencoders'
      test-time ``normalize_halves``);
    - ``reads``: what its training data is made of, ``"books"`` (sentences of the corpus) or ``"pairs"`` (paraphrase
      pairs); ``inputs``: what it does with word vectors, ``"learned"`` (embeddings learned from the text),
      ``"fixed"`` (pre-trained vectors, never updated) or ``"initialised"`` (starting from pre-trained vectors). The
      tools build its data from these (the GPU pack), never from its name.

    - ``widths``: the paper's models for the throughput studies at one encoder width (name → :class:`AtWidth`,
      :mod:`reproducer.papers.widths`; none by default).

    Methods: :meth:`training_data`, :meth:`build`, :meth:`sampler`, :meth:`batch_flops` (required) and
    :meth:`held_out_data`, :meth:`label` (optional). The loss is the built module's ``forward(batch)``.
    """

    name: str = ""
    presets: dict[str, Preset] = {}
    variants: dict[str, Any] = {}
    fit_options: dict[str, Any] = {}
    reads: str = "books"
    inputs: str = "learned"
    widths: dict[str, "AtWidth"] = {}

    def training_data(self, variant, preset):
        """What ``variant`` trains on at ``preset``, built as its chapter builds it (a
        :class:`~reproducer.data.training_data.TrainingData`)."""
        raise NotImplementedError

    def build(self, variant, preset, data, *, device, seed: int, **options) -> tuple[torch.nn.Module, Any]:
        """``(module, encoder)`` of ``variant`` on ``device``: the module whose ``forward(batch)`` is the paper's loss,
        and the test-time encoder over its weights (``encode(sentences) -> (n, d)``). Called right after the seed is
        set: its initial weights are the seed's."""
        raise NotImplementedError

    def sampler(self, variant, preset, data, seed: int = 0, encoder=None):
        """The step-indexed batches ``variant`` trains on: an object whose ``batch(step)`` is a pure function of the
        step (:mod:`reproducer.data.batches`). ``encoder``: what :meth:`build` made, for an objective whose batches
        depend on it (the paraphrastic models' vocabulary)."""
        raise NotImplementedError

    def batch_flops(self, module, batch) -> float:
        """Useful training FLOPs of one batch (:mod:`reproducer.flops`)."""
        raise NotImplementedError

    def held_out_data(self, variant, preset, data):
        """The held-out books as ids of ``data``'s vocabulary: the held-out loss of a training curve."""
        raise ReproducerError(f"The {self.name} family has no held-out books; use a downstream dev score.")

    def label(self, variant) -> str:
        """The run's name in progress bars."""
        return str(getattr(variant, "name", variant))

    def check_variant(self, variant) -> None:
        """:class:`ReproducerError` naming the variants when ``variant`` is not one."""
        if isinstance(variant, str) and variant not in self.variants:
            raise ReproducerError(f"Unknown {self.name} variant {variant!r}; choose one of {', '.join(self.variants)}.")


@dataclass
class Fitted:
    """What :func:`fit` returns: the test-time ``encoder`` (``encode(sentences)``), the trained ``module`` (decoders,
    heads, temperature and all) and the training ``log``."""

    encoder: Any
    module: torch.nn.Module
    log: TrainLog | None = None
    batches: Callable[[int], Any] | None = None  # the step-indexed batches it trained on (benchmarks replay them)


_AT_INITIALISATION = contextvars.ContextVar("at_initialisation", default=False)


@contextlib.contextmanager
def at_initialisation():
    """Within this block :func:`fit` builds the model and test-time encoder exactly as for training (the same seed, so
    the same initial weights) and returns them before the first step, with a log of 0 steps: the untrained twin of a
    trained model (:mod:`reproducer.untrained_twins`). A step budget of 0 is refused everywhere else
    (:func:`~reproducer.train.check_settings`): outside this block it is a mistake, not a request."""
    token = _AT_INITIALISATION.set(True)
    try:
        yield
    finally:
        _AT_INITIALISATION.reset(token)


def _random_state() -> tuple:
    """Python's and NumPy's random-number states, and PyTorch's (:func:`~reproducer.train.rng_state`)."""
    return random.getstate(), np.random.get_state(), rng_state()


def _set_random_state(state: tuple) -> None:
    random.setstate(state[0])
    np.random.set_state(state[1])
    restore_rng(state[2])


def checkpoint_lock(checkpoint, label: str):
    """The lock of a run that trains into ``checkpoint`` (``<checkpoint>.lock``, :func:`~reproducer.files.exclusive`):
    a notebook and ``python -m reproducer train`` (which holds it around the bundle and log too) never train into one
    checkpoint at once.
    None without a checkpoint, and in the processes of a distributed run but the first (the first holds it)."""
    import torch.distributed as dist

    if checkpoint is None or (dist.is_available() and dist.is_initialized() and dist.get_rank() != 0):
        return contextlib.nullcontext()
    path = Path(checkpoint)
    return exclusive(path.with_name(path.name + ".lock"), f"training {label} into {path.parent}")


def _halfway(encoder, checkpoint, preset: Preset) -> dict:
    """The milestone that saves ``encoder`` at half ``preset``'s step budget, when the run has a checkpoint."""
    if checkpoint is None or encoder is None or not preset.max_steps or preset.max_steps < 2:
        return {}
    from reproducer.checkpoints import half_budget_bundle

    return {preset.max_steps // 2: lambda: encoder.save(half_budget_bundle(checkpoint))}


def fit(objective: Objective, variant, preset: Preset, data, *, checkpoint=None,
        evaluate: Callable[[Fitted, int], dict] | None = None, seed: int = 0, device=None, progress: bool = True,
        **options) -> Fitted:
    """Train ``variant`` of ``objective`` under ``preset`` on ``data`` (:meth:`Objective.training_data`) with ``seed``;
    resume from ``checkpoint`` when it exists (:func:`~reproducer.train.train`: the same run only, exactly as an
    uninterrupted one). ``evaluate(fitted, step)`` scores the test-time encoder (or the module) at the preset's
    evaluation points; ``options``: keyword arguments of :meth:`Objective.build`.

    The seed is set here, once per model, and nowhere else in the library: the initial weights are drawn from it, and
    the training steps (dropout, sampled negatives) start again from the same seeded state — what the book's models
    were trained with, so a retrain gives its numbers.

    A run with a ``checkpoint`` and a step budget also keeps its encoder as it was at half the budget
    (:func:`~reproducer.checkpoints.half_budget_bundle`, beside the checkpoint): a claim can then be read at two
    budgets of one run."""
    objective.check_variant(variant)
    device = default_device(device)
    seed_everything(seed)
    seeded = _random_state()
    module, encoder = objective.build(variant, preset, data, device=device, seed=seed, **options)
    batches = objective.sampler(variant, preset, data, seed, encoder=encoder).batch
    fitted = Fitted(encoder, module, batches=batches)
    if _AT_INITIALISATION.get():  # the weights as built: no step, no checkpoint, no evaluation
        fitted.log = TrainLog()
    else:
        _set_random_state(seeded)
        with checkpoint_lock(checkpoint, objective.label(variant)):
            fitted.log = train(module, batches, preset.train_config(seed), checkpoint=checkpoint, device=device,
                               progress=progress, desc=objective.label(variant), settings=preset.identity(),
                               evaluate=(lambda step: evaluate(fitted, step)) if evaluate else None,
                               milestones=_halfway(encoder, checkpoint, preset))
    fitted.log.parameters = sum(p.numel() for p in module.parameters() if p.requires_grad)
    return fitted

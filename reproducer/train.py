"""The training contract of every model of the book: one preset base class (:class:`Preset`), one trainer and one
result type (:class:`Fitted`). The trainer: Adam (or AdaGrad), gradient-norm clipping, a step and/or time budget,
checkpoints with exact resume, and periodic evaluation logged as (seconds, step, scores).

The model is any ``nn.Module`` whose ``forward(batch)`` returns the scalar loss; ``batches(step)`` must
be a pure function of the step (see :mod:`reproducer.data.batches`), so that resuming from a checkpoint
replays exactly the batches an uninterrupted run would have seen. The clock counts training time only
(evaluation and checkpointing are excluded), which is what training-time curves plot.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable

import torch
from tqdm.auto import tqdm

from reproducer.errors import ReproducerError
from reproducer.io import atomic_path
from reproducer.runtime import default_device, inference, keep_freed_memory, seed_everything


OPTIMIZERS = {"adam": torch.optim.Adam, "adagrad": torch.optim.Adagrad}


@dataclass(frozen=True)
class TrainConfig:
    """Optimiser and budget. Training stops at ``max_steps`` or ``max_seconds``, whichever comes first."""

    lr: float = 1e-3
    clip: float = 10.0  # gradient-norm clipping (Kiros et al.: 10)
    optimizer: str = "adam"  # "adam" | "adagrad" (Wieting et al. 2016 tune both)
    max_steps: int | None = None
    max_seconds: float | None = None
    log_every: int = 10  # steps between loss records
    eval_every: float | None = None  # training seconds between evaluations (None: only at the end)
    eval_steps: int | None = None  # or steps between evaluations (runs of different speeds compared step by step)
    checkpoint_every: int = 200  # steps between checkpoints
    seed: int = 0

    def __post_init__(self):
        if self.max_steps is None and self.max_seconds is None:
            raise ReproducerError("Give a budget: max_steps and/or max_seconds.")
        if self.optimizer not in OPTIMIZERS:
            raise ReproducerError(f"Unknown optimizer {self.optimizer!r}; choose one of {', '.join(OPTIMIZERS)}.")


@dataclass(frozen=True, kw_only=True)
class Preset:
    """Optimiser, budget and evaluation of one training run. Training stops at ``max_steps`` or ``max_seconds``,
    whichever comes first; the training curve is evaluated every ``eval_every`` training seconds or every
    ``eval_steps`` steps; the chapter's tables use the ``eval_config`` protocol."""

    name: str  # the scale: smoke | default | paper
    lr: float = 1e-3
    clip: float = 10.0  # gradient-norm clipping
    optimizer: str = "adam"  # "adam" | "adagrad"
    max_seconds: float | None = None
    max_steps: int | None = None
    eval_every: float | None = None  # training seconds between the curve's evaluations
    eval_steps: int | None = None  # or steps between them (runs of different speeds compared step by step)
    eval_config: str = "prototype"  # evaluation protocol of the tables: prototype | sklearn | paper

    def to_dict(self) -> dict:
        return asdict(self)

    def train_config(self, seed: int = 0) -> TrainConfig:
        """The :class:`TrainConfig` of these optimiser and budget fields."""
        return TrainConfig(lr=self.lr, clip=self.clip, optimizer=self.optimizer, max_steps=self.max_steps,
                           max_seconds=self.max_seconds, eval_every=self.eval_every, eval_steps=self.eval_steps,
                           seed=seed)

    def with_overrides(self, **overrides) -> "Preset":
        """A copy with some fields replaced; ``None`` values are ignored, unknown fields raise."""
        unknown = set(overrides) - {f.name for f in fields(self)}
        if unknown:
            raise ReproducerError(f"Unknown {type(self).__name__} settings {sorted(unknown)}.")
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


@dataclass
class TrainLog:
    """What a run recorded: loss records and evaluation records, each with ``step`` and ``seconds``."""

    losses: list[dict] = field(default_factory=list)
    evals: list[dict] = field(default_factory=list)
    step: int = 0
    seconds: float = 0.0
    examples: int = 0

    @property
    def examples_per_second(self) -> float:
        return self.examples / self.seconds if self.seconds else float("nan")

    def to_dict(self) -> dict:
        return asdict(self)


def _save(path: Path, model, optimizer, log: TrainLog, config: TrainConfig) -> None:
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "log": log.to_dict(),
             "config": asdict(config)}
    with atomic_path(path) as tmp:
        torch.save(state, tmp)


def train(model: torch.nn.Module, batches: Callable[[int], Any], config: TrainConfig, *,
          checkpoint: str | Path | None = None, evaluate: Callable[[int], dict[str, float]] | None = None,
          device=None, progress: bool = True, desc: str = "train") -> TrainLog:
    """Train ``model`` on ``batches(step)`` under ``config``; resume from ``checkpoint`` when it exists.

    ``evaluate(step)`` (called with the model in eval mode, after ``step`` finished steps) returns scores logged with
    the step and the training seconds so far, every ``eval_every`` seconds or ``eval_steps`` steps, and at the end.
    """
    device = default_device(device)
    seed_everything(config.seed)
    keep_freed_memory()  # CPU training frees and reallocates the same big buffers every step
    model.to(device)
    optimizer = OPTIMIZERS[config.optimizer](model.parameters(), lr=config.lr)
    log = TrainLog()
    path = Path(checkpoint) if checkpoint else None
    if path and path.is_file():
        state = torch.load(path, map_location=device, weights_only=True)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        log = TrainLog(**state["log"])
    next_eval = (log.evals[-1]["seconds"] + config.eval_every) if (config.eval_every and log.evals) else config.eval_every

    def done() -> bool:
        return ((config.max_steps is not None and log.step >= config.max_steps)
                or (config.max_seconds is not None and log.seconds >= config.max_seconds))

    def run_eval() -> None:
        if evaluate is None:
            return
        with inference(model):
            scores = evaluate(log.step)
        log.evals.append({"step": log.step, "seconds": log.seconds, **scores})

    bar = tqdm(total=config.max_steps, initial=log.step, desc=desc, unit="step", disable=not progress)
    model.train()
    while not done():
        t0 = time.perf_counter()
        batch = batches(log.step)
        batch = batch.to(device) if hasattr(batch, "to") else batch
        loss = model(batch)
        if not torch.isfinite(loss):
            raise ReproducerError(f"The loss is {loss.item()} at step {log.step}: lower the learning rate "
                                  f"(now {config.lr}) or check the batch.")
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip)
        optimizer.step()
        log.seconds += time.perf_counter() - t0
        log.step += 1
        log.examples += len(batch)
        if log.step % config.log_every == 0 or log.step == 1:
            log.losses.append({"step": log.step, "seconds": log.seconds, "loss": loss.item()})
            bar.set_postfix(loss=f"{loss.item():.3f}", rate=f"{log.examples_per_second:.0f}/s")
        bar.update(1)
        if next_eval is not None and log.seconds >= next_eval:
            run_eval()
            next_eval += config.eval_every
        elif config.eval_steps and log.step % config.eval_steps == 0:
            run_eval()
        if path and log.step % config.checkpoint_every == 0:
            _save(path, model, optimizer, log, config)
    bar.close()
    if evaluate is not None and (not log.evals or log.evals[-1]["step"] != log.step):
        run_eval()
    if path:
        _save(path, model, optimizer, log, config)
    return log


@dataclass
class TrainingData:
    """What a family trains on; each family reads the fields it needs (see :mod:`reproducer.models`).

    ``tokenized``: a :class:`~reproducer.data.batches.TokenizedCorpus` of ids of ``vocab``; ``vectors``: fixed word
    vectors, row ``i`` for word ``i`` of ``vocab`` (consensus, autoencoders), or the
    :class:`~reproducer.data.vectors.WordVectors` that initialise a paraphrastic model; ``pairs``: paraphrase pairs;
    ``pretrained``: MC-QT's ``(big vocabulary, rows)`` with ``tokenized`` as ids of the big vocabulary."""

    tokenized: Any = None
    vocab: Any = None
    vectors: Any = None
    pairs: Any = None
    pretrained: Any = None


@dataclass
class Fitted:
    """What every family's ``fit`` returns: the test-time ``encoder`` (``encode(sentences)``), the trained ``module``
    (decoders, heads, temperature and all) and the training ``log``."""

    encoder: Any
    module: torch.nn.Module
    log: TrainLog | None = None
    batches: Callable[[int], Any] | None = None  # the step-indexed batches it trained on (benchmarks replay them)


def fit_module(module: torch.nn.Module, encoder, batches: Callable[[int], Any], preset, *, name: str,
               checkpoint=None, evaluate: Callable[[Fitted, int], dict] | None = None, seed: int = 0, device=None,
               progress: bool = True) -> Fitted:
    """The training contract of every family: ``module`` (whose ``forward(batch)`` is the paper's loss) trained on
    ``batches`` under a :class:`~reproducer.presets.Preset`; ``evaluate(fitted, step)`` scores the test-time
    ``encoder`` (or the module) at the preset's evaluation points. ``module`` and ``encoder`` are already on
    ``device``."""
    fitted = Fitted(encoder, module, batches=batches)
    fitted.log = train(module, batches, preset.train_config(seed), checkpoint=checkpoint, device=device,
                       progress=progress, desc=name,
                       evaluate=(lambda step: evaluate(fitted, step)) if evaluate else None)
    return fitted

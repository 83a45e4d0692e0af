"""The training contract of every model of the book: one preset base class (:class:`Preset`), one trainer and one
result type (:class:`Fitted`). The trainer: Adam (or AdaGrad), gradient-norm clipping, a step and/or time budget,
checkpoints with exact resume, and periodic evaluation logged as (seconds, step, scores).

The model is any ``nn.Module`` whose ``forward(batch)`` returns the scalar loss; ``batches(step)`` must
be a pure function of the step (see :mod:`reproducer.data.batches`), so that resuming from a checkpoint
replays exactly the batches an uninterrupted run would have seen. The clock counts training time only
(evaluation and checkpointing are excluded), which is what training-time curves plot.
"""
from __future__ import annotations

import contextlib
import math
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
PRECISIONS = ("auto", "fp32", "bf16", "fp16")


@dataclass(frozen=True)
class TrainConfig:
    """Optimiser and budget. Training stops at ``max_steps`` or ``max_seconds``, whichever comes first."""

    lr: float = 1e-3
    clip: float = 10.0  # gradient-norm clipping (Kiros et al.: 10)
    optimizer: str = "adam"  # "adam" | "adagrad" (Wieting et al. 2016 tune both)
    max_steps: int | None = None
    max_seconds: float | None = None
    log_every: int = 10  # steps between loss records (and checks that the loss is finite)
    eval_every: float | None = None  # training seconds between evaluations (None: only at the end)
    eval_steps: int | None = None  # or steps between evaluations (runs of different speeds compared step by step)
    checkpoint_every: int = 200  # steps between checkpoints
    seed: int = 0
    precision: str = "auto"  # auto: bf16 autocast on a CUDA GPU that has it, else fp16 + GradScaler; fp32 on a CPU
    compile: bool = False  # torch.compile the model (worth it for long GPU runs)

    def __post_init__(self):
        if self.max_steps is None and self.max_seconds is None:
            raise ReproducerError("Give a budget: max_steps and/or max_seconds.")
        if self.optimizer not in OPTIMIZERS:
            raise ReproducerError(f"Unknown optimizer {self.optimizer!r}; choose one of {', '.join(OPTIMIZERS)}.")
        if self.precision not in PRECISIONS:
            raise ReproducerError(f"Unknown precision {self.precision!r}; choose one of {', '.join(PRECISIONS)}.")


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
    precision: str = "auto"  # see TrainConfig: mixed precision on a GPU, fp32 on a CPU
    compile: bool = False

    def to_dict(self) -> dict:
        return asdict(self)

    def train_config(self, seed: int = 0) -> TrainConfig:
        """The :class:`TrainConfig` of these optimiser and budget fields."""
        return TrainConfig(lr=self.lr, clip=self.clip, optimizer=self.optimizer, max_steps=self.max_steps,
                           max_seconds=self.max_seconds, eval_every=self.eval_every, eval_steps=self.eval_steps,
                           seed=seed, precision=self.precision, compile=self.compile)

    def with_overrides(self, **overrides) -> "Preset":
        """A copy with some fields replaced; ``None`` values are ignored, unknown fields raise."""
        unknown = set(overrides) - {f.name for f in fields(self)}
        if unknown:
            raise ReproducerError(f"Unknown {type(self).__name__} settings {sorted(unknown)}.")
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


@dataclass
class TrainLog:
    """What a run recorded: loss records and evaluation records, each with ``step`` and ``seconds``. ``step`` counts
    optimiser steps; ``batches`` the batches of the step-indexed stream consumed (``world size ×`` steps under
    ``torchrun``), which is where a resumed run continues, with any number of processes."""

    losses: list[dict] = field(default_factory=list)
    evals: list[dict] = field(default_factory=list)
    step: int = 0
    seconds: float = 0.0
    examples: int = 0
    batches: int | None = None  # None in checkpoints from before multi-process training: equal to step

    def __post_init__(self):
        if self.batches is None:
            self.batches = self.step

    @property
    def examples_per_second(self) -> float:
        return self.examples / self.seconds if self.seconds else float("nan")

    def to_dict(self) -> dict:
        return asdict(self)


def resolve_precision(precision: str, device) -> str:
    """``auto`` → ``bf16`` on a CUDA device that supports it, ``fp16`` on another CUDA device, ``fp32`` elsewhere;
    any other value as given."""
    if precision != "auto":
        return precision
    if device.type != "cuda":
        return "fp32"
    return "bf16" if torch.cuda.is_bf16_supported() else "fp16"


def world() -> tuple[int, int]:
    """``(rank, world size)`` of this process under ``torch.distributed`` (``torchrun``), ``(0, 1)`` otherwise."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def _save(path: Path, model, optimizer, log: TrainLog, config: TrainConfig, scaler=None) -> None:
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "log": log.to_dict(),
             "config": asdict(config)}
    if scaler is not None:
        state["scaler"] = scaler.state_dict()
    with atomic_path(path) as tmp:
        torch.save(state, tmp)


class _Prefetch:
    """Builds the batch of the next step in a background thread while the current step computes (the batches are
    pure functions of their index, so the order of building does not matter)."""

    def __init__(self, batches: Callable[[int], Any], pin: bool):
        from concurrent.futures import ThreadPoolExecutor

        self.batches, self.pin = batches, pin
        self.pool, self.next = ThreadPoolExecutor(max_workers=1, thread_name_prefix="batches"), (None, None)

    def _build(self, index: int):
        batch = self.batches(index)
        return batch.pin_memory() if self.pin and hasattr(batch, "pin_memory") else batch

    def get(self, index: int, ahead: int):
        """Batch ``index`` (built ahead when the previous call asked for it); start building batch ``ahead``."""
        built, future = self.next
        ready = future.result() if future else None  # never two builds at once: samplers cache their epoch
        batch = ready if built == index else self._build(index)
        self.next = (ahead, self.pool.submit(self._build, ahead))
        return batch

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def train(model: torch.nn.Module, batches: Callable[[int], Any], config: TrainConfig, *,
          checkpoint: str | Path | None = None, evaluate: Callable[[int], dict[str, float]] | None = None,
          device=None, progress: bool = True, desc: str = "train") -> TrainLog:
    """Train ``model`` on ``batches(index)`` under ``config``; resume from ``checkpoint`` when it exists.

    ``evaluate(step)`` (called with the model in eval mode, after ``step`` finished steps) returns scores logged with
    the step and the training seconds so far, every ``eval_every`` seconds or ``eval_steps`` steps, and at the end.

    The engine: the next batch is built in a background thread while a step computes; the loss is read back (a host
    synchronisation) only every ``log_every`` steps, where its finiteness is checked (and before every checkpoint);
    ``precision`` sets autocast (bf16, or fp16 with a gradient scaler) and ``compile`` wraps the model in
    ``torch.compile``. Under ``torchrun`` (``torch.distributed`` initialised) the model is wrapped in
    ``DistributedDataParallel``: rank ``r`` of ``N`` trains on batch ``b + r`` of the stream where ``b`` counts the
    batches consumed so far (``N`` per step), so the ``N`` ranks together see exactly the single-process stream, and
    the averaged gradient is that of the mean of their losses; rank 0 evaluates and writes the checkpoint, which
    resumes with any number of processes.
    """
    device = default_device(device)
    rank, size = world()
    seed_everything(config.seed)
    keep_freed_memory()  # CPU training frees and reallocates the same big buffers every step
    model.to(device)
    optimizer = OPTIMIZERS[config.optimizer](model.parameters(), lr=config.lr)
    precision = resolve_precision(config.precision, device)
    scaler = torch.amp.GradScaler(device.type) if precision == "fp16" else None
    log = TrainLog()
    path = Path(checkpoint) if checkpoint else None
    if path and path.is_file():
        state = torch.load(path, map_location=device, weights_only=True)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        log = TrainLog(**state["log"])
        if scaler is not None and "scaler" in state:
            scaler.load_state_dict(state["scaler"])
    forward = model
    if size > 1:
        from torch.nn.parallel import DistributedDataParallel

        forward = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)
    if config.compile:
        forward = torch.compile(forward)
    autocast = (torch.autocast(device.type, dtype=torch.bfloat16 if precision == "bf16" else torch.float16)
                if precision in ("bf16", "fp16") else contextlib.nullcontext())
    next_eval = (log.evals[-1]["seconds"] + config.eval_every) if (config.eval_every and log.evals) else config.eval_every

    def done() -> bool:
        return ((config.max_steps is not None and log.step >= config.max_steps)
                or (config.max_seconds is not None and log.seconds >= config.max_seconds))

    timed = size > 1 and (config.max_seconds is not None or config.eval_every is not None)

    def agreed(seconds: float) -> float:
        """Rank 0's clock on every rank, so that time budgets and evaluation points are the same for all (a broadcast
        per step, only when a budget or an evaluation point is in seconds)."""
        if not timed:
            return seconds
        import torch.distributed as dist

        clock = torch.tensor([seconds], dtype=torch.float64, device=device if device.type == "cuda" else "cpu")
        dist.broadcast(clock, src=0)
        return float(clock.item())

    def check(loss: torch.Tensor) -> float:
        value = loss.item()
        if not math.isfinite(value):
            raise ReproducerError(f"The loss is {value} at step {log.step}: lower the learning rate (now {config.lr}) "
                                  f"or check the batch.")
        return value

    def run_eval() -> None:
        if evaluate is not None and rank == 0:
            with inference(model):
                scores = evaluate(log.step)
            log.evals.append({"step": log.step, "seconds": log.seconds, **scores})
        if size > 1:
            import torch.distributed as dist

            dist.barrier()

    def save() -> None:
        if path and rank == 0:
            check(loss)
            _save(path, model, optimizer, log, config, scaler)

    prefetch = _Prefetch(batches, pin=device.type == "cuda")
    bar = tqdm(total=config.max_steps, initial=log.step, desc=desc, unit="step", disable=not progress or rank != 0)
    model.train()
    loss = torch.zeros(())
    try:
        while not done():
            t0 = time.perf_counter()
            batch = prefetch.get(log.batches + rank, ahead=log.batches + size + rank)
            batch = batch.to(device, non_blocking=True) if hasattr(batch, "to") else batch
            with autocast:
                loss = forward(batch)
            optimizer.zero_grad(set_to_none=True)
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
            else:
                loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip)
            if scaler is not None:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()
            log.step += 1
            log.batches += size
            log.examples += len(batch) * size
            record = log.step % config.log_every == 0 or log.step == 1
            value = check(loss) if record else None  # waits for the step to finish: the clock stays honest
            log.seconds = agreed(log.seconds + time.perf_counter() - t0)
            if record:
                log.losses.append({"step": log.step, "seconds": log.seconds, "loss": value})
                bar.set_postfix(loss=f"{value:.3f}", rate=f"{log.examples_per_second:.0f}/s")
            bar.update(1)
            if next_eval is not None and log.seconds >= next_eval:
                run_eval()
                next_eval += config.eval_every
            elif config.eval_steps and log.step % config.eval_steps == 0:
                run_eval()
            if log.step % config.checkpoint_every == 0:
                save()
    finally:
        prefetch.close()
        bar.close()
    if evaluate is not None and (not log.evals or log.evals[-1]["step"] != log.step):
        run_eval()
    save()
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

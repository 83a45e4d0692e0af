"""The trainer of every model of the book: one preset base class (:class:`Preset`), one training configuration
(:class:`TrainConfig`) and one trainer (:func:`train`), under the one training contract of :mod:`reproducer.fit`
(which sets the seed: the trainer draws from the random state it is given). The trainer: Adam (or AdaGrad),
gradient-norm clipping, a step and/or time budget, checkpoints with exact resume, and periodic evaluation logged as
(seconds, step, scores).

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

from reproducer import checkpoints
from reproducer.errors import ReproducerError
from reproducer.log import progress_bar
from reproducer.row_adagrad import RowAdagrad
from reproducer.runtime import default_device, inference, keep_freed_memory

#: Adam, and AdaGrad updating only the rows a batch touched (bit for bit torch's AdaGrad: :mod:`reproducer.row_adagrad`)
OPTIMIZERS = {"adam": torch.optim.Adam, "adagrad": RowAdagrad}
PRECISIONS = ("auto", "fp32", "bf16", "fp16")


def optimizer_options(name: str, device: torch.device) -> dict:
    """How the optimiser runs on ``device`` (its arithmetic, not its settings). On a GPU, Adam's fused kernel: one
    kernel updates every parameter, where the default (foreach) launches several per group of tensors — the small
    steps of the paper-size objectives were bound by launches, not arithmetic (the 2026-11-27 slice: 2-5% of the bf16
    rate). The fused update is the same Adam up to float rounding (``tests/test_train.py`` compares them on the CPU);
    on a CPU the default stays, so the book's CPU runs train as they always did."""
    return {"fused": True} if name == "adam" and device.type == "cuda" else {}
EVAL_CONFIGS = ("prototype", "sklearn", "fast", "paper", "smoke")  # the protocols of reproducer.evaluate
CHOICES = {"optimizer": tuple(OPTIMIZERS), "precision": PRECISIONS, "eval_config": EVAL_CONFIGS,
           "rows_eval_config": ("", *EVAL_CONFIGS)}
POSITIVE = {"lr", "clip", "max_seconds", "eval_every", "checkpoint_seconds", "temperature"}  # floats above 0
ZERO_ALLOWED = {"seed", "bucket", "n_sampled"}  # integers that may be 0 (every other integer counts something: >= 1)
BELOW_ONE = {"dropout", "label_smoothing"}  # probabilities
DIVERGENCE = 10.0  # a loss this many times above its level (see train) stops the run
WEIGHT_GROWTH = 1e4  # so do weights grown this many times beyond their largest value when the run started (or 1)
_KIND_NAMES = {int: "an integer", float: "a number", bool: "True or False", str: "a string"}


def check_settings(settings) -> None:
    """Check every field of a settings dataclass against its annotation (``int``, ``float``, ``bool``, ``str``, each
    optionally ``| None``) and its range: integers at least 1 (0 for :data:`ZERO_ALLOWED`), floats finite and at least
    0 (above 0 for :data:`POSITIVE`, below 1 for :data:`BELOW_ONE`), the strings of :data:`CHOICES` among their
    choices. One :class:`ReproducerError` lists every problem, naming the field, what it must be and the value."""
    import typing

    hints = typing.get_type_hints(type(settings))
    problems = []
    for f in fields(settings):
        value, hint = getattr(settings, f.name), hints[f.name]
        kinds = [k for k in typing.get_args(hint) if k is not type(None)] or [hint]
        if value is None:
            if type(None) not in typing.get_args(hint):
                problems.append(f"{f.name} must be given (got None)")
            continue
        kind = kinds[0]
        typed = (isinstance(value, bool) if kind is bool else
                 isinstance(value, int) and not isinstance(value, bool) if kind is int else
                 isinstance(value, (int, float)) and not isinstance(value, bool) if kind is float else
                 isinstance(value, kind))
        if not typed:
            problems.append(f"{f.name} must be {_KIND_NAMES[kind]}, got {value!r}")
        elif kind in (int, float) and not math.isfinite(value):
            problems.append(f"{f.name} must be finite, got {value!r}")
        elif kind is int and value < (0 if f.name in ZERO_ALLOWED else 1):
            problems.append(f"{f.name} must be at least {0 if f.name in ZERO_ALLOWED else 1}, got {value!r}")
        elif kind is float and (value <= 0 if f.name in POSITIVE else value < 0):
            problems.append(f"{f.name} must be {'above' if f.name in POSITIVE else 'at least'} 0, got {value!r}")
        elif kind is float and f.name in BELOW_ONE and value >= 1:
            problems.append(f"{f.name} must be below 1, got {value!r}")
        elif f.name in CHOICES and value not in CHOICES[f.name]:
            problems.append(f"{f.name} must be one of {', '.join(CHOICES[f.name])}, got {value!r}")
    if problems:
        raise ReproducerError(f"Invalid {type(settings).__name__}: " + "; ".join(problems) + ".")


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
    checkpoint_seconds: float = 300.0  # and wall-clock seconds between them (a killed run loses at most this much)
    seed: int = 0
    precision: str = "auto"  # auto: bf16 autocast on a CUDA GPU that has it, else fp16 + GradScaler; fp32 on a CPU
    compile: bool = False  # torch.compile the model (worth it for long GPU runs)

    def __post_init__(self):
        if self.max_steps is None and self.max_seconds is None:
            raise ReproducerError("Give a budget: max_steps and/or max_seconds.")
        check_settings(self)


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
    eval_config: str = "prototype"  # evaluation protocol of the tables: prototype | sklearn | fast | paper | smoke
    precision: str = "auto"  # see TrainConfig: mixed precision on a GPU, fp32 on a CPU
    compile: bool = False

    def __post_init__(self):
        check_settings(self)

    def to_dict(self) -> dict:
        return asdict(self)

    def identity(self) -> dict:
        """The fields that decide what a training run is (sizes, data, loss, optimiser): all but the name, the
        budget and the evaluation schedule. A checkpoint resumes only under the same identity."""
        schedule = {"name", "max_seconds", "max_steps", "eval_every", "eval_steps", "eval_config", "compile"}
        return {k: v for k, v in self.to_dict().items() if k not in schedule and not k.endswith("eval_config")}

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
    parameters: int | None = None  # the model's trainable parameters (set by fit_module)

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


def _save(path: Path, model, optimizer, log: TrainLog, config: TrainConfig, identity: dict, scaler=None) -> None:
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "log": log.to_dict(),
             "config": asdict(config), "identity": identity, "rng": rng_state()}
    if scaler is not None:
        state["scaler"] = scaler.state_dict()
    checkpoints.save(state, path)


def rng_state() -> dict:
    """PyTorch's random-number state (CPU and every GPU): what dropout draws next. Batches need none (they are pure
    functions of the step), but a model with dropout resumes exactly only from the state its checkpoint was written
    in."""
    return {"torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []}


def restore_rng(state: dict | None) -> None:
    """Put back a :func:`rng_state` (a checkpoint from before it was saved has none: nothing to restore)."""
    if not state:
        return
    torch.set_rng_state(state["torch"].cpu())
    if state["cuda"] and torch.cuda.is_available() and len(state["cuda"]) == torch.cuda.device_count():
        torch.cuda.set_rng_state_all([s.cpu() for s in state["cuda"]])


def _fingerprint(batch) -> str:
    """SHA-256 of a batch's contents (tensors, numbers and strings inside dataclasses, dicts and sequences): the data a
    run trains on, recognised by its first batch."""
    import dataclasses
    import hashlib

    digest = hashlib.sha256()

    def feed(obj) -> None:
        if isinstance(obj, torch.Tensor):
            digest.update(f"{obj.dtype}{tuple(obj.shape)}".encode())
            digest.update(obj.detach().cpu().contiguous().numpy().tobytes())
        elif dataclasses.is_dataclass(obj):
            for f in dataclasses.fields(obj):
                feed(getattr(obj, f.name))
        elif isinstance(obj, dict):
            for key in sorted(obj, key=str):
                feed(key), feed(obj[key])
        elif isinstance(obj, (list, tuple)):
            for item in obj:
                feed(item)
        else:
            digest.update(repr(obj).encode())

    feed(batch)
    return digest.hexdigest()


def run_identity(model: torch.nn.Module, config: TrainConfig, first_batch, settings: dict | None = None) -> dict:
    """What a training run is, stored in its checkpoint: the optimiser settings of ``config`` (lr, clip, optimiser,
    seed, precision), the caller's ``settings`` (a preset's :meth:`Preset.identity`: sizes, data, loss), the shape of
    every parameter and a fingerprint of the first batch (the data)."""
    return {"config": {k: getattr(config, k) for k in ("lr", "clip", "optimizer", "seed", "precision")},
            "settings": dict(settings or {}),
            "shapes": {name: list(t.shape) for name, t in model.state_dict().items()},
            "data": _fingerprint(first_batch)}


def _differences(old: dict, new: dict) -> list[str]:
    """``name: old → new`` for every entry of two nested identities that differs."""
    lines = []
    for section in ("config", "settings", "shapes"):
        before, now = old.get(section, {}), new.get(section, {})
        for key in sorted(set(before) | set(now), key=str):
            if before.get(key) != now.get(key):
                lines.append(f"{key}: {before.get(key, '(absent)')} → {now.get(key, '(absent)')}")
    if old.get("data") != new.get("data"):
        lines.append("data: the first batch differs (another corpus, vocabulary, batch size or seed)")
    return lines


def _check_resume(path: Path, state: dict, identity: dict, config: TrainConfig) -> None:
    """Refuse to resume ``state`` (read from ``path``) under another identity, or under a smaller budget than the
    checkpoint has already trained past; extending the budget is allowed."""
    fix = f"Delete {path} to train from scratch with the new settings, or restore the old ones."
    if isinstance(state, dict) and str(state.get("format", "")).startswith("reproducer-encoder"):
        raise ReproducerError(f"{path} is an encoder bundle (what a trained model's save() writes), not a training "
                              "checkpoint: give the run's .train.pt file, or another --out.")
    missing = [k for k in ("model", "optimizer", "log", "config") if not isinstance(state, dict) or k not in state]
    if missing:
        raise ReproducerError(f"{path} is not a training checkpoint of reproducer (it has no {', '.join(missing)}). "
                              f"Delete it to train from scratch.")
    if "identity" in state:
        differences = _differences(state["identity"], identity)
        if differences:
            raise ReproducerError(f"{path} was trained with other settings, so it cannot be resumed with these:\n  "
                                  + "\n  ".join(differences) + f"\n{fix}")
    old, log = state["config"], state["log"]
    for budget, position in (("max_steps", log["step"]), ("max_seconds", log["seconds"])):
        new = getattr(config, budget)
        if new is not None and (old.get(budget) is None or new < old[budget]) and position > new:
            raise ReproducerError(f"{path} has already trained {position:g} {budget[4:]}, past the new {budget}={new:g}: "
                                  f"resuming would return the longer-trained model. Delete it to train with the smaller "
                                  f"budget, or give a budget of at least {position:g}.")


def _largest_weight(model: torch.nn.Module) -> float:
    """The largest absolute value among ``model``'s parameters (``inf`` when one is not finite)."""
    with torch.no_grad():
        return max((float(p.detach().abs().max()) for p in model.parameters() if p.numel()), default=0.0)


class Diverged(ReproducerError):
    """Training stopped because its loss is not finite or far above its level."""


class _LossWatch:
    """The loss records of a run, and the divergence test: a loss that is not finite, or more than
    :data:`DIVERGENCE` times the larger of its first record (the loss at initialisation) and the median of the last ten
    records."""

    def __init__(self, records: list[dict]):
        self.values = [r["loss"] for r in records]

    def problem(self, value: float) -> str | None:
        if not math.isfinite(value):
            return f"the loss is {value}"
        if self.values:
            recent = sorted(self.values[-10:])
            level = max(abs(self.values[0]), abs(recent[len(recent) // 2]))
            if level > 0 and abs(value) > DIVERGENCE * level:
                return f"the loss is {value:.4g}, more than {DIVERGENCE:g}× its level ({level:.4g})"
        return None

    def add(self, value: float) -> None:
        self.values.append(value)


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
          device=None, progress: bool = True, desc: str = "train", settings: dict | None = None,
          milestones: dict[int, Callable[[], None]] | None = None) -> TrainLog:
    """Train ``model`` on ``batches(index)`` under ``config``; resume from ``checkpoint`` when it exists.

    Checkpoints you can trust: a checkpoint (weights, optimiser, log and PyTorch's random-number state, so dropout
    resumes exactly too) is written every ``checkpoint_every`` steps and every
    ``checkpoint_seconds`` of wall-clock time, with a digest verified when it is read (:mod:`reproducer.checkpoints`).
    It resumes only the same run: the same ``settings`` (e.g. a preset's :meth:`Preset.identity`), optimiser
    settings, parameter shapes and data (the first batch's fingerprint) — a difference is refused with a message
    naming each one; a larger budget is allowed, a smaller one than already trained is refused. Divergence stops
    the run with :class:`Diverged` before anything is saved: a loss that is not finite, or more than
    :data:`DIVERGENCE` times its level, at a loss record or a checkpoint, or weights at a checkpoint that are not
    finite or have grown :data:`WEIGHT_GROWTH` times beyond their scale when the run started.

    ``evaluate(step)`` (called with the model in eval mode, after ``step`` finished steps) returns scores logged with
    the step and the training seconds so far, every ``eval_every`` seconds or ``eval_steps`` steps, and at the end.
    ``milestones``: ``{step: callback}``, each called (on rank 0) once that many steps are finished, before the next
    one — e.g. to keep the encoder at half the budget; it must not touch the weights or the random state. A run resumed
    from a checkpoint past a milestone does not call it again.

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
    keep_freed_memory()  # CPU training frees and reallocates the same big buffers every step
    model.to(device)
    optimizer = OPTIMIZERS[config.optimizer](model.parameters(), lr=config.lr, **optimizer_options(config.optimizer,
                                                                                                   device))
    precision = resolve_precision(config.precision, device)
    scaler = torch.amp.GradScaler(device.type) if precision == "fp16" else None
    log, loaded = TrainLog(), None
    path = Path(checkpoint) if checkpoint else None
    identity = run_identity(model, config, batches(0), settings) if path else None  # only a checkpoint needs it
    if path and path.is_file():
        state = checkpoints.load(path, what="training checkpoint", fix="Delete it to train from scratch.",
                                 map_location=device)
        _check_resume(path, state, identity, config)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        log = TrainLog(**state["log"])
        loaded = log.to_dict()  # a deep copy: the log's lists grow as it trains
        if scaler is not None and "scaler" in state:
            scaler.load_state_dict(state["scaler"])
        restore_rng(state.get("rng"))  # dropout continues where the checkpointed run was
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

    watch, saved = _LossWatch(log.losses), {"step": log.step if path and path.is_file() else None,
                                            "time": time.monotonic()}
    scale = max(_largest_weight(model), 1.0)

    def check(loss: torch.Tensor, weights: bool = False) -> float:
        """The loss's value, or :class:`Diverged` (nothing is saved after it); with ``weights``, the weights too."""
        value = loss.item()
        trouble = watch.problem(value)
        largest = _largest_weight(model) if weights and not trouble else 0.0
        if not math.isfinite(largest) or largest > WEIGHT_GROWTH * scale:
            trouble = (f"the weights have grown to {largest:.3g}, more than {WEIGHT_GROWTH:g}× their scale when the run "
                       f"started ({scale:.3g})")
        if trouble:
            kept = (f"The checkpoint {path} keeps step {saved['step']}, written before; resuming it repeats the same "
                    f"steps with the same learning rate, so delete it and"
                    if saved["step"] is not None else "No checkpoint was written:")
            raise Diverged(f"Training diverged at step {log.step}: {trouble}. {kept} train again with a lower learning "
                           f"rate (now {config.lr}) or a tighter gradient clip (now {config.clip}).")
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
            check(loss, weights=True)
            _save(path, model, optimizer, log, config, identity, scaler)
            saved.update(step=log.step, time=time.monotonic())

    prefetch = _Prefetch(batches, pin=device.type == "cuda")
    bar = progress_bar(total=config.max_steps, initial=log.step, desc=desc, unit="step",
                       disable=not progress or rank != 0)
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
                watch.add(value)
                log.losses.append({"step": log.step, "seconds": log.seconds, "loss": value})
                bar.set_postfix(loss=f"{value:.3f}", rate=f"{log.examples_per_second:.0f}/s")
            bar.update(1)
            if milestones and log.step in milestones and rank == 0:
                milestones[log.step]()
            if next_eval is not None and log.seconds >= next_eval:
                run_eval()
                next_eval += config.eval_every
            elif config.eval_steps and log.step % config.eval_steps == 0:
                run_eval()
            if (log.step % config.checkpoint_every == 0
                    or time.monotonic() - saved["time"] >= config.checkpoint_seconds):
                save()
    finally:
        prefetch.close()
        bar.close()
    if evaluate is not None and (not log.evals or log.evals[-1]["step"] != log.step):
        run_eval()
    if log.to_dict() != loaded:  # a finished checkpoint resumed with nothing to add stays as it is (its identity too)
        save()
    return log

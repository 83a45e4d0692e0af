"""Training one model of the book outside its notebook: ``python -m reproducer train MODEL --preset P``.

The run writes what the chapter's notebook would (:meth:`reproducer.results_store.NotebookRun.model`): the training
checkpoint ``<out>/checkpoints/<slug>.train.pt`` and the encoder bundle ``<out>/checkpoints/<slug>.encoder.pt``, where
``<out>`` is ``results/<chapter>/<preset>/`` unless given (``<preset>+seed=K/`` for a seed K other than 0, the folder of
the notebook executed with ``-p seed K``); beside them ``<slug>.log.json``, the training log. Re-run, it resumes from
the checkpoint (to a larger budget, or after an interruption; other settings are refused); the notebook, executed
afterwards at the same preset, seed and budget, finds the finished checkpoint and trains nothing. So a long run is started in the background
with this command and picked up by the book::

    nohup python -m reproducer train uni-QT --preset default --seconds 3600 &
    torchrun --nproc-per-node 2 -m reproducer train mean-max\\ AAE --preset paper     # several processes or GPUs

The training curve of a chapter is its evaluation callback; ``eval_tasks`` gives the common one (downstream scores of
the test-time encoder at the preset's evaluation points).
"""
from __future__ import annotations

import dataclasses
import os
import time
import warnings
from pathlib import Path

from reproducer.errors import ReproducerError, ReproducerWarning
from reproducer.files import check_writable, write_json
from reproducer.papers.registry import family, model
from reproducer.results_store import RunSpec, model_files
from reproducer.papers.registry import preset as preset_of
from reproducer.runtime import default_device
from reproducer.train import world


def _distributed(device: str | None):
    """Join the ``torchrun`` process group when this process is one of several (``WORLD_SIZE`` > 1): gloo on a CPU,
    NCCL on GPUs (one per local rank). Returns the device of this process."""
    import torch
    import torch.distributed as dist


    if int(os.environ.get("WORLD_SIZE", "1")) <= 1 or dist.is_initialized():
        return default_device(device)
    chosen = default_device(device)
    if chosen.type == "cuda":
        chosen = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(chosen)
    dist.init_process_group(backend="nccl" if chosen.type == "cuda" else "gloo")
    return chosen


def _budget(settings) -> str:
    """A preset's budget in words: ``11.0 hours`` and/or ``3,650 steps``."""
    parts = ([f"{settings.max_seconds / 3600:,.1f} hours"] if settings.max_seconds else []) + \
            ([f"{settings.max_steps:,} steps"] if settings.max_steps else [])
    return " or ".join(parts)


def train_model(name: str, preset: str = "default", *, seconds: float | None = None, steps: int | None = None,
                seed: int = 0, out: str | Path | None = None, eval_tasks: list[str] | None = None,
                device: str | None = None, progress: bool = True, **overrides) -> dict:
    """Train model ``name`` of :mod:`reproducer.papers.registry` at ``preset`` (``seconds`` or ``steps`` replace its budget;
    ``overrides``: other preset fields, e.g. ``precision="bf16"``) on its chapter's data; write checkpoint, log and
    bundle under ``out``; return a summary (paths, steps, seconds, final loss)."""
    entry = model(name)
    if entry.family == "baseline" or entry.parts:
        what = "a baseline (nothing to train)" if entry.family == "baseline" else f"a combination of {entry.parts}"
        raise ReproducerError(f"{name} is {what}: train {' and '.join(entry.parts) or 'another model'} instead.")
    fam = family(entry.family)
    settings = entry.budgeted(preset_of(fam.name, preset, **overrides))  # the model's budget, as its chapter's
    if seconds is not None or steps is not None:  # a budget given replaces the preset's whole budget
        settings = dataclasses.replace(settings, max_seconds=seconds, max_steps=steps)
    device = _distributed(device)
    rank, size = world()
    if seconds is not None and rank == 0:
        warnings.warn(f"{name}: a budget of {seconds:g} seconds is not reproducible — how many steps fit in it depends "
                      f"on the machine and its load, so this run is not the preset's model (give --steps for one that "
                      f"is).", ReproducerWarning, stacklevel=2)
    files = model_files(Path(out) if out else RunSpec(fam.chapter, preset, seed).folder, name)  # the notebook's
    for what, path in files.items():  # before the training, not at its end
        check_writable(path, f"{what} file")
    files["train"].parent.mkdir(parents=True, exist_ok=True)
    if settings.name == "paper" and device.type == "cpu" and rank == 0:
        warnings.warn(f"{name} at the paper preset on a CPU: its budget is {_budget(settings)} at the paper's sizes, "
                      "meant for a GPU (README: Running the paper presets on a GPU; `python -m reproducer bench epoch "
                      "--preset paper` gives the hours per epoch here). Give --seconds or --steps to bound it.",
                      ReproducerWarning, stacklevel=2)
    evaluate = None
    if eval_tasks:
        from reproducer.evaluate.training_curve import curve_scores

        evaluate = curve_scores(eval_tasks, settings.eval_config)
    t0 = time.perf_counter()
    from reproducer.fit import checkpoint_lock

    with checkpoint_lock(files["train"], name):  # two runs on one --out would overwrite checkpoint, bundle and log
        fitted = fam.fit(entry.variant, settings, fam.training_data(entry.variant, settings), checkpoint=files["train"],
                         evaluate=evaluate, seed=seed, device=device, progress=progress and rank == 0)
        summary = {"model": name, "family": fam.name, "preset": settings.to_dict(), "seed": seed, "processes": size,
                   "steps": fitted.log.step, "batches": fitted.log.batches, "training_seconds": fitted.log.seconds,
                   "wall_seconds": time.perf_counter() - t0, "examples": fitted.log.examples,
                   "final_loss": fitted.log.losses[-1]["loss"] if fitted.log.losses else None,
                   "checkpoint": str(files["train"]), "bundle": str(files["encoder"]), "log": str(files["log"]),
                   "device": str(device)}
        if rank == 0:
            fitted.encoder.save(summary["bundle"])
            write_json(summary["log"], {**summary, "log": fitted.log.to_dict()})
    return summary

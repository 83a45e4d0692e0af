"""Training-throughput benchmarks: every objective at a preset (``bench train``: sentences/s, GFLOP/s, % of the
machine's sgemm peak, padding, memory), the FLOPs of an epoch (``bench epoch``) and the objectives of chapters 02 and
05 at one width (``bench widths``: :mod:`reproducer.papers.widths`). A tool: it sits above the papers, and nothing
of the library imports it.

    python -m reproducer bench train --objectives quick-thought,skip-thought --preset default --seconds 30
    python -m reproducer bench widths --objectives quick_thought,skip_thought --hidden 600 --seconds 60 --json out.json
    python -m reproducer bench widths --objectives aae,rae,skip_thought --batch-size 64 --hidden 256 --vocab 10000
"""
from __future__ import annotations

import dataclasses
import math
import re
import time

import numpy as np

from reproducer.errors import ReproducerError
from reproducer.papers.registry import DECLARATIONS
from reproducer.runtime import one_process_each, peak_rss

# ---- every objective family at a preset: how much of the machine a training second uses ----

def family_objectives() -> dict[str, tuple[str, str]]:
    """The objectives of ``bench train``: name → (family, variant) of :mod:`reproducer.papers.registry`, every paper's ``bench``
    declaration in chapter order (read when called: a paper registered later is benched too)."""
    return {name: line for paper in DECLARATIONS.values() for name, line in paper.bench.items()}


#: Operators and kernels that are matrix products (what "% of peak" counts): aten's and the BLAS/cuBLAS/CUTLASS kernels.
MATMUL = re.compile(r"(^aten::(mm|addmm|bmm|baddbmm|matmul|linear|_?addmm_activation)$)|gemm|gemv|cutlass|matmul|"
                    r"_mm_|xmma|ampere_|sm90_|sm80_", re.IGNORECASE)


def _profile(module, batches, steps: int, device, first_step: int, top: int = 8) -> dict:
    """``steps`` forward + backward passes under ``torch.profiler``, where the time goes: the ``top`` operators (a CPU)
    or kernels (a GPU) by self time (name, milliseconds per step, share), the share of that time in matrix products
    (:data:`MATMUL`), and on a GPU the share of wall time the device sat idle (the step bound by the host: Python,
    dispatch, synchronisation). What the GPU plan's summary prints for each objective."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    cuda = device.type == "cuda"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    module.train()
    if cuda:
        torch.cuda.synchronize(device)
    t0 = time.perf_counter()
    with profile(activities=activities) as prof:
        for step in range(first_step, first_step + steps):
            batch = batches(step).to(device)
            module.zero_grad(set_to_none=True)
            module(batch).backward()
        if cuda:
            torch.cuda.synchronize(device)
    wall = time.perf_counter() - t0
    if cuda:  # the kernels, by their device time
        events = [(e.key, e.self_device_time_total) for e in prof.key_averages() if e.self_device_time_total > 0]
    else:
        events = [(e.key, e.self_cpu_time_total) for e in prof.key_averages() if e.self_cpu_time_total > 0]
    busy = sum(t for _, t in events) or 1.0  # microseconds
    events.sort(key=lambda e: e[1], reverse=True)
    return {"steps": steps, "wall_ms_per_step": 1000 * wall / steps, "time": "device" if cuda else "cpu",
            "matmul_share": sum(t for name, t in events if MATMUL.search(name)) / busy,
            "idle_share": max(0.0, 1 - busy / 1e6 / wall) if cuda else None,
            "top": [{"op": name, "ms_per_step": t / 1000 / steps, "share": t / busy} for name, t in events[:top]]}


def _steady_rate(log) -> float | None:
    """Sentences per second after start-up: between the loss record at step 10 (the first steps carry CUDA's and the
    allocator's warm-up, cuDNN's algorithm search, ``torch.compile``) and the last record; ``None`` with too few."""
    records = [r for r in log.losses if r["step"] >= 10]
    if len(records) < 2 or records[-1]["seconds"] <= records[0]["seconds"]:
        return None
    per_step = log.examples / max(log.step, 1)
    return per_step * (records[-1]["step"] - records[0]["step"]) / (records[-1]["seconds"] - records[0]["seconds"])


def measure_objective(objective: str, preset_name: str, seconds: float, seed: int = 0, device: str | None = None,
                      profile_steps: int = 0, overrides: dict | None = None, data_of=None, peak: float | None = None,
                      peak_dtype: str = "float32", replay_steps: int = 200) -> dict:
    """Train ``objective`` (a key of :func:`family_objectives`) at ``preset_name`` for ``seconds`` in this process and
    measure it (see :func:`bench_train`). ``data_of(family, variant, settings)`` builds its training data
    (default: its chapter's, :meth:`~reproducer.declarations.Family.training_data`; the GPU run passes its pack's);
    ``peak``: the FLOP/s that "% of peak" divides by (default: :func:`~reproducer.flops.sgemm_peak` measured now, of
    ``peak_dtype``). The useful FLOPs are counted over the batches it trained on, or over ``replay_steps`` of them
    spread evenly when it made more steps (then scaled)."""
    import torch

    from reproducer.flops import sgemm_peak
    from reproducer.papers.registry import family
    from reproducer.papers.registry import preset as preset_of
    from reproducer.runtime import default_device

    family_name, variant = family_objectives()[objective]
    fam = family(family_name)
    settings = preset_of(family_name, preset_name)
    known = {f.name for f in dataclasses.fields(settings)}
    settings = settings.with_overrides(**{k: v for k, v in (overrides or {}).items() if k in known},
                                       max_seconds=seconds, max_steps=10**9)
    settings = dataclasses.replace(settings, eval_every=None, eval_steps=None)  # no evaluation: training time only
    device = default_device(device)
    t0 = time.perf_counter()
    data = (data_of or (lambda f, v, s: fam.training_data(v, s)))(family_name, variant, settings)
    data_seconds = time.perf_counter() - t0
    peak = peak or sgemm_peak(device=device, dtype=peak_dtype)
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
    fitted = fam.fit(variant, settings, data, seed=seed, device=device, progress=False)
    log = fitted.log
    memory = torch.cuda.max_memory_allocated(device) if device.type == "cuda" else peak_rss()
    flops = padded = real = 0
    replayed = sorted({int(s) for s in np.linspace(0, log.step - 1, min(log.step, replay_steps))})
    for step in replayed:  # the step-indexed batches it trained on
        batch = fitted.batches(step)
        flops += fam.batch_flops(fitted.module, batch)
        p, r = batch.token_counts()
        padded, real = padded + p, real + r
    scale = log.step / max(len(replayed), 1)
    flops, real = flops * scale, real * scale
    steady = _steady_rate(log)
    record = {"objective": objective, "family": family_name, "variant": variant, "preset": preset_name,
              "batch_size": getattr(settings, "batch_size", None), "steps": log.step,
              "training_seconds": log.seconds, "data_seconds": data_seconds,
              "sentences_per_second": log.examples_per_second, "steady_sentences_per_second": steady,
              "tokens_per_second": real / log.seconds,
              "gflops_per_second": flops / log.seconds / 1e9, "peak_gflops_per_second": peak / 1e9,
              "peak_dtype": peak_dtype, "percent_of_peak": 100 * flops / log.seconds / peak,
              "padding_waste": padded / max(real / scale, 1),
              "flops_per_step": flops / max(log.step, 1), "peak_memory_bytes": int(memory),
              "memory_kind": "cuda max allocated" if device.type == "cuda" else "process max RSS",
              "parameters": sum(p.numel() for p in fitted.module.parameters() if p.requires_grad),
              "final_loss": log.losses[-1]["loss"] if log.losses else None, "device": str(device),
              "precision": settings.precision, "threads": torch.get_num_threads()}
    if profile_steps:
        record["profile"] = _profile(fitted.module, fitted.batches, profile_steps, device, log.step)
    del fitted
    return record


def bench_train(objectives=None, *, preset: str = "default", seconds: float = 30, seed: int = 0,
                device: str | None = None, profile_steps: int = 0, **overrides) -> dict:
    """Train each objective of :func:`family_objectives` (all: ``None``) at ``preset`` (its model sizes and batch size,
    on the real training data of its chapter) for ``seconds`` of training time, each in a fresh process, one after
    the other.
    Per objective: sentences (pairs) per second, useful GFLOP/s (``batch_flops`` of its objective module, real
    tokens only), that as a percentage of this machine's sgemm rate measured in the same process
    (:func:`~reproducer.flops.sgemm_peak`), padding waste (padded ÷ real token positions), peak memory; with
    ``profile_steps`` the top operators of that many more steps. ``overrides``: preset fields for every objective
    (e.g. ``max_books=50``)."""
    known = family_objectives()
    runs = one_process_each(measure_objective, tuple(known) if objectives is None else objectives, known, preset,
                            seconds, seed, device, profile_steps, overrides)
    return {"settings": {"preset": preset, "seconds": seconds, "seed": seed, "profile_steps": profile_steps,
                         **overrides}, "runs": runs}


def bench_table(runs: list[dict]):
    """The measurements of :func:`bench_train` as a table (a ``pandas.DataFrame``), one row per objective."""
    import pandas as pd

    return pd.DataFrame([{"objective": r["objective"], "model": r["variant"], "batch": r["batch_size"],
                          "steps": r["steps"], "sentences/s": round(r["sentences_per_second"], 1),
                          "GFLOP/s": round(r["gflops_per_second"], 1),
                          "% of peak": round(r["percent_of_peak"], 1),
                          "padding": round(r["padding_waste"], 2),
                          "peak memory (MiB)": round(r["peak_memory_bytes"] / 2**20),
                          "sgemm peak (GFLOP/s)": round(r["peak_gflops_per_second"], 1)} for r in runs])


def epoch_cost(objectives=None, *, preset: str = "paper", samples: int = 20, seed: int = 0,
               gpu_flops: float = 100e12, cpu_flops: float | None = None) -> list[dict]:
    """The useful training FLOPs of one epoch of our data at ``preset``'s sizes (``batch_flops`` averaged over
    ``samples`` batches of the epoch, times its batches), and the hours that takes at a sustained ``gpu_flops`` (an
    assumption: 100 TFLOP/s is about a third of an H100's dense bf16 rate) and at ``cpu_flops`` (default: the
    sgemm rate measured here). Builds each model and trains it one step (the smallest budget a preset accepts)."""
    import numpy as np

    from reproducer.flops import sgemm_peak
    from reproducer.papers.registry import family
    from reproducer.papers.registry import preset as preset_of

    known = family_objectives()
    objectives = tuple(known) if objectives is None else objectives
    unknown = [o for o in objectives if o not in known]
    if unknown or not objectives:
        raise ReproducerError(f"Unknown objectives {unknown}; choose from {', '.join(known)}.")
    if not (gpu_flops > 0 and math.isfinite(gpu_flops)):
        raise ReproducerError(f"gpu_flops must be a finite rate above 0, got {gpu_flops!r}.")
    cpu_flops = cpu_flops or sgemm_peak()
    rows = []
    for objective in objectives:
        family_name, variant = known[objective]
        fam = family(family_name)
        settings = dataclasses.replace(preset_of(family_name, preset), max_steps=1, max_seconds=None)
        fitted = fam.fit(variant, settings, fam.training_data(variant, settings), seed=seed, device="cpu",
                         progress=False)
        steps = fitted.batches.__self__.steps_per_epoch
        picks = np.random.default_rng(seed).choice(steps, size=min(samples, steps), replace=False)
        per_batch = float(np.mean([fam.batch_flops(fitted.module, fitted.batches(int(s))) for s in picks]))
        flops = per_batch * steps
        rows.append({"objective": objective, "model": variant, "preset": preset, "batches_per_epoch": steps,
                     "tflop_per_epoch": flops / 1e12, "gpu_hours_per_epoch": flops / gpu_flops / 3600,
                     "gpu_flops_assumed": gpu_flops, "cpu_hours_per_epoch_at_sgemm_peak": flops / cpu_flops / 3600,
                     "parameters": sum(p.numel() for p in fitted.module.parameters() if p.requires_grad)})
        del fitted
    return rows

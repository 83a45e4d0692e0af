"""Training-throughput benchmark: objectives of the same width trained for the same time, one after the other.

Logeswaran & Lee (2018, section 4.2, Figure 2) compare Quick-Thoughts with skip-thought at equal encoder
size: QT needs no decoder and no softmax over the vocabulary, so it processes more sentences per second.
Zhang et al. (2018, section 4.4) compare minutes per 1000 batches of the mean-max AAE with skip-thought.
``bench_widths`` measures both on this machine: each objective trains for ``seconds`` of training time, in its own
process (so each peak memory is its own), one after the other (never two at once), on the same corpus and
vocabulary. Widths: the GRU encoders (QT, skip-thought) have ``hidden`` units, skip-thought's decoders too; the
mean-max AAE has ``d_m = hidden``, ``d_f = 2 hidden``, 8 heads; the mean-max RAE a BiLSTM of ``hidden / 2`` per
direction and an LSTM decoder of ``hidden``. Skip-thought and the autoencoders predict the same ``vocab_size`` words
(exact softmax unless ``n_sampled``); the autoencoders read fixed random vectors of ``word_dim`` (their values do not
change the cost). Batch sizes are each paper's (QT 400, skip-thought 128, AAE/RAE 64) unless ``batch_size``.

    python -m reproducer bench train --objectives quick_thought,skip_thought --hidden 600 --seconds 60 --json out.json
    python -m reproducer bench train --objectives aae,rae,skip_thought --batch-size 64 --hidden 256 --vocab 10000
"""
from __future__ import annotations

import dataclasses
import math
import multiprocessing as mp
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from reproducer.errors import ReproducerError
from reproducer.models import DECLARATIONS

OBJECTIVES = ("quick_thought", "skip_thought", "aae", "rae")
BATCH = {"quick_thought": 400, "skip_thought": 128, "aae": 64, "rae": 64}


def _peak_rss() -> int:
    """This process's peak resident memory in bytes. On Linux ``VmHWM`` (reset by ``exec``): ``ru_maxrss``
    would report the parent's peak when the parent is larger, e.g. a notebook kernel spawning the benchmark."""
    status = Path("/proc/self/status")
    if status.is_file():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)


def _one_process_each(run, objectives, known, *args) -> list[dict]:
    """``run(objective, *args)`` for each objective in a fresh process (its own peak memory), one after the other."""
    unknown = [o for o in objectives if o not in known]
    if unknown or not objectives:
        raise ReproducerError(f"Unknown objectives {unknown}; choose from {', '.join(known)}.")
    runs = []
    for objective in objectives:
        with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:
            runs.append(pool.submit(run, objective, *args).result())
    return runs


class SameWidth:
    """The objectives of :func:`bench_widths` at one width, as one :class:`~reproducer.fit.Objective` whose variants
    are :data:`OBJECTIVES`: each paper's model built at ``hidden`` units over ``word_dim``-d words (the module
    docstring gives each one's sizes), on one corpus and vocabulary (``data``: ``(vocab, tokenized)``)."""

    @staticmethod
    def make(hidden: int, word_dim: int, n_sampled: int, batch_size: int):
        from reproducer.fit import Objective

        class Objectives(Objective):
            name, variants = "same width", {o: f"{o} at {hidden} units" for o in OBJECTIVES}

            def build(self, variant, preset, data, *, device, seed=0):
                import torch

                from reproducer.encoders.attention import AAEConfig
                from reproducer.encoders.recurrent import RecurrentConfig
                from reproducer.papers.mean_max_aae.objective import MeanMaxAAE
                from reproducer.papers.quick_thoughts.objective import QuickThought
                from reproducer.papers.skip_thoughts.objective import SkipThought, SkipThoughtConfig

                vocab = data[0]
                encoder = RecurrentConfig(len(vocab), word_dim, hidden)
                if variant == "quick_thought":
                    model = QuickThought.recurrent(encoder)
                elif variant in ("aae", "rae"):
                    vectors = torch.randn(len(vocab), word_dim).numpy()
                    model = MeanMaxAAE(vectors, AAEConfig(len(vocab), word_dim, hidden, 2 * hidden, max_len=33,
                                                          family=variant.upper()))
                else:
                    model = SkipThought(SkipThoughtConfig(encoder, hidden))
                return model.to(device), None

            def sampler(self, variant, preset, data, seed=0, encoder=None):
                from reproducer.data.batches import ContiguousSampler, SentenceSampler, TripleSampler

                (vocab, tokenized), size = data, batch_size or BATCH[variant]
                if variant == "quick_thought":
                    return ContiguousSampler(tokenized, size, seed=seed)
                if variant in ("aae", "rae"):
                    return SentenceSampler(tokenized, size, eos=vocab.eos_id, seed=seed)
                return TripleSampler(tokenized, vocab, size, seed=seed, n_sampled=n_sampled)

        return Objectives()


def _run_one(objective: str, hidden: int, word_dim: int, vocab_size: int, seconds: float, max_books: int | None,
             n_sampled: int, seed: int, device: str | None, batch_size: int = 0) -> dict:
    import torch

    from reproducer.data.batches import TokenizedCorpus
    from reproducer.data.corpus import CorpusConfig, load_corpus
    from reproducer.data.vocab import Vocabulary
    from reproducer.fit import fit
    from reproducer.runtime import default_device
    from reproducer.train import Preset

    corpus = load_corpus("train", CorpusConfig(max_books=max_books), progress=False)
    vocab = Vocabulary.build(corpus.sentences, max_size=vocab_size)
    data = (vocab, TokenizedCorpus.from_corpus(corpus, vocab))
    device = default_device(device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    t0 = time.perf_counter()
    fitted = fit(SameWidth.make(hidden, word_dim, n_sampled, batch_size), objective,
                 Preset(name="bench", lr=5e-4, max_seconds=seconds), data, seed=seed, device=device, progress=False)
    log, model = fitted.log, fitted.module
    peak = torch.cuda.max_memory_allocated(device) if device.type == "cuda" else _peak_rss()
    return {"objective": objective, "batch_size": batch_size or BATCH[objective], "steps": log.step,
            "training_seconds": log.seconds, "minutes_per_1000_batches": log.seconds / log.step * 1000 / 60,
            "wall_seconds": time.perf_counter() - t0, "sentences_per_second": log.examples_per_second,
            "final_loss": log.losses[-1]["loss"] if log.losses else None, "peak_memory_bytes": int(peak),
            "memory_kind": "cuda max allocated" if device.type == "cuda" else "process max RSS",
            "parameters": sum(p.numel() for p in model.parameters() if p.requires_grad), "device": str(device),
            "softmax": "in-batch" if objective == "quick_thought" else "sampled" if n_sampled and objective ==
            "skip_thought" else "exact"}


def bench_widths(objectives=OBJECTIVES, *, hidden: int = 600, word_dim: int = 300, vocab_size: int = 20000,
                seconds: float = 60, max_books: int | None = None, n_sampled: int = 0, seed: int = 0,
                device: str | None = None, batch_size: int = 0) -> dict:
    """Train each objective for ``seconds`` in a fresh process, one after the other; return the
    measurements and the speed ratio (sentences per second) of the first objective to each other one.
    ``batch_size`` 0: each paper's batch size."""
    runs = _one_process_each(_run_one, objectives, OBJECTIVES, hidden, word_dim, vocab_size, seconds, max_books,
                             n_sampled, seed, device, batch_size)
    first = runs[0]
    ratios = {f"{first['objective']}/{r['objective']}": first["sentences_per_second"] / r["sentences_per_second"]
              for r in runs[1:]}
    return {"settings": {"hidden": hidden, "word_dim": word_dim, "vocab_size": vocab_size, "seconds": seconds,
                         "max_books": max_books, "n_sampled": n_sampled, "seed": seed, "batch_size": batch_size},
            "runs": runs, "speed_ratio": ratios}


# ---- every objective family at a preset: how much of the machine a training second uses ----

#: The objectives of ``bench train``: name → (family, variant) of :mod:`reproducer.models`, every paper's ``bench``
#: declaration in chapter order.
FAMILY_OBJECTIVES = {name: line for paper in DECLARATIONS.values() for name, line in paper.bench.items()}


def _profile(module, batches, steps: int, device, first_step: int, top: int = 8) -> list[dict]:
    """``torch.profiler``'s top operators (self time) of ``steps`` forward + backward passes: name, milliseconds per
    step, share of the profiled time."""
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    module.train()
    with profile(activities=activities) as prof:
        for step in range(first_step, first_step + steps):
            batch = batches(step).to(device)
            module.zero_grad(set_to_none=True)
            module(batch).backward()
    events = [e for e in prof.key_averages() if e.self_cpu_time_total > 0]
    total = sum(e.self_cpu_time_total for e in events) or 1.0
    events.sort(key=lambda e: e.self_cpu_time_total, reverse=True)
    return [{"op": e.key, "ms_per_step": e.self_cpu_time_total / 1000 / steps, "share": e.self_cpu_time_total / total}
            for e in events[:top]]


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
    """Train ``objective`` (a key of :data:`FAMILY_OBJECTIVES`) at ``preset_name`` for ``seconds`` in this process and
    measure it (see :func:`bench_train`). ``data_of(family, variant, settings)`` builds its training data
    (default: its chapter's, :meth:`~reproducer.models.Family.training_data`; the GPU run passes its pack's);
    ``peak``: the FLOP/s that "% of peak" divides by (default: :func:`~reproducer.flops.sgemm_peak` measured now, of
    ``peak_dtype``). The useful FLOPs are counted over the batches it trained on, or over ``replay_steps`` of them
    spread evenly when it made more steps (then scaled)."""
    import torch

    from reproducer.flops import sgemm_peak
    from reproducer.models import family
    from reproducer.presets import preset as preset_of
    from reproducer.runtime import default_device

    family_name, variant = FAMILY_OBJECTIVES[objective]
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
    memory = torch.cuda.max_memory_allocated(device) if device.type == "cuda" else _peak_rss()
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


def bench_train(objectives=tuple(FAMILY_OBJECTIVES), *, preset: str = "default", seconds: float = 30,
                     seed: int = 0, device: str | None = None, profile_steps: int = 0, **overrides) -> dict:
    """Train each objective of :data:`FAMILY_OBJECTIVES` at ``preset`` (its model sizes and batch size, on the real
    training data of its chapter) for ``seconds`` of training time, each in a fresh process, one after the other.
    Per objective: sentences (pairs) per second, useful GFLOP/s (``batch_flops`` of its objective module, real
    tokens only), that as a percentage of this machine's sgemm rate measured in the same process
    (:func:`~reproducer.flops.sgemm_peak`), padding waste (padded ÷ real token positions), peak memory; with
    ``profile_steps`` the top operators of that many more steps. ``overrides``: preset fields for every objective
    (e.g. ``max_books=50``)."""
    runs = _one_process_each(measure_objective, objectives, FAMILY_OBJECTIVES, preset, seconds, seed, device,
                             profile_steps, overrides)
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


def epoch_cost(objectives=tuple(FAMILY_OBJECTIVES), *, preset: str = "paper", samples: int = 20, seed: int = 0,
               gpu_flops: float = 100e12, cpu_flops: float | None = None) -> list[dict]:
    """The useful training FLOPs of one epoch of our data at ``preset``'s sizes (``batch_flops`` averaged over
    ``samples`` batches of the epoch, times its batches), and the hours that takes at a sustained ``gpu_flops`` (an
    assumption: 100 TFLOP/s is about a third of an H100's dense bf16 rate) and at ``cpu_flops`` (default: the
    sgemm rate measured here). Builds each model and trains it one step (the smallest budget a preset accepts)."""
    import numpy as np

    from reproducer.flops import sgemm_peak
    from reproducer.models import family
    from reproducer.presets import preset as preset_of

    unknown = [o for o in objectives if o not in FAMILY_OBJECTIVES]
    if unknown or not objectives:
        raise ReproducerError(f"Unknown objectives {unknown}; choose from {', '.join(FAMILY_OBJECTIVES)}.")
    if not (gpu_flops > 0 and math.isfinite(gpu_flops)):
        raise ReproducerError(f"gpu_flops must be a finite rate above 0, got {gpu_flops!r}.")
    cpu_flops = cpu_flops or sgemm_peak()
    rows = []
    for objective in objectives:
        family_name, variant = FAMILY_OBJECTIVES[objective]
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

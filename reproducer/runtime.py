"""Seeds, devices, processes and the CPU allocator: one ``seed_everything``, one ``default_device``, one
``inference`` context, ``keep_freed_memory``, and for the benchmarks ``one_process_each`` and ``peak_rss`` for the
whole library.

All training and encoding code takes its device from :func:`default_device` (CUDA when available,
else CPU) or from an explicit argument, never a hard-coded one, so the ``paper`` presets run
unchanged on a GPU.
"""
from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import random
import resource
import sys
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from reproducer.errors import ReproducerError


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and PyTorch (CPU and CUDA): same seed and machine, same numbers."""
    random.seed(seed)
    np.random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    import torch

    torch.manual_seed(seed)  # seeds CUDA too


def default_device(prefer=None):
    """``prefer`` (``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"`` or a ``torch.device``) once checked to exist on this
    machine, else CUDA when available, else CPU. :class:`ReproducerError` for an unknown or unavailable device."""
    import torch

    if not prefer:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(prefer)
    except (RuntimeError, TypeError):
        device = None
    if device is None or device.type not in ("cpu", "cuda", "mps"):  # e.g. "meta": a device without storage
        raise ReproducerError(f"Unknown device {prefer!r}: use cpu, cuda (cuda:N for the N-th GPU) or mps.")
    _check_available(device)
    return device


def _check_available(device) -> None:
    """:class:`ReproducerError` saying why a CUDA or MPS ``device`` cannot be used here (and that ``cpu`` can)."""
    import torch

    fallback = "--device cpu (device='cpu') works on every machine."
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ReproducerError(f"Device {str(device)!r} asked for, but CUDA is not available on this machine (no "
                                  f"NVIDIA GPU, or a CPU-only PyTorch); {fallback}")
        count = torch.cuda.device_count()
        if device.index is not None and device.index >= count:
            raise ReproducerError(f"Device {str(device)!r} asked for, but this machine has {count} GPU(s), "
                                  f"cuda:0 to cuda:{count - 1}; {fallback}")
    elif device.type == "mps" and not torch.backends.mps.is_available():
        raise ReproducerError(f"Device 'mps' asked for, but MPS (Apple's GPU) is not available on this machine; "
                              f"{fallback}")


@contextmanager
def inference(module):
    """Run ``module`` in evaluation mode (no dropout) without gradients, then restore its training mode (also
    when the block raises)."""
    import torch

    was_training = module.training
    module.eval()
    try:
        with torch.no_grad():
            yield module
    finally:
        module.train(was_training)


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
_ALLOCATOR = {"tuned": None}


def keep_freed_memory(threshold: int = 1 << 30) -> bool:
    """Ask glibc's allocator to keep large freed blocks in the process instead of handing them back to
    the kernel (``mallopt`` of ``M_MMAP_THRESHOLD`` and ``M_TRIM_THRESHOLD``, blocks up to ``threshold``
    bytes). Training on a CPU allocates and frees the same large buffers every step (a dense gradient
    of the word-embedding table is 78 MB for 65k words × 300); by default each is a fresh ``mmap``
    whose pages the kernel must zero again, which cost more system time than the arithmetic itself
    (Wieting et al.'s PP model: 0.23 s per step before, 0.09 s after, same numbers). Idempotent;
    does nothing and returns False off Linux/glibc or when ``REPRODUCER_KEEP_FREED_MEMORY=0``."""
    if _ALLOCATOR["tuned"] is not None:
        return _ALLOCATOR["tuned"]
    ok = False
    if sys.platform.startswith("linux") and os.environ.get("REPRODUCER_KEEP_FREED_MEMORY", "1") != "0":
        try:
            libc = ctypes.CDLL("libc.so.6")
            ok = bool(libc.mallopt(_M_MMAP_THRESHOLD, threshold)) and bool(libc.mallopt(_M_TRIM_THRESHOLD, threshold))
        except (OSError, AttributeError):  # not glibc (e.g. musl): keep the default allocator
            ok = False
    _ALLOCATOR["tuned"] = ok
    return ok


def peak_rss() -> int:
    """This process's peak resident memory in bytes. On Linux ``VmHWM`` (reset by ``exec``): ``ru_maxrss``
    would report the parent's peak when the parent is larger, e.g. a notebook kernel spawning the benchmark."""
    status = Path("/proc/self/status")
    if status.is_file():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)


def one_process_each(run, objectives, known, *args) -> list[dict]:
    """``run(objective, *args)`` for each objective in a fresh process (its own peak memory), one after the other."""
    unknown = [o for o in objectives if o not in known]
    if unknown or not objectives:
        raise ReproducerError(f"Unknown objectives {unknown}; choose from {', '.join(known)}.")
    runs = []
    for objective in objectives:
        with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:
            runs.append(pool.submit(run, objective, *args).result())
    return runs

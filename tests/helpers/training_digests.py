"""Digests of every family's models trained at ``smoke``: what ``tests/test_training_digests.py`` compares with the
digests recorded in ``tests/data/training_digests.json`` (written by this file run as a script, before a refactor of
the training route), so that a refactor that changes one random stream, one initial weight or one training step is
caught.

Each family reads the data its chapter builds, its word vectors replaced by seeded ones (:func:`seeded_vectors`).
Per (family, variant, seed): the SHA-256 of the module's weights at initialisation (the untrained twin), of its weights
after the smoke budget and of its vectors, and the loss records themselves, with the sizes of the initial weights and of
both the untrained twin's and the trained run's vectors.

The record holds one entry per machine (:func:`machine`): the first was written before the refactor of issue 64; a
later one adds another processor's digests, written by a route that gave the first entry's digests bit for bit on the
first machine. On a machine with an entry the digests are compared exactly; elsewhere (other CPU kernels sum in another
order) the sizes and the losses are compared closely instead.

    python tests/helpers/training_digests.py            # record every family on this machine (before a change)
    python tests/helpers/training_digests.py toy-objective   # record one family more, keeping the others' record
"""
from __future__ import annotations

import hashlib
import json
import platform
import sys
from pathlib import Path

import numpy as np
import torch

RECORD = Path(__file__).resolve().parents[1] / "data" / "training_digests.json"
SEEDS = (0, 1)
SENTENCES = ["the cat sat on the mat .", "a dog ran into the house", "mat"]
# Families whose training chooses from float scores: Wieting et al.'s MAX negatives are the argmax of a cosine matrix
# (paraphrastic/objective.py), so another machine's rounding may flip a near-tie and the run then trains on another
# negative: another model, not float rounding (on an Intel machine, iRNN's vectors moved 3% from the AMD record's
# while its losses agreed to 1e-4). Off the recorded machines their trained vectors are not compared; the encoding
# route is checked by the untrained twin's vectors, which take no choice.
CHOOSES_FROM_SCORES = {"paraphrastic"}


def cpu() -> str:
    """The processor: vendor, family and model, and a digest of its feature flags. PyTorch's ``cpu_capability`` is
    not enough: two AVX-512 machines of other generations (CI's and a session's) dispatch to other BLAS/LAPACK
    kernels, which round otherwise (an orthogonal initialisation's QR included)."""
    info = {}
    cpuinfo = Path("/proc/cpuinfo")
    for line in (cpuinfo.read_text().splitlines() if cpuinfo.is_file() else []):
        key, _, value = line.partition(":")
        info.setdefault(key.strip(), value.strip())
    flags = hashlib.sha256(" ".join(sorted(info.get("flags", "").split())).encode()).hexdigest()[:12]
    return (f"{info.get('vendor_id', platform.processor())} family {info.get('cpu family', '?')} "
            f"model {info.get('model', '?')} flags {flags}")


def machine() -> dict:
    """What decides whether trained weights can be bit-identical to the recorded ones: PyTorch's version, the
    processor (:func:`cpu`), the CPU kernels PyTorch dispatches to and its thread count."""
    return {"torch": torch.__version__.split("+")[0], "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "cpu": cpu(), "threads": torch.get_num_threads(), "machine": platform.machine()}


def weights_digest(module: torch.nn.Module) -> str:
    digest = hashlib.sha256()
    for name, tensor in sorted(module.state_dict().items()):
        digest.update(name.encode())
        digest.update(f"{tensor.dtype}{tuple(tensor.shape)}".encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


def weights_size(module: torch.nn.Module) -> float:
    """The sum of the absolute values of every weight (float64): what is compared where the digests cannot be (another
    machine's kernels: LAPACK's QR behind an orthogonal initialisation may round otherwise)."""
    return float(sum(t.detach().double().abs().sum() for t in module.state_dict().values() if t.is_floating_point()))


def families() -> list:
    from reproducer.papers.registry import FAMILIES

    return list(FAMILIES.values())


def _fit(fam, variant, settings, data, seed):
    """One smoke run of ``variant`` through the family's training route (the one call a refactor may rename)."""
    return fam.fit(variant, settings, data, seed=seed, device="cpu", progress=False, **fam.fit_options)


def _untrained(fam, variant, settings, data, seed):
    return fam.untrained(variant, settings, data, seed=seed, device="cpu")


def _preset(fam):
    from reproducer.papers.registry import preset

    return preset(fam.name, "smoke")


def seeded_vectors(data):
    """``data`` with its word vectors (fixed inputs, or initial embeddings) replaced by seeded random ones of the same
    shape and words: our word2vec is trained again on a clean machine (two gensim workers, and an initialisation that
    hashes the words with Python's per-process hash), so its values differ from one machine to the next, while the
    training route under test does not depend on them. The vocabulary and the corpus ids stay the chapters'."""
    import dataclasses

    from reproducer.data.vectors import WordVectors

    vectors, rng = data.vectors, np.random.default_rng(0)
    if vectors is None:
        return data
    if isinstance(vectors, WordVectors):
        table = rng.normal(0, 0.1, vectors.vectors.shape).astype(np.float32)
        return dataclasses.replace(data, vectors=WordVectors(vectors.words, table, name="seeded"))
    return dataclasses.replace(data, vectors=rng.normal(0, 0.1, np.asarray(vectors).shape).astype(np.float32))


def digests(only: set[str] | None = None) -> dict:
    """``{"family/variant/seed": {...}}`` for every family (or those in ``only``) and variant at ``smoke``."""
    torch.set_num_threads(torch.get_num_threads())
    found = {}
    for fam in families():
        if only and fam.name not in only:
            continue
        settings = _preset(fam)
        for variant in fam.variants:
            data = seeded_vectors(fam.training_data(variant, settings))
            for seed in SEEDS:
                twin = _untrained(fam, variant, settings, data, seed)
                fitted = _fit(fam, variant, settings, data, seed)
                losses = [[r["step"], r["loss"]] for r in fitted.log.losses]
                vectors = np.asarray(fitted.encoder.encode(SENTENCES), dtype=np.float32)
                initial = np.asarray(twin.encoder.encode(SENTENCES), dtype=np.float32)
                found[f"{fam.name}/{variant}/{seed}"] = {
                    "initial": weights_digest(twin.module), "initial_size": weights_size(twin.module),
                    "initial_encoded_sum": float(np.abs(initial).sum()),
                    "trained": weights_digest(fitted.module),
                    "steps": fitted.log.step, "examples": fitted.log.examples, "losses": losses,
                    "encoded": hashlib.sha256(vectors.tobytes()).hexdigest(),
                    "encoded_sum": float(np.abs(vectors).sum())}
    return found


def records() -> list[dict]:
    """The recorded entries, ``[{"machine": ..., "digests": {...}}, ...]``, the pre-refactor one first."""
    return json.loads(RECORD.read_text())["records"] if RECORD.is_file() else []


def record_here() -> dict | None:
    """The entry recorded on a machine like this one (:func:`machine`), or ``None``."""
    return next((r for r in records() if r["machine"] == machine()), None)


if __name__ == "__main__":
    import time

    t0 = time.perf_counter()
    only = set(sys.argv[1:]) or None  # families named: their runs recorded (again), the others' kept as they are
    here = record_here()
    kept = here["digests"] if only and here else {}
    found = digests(only)
    entry = {"machine": machine(), "digests": {**kept, **found}}
    entries = [entry if r is here else r for r in records()] if here else [*records(), entry]
    tmp = RECORD.with_suffix(".tmp")
    tmp.write_text(json.dumps({"records": entries}, indent=1) + "\n")
    tmp.replace(RECORD)
    print(f"{len(found)} runs recorded in {time.perf_counter() - t0:.0f} s -> {RECORD}")

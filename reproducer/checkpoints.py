"""Files you can trust: training checkpoints and encoder bundles carry the SHA-256 of their contents, verified on
every load, and their weights are checked finite.

One format for both: a ``torch.save`` file (loaded with ``weights_only=True``) holding
``{"format": "reproducer-digest/1", "sha256": <hex>, "payload": <uint8 tensor>}``, where the payload is the
``torch.save`` bytes of the checkpoint or bundle itself. A flipped bit anywhere in the payload changes its digest;
one in the wrapper makes it unreadable. Either way :func:`load` raises one :class:`~reproducer.errors.ReproducerError`
that names the file, what is wrong and what to do — never a raw unpickling traceback. Files written before this
format (no digest) still load, with a warning, after the finiteness check.
"""
from __future__ import annotations

import hashlib
import io
import warnings
from pathlib import Path
from typing import Any, Iterator

import torch

from reproducer.errors import ReproducerError, ReproducerWarning
from reproducer.files import atomic_path, sha256_file

FORMAT = "reproducer-digest/1"


class DamagedFileError(ReproducerError):
    """A checkpoint or encoder bundle that cannot be trusted: unreadable, truncated, altered or holding non-finite
    weights."""


def _serialise(obj: Any) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def save(obj: Any, path: str | Path) -> Path:
    """Write ``obj`` (plain data and tensors) atomically to ``path`` with the SHA-256 of its serialised bytes."""
    payload = _serialise(obj)
    wrapper = {"format": FORMAT, "sha256": hashlib.sha256(payload).hexdigest(),
               "payload": torch.frombuffer(bytearray(payload), dtype=torch.uint8)}
    with atomic_path(path) as tmp:
        torch.save(wrapper, tmp)
    return Path(path)


def tensors(obj: Any, prefix: str = "") -> Iterator[tuple[str, torch.Tensor]]:
    """Every tensor inside nested dicts, lists and tuples, with its path (``model.embed.weight``)."""
    if isinstance(obj, torch.Tensor):
        yield prefix, obj
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield from tensors(value, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(obj, (list, tuple)):
        for i, value in enumerate(obj):
            yield from tensors(value, f"{prefix}[{i}]")


def non_finite(obj: Any) -> list[str]:
    """The paths of the floating-point tensors of ``obj`` that hold a NaN or an infinity."""
    return [name for name, t in tensors(obj) if t.is_floating_point() and not bool(torch.isfinite(t).all())]


def _read(source, what: str, path: Path, fix: str, map_location) -> Any:
    try:
        return torch.load(source, map_location=map_location, weights_only=True)
    except Exception as e:  # zip, pickle and EOF errors alike: the file is not a readable torch file
        raise DamagedFileError(f"{path} is not a readable {what} ({type(e).__name__}): it is truncated, damaged or "
                               f"not written by reproducer. {fix}") from e


def load(path: str | Path, *, what: str = "checkpoint", fix: str = "Delete it and train again.",
         map_location="cpu") -> Any:
    """The object :func:`save` wrote at ``path``, after checking its digest and that its weights are finite; a
    :class:`DamagedFileError` naming the file and the problem (``what`` names the kind of file, ``fix`` what to do)
    otherwise."""
    path = Path(path)
    if not path.is_file():
        raise ReproducerError(f"No {what} at {path}.")
    if path.stat().st_size == 0:
        raise DamagedFileError(f"{path} is empty (0 bytes), not a {what}. {fix}")
    obj = _read(path, what, path, fix, "cpu")
    if isinstance(obj, dict) and obj.get("format") == FORMAT:
        payload = obj["payload"].numpy().tobytes()
        digest = hashlib.sha256(payload).hexdigest()
        if digest != obj.get("sha256"):
            raise DamagedFileError(f"{path}: its contents changed after it was written (SHA-256 {digest[:12]}… "
                                   f"instead of the stored {str(obj.get('sha256'))[:12]}…): the {what} is damaged. {fix}")
        obj = _read(io.BytesIO(payload), what, path, fix, map_location)
    else:
        warnings.warn(f"{path} has no stored checksum (written before reproducer checked them): only its weights' "
                      f"finiteness is verified.", ReproducerWarning, stacklevel=2)
        if map_location != "cpu":
            obj = _read(path, what, path, fix, map_location)
    bad = non_finite(obj)
    if bad:
        raise DamagedFileError(f"{path}: non-finite values (NaN or infinity) in {', '.join(bad[:5])}"
                               f"{' …' if len(bad) > 5 else ''}: the {what} is poisoned. {fix}")
    return obj


def half_budget_bundle(checkpoint: str | Path) -> Path:
    """Where a run that trains into ``checkpoint`` (``<name>.train.pt``) keeps its encoder as it was at half its step
    budget: ``<name>.half.encoder.pt`` beside it (what scores a claim at a second budget without training again)."""
    checkpoint = Path(checkpoint)
    return checkpoint.with_name(checkpoint.name.removesuffix(".train.pt") + ".half.encoder.pt")


def identity(path: str | Path) -> str | None:
    """What a checkpoint or bundle at ``path`` *is*, cheaply: the SHA-256 its wrapper carries, read through a memory
    map without loading the payload (milliseconds for any size); the SHA-256 of the whole file for one written before
    digests or one that cannot be read; ``None`` when there is no file. Training rewrites a checkpoint only when it
    trains (or logs) something, so the identity changes exactly when the model does — what the notebooks' results
    cache keys a model's results by (:meth:`reproducer.results_store.NotebookRun.model`)."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        obj = torch.load(path, mmap=True, map_location="cpu", weights_only=True)
        if isinstance(obj, dict) and obj.get("format") == FORMAT and isinstance(obj.get("sha256"), str):
            return obj["sha256"]
    except Exception:  # unreadable: the bytes themselves are its identity (loading it will say what is wrong)
        pass
    return sha256_file(path)

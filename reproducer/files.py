"""Atomic writes: results, caches and checkpoints are written to a temporary file in the same
folder and renamed into place, so an interrupted run never leaves a half-written file.

The temporary files are named ``.<name>.<random>.part``; :func:`remove_stale_parts` clears those a killed
process left behind. Files written here get the permissions any other file would (``0o666`` less the umask),
not ``tempfile``'s private ``0o600``.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import lzma
import os
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from reproducer.errors import DamagedResultError, ReproducerError

STALE_PART_SECONDS = 3600  # a temporary file untouched this long has lost its writer (writers touch it each chunk)


def current_umask() -> int:
    """The process's umask, read without changing it where Linux shows it (``/proc/self/status``); elsewhere
    set and restored at once (racy only against another thread creating files in that instant)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def follow_umask(path: str | Path) -> None:
    """Give ``path`` (made private by ``tempfile``) the mode a plain ``open``/``mkdir`` would have given it."""
    path = Path(path)
    os.chmod(path, (0o777 if path.is_dir() else 0o666) & ~current_umask())


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; on success it replaces ``path``, else is removed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        follow_umask(tmp_path)
        os.replace(tmp_path, path)
    finally:
        tmp_path.unlink(missing_ok=True)


def remove_stale_parts(folder: str | Path, older_than: float = STALE_PART_SECONDS) -> list[Path]:
    """Delete the temporary files of :func:`atomic_path` in ``folder`` not modified for ``older_than`` seconds
    (left by a killed process; a live writer's file is newer, so concurrent writers are safe). Returns them."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    cutoff = time.time() - older_than
    removed = []
    for part in folder.glob(".*.part"):
        try:
            if part.is_file() and part.stat().st_mtime < cutoff:
                part.unlink()
                removed.append(part)
        except FileNotFoundError:  # another process removed it first
            pass
    return removed


def existing_ancestor(path: str | Path) -> Path:
    """``path`` itself if it exists, else its nearest ancestor that does ("/" at the latest)."""
    path = Path(path).absolute()
    return next(p for p in (path, *path.parents) if os.path.exists(p))


def check_writable(path: str | Path, what: str = "output file") -> Path:
    """``path`` if a file can be written there: it is not a folder, and its folder exists and is writable, or can be
    created (tried now, then removed again: a folder that cannot be made, e.g. under ``/proc``, fails here rather than
    after the work). Leaves nothing behind; :class:`ReproducerError` otherwise."""
    path = Path(path).expanduser()
    if path.is_dir():
        raise ReproducerError(f"The {what} {path} is a folder; give a file name (e.g. {path / 'results.json'}).")
    check_folder(path.parent, f"the {what} {path}")
    return path


def check_folder(folder: str | Path, purpose: str = "the output") -> Path:
    """``folder`` if it is a writable folder or can be created (tried now and removed again); :class:`ReproducerError`
    naming ``purpose`` and saying why not otherwise: a file is in the way, a folder cannot be created there, or it is
    not writable."""
    folder = Path(folder).expanduser()
    ancestor = existing_ancestor(folder)
    if not ancestor.is_dir():
        raise ReproducerError(f"Cannot use the folder {folder} for {purpose}: {ancestor} is a file, not a folder.")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise ReproducerError(f"Cannot write {purpose} into {folder}: the folder {ancestor} is not writable.")
    missing = [p for p in (folder.absolute(), *folder.absolute().parents) if not os.path.exists(p)]
    created = []
    try:
        for p in reversed(missing):
            try:
                p.mkdir()
                created.append(p)
            except FileExistsError:  # another process (a torchrun rank) made it meanwhile: not ours to remove
                pass
    except OSError as e:
        raise ReproducerError(f"Cannot create the folder {folder} for {purpose}: {e.strerror or e}.") from None
    finally:
        for p in reversed(created):
            try:
                p.rmdir()
            except OSError:  # another process has put something in it since
                pass
    return folder


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    """The SHA-256 of a file's bytes (hex), read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def write_text(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_compressed(path: str | Path, text: str) -> None:
    """Write ``text`` gzip-compressed to ``path``, atomically and byte for byte reproducibly (no time stamp)."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))


#: A result whose JSON text is longer than this is stored xz-compressed (``write_json(..., compress_above=...)``):
#: per-item evaluation outcomes run to megabytes, training records and grids to tens of kilobytes (xz makes them 4-6×
#: smaller), and the committed results must leave room in the 64 MiB that travel with a GPU call
#: (:mod:`reproducer.gpu_pack`). Results shorter than this stay plain, readable where they are committed.
COMPRESS_ABOVE = 8 * 1024
#: The compressed forms of a result, the one written first: xz, a sixth smaller than gzip on our results; results
#: stored gzip-compressed before (``X.json.gz``) are still read (``scripts/store_results.py`` rewrites them).
COMPRESSED = (".xz", ".gz")


def _compressed(path: Path, suffix: str = COMPRESSED[0]) -> Path:
    return path.with_name(path.name + suffix)


def stored_json(path: str | Path) -> Path | None:
    """The file that holds the result ``path`` (``X.json``, ``X.csv``, a saved encoder…): ``path`` itself, or its
    compressed form (``X.json.xz``, or ``X.json.gz`` as stored before); ``None`` when there is none. Results keep their
    plain name everywhere else (manifests, messages)."""
    path = Path(path)
    return next((p for p in (path, *(_compressed(path, s) for s in COMPRESSED)) if p.is_file()), None)


def stored_text(found: str | Path) -> str:
    """The text of a stored result file (:func:`stored_json`), decompressed if it is ``.xz`` or ``.gz``."""
    found = Path(found)
    data = found.read_bytes()
    if found.suffix == ".xz":
        data = lzma.decompress(data)
    elif found.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8")


def read_json(path: str | Path, *, as_stored: bool = False) -> Any:
    """The JSON value of the result ``path`` (stored plain or compressed: :func:`stored_json`), or ``None`` when there
    is no such file (a result not computed yet); gold scores it shares with other results (:func:`share_gold`) are put
    back in place, unless ``as_stored``."""
    found = stored_json(path)
    if found is None:
        return None
    value = json.loads(stored_text(found))
    return value if as_stored else restore_gold(value, found.parent)


#: The fields of a test set's per-item outcomes (:mod:`reproducer.evaluate.items`) that are the same for every encoder
#: scored on it: the gold scores and, for STS, each pair's sub-dataset.
GOLD_FIELDS = ("gold", "group", "groups")
#: The folder, beside the results that share them, of the files holding those fields (:func:`share_gold`).
GOLD_DIR = "gold"


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _gold_name(text: str) -> str:
    """The name of a gold file: the SHA-256 of its canonical text (:func:`_canonical`), cut to 20 hex digits."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def walk_items(obj: Any, change) -> Any:
    """``obj`` with every per-item outcome (a dict under an ``"items"`` key, one per task) replaced by
    ``change(outcome)``; only dicts are walked (the item lists are not), and ``obj`` itself is not modified."""
    if not isinstance(obj, dict):
        return obj
    out = {}
    for key, value in obj.items():
        if key == "items" and isinstance(value, dict):
            out[key] = {task: change(o) if isinstance(o, dict) else o for task, o in value.items()}
        else:
            out[key] = walk_items(value, change)
    return out


def share_gold(obj: Any, folder: str | Path) -> Any:
    """``obj`` with the gold fields (:data:`GOLD_FIELDS`) of each per-item outcome moved into a file of
    ``<folder>/gold/`` named by the SHA-256 of their content, and replaced by that name (``"gold": "<name>"``): every
    encoder scored on a test set repeats its gold scores, which were a quarter of the results the repository carries
    (and one device call takes the repository with the GPU pack: 64 MiB). :func:`read_json` puts them back."""
    folder = Path(folder) / GOLD_DIR

    def change(outcome: dict) -> dict:
        if not isinstance(outcome.get("gold"), list):
            return outcome
        shared = {k: outcome[k] for k in GOLD_FIELDS if k in outcome}
        text = _canonical(shared)
        name = _gold_name(text)
        if stored_json(folder / f"{name}.json") is None:
            write_result(folder / f"{name}.json", text + "\n", compress_above=COMPRESS_ABOVE)
        return {**{k: v for k, v in outcome.items() if k not in GOLD_FIELDS}, "gold": name}

    return walk_items(obj, change)


def restore_gold(obj: Any, folder: str | Path) -> Any:
    """The inverse of :func:`share_gold`: ``obj`` with each shared gold name replaced by the fields its file in
    ``<folder>/gold/`` holds, that file checked against its name (its content's SHA-256)."""
    folder = Path(folder) / GOLD_DIR

    def change(outcome: dict) -> dict:
        name = outcome.get("gold")
        if not isinstance(name, str):
            return outcome
        found = stored_json(folder / f"{name}.json")
        if found is None:
            raise DamagedResultError(f"{folder / name}.json is missing: the gold scores a result in {folder.parent} "
                                     "shares (git checkout the folder; executing its notebook computes that result "
                                     "again, nothing else).")
        shared = json.loads(stored_text(found))
        if _gold_name(_canonical(shared)) != name:
            raise DamagedResultError(f"{found} changed after it was written (its SHA-256 does not match its name): the "
                                     "gold scores of the results that share it cannot be trusted; executing their "
                                     "notebook computes those results again, nothing else.")
        return {**{k: v for k, v in outcome.items() if k != "gold"}, **shared}

    return walk_items(obj, change)


def write_json(path: str | Path, obj: Any, *, compress_above: int | None = None) -> Path:
    """Write ``obj`` as indented JSON to ``path``, atomically (:func:`write_result`). Returns the file written."""
    return write_result(path, json.dumps(obj, indent=1, ensure_ascii=False) + "\n", compress_above=compress_above)


def write_result(path: str | Path, text: str, *, compress_above: int | None = None) -> Path:
    """Write a result's ``text`` (JSON, CSV) to ``path``, atomically; with ``compress_above``, a text longer than that
    many characters goes to ``path + ".xz"`` instead, xz-compressed (byte for byte reproducible). The other forms of
    the same result, if any, are removed, so a result is stored once. Returns the file written."""
    path = Path(path)
    forms = [path, *(_compressed(path, s) for s in COMPRESSED)]
    if compress_above is not None and len(text) > compress_above:
        target = _compressed(path)
        with atomic_path(target) as tmp:
            tmp.write_bytes(lzma.compress(text.encode("utf-8")))
    else:
        target = path
        write_text(path, text)
    for stale in forms:
        if stale != target:
            stale.unlink(missing_ok=True)
    return target


#: The locks this process holds (:func:`exclusive`), by resolved path.
_HELD: set[str] = set()


@contextmanager
def exclusive(path: str | Path, what: str) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (a lock file, made if missing, or an existing folder; ``fcntl.flock``,
    released when the block ends or the process dies, also when it is killed) while the block runs;
    :class:`ReproducerError` at once when another process holds it (``what`` it is doing: ``"training uni-QT into
    results/..."``). A lock this process holds already is held again at no cost (re-entrant). Where ``fcntl`` is
    missing (Windows), nothing is locked."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    path = Path(path)
    held = str(path.resolve())
    if held in _HELD:  # this process holds it already (the train command, then the fit it calls)
        yield
        return
    if path.is_dir():
        handle = os.open(path, os.O_RDONLY)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ReproducerError(f"Another run is {what} right now (it holds {path}): wait for it, or give this one "
                                  "another --out.") from None
        _HELD.add(held)
        try:
            yield
        finally:
            _HELD.discard(held)
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        os.close(handle)

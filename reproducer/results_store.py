"""The results store of the book: where each notebook's results live, the key each one is stored under, and whether a
stored result may be reused (:class:`NotebookRun`; a notebook gets one from :func:`reproducer.notebook.start`).

Results live in ``results/<notebook>/<preset>/`` (``REPRODUCER_RESULTS_DIR`` overrides ``results/``) when every
parameter has its default (the book's run), else in ``results/<notebook>/<preset>+<label>/`` (e.g.
``default+seed=1``), so an experiment never overwrites the book's results nor resumes its checkpoints: metrics as
JSON, curves and tables as CSV, written atomically. Each result is stored with its *key* — the preset, every
parameter but ``retrain``, ``seeds`` and ``longer`` (:data:`NOT_IN_KEY`), and the settings declared with
:meth:`NotebookRun.settings` (``device`` left out) — in the folder's ``cache_keys.json``; a stored result is reused
only under the same key (never with ``retrain=True``), so re-executing a notebook to rebuild its prose or plots costs
seconds, and a changed setting recomputes what it changed, saying why. :func:`run_folder` is the one rule from a
chapter, preset and changed parameters to the folder (the notebooks and ``python -m reproducer train`` share it).
"""
from __future__ import annotations

import hashlib
import json
import lzma
import os
import re
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from reproducer.checkpoints import half_budget_bundle, identity
from reproducer.errors import DamagedResultError, ReproducerError, ReproducerWarning
from reproducer.files import (COMPRESS_ABOVE, COMPRESSED, atomic_path, read_json, restore_gold, sha256_file,
                              share_gold, stored_json, stored_text, walk_items, write_json, write_result)
from reproducer.log import logger
from reproducer.plot_style import readable_figure

PRESETS = ("smoke", "quick", "default", "paper")
_REQUIRED = object()
_CHECKOUT = Path(__file__).resolve().parents[1]
#: The manifest of a results folder: each stored result's key (see :func:`result_key`).
KEY_FILE = "cache_keys.json"
#: The models each result being computed reads (innermost last): checkpoint paths relative to the results root.
_USING: list[set[str]] = []


def results_root() -> Path:
    """``REPRODUCER_RESULTS_DIR``, else the checkout's ``results/``, else ``./results``."""
    env = os.environ.get("REPRODUCER_RESULTS_DIR")
    if env:
        return Path(env).expanduser().resolve()
    if (_CHECKOUT / "pyproject.toml").is_file():
        return _CHECKOUT / "results"
    return Path.cwd() / "results"


def slug(name: str) -> str:
    """The one rule from a model's name to its file names: spaces become ``_``, brackets are dropped
    (``"combine-skip (no expansion)"`` → ``combine-skip_no_expansion``, ``"MC-QT 400d"`` → ``MC-QT_400d``)."""
    return name.replace("(", "").replace(")", "").replace(" ", "_")


def training_record_name(name: str) -> str:
    """The name of model ``name``'s training record in its results folder (without ``.json``)."""
    return f"{slug(name)}_training"


def model_files(folder: str | Path, name: str) -> dict[str, Path]:
    """Model ``name``'s git-ignored files under a results folder: ``train`` (the training checkpoint, resumable),
    ``encoder`` (the encoder bundle), ``log`` (``python -m reproducer train``'s log) and ``half`` (the encoder at half
    the step budget), all in ``checkpoints/``. The one rule shared by the notebooks and
    :mod:`reproducer.train_command`, so a notebook finds a model trained from the command line."""
    folder = Path(folder) / "checkpoints"
    files = {kind: folder / f"{slug(name)}.{suffix}"
             for kind, suffix in (("train", "train.pt"), ("encoder", "encoder.pt"), ("log", "log.json"))}
    return {**files, "half": half_budget_bundle(files["train"])}


def check_preset(preset: str) -> str:
    """Return ``preset`` if it is one of :data:`PRESETS`, else raise with the choices."""
    if preset not in PRESETS:
        raise ReproducerError(f"Unknown preset {preset!r}; choose one of {', '.join(PRESETS)}.")
    return preset


def folder_label(changed: dict[str, Any]) -> str:
    """The suffix of a results folder for parameters that differ from their defaults: readable ``name=value`` pairs,
    sorted and joined by ``,`` (``length_sample=7,seed=1``, ``encoders=glove-bow,sif-glove``) when that is shorter
    than 60 characters and every value is made of ``[A-Za-z0-9._,-]`` (no ``=``, so the label reads one way only),
    else ``p`` and 10 hex digits of their SHA-256. The folder's ``parameters.json`` lists them either way."""
    texts = {name: str(value) for name, value in sorted(changed.items())}
    label = ",".join(f"{name}={text}" for name, text in texts.items())
    if len(label) < 60 and all(re.fullmatch(r"[A-Za-z0-9._,-]*", text) for text in texts.values()):
        return label
    return "p" + hashlib.sha256(json.dumps(changed, sort_keys=True).encode()).hexdigest()[:10]


@dataclass(frozen=True)
class RunSpec:
    """The identity of one run of a chapter: its ``chapter`` (notebook), ``preset``, training ``seed`` and the other
    parameters that differ from their defaults (``overrides``: sorted ``(name, value)`` pairs). It owns the one rule
    from a run to its results folder (:attr:`folder`), which the notebooks (:class:`NotebookRun`) and ``python -m
    reproducer train`` (:mod:`reproducer.train_command`) share: a model trained from the command line with ``--seed 1``
    is found by the notebook executed with ``-p seed 1``."""

    chapter: str
    preset: str
    seed: int = 0
    overrides: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, chapter: str, preset: str, changed: dict[str, Any]) -> "RunSpec":
        """The run of ``chapter`` at ``preset`` whose parameters ``changed`` from their defaults (``seed`` among
        them when it is not 0)."""
        return cls(chapter, preset, int(changed.get("seed", 0)),
                   tuple(sorted((k, v) for k, v in changed.items() if k != "seed")))

    @property
    def changed(self) -> dict[str, Any]:
        """The parameters that differ from their defaults, ``seed`` included when it is not 0."""
        return {**dict(self.overrides), **({"seed": self.seed} if self.seed else {})}

    @property
    def folder(self) -> Path:
        """``results/<chapter>/<preset>/``, or ``results/<chapter>/<preset>+<label>/`` (:func:`folder_label`) when a
        parameter differs from its default."""
        changed = self.changed
        return results_root() / self.chapter / (f"{self.preset}+{folder_label(changed)}" if changed else self.preset)


# --- Result keys: what produced a result, recorded in each results folder's cache_keys.json -----------------------


def _plain(obj: Any) -> Any:
    """``obj`` as it reads back from JSON (tuples become lists, keys strings): the form keys are compared in."""
    return json.loads(json.dumps(obj, ensure_ascii=False))


def _without_device(obj: Any) -> Any:
    """``obj`` with every entry named ``device`` left out: the device does not change what a run is."""
    if isinstance(obj, dict):
        return {k: _without_device(v) for k, v in obj.items() if k != "device"}
    if isinstance(obj, list):
        return [_without_device(v) for v in obj]
    return obj


#: Parameters that never enter a result's key. ``retrain`` changes whether a result is recomputed, not what it is;
#: ``seeds`` (a chapter's claims seeds) changes which results are read, never what one is: each seed's models and
#: evaluations are results of their own, in the seed's own folder (:meth:`NotebookRun.sibling`), and the claims that
#: read them are rebuilt on every execution (:meth:`NotebookRun.record`). So raising a chapter's ``seeds`` trains
#: the new seeds only, instead of recomputing everything its earlier seeds stored. ``longer`` (the models a chapter
#: also trains beyond its budget, issue 70) likewise: they train in a run of their own (another ``max_steps``).
NOT_IN_KEY = ("retrain", "seeds", "longer")


def _keyed(parameters: dict[str, Any]) -> dict[str, Any]:
    """``parameters`` without those in :data:`NOT_IN_KEY`."""
    return {name: value for name, value in parameters.items() if name not in NOT_IN_KEY}


def result_key(preset: str, parameters: dict[str, Any], settings: Any) -> dict:
    """The key of a result: the preset, the notebook's parameters (those in :data:`NOT_IN_KEY` left out) and the
    settings the notebook declared (entries named ``device`` left out), in the plain form JSON gives back."""
    return _plain({"preset": preset, "parameters": _keyed(parameters), "settings": _without_device(settings)})


def comparable_key(key: dict | None) -> dict | None:
    """A recorded ``key`` as :func:`result_key` makes it today: a manifest written before a parameter joined
    :data:`NOT_IN_KEY` still names it, and such a result is reused under the key it would have now."""
    if not key or not isinstance(key.get("parameters"), dict):
        return key
    return {**key, "parameters": _keyed(key["parameters"])}


def key_id(key: dict) -> str:
    """A short id of ``key``: 12 hex digits of the SHA-256 of its canonical JSON."""
    return hashlib.sha256(json.dumps(key, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:12]


def read_keys(folder: str | Path) -> dict:
    """A results folder's manifest, ``{"keys": {id: key}, "results": {file: id}, "digests": {file: sha256}, "uses":
    {file: {checkpoint: identity}}}`` (files relative to the folder, with ``/``; the digest of each file as stored and
    the identity of each model checkpoint it was computed from, both checked on reuse; ``uses`` only where a result read
    a model whose checkpoint was there); empty when the folder has none."""
    path = Path(folder) / KEY_FILE
    if not path.is_file():
        return {"keys": {}, "results": {}}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):  # truncated, or not text
        manifest = None
    if not (isinstance(manifest, dict) and isinstance(manifest.get("keys"), dict)
            and isinstance(manifest.get("results"), dict) and isinstance(manifest.get("digests", {}), dict)
            and isinstance(manifest.get("uses", {}), dict)):
        warnings.warn(f"{path} is damaged (not a results manifest): the results of {Path(folder).name} are "
                      "recomputed, and the manifest written anew.", ReproducerWarning, stacklevel=2)
        return {"keys": {}, "results": {}}
    return manifest


def recorded_key(folder: str | Path, file: str) -> dict | None:
    """The key ``file`` (relative to ``folder``) was stored under, ``None`` when none was recorded."""
    manifest = read_keys(folder)
    return manifest["keys"].get(manifest["results"].get(file))


def stored_digest(folder: str | Path, file: str) -> str | None:
    """SHA-256 of the stored form of result ``file`` (``X.json`` may be stored as ``X.json.xz``); ``None`` if absent."""
    found = stored_json(Path(folder) / file)
    return sha256_file(found) if found else None


def record_keys(folder: str | Path, keys: dict[str, dict], uses: dict[str, dict[str, str]] | None = None) -> None:
    """Record each file's key (``{file: key}``), the SHA-256 of the file as stored now and the identities of the model
    checkpoints it was computed from (``uses``: ``{file: {checkpoint: identity}}``) in ``folder``'s manifest, written
    atomically; keys that no file uses any more are dropped."""
    manifest = read_keys(folder)
    digests, models = manifest.get("digests", {}), manifest.get("uses", {})
    for file, key in keys.items():
        manifest["keys"][key_id(key)] = key
        manifest["results"][file] = key_id(key)
        digests[file] = stored_digest(folder, file)
        models[file] = (uses or {}).get(file) or {}
    used = set(manifest["results"].values())
    models = {f: m for f, m in sorted(models.items()) if m and f in manifest["results"]}
    write_json(Path(folder) / KEY_FILE, {"keys": {i: k for i, k in manifest["keys"].items() if i in used},
                                         "results": dict(sorted(manifest["results"].items())),
                                         "digests": {f: d for f, d in sorted(digests.items()) if d},
                                         **({"uses": models} if models else {})})


def record_digests(folder: str | Path) -> int:
    """Record the digest of every result of ``folder``'s manifest that has none yet (results stored before digests
    were kept), trusting the file as it is now; returns how many were added."""
    manifest = read_keys(folder)
    digests = manifest.setdefault("digests", {})
    added = {f: d for f in manifest["results"] if f not in digests and (d := stored_digest(folder, f))}
    if added:
        digests.update(added)
        write_json(Path(folder) / KEY_FILE, {**manifest, "digests": dict(sorted(digests.items()))})
    return len(added)


def compress_stored(folder: str | Path, files=None, above: int = COMPRESS_ABOVE) -> list[tuple[Path, int, int]]:
    """Store each result of ``folder``'s manifest (or only ``files``, relative to it) that is a plain JSON or CSV text
    longer than ``above`` characters, or one stored gzip-compressed before, xz-compressed instead (``X.json`` ->
    ``X.json.xz``, ``X.csv.gz`` -> ``X.csv.xz``, by :func:`~reproducer.files.write_result`): the same text once
    decompressed, under the key it was stored with and with the checkpoints it was computed from, its new digest
    recorded, so it is still reused. The manifest is read only when a result moves (a reused result calls this on every
    read). Returns ``(file as it was stored, bytes before, bytes after)`` for each result moved."""
    folder, moved = Path(folder), []
    for file in read_keys(folder)["results"] if files is None else files:
        path = folder / file
        found = stored_json(path)
        if path.suffix not in (".json", ".csv") or found is None or found.suffix == ".xz":
            continue
        if found == path and path.stat().st_size <= above:
            continue
        size = found.stat().st_size
        written = write_result(path, stored_text(found), compress_above=above if found == path else 0)
        if written == found:  # no more characters than ``above`` (UTF-8 bytes outnumber them): stays plain
            continue
        moved.append((found, size, written.stat().st_size))
        _record_again(folder, file)
    return moved


def _record_again(folder: Path, file: str) -> None:
    """Record the new digest of result ``file``, stored again in another form, under the key it was stored with and
    with the checkpoints it was computed from (nothing when no key was recorded for it)."""
    manifest = read_keys(folder)
    key = manifest["keys"].get(manifest["results"].get(file))
    if key is not None:
        record_keys(folder, {file: key}, uses={file: manifest.get("uses", {}).get(file, {})})


def _rewrite_stored(folder: str | Path, rewrite: Callable[[Any, Path], Any],
                    check: Callable[[Any, Any, Path], str | None]) -> list[tuple[Path, int, int]]:
    """Store each JSON result of ``folder``'s manifest as ``rewrite(stored, its folder)`` where that changes it, after
    ``check(stored, rewritten, its folder)`` (a problem, or ``None``) passed; under the key it was stored with and with
    the checkpoints it was computed from, its new digest recorded, so it is still reused. Returns ``(file, bytes
    before, bytes after)`` for each result rewritten."""
    folder, rewritten = Path(folder), []
    for file in read_keys(folder)["results"]:
        found = stored_json(folder / file)
        if found is None or not file.endswith(".json"):
            continue
        stored, beside = read_json(folder / file, as_stored=True), (folder / file).parent
        new = rewrite(stored, beside)
        if new == stored:
            continue
        problem = check(stored, new, beside)
        if problem:
            raise ReproducerError(f"{found}: {problem}; left as it is.")
        size = found.stat().st_size
        written = write_json(folder / file, new, compress_above=0 if found != folder / file else None)
        _record_again(folder, file)
        rewritten.append((found, size, written.stat().st_size))
    return rewritten


def share_stored(folder: str | Path) -> list[tuple[Path, int, int]]:
    """Store each JSON result of ``folder``'s manifest with its per-item gold scores shared (:func:`~reproducer.files.
    share_gold`), as :meth:`NotebookRun.json` now writes them: the same value once read (checked here), under the key it
    was stored with and with the checkpoints it was computed from, its new digest recorded, so it is still reused.
    Returns ``(file, bytes before, bytes after)`` for each result rewritten."""
    def check(stored: Any, shared: Any, beside: Path) -> str | None:
        same = restore_gold(shared, beside) == restore_gold(stored, beside)
        return None if same else "its gold scores do not come back the same once shared"

    return _rewrite_stored(folder, share_gold, check)


def round_stored(folder: str | Path) -> list[tuple[Path, int, int]]:
    """Store each JSON result of ``folder``'s manifest with its per-item predicted scores at the precision
    :func:`~reproducer.evaluate.items.scored_items` now keeps (:func:`~reproducer.evaluate.items.round_predictions`:
    4 significant digits, from 6), under the key it was stored with, its new digest recorded, so it is still reused.
    Only the predictions change (checked here), each by at most half a unit of its 4th digit. Returns ``(file, bytes
    before, bytes after)`` for each result rewritten."""
    from reproducer.evaluate.items import round_predictions

    def check(stored: Any, rounded: Any, beside: Path) -> str | None:
        return None if round_predictions(rounded) == rounded and _without_predictions(rounded) == \
            _without_predictions(stored) else "rounding changed more than its predicted scores"

    return _rewrite_stored(folder, lambda stored, beside: round_predictions(stored), check)


def _without_predictions(obj: Any) -> Any:
    """``obj`` without its per-item predicted scores."""
    return walk_items(obj, lambda outcome: {k: v for k, v in outcome.items() if k != "pred"})


def store_all(root: str | Path, store: Callable[[Path], list[tuple[Path, int, int]]]) -> tuple[int, int, int]:
    """``store`` (:func:`compress_stored`, :func:`share_stored`, :func:`round_stored`) applied to every results folder
    under ``root`` that has a manifest: ``(results rewritten, bytes before, bytes after)`` over them all."""
    rewritten = before = after = 0
    for manifest in sorted(Path(root).rglob(KEY_FILE)):
        for _, size, now in store(manifest.parent):
            rewritten, before, after = rewritten + 1, before + size, after + now
    return rewritten, before, after


def _using(checkpoints) -> None:
    """Note that the result being computed (if any) reads the models of ``checkpoints`` (paths relative to the results
    root), so it is stored with their identities."""
    if _USING:
        _USING[-1].update(checkpoints)


def _identity(checkpoint: str) -> str | None:
    """The identity (:func:`reproducer.checkpoints.identity`) of a checkpoint named relative to the results root;
    ``None`` when it is not there."""
    return identity(results_root() / checkpoint)


def _flat(key: dict) -> dict[str, Any]:
    """A key as ``{name: value}``: parameters by name (``seed``), settings by dotted path (``settings.lr``)."""
    flat = {"preset": key.get("preset"), **key.get("parameters", {})}

    def walk(prefix: str, obj: Any) -> None:
        if isinstance(obj, dict):
            for k, v in obj.items():
                walk(f"{prefix}.{k}", v)
        else:
            flat[prefix] = obj

    walk("settings", key.get("settings", {}))
    return flat


def key_difference(old: dict, new: dict, most: int = 3) -> str:
    """What changed from key ``old`` to key ``new``, readable: ``seed 0 → 1; settings.lr 0.001 → 0.002``."""

    def text(value: Any) -> str:
        shown = "(none)" if value is _REQUIRED else json.dumps(value, ensure_ascii=False)
        return shown if len(shown) <= 40 else shown[:39] + "…"

    before, after = _flat(old), _flat(new)
    changes = [f"{name} {text(before.get(name, _REQUIRED))} → {text(after.get(name, _REQUIRED))}"
               for name in [*after, *(n for n in before if n not in after)]
               if before.get(name, _REQUIRED) != after.get(name, _REQUIRED)]
    more = f"; and {len(changes) - most} more" if len(changes) > most else ""
    return "; ".join(changes[:most]) + more if changes else "key recorded differently"


@dataclass
class NotebookRun:
    """One execution of a notebook at one preset: where its results go and whether to recompute them.

    :func:`start` makes it from the notebook's parameters: ``parameters`` holds every one of them but ``retrain``,
    ``changed`` those that differ from their defaults (they name the results folder). Made directly
    (``NotebookRun("01_skip_thoughts", "default")``) it is the book's run, e.g. to read another chapter's models."""

    notebook: str
    preset: str
    seed: int = 0
    retrain: bool = False
    parameters: dict = field(default_factory=dict)
    changed: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)  # the parameters cell's defaults (for sibling runs)
    _settings: Any = field(default_factory=dict, repr=False)
    _models: dict = field(default_factory=dict, repr=False)

    @property
    def dir(self) -> Path:
        """``results/<notebook>/<preset>/``, or ``results/<notebook>/<preset>+<label>/`` (:func:`folder_label`) for
        non-default parameters."""
        return RunSpec.of(self.notebook, self.preset, self.changed).folder

    def path(self, name: str) -> Path:
        return self.dir / name

    def sibling(self, preset: str | None = None, seed: int | None = None, reset: tuple[str, ...] = (),
                changes: dict[str, Any] | None = None) -> "NotebookRun":
        """This notebook's run at another ``preset`` and/or ``seed``, with this run's other parameters but those in
        ``reset`` (back to their defaults, e.g. a budget that does not apply at the other preset) and those in
        ``changes`` (parameter → value, e.g. ``{"max_steps": 24000}``) — so with the results folder and keys that
        executing the notebook with them gives: where a chapter keeps the extra training seeds of its claims, or a
        model trained longer. Declare its settings (:meth:`settings`) as the notebook's set-up cell does."""
        preset = check_preset(preset or self.preset)
        seed = self.seed if seed is None else seed
        changes = dict(changes or {})
        unknown = sorted(set(changes) - set(self.defaults)) if self.defaults else []
        if unknown:
            raise ReproducerError(f"{self.notebook} has no parameter {', '.join(unknown)}.")
        parameters = {**self.parameters, **{k: self.defaults[k] for k in reset if k in self.defaults}, **changes,
                      "preset": preset, "seed": seed}
        changed = {k: v for k, v in self.changed.items() if k != "seed" and k not in reset and k not in changes}
        changed.update({k: v for k, v in changes.items() if k not in self.defaults or v != self.defaults[k]})
        if seed != 0:
            changed["seed"] = seed
        run = NotebookRun(self.notebook, preset, seed, self.retrain, parameters=parameters, changed=changed,
                          defaults=self.defaults)
        if changed:
            run.record("parameters", changed)
        return run

    @property
    def key(self) -> dict:
        """The key this run's results are stored under (:func:`result_key`)."""
        return result_key(self.preset, {"preset": self.preset, "seed": self.seed, **self.parameters}, self._settings)

    def settings(self, obj: Any, write: bool = True) -> Path:
        """Declare what the results depend on besides the parameters (the preset's settings, the tasks…): it joins
        the key of every result stored after this call (entries named ``device`` excepted), and is written to
        ``settings.json`` like :meth:`record`. Call it before the first result. ``write=False``: the key only, for a
        view that reads another run's stored results and writes nothing in its folder."""
        self._settings = _plain(obj)
        return self.record("settings", obj) if write else self.path("settings.json")

    def reusable(self, file: str) -> bool:
        """Whether the stored result ``file`` (e.g. ``"table8.json"``) would be reused: it exists, was stored under
        this run's key, and ``retrain`` is off."""
        return not self.retrain and stored_json(self.path(file)) is not None and self._why_not_reused(file) is None

    def _why_not_reused(self, file: str, manifest: dict | None = None) -> str | None:
        """Why the stored result ``file`` may not be reused (``None``: it may): no key or another key recorded for
        it, its SHA-256 no longer the one recorded when it was written, or the checkpoint of a model it was computed
        from changed since (``python -m reproducer train`` extended it, or another run replaced it; a checkpoint that
        is gone changes nothing: the results are what is kept of it). ``manifest``: the folder's, if already read."""
        manifest = manifest or read_keys(self.dir)
        recorded = comparable_key(manifest["keys"].get(manifest["results"].get(file)))
        if recorded != self.key:
            return "no key recorded" if recorded is None else key_difference(recorded, self.key)
        expected = manifest.get("digests", {}).get(file)
        if expected and expected != stored_digest(self.dir, file):
            return "the stored file changed after it was written (its SHA-256 is not the recorded one)"
        for checkpoint, was in manifest.get("uses", {}).get(file, {}).items():
            now = _identity(checkpoint)
            if now is not None and now != was:
                return (f"the checkpoint {checkpoint} changed after this result was computed from it (trained further "
                        f"or replaced: {str(was)[:12]}… → {now[:12]}…)")
        return None

    def _cached(self, path: Path, compute: Callable[[], Any], load: Callable[[Path], Any],
                save: Callable[[Path, Any], None]) -> Any:
        file, shown, key = path.relative_to(self.dir).as_posix(), path.relative_to(results_root().parent), self.key
        folders = [p for p in (path, *(path.with_name(path.name + s) for s in COMPRESSED), self.dir / KEY_FILE)
                   if p.is_dir()]
        if folders:  # found before computing: writing over a folder fails after the work
            raise ReproducerError(f"{folders[0]} is a folder where a results file belongs: remove it (what it stood "
                                  "for is then computed again).")
        why = None
        if stored_json(path) is not None and not self.retrain:
            manifest = read_keys(self.dir)
            why = self._why_not_reused(file, manifest)
            if why is None:
                try:
                    value = load(path)
                    logger.info(f"[reused] {shown}")
                    _using(manifest.get("uses", {}).get(file, {}))  # a result computed from it uses them too
                    return value
                except (ValueError, OSError, EOFError, lzma.LZMAError) as e:  # truncated JSON, CSV, xz or gzip: again
                    why = f"the stored file is damaged ({type(e).__name__})"
                except DamagedResultError as e:  # its shared gold scores are missing or changed
                    why = f"its gold scores cannot be trusted ({str(e).split(':')[0]})"
        t0 = time.perf_counter()
        _USING.append(set())
        try:
            value = compute()
        finally:
            used = _USING.pop()
        _using(used)
        save(path, value)
        record_keys(self.dir, {file: key}, uses={file: {c: i for c in sorted(used) if (i := _identity(c))}})
        took = f"{time.perf_counter() - t0:.1f} s"
        logger.info(f"[recomputed in {took}: {why}] {shown}" if why else f"[computed in {took}] {shown}")
        return value

    def json(self, name: str, compute: Callable[[], Any], *, compress_above: int = COMPRESS_ABOVE) -> Any:
        """``<run.dir>/<name>.json``: loaded if stored under this run's key (unless ``retrain``), else computed. A
        result above ``compress_above`` characters (:data:`~reproducer.files.COMPRESS_ABOVE`; 0: every result, e.g.
        one carrying bootstrap replicates, which xz makes about 5× smaller) is stored as ``<name>.json.xz`` (same name
        in the manifest and for every reader: :func:`~reproducer.files.read_json`). A reused result stored plain above
        ``compress_above`` is stored again compressed, its digest recorded anew: the same value, in the asked form."""
        path = self.path(f"{name}.json")
        value = self._cached(path, compute, read_json,
                             lambda p, v: write_json(p, share_gold(v, p.parent), compress_above=compress_above))
        compress_stored(self.dir, [path.relative_to(self.dir).as_posix()], compress_above)  # a reused plain result
        return value

    def frame(self, name: str, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
        """The same for a table, stored as ``<name>.csv`` (the index is not stored: keep keys in columns); one above
        :data:`~reproducer.files.COMPRESS_ABOVE` characters as ``<name>.csv.xz``, read under its plain name as a JSON
        result is (:func:`~reproducer.files.stored_json`)."""

        def save(path: Path, df: pd.DataFrame) -> None:
            if not isinstance(df, pd.DataFrame):
                raise ReproducerError(f"{name}: expected a DataFrame, got {type(df).__name__}.")
            write_result(path, df.to_csv(index=False), compress_above=COMPRESS_ABOVE)

        path = self.path(f"{name}.csv")
        value = self._cached(path, compute, lambda p: pd.read_csv(stored_json(p)), save)
        compress_stored(self.dir, [path.relative_to(self.dir).as_posix()])  # a reused plain table
        return value

    def record(self, name: str, obj: Any) -> Path:
        """Write ``<name>.json`` (e.g. a table the notebook rebuilds on every execution); no key is recorded: it is
        never reused. A file that holds ``obj`` already is left as it is, so re-executing a notebook whose results are
        all stored writes nothing (its results folder may be read-only)."""
        path = self.path(f"{name}.json")
        found = stored_json(path)
        if found is not None:
            try:
                if read_json(path) == json.loads(json.dumps(obj, ensure_ascii=False)):
                    return found
            except (OSError, ValueError, TypeError):  # unreadable, or not JSON: written below
                pass
        return write_json(path, obj, compress_above=COMPRESS_ABOVE)

    def earlier_path(self, chapter: str, file: str, *, same_seed: bool = False) -> Path:
        """Where an earlier ``chapter`` keeps ``file``: ``results/<chapter>/<this preset>/<file>`` (its main run), or
        with ``same_seed`` in the folder of this run's name (the same preset, seed and parameters: how a chapter
        compares with another chapter's model seed by seed). The one place a chapter finds another chapter's results
        (each paper declares the chapters it reads: :attr:`~reproducer.declarations.Paper.reads`)."""
        return results_root() / chapter / (self.dir.name if same_seed else self.preset) / file

    def earlier(self, chapter: str, name: str, default: Any = _REQUIRED, *, same_seed: bool = False) -> Any:
        """``<name>.json`` of an earlier chapter (:meth:`earlier_path`; e.g. ``run.earlier("01_skip_thoughts",
        f"eval_{slug('combine-skip')}")``), with a clear error when that chapter has not been run at this preset —
        or ``default`` then, when one is given (e.g. ``None`` for a table row that is left out)."""
        path = self.earlier_path(chapter, f"{name}.json", same_seed=same_seed)
        if stored_json(path) is None and default is not _REQUIRED:
            return default
        if stored_json(path) is None:
            raise ReproducerError(f"{path} is missing: run notebooks/{chapter}.ipynb at preset {self.preset!r} first.")
        return read_json(path)

    def _checkpoint(self, name: str) -> str:
        """Model ``name``'s training checkpoint, relative to the results root: how the manifest names it in ``uses``."""
        return model_files(self.dir, name)["train"].relative_to(results_root()).as_posix()

    def bundle_path(self, name: str) -> Path:
        """Where model ``name``'s encoder bundle is saved (``checkpoints/<slug>.encoder.pt``, git-ignored)."""
        return model_files(self.dir, name)["encoder"]

    def model(self, name: str, fit: Callable[[Path], Any]):
        """Train-or-reload one model: this kernel's trained model if there is one; else ``fit(checkpoint)`` — which
        trains, resuming from ``checkpoint`` (deleted first with ``retrain``) — whose encoder bundle is then saved
        for ``python -m reproducer evaluate --encoder``. Returns what ``fit`` returned (a
        :class:`~reproducer.fit.Fitted`). Cached results of a model are read with :meth:`json`, so a re-executed
        notebook trains nothing; :meth:`has_model` says whether its encoder can be had without training.

        A model whose training record (:meth:`training_record`) is reused but whose checkpoint is gone raises instead of
        training again: a new run (a time budget, another machine) would be another model than the one its cached
        results describe."""
        _using([self._checkpoint(name)])
        if name not in self._models:
            files = model_files(self.dir, name)
            state = files["train"]
            if self.retrain:
                state.unlink(missing_ok=True)
                files["half"].unlink(missing_ok=True)
            record = f"{training_record_name(name)}.json"
            if not state.is_file() and self.reusable(record):
                raise ReproducerError(
                    f"{name}: its results are cached ({self.path(record)}) but its checkpoint is gone, and a result "
                    f"that needs the model is not cached. Training it again would give another model than the one "
                    f"those results describe: delete {record} and the model's other cached results in {self.dir} to "
                    f"train it again as a whole unit (or execute with -p retrain true).")
            fitted = fit(state)
            fitted.encoder.save(self.bundle_path(name))
            self._models[name] = fitted
        return self._models[name]

    def training_record(self, name: str, compute: Callable[[], dict]) -> dict:
        """Model ``name``'s training record, ``<name>_training.json`` (:meth:`json`; ``compute`` trains it when
        needed): the file :meth:`model` checks before training a model again."""
        return self.json(training_record_name(name), compute)

    def encoder(self, name: str, **options):
        """The trained encoder of model ``name``: this kernel's, else its saved bundle (loaded with the kind's
        ``options``, e.g. ``view="all"`` for a consensus model's :class:`~reproducer.encoders.multiview.ViewSet`, what
        this kernel's model is); ``None`` if neither exists (then only training makes it)."""
        _using([self._checkpoint(name)])
        if name in self._models:
            return self._models[name].encoder
        if self.bundle_path(name).is_file():
            from reproducer.encoders.bundles import load_encoder

            return load_encoder(self.bundle_path(name), **options)
        return None

    def half_encoder(self, name: str, **options):
        """Model ``name``'s encoder as it was at half its step budget: the bundle its training saved halfway
        (``checkpoints/<slug>.half.encoder.pt``, git-ignored: :func:`~reproducer.checkpoints.half_budget_bundle`),
        named ``name``; ``None`` when it is gone (then only training the model again makes it). A result computed
        from it uses the model's checkpoint, as one computed from the full encoder does."""
        _using([self._checkpoint(name)])
        path = model_files(self.dir, name)["half"]
        if not path.is_file():
            return None
        from reproducer.encoders.bundles import load_encoder

        encoder = load_encoder(path, **options)
        encoder.name = name
        return encoder

    def has_half(self, *names: str) -> bool:
        """Whether every named model's half-budget encoder (:meth:`half_encoder`) is saved."""
        return all(model_files(self.dir, n)["half"].is_file() for n in names)

    def has_model(self, *names: str) -> bool:
        """Whether every named model's encoder is available without training (trained here, or a saved bundle)."""
        return all(n in self._models or self.bundle_path(n).is_file() for n in names)

    def save_figure(self, fig, name: str) -> Path:
        """Also keep a figure as ``<name>.png`` next to the numbers it shows; first made readable on the page
        (:func:`readable_figure`), which is what ``plt.show()`` then displays too."""
        readable_figure(fig)
        path = self.path(f"{name}.png")
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format="png", bbox_inches="tight")
        return path

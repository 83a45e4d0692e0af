"""Conventions shared by every notebook of the book: presets, seeds, the results store, one plot style.

A notebook's first code cell is tagged ``parameters`` (so ``papermill --help-notebook`` lists it) and
starts with ``preset``; its next cell calls :func:`start`::

    run = start("00_data", preset, seed=seed, retrain=retrain)
    stats = run.json("corpus_stats", lambda: compute_stats())      # reused when present
    table = run.frame("benchmarks", lambda: build_table())          # CSV

Results live in ``results/<notebook>/<preset>/`` (``REPRODUCER_RESULTS_DIR`` overrides ``results/``):
metrics as JSON, curves and tables as CSV. They are written atomically and reused on the next run
unless ``retrain=True``, so re-executing a notebook to rebuild its prose or plots costs seconds.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from reproducer.errors import ReproducerError
from reproducer.io import atomic_path, write_json
from reproducer.runtime import seed_everything

PRESETS = ("smoke", "default", "paper")
_REQUIRED = object()
_CHECKOUT = Path(__file__).resolve().parents[1]


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


def model_files(folder: str | Path, name: str) -> dict[str, Path]:
    """Model ``name``'s git-ignored files under a results folder: ``train`` (the training checkpoint, resumable),
    ``encoder`` (the encoder bundle) and ``log`` (``python -m reproducer train``'s log), all in ``checkpoints/``. The one
    rule shared by the notebooks and :mod:`reproducer.runs`, so a notebook finds a model trained from the command
    line."""
    folder = Path(folder) / "checkpoints"
    return {kind: folder / f"{slug(name)}.{suffix}"
            for kind, suffix in (("train", "train.pt"), ("encoder", "encoder.pt"), ("log", "log.json"))}


def check_preset(preset: str) -> str:
    """Return ``preset`` if it is one of :data:`PRESETS`, else raise with the choices."""
    if preset not in PRESETS:
        raise ReproducerError(f"Unknown preset {preset!r}; choose one of {', '.join(PRESETS)}.")
    return preset


def set_style() -> None:
    """The book's one plotting style: seaborn whitegrid, colour-blind palette, readable sizes."""
    import matplotlib as mpl
    import seaborn as sns

    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind")
    mpl.rcParams.update({"figure.dpi": 110, "savefig.dpi": 110, "figure.figsize": (7.0, 3.6),
                         "axes.titlesize": "medium", "axes.titleweight": "bold", "legend.frameon": False})


@dataclass
class NotebookRun:
    """One execution of a notebook at one preset: where its results go and whether to recompute them."""

    notebook: str
    preset: str
    seed: int = 0
    retrain: bool = False
    _models: dict = field(default_factory=dict, repr=False)

    @property
    def dir(self) -> Path:
        return results_root() / self.notebook / self.preset

    def path(self, name: str) -> Path:
        return self.dir / name

    def _cached(self, path: Path, compute: Callable[[], Any], load: Callable[[Path], Any],
                save: Callable[[Path, Any], None]) -> Any:
        if path.is_file() and not self.retrain:
            print(f"[reused] {path.relative_to(results_root().parent)}")
            return load(path)
        t0 = time.perf_counter()
        value = compute()
        save(path, value)
        print(f"[computed in {time.perf_counter() - t0:.1f} s] {path.relative_to(results_root().parent)}")
        return value

    def json(self, name: str, compute: Callable[[], Any]) -> Any:
        """``results/<notebook>/<preset>/<name>.json``: loaded if present (unless ``retrain``), else computed."""
        return self._cached(self.path(f"{name}.json"), compute,
                            lambda p: json.loads(p.read_text(encoding="utf-8")), write_json)

    def frame(self, name: str, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
        """The same for a table, stored as ``<name>.csv`` (the index is not stored: keep keys in columns)."""

        def save(path: Path, df: pd.DataFrame) -> None:
            if not isinstance(df, pd.DataFrame):
                raise ReproducerError(f"{name}: expected a DataFrame, got {type(df).__name__}.")
            with atomic_path(path) as tmp:
                df.to_csv(tmp, index=False)

        return self._cached(self.path(f"{name}.csv"), compute, pd.read_csv, save)

    def record(self, name: str, obj: Any) -> Path:
        """Always write ``<name>.json`` (e.g. the effective settings of this execution)."""
        path = self.path(f"{name}.json")
        write_json(path, obj)
        return path

    def earlier(self, chapter: str, name: str, default: Any = _REQUIRED) -> Any:
        """``results/<chapter>/<this preset>/<name>.json`` of an earlier chapter (e.g. ``run.earlier("01_skip_thoughts",
        f"eval_{slug('combine-skip')}")``), with a clear error when that chapter has not been run at this preset —
        or ``default`` then, when one is given (e.g. ``None`` for a table row that is left out)."""
        path = results_root() / chapter / self.preset / f"{name}.json"
        if not path.is_file() and default is not _REQUIRED:
            return default
        if not path.is_file():
            raise ReproducerError(f"{path} is missing: run notebooks/{chapter}.ipynb at preset {self.preset!r} first.")
        return json.loads(path.read_text(encoding="utf-8"))

    def bundle_path(self, name: str) -> Path:
        """Where model ``name``'s encoder bundle is saved (``checkpoints/<slug>.encoder.pt``, git-ignored)."""
        return model_files(self.dir, name)["encoder"]

    def model(self, name: str, fit: Callable[[Path], Any]):
        """Train-or-reload one model: this kernel's trained model if there is one; else ``fit(checkpoint)`` — which
        trains, resuming from ``checkpoint`` (deleted first with ``retrain``) — whose encoder bundle is then saved
        for ``python -m reproducer evaluate --encoder``. Returns what ``fit`` returned (a
        :class:`~reproducer.train.Fitted`). Cached results of a model are read with :meth:`json`, so a re-executed
        notebook trains nothing; :meth:`has_model` says whether its encoder can be had without training."""
        if name not in self._models:
            state = model_files(self.dir, name)["train"]
            if self.retrain:
                state.unlink(missing_ok=True)
            fitted = fit(state)
            fitted.encoder.save(self.bundle_path(name))
            self._models[name] = fitted
        return self._models[name]

    def encoder(self, name: str):
        """The trained encoder of model ``name``: this kernel's, else its saved bundle; ``None`` if neither exists
        (then only training makes it)."""
        if name in self._models:
            return self._models[name].encoder
        if self.bundle_path(name).is_file():
            from reproducer.encoders.bundles import load_encoder

            return load_encoder(self.bundle_path(name))
        return None

    def has_model(self, *names: str) -> bool:
        """Whether every named model's encoder is available without training (trained here, or a saved bundle)."""
        return all(n in self._models or self.bundle_path(n).is_file() for n in names)

    def save_figure(self, fig, name: str) -> Path:
        """Also keep a figure as ``<name>.png`` next to the numbers it shows."""
        path = self.path(f"{name}.png")
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format="png", bbox_inches="tight")
        return path


def start(notebook: str, preset: str, *, seed: int = 0, retrain: bool = False) -> NotebookRun:
    """Validate the preset, seed everything, set the plot style; return the run's results store."""
    run = NotebookRun(notebook, check_preset(preset), seed, retrain)
    seed_everything(seed)
    set_style()
    print(f"{notebook}: preset={preset} seed={seed} retrain={retrain} results={run.dir}")
    return run


def _code_cells(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def check_outputs(paths: list[str | Path]) -> None:
    """Raise unless every notebook was executed and committed with outputs (what ``make book`` shows:
    the book is built with execution off)."""
    import nbformat

    problems = []
    for path in map(Path, paths):
        nb = nbformat.read(path, as_version=4)
        cells = _code_cells(nb)
        unexecuted = [i for i, c in enumerate(cells) if c.get("execution_count") is None]
        errors = [i for i, c in enumerate(cells) if any(o.get("output_type") == "error" for o in c.outputs)]
        if not cells or len(unexecuted) == len(cells):
            problems.append(f"{path}: has no outputs (never executed)")
        elif unexecuted:
            problems.append(f"{path}: code cells {unexecuted} were not executed")
        if errors:
            problems.append(f"{path}: code cells {errors} end in an error")
    if problems:
        raise ReproducerError("The book is built from the notebooks' committed outputs, and\n  "
                              + "\n  ".join(problems)
                              + "\nRun `make reproduce` (or papermill on that notebook with -p preset default) first.")


def _assigned_names(source: str) -> list[str]:
    """Names assigned at the top level of a cell, in order."""
    import ast

    names = []
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def check_conventions(path: str | Path) -> dict:
    """The book's notebook conventions, checked: the first code cell is tagged ``parameters`` and
    starts with ``preset``; it and the set-up cell after it are tagged ``hide-input``; returns the parameters papermill infers (name -> type, default, help)."""
    import nbformat
    from papermill import inspect_notebook

    nb = nbformat.read(path, as_version=4)
    if not nb.metadata.get("kernelspec", {}).get("name"):
        raise ReproducerError(f"{path}: no kernelspec in the notebook's metadata (papermill needs one).")
    cells = _code_cells(nb)
    if not cells or "parameters" not in cells[0].metadata.get("tags", []):
        raise ReproducerError(f"{path}: the first code cell must be tagged 'parameters'.")
    plumbing = [c for c in cells if "injected-parameters" not in c.metadata.get("tags", [])][:2]
    if any("hide-input" not in c.metadata.get("tags", []) for c in plumbing):
        raise ReproducerError(f"{path}: tag the parameters cell and the set-up cell after it 'hide-input' (the book "
                              f"folds that plumbing away; papermill's injected cell is hidden by book/css).")
    params = inspect_notebook(str(path))
    if not params or next(iter(params)) != "preset":
        raise ReproducerError(f"{path}: the first parameter must be `preset`.")
    assigned = _assigned_names(cells[0].source)
    unparsed = [n for n in assigned if n not in params]
    if unparsed:
        raise ReproducerError(f"{path}: papermill cannot read the parameters {unparsed} (it skips annotations such as "
                              f"`float | None` and comments containing '='); use a plain type and a sentinel default.")
    missing = [n for n, p in params.items() if p["inferred_type_name"] == "None" or not p["help"]]
    if missing:
        raise ReproducerError(f"{path}: parameters without a type annotation or comment: {missing}.")
    return {n: {"type": p["inferred_type_name"], "default": p["default"], "help": p["help"]}
            for n, p in params.items()}


def smoke(paths: list[str | Path], out_dir: str | Path | None = None) -> dict[str, float]:
    """Execute each notebook at the ``smoke`` preset into ``out_dir`` (a temporary folder by default),
    with results in a fresh results store there; the committed notebooks and results are untouched.
    Returns seconds per notebook; raises on the first failure, naming the notebook and the output copy."""
    import tempfile

    import papermill as pm

    out = Path(out_dir or tempfile.mkdtemp(prefix="reproducer-smoke-"))
    out.mkdir(parents=True, exist_ok=True)
    seconds: dict[str, float] = {}
    old = os.environ.get("REPRODUCER_RESULTS_DIR")
    os.environ["REPRODUCER_RESULTS_DIR"] = str(out / "results")
    try:
        for path in map(Path, paths):
            check_conventions(path)
            target = out / path.name
            t0 = time.perf_counter()
            try:
                pm.execute_notebook(str(path), str(target), parameters={"preset": "smoke"},
                                    cwd=str(path.parent), progress_bar=False)
            except Exception as e:  # papermill raises PapermillExecutionError with the cell's traceback
                raise ReproducerError(f"{path} failed at the smoke preset (executed copy: {target}):\n{e}") from e
            seconds[path.name] = time.perf_counter() - t0
            print(f"smoke {path.name}: {seconds[path.name]:.1f} s", flush=True)
    finally:
        if old is None:
            os.environ.pop("REPRODUCER_RESULTS_DIR", None)
        else:
            os.environ["REPRODUCER_RESULTS_DIR"] = old
    return seconds

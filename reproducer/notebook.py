"""Conventions shared by every notebook of the book: parameters, presets, the results store, one plot style.

A notebook's first code cell is tagged ``parameters`` (so ``papermill --help-notebook`` lists it): one annotated
assignment per parameter (``seed: int = 0  # help``), ``preset`` first. Its set-up cell calls :func:`start`, which
reads that cell, coerces papermill's values (``-p retrain false`` is the string ``"false"``) to the declared types in
the notebook's namespace, and returns the run's results store (a :class:`~reproducer.results_store.NotebookRun`; the
seed is the models': :func:`reproducer.fit.fit` sets it for each one)::

    run = start("00_data", globals())
    run.settings({"lr": settings.lr, "tasks": tasks})                # what the results depend on besides parameters
    stats = run.json("corpus_stats", lambda: compute_stats())       # reused when stored under the same key
    table = run.frame("benchmarks", lambda: build_table())          # CSV

Where results live and when a stored one is reused: :mod:`reproducer.results_store`. This module also checks the
committed notebooks (:func:`check_outputs`, :func:`check_conventions`) and smoke-runs them (:func:`smoke`).
"""
from __future__ import annotations

import ast
import difflib
import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reproducer.errors import ReproducerError
from reproducer.log import log_to, logger
from reproducer.plot_style import set_style
from reproducer.results_store import NOT_IN_KEY, PRESETS, NotebookRun, result_key, results_root

_CHECKOUT = Path(__file__).resolve().parents[1]
#: The types a parameter may be annotated with, by annotation.
TYPES = {"str": str, "int": int, "float": float, "bool": bool}
_BOOLS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


# --- Parameters: declared by the notebook's parameters cell, coerced by start() -----------------------------------


@dataclass(frozen=True)
class Parameter:
    """One parameter of a notebook's parameters cell: ``name: type = default  # help``."""

    name: str
    type: type
    default: Any


def notebook_path(notebook: str) -> Path:
    """The notebook file ``notebook`` (e.g. ``"00_data"``): the checkout's ``notebooks/<notebook>.ipynb``, else
    ``<notebook>.ipynb`` in the working folder (papermill runs a notebook in its own folder)."""
    for path in (_CHECKOUT / "notebooks" / f"{notebook}.ipynb", Path.cwd() / f"{notebook}.ipynb"):
        if path.is_file():
            return path
    raise ReproducerError(f"No notebook {notebook!r}: neither {_CHECKOUT / 'notebooks'} nor {Path.cwd()} has "
                          f"{notebook}.ipynb, whose parameters cell declares its parameters.")


def _shown(path: Path) -> str:
    """``path`` relative to the checkout when it is inside it (``notebooks/00_data.ipynb``), else as given."""
    path = Path(path).resolve()
    return path.relative_to(_CHECKOUT).as_posix() if path.is_relative_to(_CHECKOUT) else str(path)


def parameters_source(path: str | Path) -> str:
    """The source of the notebook's code cell tagged ``parameters`` (its parameters and their help comments)."""
    path = Path(path)
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    cell = next((c for c in cells if c["cell_type"] == "code" and "parameters" in c["metadata"].get("tags", [])), None)
    if cell is None:
        raise ReproducerError(f"{_shown(path)}: no code cell is tagged 'parameters'.")
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def read_parameters(path: str | Path) -> dict[str, Parameter]:
    """The parameters declared by the notebook's cell tagged ``parameters``, in order: each a top-level assignment
    annotated with one of :data:`TYPES` whose default is a literal (the cell is parsed, never run)."""
    path = Path(path)
    where = f"{_shown(path)}'s parameters cell"
    source = parameters_source(path)
    declared = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            raise ReproducerError(f"{where}: parameter {', '.join(names)} has no type annotation (str, int, float or "
                                  f"bool).")
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            continue
        name, annotation = node.target.id, ast.unparse(node.annotation)
        if annotation not in TYPES or node.value is None:
            raise ReproducerError(f"{where}: parameter {name} must be annotated str, int, float or bool and given a "
                                  f"default, not `{ast.unparse(node)}`.")
        declared[name] = Parameter(name, TYPES[annotation], ast.literal_eval(node.value))
    return declared


def coerce(parameter: Parameter, value: Any, where: str = "its parameters cell") -> Any:
    """``value`` (as papermill passes it: ``-p seed 1`` is ``1``, ``-p retrain false`` the string ``"false"``) as a
    value of ``parameter``'s type, or a :class:`ReproducerError` naming the parameter, its type and the value.

    A bool is True/False, 1/0 or one of the strings true/false/yes/no/1/0 (any case); an int an int, or a string or
    float holding an integer (``"7"``, ``7.0``; not ``1.5``, nor a bool); a float a number or a numeric string; a str a
    str. Numbers must be finite and ≥ 0 (no parameter of the book is meaningfully negative); ``preset`` one of
    :data:`PRESETS`."""
    kind, result = parameter.type, None
    if kind is bool:
        if isinstance(value, bool):
            result = value
        elif isinstance(value, int) and value in (0, 1):
            result = bool(value)
        elif isinstance(value, str):
            result = _BOOLS.get(value.strip().lower())
    elif kind is str:
        result = value if isinstance(value, str) else None
    elif not isinstance(value, bool) and isinstance(value, (int, float, str)):
        try:
            number = float(value) if not isinstance(value, int) else value
        except ValueError:
            number = None
        if number is not None and math.isfinite(number) and number >= 0:
            if kind is float:
                result = float(number)
            elif float(number).is_integer():
                result = int(number) if isinstance(number, float) else number
    if result is None:
        article = "an" if kind is int else "a"
        rule = " ≥ 0" if kind in (int, float) else ", true/false/yes/no/1/0," if kind is bool else ""
        raise ReproducerError(f"Parameter {parameter.name} must be {article} {kind.__name__}{rule} ({where}), "
                              f"got {value!r}.")
    if parameter.name == "seed" and result >= 2**32:
        raise ReproducerError(f"Parameter seed must be at most 2**32 - 1 = {2**32 - 1} ({where}), got {value!r}.")
    if parameter.name == "preset" and result not in PRESETS:
        raise ReproducerError(f"Parameter preset must be one of {', '.join(PRESETS)} ({where}), got {value!r}.")
    return result


def default_parameters(path: str | Path) -> dict[str, Any]:
    """Every parameter of the notebook at ``path`` at its declared default (coerced: ``max_seconds: float = 0`` is
    ``0.0``)."""
    where = f"{_shown(Path(path))}'s parameters cell"
    return {name: coerce(p, p.default, where) for name, p in read_parameters(path).items()}


def book_key(notebook: str, preset: str, settings: Any, *, path: str | Path | None = None) -> dict:
    """The key of the book's run of ``notebook`` (every parameter at its default) at ``preset`` with ``settings``."""
    parameters = {**default_parameters(path or notebook_path(notebook)), "preset": preset}
    return result_key(preset, parameters, settings)


def at_least_one(**parameters: int) -> None:
    """Refuse a count parameter of 0 (``-p samples_per_task 0``), which would leave a table with nothing in it:
    :class:`ReproducerError` naming the parameter."""
    for name, value in parameters.items():
        if value < 1:
            raise ReproducerError(f"Parameter {name} must be at least 1 (-p {name} N), got {value!r}: with 0 there is "
                                  "nothing to show.")


#: What papermill can inject as a parameter (``-p``: a number, a string, a bool; ``-y``: also a list or a mapping).
_INJECTABLE = (str, int, float, bool, list, dict, tuple, type(None))
#: What IPython itself puts in a notebook's namespace (the input and output history).
_KERNEL_NAMES = {"In", "Out"}


def _undeclared(namespace: dict, declared: dict, path: Path) -> list[str]:
    """The names papermill injected into ``namespace`` that the notebook at ``path`` does not declare: plain values
    that no code cell of the notebook binds (so a kernel in which later cells already ran is not mistaken for one)."""
    bound = set(declared)
    for cell in json.loads(path.read_text(encoding="utf-8")).get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        try:
            tree = ast.parse(source)
        except SyntaxError:  # IPython magics: their cells bind nothing a parameter could be mistaken for
            continue
        bound |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        bound |= {a.asname or a.name.split(".")[0] for n in ast.walk(tree)
                  if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    return sorted(name for name, value in namespace.items() if not name.startswith("_") and name not in bound
                  and name not in _KERNEL_NAMES and isinstance(value, _INJECTABLE))


def start(notebook: str, namespace: dict, *, path: str | Path | None = None) -> NotebookRun:
    """Set up a notebook's execution from its parameters, as its set-up cell does: ``run = start("00_data",
    globals())``.

    Reads the parameters declared by the notebook's parameters cell (``path``, by default :func:`notebook_path`),
    coerces each one's value in ``namespace`` to its declared type (:func:`coerce`: papermill's ``-p retrain false``
    becomes ``False``) and writes it back there for the cells that follow; sets the plot style; returns the run's
    results store (the ``seed`` is each model's, set by :func:`reproducer.fit.fit`). Parameters that differ from
    their defaults give the run its own results folder, listed in its ``parameters.json`` — but ``preset`` (a folder
    of its own already) and those that change no result (:data:`~reproducer.results_store.NOT_IN_KEY`: ``retrain``,
    ``seeds``: raising ``seeds`` reuses the seeds computed and trains the new ones only). A name given to papermill
    that the parameters cell does not declare (``-p sed 5``) is an error naming the close match: a typo would
    otherwise run the book's experiment under the name of another."""
    path = Path(path) if path else notebook_path(notebook)
    where = f"{_shown(path)}'s parameters cell"
    declared, defaults = read_parameters(path), default_parameters(path)
    if "preset" not in declared:
        raise ReproducerError(f"{where}: declares no `preset`.")
    unknown = _undeclared(namespace, declared, path)
    if unknown:
        name = unknown[0]
        close = difflib.get_close_matches(name, declared, n=1)
        raise ReproducerError(f"Unknown parameter {name!r} (-p {name} {namespace[name]!r}): {where} declares "
                              f"{', '.join(declared)}" + (f"; did you mean {close[0]!r}?" if close else "."))
    values = {}
    for name, parameter in declared.items():
        if name not in namespace:
            raise ReproducerError(f"Parameter {name} is not defined: run {where} first.")
        values[name] = namespace[name] = coerce(parameter, namespace[name], where)
    changed = {name: value for name, value in values.items()
               if name != "preset" and name not in NOT_IN_KEY and value != defaults[name]}
    run = NotebookRun(notebook, values["preset"], values.get("seed", 0), values.get("retrain", False),
                      parameters={name: value for name, value in values.items() if name != "retrain"},
                      changed=changed, defaults=defaults)
    if changed:
        run.record("parameters", changed)
    set_style()
    header = (f"{notebook}: preset={run.preset} seed={run.seed} retrain={run.retrain} "
              f"results={run.dir.relative_to(results_root().parent).as_posix()}")
    if changed:
        header += " (non-default parameters: " + ", ".join(f"{n}={v!r}" for n, v in changed.items()) + ")"
    log_to(run.path("run.log"))
    logger.info(header)
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
    names = []
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def _calls_start(source: str, notebook: str) -> bool:
    """Whether a cell calls ``start("<notebook>", globals())``."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "start"
               and len(node.args) >= 2 and isinstance(node.args[0], ast.Constant) and node.args[0].value == notebook
               and ast.unparse(node.args[1]) == "globals()"
               for node in ast.walk(ast.parse(source)))


def check_conventions(path: str | Path) -> dict:
    """The book's notebook conventions, checked: the first code cell is tagged ``parameters``, starts with
    ``preset`` and annotates every parameter with str, int, float or bool (what :func:`start` coerces to); it and the
    set-up cell after it are tagged ``hide-input``; the set-up cell calls ``start("<notebook>", globals())``. Returns
    the parameters papermill infers (name -> type, default, help)."""
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
    read_parameters(path)
    if len(plumbing) < 2 or not _calls_start(plumbing[1].source, Path(path).stem):
        raise ReproducerError(f"{path}: the set-up cell after the parameters cell must call "
                              f"start(\"{Path(path).stem}\", globals()) (it coerces papermill's parameters).")
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

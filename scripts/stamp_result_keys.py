"""Stamp the committed results of the book's runs with the key that produced them.

A notebook reuses a stored result only when the folder's ``cache_keys.json`` records it under the key the notebook
computes now (:func:`reproducer.results_store.result_key`: the preset, the parameters, the declared settings). Results
stored before keys were recorded have none, so the next execution would recompute them all. This script records,
for each notebook of ``notebooks/``, in its book run's folder ``results/<notebook>/default/``, the key the notebook
computes there now: every parameter at its default, and the settings read from that folder's ``settings.json``
(``{}`` for the chapters that declare none; ``device`` left out, as always).

Every ``.json`` and ``.csv`` in the folder (recursively; not ``checkpoints/``, nor ``cache_keys.json``,
``settings.json`` and ``parameters.json``) is stamped unless it already has a key: a recorded key is never
overwritten, since it says what really produced the file (one that differs from the current key is listed as
stale: the notebook recomputes it). Files written by ``run.record`` (``throughput.json``, ``claims.json``) are
rewritten on every execution anyway: stamping them is harmless.

    python scripts/stamp_result_keys.py           # stamp, printing each stamped file
    python scripts/stamp_result_keys.py --check   # only report what would be stamped

Stamping asserts that the stored results are what the notebook at its current defaults and settings would
compute: run it only on results produced by the committed notebooks (``REPRODUCER_RESULTS_DIR`` picks another
results folder).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reproducer.notebook import book_key  # noqa: E402
from reproducer.results_store import KEY_FILE, key_difference, read_keys, record_keys, results_root  # noqa: E402

PRESET = "default"  # the book's committed runs
NOT_RESULTS = {KEY_FILE, "settings.json", "parameters.json"}


def result_files(folder: Path) -> list[str]:
    """The result files of a results folder, relative to it (``/``-separated), sorted."""
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*")
                  if path.is_file() and path.suffix in (".json", ".csv") and path.name not in NOT_RESULTS
                  and not path.name.startswith(".") and "checkpoints" not in path.relative_to(folder).parts)


def stamp(notebook: Path, check: bool = False) -> int:
    """Stamp the unkeyed results of ``notebook``'s book run with the key it computes now (only report with
    ``check``); returns how many were (or would be) stamped."""
    folder = results_root() / notebook.stem / PRESET
    shown = folder.relative_to(results_root().parent).as_posix()
    if not folder.is_dir():
        print(f"{shown}/: absent, nothing to stamp")
        return 0
    settings_file = folder / "settings.json"
    settings = json.loads(settings_file.read_text(encoding="utf-8")) if settings_file.is_file() else {}
    key = book_key(notebook.stem, PRESET, settings, path=notebook)
    manifest = read_keys(folder)
    todo = {}
    for file in result_files(folder):
        recorded = manifest["keys"].get(manifest["results"].get(file))
        if recorded is None:
            todo[file] = key
            print(f"{'would stamp' if check else 'stamped'} {shown}/{file}")
        elif recorded != key:
            print(f"stale {shown}/{file} (left as is, the notebook recomputes it: {key_difference(recorded, key)})")
    if todo and not check:
        record_keys(folder, todo)
    already = len(result_files(folder)) - len(todo)
    print(f"{shown}/: {len(todo)} {'to stamp' if check else 'stamped'}, {already} already keyed"
          + ("" if settings_file.is_file() else " (no settings.json: settings {})"))
    return len(todo)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only report what would be stamped")
    args = parser.parse_args(argv)
    total = sum(stamp(notebook, args.check) for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")))
    print(f"{total} result(s) {'to stamp' if args.check else 'stamped'} under {results_root()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

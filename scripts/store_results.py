"""Store every committed result in the forms the library writes now, each step a no-op where a result has that form
already: a JSON or CSV result above ``reproducer.files.COMPRESS_ABOVE`` characters xz-compressed (``.gz`` of older
runs too; :func:`reproducer.results_store.compress_stored`), each test set's per-item gold scores once per results
folder (:func:`~reproducer.results_store.share_stored`) and per-item predicted scores at 4 significant digits
(:func:`~reproducer.results_store.round_stored`; results stored before 29beb38 kept 6: a correlation over a test set
moves by at most 3e-5, Spearman's by 1e-4 where items tie); and a search explorer stored as its whole script
(``explorer/explorer_<key>.js.gz``) as named data, its pool shared (:func:`reproducer.report.explorer.store_named`,
the same script checked). All but the rounding keep every value; all keep each result's key
and the checkpoints it was computed from and record its new digest, so the notebooks still reuse it. These forms are
what leaves room for the GPU pack in the 64 MiB one device call takes (``tests/test_gpu_plan.py``). Run from the
repository root: ``python scripts/store_results.py [results folder]``."""
from __future__ import annotations

import sys
from pathlib import Path

from reproducer.report.explorer import store_named
from reproducer.results_store import compress_stored, round_stored, share_stored, store_all


def main(root: str = "results") -> int:
    for what, store in (("compressed", compress_stored), ("shared the gold scores of", share_stored),
                        ("rounded the predicted scores of", round_stored)):
        n, before, after = store_all(root, store)
        print(f"{what} {n} results: {before / 2**20:.2f} MiB -> {after / 2**20:.2f} MiB")
    for script in sorted(Path(root).glob("explorer/explorer_*.js.gz")):
        print(f"{script} -> {store_named(script)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

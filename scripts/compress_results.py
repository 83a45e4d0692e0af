"""Store every committed JSON or CSV result above ``reproducer.files.COMPRESS_ABOVE`` characters gzip-compressed
(``X.json`` -> ``X.json.gz``, ``X.csv`` -> ``X.csv.gz``), as the library now writes them: the same bytes once
decompressed, so every number stays what the notebooks computed. A result recorded in its folder's manifest
(``cache_keys.json``) keeps its key and the checkpoints it was computed from, and gets the digest of its new form, so
the notebooks still reuse it (:func:`reproducer.results_store.compress_stored`). The manifests, ``settings.json`` and
``parameters.json`` stay plain. Run from the repository root: ``python scripts/compress_results.py``."""
from __future__ import annotations

import sys
from pathlib import Path

from reproducer.results_store import KEY_FILE, compress_stored


def main(root: str = "results") -> int:
    moved = before = after = 0
    for manifest in sorted(Path(root).rglob(KEY_FILE)):
        for plain, size, compressed in compress_stored(manifest.parent):
            print(f"{plain}: {size / 1024:.0f} kB -> {compressed / 1024:.0f} kB")
            moved, before, after = moved + 1, before + size, after + compressed
    print(f"compressed {moved} results: {before / 2**20:.2f} MiB -> {after / 2**20:.2f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

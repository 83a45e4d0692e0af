"""Store every committed result with its per-item gold scores shared (``reproducer.files.share_gold``), as the library
now writes them: each test set's gold scores once per results folder (``<folder>/gold/<sha256>.json``) instead of once
per encoder scored on it, and the same value once read, so every number stays what the notebooks computed. A result
recorded in its folder's manifest (``cache_keys.json``) keeps its key and the checkpoints it was computed from, and
gets the digest of its new form, so the notebooks still reuse it (:func:`reproducer.results_store.share_stored`). Run
from
the repository root: ``python scripts/share_gold.py``."""
from __future__ import annotations

import sys
from pathlib import Path

from reproducer.results_store import KEY_FILE, share_stored


def main(root: str = "results") -> int:
    rewritten = before = after = 0
    for manifest in sorted(Path(root).rglob(KEY_FILE)):
        for path, size, now in share_stored(manifest.parent):
            rewritten, before, after = rewritten + 1, before + size, after + now
        print(f"{manifest.parent}: {rewritten} results so far")
    print(f"shared the gold scores of {rewritten} results: {before / 2**20:.2f} MiB -> {after / 2**20:.2f} MiB "
          "(the gold/ folders not counted)")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

"""Record the SHA-256 of every stored result that has none in its folder's manifest (``cache_keys.json``), trusting the
files as committed, so that a later hand edit is caught on reuse. Run from the repository root:
``python scripts/record_digests.py``."""
from __future__ import annotations

import sys
from pathlib import Path

from reproducer.results_store import KEY_FILE, record_digests


def main(root: str = "results") -> int:
    added = {str(m.parent): n for m in sorted(Path(root).rglob(KEY_FILE)) if (n := record_digests(m.parent))}
    print(f"recorded {sum(added.values())} digests in {len(added)} results folders")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

"""Store every committed JSON result above ``reproducer.files.COMPRESS_ABOVE`` characters gzip-compressed (``X.json`` ->
``X.json.gz``), as the library now writes them: the same text, byte for byte once decompressed (checked), so every
number stays what the notebooks computed. Run once from the repository root: ``python scripts/compress_results.py``."""
from __future__ import annotations

import gzip
import sys
from pathlib import Path

from reproducer.files import COMPRESS_ABOVE, write_json


def main(root: str = "results") -> int:
    import json

    moved = before = after = 0
    for path in sorted(Path(root).rglob("*.json")):
        text = path.read_text(encoding="utf-8")
        if len(text) <= COMPRESS_ABOVE:
            continue
        written = write_json(path, json.loads(text), compress_above=COMPRESS_ABOVE)
        if gzip.decompress(written.read_bytes()).decode("utf-8") != text:
            print(f"error: {path} does not round-trip byte for byte; restore it with git checkout", file=sys.stderr)
            return 1
        moved, before, after = moved + 1, before + len(text.encode()), after + written.stat().st_size
    print(f"compressed {moved} results: {before / 2**20:.1f} MiB -> {after / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

"""The claims whose outcome changed between a git revision and the working tree: for every chapter and preset that
stores its claims (``results/<chapter>/<preset>/claims.json``, plain or compressed), one markdown table of the
claims whose outcome differs, with the old and new outcome and value (:func:`reproducer.report.claims.outcome_changes`).
Run from the repository root after re-executing a chapter: ``python scripts/claims_changes.py [REVISION]``
(default ``HEAD``: the claims last committed)."""
from __future__ import annotations

import gzip
import json
import lzma
import subprocess
import sys
from pathlib import Path

from reproducer.files import COMPRESSED, read_json
from reproducer.report.claims import outcome_changes

#: How each stored form of a result (:data:`reproducer.files.COMPRESSED`, or plain) is read back.
DECOMPRESS = {".xz": lzma.decompress, ".gz": gzip.decompress, ".json": bytes}


def at_revision(path: Path, revision: str) -> list[dict] | None:
    """The claims stored at ``path`` (plain, ``.xz`` or ``.gz``) as of ``revision``; ``None`` when it has none."""
    for stored in (path, *(path.with_name(path.name + suffix) for suffix in COMPRESSED)):
        shown = subprocess.run(["git", "show", f"{revision}:{stored.as_posix()}"], capture_output=True)
        if shown.returncode == 0:
            return json.loads(DECOMPRESS[stored.suffix](shown.stdout).decode("utf-8"))
    return None


def main(revision: str = "HEAD", root: str = "results") -> int:
    folders = sorted({p.parent for p in Path(root).glob("*/*/claims.json*")})
    for folder in folders:
        old, new = at_revision(folder / "claims.json", revision), read_json(folder / "claims.json")
        if old is None or new is None:
            print(f"## {folder}: {'new' if old is None else 'no claims now'}\n")
            continue
        changed = outcome_changes(old, new)
        print(f"## {folder}: {len(changed)} of {len(new)} claims changed outcome since {revision}\n")
        if len(changed):
            print(changed.to_markdown(index=False), "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

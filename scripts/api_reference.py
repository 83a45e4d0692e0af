"""Write ``book/api.md``, the API reference, from the library's packages: one ``automodule`` per module, grouped by
package, each paper's package a section of its own (found through the papers' declarations). Nothing is kept by
hand, so a new module or a new paper appears on its own; ``tests/test_structure.py`` checks the committed page is
what this script writes.

    python scripts/api_reference.py            # rewrite book/api.md
    python scripts/api_reference.py --check    # exit 1 if book/api.md is not what it would write
"""
from __future__ import annotations

import argparse
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "api.md"
#: Sections of shared code: title, introduction, the modules (a package name stands for every module in it).
SECTIONS = [
    ("The registry", "Every model of the book as data (family, paper, chapter, bundle kind, published names), the "
     "declarations' shape, and the preset lookup.", ["reproducer.models", "reproducer.papers", "reproducer.presets"]),
    ("Data", "The datasets (fetched through the registry with checksums), the corpus, vocabularies and vectors.",
     ["reproducer.data"]),
    ("Encoders", "The encoder contract, the architectures the papers share, bundles and the baselines.",
     ["reproducer.encoders"]),
    ("Training", "The training loop every objective uses, checkpoints, the shared context loss, FLOP counts and the "
     "benchmarks.", ["reproducer.train", "reproducer.checkpoints", "reproducer.objectives", "reproducer.flops",
                     "reproducer.bench"]),
    ("Evaluation", "SentEval-style transfer tasks, STS, protocols and the uncertainty of a score.",
     ["reproducer.evaluate"]),
    ("Reporting and the book", "Published numbers, tables, claims, the comparison chapter and the notebook runtime.",
     ["reproducer.report", "reproducer.notebook", "reproducer.train_command"]),
    ("Utilities", "Devices and seeds, atomic files, errors, the GPU pack and plan.",
     ["reproducer.runtime", "reproducer.files", "reproducer.errors", "reproducer.gpu_pack", "reproducer.gpu_run"]),
]
INTRO = """# API reference

Generated from the docstrings of the `reproducer` library by `scripts/api_reference.py` (do not edit by hand).
Each notebook's code calls these functions; so does the command line (`python -m reproducer --help`). Each paper's
own code (objective, chapter, tables, claims) is under *The papers*.
"""


def modules(name: str) -> list[str]:
    """``name`` and, for a package, every module in it (depth first, in name order; the papers' packages left out:
    they have a section each)."""
    module = __import__(name, fromlist=["_"])
    found = [name]
    if hasattr(module, "__path__"):
        for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda i: i.name):
            if name == "reproducer.papers" and info.ispkg:
                continue
            found += modules(f"{name}.{info.name}")
    return found


def block(module: str) -> str:
    return f"```{{eval-rst}}\n.. automodule:: {module}\n```\n"


def render() -> str:
    """The page."""
    sys.path.insert(0, str(ROOT))
    from reproducer.papers import declarations

    parts = [INTRO]
    for title, intro, names in SECTIONS:
        parts.append(f"## {title}\n\n{intro}\n")
        parts += [block(m) for name in names for m in modules(name)]
    parts.append("## The papers\n\nOne package per paper (`reproducer/papers/<paper>/`): its declaration, objective "
                 "and chapter.\n")
    for paper in declarations():
        # the package that declares it (its chapter modules import the same PAPER: only packages are searched)
        package = next(m for m in sys.modules if m.startswith("reproducer.papers.") and m.count(".") == 2
                       and getattr(sys.modules[m], "PAPER", None) is paper)
        parts.append(f"### {paper.citation}: {paper.title} (chapter {paper.chapter[:2]})\n")
        parts += [block(m) for m in modules(package)]
    return "\n".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if book/api.md differs from what would be written")
    args = parser.parse_args()
    text = render()
    if args.check:
        if PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE} is out of date: run python scripts/api_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

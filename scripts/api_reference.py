"""Write the API reference from the library's packages: ``book/api.md``, an index (per section a short
introduction and a link to each module's page with the first sentence of its docstring), and one page per module,
``book/api/<module.dotted.name>.md`` (the module's name, then its ``automodule``). Sections group the shared code;
each paper's package is a section of its own (found through the papers' declarations). Nothing is kept by hand, so a
new module or a new paper appears on its own; ``_toc.yml`` lists the module pages with one glob (:data:`TOC_GLOB`
under the ``book/api`` chapter), so it need not change. ``tests/test_structure.py`` checks the committed pages are
what this script writes.

    python scripts/api_reference.py            # rewrite book/api.md and book/api/*.md (stale pages removed)
    python scripts/api_reference.py --check    # exit 1 if a page differs, is missing or is stale, or _toc.yml
                                               # lacks the glob
"""
from __future__ import annotations

import argparse
import pkgutil
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "api.md"
#: The folder of the module pages: every ``*.md`` in it is one this script writes.
PAGES = ROOT / "book" / "api"
TOC = ROOT / "_toc.yml"
#: The ``sections`` of the ``book/api`` chapter in ``_toc.yml``: every module page, in name order.
TOC_GLOB = "book/api/*"
#: Sections of shared code: title, introduction, the modules (a package name stands for every module in it).
SECTIONS = [
    ("The registry", ("The declarations' shape, every model of the book as data (family, paper, chapter, bundle kind, "
                      "published names), the preset lookup and each model's untrained twin."),
     ["reproducer.declarations", "reproducer.papers", "reproducer.presets", "reproducer.untrained_twins"]),
    ("Data", "The datasets (fetched through the registry with checksums), the corpus, vocabularies and vectors.",
     ["reproducer.data"]),
    ("Encoders", "The encoder contract, the architectures the papers share, bundles and the baselines.",
     ["reproducer.encoders"]),
    ("Training", ("The one training contract (an objective, and fit), the training loop under it, checkpoints, the "
                  "shared context loss, FLOP counts and the benchmarks."),
     ["reproducer.fit", "reproducer.train", "reproducer.row_adagrad", "reproducer.checkpoints", "reproducer.objectives",
      "reproducer.flops", "reproducer.bench"]),
    ("Evaluation", "SentEval-style transfer tasks, STS, protocols and the uncertainty of a score.",
     ["reproducer.evaluate"]),
    ("Reporting and the book", "Published numbers, tables, claims, the chapters' model units and the notebook runtime.",
     ["reproducer.report", "reproducer.notebook", "reproducer.results_store", "reproducer.plot_style",
      "reproducer.train_command", "reproducer.table_command"]),
    ("The overview", ("What reads every paper at once: the tasks of chapter 00, and chapter 06's scorecard, "
                      "comparison, equal-compute study and hardware rows."),
     ["reproducer.overview"]),
    ("Utilities", "Devices and seeds, atomic files, errors, the library's log lines, the GPU pack and plan.",
     ["reproducer.runtime", "reproducer.files", "reproducer.errors", "reproducer.log", "reproducer.gpu_plans",
      "reproducer.gpu_pack", "reproducer.gpu_run"]),
]
INTRO = """# API reference

Generated from the docstrings of the `reproducer` library by `scripts/api_reference.py` (do not edit by hand).
Each notebook's code calls these functions; so does the command line (`python -m reproducer --help`). Each paper's
own code (objective, chapter, tables, claims) is under *The papers*. Every module has a page of its own (also in the
navigation, in name order), and every function and class there links to its source (*[source]*).
"""
#: A sentence ends at a full stop followed by a capital letter, but not at an abbreviation's full stop.
SENTENCE_END = re.compile(r"(?<!\bal)(?<!\be\.g)(?<!\bi\.e)(?<!\bcf)\.\s+(?=[A-Z])")
#: An RST role (``:class:`~a.b.C```, ``:func:`f```): the index shows its target as code.
ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


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


def summary(module: str) -> str:
    """The first sentence of the module's docstring, as Markdown (RST literals and roles become code)."""
    doc = sys.modules[module].__doc__ or ""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    sentence = SENTENCE_END.split(paragraph, maxsplit=1)[0]
    sentence += "" if sentence.endswith((".", "?", "!")) else "."
    sentence = ROLE.sub(lambda m: f"``{m.group(1).split('.')[-1] if m.group(0).count('~') else m.group(1)}``",
                        sentence)
    return sentence.replace("``", "`")


def module_page(module: str) -> str:
    return f"# {module}\n\n```{{eval-rst}}\n.. automodule:: {module}\n```\n"


def link(module: str) -> str:
    return f"- [`{module}`](api/{module}.md): {summary(module)}"


def render() -> dict[Path, str]:
    """Every page, by its path under the repository root: the index first, then one page per module."""
    sys.path.insert(0, str(ROOT))
    from reproducer.papers.registry import declarations

    index, names = [INTRO], []
    for title, intro, packages in SECTIONS:
        section = [m for name in packages for m in modules(name)]
        index.append(f"## {title}\n\n{intro}\n\n" + "\n".join(link(m) for m in section) + "\n")
        names += section
    index.append("## The papers\n\nOne package per paper (`reproducer/papers/<paper>/`): its declaration, objective "
                 "and chapter.\n")
    for paper in declarations():
        # the package that declares it (its chapter modules import the same PAPER: only packages are searched)
        package = next(m for m in sys.modules if m.startswith("reproducer.papers.") and m.count(".") == 2
                       and getattr(sys.modules[m], "PAPER", None) is paper)
        section = modules(package)
        index.append(f"### {paper.citation}: {paper.title} (chapter {paper.chapter[:2]})\n\n"
                     + "\n".join(link(m) for m in section) + "\n")
        names += section
    unlisted = sorted(set(modules("reproducer")) - set(names) - {"reproducer", "reproducer.__main__"})
    if unlisted:  # a new top-level module would otherwise have no page, and --check would not notice
        raise SystemExit(f"api_reference: {', '.join(unlisted)} in no section: add each to SECTIONS")
    pages = {PAGE.relative_to(ROOT): "\n".join(index)}
    pages.update({(PAGES / f"{m}.md").relative_to(ROOT): module_page(m) for m in names})
    return pages


def stale(pages: dict[Path, str]) -> list[Path]:
    """Pages in ``book/api/`` this script does not write (a module removed or renamed)."""
    return sorted(p.relative_to(ROOT) for p in PAGES.glob("*.md") if p.relative_to(ROOT) not in pages)


def toc_lists_the_pages() -> bool:
    """Whether ``_toc.yml``'s ``book/api`` chapter has the module pages (the glob) as its sections."""
    import yaml

    toc = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    chapters = [c for part in toc.get("parts", []) for c in part.get("chapters", [])]
    return any(c.get("file") == "book/api" and {"glob": TOC_GLOB} in c.get("sections", []) for c in chapters)


def problems(pages: dict[Path, str]) -> list[str]:
    """What differs between the pages on disk and ``pages`` (and whether ``_toc.yml`` lists them)."""
    found = []
    for path, text in pages.items():
        file = ROOT / path
        if not file.is_file():
            found.append(f"{path} is missing")
        elif file.read_text(encoding="utf-8") != text:
            found.append(f"{path} is out of date")
    found += [f"{path} is stale (no such module)" for path in stale(pages)]
    if not toc_lists_the_pages():
        found.append(f"_toc.yml: the book/api chapter needs `sections: [{{glob: {TOC_GLOB}}}]`")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if a page differs from what would be written, is missing or stale")
    args = parser.parse_args()
    pages = render()
    if not args.check:
        PAGES.mkdir(exist_ok=True)
        for path in stale(pages):
            (ROOT / path).unlink()
        for path, text in pages.items():
            if not (ROOT / path).is_file() or (ROOT / path).read_text(encoding="utf-8") != text:
                (ROOT / path).write_text(text, encoding="utf-8")
    found = problems(pages)
    for problem in found:
        print(f"{problem}: run python scripts/api_reference.py" if args.check else problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

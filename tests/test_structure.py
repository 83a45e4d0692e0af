"""The library's structure: imports go one way (down the layers below), no import circle, and the model registry
names what the code has."""
from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "reproducer"

#: Layers from the bottom: a module may import (at module level or inside a function) only from its own layer or
#: below. Shared building blocks sit low (with the shape of a paper's declaration); each paper's objective above the
#: encoders and the evaluation; the reporting, the notebook runtime and the untrained twins above them; the papers
#: (their declarations, the registry that finds them, their chapters) above the reporting; the overview that reads
#: every paper (chapters 00 and 06) above the papers; the tools (the benchmarks, the GPU pack and plan, the train
#: command) on top, imported by nothing of the library but the command line. A paper's objective (and its supervised
#: training) sit lower than the rest of its package: :data:`PAPER_LAYERS`.
LAYERS = [
    {"reproducer", "reproducer.errors", "reproducer.files", "reproducer.runtime", "reproducer.flops",
     "reproducer.gpu_plans", "reproducer.plot_style"},
    {"reproducer.data", "reproducer.train", "reproducer.fit", "reproducer.presets", "reproducer.declarations"},
    {"reproducer.encoders"},
    {"reproducer.evaluate"},
    {"reproducer.objectives"},
    {"reproducer.report", "reproducer.notebook", "reproducer.results_store", "reproducer.untrained_twins"},
    {"reproducer.papers"},
    {"reproducer.overview"},
    {"reproducer.bench", "reproducer.train_command", "reproducer.gpu_pack", "reproducer.gpu_run"},
    {"reproducer.__main__"},
]
#: The layer of a module of a paper's package, by its name: the objective (model, loss, presets) and the supervised
#: training sit with the shared objectives; every other module (the declaration, the chapter's models, tables,
#: claims; the registry and the widths study beside the packages) with the papers.
PAPER_LAYERS = {"objective": 4, "supervised": 4}
PAPERS = 6
TOOLS = 8


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Module → the ``reproducer`` modules it imports anywhere in its code."""
    graph = defaultdict(set)
    for path in ROOT.rglob("*.py"):
        name = _module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("reproducer"):
                package = ROOT.parent.joinpath(*node.module.split("."))
                submodules = {f"{node.module}.{a.name}" for a in node.names if (package / f"{a.name}.py").is_file()}
                graph[name] |= submodules or {node.module}  # "from pkg import module" imports the module
            elif isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name.startswith("reproducer")}
        graph.setdefault(name, set())
    return graph


def _layer(module: str) -> int:
    parts = module.split(".")
    if parts[:2] == ["reproducer", "papers"] and len(parts) >= 3:
        return PAPER_LAYERS.get(".".join(parts[3:]), PAPERS)
    for depth in range(module.count(".") + 1, 0, -1):
        prefix = ".".join(module.split(".")[:depth])
        for i, layer in enumerate(LAYERS):
            if prefix in layer:
                return i
    raise AssertionError(f"{module} is in no layer of tests/test_structure.py: place it")


def test_every_import_goes_down_or_sideways():
    upward = [f"{a} (layer {_layer(a)}) imports {b} (layer {_layer(b)})"
              for a, targets in _imports().items() for b in targets if _layer(b) > _layer(a)]
    assert not upward, "\n".join(upward)


def _circles(graph: dict[str, set[str]]) -> list[str]:
    """The import circles of ``graph`` (node → the nodes it imports), each as ``a -> b -> a``; an import of a node
    that is not in ``graph`` (e.g. "from reproducer.evaluate import X" where evaluate is a package: its __init__) is
    left out."""
    state: dict[str, int] = {}
    circles = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph:
                continue
            if state.get(nxt) == 1:
                circles.append(" -> ".join(path[path.index(nxt):] + [nxt]) if nxt in path else f"{node} -> {nxt}")
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return circles


def test_no_import_circle():
    circles = _circles(_imports())
    assert not circles, "\n".join(circles)


def test_the_tools_sit_on_top():
    """Nothing of the library imports the benchmarks, the GPU plan or the train command but the command line (issue 64:
    two chapters imported the benchmark, the book's GPU page the plan)."""
    assert all(_layer(m) == TOOLS for m in LAYERS[TOOLS])
    importers = {a for a, targets in _imports().items() for b in targets if b in LAYERS[TOOLS] and a not in LAYERS[TOOLS]}
    assert importers <= {"reproducer.__main__"}, importers


def test_a_papers_modules_sit_in_two_layers():
    assert _layer("reproducer.papers.quick_thoughts") == PAPERS  # the declaration, with the registry
    assert _layer("reproducer.papers.quick_thoughts.objective") == _layer("reproducer.objectives.context")
    assert _layer("reproducer.papers.quick_thoughts.chapter") == PAPERS > _layer("reproducer.report.units")
    assert _layer("reproducer.papers") == _layer("reproducer.papers.registry") == PAPERS


def _room(module: str, depth: int = 2) -> str:
    """The room of ``module`` in a picture of the library's folders: a module of ``reproducer/`` itself, or the
    subpackage holding it (``reproducer.papers.quick_thoughts.chapter`` is in ``reproducer.papers``); ``depth`` 3: the
    rooms inside ``reproducer/papers/`` (each paper's package one room)."""
    return ".".join(module.split(".")[:depth])


def _room_circles(graph: dict[str, set[str]], depth: int = 2) -> list[str]:
    """Circles between rooms (:func:`_room`): a paper's objective is low and its chapter high, but its folder is one
    room; an import from a low room into a folder that also imports it back draws a circle there."""
    rooms = defaultdict(set)
    for a, targets in graph.items():
        rooms[_room(a, depth)] |= {_room(b, depth) for b in targets if _room(b, depth) != _room(a, depth)}
        for b in targets:
            rooms.setdefault(_room(b, depth), set())
    return _circles(rooms)


def test_no_circle_between_folders():
    """Issue 64: the registry (``reproducer/models.py``) read the papers' declarations, and the papers' chapters read the
    registry: a circle between the file and the folder ``reproducer/papers/``. The registry now sits in that folder and
    the overview that reads every paper above it."""
    assert _room_circles(_imports()) == []


def test_no_circle_between_the_papers_packages():
    """Inside ``reproducer/papers/`` too: the widths study imported three papers' objectives while two of their
    chapters imported it; each paper now offers its models at a width in its objective (``Objective.widths``) and the
    study finds them through the registry."""
    papers = {a: {b for b in targets if b.startswith("reproducer.papers.")}
              for a, targets in _imports().items() if a.startswith("reproducer.papers.")}
    assert _room_circles(papers, depth=3) == []


def test_the_folder_check_sees_a_circle():
    fake = {"reproducer.report.units": {"reproducer.papers.registry"},
            "reproducer.papers.skip_thoughts.chapter": {"reproducer.report.units"}}
    assert _room_circles(fake) == ["reproducer.papers -> reproducer.report -> reproducer.papers"]


def test_the_layer_test_sees_a_violation(monkeypatch):
    """The check above is not vacuous: an encoder importing an objective is caught."""
    fake = {"reproducer.encoders.trained": {"reproducer.papers.consensus.objective"}}
    monkeypatch.setattr(sys.modules[__name__], "_imports", lambda: fake)
    with pytest.raises(AssertionError, match="imports reproducer.papers.consensus.objective"):
        test_every_import_goes_down_or_sideways()


def test_the_registry_names_every_family_and_variant():
    from reproducer.papers.registry import FAMILIES, MODELS, PAPERS, family, model, models, table

    for fam in FAMILIES.values():
        assert fam.paper in PAPERS and set(fam.presets) == {"smoke", "quick", "default", "paper"}
        from reproducer.fit import Objective

        assert isinstance(fam.objective(), Objective) and fam.objective().name == fam.name
        for m in models(family=fam.name):
            assert m.variant is None or m.variant in fam.variants, (m.name, fam.variants)
            assert all(p in MODELS for p in m.parts)
    assert {m.chapter for m in MODELS.values()} >= {f.chapter for f in FAMILIES.values()}
    assert model("uni-skip").paper == "kiros2015" and family("consensus").chapter == "04_consensus"
    assert len(table()) == len(MODELS)
    from reproducer.encoders.baselines import BASELINES, is_baseline

    assert set(BASELINES) <= {m.name for m in models(family="baseline")}
    assert all(is_baseline(m.name) for m in models(family="baseline")) and not is_baseline("esn-word2vec-0")
    from reproducer.errors import ReproducerError

    with pytest.raises(ReproducerError, match="Unknown model"):
        model("tri-skip")


def test_published_names_exist_in_the_published_tables():
    from reproducer.papers.registry import MODELS
    from reproducer.report.published import published

    names = set(published().model)
    missing = [(m.name, p) for m in MODELS.values() for p in m.published if p not in names]
    assert not missing, missing


def test_the_api_pages_are_what_the_packages_generate():
    """book/api.md (the index) and book/api/<module>.md (one page per module) are written by
    scripts/api_reference.py from the packages (every module, each paper a section): a module added, moved or removed
    shows here until the pages are written again; a page left over from a removed module is stale; _toc.yml lists the
    module pages (a glob under the book/api chapter)."""
    import runpy

    script = runpy.run_path(str(ROOT.parent / "scripts" / "api_reference.py"))
    pages = script["render"]()
    assert script["problems"](pages) == [], "run python scripts/api_reference.py"
    documented = {line.split(":: ")[1] for text in pages.values() for line in text.splitlines()
                  if line.startswith(".. automodule::")}
    every = {_module_name(p) for p in ROOT.rglob("*.py")} - {"reproducer", "reproducer.__main__"}
    assert documented == every
    index = pages[Path("book/api.md")]
    assert all(f"](api/{module}.md)" in index for module in every), "the index links every module page"


def test_the_api_check_finds_a_stale_a_missing_and_a_changed_page(tmp_path, monkeypatch):
    import runpy
    import shutil

    script = runpy.run_path(str(ROOT.parent / "scripts" / "api_reference.py"))
    pages = script["render"]()
    shutil.copytree(ROOT.parent / "book" / "api", tmp_path / "book" / "api")
    shutil.copy(ROOT.parent / "book" / "api.md", tmp_path / "book" / "api.md")
    shutil.copy(ROOT.parent / "_toc.yml", tmp_path / "_toc.yml")
    problems = script["problems"]
    monkeypatch.setitem(problems.__globals__, "ROOT", tmp_path)
    monkeypatch.setitem(problems.__globals__, "PAGES", tmp_path / "book" / "api")
    monkeypatch.setitem(problems.__globals__, "TOC", tmp_path / "_toc.yml")
    assert problems(pages) == []
    (tmp_path / "book" / "api" / "reproducer.gone.md").write_text("# reproducer.gone\n")
    (tmp_path / "book" / "api" / "reproducer.files.md").unlink()
    (tmp_path / "book" / "api.md").write_text("# API reference\n")
    toc = tmp_path / "_toc.yml"
    toc.write_text(toc.read_text().replace("- glob: book/api/*", "- file: book/api/reproducer.papers.registry"))
    found = problems(pages)
    assert any("reproducer.gone.md is stale" in p for p in found), found
    assert any("reproducer.files.md is missing" in p for p in found), found
    assert any("api.md is out of date" in p for p in found), found
    assert any(p.startswith("_toc.yml") for p in found), found


#: Terms the glossary (book/glossary.md) must define: the abbreviations a student meets in the chapters.
GLOSSARY_TERMS = [
    "MV", "SV", "SV-f", "SV-g", "U", "S", "B", "M", "RAE", "AAE", "mean-max", "o.g.", "wmean", "SIF", "WR",
    "PC removal", "uni-skip", "bi-skip", "combine-skip", "uni-QT", "bi-QT", "combine-QT", "MC-QT", "BoW-QT", "PP",
    "PP-XXL", "iRNN", "DAN", "vocabulary expansion", "evaluation configuration", "paper", "fast", "sklearn",
    "prototype", "smoke", "preset", "quick", "default", "SentEval", "transfer task", "MR", "CR", "SUBJ", "MPQA",
    "TREC", "MRPC", "SICK-E", "SICK-R", "STS12-16", "reproduced", "not reproduced", "inconclusive",
    "smaller than published", "paired bootstrap", "training-noise seeds", "unit",
]


def test_the_glossary_defines_every_term():
    """Each term of :data:`GLOSSARY_TERMS` is a term of the ``{glossary}`` directive of book/glossary.md (a line of
    its own, not indented; a definition's lines are indented), and the evaluation configurations and presets it
    names are the code's."""
    from reproducer.evaluate import CONFIGS
    from reproducer.presets import SCALES

    text = (ROOT.parent / "book" / "glossary.md").read_text(encoding="utf-8")
    body = text.split("```{glossary}\n", 1)[1].split("\n```", 1)[0]
    terms = {line.strip() for line in body.splitlines() if line.strip() and not line[0].isspace()
             and not line.startswith(":")}
    missing = [t for t in GLOSSARY_TERMS + list(CONFIGS) + list(SCALES) if t not in terms]
    assert not missing, f"book/glossary.md defines no {missing}"


def test_the_command_line_starts_without_torch_or_pandas():
    """``python -m reproducer`` reads the registry (every paper's declaration) without importing torch or pandas: the
    objectives are imported on first use, so ``--help`` and a mistyped command answer at once."""
    import subprocess

    code = ("import runpy, sys\nsys.argv = ['reproducer', '--help']\ntry:\n    runpy.run_module('reproducer', "
            "run_name='__main__')\nexcept SystemExit:\n    pass\nprint(sorted({'torch', 'pandas'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT.parent, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout[-500:]

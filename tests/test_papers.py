"""The papers' declarations (``reproducer/papers/<paper>/__init__.py``): every paper satisfies one protocol, and a
sixth paper is one folder — the registry, the scorecard, the comparison and the equal-compute study find it without
touching any other file."""
from __future__ import annotations

import inspect
from collections.abc import Mapping
import sys
import textwrap
from pathlib import Path

import pytest

import reproducer.papers
from reproducer import models
from reproducer.errors import ReproducerError
from reproducer.evaluate.tasks import TASKS
from reproducer.papers import Family, Paper, declarations
from reproducer.presets import SCALES, Preset

ROOT = Path(__file__).resolve().parents[1]
#: The keyword arguments every family's fit function takes.
FIT_OPTIONS = {"checkpoint", "evaluate", "seed", "device", "progress"}


def check_family(family: Family) -> None:
    """One shape for every objective module: presets for every scale, named variants, the builders and the fit."""
    module = family._module()
    assert set(module.PRESETS) == set(SCALES), family.name
    assert all(isinstance(p, Preset) and p.name == name for name, p in module.PRESETS.items()), family.name
    assert isinstance(module.VARIANTS, Mapping) and module.VARIANTS, family.name  # name -> what it is
    assert all(isinstance(v, str) for v in family.variants), family.name
    fit = getattr(module, family.fit_function)
    parameters = inspect.signature(fit).parameters
    assert list(parameters)[:3] == ["variant", "preset", "data"], family.name
    assert FIT_OPTIONS <= {n for n, p in parameters.items() if p.kind is p.KEYWORD_ONLY}, family.name
    assert set(family.fit_options) <= set(parameters), family.name
    assert list(inspect.signature(module.training_data).parameters) == ["variant", "preset"], family.name
    assert len(inspect.signature(module.batch_flops).parameters) == 2, family.name


def check_paper(paper: Paper, notebooks: Path = ROOT / "notebooks") -> None:
    """What the shared code reads of a declaration is there and names what exists."""
    assert paper.key and paper.citation and paper.label and paper.title, paper
    assert (notebooks / f"{paper.chapter}.ipynb").is_file(), paper.chapter
    names = {m.name for m in paper.models}
    variants = {f.name: set(f.variants) for f in paper.families}
    for family in paper.families:
        assert family.paper == paper.key and family.chapter == paper.chapter
        check_family(family)
    for model in paper.models:
        assert model.paper == paper.key and model.chapter == paper.chapter and model.family in variants, model
        assert model.variant is None or model.variant in variants[model.family], model
        assert set(model.parts) <= names, model
    for line in paper.lines:
        assert line.variant in variants[line.family], line
    for family_name, variant in paper.bench.values():
        assert variant in variants[family_name], paper.bench
    assert set(paper.tasks) <= set(TASKS), paper.tasks
    if paper.timings:
        module, function = paper.timings.split(":")
        __import__(module)
        assert callable(getattr(sys.modules[module], function)), paper.timings


def test_every_paper_satisfies_the_protocol():
    papers = declarations()
    assert [p.key for p in papers] == ["kiros2015", "logeswaran2018", "wieting2016", "tang2019", "zhang2018"]
    for paper in papers:
        check_paper(paper)
    toc = (ROOT / "_toc.yml").read_text()
    assert all(p.chapter in toc for p in papers)


def test_the_protocol_check_catches_a_family_without_a_preset(monkeypatch):
    family = models.family("paraphrastic")
    monkeypatch.delitem(family._module().PRESETS, "quick")
    with pytest.raises(AssertionError, match="paraphrastic"):
        check_family(family)


def test_a_paper_declared_twice_is_refused(monkeypatch, tmp_path):
    duplicate = tmp_path / "again_kiros"
    duplicate.mkdir()
    (duplicate / "__init__.py").write_text("from reproducer.papers.skip_thoughts import PAPER\n")
    monkeypatch.setattr(reproducer.papers, "__path__", [*reproducer.papers.__path__, str(tmp_path)])
    with pytest.raises(ReproducerError, match="Two papers declare one key: \\['kiros2015'\\]"):
        declarations()
    sys.modules.pop("reproducer.papers.again_kiros", None)


TOY_OBJECTIVE = '''
"""A toy objective: the protocol's smallest instance."""
from reproducer.train import Preset

PRESETS = {name: Preset(name=name, max_steps=1) for name in ("smoke", "quick", "default", "paper")}
VARIANTS = {"toy": "the only variant"}


def training_data(variant, preset):
    return None


def batch_flops(module, batch):
    return 0.0


def fit_toy(variant, preset, data, *, checkpoint=None, evaluate=None, seed=0, device=None, progress=True):
    raise NotImplementedError
'''

TOY_DECLARATION = '''
from reproducer.papers import Family, Line, Model, Paper

PAPER = Paper(
    key="toy2026", citation="Toy et al. 2026", label="Toy 2026", title="A sixth paper", chapter="07_toy",
    families=(Family("toy-objective", "reproducer.papers.toy_paper.objective", "fit_toy"),),
    models=(Model("toy-encoder", "toy-objective", variant="toy", description="a toy"),),
    neighbours="toy-encoder", lines=(Line("toy objective", "toy-objective", "toy"),),
    bench={"toy": ("toy-objective", "toy")}, tasks=("MR", "STS14"),
)
'''


@pytest.fixture
def sixth_paper(tmp_path, monkeypatch):
    """A toy paper in a temporary folder added to ``reproducer.papers``' search path; the registry read again."""
    folder = tmp_path / "papers" / "toy_paper"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(textwrap.dedent(TOY_DECLARATION))
    (folder / "objective.py").write_text(textwrap.dedent(TOY_OBJECTIVE))
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "07_toy.ipynb").write_text("{}")
    monkeypatch.setattr(reproducer.papers, "__path__", [*reproducer.papers.__path__, str(folder.parent)])
    models.refresh()
    yield tmp_path
    monkeypatch.undo()
    for name in [m for m in sys.modules if m.startswith("reproducer.papers.toy_paper")]:
        del sys.modules[name]
    models.refresh()


def test_a_sixth_paper_is_one_folder(sixth_paper):
    from reproducer.report import comparison, equal_compute, scorecard, task_inventory

    check_paper(models.paper("toy2026"), notebooks=sixth_paper / "notebooks")
    table = models.table().set_index("model")
    assert table.loc["toy-encoder", "paper"] == "Toy et al. 2026" and table.loc["toy-encoder", "chapter"] == "07_toy"
    assert models.family("toy-objective").presets["smoke"].max_steps == 1
    assert list(scorecard.chapters())[-1] == "07_toy"
    assert scorecard.chapters()["07_toy"] == ("Toy et al. 2026", "A sixth paper")
    assert equal_compute.all_lines()["toy objective"] == ("toy-objective", "toy")
    assert list(equal_compute.all_lines())[-1] == "paraphrastic PP (pairs)"  # lines on pairs stay last
    assert comparison.best()["Toy et al. 2026"] == ("07_toy", "toy-encoder")
    assert task_inventory.reported_by()["STS14"][-1] == "toy2026"
    with pytest.raises(ReproducerError, match="No claims for chapter 07_toy"):  # its notebook has not run
        scorecard.scorecard("default", ROOT / "results")
    card = scorecard.scorecard("default", ROOT / "results", missing="skip")
    assert len(card) and "Toy et al. 2026" not in set(card["paper"])


def test_the_registry_forgets_the_sixth_paper_after_the_test():
    assert "toy2026" not in models.PAPERS and "toy-encoder" not in models.MODELS

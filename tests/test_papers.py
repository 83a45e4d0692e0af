"""The papers' declarations (``reproducer/papers/<paper>/__init__.py``): every paper satisfies one protocol, and a
sixth paper is one folder — the registry, the scorecard, the comparison and the equal-compute study find it without
touching any other file."""
from __future__ import annotations

import inspect
import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest

import reproducer.papers
from reproducer.papers import registry as models
from reproducer.errors import ReproducerError
from reproducer.evaluate.tasks import TASKS
from reproducer.fit import Objective
from reproducer.declarations import INPUTS, Family, Paper
from reproducer.papers.registry import declarations
from reproducer.report.published import published
from reproducer.presets import SCALES, Preset

ROOT = Path(__file__).resolve().parents[1]
#: A chapter's name in code: ``"01_skip_thoughts"``.
CHAPTER_NAME = re.compile(r"[\"'](0\d[a-z]?_[a-z_]+)[\"']")


def chapters_named(paper: Paper, notebooks: Path) -> set[str]:
    """The chapters named in the code of ``paper``'s package and of its notebook's code cells, its own left out: what
    its chapter reads of other chapters (:meth:`~reproducer.results_store.NotebookRun.earlier`)."""
    package = next(Path(m.__file__).parent for name, m in list(sys.modules.items())
                   if name.startswith("reproducer.papers.") and name.count(".") == 2
                   and getattr(getattr(m, "PAPER", None), "key", None) == paper.key)
    texts = [f.read_text(encoding="utf-8") for f in package.rglob("*.py")]
    cells = json.loads((notebooks / f"{paper.chapter}.ipynb").read_text()).get("cells", [])
    texts += ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    return {m for text in texts for m in CHAPTER_NAME.findall(text)} - {paper.chapter}


def check_family(family: Family) -> None:
    """One shape for every objective: an :class:`~reproducer.fit.Objective` of the family's name with presets for
    every scale, named variants, training data, builders, batches and FLOPs."""
    objective = family.objective()
    assert isinstance(objective, Objective) and objective.name == family.name, family.name
    assert set(objective.presets) == set(SCALES), family.name
    assert all(isinstance(p, Preset) and p.name == name for name, p in objective.presets.items()), family.name
    assert isinstance(objective.variants, Mapping) and objective.variants, family.name  # name -> what it is
    assert all(isinstance(v, str) for v in family.variants), family.name
    assert objective.reads in ("books", "pairs") and objective.inputs in INPUTS, family.name
    for method in ("training_data", "build", "sampler", "batch_flops"):  # the contract's required methods
        assert getattr(type(objective), method) is not getattr(Objective, method), (family.name, method)
    build = inspect.signature(objective.build).parameters
    assert list(build)[:3] == ["variant", "preset", "data"], family.name
    assert {"device", "seed"} <= {n for n, p in build.items() if p.kind is p.KEYWORD_ONLY}, family.name
    assert set(family.fit_options) <= set(build), family.name
    assert list(inspect.signature(objective.training_data).parameters) == ["variant", "preset"], family.name


def check_paper(paper: Paper, notebooks: Path = ROOT / "notebooks") -> None:
    """What the shared code reads of a declaration is there and names what exists; the chapters it reads are those its
    code names, each one run before it."""
    assert paper.key and paper.citation and paper.label and paper.title, paper
    assert (notebooks / f"{paper.chapter}.ipynb").is_file(), paper.chapter
    assert chapters_named(paper, notebooks) == set(paper.reads), (paper.key, paper.reads)
    chapters = {p.chapter for p in declarations()} | {"00_data", "00b_baselines"}
    assert all(r in chapters and r < paper.chapter for r in paper.reads), (paper.key, paper.reads)
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
        objective = models.family(line.family).objective()  # a line draws what its objective declares
        assert (line.on_pairs, line.inputs) == (objective.reads == "pairs", objective.inputs), line
    for family_name, variant in paper.bench.values():
        assert variant in variants[family_name], paper.bench
    assert set(paper.tasks) <= set(TASKS), paper.tasks
    if paper.timings:  # a function of (folder, hardware): none before its chapter has run
        assert callable(paper.timings) and paper.timing_rows(Path("/nonexistent/results"), "cpu") == [], paper.key


def test_the_chapters_a_paper_reads_are_declared():
    """A chapter that reads another chapter's results and does not declare it (or declares one it does not read, or
    one run after it) fails the protocol."""
    from dataclasses import replace

    qt = models.paper("logeswaran2018")
    assert qt.reads == ("01_skip_thoughts",)
    for wrong in ((), ("01_skip_thoughts", "00b_baselines"), ("01_skip_thoughts", "04_consensus")):
        with pytest.raises(AssertionError):
            check_paper(replace(qt, reads=wrong))


def test_every_paper_satisfies_the_protocol():
    papers = declarations()
    assert [p.chapter for p in papers] == sorted(p.chapter for p in papers)  # in chapter order
    assert {p.key for p in papers} == set(published().paper)  # each with its published numbers, none without
    for paper in papers:
        check_paper(paper)
    toc = (ROOT / "_toc.yml").read_text()
    assert all(p.chapter in toc for p in papers)


def test_the_protocol_check_catches_a_family_without_a_preset(monkeypatch):
    family = models.family("paraphrastic")
    monkeypatch.delitem(family.objective().presets, "quick")
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


def test_a_sixth_paper_is_one_folder(sixth_paper):
    from reproducer.overview import comparison, equal_compute, scorecard, task_inventory

    check_paper(models.paper("toy2026"), notebooks=sixth_paper / "notebooks")
    table = models.table().set_index("model")
    assert table.loc["toy-encoder", "paper"] == "Toy et al. 2026" and table.loc["toy-encoder", "chapter"] == "07_toy"
    assert models.family("toy-objective").presets["smoke"].max_steps == 20
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


def test_a_sixth_paper_trains_through_the_one_training_route(sixth_paper, tmp_path):
    """The toy paper's model trains at ``smoke`` through :func:`reproducer.fit.fit` (via its family), seeded: the same
    seed is the same model; its untrained twin is the trained run's initialisation; ``python -m reproducer train``
    trains it into the folder given, writing checkpoint, bundle and log."""
    from reproducer.__main__ import main as cli
    from reproducer.encoders.bundles import load_encoder

    family = models.family("toy-objective")
    settings = family.presets["smoke"]
    data = family.training_data("toy", settings)
    first, again = (family.fit("toy", settings, data, seed=2, device="cpu", progress=False) for _ in range(2))
    assert first.log.step == 20 and first.log.losses[-1]["loss"] < first.log.losses[0]["loss"]
    sentences = ["w1 w2 x0", "w3 x1"]
    np.testing.assert_array_equal(first.encoder.encode(sentences), again.encoder.encode(sentences))
    twin = family.untrained("toy", settings, data, seed=2, device="cpu")
    assert twin.log.step == 0 and not np.allclose(twin.encoder.encode(sentences), first.encoder.encode(sentences))
    out = tmp_path / "out"
    assert cli(["train", "toy-encoder", "--preset", "smoke", "--out", str(out), "--device", "cpu"]) == 0
    bundle = next(out.rglob("toy-encoder.encoder.pt"))
    assert bundle.with_name("toy-encoder.half.encoder.pt").is_file()  # and the encoder at half its steps
    seed0 = family.fit("toy", settings, data, seed=0, device="cpu", progress=False)  # what the command trained
    np.testing.assert_allclose(load_encoder(bundle).encode(sentences), seed0.encoder.encode(sentences), rtol=1e-6)


def test_a_sixth_paper_is_benched_and_its_claim_reaches_the_scorecard(sixth_paper, tmp_path, monkeypatch):
    """``bench train``'s measurement takes the toy objective from its declaration (its FLOPs from its objective), and a
    claim its chapter records (here: its loss falls over training, judged over three seeds) is a row of chapter 06's
    scorecard."""
    from reproducer.bench import family_objectives, measure_objective
    from reproducer.overview import scorecard
    from reproducer.report.claims import point_claim
    from reproducer.results_store import NotebookRun

    assert family_objectives()["toy"] == ("toy-objective", "toy")
    record = measure_objective("toy", "smoke", seconds=0.3, device="cpu", peak=1e9)
    assert record["steps"] > 0 and record["gflops_per_second"] > 0 and record["family"] == "toy-objective"
    family = models.family("toy-objective")
    settings, data = family.presets["smoke"], family.training_data("toy", family.presets["smoke"])
    drops = []
    for seed in range(3):
        losses = family.fit("toy", settings, data, seed=seed, device="cpu", progress=False).log.losses
        drops.append(losses[0]["loss"] - losses[-1]["loss"])
    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    claim = point_claim("the loss falls", float(np.mean(drops)), 0.0, seed_values=drops, averaged=True,
                        spread="training seeds")
    NotebookRun("07_toy", "smoke").record("claims", [claim])
    card = scorecard.scorecard("smoke", tmp_path / "results", missing="skip")
    row = card.set_index("paper").loc["Toy et al. 2026"]
    assert row["claim"] == "the loss falls" and row["outcome"] in scorecard.OUTCOMES


def test_the_registry_forgets_the_sixth_paper_after_the_test():
    assert "toy2026" not in models.PAPERS and "toy-encoder" not in models.MODELS


def test_a_declaration_does_not_shadow_its_objective_module():
    """A name of the declaration's package that is also a submodule's (``objective``) is replaced by the submodule as
    soon as it is imported: what ``from <paper> import objective`` gives would depend on import order, and the API
    pages would document both (the book build fails on the duplicate)."""
    import importlib
    import pkgutil
    import types

    for info in pkgutil.iter_modules(reproducer.papers.__path__):
        package = importlib.import_module(f"reproducer.papers.{info.name}")
        if not hasattr(package, "PAPER"):
            continue
        submodules = {m.name for m in pkgutil.iter_modules(package.__path__)}
        clashes = [n for n in submodules if n in vars(package) and not isinstance(vars(package)[n], types.ModuleType)]
        assert not clashes, (info.name, clashes)

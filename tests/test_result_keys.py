"""Notebook parameters and result keys: papermill's ``-p`` values are coerced to the parameters cell's types, a result
is reused only when the key it was computed under (preset, parameters, declared settings) is the current one, and an
experiment with non-default parameters gets its own results folder."""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from reproducer.errors import ReproducerError
from reproducer.notebook import book_key, default_parameters, start
from reproducer.results_store import KEY_FILE

CHECKOUT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((CHECKOUT / "notebooks").glob("*.ipynb"))
PARAMETERS = '''preset: str = "default"  # smoke | default | paper
seed: int = 0  # the seed
retrain: bool = False  # recompute everything
length_sample: int = 2000  # sentences sampled
seeds: int = 3  # the claims' training seeds
budget: float = 0  # seconds (0 keeps the preset's)
config: str = ""  # evaluation protocol (empty keeps the preset's)
halves: bool = True  # normalise the halves
'''
DEFAULTS = {"preset": "smoke", "seed": 0, "retrain": False, "length_sample": 2000, "seeds": 3, "budget": 0.0,
            "config": "", "halves": True}


@pytest.fixture()
def results(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    return tmp_path / "results"


@pytest.fixture()
def nb(tmp_path):
    """A notebook ``nb`` with :data:`PARAMETERS` as its parameters cell: ``nb(**values)`` starts it with those values
    (papermill's injected cell) over the defaults and returns (run, namespace)."""
    path = tmp_path / "nb.ipynb"
    notebook = new_notebook(cells=[new_code_cell(PARAMETERS), new_code_cell('run = start("nb", globals())')])
    notebook.cells[0].metadata["tags"] = ["parameters", "hide-input"]
    nbformat.write(notebook, path)

    def started(**values):
        namespace = {**DEFAULTS, **values}
        return start("nb", namespace, path=path), namespace

    return started


def counter():
    calls = []

    def compute():
        calls.append(1)
        return {"score": 0.5}

    return calls, compute


def test_papermill_strings_are_coerced_to_the_declared_types(results, nb):
    run, ns = nb(retrain="false", seed="7", length_sample=7.0, budget="1.5", halves="No")
    assert ns["retrain"] is False and run.retrain is False
    assert ns["seed"] == 7 and type(ns["seed"]) is int and run.seed == 7
    assert ns["length_sample"] == 7 and type(ns["length_sample"]) is int
    assert ns["budget"] == 1.5 and ns["halves"] is False
    for text, value in [("TRUE", True), ("yes", True), ("1", True), ("0", False), (True, True), (1, True)]:
        assert nb(retrain=text)[1]["retrain"] is value


def test_retrain_false_as_a_string_recomputes_nothing(results, nb):
    calls, compute = counter()
    nb()[0].json("metrics", compute)
    run, _ = nb(retrain="false")
    assert run.json("metrics", compute) == {"score": 0.5} and len(calls) == 1


@pytest.mark.parametrize("name, value, expected", [
    ("seed", "abc", "Parameter seed must be an int .*parameters cell.*got 'abc'"),
    ("seed", 1.5, "seed must be an int .*got 1.5"),
    ("seed", True, "seed must be an int .*got True"),
    ("seed", -1, "seed must be .*≥ 0.*got -1"),
    ("budget", "nan", "budget must be a float.*got 'nan'"),
    ("budget", float("inf"), "budget must be a float.*got inf"),
    ("retrain", "maybe", "retrain must be a bool.*got 'maybe'"),
    ("config", 3, "config must be a str .*got 3"),
    ("preset", "fast", "preset must be one of smoke, quick, default, paper.*got 'fast'"),
])
def test_a_bad_parameter_is_named_with_its_type_and_value(results, nb, name, value, expected):
    with pytest.raises(ReproducerError, match=expected):
        nb(**{name: value})


def test_non_default_parameters_get_their_own_folder(results, nb):
    calls, compute = counter()
    book, _ = nb()
    book.json("metrics", compute)
    run, _ = nb(seed="1", length_sample="7")
    assert run.dir == results / "nb" / "smoke+length_sample=7,seed=1"
    assert run.json("metrics", compute) == {"score": 0.5} and len(calls) == 2  # computed there, not reused
    assert (run.dir / "metrics.json").is_file()
    assert json.loads((run.dir / "parameters.json").read_text()) == {"length_sample": 7, "seed": 1}
    assert run.bundle_path("uni-skip").parent == run.dir / "checkpoints"
    assert run.record("throughput", []).parent == run.dir
    book.json("eval", lambda: {"MR": 1.0})
    assert run.earlier("nb", "eval") == {"MR": 1.0}  # other chapters' results: the book's run
    assert nb(retrain=True)[0].dir == book.dir == results / "nb" / "smoke"  # retrain names no folder


def test_a_label_is_readable_when_short_and_plain_else_hashed(results, nb):
    assert nb(config="glove-bow,sif-glove", budget="1e-3")[0].dir.name == "smoke+budget=0.001,config=glove-bow,sif-glove"
    for config in ("paper protocol", "a=b", "x" * 60):
        run, _ = nb(config=config)
        assert run.dir.parent == results / "nb" and run.dir.name.startswith("smoke+p") and len(run.dir.name) == 17
        assert json.loads((run.dir / "parameters.json").read_text()) == {"config": config}


def test_the_header_names_the_folder_and_the_changes(results, nb, capsys):
    nb(seed="1")
    out = capsys.readouterr().out
    assert "results=results/nb/smoke+seed=1" in out and "non-default parameters: seed=1" in out


def test_a_changed_setting_recomputes_and_says_why(results, nb, capsys):
    calls, compute = counter()
    run, _ = nb()
    run.settings({"lr": 0.1, "tasks": ["MR"]})
    run.json("metrics", compute)
    run, _ = nb()
    run.settings({"lr": 0.2, "tasks": ["MR"]})
    capsys.readouterr()
    run.json("metrics", compute)
    assert len(calls) == 2
    assert "[recomputed in" in capsys.readouterr().out
    run.json("metrics", compute)  # the new key is recorded
    assert len(calls) == 2
    run, _ = nb()
    run.settings({"lr": 0.1, "tasks": ["MR"]})
    run.json("metrics", compute)
    assert "settings.lr 0.2 → 0.1] results/nb/smoke/metrics.json" in capsys.readouterr().out


def test_the_same_key_is_reused_whatever_the_device(results, nb, capsys):
    calls, compute = counter()
    run, _ = nb()
    assert run.settings({"lr": 0.1, "device": "cuda"}) == run.dir / "settings.json"
    run.frame("table", lambda: __import__("pandas").DataFrame({"a": [1]}))
    run.json("grid/one", compute)
    run, _ = nb(halves="true")
    run.settings({"lr": 0.1, "device": "cpu"})
    assert run.json("grid/one", compute) == {"score": 0.5} and len(calls) == 1
    assert run.frame("table", lambda: 1 / 0)["a"].tolist() == [1]
    assert "[reused] results/nb/smoke/grid/one.json" in capsys.readouterr().out
    manifest = json.loads((run.dir / KEY_FILE).read_text())
    assert set(manifest["results"]) == {"table.csv", "grid/one.json"} and len(manifest["keys"]) == 1
    key = next(iter(manifest["keys"].values()))
    assert key == run.key and "device" not in key["settings"] and "retrain" not in key["parameters"]


def test_a_result_without_a_key_is_recomputed(results, nb, capsys):
    run, _ = nb()
    run.dir.mkdir(parents=True)
    (run.dir / "metrics.json").write_text('{"score": 0.1}')  # stored before keys were recorded
    calls, compute = counter()
    assert run.json("metrics", compute) == {"score": 0.5} and len(calls) == 1
    assert "[recomputed in" in (out := capsys.readouterr().out)
    assert "no key recorded] results/nb/smoke/metrics.json" in out


def test_a_changed_default_recomputes_and_says_why(results, nb, capsys):
    run, _ = nb()
    run.json("metrics", lambda: {"score": 0.5})
    manifest = json.loads((run.dir / KEY_FILE).read_text())
    for key in manifest["keys"].values():
        key["parameters"]["length_sample"] = 1000  # as if the default had been 1000 then
    (run.dir / KEY_FILE).write_text(json.dumps(manifest))
    run.json("metrics", lambda: {"score": 0.5})
    assert "[recomputed in" in (out := capsys.readouterr().out) and "length_sample 1000 → 2000]" in out


def test_the_claims_seeds_never_enter_a_key(results, nb, capsys):
    """``seeds`` chooses which seeds' results the claims read, never what one is: a changed default (3 → 5) reuses
    every stored result, including those of a manifest written when ``seeds`` was still in the key."""
    run, _ = nb()
    run.json("metrics", lambda: {"score": 0.5})
    assert "seeds" not in run.key["parameters"] and "length_sample" in run.key["parameters"]
    manifest = json.loads((run.dir / KEY_FILE).read_text())
    for key in manifest["keys"].values():
        key["parameters"]["seeds"] = 5  # as if recorded before seeds left the key, under another value
    (run.dir / KEY_FILE).write_text(json.dumps(manifest))
    capsys.readouterr()
    assert run.json("metrics", lambda: 1 / 0) == {"score": 0.5}
    assert "[reused] results/nb/smoke/metrics.json" in capsys.readouterr().out
    for key in manifest["keys"].values():
        key["parameters"]["length_sample"] = 1000  # any other parameter still decides
    (run.dir / KEY_FILE).write_text(json.dumps(manifest))
    assert run.json("metrics", lambda: {"score": 0.7}) == {"score": 0.7}
    assert "length_sample 1000 → 2000]" in capsys.readouterr().out


def test_retrain_recomputes_and_records_the_key(results, nb):
    calls, compute = counter()
    nb()[0].json("metrics", compute)
    nb(retrain="yes")[0].json("metrics", compute)
    assert len(calls) == 2
    nb()[0].json("metrics", compute)
    assert len(calls) == 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_the_book_notebooks_start_at_their_defaults_in_the_book_folder(results, path):
    namespace = {**default_parameters(path), "preset": "smoke"}
    run = start(path.stem, namespace)
    assert run.dir == results / path.stem / "smoke" and not run.retrain
    assert run.key == book_key(path.stem, "smoke", {})
    assert 'start("{}", globals())'.format(path.stem) in _setup_source(path)
    if path.stem not in ("00_data", "00b_baselines"):
        # the settings are declared in the set-up cell, by the run or by the chapter's models or training
        # (ChapterModels.declare, ParaphraseModels.declare)
        setup = _setup_source(path)
        declared = "run.settings(" in setup or re.search(r"^(models|training)\.declare\(\)", setup, re.M)
        assert declared and 'run.record("settings"' not in setup


def _setup_source(path: Path) -> str:
    cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code" and c.source.strip()
             and "injected-parameters" not in c.metadata.get("tags", [])]
    return cells[1].source


def _stamp_script():
    spec = importlib.util.spec_from_file_location("stamp_result_keys", CHECKOUT / "scripts" / "stamp_result_keys.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stamping_the_book_results_makes_them_reusable(results, capsys):
    chapter = results / "01_skip_thoughts" / "default"
    (chapter / "grid").mkdir(parents=True)
    settings = {"lr": 0.001, "seed": 0, "tasks": ["MR", "CR"], "device": "cuda"}
    (chapter / "settings.json").write_text(json.dumps(settings))
    (chapter / "eval_uni-skip.json").write_text('{"MR": 70.0}')
    (chapter / "grid" / "a.csv").write_text("a\n1\n")
    (results / "00_data" / "default").mkdir(parents=True)
    (results / "00_data" / "default" / "corpus_stats.json").write_text("{}")

    script = _stamp_script()
    assert script.main(["--check"]) == 0
    assert "would stamp" in capsys.readouterr().out and not (chapter / KEY_FILE).exists()
    assert script.main([]) == 0
    out = capsys.readouterr().out
    assert "stamped results/01_skip_thoughts/default/eval_uni-skip.json" in out
    assert "stamped results/00_data/default/corpus_stats.json" in out
    manifest = json.loads((chapter / KEY_FILE).read_text())
    assert set(manifest["results"]) == {"eval_uni-skip.json", "grid/a.csv"}

    namespace = default_parameters(CHECKOUT / "notebooks" / "01_skip_thoughts.ipynb")
    run = start("01_skip_thoughts", namespace)
    run.settings({**settings, "device": "cpu"})
    assert run.json("eval_uni-skip", lambda: 1 / 0) == {"MR": 70.0}
    assert run.frame("grid/a", lambda: 1 / 0)["a"].tolist() == [1]
    run00 = start("00_data", default_parameters(CHECKOUT / "notebooks" / "00_data.ipynb"))
    assert run00.json("corpus_stats", lambda: 1 / 0) == {}

    (chapter / "new.json").write_text("{}")
    capsys.readouterr()
    assert script.main([]) == 0  # already stamped results are kept as they are
    out = capsys.readouterr().out
    assert "stamped results/01_skip_thoughts/default/new.json" in out and "eval_uni-skip.json" not in out

"""The notebook conventions: presets, the results store, the output and parameter checks."""
from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from reproducer.errors import ReproducerError
from reproducer.notebook import check_conventions, check_outputs, start
from reproducer.results_store import NotebookRun, check_preset

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.fixture()
def results(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    return tmp_path / "results"


def test_presets():
    from reproducer.presets import SCALES

    assert [check_preset(p) for p in SCALES] == ["smoke", "quick", "default", "paper"]
    with pytest.raises(ReproducerError, match="smoke, quick, default, paper"):
        check_preset("fast")


def test_results_are_computed_once_then_reused(results, tmp_path):
    nbformat.write(_notebook(GOOD), tmp_path / "nb.ipynb")
    run = start("nb", {"preset": "smoke", "seed": 0}, path=tmp_path / "nb.ipynb")
    calls = []

    def compute():
        calls.append(1)
        return {"score": 0.5}

    assert run.json("metrics", compute) == {"score": 0.5}
    assert run.json("metrics", compute) == {"score": 0.5}
    assert len(calls) == 1
    assert (results / "nb" / "smoke" / "metrics.json").is_file()
    assert not list((results / "nb" / "smoke").glob("*.part"))
    again = NotebookRun("nb", "smoke", retrain=True)
    again.json("metrics", compute)
    assert len(calls) == 2


def test_frames_round_trip_and_are_per_preset(results):
    df = pd.DataFrame({"task": ["MR", "CR"], "acc": [70.1, 71.5]})
    smoke, default = NotebookRun("nb", "smoke"), NotebookRun("nb", "default")
    pd.testing.assert_frame_equal(smoke.frame("table", lambda: df), df)
    pd.testing.assert_frame_equal(smoke.frame("table", lambda: None), df)  # reused: compute not called
    with pytest.raises(ReproducerError, match="expected a DataFrame"):
        default.frame("table", lambda: {"not": "a frame"})


SETUP = 'from reproducer.notebook import start\n\nrun = start("nb", globals())\n'


def _notebook(params: str, executed: bool = True, error: bool = False, tag: str = "parameters", setup: str = SETUP):
    nb = new_notebook(cells=[new_markdown_cell("# title"), new_code_cell(params), new_code_cell(setup)],
                      metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nb.cells[1].metadata["tags"] = [tag, "hide-input"]
    nb.cells[2].metadata["tags"] = ["hide-input"]
    if executed:
        for i, c in enumerate(nb.cells[1:], 1):
            c.execution_count = i
        nb.cells[2].outputs = [new_output("error", ename="E", evalue="boom", traceback=[])] if error else []
    return nb


GOOD = 'preset: str = "default"  # smoke | default | paper\nseed: int = 0  # the seed\n'


@pytest.mark.parametrize("params, tag, message, setup", [
    (GOOD, "other", "tagged 'parameters'", SETUP),
    ('seed: int = 0  # the seed\npreset: str = "default"  # which\n', "parameters", "first parameter must be `preset`",
     SETUP),
    ('preset: str = "default"  # which\nseed = 0\n', "parameters", "without a type annotation or comment", SETUP),
    (GOOD + "budget: float | None = None  # seconds\n", "parameters", "cannot read the parameters \\['budget'\\]", SETUP),
    (GOOD + "steps: int = 0  # 0 = the preset's\n", "parameters", "cannot read the parameters \\['steps'\\]", SETUP),
    (GOOD + "names: list = []  # which\n", "parameters", "names must be annotated str, int, float or bool", SETUP),
    (GOOD, "parameters", 'must call start\\("nb", globals\\(\\)\\)', 'run = start("nb", preset, seed=seed)'),
    (GOOD, "parameters", 'must call start\\("nb", globals\\(\\)\\)', 'run = start("other", globals())'),
])
def test_conventions_are_enforced(tmp_path, params, tag, message, setup):
    path = tmp_path / "nb.ipynb"
    nbformat.write(_notebook(params, tag=tag, setup=setup), path)
    with pytest.raises(ReproducerError, match=message):
        check_conventions(path)


def test_plumbing_must_be_folded(tmp_path):
    nb = _notebook(GOOD)
    nb.cells[2].metadata["tags"] = []
    nbformat.write(nb, tmp_path / "nb.ipynb")
    with pytest.raises(ReproducerError, match="hide-input"):
        check_conventions(tmp_path / "nb.ipynb")


def test_a_notebook_without_a_kernel_is_refused(tmp_path):
    nb = _notebook(GOOD)
    nb.metadata.pop("kernelspec")
    nbformat.write(nb, tmp_path / "nb.ipynb")
    with pytest.raises(ReproducerError, match="no kernelspec"):
        check_conventions(tmp_path / "nb.ipynb")


def test_conventions_report_the_parameters(tmp_path):
    path = tmp_path / "nb.ipynb"
    nbformat.write(_notebook(GOOD), path)
    params = check_conventions(path)
    assert list(params) == ["preset", "seed"] and params["seed"]["type"] == "int"


def test_outputs_check_names_the_notebook_and_the_fix(tmp_path):
    fresh, failed, done = tmp_path / "fresh.ipynb", tmp_path / "failed.ipynb", tmp_path / "done.ipynb"
    nbformat.write(_notebook(GOOD, executed=False), fresh)
    nbformat.write(_notebook(GOOD, error=True), failed)
    nbformat.write(_notebook(GOOD), done)
    check_outputs([done])
    with pytest.raises(ReproducerError) as e:
        check_outputs([fresh, failed, done])
    assert "fresh.ipynb: has no outputs" in str(e.value)
    assert "failed.ipynb: code cells [1] end in an error" in str(e.value)
    assert "make reproduce" in str(e.value)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_committed_notebooks_follow_the_conventions(path):
    params = check_conventions(path)
    assert {"preset", "seed", "retrain"} <= set(params)
    assert params["preset"]["default"] == '"default"'
    check_outputs([path])
    nb = nbformat.read(path, as_version=4)
    assert nb.metadata["papermill"]["parameters"]["preset"] == "default", "committed outputs must be the default preset"


#: A parameter's or setting's name in backticks right before a unit: the prose meant its value (issue 69: "for
#: `figure_epochs` epochs" printed the name); such numbers are glued (``{glue:text}`name` epochs``).
NAME_FOR_VALUE = re.compile(r"(?<!\})`(\w+)` (epochs?|epoch\(s\)|steps|batches|minutes|seconds|repeats|seeds)\b")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_the_prose_gives_values_not_parameter_names(path):
    nb = nbformat.read(path, as_version=4)
    found = [m.group(0) for cell in nb.cells if cell.cell_type == "markdown"
             for m in NAME_FOR_VALUE.finditer(cell.source)]
    assert not found, f"{path.name}: glue these values instead of naming them: {found}"


def test_the_book_has_notebooks():
    assert [p.name for p in NOTEBOOKS][:2] == ["00_data.ipynb", "00b_baselines.ipynb"]


def test_earlier_chapters_are_read_by_name_with_a_clear_error(results):
    run = NotebookRun("02_next", "smoke")
    with pytest.raises(ReproducerError, match="run notebooks/01_first.ipynb at preset 'smoke'"):
        run.earlier("01_first", "eval_combine-skip")
    assert run.earlier("01_first", "eval_combine-skip", default=None) is None
    NotebookRun("01_first", "smoke").json("eval_combine-skip", lambda: {"MR": 70.0})
    assert run.earlier("01_first", "eval_combine-skip") == {"MR": 70.0}
    assert NotebookRun("01_first", "default").earlier("01_first", "eval_combine-skip", default={}) == {}  # per preset


class Toy:
    """An encoder whose bundle is a line of text."""
    name = "toy"

    def save(self, path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("bundle")


def test_a_model_is_trained_once_and_its_bundle_saved(results):
    import torch

    from reproducer.results_store import slug
    from reproducer.fit import Fitted

    run, checkpoints = NotebookRun("01_first", "smoke"), []
    fitted = Fitted(Toy(), torch.nn.Linear(1, 1))
    assert slug("combine-skip (no expansion)") == "combine-skip_no_expansion" and not run.has_model("MC-QT 400d")
    assert run.model("MC-QT 400d", lambda ckpt: checkpoints.append(ckpt) or fitted) is fitted
    assert run.model("MC-QT 400d", lambda ckpt: 1 / 0) is fitted  # not trained again in this kernel
    assert checkpoints == [run.path("checkpoints/MC-QT_400d.train.pt")]
    assert run.bundle_path("MC-QT 400d").read_text() == "bundle" and run.has_model("MC-QT 400d")
    assert run.encoder("MC-QT 400d") is fitted.encoder and run.encoder("uni-skip") is None


def test_a_model_with_cached_results_and_no_checkpoint_is_not_silently_retrained(results):
    """A later kernel that needs the model of a reused training record whose checkpoint is gone raises (a new
    training run would be another model than the cached results describe); without a record it trains."""
    import torch

    from reproducer.fit import Fitted

    NotebookRun("01_first", "smoke").json("uni-skip_training", lambda: {"step": 10})
    later = NotebookRun("01_first", "smoke")
    with pytest.raises(ReproducerError, match="uni-skip: its results are cached .* checkpoint is gone"):
        later.model("uni-skip", lambda ckpt: Fitted(Toy(), torch.nn.Linear(1, 1)))
    fitted = Fitted(Toy(), torch.nn.Linear(1, 1))
    assert later.model("bi-skip", lambda ckpt: fitted) is fitted  # no cached record: it trains
    later.path("checkpoints/uni-skip.train.pt").write_text("a checkpoint")  # a checkpoint: fit resumes from it
    assert later.model("uni-skip", lambda ckpt: fitted) is fitted


def test_large_results_are_stored_compressed_under_their_plain_name(results):
    """A result above COMPRESS_ABOVE characters is written as ``<name>.json.xz`` (byte-for-byte reproducible), reused
    from the cache under its plain name, read by a later chapter, and replaced by the plain file when it shrinks."""
    import lzma

    from reproducer.files import COMPRESS_ABOVE, read_json, stored_json

    big = {"items": list(range(COMPRESS_ABOVE // 4))}
    run, calls = NotebookRun("01_first", "smoke"), []
    assert run.json("eval_big", lambda: calls.append(1) or big) == big
    folder = results / "01_first" / "smoke"
    assert (folder / "eval_big.json.xz").is_file() and not (folder / "eval_big.json").exists()
    first = (folder / "eval_big.json.xz").read_bytes()
    assert lzma.decompress(first).startswith(b"{\n \"items\"")
    assert run.json("eval_big", lambda: calls.append(1) or big) == big and calls == [1]  # reused, not recomputed
    assert run.reusable("eval_big.json") and stored_json(folder / "eval_big.json") == folder / "eval_big.json.xz"
    assert NotebookRun("02_next", "smoke").earlier("01_first", "eval_big") == big
    assert read_json(folder / "eval_big.json") == big
    NotebookRun("01_first", "smoke", retrain=True).json("eval_big", lambda: big)
    assert (folder / "eval_big.json.xz").read_bytes() == first  # no time stamp: the same bytes again
    NotebookRun("01_first", "smoke", retrain=True).json("eval_big", lambda: {"items": []})
    assert (folder / "eval_big.json").is_file() and not (folder / "eval_big.json.xz").exists()


def test_a_result_asked_compressed_is_stored_so_and_a_plain_one_is_compressed_on_reuse(results):
    """``compress_above=0`` (results carrying bootstrap replicates) stores every result compressed; one stored plain
    before is reused, stored again compressed with its digest recorded anew, and reused from then on."""
    import json
    import lzma

    from reproducer.files import stored_json

    value, calls = {"replicates": [80.1, 79.9, 80.3]}, []
    run, folder = NotebookRun("01_first", "smoke"), results / "01_first" / "smoke"
    assert run.json("small", lambda: calls.append(1) or value, compress_above=0) == value
    assert stored_json(folder / "small.json") == folder / "small.json.xz"
    run.json("old", lambda: calls.append(2) or value)  # stored plain, as before
    assert (folder / "old.json").is_file() and calls == [1, 2]
    assert run.json("old", lambda: calls.append(3) or value, compress_above=0) == value and calls == [1, 2]
    assert not (folder / "old.json").exists() and json.loads(lzma.decompress((folder / "old.json.xz").read_bytes()))
    assert run.reusable("old.json")  # its new digest is the recorded one
    assert NotebookRun("01_first", "smoke").json("old", lambda: calls.append(4), compress_above=0) == value
    assert calls == [1, 2]


def test_compressing_stored_results_keeps_their_keys_and_uses_and_they_are_still_reused(results):
    """``compress_stored`` (``scripts/store_results.py``): a plain result above the limit is stored compressed, the
    same bytes once decompressed, under its recorded key, with the checkpoints it was computed from and its new digest,
    so a notebook still reuses it; small results, the manifest and undeclared files stay as they are."""
    import lzma

    from reproducer.results_store import KEY_FILE, compress_stored, read_keys

    run, folder, calls = NotebookRun("01_first", "smoke"), results / "01_first" / "smoke", []
    big, small = {"curve": list(range(3000))}, {"score": 1.0}
    run.json("big", lambda: calls.append(1) or big, compress_above=10**9)  # stored plain, as before the limit moved
    run.json("small", lambda: calls.append(2) or small)
    table = pd.DataFrame({"query": ["a long enough query"] * 200, "rank": range(200)})
    (folder / "table.csv").write_text(table.to_csv(index=False))  # a table stored plain, as before the limit moved
    from reproducer.results_store import record_keys
    record_keys(folder, {"table.csv": run.key})
    manifest = read_keys(folder)
    manifest["uses"] = {"big.json": {"01_first/smoke/checkpoints/m.train.pt": "abc"}}  # as if it read a model
    (folder / KEY_FILE).write_text(json.dumps(manifest))
    (folder / "notes.json").write_text(json.dumps(big))  # not a result of the manifest
    plain = (folder / "big.json").read_bytes()

    moved = compress_stored(folder, above=1000)
    assert [(p.name, before) for p, before, _ in moved[:1]] == [("big.json", len(plain))] and moved[0][2] < len(plain) / 3
    assert [p.name for p, _, _ in moved[1:]] == ["table.csv"] and (folder / "table.csv.xz").is_file()
    assert run.frame("table", lambda: calls.append(4)).equals(table)  # reused, read from its compressed form
    assert lzma.decompress((folder / "big.json.xz").read_bytes()) == plain and not (folder / "big.json").exists()
    after = read_keys(folder)
    assert after["results"] == manifest["results"] and after["keys"] == manifest["keys"]
    assert after["uses"] == manifest["uses"] and after["digests"]["big.json"] != manifest["digests"]["big.json"]
    assert (folder / "small.json").is_file() and (folder / "notes.json").is_file() and (folder / KEY_FILE).is_file()
    assert run.json("big", lambda: calls.append(3)) == big and calls == [1, 2]  # reused: its digest is the new one
    assert compress_stored(folder, above=1000) == []  # nothing left to move

    import gzip  # a result stored gzip-compressed, as before xz: still read and reused, then moved to xz

    (folder / "old.json.gz").write_bytes(gzip.compress(json.dumps(big).encode(), mtime=0))
    record_keys(folder, {"old.json": run.key})
    assert run.reusable("old.json") and json.loads(gzip.decompress((folder / "old.json.gz").read_bytes())) == big
    assert [p.name for p, _, _ in compress_stored(folder)] == ["old.json.gz"]
    assert (folder / "old.json.xz").is_file() and not (folder / "old.json.gz").exists()
    assert run.json("old", lambda: calls.append(5)) == big and calls == [1, 2]  # reused from its xz form


def _scored(pred, gold, group=None):
    items = {"pred": pred, "gold": gold}
    return items if group is None else {**items, "group": group, "groups": ["a", "b"]}


def test_gold_scores_are_stored_once_per_folder_and_read_back_in_place(results):
    """Every encoder's results repeat a test set's gold scores: ``NotebookRun.json`` keeps them once in ``gold/``
    beside the results (named by their SHA-256), ``read_json`` puts them back; a changed or missing gold file is
    refused."""
    from reproducer.files import GOLD_DIR, read_json, restore_gold, share_gold

    gold, group = [0.5 * i for i in range(400)], [i % 2 for i in range(400)]
    one = {"unsupervised": {"items": {"STS12": _scored([0.1] * 400, gold, group), "MR": {"correct": "0110"}}}}
    two = {"items": {"STS12": _scored([0.2] * 400, gold, group), "SICK-R": _scored([1.0, 2.0], [3.0, 4.0])}}
    run, folder = NotebookRun("01_first", "smoke"), results / "01_first" / "smoke"
    assert run.json("eval_one", lambda: one) == one and run.json("eval_two", lambda: two) == two
    shared = sorted((folder / GOLD_DIR).iterdir())
    assert len(shared) == 2  # STS12's gold scores and groups once for both results, SICK-R's once
    stored = json.loads((folder / "eval_two.json").read_text())
    assert isinstance(stored["items"]["STS12"]["gold"], str) and "group" not in stored["items"]["STS12"]
    assert stored["items"]["STS12"]["gold"] == json.loads((folder / "eval_one.json").read_text())[
        "unsupervised"]["items"]["STS12"]["gold"]
    assert read_json(folder / "eval_one.json") == one and read_json(folder / "eval_two.json") == two
    assert run.json("eval_two", lambda: {}) == two  # reused: its digest is that of the shared form
    assert share_gold({"items": [1, 2]}, folder) == {"items": [1, 2]}  # not per-task outcomes: left alone
    assert restore_gold(share_gold(two, folder), folder) == two

    big = max(shared, key=lambda p: p.stat().st_size)
    big.write_text(big.read_text().replace("0.5", "0.75", 1))
    with pytest.raises(ReproducerError, match="changed after it was written"):
        read_json(folder / "eval_one.json")
    big.unlink()
    with pytest.raises(ReproducerError, match="is missing"):
        read_json(folder / "eval_one.json")
    # issue 65: in the cache, only the results that share it are computed again (not the whole chapter)
    assert run.json("eval_one", lambda: one) == one and read_json(folder / "eval_one.json") == one
    assert run.json("eval_two", lambda: pytest.fail("its gold file is back: reused")) == two


def test_a_folder_where_a_result_belongs_is_one_error_before_computing(results):
    """A result, or the folder's manifest, replaced by a folder gave a raw error after the computation."""
    run = NotebookRun("01_first", "smoke")
    (run.dir / "metrics.json").mkdir(parents=True)
    with pytest.raises(ReproducerError, match="metrics.json is a folder where a results file belongs"):
        run.json("metrics", lambda: pytest.fail("computed before the error"))
    (run.dir / "metrics.json").rmdir()
    (run.dir / "cache_keys.json").mkdir()
    with pytest.raises(ReproducerError, match="cache_keys.json is a folder where a results file belongs"):
        run.frame("table", lambda: pytest.fail("computed before the error"))


def test_sharing_stored_gold_scores_keeps_values_keys_and_reuse(results):
    """``share_stored`` (``scripts/store_results.py``): results stored with their gold scores inline are rewritten with
    them shared, the same value once read, under their recorded key and with a new digest, so a notebook still reuses
    them; results without per-item scores are left as they are."""
    from reproducer.files import write_json
    from reproducer.results_store import read_keys, record_keys, share_stored

    run, folder, calls = NotebookRun("01_first", "smoke"), results / "01_first" / "smoke", []
    gold = [0.5 * i for i in range(3000)]
    old = {"items": {"STS12": _scored([0.1] * 3000, gold)}}
    run.json("small", lambda: calls.append(1) or {"score": 1.0})
    write_json(folder / "eval_old.json", old, compress_above=0)  # inline gold scores, as stored before sharing
    record_keys(folder, {"eval_old.json": run.key})
    before = read_keys(folder)

    rewritten = share_stored(folder)
    assert [p.name for p, _, _ in rewritten] == ["eval_old.json.xz"] and rewritten[0][2] < rewritten[0][1] / 2
    after = read_keys(folder)
    assert after["results"] == before["results"] and after["keys"] == before["keys"]
    assert after["digests"]["eval_old.json"] != before["digests"]["eval_old.json"]
    assert after["digests"]["small.json"] == before["digests"]["small.json"]
    assert run.json("eval_old", lambda: calls.append(2)) == old and calls == [1]  # reused, the same value
    assert share_stored(folder) == []  # nothing left to share


def test_rounding_stored_predictions_keeps_the_rest_keys_and_reuse(results):
    """``round_stored`` (``scripts/store_results.py``): predicted scores stored at 6 significant digits are rewritten at
    the 4 that ``scored_items`` keeps now, nothing else of the result changed, under its recorded key and with a new
    digest, so a notebook still reuses it; results without per-item predictions are left as they are."""
    from reproducer.evaluate.items import scored_items
    from reproducer.files import write_json
    from reproducer.results_store import read_keys, record_keys, round_stored

    run, folder, calls = NotebookRun("01_first", "smoke"), results / "01_first" / "smoke", []
    pred, gold = [0.1234567 + i / 7 for i in range(3000)], [0.5 * i for i in range(3000)]
    old = {"score": 0.5, "items": {"STS12": {"pred": [float(f"{p:.6g}") for p in pred], "gold": gold}}}
    run.json("small", lambda: calls.append(1) or {"score": 1.0, "items": {"MR": {"correct": "0110"}}})
    write_json(folder / "eval_old.json", old, compress_above=0)  # as stored before: six digits
    record_keys(folder, {"eval_old.json": run.key})
    before = read_keys(folder)

    rewritten = round_stored(folder)
    assert [p.name for p, _, _ in rewritten] == ["eval_old.json.xz"] and rewritten[0][2] < rewritten[0][1]
    after = read_keys(folder)
    assert after["results"] == before["results"] and after["keys"] == before["keys"]
    assert after["digests"]["eval_old.json"] != before["digests"]["eval_old.json"]
    assert after["digests"]["small.json"] == before["digests"]["small.json"]
    now = run.json("eval_old", lambda: calls.append(2))  # reused
    assert calls == [1] and now["score"] == 0.5 and now["items"]["STS12"]["gold"] == gold
    assert now["items"]["STS12"]["pred"] == scored_items(pred, gold)["_items"]["pred"] != old["items"]["STS12"]["pred"]
    assert round_stored(folder) == []  # nothing left to round


def test_committed_results_above_the_limit_are_compressed():
    """Every result a committed manifest records is either small or compressed: the results must leave room for the GPU
    pack in the 64 MiB that travel with a device call (tests/test_gpu_plan.py checks the sum)."""
    from reproducer.files import COMPRESS_ABOVE
    from reproducer.results_store import KEY_FILE, read_keys

    root = Path(__file__).resolve().parents[1] / "results"
    large = [path for manifest in root.rglob(KEY_FILE) for file in read_keys(manifest.parent)["results"]
             if (path := manifest.parent / file).is_file() and path.suffix in (".json", ".csv")
             and len(path.read_text(encoding="utf-8")) > COMPRESS_ABOVE]
    assert not large, f"store these compressed (python scripts/store_results.py): {large[:5]}"

def test_committed_results_share_their_gold_scores_round_their_predictions_and_are_stored_as_xz():
    """Every result a committed manifest records keeps its per-item gold scores shared, its predicted scores at 4
    significant digits and, if compressed, is xz-compressed (``scripts/store_results.py``): each test set's gold scores
    once per folder, predictions a quarter shorter and a sixth less than gzip, the room the GPU pack needs beside the
    repository in one device call."""
    from reproducer.evaluate.items import stored_predictions
    from reproducer.files import read_json, stored_json, walk_items
    from reproducer.results_store import KEY_FILE, read_keys

    root = Path(__file__).resolve().parents[1] / "results"
    inline, gzipped, precise = [], [], []
    for manifest in root.rglob(KEY_FILE):
        for file in read_keys(manifest.parent)["results"]:
            found = stored_json(manifest.parent / file)
            if found is None:
                continue
            gzipped += [found] if found.suffix == ".gz" else []
            if file.endswith(".json"):
                outcomes = []
                walk_items(read_json(manifest.parent / file, as_stored=True), lambda o: outcomes.append(o) or o)
                inline += [found] if any(isinstance(o.get("gold"), list) for o in outcomes) else []
                precise += [found] if any(isinstance(o.get("pred"), list) and o["pred"] != stored_predictions(o["pred"])
                                          for o in outcomes) else []
    assert not gzipped, f"store these as xz (python scripts/store_results.py): {gzipped[:5]}"
    assert not inline, f"share their gold scores (python scripts/store_results.py): {inline[:5]}"
    assert not precise, f"round their predicted scores (python scripts/store_results.py): {precise[:5]}"


def test_an_undeclared_parameter_is_an_error_naming_the_close_match(results, tmp_path):
    """Issue 65: papermill injects any ``-p`` name; one the parameters cell does not declare (a typo) was ignored and
    the run reused the book's results under the experiment's name."""
    nb = _notebook(GOOD + "seeds: int = 3  # training seeds\n", setup=SETUP + "table = run.dir\nfor row in []:\n    pass\n")
    nbformat.write(nb, tmp_path / "nb.ipynb")
    with pytest.raises(ReproducerError, match="Unknown parameter 'sed' \\(-p sed 5\\).*declares preset, seed, seeds; "
                                              "did you mean 'seed'"):
        start("nb", {"preset": "smoke", "seed": 0, "seeds": 3, "sed": 5}, path=tmp_path / "nb.ipynb")
    with pytest.raises(ReproducerError, match="Unknown parameter 'epochs'.*declares preset, seed, seeds\\.$"):
        start("nb", {"preset": "smoke", "seed": 0, "seeds": 3, "epochs": "two"}, path=tmp_path / "nb.ipynb")
    # a kernel whose later cells ran already (a student re-running the set-up cell) holds their names: not parameters
    kernel = {"preset": "smoke", "seed": 0, "seeds": 3, "table": "x", "row": 1, "start": start, "In": [], "_": 3}
    assert start("nb", kernel, path=tmp_path / "nb.ipynb").seed == 0


def test_raising_seeds_reuses_the_seeds_already_computed(results, tmp_path):
    """Issue 65: ``seeds`` changes no result (NOT_IN_KEY), yet a non-default value moved the run and every seed to
    folders of their own (``smoke+seeds=2``, ``smoke+seed=1,seeds=2``): raising it trained every seed again."""
    nbformat.write(_notebook(GOOD + "seeds: int = 3  # training seeds\n"), tmp_path / "nb.ipynb")

    def execute(seeds: int) -> list[int]:
        run, trained = start("nb", {"preset": "smoke", "seed": 0, "seeds": seeds}, path=tmp_path / "nb.ipynb"), []
        for k in range(seeds):
            model = run if k == 0 else run.sibling(seed=k)
            model.json("model", lambda k=k: trained.append(k) or {"seed": k})
        return trained

    assert execute(2) == [0, 1]
    assert execute(3) == [2]  # only the new seed
    assert sorted(p.name for p in (results / "nb").iterdir()) == ["smoke", "smoke+seed=1", "smoke+seed=2"]


def test_a_notebook_whose_results_are_all_stored_writes_nothing(results, tmp_path, monkeypatch):
    """Issue 65: a read-only results folder gave a raw PermissionError although every result was stored (the settings,
    the parameters and the claims were written again on every execution, the log opened for appending)."""
    import tempfile

    from reproducer.log import _appendable

    nbformat.write(_notebook(GOOD + "seeds: int = 3  # training seeds\n"), tmp_path / "nb.ipynb")

    def execute(compute):
        run = start("nb", {"preset": "smoke", "seed": 1, "seeds": 3}, path=tmp_path / "nb.ipynb")
        run.settings({"sizes": [1, 2]})
        found = run.json("metrics", compute), run.frame("table", lambda: pd.DataFrame({"a": [compute()["score"]]}))
        run.record("claims", [{"claim": "x", "outcome": "holds"}])
        return found

    first = execute(lambda: {"score": 0.5})

    def refuse(*args, **kwargs):
        raise PermissionError("read-only results folder")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)  # every write of the library goes through atomic_path
    again = execute(lambda: pytest.fail("recomputed"))
    assert again[0] == first[0] and again[1].equals(first[1])
    assert not _appendable(tmp_path / "nb.ipynb" / "run.log")  # a log that cannot be opened is skipped, not raised

"""The GPU plan (``reproducer.gpu_pack``, ``reproducer.gpu_run``): its pack, its limits, and its dry run — the same run
step at smoke sizes on the CPU, in a process that cannot import what the GPU machine lacks — so the plan cannot rot
between the rare GPU runs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from reproducer.bench import family_objectives
from reproducer.errors import ReproducerError
from reproducer.files import read_json
from reproducer.gpu_pack import KEEP_TOKENS, MAX_PACK_BYTES, Pack, _first_books, build_pack, planned_sentences
from reproducer.gpu_plans import PlannedModel
from reproducer.gpu_run import MAX_FILES, _Stages, check_returnable, plan_of

ROOT = Path(__file__).resolve().parents[1]
#: What the lent GPU machine does not have (papermill, gensim, jupyter; nltk comes in the pack).
MISSING_THERE = ("nltk", "blingfire", "gensim", "papermill", "nbformat", "ipywidgets", "jupyter_book", "selenium")
TRAVEL_BYTES = 64 * 2**20  # what travels with a device call: tracked files plus the carried pack


@pytest.fixture(scope="module")
def smoke_pack(tmp_path_factory) -> Path:
    return build_pack(tmp_path_factory.mktemp("pack"), "smoke", progress=False)


def test_pack_ids_are_the_chapters_ids_at_any_vocabulary_size(smoke_pack):
    """The packed ids, cut to a vocabulary size, are exactly what a chapter builds from the corpus at that size (cut to
    :data:`KEEP_TOKENS` tokens): one array serves every preset."""
    from reproducer.data.batches import TokenizedCorpus
    from reproducer.data.corpus import CorpusConfig, load_corpus
    from reproducer.data.vocab import Vocabulary

    pack = Pack(smoke_pack)
    corpus = load_corpus("train", CorpusConfig(max_books=3), progress=False)
    for size in (500, 2000):
        vocab = Vocabulary.build(corpus.sentences, max_size=size)
        assert pack.vocabulary(size) == vocab
        ours = pack.word_ids("train", size)
        theirs = _first_books(TokenizedCorpus.from_corpus(corpus, vocab), planned_sentences("smoke"))  # what it packs
        assert len(ours) == len(theirs) == pack.meta["train_sentences"] and ours.book_spans == theirs.book_spans
        for i in (0, 17, len(ours) - 1):
            np.testing.assert_array_equal(ours.sentence(i), theirs.sentence(i, max_len=KEEP_TOKENS))
    assert max(len(pack.word_ids("train").sentence(i)) for i in range(len(ours))) == KEEP_TOKENS
    assert pack.meta["valid_sentences"] == len(pack.word_ids("valid"))


def test_pack_refuses_a_changed_file_and_a_missing_meta(smoke_pack, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(smoke_pack, copy)
    with open(copy / "vocab.txt.xz", "ab") as f:
        f.write(b"x")
    with pytest.raises(ReproducerError, match="changed since the pack was built"):
        Pack(copy)
    with pytest.raises(ReproducerError, match="not a GPU pack"):
        Pack(tmp_path)
    with pytest.raises(ReproducerError, match="Unknown pack scale"):
        build_pack(tmp_path / "x", "huge")


def test_pack_gives_every_family_its_training_data(smoke_pack):
    """Quick-Thoughts and skip-thought get real ids; the fixed-vector families random tables of their preset's size
    (bench only); MC-QT, which reads GloVe, is refused."""
    from reproducer.papers.registry import preset

    pack = Pack(smoke_pack)
    qt = pack.training_data("quick-thought", "uni-QT", preset("quick-thought", "smoke"))
    assert len(qt.vocab) == 2000 and int(qt.tokenized.ids.max()) < 2000
    mv = pack.training_data("consensus", "MV", preset("consensus", "smoke"))
    assert mv.vectors.shape == (len(mv.vocab), 32) and not mv.vectors[:4].any()
    pp = pack.training_data("paraphrastic", "PP", preset("paraphrastic", "smoke"))
    assert len(pp.pairs) > 1000 and pp.vectors.dim == 32
    with pytest.raises(ReproducerError, match="GloVe"):
        pack.training_data("quick-thought", "MC-QT", preset("quick-thought", "smoke"))


def test_the_plans_bench_stage_takes_a_sixth_paper_from_its_declaration(smoke_pack, sixth_paper):
    """The toy paper (``tests/helpers/toy_paper.py``, registered from a temporary folder) is benched by the GPU plan's
    bench stage on the pack's corpus, its data built from what its objective declares it reads."""
    import torch

    from reproducer.gpu_run import bench

    rows = bench(plan_of("smoke"), Pack(smoke_pack), torch.device("cpu"), say=lambda *a: None, objectives=["toy"])
    (row,) = rows
    assert "error" not in row, row
    assert row["family"] == "toy-objective" and row["steps"] > 0 and row["gflops_per_second"] > 0


def test_the_plans_train_stage_trains_and_scores_a_sixth_papers_model(smoke_pack, sixth_paper, tmp_path):
    """The plan's train stage takes any trained model of the registry (the book's plans train uni-QT): the toy paper's
    model trains through its family on the pack's books, with its held-out loss, and is scored; a combination or a
    baseline is refused."""
    import torch

    from reproducer.gpu_run import train_and_score

    plan = plan_of("smoke", models=(PlannedModel("toy-encoder", 3, ("MR",)),))
    record = train_and_score(plan.models[0], plan, Pack(smoke_pack), torch.device("cpu"), tmp_path, say=lambda *a: None)
    assert record["model"] == "toy-encoder" and record["steps"] == 3 and set(record["scores"]) == set(plan.eval_tasks)
    assert "held-out loss" in record["log"]["evals"][-1] and (tmp_path / record["eval_file"]).is_file()
    for other in ("combine-skip", "glove-bow"):
        with pytest.raises(ReproducerError, match="the plan trains a variant"):
            train_and_score(PlannedModel(other, 3, ("MR",)), plan, Pack(smoke_pack), torch.device("cpu"), tmp_path)


def test_the_pack_holds_the_first_books_the_plans_read_and_a_plan_cannot_read_them_twice(smoke_pack, tmp_path):
    """A pack holds whole books from the corpus's start, at least what the plans' largest model reads (the cut of 3
    books at one sentence into the second keeps both, whole); the epochs a run reports are of the whole corpus, not of
    the packed part; a model whose steps would read the packed sentences twice is refused before
    it trains (fails on a pack that silently wrapped around)."""
    import torch

    from reproducer.data.batches import TokenizedCorpus
    from reproducer.data.corpus import CorpusConfig, load_corpus
    from reproducer.gpu_run import train_and_score

    pack = Pack(smoke_pack)
    whole = TokenizedCorpus.from_corpus(load_corpus("train", CorpusConfig(max_books=3), progress=False),
                                        pack.vocabulary())
    first_end = whole.book_spans[0][2]
    cut = _first_books(whole, first_end + 1)  # one sentence into the second book: both books, whole
    assert [tuple(b) for b in cut.book_spans] == [tuple(b) for b in whole.book_spans[:2]]
    assert len(cut) == whole.book_spans[1][2] and np.array_equal(cut.ids, whole.ids[: whole.offsets[len(cut)]])
    assert _first_books(whole, first_end).book_spans == whole.book_spans[:1]
    assert _first_books(whole, None) is whole and _first_books(whole, 10**9) is whole
    assert planned_sentences("paper") == 2500 * 400  # uni-QT's steps × batch, the plans' largest
    assert planned_sentences("smoke") == 32 * 4 and planned_sentences("nowhere") is None

    assert pack.meta["corpus_train_sentences"] >= pack.meta["train_sentences"] > planned_sentences("smoke")
    plan = plan_of("smoke")
    record = train_and_score(PlannedModel("uni-QT", 2, ("MR",)), plan, pack, torch.device("cpu"), tmp_path,
                             say=lambda *a: None)
    corpus, packed = pack.meta["corpus_train_sentences"], pack.meta["train_sentences"]
    assert packed < corpus and abs(record["batches_per_epoch"] - corpus / 32) <= corpus / packed + 1  # batch 32
    too_many = PlannedModel("uni-QT", packed // 32 + 1, ("MR",))
    with pytest.raises(ReproducerError, match="more than once"):
        train_and_score(too_many, plan, pack, torch.device("cpu"), tmp_path, say=lambda *a: None)


@pytest.mark.slow
def test_dry_run_of_the_gpu_plan(smoke_pack, tmp_path):
    """``gpu run --plan smoke`` on the CPU, in a process where the packages the GPU machine lacks cannot be imported
    (nltk then comes from the pack): every stage succeeds, the CUDA check's tests pass on their CPU twins, the bench
    has a row per objective, the three models (uni-QT, MV, the mean-max AAE) are each trained for their steps and
    scored with per-item outcomes, and everything comes back from a device call (at most 8 files of 16 MiB)."""
    blocked = tmp_path / "blocked"
    for name in MISSING_THERE:
        (blocked / name).mkdir(parents=True)
        (blocked / name / "__init__.py").write_text(f"raise ImportError('{name} is not on the GPU machine')\n")
    out, scratch = tmp_path / "out", tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocked), str(ROOT)]), "PYTHONUNBUFFERED": "1",
           "TMPDIR": str(scratch)}
    done = subprocess.run([sys.executable, "-m", "reproducer", "gpu", "run", "--plan", "smoke", "--pack",
                           str(smoke_pack), "--out", str(out), "--device", "cpu"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    record = read_json(out / "plan.json")
    assert all(stage["status"] == "ok" for stage in record["stages"].values()), record["stages"]
    assert record["complete"] is True and "Incomplete" not in (out / "summary.md").read_text()
    assert not list(scratch.glob("reproducer-gpu-*"))  # the unpacked pack (about 22 MB) is removed at the end
    assert record["cuda_check"]["passed"] >= 6 and record["cuda_check"]["failed"] == 0
    bench = record["bench"]
    assert {r["objective"] for r in bench} == set(family_objectives())  # every paper's bench declaration
    assert all(r["sentences_per_second"] > 0 and r["percent_of_peak"] > 0 for r in bench)
    assert all(0 < r["profile"]["matmul_share"] <= 1 and r["profile"]["top"] for r in bench)  # the profile stage
    assert "Where a step's time goes" in (out / "summary.md").read_text()
    assert [m["model"] for m in record["models"]] == ["uni-QT", "MV", "mean-max AAE"]
    for model in record["models"]:
        assert model["steps"] == model["planned_steps"] == 4 and model["log"]["evals"]  # a budget in steps
        assert "held-out loss" in model["log"]["evals"][-1]
        scores = read_json(out / f"{model['model']}.eval.json")  # above 64 KiB: .eval.json.gz, as results are stored
        assert set(scores["results"]) == {"MR", "SICK-R"} and set(scores["items"]) == {"MR", "SICK-R"}
    assert "| smoke | quick-thought |" in (out / "summary.md").read_text()
    assert "| smoke | quick-thought |" in done.stdout  # the summary is printed last
    assert check_returnable(out) == []
    _the_book_reads_it(out, tmp_path / "results")


def _the_book_reads_it(out: Path, root: Path) -> None:
    """Chapters 02 and 06 read a run committed as ``results/gpu/<date>/`` (:mod:`reproducer.report.gpu_runs`)."""
    import shutil

    from reproducer.report import gpu_runs

    (root / "bench").mkdir(parents=True)
    (root / "bench" / "epoch_paper.json").write_text(json.dumps([{"model": "uni-QT", "tflop_per_epoch": 1915.0,
                                                                   "batches_per_epoch": 3639}]))
    assert gpu_runs.latest(root) is None
    empty = gpu_runs.empty_state(root)
    assert "No GPU run yet" in empty and "1,915 TFLOP" in empty and "2,500 steps are 0.69 of an epoch" in empty
    assert "uni-QT (2,500 steps), MV (2,000 steps), mean-max AAE (3,000 steps)" in empty
    shutil.copytree(out, root / "gpu" / "2026-11-26")
    record = gpu_runs.latest(root)
    assert "uni-QT at `smoke` sizes" in gpu_runs.caption(record) and "cpu" in gpu_runs.caption(record)
    assert "MV at `smoke` sizes" in gpu_runs.caption(record) and "mean-max AAE at `smoke` sizes" in gpu_runs.caption(record)
    bench = gpu_runs.bench_table(record)
    assert len(bench) == 7 and "error" not in bench and (bench["sentences/s"] > 0).all()
    table = gpu_runs.table1_beside_gpu(record, {"uni-QT": {"MR": {"acc": 60.0}}}, "default")
    mr = table[(table.task == "MR") & (table.metric == "acc")].iloc[0]
    assert mr["paper"] == 77.2 and mr["ours, CPU (default)"] == 60.0
    assert mr["GPU − paper"] == pytest.approx(mr["ours, GPU (paper sizes)"] - 77.2)
    assert table[table.task == "CR"]["ours, GPU (paper sizes)"].isna().all()  # the smoke plan scores MR and SICK-R
    gpu_mr = mr["ours, GPU (paper sizes)"]
    assert gpu_runs.gap_summary(table, "default").startswith(
        f"- **uni-QT**, Table 1's 1 accuracies: our CPU row (`default`) is -17.2 points from the paper on average, the "
        f"GPU row at the paper's sizes {gpu_mr - 77.2:+.1f}")  # only MR has both rows: SICK-R has no CPU number
    assert "SICK-R" not in gpu_runs.gap_summary(table, "default")
    assert gpu_runs.gap_summary(table.assign(**{"ours, CPU (default)": None}), "default") == ""


def test_a_failing_stage_is_recorded_and_the_plan_goes_on(tmp_path):
    record = {"plan": {"name": "smoke"}, "started": "today", "complete": False, "stages": {},
              "environment": {"device": "cpu", "torch": "2", "python": "3.11"}}
    stages = _Stages(tmp_path, record, progress=False)
    assert stages.run("broken", lambda: 1 / 0) is None
    assert stages.run("fine", lambda: 42) == 42
    saved = json.loads((tmp_path / "plan.json").read_text())
    assert saved["stages"]["broken"]["status"].startswith("failed: ZeroDivisionError")
    assert saved["stages"]["fine"]["status"] == "ok" and "ZeroDivisionError" in saved["errors"]["broken"]
    # until its last stage ends, a run says it is incomplete (a run cut off by its time limit keeps saying so)
    assert saved["complete"] is False
    text = (tmp_path / "summary.md").read_text()
    assert "**Incomplete**" in text and "stages recorded: broken, fine" in text
    record["complete"] = True
    stages.save()
    assert "Incomplete" not in (tmp_path / "summary.md").read_text()


def test_returnable_output_is_checked(tmp_path):
    for i in range(MAX_FILES + 1):
        (tmp_path / f"f{i}.json").write_text("{}")
    assert check_returnable(tmp_path) == [f"{MAX_FILES + 1} files, more than {MAX_FILES}"]
    with pytest.raises(ReproducerError, match="Unknown GPU plan"):
        plan_of("tpu")


def test_the_paper_plan_fits_its_budget():
    """The issue's budget: the run step at paper sizes in at most 9 minutes of wall time (estimated here from the
    plan's own stages; measured on the first GPU run)."""
    plan = plan_of("paper")
    assert plan.estimate_seconds(7) <= 9 * 60
    assert plan.train_preset == "paper" and plan.bench_presets == ("paper",) and plan.eval_config == "paper"
    assert [m.name for m in plan.models] == ["uni-QT", "MV", "mean-max AAE"] and all(m.steps > 0 for m in plan.models)
    assert plan_of("paper", train_steps=7).models[2].steps == 7 and plan_of("paper").models[2].steps == 3000


def test_each_planned_model_is_scored_on_its_papers_main_table():
    """The plan (a low module) writes each model's tasks out; they are the tasks of the tables its chapter shows."""
    from reproducer.papers.consensus.tables import T6
    from reproducer.papers.mean_max_aae.tables import TABLE1 as ZHANG_TABLE1
    from reproducer.papers.quick_thoughts.tables import TABLE1_COLUMNS

    tasks = {m.name: set(m.tasks) for m in plan_of("paper").models}
    assert tasks == {"uni-QT": {t for t, _ in TABLE1_COLUMNS}, "MV": set(T6),
                     "mean-max AAE": {t for t, _ in ZHANG_TABLE1.values()}}


def _real_pack() -> Path:
    """``build/gpu-pack`` (``make gpu-pack``, which ``make test`` runs before pytest), built here when missing."""
    return build_pack(ROOT / "build" / "gpu-pack", "paper", progress=False)


@pytest.mark.slow
def test_the_real_pack_is_within_its_limit():
    """The pack at the paper vocabulary is at most 60 MiB and opens (every checksum verified); it holds the sentences
    the paper plan's models read (not the whole corpus: its vocabulary is the whole corpus's)."""
    pack = Pack(_real_pack())
    assert pack.meta["bytes"] <= MAX_PACK_BYTES
    assert sum(p.stat().st_size for p in pack.folder.rglob("*") if p.is_file()) <= MAX_PACK_BYTES
    assert pack.meta["corpus_train_sentences"] > 1_400_000 and len(pack.words) >= 50_000  # QT's paper vocabulary fits
    assert planned_sentences("paper") <= pack.meta["train_sentences"] < pack.meta["corpus_train_sentences"]
    from reproducer.papers import registry

    plan = plan_of("paper")
    for model in plan.models:  # each planned model's steps fit in one epoch of what is packed (no margin needed)
        entry = registry.model(model.name)
        settings = registry.preset(entry.family, plan.train_preset, max_seconds=None, max_steps=model.steps)
        data = pack.training_data(entry.family, entry.variant, settings)
        assert registry.family(entry.family).objective().sampler(entry.variant, settings, data, seed=0).steps_per_epoch \
            >= model.steps, model.name


@pytest.mark.slow
def test_the_repository_and_the_pack_travel_with_a_device_call():
    """A device call takes the working tree (tracked files) and the carried pack, 64 MiB at most: the committed results
    must leave room for the pack, or no GPU run can start."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    files = [ROOT / f for f in tracked.decode().split("\0") if f]
    tree = sum(f.stat().st_size for f in files if f.is_file())
    pack = Pack(_real_pack()).meta["bytes"]
    assert tree + pack <= TRAVEL_BYTES, (f"tracked files {tree / 2**20:.1f} MiB + pack {pack / 2**20:.1f} MiB > "
                                         f"{TRAVEL_BYTES / 2**20:.0f} MiB")


# -- issue 65: what the plan's files, the pack and a second run may not do -----------------------------------------------

def _copy(pack: Path, where: Path) -> Path:
    import shutil

    shutil.copytree(pack, where)
    return where


def _relist(pack: Path) -> None:
    """Record the files of ``pack`` as they now are in its meta.json (a pack someone tampered with consistently)."""
    from reproducer.files import sha256_file

    meta = json.loads((pack / "meta.json").read_text())
    meta["files"] = {p.relative_to(pack).as_posix(): sha256_file(p) for p in sorted(pack.rglob("*"))
                     if p.is_file() and p.name != "meta.json"}
    (pack / "meta.json").write_text(json.dumps(meta))


def test_a_pack_runs_only_what_it_lists(smoke_pack, tmp_path):
    """An added ``site/zz_extra.zip`` holding ``nltk/__init__.py`` passed the check and ran on ``import nltk``: a file
    meta.json does not list is refused, and only the listed archives are unpacked."""
    import os
    import sys
    import zipfile

    copy = _copy(smoke_pack, tmp_path / "pack")
    with zipfile.ZipFile(copy / "site" / "zz_extra.zip", "w") as zf:
        zf.writestr("nltk/__init__.py", "raise SystemExit('ran code the pack does not list')\n")
    with pytest.raises(ReproducerError, match="does not list \\(site/zz_extra.zip\\): a pack runs only what it lists"):
        Pack(copy)
    (copy / "site" / "zz_extra.zip").unlink()
    before = (list(sys.path), os.environ.get("REPRODUCER_DATA_DIR"))
    with Pack(copy).installed(tmp_path / "work") as cache:
        assert sorted(p.name for p in (tmp_path / "work" / "site").iterdir()) == ["nltk"]
        assert os.environ["REPRODUCER_DATA_DIR"] == str(cache) and sys.path[0] == str(tmp_path / "work" / "site")
    assert (list(sys.path), os.environ.get("REPRODUCER_DATA_DIR")) == before  # as it was


def test_a_tar_entry_outside_the_pack_is_one_error(smoke_pack, tmp_path):
    import io
    import tarfile

    copy = _copy(smoke_pack, tmp_path / "pack")
    with tarfile.open(copy / "data.tar.xz", "w:xz") as tar:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"hi"))
    _relist(copy)
    with pytest.raises(ReproducerError, match="would land outside its folder"):
        with Pack(copy).installed(tmp_path / "work"):
            pass
    assert not (tmp_path / "escaped.txt").exists()


@pytest.mark.parametrize("text, problem", [("{\"version\": 2, \"sca", "not JSON"), ("[1, 2]", "not a JSON object"),
                                           ("{\"version\": 2, \"scale\": \"smoke\"}", "no file list"),
                                           ("{\"files\": {}}", "no scale or version")])
def test_a_damaged_meta_is_one_error(smoke_pack, tmp_path, text, problem):
    """A truncated meta.json, a list, one without its files: tracebacks in ``gpu run``; now one line naming the fix."""
    copy = _copy(smoke_pack, tmp_path / "pack")
    (copy / "meta.json").write_text(text)
    with pytest.raises(ReproducerError, match=f"meta.json is damaged \\({problem}.*gpu pack --rebuild"):
        Pack(copy)
    done = subprocess.run([sys.executable, "-m", "reproducer", "gpu", "run", "--plan", "smoke", "--pack", str(copy),
                           "--out", str(tmp_path / "out"), "--device", "cpu"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "is damaged" in done.stderr, done.stderr


@pytest.mark.slow
def test_gpu_pack_rebuilds_a_damaged_pack_and_refuses_a_folder_of_other_files(smoke_pack, tmp_path):
    copy = _copy(smoke_pack, tmp_path / "pack")
    (copy / "meta.json").write_text("{\"vers")  # a build killed while writing it
    (copy / ".corpus.npz.xz.abc.part").write_bytes(b"half")  # and a half-written file of a killed build
    build_pack(copy, "smoke", progress=False)
    assert Pack(copy).meta["scale"] == "smoke" and not list(copy.rglob("*.part"))
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("a user's file")
    with pytest.raises(ReproducerError, match="holds files that are not a pack's \\(notes.txt\\)"):
        build_pack(mine, "smoke", progress=False)
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]  # refused before any work


def test_a_new_run_clears_its_previous_files_and_refuses_other_files(tmp_path):
    """A run killed after its bench stage left the previous run's summary, CUDA log and scores beside its new
    plan.json; a run now removes what an earlier run of the plan wrote (and a killed write) first, and refuses a
    folder holding anything else."""
    from reproducer.gpu_run import _clear_previous

    out = tmp_path / "out"
    out.mkdir()
    old = ["plan.json", "summary.md", "cuda_check.txt", "uni-QT.eval.json.xz", ".plan.json.x1y2.part"]
    for name in old:
        (out / name).write_text("{}")
    assert _clear_previous(out) == sorted(old) and not list(out.iterdir())
    (out / "mine.csv").write_text("a,b")
    (out / "plan.json").write_text("{}")
    with pytest.raises(ReproducerError, match="holds files the GPU plan does not write \\(mine.csv\\)"):
        _clear_previous(out)
    assert sorted(p.name for p in out.iterdir()) == ["mine.csv", "plan.json"]  # nothing removed


def test_two_gpu_runs_into_one_folder_are_refused(smoke_pack, tmp_path):
    from reproducer.gpu_run import run

    out = tmp_path / "out"
    out.mkdir()
    hold = ("import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX); "
            "print('held', flush=True); time.sleep(60)")
    holder = subprocess.Popen([sys.executable, "-c", hold, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ReproducerError, match="Another run is running the GPU plan into"):
            run(smoke_pack, out, "smoke", device="cpu", check=False, progress=False)
    finally:
        holder.kill()
        holder.wait()
    assert not list(out.iterdir())


def test_the_paper_plan_on_a_cpu_warns():
    import torch

    from reproducer.errors import ReproducerWarning
    from reproducer.gpu_run import warn_if_cpu

    with pytest.warns(ReproducerWarning, match="the paper plan on a CPU: its stages are sized for a GPU"):
        warn_if_cpu(plan_of("paper"), torch.device("cpu"))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_cpu(plan_of("smoke"), torch.device("cpu"))  # the dry run: no warning

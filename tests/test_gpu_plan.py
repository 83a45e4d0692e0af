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
from reproducer.gpu_pack import KEEP_TOKENS, MAX_PACK_BYTES, Pack, build_pack
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
        ours, theirs = pack.word_ids("train", size), TokenizedCorpus.from_corpus(corpus, vocab)
        assert len(ours) == len(theirs) and ours.book_spans == theirs.book_spans
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

    plan = plan_of("smoke", models=("toy-encoder",), eval_tasks=("MR",))
    record = train_and_score("toy-encoder", plan, Pack(smoke_pack), torch.device("cpu"), tmp_path, say=lambda *a: None)
    assert record["model"] == "toy-encoder" and record["steps"] > 0 and set(record["scores"]) == {"MR"}
    assert "held-out loss" in record["log"]["evals"][-1] and (tmp_path / record["eval_file"]).is_file()
    for other in ("combine-skip", "glove-bow"):
        with pytest.raises(ReproducerError, match="the plan trains a variant"):
            train_and_score(other, plan, Pack(smoke_pack), torch.device("cpu"), tmp_path)


@pytest.mark.slow
def test_dry_run_of_the_gpu_plan(smoke_pack, tmp_path):
    """``gpu run --plan smoke`` on the CPU, in a process where the packages the GPU machine lacks cannot be imported
    (nltk then comes from the pack): every stage succeeds, the CUDA check's tests pass on their CPU twins, the bench
    has a row per objective, uni-QT is trained and scored with per-item outcomes, and everything comes back from a
    device call (at most 8 files of 16 MiB)."""
    blocked = tmp_path / "blocked"
    for name in MISSING_THERE:
        (blocked / name).mkdir(parents=True)
        (blocked / name / "__init__.py").write_text(f"raise ImportError('{name} is not on the GPU machine')\n")
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocked), str(ROOT)]), "PYTHONUNBUFFERED": "1"}
    done = subprocess.run([sys.executable, "-m", "reproducer", "gpu", "run", "--plan", "smoke", "--pack",
                           str(smoke_pack), "--out", str(out), "--device", "cpu"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    record = read_json(out / "plan.json")
    assert all(stage["status"] == "ok" for stage in record["stages"].values()), record["stages"]
    assert record["cuda_check"]["passed"] >= 6 and record["cuda_check"]["failed"] == 0
    bench = record["bench"]
    assert {r["objective"] for r in bench} == set(family_objectives())  # every paper's bench declaration
    assert all(r["sentences_per_second"] > 0 and r["percent_of_peak"] > 0 for r in bench)
    (model,) = record["models"]
    assert model["model"] == "uni-QT" and model["steps"] > 0 and model["log"]["evals"]
    assert "held-out loss" in model["log"]["evals"][-1]
    scores = read_json(out / "uni-QT.eval.json")  # above 64 KiB: uni-QT.eval.json.gz, as results are committed
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
    (root / "bench" / "epoch_paper.json").write_text(json.dumps([{"model": "uni-QT", "tflop_per_epoch": 1915.0}]))
    assert gpu_runs.latest(root) is None
    assert "No GPU run yet" in gpu_runs.empty_state(root) and "1,915 TFLOP" in gpu_runs.empty_state(root)
    shutil.copytree(out, root / "gpu" / "2026-11-26")
    record = gpu_runs.latest(root)
    assert "uni-QT at `smoke` sizes" in gpu_runs.caption(record) and "cpu" in gpu_runs.caption(record)
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
    record = {"stages": {}}
    stages = _Stages(tmp_path, record, progress=False)
    assert stages.run("broken", lambda: 1 / 0) is None
    assert stages.run("fine", lambda: 42) == 42
    saved = json.loads((tmp_path / "plan.json").read_text())
    assert saved["stages"]["broken"]["status"].startswith("failed: ZeroDivisionError")
    assert saved["stages"]["fine"]["status"] == "ok" and "ZeroDivisionError" in saved["errors"]["broken"]


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
    assert plan.train_preset == "paper" and plan.bench_presets == ("default", "paper") and plan.eval_config == "paper"


def _real_pack() -> Path:
    """``build/gpu-pack`` (``make gpu-pack``, which ``make test`` runs before pytest), built here when missing."""
    return build_pack(ROOT / "build" / "gpu-pack", "paper", progress=False)


@pytest.mark.slow
def test_the_real_pack_is_within_its_limit():
    """The pack of the whole corpus at the paper vocabulary is at most 60 MiB and opens (every checksum verified)."""
    pack = Pack(_real_pack())
    assert pack.meta["bytes"] <= MAX_PACK_BYTES
    assert sum(p.stat().st_size for p in pack.folder.rglob("*") if p.is_file()) <= MAX_PACK_BYTES
    assert pack.meta["train_sentences"] > 1_400_000 and len(pack.words) >= 50_000  # QT's paper vocabulary fits


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

"""Inputs a careful or hostile user gives the newer surfaces (the train command, torchrun, the results cache, evaluate):
each ends in a clear error, a warning or a recomputation, never a traceback after the work, a silent acceptance, a
stale result or a wrong number. Each test failed before its fix."""
from __future__ import annotations

import contextlib
import subprocess
import sys

import numpy as np
import pytest

from reproducer.__main__ import main as cli
from reproducer.errors import ReproducerError


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reproducer", *args], capture_output=True, text=True, timeout=300)


def refused(proc: subprocess.CompletedProcess, *fragments: str) -> None:
    """Exit status 2, an ``error:`` line naming every fragment, no traceback."""
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "error:" in proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr, proc.stderr


# -- an output folder that cannot be created fails before the work ---------------------------------------------------

def test_a_json_folder_that_cannot_be_created_fails_before_evaluating():
    proc = run_cli("evaluate", "--encoder", "glove-bow", "--tasks", "MR", "--quiet", "--json", "/proc/nope/x.json")
    refused(proc, "Cannot create the folder /proc/nope", "--json")
    assert "MR" not in proc.stdout, "nothing was evaluated"


def test_checking_a_new_folder_leaves_nothing_behind(tmp_path):
    from reproducer.files import check_folder, check_writable

    assert check_writable(tmp_path / "a" / "b" / "out.json") == tmp_path / "a" / "b" / "out.json"
    assert check_folder(tmp_path / "c" / "d") == tmp_path / "c" / "d"
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ReproducerError, match="Cannot create the folder"):
        check_folder("/proc/nope/deeper")


def test_train_out_is_checked_before_training(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    refused(run_cli("train", "uni-QT", "--preset", "smoke", "--out", str(blocker), "--quiet"), str(blocker), "--out")
    refused(run_cli("train", "uni-QT", "--preset", "smoke", "--out", "/proc/nope", "--quiet"), "/proc/nope")


def test_a_checkpoint_path_that_is_a_folder_fails_before_training(tmp_path):
    """``train`` used to train the whole budget, then fail at the save."""
    from reproducer.train_command import train_model

    (tmp_path / "checkpoints" / "uni-QT.encoder.pt").mkdir(parents=True)
    with pytest.raises(ReproducerError, match="uni-QT.encoder.pt is a folder"):
        train_model("uni-QT", "smoke", out=tmp_path, progress=False)
    assert not (tmp_path / "checkpoints" / "uni-QT.train.pt").exists(), "nothing was trained"


# -- numbers and names the command line used to accept or crash on -------------------------------------------------

@pytest.mark.parametrize("args", [
    ("train", "uni-QT", "--preset", "smoke", "--seed", "-1"),
    ("train", "uni-QT", "--preset", "smoke", "--seed", "99999999999"),
    ("train", "uni-QT", "--preset", "smoke", "--steps", "0"),
    ("bench", "epoch", "--gpu-tflops", "0"), ("bench", "epoch", "--gpu-tflops", "-1"),
    ("bench", "epoch", "--gpu-tflops", "nan"),
    ("bench", "widths", "--hidden", "0"), ("bench", "widths", "--batch-size", "-4"),
    ("bench", "widths", "--n-sampled", "-5"),
    ("vectors", "word2vec", "--epochs", "0"), ("vectors", "word2vec", "--dim", "0"),
])
def test_out_of_range_numbers_are_refused_by_the_parser(args, capsys):
    with pytest.raises(SystemExit) as stop:
        cli(list(args))
    assert stop.value.code == 2 and "error: argument" in capsys.readouterr().err


def test_unknown_bench_objectives_and_rates_are_refused():
    from reproducer.bench import epoch_cost

    with pytest.raises(ReproducerError, match="Unknown objectives \\['nonsense'\\]"):
        epoch_cost(["nonsense"])
    with pytest.raises(ReproducerError, match="gpu_flops must be a finite rate above 0"):
        epoch_cost(["quick-thought"], gpu_flops=float("nan"))


def test_a_seed_parameter_beyond_numpys_range_is_refused():
    from reproducer.notebook import Parameter, coerce

    with pytest.raises(ReproducerError, match="seed must be at most 2\\*\\*32 - 1"):
        coerce(Parameter("seed", int, 0), 5_000_000_000)
    assert coerce(Parameter("seed", int, 0), 2**32 - 1) == 2**32 - 1


@pytest.mark.parametrize("device", ["nonsense", "meta"])
def test_unknown_devices_are_refused_before_any_work(device):
    refused(run_cli("evaluate", "--encoder", "glove-bow", "--tasks", "MR", "--device", device), "Unknown device")


def test_the_fast_config_is_accepted_and_an_unknown_one_refused_before_loading():
    refused(run_cli("evaluate", "--encoder", "glove-bow", "--tasks", "MR", "--config", "fastest"),
            "Unknown evaluation config 'fastest'", "fast")
    from reproducer.__main__ import build_parser

    assert build_parser().parse_args(["evaluate", "--encoder", "glove-bow", "--config", "fast"]).config == "fast"


def test_a_task_named_twice_is_evaluated_once():
    from reproducer.evaluate import resolve_tasks

    assert [t.name for t in resolve_tasks("MR,mr, MR")] == ["MR"]


# -- the evaluation's inputs ----------------------------------------------------------------------------------------

def test_float16_and_huge_vectors_give_the_cosine_of_their_float64_values():
    from reproducer.evaluate.protocols import cosine, cosine_correlations

    rng = np.random.default_rng(0)
    u, v = rng.normal(size=(50, 300)), rng.normal(size=(50, 300))
    exact = cosine(u, v)
    half = cosine((u * 100).astype(np.float16), (v * 100).astype(np.float16))  # float16 dot products overflow
    assert np.isfinite(half).all() and np.abs(half - exact).max() < 1e-2
    huge = cosine((u * 1e30).astype(np.float32), (v * 1e30).astype(np.float32))
    assert np.abs(huge - exact).max() < 1e-5
    gold = exact + rng.normal(scale=0.01, size=50)
    assert cosine_correlations((u * 100).astype(np.float16), (v * 100).astype(np.float16), gold)["pearson"] > 0.95


def test_an_encoder_with_the_documented_contract_is_evaluated():
    """``encode(sentences)`` alone (the README's contract): the harness passes only the options it takes."""
    from reproducer.evaluate.harness import encode_unique

    class Plain:
        name = "plain"

        def encode(self, sentences):
            return np.array([[len(s), s.count("a") + 1.0] for s in sentences])

    table = encode_unique(Plain(), ["a b", "c", "aaa"])
    assert table["aaa"].tolist() == [3.0, 4.0]


def test_ragged_vectors_are_a_clear_error():
    from reproducer.evaluate.harness import encode_unique

    class Ragged:
        name = "ragged"

        def encode(self, sentences, **options):
            return [[1.0] * (i + 1) for i in range(len(sentences))]

    with pytest.raises(ReproducerError, match="'ragged' returned vectors NumPy cannot stack"):
        encode_unique(Ragged(), ["a", "b c"])


@pytest.mark.parametrize("command", ["smoke", "check"])
def test_a_missing_notebook_is_named(command):
    refused(run_cli("book", command, "missing.ipynb"), "No such notebook: missing.ipynb")


# -- the results cache and the training runs -------------------------------------------------------------------------

@pytest.mark.parametrize("manifest", ["", "{\"keys\": {", "[]", "{\"keys\": {}}"])
def test_a_damaged_manifest_is_a_warning_and_the_result_is_computed_again(tmp_path, monkeypatch, manifest):
    from reproducer.errors import ReproducerWarning
    from reproducer.results_store import KEY_FILE, NotebookRun

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path))
    NotebookRun("nb", "smoke").json("metrics", lambda: {"score": 1})
    (tmp_path / "nb" / "smoke" / KEY_FILE).write_text(manifest)
    with pytest.warns(ReproducerWarning, match="damaged"):
        assert NotebookRun("nb", "smoke").json("metrics", lambda: {"score": 2}) == {"score": 2}
    assert NotebookRun("nb", "smoke").json("metrics", lambda: {"score": 3}) == {"score": 2}  # the manifest is whole again
    (tmp_path / "nb" / "smoke" / KEY_FILE).write_text(manifest)
    with pytest.warns(ReproducerWarning):
        assert NotebookRun("nb", "smoke", retrain=True).json("metrics", lambda: {"score": 4}) == {"score": 4}


@pytest.mark.parametrize("name, cut", [("metrics", 5), ("table", 3)])
def test_a_truncated_result_is_computed_again_saying_why(tmp_path, monkeypatch, capsys, name, cut):
    import pandas as pd

    from reproducer.log import log_to
    from reproducer.results_store import NotebookRun

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path))
    monkeypatch.delenv("REPRODUCER_QUIET", raising=False)
    log_to()  # the notebook's lines on screen, as start() sets them up (not left to an earlier test)
    run = NotebookRun("nb", "smoke")
    if name == "metrics":
        run.json(name, lambda: {"score": 1.5, "n": 10})
        path = tmp_path / "nb" / "smoke" / "metrics.json"
    else:
        run.frame(name, lambda: pd.DataFrame({"a": [1, 2]}))
        path = tmp_path / "nb" / "smoke" / "table.csv"
    path.write_bytes(path.read_bytes()[:cut] if name == "metrics" else b"\x00\xff\x00")
    capsys.readouterr()
    again = run.json(name, lambda: {"score": 1.5, "n": 10}) if name == "metrics" else \
        run.frame(name, lambda: pd.DataFrame({"a": [1, 2]}))
    out = capsys.readouterr().out  # the digest catches it first; a result without one fails to load instead
    assert "the stored file changed after it was written" in out or "the stored file is damaged" in out
    assert (again == {"score": 1.5, "n": 10}) if name == "metrics" else again["a"].tolist() == [1, 2]


@contextlib.contextmanager
def held_elsewhere(path):
    """``path`` locked by another process (:func:`reproducer.files.exclusive`), as a first run holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    hold = ("import sys, time; from reproducer.files import exclusive\n"
            "with exclusive(sys.argv[1], 'x'):\n    print('held', flush=True); time.sleep(120)")
    holder = subprocess.Popen([sys.executable, "-c", hold, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        yield
    finally:
        holder.kill()
        holder.wait()


def test_two_training_runs_on_one_folder_are_refused(tmp_path):
    """The second run fails at once, naming the folder; the first keeps its files."""
    from reproducer.train_command import train_model

    lock = tmp_path / "checkpoints" / "uni-QT.train.pt.lock"
    with held_elsewhere(lock):
        with pytest.raises(ReproducerError, match="Another run is training uni-QT into"):
            train_model("uni-QT", "smoke", out=tmp_path, progress=False)
    assert not (tmp_path / "checkpoints" / "uni-QT.train.pt").exists()
    summary = train_model("uni-QT", "smoke", steps=2, out=tmp_path, progress=False)  # free again
    assert summary["steps"] == 2


def test_the_paper_preset_on_a_cpu_warns_with_its_budget(monkeypatch, tmp_path):
    from reproducer.errors import ReproducerWarning
    from reproducer.papers.registry import family
    from reproducer.train_command import train_model

    class Stop(Exception):
        pass

    def refuse(*args, **kwargs):
        raise Stop  # the warning comes before the data is built and the model trained

    monkeypatch.setattr(type(family("quick-thought")), "training_data", refuse)
    with pytest.warns(ReproducerWarning, match="paper preset on a CPU: its budget is 3,642 steps"), \
            pytest.raises(Stop):
        train_model("uni-QT", "paper", device="cpu", out=tmp_path, progress=False)


def test_resume_with_dropout_equals_an_uninterrupted_run_bit_for_bit(tmp_path):
    """The checkpoint keeps PyTorch's random-number state: a model with dropout stopped at a checkpoint and resumed
    ends with the same weights as one trained without a stop (before: 0.04 apart)."""
    import torch

    from reproducer.train import TrainConfig, train

    class Dropped(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.layer, self.drop = torch.nn.Linear(8, 8), torch.nn.Dropout(0.5)

        def forward(self, batch):
            return self.drop(self.layer(batch)).pow(2).mean()

    def batches(step):
        return torch.randn(16, 8, generator=torch.Generator().manual_seed(step))

    def run(steps, checkpoint):
        model = Dropped()
        train(model, batches, TrainConfig(lr=1e-2, max_steps=steps, checkpoint_every=5, seed=3), checkpoint=checkpoint,
              progress=False)
        return model

    straight = run(12, tmp_path / "straight.pt")
    run(5, tmp_path / "stopped.pt")
    torch.manual_seed(12345)  # whatever the process drew in between
    resumed = run(12, tmp_path / "stopped.pt")
    for a, b in zip(straight.parameters(), resumed.parameters()):
        assert torch.equal(a, b)


@pytest.mark.parametrize("kind", ["json", "compressed", "csv"])
def test_a_hand_edited_result_is_computed_again_not_served(tmp_path, monkeypatch, capsys, kind):
    """The manifest keeps each result's SHA-256 as stored; a result edited by hand (a number changed, a table cut)
    no longer matches it and is computed again, saying why."""
    import json
    import lzma

    import pandas as pd

    from reproducer.files import COMPRESS_ABOVE
    from reproducer.results_store import NotebookRun

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path))
    run, folder = NotebookRun("nb", "smoke"), tmp_path / "nb" / "smoke"
    if kind == "csv":
        make = lambda: pd.DataFrame({"model": ["a", "b", "c"], "score": [70.07, 60.0, 50.0]})  # noqa: E731
        run.frame("table", make)
        path = folder / "table.csv"
        path.write_text("\n".join(path.read_text().splitlines()[:3]) + "\n")  # cut to two rows
        assert run.frame("table", make)["score"].tolist() == [70.07, 60.0, 50.0]
    else:
        big = kind == "compressed"
        make = lambda: {"MR": 70.07, "pad": "x" * (COMPRESS_ABOVE if big else 1)}  # noqa: E731
        run.json("eval", make)
        path = folder / ("eval.json.xz" if big else "eval.json")
        text = (lzma.decompress(path.read_bytes()) if big else path.read_bytes()).decode().replace("70.07", "99.0")
        path.write_bytes(lzma.compress(text.encode()) if big else text.encode())
        assert json.loads(text)["MR"] == 99.0
        assert run.json("eval", make)["MR"] == 70.07
    assert "the stored file changed after it was written" in capsys.readouterr().out
    assert run.reusable(path.name.removesuffix(".xz"))  # the manifest matches the file written again


def test_results_stored_before_digests_are_reused_and_can_be_given_one(tmp_path, monkeypatch, capsys):
    import json

    from reproducer.results_store import KEY_FILE, NotebookRun, record_digests

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path))
    folder = tmp_path / "nb" / "smoke"
    NotebookRun("nb", "smoke").json("metrics", lambda: {"score": 1})
    manifest = json.loads((folder / KEY_FILE).read_text())
    del manifest["digests"]
    (folder / KEY_FILE).write_text(json.dumps(manifest))
    assert NotebookRun("nb", "smoke").json("metrics", lambda: {"score": 2}) == {"score": 1}  # reused, as before
    (folder / "metrics.json").write_text('{"sco')  # truncated, and no digest to tell: it fails to load
    assert NotebookRun("nb", "smoke").json("metrics", lambda: {"score": 1}) == {"score": 1}
    assert "the stored file is damaged (JSONDecodeError)" in capsys.readouterr().out
    (folder / KEY_FILE).write_text(json.dumps(manifest))
    assert record_digests(folder) == 1 and record_digests(folder) == 0
    (folder / "metrics.json").write_text('{"score": 99}\n')
    assert NotebookRun("nb", "smoke").json("metrics", lambda: {"score": 2}) == {"score": 2}


@pytest.mark.parametrize("name", ["samples_per_task", "length_sample"])
def test_a_count_parameter_of_zero_is_refused(name, tmp_path):
    """``-p samples_per_task 0`` used to end in a KeyError from the table's styler, ``-p length_sample 0`` in a cache
    that differed on the second run; chapter 00 now refuses both in its set-up cell."""
    from reproducer.notebook import at_least_one

    with pytest.raises(ReproducerError, match=f"Parameter {name} must be at least 1"):
        at_least_one(**{name: 0})
    at_least_one(**{name: 1})
    from pathlib import Path

    import nbformat

    notebook = Path(__file__).resolve().parents[1] / "notebooks" / "00_data.ipynb"
    setup = nbformat.read(notebook, as_version=4).cells[3].source
    assert "at_least_one(samples_per_task=samples_per_task, length_sample=length_sample)" in setup


def _interrupt_when(args: list[str], ready, tmp_path) -> tuple[int, str]:
    """Start ``python -m reproducer ARGS``, wait until ``ready(stderr so far)``, press Ctrl-C (SIGINT); its exit
    status and stderr."""
    import os
    import signal
    import time

    log = tmp_path / "stderr.txt"
    with open(log, "w") as err:
        # Python turns SIGINT into KeyboardInterrupt only when it was not ignored at start-up, and a shell's background
        # job (`nohup pytest &`) ignores it: the command gets the default disposition, as in a terminal.
        process = subprocess.Popen([sys.executable, "-m", "reproducer", *args], stdout=subprocess.DEVNULL, stderr=err,
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            deadline = time.monotonic() + 240
            while not ready(log.read_text()) and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.5)
            time.sleep(1.0)
            os.kill(process.pid, signal.SIGINT)
            code = process.wait(timeout=120)
        finally:
            if process.poll() is None:  # it did not stop: never leave it training behind the rest of the suite
                process.kill()
                process.wait()
    return code, log.read_text()


@pytest.mark.slow
def test_ctrl_c_in_train_is_one_line_and_says_how_to_resume(tmp_path):
    checkpoint = tmp_path / "out" / "checkpoints" / "PP.train.pt"
    code, err = _interrupt_when(["train", "PP", "--preset", "smoke", "--steps", "1000000", "--out",
                                 str(tmp_path / "out")], lambda _: checkpoint.is_file(), tmp_path)
    assert code == 130 and "Traceback" not in err, err
    assert "interrupted. Run the same command to resume from its last checkpoint." in err


@pytest.mark.slow
def test_ctrl_c_in_the_corpus_build_stops_every_worker_quietly(tmp_path):
    code, err = _interrupt_when(["corpus", "build", "--max-books", "60", "--cased", "--rebuild", "--workers", "2"],
                                lambda text: "build corpus" in text, tmp_path)
    assert code == 130 and "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.rstrip().splitlines()[-1] == "interrupted."


def test_a_cached_evaluation_is_not_served_once_train_extended_its_checkpoint(tmp_path, monkeypatch, capsys):
    """A result computed from a model is stored with its checkpoint's identity; once ``train`` extends the checkpoint,
    the result — and a result computed from it — is computed again from the new model, saying why, not served as if
    it were the new model's. Re-executed with the checkpoint unchanged (even resumed by ``train`` with nothing left to
    do), everything is reused."""
    from reproducer.checkpoints import identity
    from reproducer.log import QUIET_ENV, log_to
    from reproducer.results_store import NotebookRun, model_files
    from reproducer.train_command import train_model

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path))
    monkeypatch.delenv(QUIET_ENV, raising=False)
    log_to()  # the cache lines on standard output, as a notebook started by hand sets them up (not left to an earlier test)
    sentences = ["a man is playing a guitar .", "the cat sat on the mat ."]

    def execute() -> tuple[dict, dict, str]:
        """The notebook's cells, in a new kernel: an evaluation of the model, and a table built from it."""
        run = NotebookRun("02_quick_thoughts", "smoke")

        def evaluation() -> dict:
            return run.json("eval_uni-QT", lambda: {"vectors": run.encoder("uni-QT").encode(sentences).tolist()})

        table = run.json("table", lambda: {"sum": float(np.sum(evaluation()["vectors"]))})
        return evaluation(), table, capsys.readouterr().out

    folder = tmp_path / "02_quick_thoughts" / "smoke"
    checkpoint = model_files(folder, "uni-QT")["train"]
    train_model("uni-QT", "smoke", steps=2, out=folder, progress=False)
    first, table, _ = execute()
    again, same_table, out = execute()
    assert (again, same_table) == (first, table) and "recomputed" not in out and out.count("[reused]") >= 2
    before = identity(checkpoint)
    train_model("uni-QT", "smoke", steps=2, out=folder, progress=False)  # resumed, nothing to do: not rewritten
    assert identity(checkpoint) == before
    assert "recomputed" not in execute()[2]

    train_model("uni-QT", "smoke", steps=4, out=folder, progress=False)  # `train` extends the checkpoint
    assert identity(checkpoint) != before
    extended, new_table, out = execute()
    assert out.count("changed after this result was computed from it") == 2, out  # the evaluation and its table
    assert extended != first and new_table != table
    assert new_table == {"sum": float(np.sum(extended["vectors"]))}
    assert "recomputed" not in execute()[2]  # and from now on reused again


def test_a_checkpoint_identity_is_read_without_loading_it(tmp_path):
    import torch

    from reproducer import checkpoints

    path = checkpoints.save({"w": torch.arange(4.0)}, tmp_path / "a.pt")
    first = checkpoints.identity(path)
    assert first == torch.load(path, weights_only=True)["sha256"]
    assert checkpoints.identity(checkpoints.save({"w": torch.arange(4.0)}, tmp_path / "b.pt")) == first  # same bytes
    assert checkpoints.identity(checkpoints.save({"w": torch.arange(5.0)}, path)) != first
    assert checkpoints.identity(tmp_path / "missing.pt") is None
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    assert len(checkpoints.identity(tmp_path / "junk.pt")) == 64  # the bytes' own SHA-256


# -- issue 65: make with another virtual environment ------------------------------------------------------------------

def test_make_with_another_venv_stamps_that_venv(tmp_path):
    """``make BIN=<venv>/bin gpu-pack`` installed into that venv, then failed at ``touch .venv/.installed`` (the stamp
    ignored ``BIN``): the stamp now lives beside the interpreter it stamps."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    plan = subprocess.run(["make", "-n", "-B", f"BIN={tmp_path}/venv/bin", "setup"], cwd=root, capture_output=True,
                          text=True, timeout=60)
    assert plan.returncode == 0, plan.stderr
    lines = plan.stdout.splitlines()
    assert f"touch {tmp_path}/venv/bin/../.installed" in lines, lines
    assert any(line.endswith(f"-m venv {tmp_path}/venv/bin/..") for line in lines), lines
    assert not any(".venv" in line for line in lines), lines


# -- issue 65: a bundle where a checkpoint belongs, hand-made bundles ---------------------------------------------------

def test_an_encoder_bundle_given_as_the_checkpoint_is_one_error(tmp_path):
    """``train`` with an encoder bundle where its checkpoint goes raised ``KeyError: 'config'``."""
    from reproducer.train_command import train_model

    summary = train_model("uni-QT", "smoke", steps=2, out=tmp_path / "a", progress=False)
    checkpoint = tmp_path / "b" / "checkpoints" / "uni-QT.train.pt"
    checkpoint.parent.mkdir(parents=True)
    checkpoint.write_bytes(open(summary["bundle"], "rb").read())
    with pytest.raises(ReproducerError, match="is an encoder bundle .*not a training checkpoint"):
        train_model("uni-QT", "smoke", steps=2, out=tmp_path / "b", progress=False)
    from reproducer import checkpoints

    checkpoints.save({"model": {}}, checkpoint)  # a torch file of another kind
    with pytest.raises(ReproducerError, match="is not a training checkpoint of reproducer \\(it has no optimizer, log"):
        train_model("uni-QT", "smoke", steps=2, out=tmp_path / "b", progress=False)


@pytest.mark.parametrize("change, message", [
    (lambda b: b.pop("kind_module"), "has no kind_module"),
    (lambda b: b.update(kind_module="reproducer.no_such_module"), "names the module 'reproducer.no_such_module', "
                                                                  "which cannot be imported"),
    (lambda b: b.pop("module"), "TokenEncoder bundle has no field 'module'"),
])
def test_a_hand_made_bundle_is_one_error(tmp_path, change, message):
    from reproducer import checkpoints
    from reproducer.encoders.bundles import load_encoder
    from reproducer.train_command import train_model

    bundle = checkpoints.load(train_model("uni-QT", "smoke", steps=1, out=tmp_path, progress=False)["bundle"])
    bundle = bundle["parts"][0]  # uni-QT is [f; g]: a concatenation whose parts are TokenEncoders
    change(bundle)
    checkpoints.save(bundle, tmp_path / "hand.pt")
    with pytest.raises(ReproducerError, match=message):
        load_encoder(tmp_path / "hand.pt")


def test_a_notebook_does_not_train_into_a_checkpoint_a_train_run_holds(tmp_path):
    """``family.fit(checkpoint=...)`` (what the notebooks call) ignored the lock ``train`` takes."""
    from reproducer.papers.registry import family, preset

    fam, settings = family("quick-thought"), preset("quick-thought", "smoke", max_steps=2)
    checkpoint = tmp_path / "checkpoints" / "uni-QT.train.pt"
    with held_elsewhere(checkpoint.with_name("uni-QT.train.pt.lock")):
        with pytest.raises(ReproducerError, match="Another run is training uni-QT into"):
            fam.fit("uni-QT", settings, fam.training_data("uni-QT", settings), checkpoint=checkpoint, progress=False)
    assert not checkpoint.exists()
    fitted = fam.fit("uni-QT", settings, fam.training_data("uni-QT", settings), checkpoint=checkpoint, progress=False)
    assert fitted.log.step == 2 and checkpoint.is_file()  # free again


# -- issue 65: the untrained encoders, word vectors, the scaled encoder and the harness's inputs -----------------------

def test_untrained_encoders_refuse_bad_settings_before_any_work(monkeypatch):
    from reproducer.encoders import baselines
    from reproducer.encoders.untrained import UntrainedConfig

    for field, value in [("spectral_radius", float("nan")), ("spectral_radius", float("inf")),
                         ("input_scale", 0.0), ("input_scale", float("nan")), ("input_scale", 1e9)]:
        with pytest.raises(ReproducerError, match="spectral radius|input_scale"):
            UntrainedConfig("esn", 100, 50, dim=64, **{field: value})
    monkeypatch.setattr("reproducer.data.vectors.train_word2vec", lambda *a, **k: pytest.fail("vectors loaded"))
    monkeypatch.setattr(baselines, "load_glove", lambda *a, **k: pytest.fail("vectors loaded"))
    for name in ("lstm-word2vec-200000", "esn-glove-100000"):
        with pytest.raises(ReproducerError, match="weights .* choose a smaller width"):
            baselines.load_baseline(name)


def test_word_vectors_with_nan_rows_are_refused():
    from reproducer.data.vectors import WordVectors

    table = np.ones((3, 4), dtype=np.float32)
    table[1, 2] = np.nan
    with pytest.raises(ReproducerError, match="toy: 1 rows hold NaN or infinity \\('b'\\)"):
        WordVectors(["a", "b", "c"], table, name="toy")


def test_a_long_sentence_gets_a_batch_of_its_own_size():
    """One 10,000-word sentence among short ones padded its whole batch (~21 GB for a 4,096-wide LSTM)."""
    from reproducer.encoders.trained import length_batches

    assert length_batches([5] * 300, 128) == [(0, 128), (128, 256), (256, 300)]  # short sentences: as before
    spans = length_batches([5] * 200 + [300] * 3 + [10_000], 128)
    assert spans[:2] == [(0, 128), (128, 200)] or spans[0] == (0, 128)
    assert all((end - start) * ([5] * 200 + [300] * 3 + [10_000])[end - 1] <= 128 * 256 or end - start == 1
               for start, end in spans)
    assert spans[-1] == (203, 204)  # the long one alone


class _EncodeOnly:
    """The README's encoder contract and nothing more: ``encode(sentences)``, no name, no batch size."""

    def __init__(self, vectors):
        self.vectors = vectors

    def encode(self, sentences):
        return np.repeat(self.vectors[None, :], len(sentences), axis=0)


def test_the_scaled_encoder_refuses_what_would_overflow_or_vanish():
    from reproducer.encoders.base import ScaledEncoder

    plain = _EncodeOnly(np.array([1.0, -2.0, 3.0], dtype=np.float32))
    assert ScaledEncoder(plain, 2).encode(["a", "b"]).tolist() == [[2.0, -4.0, 6.0]] * 2  # encode(sentences) suffices
    assert ScaledEncoder(plain, 2).name == "_EncodeOnly*2"  # an encoder without .name
    with pytest.raises(ReproducerError, match="overflows float32"):
        ScaledEncoder(plain, 2e38).encode(["a"])
    with pytest.raises(ReproducerError, match="underflows float32"):
        ScaledEncoder(plain, 1e-50).encode(["a"])
    for factor in ("2", True, -1, float("nan")):
        with pytest.raises(ReproducerError, match="positive finite number"):
            ScaledEncoder(plain, factor)
    with pytest.raises(ReproducerError, match="not an encoder"):
        ScaledEncoder(42, 2)
    with pytest.raises(ReproducerError, match="is a name, not an encoder: scale load_baseline\\('glove-bow'\\)"):
        ScaledEncoder("glove-bow", 2)


@pytest.mark.parametrize("vectors, message", [
    (np.array([["a", "b"]] * 2, dtype=object), "dtype|values"),
    (np.ones((2, 2), dtype=np.complex64), "complex64 values"),
    (np.ones((2, 0), dtype=np.float32), "with dim at least 1"),
])
def test_the_harness_refuses_vectors_that_are_not_real_numbers(vectors, message):
    from reproducer.evaluate.harness import encode_unique

    with pytest.raises(ReproducerError, match=message):
        encode_unique(_EncodeOnly(vectors[0]), ["a b", "c"])


def test_the_harness_takes_a_tensor_that_requires_grad_and_scales_huge_vectors_for_the_probes():
    import torch

    from reproducer.errors import ReproducerWarning
    from reproducer.evaluate.harness import encode_unique
    from reproducer.evaluate.tasks import resolve_tasks

    class Tensorial:
        def encode(self, sentences):
            return torch.ones(len(sentences), 3, requires_grad=True)

    assert encode_unique(Tensorial(), ["a", "b"])["a"].tolist() == [1.0, 1.0, 1.0]
    with pytest.warns(ReproducerWarning, match="reach 1e\\+10: scaled by 2\\^-34 for the probes"):
        table = encode_unique(_EncodeOnly(np.array([1e10, -5e9])), ["a", "b"])
    assert np.abs(table["a"]).max() <= 1 and table["a"][0] / table["a"][1] == -2  # the direction is kept
    for bad in ([1, "MR"], "MR".encode(), 3):
        with pytest.raises(ReproducerError, match="task is a name|list of names"):
            resolve_tasks(bad)

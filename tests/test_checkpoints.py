"""Checkpoints you can trust (issue 21): a resume that refuses other settings, digests verified on every load, clear
errors for damaged files, divergence stopped before a poisoned checkpoint, presets validated, checkpoints by time."""
from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from reproducer import checkpoints
from reproducer.checkpoints import DamagedFileError
from reproducer.errors import ReproducerError
from reproducer.papers.registry import preset
from reproducer.train import Diverged, TrainConfig, train
from test_engine import _Tiny, tiny_batches, tiny_config, tiny_model

HERE = Path(__file__).resolve().parent


def _train(checkpoint, config=None, model=None, **options):
    return train(model or tiny_model(), tiny_batches, config or tiny_config(3), checkpoint=checkpoint, device="cpu",
                 progress=False, **options)


# ---- resume refuses what changes the run, allows a longer budget ----

def test_resume_with_another_learning_rate_is_refused_naming_it(tmp_path):
    path = tmp_path / "run.pt"
    _train(path)
    with pytest.raises(ReproducerError, match=r"lr: 0.01 → 0.5") as error:
        _train(path, dataclasses.replace(tiny_config(6), lr=0.5))
    assert "Delete" in str(error.value)
    assert checkpoints.load(path)["log"]["step"] == 3  # untouched


def test_resume_with_other_sizes_settings_or_data_is_refused_naming_each(tmp_path):
    path = tmp_path / "run.pt"
    _train(path, settings={"hidden": 5, "batch_size": 4})

    class Wider(_Tiny):
        def __init__(self):
            super().__init__()
            self.head = torch.nn.Linear(5, 2)

    with pytest.raises(ReproducerError, match=r"head.weight: \[1, 5\] → \[2, 5\]"):
        _train(path, tiny_config(6), model=Wider(), settings={"hidden": 5, "batch_size": 4})
    with pytest.raises(ReproducerError, match=r"batch_size: 4 → 8"):
        _train(path, tiny_config(6), settings={"hidden": 5, "batch_size": 8})
    other_data = lambda i: tiny_batches(i + 1000)  # noqa: E731
    with pytest.raises(ReproducerError, match="data: the first batch differs"):
        train(tiny_model(), other_data, tiny_config(6), checkpoint=path, device="cpu", progress=False,
              settings={"hidden": 5, "batch_size": 4})
    log = _train(path, tiny_config(6), settings={"hidden": 5, "batch_size": 4})  # same run, longer budget: fine
    assert log.step == 6


def test_a_budget_below_what_the_checkpoint_trained_is_refused(tmp_path):
    path = tmp_path / "run.pt"
    _train(path, tiny_config(6))
    with pytest.raises(ReproducerError, match="already trained 6 steps, past the new max_steps=3"):
        _train(path, tiny_config(3))
    assert _train(path, tiny_config(6)).step == 6  # the same budget again: the finished run


# ---- digests and clear errors ----

def _flip_a_bit(path: Path, offset_from_end: int = 4000) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) - offset_from_end] ^= 0x10
    path.write_bytes(bytes(data))


def test_one_flipped_bit_in_a_checkpoint_is_caught(tmp_path):
    path = tmp_path / "run.pt"
    _train(path)
    payload_end = len(path.read_bytes())
    for offset in (payload_end // 2, payload_end // 3):  # inside the stored payload
        damaged = tmp_path / f"damaged{offset}.pt"
        damaged.write_bytes(path.read_bytes())
        _flip_a_bit(damaged, offset)
        with pytest.raises(DamagedFileError, match="damaged|not a readable"):
            _train(damaged, tiny_config(6))


@pytest.mark.parametrize("content", [b"", b"\x00" * 100, os.urandom(5000), b"PK\x03\x04truncated zip"])
def test_empty_truncated_or_random_files_give_one_clear_error(tmp_path, content):
    from reproducer.encoders.bundles import load_encoder

    path = tmp_path / "bad.pt"
    path.write_bytes(content)
    for load in (lambda: _train(path), lambda: load_encoder(path)):
        with pytest.raises(DamagedFileError) as error:
            load()
        assert str(path) in str(error.value) and "weights_only" not in str(error.value)
        assert "Delete" in str(error.value)


def test_a_truncated_checkpoint_is_a_clear_error(tmp_path):
    path = tmp_path / "run.pt"
    _train(path)
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    with pytest.raises(DamagedFileError, match="not a readable training checkpoint"):
        _train(path, tiny_config(6))


def test_non_finite_weights_in_a_file_are_refused(tmp_path):
    path = tmp_path / "nan.pt"
    checkpoints.save({"model": {"w": torch.tensor([1.0, float("nan")])}}, path)
    with pytest.raises(DamagedFileError, match="non-finite values .* model.w"):
        checkpoints.load(path)


def test_a_saved_encoder_bundle_carries_its_digest(tmp_path):
    from reproducer.encoders.bundles import load_encoder
    from reproducer.papers.registry import family

    settings = preset("paraphrastic", "smoke", max_steps=1)
    fam = family("paraphrastic")
    fitted = fam.fit("PP", settings, fam.training_data("PP", settings), progress=False, device="cpu")
    path = tmp_path / "pp.encoder.pt"
    fitted.encoder.save(path)
    assert load_encoder(path).encode(["a good film"]).shape[0] == 1
    _flip_a_bit(path, len(path.read_bytes()) // 2)
    with pytest.raises(DamagedFileError, match="encoder bundle"):
        load_encoder(path)


# ---- divergence ----

def test_a_loss_that_explodes_but_stays_finite_stops_the_run(tmp_path):
    path = tmp_path / "run.pt"
    with pytest.raises(Diverged, match=r"more than 10× its level"):
        _train(path, dataclasses.replace(tiny_config(200), lr=1e6, checkpoint_every=1000))
    assert not path.exists()  # nothing was saved


def test_weights_that_explode_under_a_bounded_loss_are_not_saved(tmp_path):
    class Bounded(_Tiny):  # a saturating output: the loss starts near 0.8 and stays below 3.61 (< 10 × 0.8) however
        def forward(self, batch):  # large the weights grow
            states, _ = self.rnn(self.embed(batch.ids))
            return ((torch.tanh(self.head(states[:, -1]).squeeze(1)) + 0.9) ** 2).mean()

    torch.manual_seed(0)
    path = tmp_path / "run.pt"
    with pytest.raises(Diverged, match=r"weights have grown to .*, more than 10000× their scale"):
        _train(path, dataclasses.replace(tiny_config(30), lr=1e34, checkpoint_every=10), model=Bounded())
    assert not path.exists()


def test_after_divergence_the_kept_checkpoint_is_from_before_and_the_message_says_what_to_do(tmp_path):
    path = tmp_path / "run.pt"
    _train(path, dataclasses.replace(tiny_config(5), checkpoint_every=5))

    class Exploding(_Tiny):
        def forward(self, batch):
            loss = super().forward(batch)
            return loss * float("nan") if self.training and self.steps() > 6 else loss

        def steps(self):
            self.count = getattr(self, "count", 0) + 1
            return self.count

    torch.manual_seed(0)
    with pytest.raises(Diverged) as error:
        _train(path, dataclasses.replace(tiny_config(20), checkpoint_every=1), model=Exploding())
    message = str(error.value)
    assert "keeps step" in message and "delete it" in message and str(path) in message
    state = checkpoints.load(path)  # finite, and from before the loss went wrong: resumed at step 5, the 7th forward
    assert not checkpoints.non_finite(state) and state["log"]["step"] == 11  # (step 12) is the first NaN
    assert "diverged at step 12" in message


# ---- settings validated where they are built ----

@pytest.mark.parametrize("overrides, message", [
    ({"max_steps": 0}, "max_steps must be at least 1, got 0"),
    ({"max_seconds": -5}, "max_seconds must be above 0, got -5"),
    ({"batch_size": 0}, "batch_size must be at least 1, got 0"),
    ({"lr": -1.0}, "lr must be above 0, got -1.0"),
    ({"lr": "1e-3"}, "lr must be a number, got '1e-3'"),
    ({"max_steps": 2.5}, "max_steps must be an integer, got 2.5"),
    ({"lr": float("nan")}, "lr must be finite"),
    ({"remove_pc": "no"}, "remove_pc must be True or False"),
    ({"eval_config": "fastest"}, "eval_config must be one of prototype, sklearn, fast, paper, smoke, got 'fastest'"),
])
def test_presets_are_validated_when_built(overrides, message):
    with pytest.raises(ReproducerError, match=message.replace("(", r"\(").replace(")", r"\)")):
        preset("consensus", "smoke", **overrides)


def test_train_config_rejects_zero_and_negative_budgets():
    for bad in ({"max_steps": 0}, {"max_seconds": -5.0}, {"max_seconds": 0.0}, {"checkpoint_seconds": 0.0}):
        with pytest.raises(ReproducerError, match="Invalid TrainConfig"):
            TrainConfig(**{"max_steps": 1, **bad})


def test_the_train_command_rejects_a_zero_budget(tmp_path):
    result = subprocess.run([sys.executable, "-m", "reproducer", "train", "PP", "--preset", "smoke", "--steps", "0",
                             "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "argument --steps: must be a positive integer, got '0'" in result.stderr
    assert "Traceback" not in result.stderr


# ---- a killed run loses at most checkpoint_seconds, and resumes bit for bit ----

def test_sigkill_loses_at_most_the_time_between_checkpoints_and_resume_is_exact(tmp_path):
    path = tmp_path / "killed.pt"
    process = subprocess.Popen([sys.executable, str(HERE / "helpers" / "killable_train.py"), str(path), "100000",
                                "0.3"], env={**os.environ, "OMP_NUM_THREADS": "1"})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not path.exists():
        time.sleep(0.1)
    time.sleep(1.0)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    killed_at = checkpoints.load(path)["log"]["step"]
    assert 0 < killed_at < 10_000  # saved by time, not by steps (checkpoint_every is 10,000)
    steps = killed_at + 7
    resumed = checkpoints.load(_resume(path, steps))["model"]
    uninterrupted = checkpoints.load(_resume(tmp_path / "straight.pt", steps))["model"]
    for name, value in uninterrupted.items():
        assert torch.equal(resumed[name], value), name


def _resume(path: Path, steps: int) -> Path:
    from helpers.killable_train import slow_batches

    config = dataclasses.replace(tiny_config(steps), checkpoint_every=10_000, checkpoint_seconds=0.3)
    train(tiny_model(), slow_batches, config, checkpoint=path, device="cpu", progress=False)
    return path

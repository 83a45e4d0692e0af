"""The training engine (:mod:`reproducer.train`): mixed precision, batches built ahead, multi-process training under
``torchrun``, the ``reproducer train`` command, and the FLOP counts of ``bench train``."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from torch import nn

from reproducer import checkpoints
from reproducer.data.batches import SentenceBatch
from reproducer.errors import ReproducerError
from reproducer.fit import Objective, fit
from reproducer.flops import rnn_token_macs, sgemm_peak, training_flops
from reproducer.papers.registry import DECLARATIONS, FAMILIES, family
from reproducer.papers.registry import preset
from reproducer.train import Preset, TrainConfig, TrainLog, train

HERE = Path(__file__).resolve().parent


# ---- a tiny deterministic model and batch stream (also read by tests/helpers/ddp_train.py) ----

def tiny_model() -> nn.Module:
    torch.manual_seed(0)
    return _Tiny()


class _Tiny(nn.Module):
    """A GRU over 20 words whose last state regresses a target: ``forward(batch) -> loss``."""

    def __init__(self):
        super().__init__()
        self.embed, self.rnn, self.head = nn.Embedding(20, 6), nn.GRU(6, 5, batch_first=True), nn.Linear(5, 1)

    def forward(self, batch) -> torch.Tensor:
        states, _ = self.rnn(self.embed(batch.ids))
        return ((self.head(states[:, -1]).squeeze(1) - batch.lengths.float() / 5) ** 2).mean()


def tiny_batches(index: int) -> SentenceBatch:
    """Batch ``index`` of the stream: a pure function of the index."""
    rng = np.random.default_rng([7, index])
    return SentenceBatch(torch.from_numpy(rng.integers(1, 20, (4, 6))), torch.from_numpy(rng.integers(1, 7, 4)))


def tiny_config(steps: int) -> TrainConfig:
    return TrainConfig(lr=0.01, clip=1.0, max_steps=steps, log_every=1, checkpoint_every=1)


def _reference(schedule: list[int]) -> nn.Module:
    """Single process: optimiser step ``k`` minimises the mean loss of the next ``schedule[k]`` batches of the stream."""
    model, consumed = tiny_model(), 0
    config = tiny_config(len(schedule))
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    for n in schedule:
        loss = sum(model(tiny_batches(consumed + r)) for r in range(n)) / n
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip)
        optimizer.step()
        consumed += n
    return model


def _torchrun(processes: int, checkpoint: Path, steps: int) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(HERE.parent)}
    for attempt in range(2):  # torchrun's --standalone picks a free port, then binds it: another process may take it
        done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(processes),
                               "--standalone", str(HERE / "helpers" / "ddp_train.py"), str(checkpoint), str(steps)],
                              env=env, timeout=240, capture_output=True, text=True)
        if done.returncode == 0 or "address already in use" not in done.stderr.lower():
            break
    assert done.returncode == 0, f"torchrun exited {done.returncode}:\n{done.stderr[-4000:]}"


def _parameters(checkpoint: Path) -> dict:
    return checkpoints.load(checkpoint)["model"]


def test_two_processes_under_torchrun_equal_one_process_averaging_their_batches(tmp_path):
    checkpoint = tmp_path / "ddp.pt"
    _torchrun(2, checkpoint, steps=3)
    state = checkpoints.load(checkpoint)
    assert state["log"]["step"] == 3 and state["log"]["batches"] == 6
    reference = _reference([2, 2, 2]).state_dict()
    for name, value in _parameters(checkpoint).items():
        torch.testing.assert_close(value, reference[name], atol=1e-6, rtol=0, msg=name)
    # resumed by a single process: it continues with batch 6 of the stream
    train(tiny_model(), tiny_batches, tiny_config(5), checkpoint=checkpoint, device="cpu", progress=False)
    reference = _reference([2, 2, 2, 1, 1]).state_dict()
    for name, value in _parameters(checkpoint).items():
        torch.testing.assert_close(value, reference[name], atol=1e-6, rtol=0, msg=name)


def test_one_process_equals_the_reference_and_resumes_exactly(tmp_path):
    checkpoint = tmp_path / "one.pt"
    train(tiny_model(), tiny_batches, tiny_config(2), checkpoint=checkpoint, device="cpu", progress=False)
    log = train(tiny_model(), tiny_batches, tiny_config(4), checkpoint=checkpoint, device="cpu", progress=False)
    assert (log.step, log.batches) == (4, 4)
    reference = _reference([1, 1, 1, 1]).state_dict()
    for name, value in _parameters(checkpoint).items():
        torch.testing.assert_close(value, reference[name], atol=1e-7, rtol=0, msg=name)


def test_an_old_log_without_a_batch_count_resumes_at_its_step():
    assert TrainLog(step=7).batches == 7 and TrainLog(step=7, batches=14).batches == 14


def test_a_nan_loss_is_caught_at_the_next_loss_record():
    class Exploding(_Tiny):
        def forward(self, batch):
            return super().forward(batch) * float("nan")

    config = dataclasses.replace(tiny_config(20), log_every=5)
    with pytest.raises(ReproducerError, match="diverged at step 1: the loss is nan"):
        train(Exploding(), tiny_batches, config, device="cpu", progress=False)


def test_precision_must_be_known_and_auto_is_fp32_on_a_cpu():
    from reproducer.train import resolve_precision

    with pytest.raises(ReproducerError, match="precision"):
        TrainConfig(max_steps=1, precision="fp8")
    assert resolve_precision("auto", torch.device("cpu")) == "fp32"
    assert resolve_precision("bf16", torch.device("cpu")) == "bf16"


# ---- every family: mixed precision (bf16 autocast on the CPU) and FLOP counts on real smoke data ----

def _benched() -> dict[str, str]:
    """Each family's first benched variant, as the papers declare them (``Paper.bench``): uni-skip, uni-QT,
    LSTM (o.g.), MV, mean-max AAE."""
    first: dict[str, str] = {}
    for paper in DECLARATIONS.values():
        for family_name, variant in paper.bench.values():
            first.setdefault(family_name, variant)
    return first


OBJECTIVES = _benched()


@pytest.fixture(scope="module")
def smoke_data():
    return {name: family(name).training_data(variant, preset(name, "smoke")) for name, variant in OBJECTIVES.items()}


@pytest.mark.parametrize("name", list(OBJECTIVES))
def test_every_family_trains_under_bf16_autocast_and_counts_its_flops(name, smoke_data):
    assert set(OBJECTIVES) == set(FAMILIES)
    fam, variant = family(name), OBJECTIVES[name]
    settings = preset(name, "smoke").with_overrides(max_steps=3, precision="bf16")
    settings = dataclasses.replace(settings, eval_steps=None, eval_every=None, max_seconds=None)
    fitted = fam.fit(variant, settings, smoke_data[name], device="cpu", progress=False)
    assert fitted.log.step == 3 and all(np.isfinite(r["loss"]) for r in fitted.log.losses)
    assert all(p.dtype == torch.float32 for p in fitted.module.parameters())  # autocast keeps fp32 weights
    batch = fitted.batches(0)
    flops = fam.batch_flops(fitted.module, batch)
    padded, real = batch.token_counts()
    assert flops > 0 and padded >= real > 0


def test_rnn_macs_per_token_equal_the_weight_matrices():
    for rnn in (nn.GRU(7, 5), nn.GRU(7, 5, bidirectional=True), nn.LSTM(7, 4, num_layers=2, bidirectional=True)):
        weights = sum(p.numel() for n, p in rnn.named_parameters() if n.startswith("weight"))
        assert rnn_token_macs(nn.Sequential(rnn)) == weights
        first = sum(p.numel() for n, p in rnn.named_parameters() if n.startswith("weight_ih_l0"))
        assert rnn_token_macs(rnn, "input") == first and rnn_token_macs(rnn, "rest") == weights - first


def test_autoencoder_flops_match_pytorchs_counter_on_an_unpadded_batch():
    """The formula counts real tokens and a causal half of the decoder's attention; on a batch without padding it must
    agree with what torch's FLOP counter sees, up to the causal half it computes in full."""
    from torch.utils.flop_counter import FlopCounterMode

    from reproducer.encoders.attention import AAEConfig
    from reproducer.papers.mean_max_aae.objective import MeanMaxAAE, batch_flops

    torch.manual_seed(0)
    model = MeanMaxAAE(np.random.default_rng(0).normal(size=(50, 16)).astype(np.float32),
                       AAEConfig(40, 16, 32, 64, heads=4, max_len=12))
    batch = SentenceBatch(torch.randint(4, 50, (6, 10)), torch.full((6,), 10))
    with FlopCounterMode(display=False) as counter:
        model(batch).backward()
    counted, ours = counter.get_total_flops(), batch_flops(model, batch)
    causal_half = 6 * 2 * 6 * (10 * 10 - 10 * 11 / 2) * 32  # the masked upper triangle, computed but not useful
    assert abs(counted - causal_half - ours) / ours < 0.01


def test_training_flops_and_the_measured_peak():
    assert training_flops(10, 4) == 68 and training_flops(0, 0, 5) == 20
    assert sgemm_peak(256, repeats=2) > 1e8  # any machine does 0.1 GFLOP/s


# ---- python -m reproducer train ----

def test_train_command_writes_the_notebooks_files_and_resumes(tmp_path, capsys):
    from reproducer.__main__ import main
    from reproducer.encoders.bundles import load_encoder

    assert main(["train", "uni-QT", "--preset", "smoke", "--steps", "3", "--out", str(tmp_path), "--quiet"]) == 0
    assert "3 steps" in capsys.readouterr().out
    assert main(["train", "uni-QT", "--preset", "smoke", "--steps", "5", "--out", str(tmp_path), "--quiet"]) == 0
    state = checkpoints.load(tmp_path / "checkpoints" / "uni-QT.train.pt")
    assert state["log"]["step"] == 5 and state["log"]["losses"][0]["step"] == 1  # resumed, not restarted
    encoder = load_encoder(tmp_path / "checkpoints" / "uni-QT.encoder.pt")
    assert encoder.encode(["a short sentence ."]).shape == (1, 2 * preset("quick-thought", "smoke").hidden)
    assert (tmp_path / "checkpoints" / "uni-QT.log.json").is_file()


def test_train_command_with_another_seed_trains_in_the_notebooks_folder_for_that_seed(tmp_path, monkeypatch):
    from reproducer.results_store import NotebookRun
    from reproducer.train_command import train_model

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path))
    train_model("uni-QT", "smoke", steps=1, seed=1, progress=False)
    seeded = NotebookRun("02_quick_thoughts", "smoke", seed=1, changed={"seed": 1})
    assert seeded.dir == tmp_path / "02_quick_thoughts" / "smoke+seed=1"
    assert (seeded.dir / "checkpoints" / "uni-QT.train.pt").is_file()
    assert not (tmp_path / "02_quick_thoughts" / "smoke").exists()  # the book's run is untouched


def test_train_command_refuses_what_cannot_be_trained(capsys):
    from reproducer.__main__ import main

    assert main(["train", "combine-QT", "--preset", "smoke"]) == 2
    assert "combination" in capsys.readouterr().err
    assert main(["train", "glove-bow", "--preset", "smoke"]) == 2
    assert main(["train", "no-such-model", "--preset", "smoke"]) == 2


# ---- length buckets ----

def test_length_buckets_keep_the_epoch_and_purity_and_cut_the_padding():
    from reproducer.data.batches import EpochOrder

    lengths = np.random.default_rng(0).integers(1, 40, 1000)
    plain = EpochOrder(1000, 10, seed=3)
    bucketed = EpochOrder(1000, 10, seed=3, lengths=lambda i: lengths[i], bucket=16)
    epoch = [bucketed(s) for s in range(100)]
    assert sorted(np.concatenate(epoch).tolist()) == list(range(1000))  # every item once per epoch
    fresh = EpochOrder(1000, 10, seed=3, lengths=lambda i: lengths[i], bucket=16)
    for step in (57, 3, 250, 99, 100):  # any order, any fresh sampler: the same batch for the same step
        np.testing.assert_array_equal(fresh(step), bucketed(step))

    def waste(order):
        batches = [lengths[order(s)] for s in range(100)]
        return sum(b.max() * len(b) for b in batches) / sum(b.sum() for b in batches)

    assert waste(bucketed) < 1.2 < 1.5 < waste(plain)


def test_epoch_cost_counts_an_epoch_without_training():
    from reproducer.bench import epoch_cost

    (row,) = epoch_cost(["quick-thought"], preset="smoke", samples=3, gpu_flops=1e12, cpu_flops=1e9)
    assert row["batches_per_epoch"] > 0 and row["tflop_per_epoch"] > 0
    assert row["cpu_hours_per_epoch_at_sgemm_peak"] == pytest.approx(1000 * row["gpu_hours_per_epoch"])


# ---- the CPU training path of the GRU encoders ----

@pytest.mark.parametrize("bidirectional,single_bias", [(False, False), (True, False), (False, True), (True, True)])
def test_packed_gru_equals_pytorchs_gru_values_and_gradients(bidirectional, single_bias):
    from torch.nn.utils.rnn import pack_padded_sequence

    from reproducer.encoders.recurrent import packed_gru_last

    torch.manual_seed(0)
    rnn = nn.GRU(7 + single_bias, 5, batch_first=True, bidirectional=bidirectional, bias=not single_bias).double()
    x = torch.randn(6, 9, 7 + single_bias, dtype=torch.float64, requires_grad=True)
    lengths = torch.tensor([3, 9, 1, 5, 9, 2])
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    ours, theirs = packed_gru_last(rnn, packed), rnn(packed)[1]
    torch.testing.assert_close(ours, theirs, atol=1e-10, rtol=0)
    weights = torch.randn_like(ours)
    grads = torch.autograd.grad((ours * weights).sum(), [x, *rnn.parameters()], retain_graph=True)
    expected = torch.autograd.grad((theirs * weights).sum(), [x, *rnn.parameters()])
    for a, b in zip(grads, expected):
        torch.testing.assert_close(a, b, atol=1e-10, rtol=0)


def test_recurrent_encoder_trains_and_encodes_alike():
    from reproducer.encoders.recurrent import RecurrentConfig, RecurrentEncoder

    torch.manual_seed(0)
    encoder = RecurrentEncoder(RecurrentConfig(30, 8, 6, bidirectional=True, single_bias=True))
    ids, lengths = torch.randint(1, 30, (5, 7)), torch.tensor([7, 2, 5, 1, 7])
    trained = encoder(ids, lengths)  # gradients on: the packed_gru_last path
    with torch.no_grad():
        encoded = encoder(ids, lengths)  # nn.GRU
    torch.testing.assert_close(trained.detach(), encoded, atol=1e-6, rtol=0)


class TinyObjective(Objective):
    """The smallest :class:`~reproducer.fit.Objective`: :func:`tiny_model`'s network with fixed word vectors on
    :func:`tiny_batches`."""

    name, presets, variants = "tiny", {"t": Preset(name="t", max_steps=2)}, {"tiny": "a GRU regression"}

    def build(self, variant, preset, data, *, device, seed=0):
        model = _Tiny().to(device)
        model.embed.weight.requires_grad_(False)  # fixed word vectors are not counted
        return model, None

    def sampler(self, variant, preset, data, seed=0, encoder=None):
        return SimpleNamespace(batch=tiny_batches)


def test_fit_records_the_trainable_parameters():
    objective = TinyObjective()
    fitted = fit(objective, "tiny", objective.presets["t"], None, device="cpu", progress=False)
    model = fitted.module
    expected = sum(p.numel() for p in (*model.rnn.parameters(), *model.head.parameters()))
    assert fitted.log.parameters == expected and fitted.log.to_dict()["parameters"] == expected
    assert fitted.log.step == 2


def test_fit_sets_the_seed_once_and_training_starts_from_it():
    """The weights are the seed's whatever ran before, and the training steps draw from the seeded state (as the
    trainer did when it seeded again): this model draws nothing while it trains, so the evaluation at its end draws
    what a fresh seed gives first. Another seed is another run."""
    objective = TinyObjective()
    runs, draws = [], []
    for seed in (3, 3, 4):
        torch.rand(5)  # whatever ran before does not leak into the run
        fitted = fit(objective, "tiny", objective.presets["t"], None, seed=seed, device="cpu", progress=False,
                     evaluate=lambda fitted, step: {"draw": float(torch.rand(()))})
        runs.append(torch.cat([p.detach().flatten() for p in fitted.module.parameters()]))
        draws.append(fitted.log.evals[-1]["draw"])
    assert torch.equal(runs[0], runs[1]) and not torch.equal(runs[0], runs[2])
    torch.manual_seed(3)
    assert draws[0] == draws[1] == float(torch.rand(())) != draws[2]


def test_fit_names_the_variants_of_an_unknown_one():
    objective = TinyObjective()
    with pytest.raises(ReproducerError, match="Unknown tiny variant 'huge'; choose one of tiny"):
        fit(objective, "huge", objective.presets["t"], None, device="cpu", progress=False)


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (read from ``/proc``)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):  # gone meanwhile
            continue
        if parent == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the ranks through /proc")
def test_torchrun_killed_with_sigkill_resumes_bit_for_bit(tmp_path):
    """SIGKILL to every process of a two-process run (agent and ranks) between checkpoints; resumed under torchrun, it
    ends with exactly the weights of a two-process run that was never stopped."""
    import signal
    import time

    killed = tmp_path / "killed.pt"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(HERE.parent)}
    process = subprocess.Popen([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--standalone",
                                str(HERE / "helpers" / "ddp_train.py"), str(killed), "1000000"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (killed.exists() and checkpoints.load(killed)["log"]["step"] >= 3):
            time.sleep(0.2)
    finally:  # the agent and its ranks (each in a session of its own) at once, as the OOM killer or a node loss would
        for pid in [process.pid, *_children(process.pid)]:
            os.kill(pid, signal.SIGKILL)
        process.wait(timeout=30)
    killed_at = checkpoints.load(killed)["log"]["step"]
    assert killed_at >= 3
    _torchrun(2, killed, steps=killed_at + 3)
    _torchrun(2, tmp_path / "straight.pt", steps=killed_at + 3)
    resumed, straight = _parameters(killed), _parameters(tmp_path / "straight.pt")
    assert checkpoints.load(killed)["log"]["batches"] == 2 * (killed_at + 3)
    for name, value in straight.items():
        assert torch.equal(resumed[name], value), name

"""The GPU path, marked ``cuda``: the first stage of the GPU plan (:mod:`reproducer.gpu_run`) runs ``pytest -m cuda``
on the lent GPU; everywhere else these tests run on the CPU twin of each path (``REPRODUCER_TEST_DEVICE`` picks the
device; default: cuda when available). They need no data: toy books and random features."""
from __future__ import annotations

import os

import numpy as np
import pytest
import torch

from reproducer.data.batches import ContiguousSampler, TokenizedCorpus
from reproducer.data.vocab import Vocabulary
from reproducer.encoders.recurrent import RecurrentConfig
from reproducer.encoders.trained import TokenEncoder
from reproducer.papers.quick_thoughts.objective import QuickThought
from reproducer.train import TrainConfig, train

pytestmark = pytest.mark.cuda


@pytest.fixture(scope="module")
def device() -> torch.device:
    name = os.environ.get("REPRODUCER_TEST_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


@pytest.fixture()
def toy(books):
    """A toy corpus as ids, its vocabulary and contiguous batches of 8."""
    corpus = books(sizes=(12, 9, 15))
    vocab = Vocabulary.build(corpus.sentences, max_size=None)
    tokenized = TokenizedCorpus.from_corpus(corpus, vocab)
    return vocab, ContiguousSampler(tokenized, 8, max_len=10, seed=0).batch


def _qt(vocab, hidden=16) -> QuickThought:
    torch.manual_seed(0)
    return QuickThought.recurrent(RecurrentConfig(len(vocab), 12, hidden, single_bias=True, init="xavier"))


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_mixed_precision_steps_train(toy, device, precision):
    """Autocast in bf16, and fp16 with its gradient scaler: the steps run, the loss stays finite, the weights move and
    stay float32 (autocast casts the products, not the parameters)."""
    vocab, batches = toy
    model = _qt(vocab)
    before = [p.detach().clone() for p in model.parameters()]
    log = train(model, batches, TrainConfig(lr=1e-2, max_steps=4, log_every=1, precision=precision), device=device,
                progress=False)
    assert log.step == 4 and all(np.isfinite(r["loss"]) for r in log.losses)
    assert all(p.dtype == torch.float32 and p.device.type == device.type for p in model.parameters())
    assert any(not torch.equal(b, p.detach().cpu()) for b, p in zip(before, model.parameters()))


def test_batches_move_to_the_device(toy, device):
    """A batch's tensors go to the device together (pinned first on a GPU, as the trainer does)."""
    _, batches = toy
    batch = batches(0)
    if device.type == "cuda":
        batch = batch.pin_memory()
    moved = batch.to(device, non_blocking=True)
    tensors = [v for v in vars(moved).values() if isinstance(v, torch.Tensor)]
    assert tensors and all(t.device.type == device.type for t in tensors)
    assert torch.equal(moved.ids.cpu(), batches(0).ids)


def test_encoding_on_the_device_matches_the_cpu(toy, device):
    """The same weights encode the same sentences to the same vectors on the device as on the CPU (cuDNN's GRU vs
    PyTorch's CPU kernels: equal to the rounding of TF32, which cuDNN may use for float32 products)."""
    vocab, _ = toy
    model = _qt(vocab, hidden=32)
    sentences = ["w1 w2 x0", "w3 x1", "w4 w0 w2 w1 x2", "unknown words here"]
    on_cpu = TokenEncoder(model.f, vocab, "f", device="cpu").encode(sentences)
    on_device = TokenEncoder(model.f.to(device), vocab, "f", device=device).encode(sentences)
    assert on_device.shape == (4, 32)
    np.testing.assert_allclose(on_device, on_cpu, atol=5e-3)
    assert np.abs(on_cpu).max() > 0.05  # vectors that could differ


def test_evaluation_protocol_on_the_device_matches_the_cpu(device):
    """SentEval's protocol (cross-validated logistic regressions, every fold × L2 model trained at once) on the device
    gives the CPU's accuracy on the same features, to a fraction of a point."""
    from reproducer.evaluate.senteval import SentEvalConfig

    rng = np.random.default_rng(0)
    x = 5 * rng.normal(size=(400, 20)).astype(np.float32)
    y = (x[:, 0] + 1.5 * rng.normal(size=400) > 0).astype(int)
    config = dict(kfold=3)
    there = SentEvalConfig(**config, device=str(device)).cv(x, y)
    here = SentEvalConfig(**config, device="cpu").cv(x, y)
    assert there["acc"] > 70  # learned: the label is the sign of a noisy first feature
    assert abs(there["acc"] - here["acc"]) < 1.5


def test_compiled_model_trains_two_steps(toy, device):
    """``torch.compile`` (``TrainConfig.compile``) wraps the model and trains two steps to a finite loss: word-average
    encoders (BoW-QT), which compile without graph breaks."""
    from reproducer.encoders.channels import AverageEncoder

    vocab, batches = toy
    torch.manual_seed(0)
    model = QuickThought(AverageEncoder(len(vocab), 16), AverageEncoder(len(vocab), 16))
    log = train(model, batches, TrainConfig(lr=1e-2, max_steps=2, log_every=1, compile=True), device=device,
                progress=False)
    assert log.step == 2 and all(np.isfinite(r["loss"]) for r in log.losses)


def test_the_fused_adam_of_a_gpu_is_the_default_adam(toy, device):
    """Issue 66: on a GPU the trainer uses Adam's fused kernel (:func:`reproducer.train.optimizer_options`); the CPU
    keeps the default. Ten steps of uni-QT's toy model with each, on this device, end at the same weights up to float
    rounding — and where the fused kernel is the trainer's choice, it is the one used."""
    from reproducer.train import optimizer_options

    vocab, batches = toy
    assert optimizer_options("adam", device) == ({"fused": True} if device.type == "cuda" else {})
    assert optimizer_options("adagrad", device) == {} and optimizer_options("adam", torch.device("cpu")) == {}
    weights = {}
    for fused in (False, True):
        model = _qt(vocab).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2, fused=fused)
        for step in range(10):
            batch = batches(step).to(device)
            opt.zero_grad(set_to_none=True)
            model(batch).backward()
            opt.step()
        weights[fused] = [p.detach().cpu() for p in model.parameters()]
    for default, fused in zip(weights[False], weights[True]):
        torch.testing.assert_close(fused, default, rtol=1e-4, atol=1e-5)
    assert any(not torch.equal(p, q) for p, q in zip(weights[True], [p.detach().cpu() for p in _qt(vocab).parameters()]))

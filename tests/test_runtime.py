from __future__ import annotations

import random

import numpy as np
import torch

from reproducer.runtime import default_device, seed_everything


def test_seed_everything_repeats_every_generator():
    def draw():
        return random.random(), float(np.random.rand()), float(torch.rand(1))

    seed_everything(3)
    first = draw()
    seed_everything(3)
    assert draw() == first
    seed_everything(4)
    assert draw() != first


def test_default_device_follows_availability():
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert default_device().type == expected
    assert default_device("cpu").type == "cpu"


def test_keep_freed_memory_tunes_glibc_once_and_can_be_switched_off(monkeypatch):
    import platform

    from reproducer import runtime

    monkeypatch.setitem(runtime._ALLOCATOR, "tuned", None)
    monkeypatch.setenv("REPRODUCER_KEEP_FREED_MEMORY", "0")
    assert runtime.keep_freed_memory() is False
    monkeypatch.setitem(runtime._ALLOCATOR, "tuned", None)
    monkeypatch.delenv("REPRODUCER_KEEP_FREED_MEMORY")
    expected = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert runtime.keep_freed_memory() is expected
    monkeypatch.setattr(runtime.ctypes, "CDLL", lambda *_: (_ for _ in ()).throw(AssertionError("called twice")))
    assert runtime.keep_freed_memory() is expected  # cached: libc is not loaded again


def test_inference_turns_off_dropout_and_gradients_and_restores_the_mode():
    from reproducer.runtime import inference

    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5)).train()
    x = torch.ones(3, 4)
    with inference(model):
        assert not model.training and not torch.is_grad_enabled()
        torch.testing.assert_close(model(x), model(x))  # no dropout
    assert model.training and torch.is_grad_enabled()
    try:
        with inference(model.eval()):
            raise RuntimeError
    except RuntimeError:
        pass
    assert not model.training  # an evaluation-mode module stays in evaluation mode
    model.train()
    try:
        with inference(model):
            raise RuntimeError
    except RuntimeError:
        pass
    assert model.training  # restored although the block raised

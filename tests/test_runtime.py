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

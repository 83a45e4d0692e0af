"""Run under ``torchrun``: train the tiny model of ``tests/test_engine.py`` with :func:`reproducer.train.train` for
``steps`` optimiser steps (resuming from ``checkpoint`` if it exists); rank 0 writes the checkpoint."""
from __future__ import annotations

import sys

import torch
import torch.distributed as dist

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
from test_engine import tiny_batches, tiny_config, tiny_model  # noqa: E402

from reproducer.train import train  # noqa: E402

if __name__ == "__main__":
    checkpoint, steps = sys.argv[1], int(sys.argv[2])
    dist.init_process_group("gloo")
    train(tiny_model(), tiny_batches, tiny_config(steps), checkpoint=checkpoint, device="cpu", progress=False)
    dist.destroy_process_group()

"""Train the tiny model of ``tests/test_engine.py`` for ``steps`` steps with a checkpoint every ``seconds`` of
wall-clock time (and only every 10,000 steps), each batch taking a few milliseconds to build: a run to SIGKILL."""
from __future__ import annotations

import dataclasses
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
from test_engine import tiny_batches, tiny_config, tiny_model  # noqa: E402

from reproducer.train import train  # noqa: E402


def slow_batches(index: int):
    time.sleep(0.005)
    return tiny_batches(index)


if __name__ == "__main__":
    checkpoint, steps, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    config = dataclasses.replace(tiny_config(steps), checkpoint_every=10_000, checkpoint_seconds=seconds)
    train(tiny_model(), slow_batches, config, checkpoint=checkpoint, device="cpu", progress=False)

"""Every family's models trained at ``smoke`` are the ones recorded before the training route was refactored (issue 64:
one ``fit`` for all): the same initial weights, trained weights, vectors and loss records (exact on a machine like the
recording one; within float rounding elsewhere), so a retrain still gives the book's numbers.
The record: ``tests/data/training_digests.json``, written by ``tests/helpers/training_digests.py``."""
from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "helpers"))
import training_digests  # noqa: E402

RECORDED = json.loads(training_digests.RECORD.read_text())


@pytest.fixture(scope="module")
def now() -> dict:
    return training_digests.digests()


@pytest.mark.slow
def test_every_recorded_run_still_trains(now):
    """Every recorded (family, variant, seed) still exists; a family or variant added since is not compared until
    its digests are recorded (``python tests/helpers/training_digests.py <family>`` rewrites the record), and says
    so."""
    assert set(RECORDED["digests"]) <= set(now), sorted(set(RECORDED["digests"]) - set(now))
    if set(now) - set(RECORDED["digests"]):
        warnings.warn(f"not recorded yet: {sorted(set(now) - set(RECORDED['digests']))}")


@pytest.mark.slow
@pytest.mark.parametrize("run", sorted(RECORDED["digests"]))
def test_smoke_training_is_unchanged(now, run):
    was, got = RECORDED["digests"][run], now[run]
    assert (got["steps"], got["examples"]) == (was["steps"], was["examples"])
    assert [s for s, _ in got["losses"]] == [s for s, _ in was["losses"]]
    if training_digests.machine() == RECORDED["machine"]:
        assert got["initial"] == was["initial"], f"{run}: another initialisation (a random stream moved)"
        assert got["losses"] == was["losses"], f"{run}: other losses"
        assert got["trained"] == was["trained"], f"{run}: other trained weights"
        assert got["encoded"] == was["encoded"], f"{run}: other vectors"
    else:  # other CPU kernels round in another order: float rounding, not another model
        assert got["initial_size"] == pytest.approx(was["initial_size"], rel=1e-6), f"{run}: another initialisation"
        np.testing.assert_allclose([v for _, v in got["losses"]], [v for _, v in was["losses"]], rtol=1e-3)
        assert got["encoded_sum"] == pytest.approx(was["encoded_sum"], rel=1e-3)

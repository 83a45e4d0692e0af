"""Every family's models trained at ``smoke`` are the ones recorded before the training route was refactored (issue 64:
one ``fit`` for all): the same initial weights, trained weights, vectors and loss records (exact on a machine like a
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

RECORDS = training_digests.records()
HERE = training_digests.record_here()
RUNS = sorted({run for record in RECORDS for run in record["digests"]})


def recorded(run: str) -> dict:
    """``run``'s digests as recorded on this machine, else on the latest machine that recorded it."""
    if HERE and run in HERE["digests"]:
        return HERE["digests"][run]
    return next(r["digests"][run] for r in reversed(RECORDS) if run in r["digests"])


@pytest.fixture(scope="module")
def now() -> dict:
    return training_digests.digests()


@pytest.mark.slow
def test_every_recorded_run_still_trains(now):
    """Every recorded (family, variant, seed) still exists; a family or variant added since is not compared until
    its digests are recorded (``python tests/helpers/training_digests.py <family>`` rewrites the record), and says
    so."""
    assert set(RUNS) <= set(now), sorted(set(RUNS) - set(now))
    if set(now) - set(RUNS):
        warnings.warn(f"not recorded yet: {sorted(set(now) - set(RUNS))}")


@pytest.mark.slow
@pytest.mark.parametrize("run", RUNS)
def test_smoke_training_is_unchanged(now, run):
    was, got = recorded(run), now[run]
    assert (got["steps"], got["examples"]) == (was["steps"], was["examples"])
    assert [s for s, _ in got["losses"]] == [s for s, _ in was["losses"]]
    if HERE and run in HERE["digests"]:
        assert got["initial"] == was["initial"], f"{run}: another initialisation (a random stream moved)"
        assert got["losses"] == was["losses"], f"{run}: other losses"
        assert got["trained"] == was["trained"], f"{run}: other trained weights"
        assert got["encoded"] == was["encoded"], f"{run}: other vectors"
        return
    # other CPU kernels round in another order: float rounding, not another model
    assert got["initial_size"] == pytest.approx(was["initial_size"], rel=1e-6), f"{run}: another initialisation"
    if "initial_encoded_sum" in was:
        assert got["initial_encoded_sum"] == pytest.approx(was["initial_encoded_sum"], rel=1e-5), \
            f"{run}: the untrained twin encodes otherwise"
    np.testing.assert_allclose([v for _, v in got["losses"]], [v for _, v in was["losses"]], rtol=1e-3)
    if run.split("/")[0] not in training_digests.CHOOSES_FROM_SCORES:
        assert got["encoded_sum"] == pytest.approx(was["encoded_sum"], rel=1e-3), f"{run}: other vectors"

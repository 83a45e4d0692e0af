"""Macro and micro averages over task sets (Zhang et al. 2018, Table 2).

The paper summarises Table 1 by the mean accuracy over three task sets — **8 tasks** (MR, CR, SUBJ, MPQA, SST-2,
TREC, MRPC, SICK-E), **7 tasks** (the same without MRPC, to compare with skip-thoughts+LN) and **6 tasks** (MR, CR,
SUBJ, MPQA, TREC, MRPC, to compare with the CNN encoders) — "macro" (unweighted) and "micro" (weighted by the number
of test samples). For the cross-validated tasks the test samples are the whole dataset; otherwise the test split.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

TASK_SETS: dict[str, tuple[str, ...]] = {
    "8 tasks": ("MR", "CR", "SUBJ", "MPQA", "SST2", "TREC", "MRPC", "SICK-E"),
    "7 tasks": ("MR", "CR", "SUBJ", "MPQA", "SST2", "TREC", "SICK-E"),
    "6 tasks": ("MR", "CR", "SUBJ", "MPQA", "TREC", "MRPC"),
}
#: Test samples per task: the dataset for the 10-fold tasks, the test split for the others.
MICRO_WEIGHTS: dict[str, int] = {"MR": 10_662, "CR": 3_775, "SUBJ": 10_000, "MPQA": 10_606, "SST2": 1_821,
                                 "TREC": 500, "MRPC": 1_725, "SICK-E": 4_927}


def task_averages(accuracies: Mapping[str, float], sets: Mapping[str, tuple[str, ...]] = TASK_SETS) -> pd.DataFrame:
    """One row per task set: ``macro`` and ``micro`` averages of ``accuracies`` (task → accuracy %), NaN when a task
    of the set is missing (as the paper's "-")."""
    rows = {}
    for name, tasks in sets.items():
        values = [accuracies.get(t, np.nan) for t in tasks]
        if any(v is None or np.isnan(v) for v in values):
            rows[name] = {"macro": np.nan, "micro": np.nan}
            continue
        weights = np.array([MICRO_WEIGHTS[t] for t in tasks], dtype=float)
        rows[name] = {"macro": float(np.mean(values)), "micro": float(np.dot(values, weights) / weights.sum())}
    return pd.DataFrame(rows).T

"""Per-item outcomes of an evaluation, kept so that a score's evaluation noise can be measured by resampling test
items (:mod:`reproducer.evaluate.uncertainty`).

Each protocol adds ``{"_items": {...}}`` to its scores and the harness moves it to
:attr:`reproducer.evaluate.harness.Results.items`: for a classification task, which test items were classified
correctly (``correct``, a string of ``0``/``1`` in the task's record order: under cross-validation every item is a test
item once); for a relatedness or similarity task the predicted and gold scores (``pred``, ``gold``) and, for STS, the
sub-dataset of each pair (``group``; ``groups`` names them). Items are in the same order for every encoder, so two
encoders' items pair up. The gold fields, the same for every encoder, are stored once per results folder
(:func:`reproducer.files.share_gold`) and read back in place.
"""
from __future__ import annotations

import numpy as np

from reproducer.errors import ReproducerError
from reproducer.files import walk_items

KEY = "_items"
#: Significant digits a stored predicted score keeps (:func:`scored_items`).
PRED_DIGITS = 4


def correct_items(correct) -> dict:
    """``{"_items": {"correct": "0110…"}}`` from a boolean array."""
    return {KEY: {"correct": "".join("1" if c else "0" for c in np.asarray(correct, dtype=bool))}}


def scored_items(pred, gold) -> dict:
    """``{"_items": {"pred": [...], "gold": [...]}}``. Predictions keep 4 significant digits: a correlation moves by
    less than 1e-5 on thousands of items (measured on chapter 04's SICK-R, STS-B, STS14 and SICK items: Pearson and
    Spearman; a few hundred items can tie and move a rank correlation by 1e-4), and the results the repository carries
    shrink by a quarter (one device call takes them with the GPU pack: 64 MiB)."""
    return {KEY: {"pred": stored_predictions(pred), "gold": [float(f"{g:.6g}") for g in np.asarray(gold, dtype=float)]}}


def stored_predictions(pred) -> list[float]:
    """Predicted scores as :func:`scored_items` stores them: :data:`PRED_DIGITS` significant digits."""
    return [float(f"{p:.{PRED_DIGITS}g}") for p in np.asarray(pred, dtype=float)]


def round_predictions(obj):
    """``obj`` (a stored result) with every per-item ``pred`` list at :data:`PRED_DIGITS` significant digits, as
    :func:`scored_items` writes them now (results stored before kept 6: ``scripts/store_results.py`` rewrites them).
    ``obj`` itself is not modified."""
    def change(outcome: dict) -> dict:
        pred = outcome.get("pred")
        return {**outcome, "pred": stored_predictions(pred)} if isinstance(pred, list) else outcome

    return walk_items(obj, change)


def grouped_items(parts: dict[str, dict]) -> dict:
    """The scored items of several sub-datasets (name → ``scored_items(...)[KEY]``) as one, with ``group`` ids."""
    names = list(parts)
    return {KEY: {"pred": [p for n in names for p in parts[n]["pred"]],
                  "gold": [g for n in names for g in parts[n]["gold"]],
                  "group": [i for i, n in enumerate(names) for _ in parts[n]["pred"]], "groups": names}}


def pop_items(scores: dict) -> dict | None:
    """Remove and return the ``_items`` entry of a task's scores (``None`` when it has none)."""
    return scores.pop(KEY, None)


def arrays(items: dict) -> dict[str, np.ndarray]:
    """The items as arrays: ``correct`` (bool), or ``pred``, ``gold`` (float) and ``group`` (int) when present."""
    if "correct" in items:
        return {"correct": np.frombuffer(items["correct"].encode("ascii"), dtype=np.uint8) == ord("1")}
    out = {"pred": np.asarray(items["pred"], dtype=float), "gold": np.asarray(items["gold"], dtype=float)}
    if "group" in items:
        out["group"] = np.asarray(items["group"], dtype=int)
    return out


def _rank(x: np.ndarray) -> np.ndarray:
    """Ranks along the last axis (average ranks for ties, as Spearman's rho needs)."""
    from scipy.stats import rankdata

    return rankdata(x, axis=-1)


def _corr(pred: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Pearson r along the last axis (rows are replicates); 0 where a row is constant."""
    p = pred - pred.mean(-1, keepdims=True)
    g = gold - gold.mean(-1, keepdims=True)
    den = np.sqrt((p * p).sum(-1) * (g * g).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (p * g).sum(-1) / den
    return np.nan_to_num(r)


def main_score(metric: str, items: dict, index: np.ndarray | None = None) -> np.ndarray | float:
    """A task's main ``metric`` (``acc`` in %, ``pearson``, ``spearman``, ``wmean.pearson``) computed from its items;
    with ``index`` (``(R, n)`` item indices, e.g. bootstrap resamples) one value per row."""
    a = arrays(items)
    n = len(a["correct"] if "correct" in a else a["pred"])
    idx = np.arange(n)[None, :] if index is None else np.asarray(index)
    if metric == "acc":
        if "correct" not in a:
            raise ReproducerError("Accuracy needs classification items (correct).")
        value = 100 * a["correct"][idx].mean(-1)
    elif metric in ("pearson", "spearman"):
        pred, gold = a["pred"][idx], a["gold"][idx]
        value = _corr(_rank(pred), _rank(gold)) if metric == "spearman" else _corr(pred, gold)
    elif metric == "wmean.pearson":
        if "group" not in a:
            raise ReproducerError("wmean.pearson needs grouped similarity items (STS).")
        groups = a["group"][idx]
        value = np.zeros(len(idx))
        total = np.zeros(len(idx))
        for g in np.unique(a["group"]):
            # within each replicate, the pairs that fell in group g (weights: their count, as SentEval's wmean)
            mask = groups == g
            count = mask.sum(-1)
            pred, gold = np.where(mask, a["pred"][idx], 0.0), np.where(mask, a["gold"][idx], 0.0)
            mp, mg = pred.sum(-1) / np.maximum(count, 1), gold.sum(-1) / np.maximum(count, 1)
            dp, dg = np.where(mask, pred - mp[:, None], 0.0), np.where(mask, gold - mg[:, None], 0.0)
            with np.errstate(invalid="ignore", divide="ignore"):
                r = np.nan_to_num((dp * dg).sum(-1) / np.sqrt((dp * dp).sum(-1) * (dg * dg).sum(-1)))
            value += r * count
            total += count
        value = value / total
    else:
        raise ReproducerError(f"No item statistic for metric {metric!r}.")
    return float(value[0]) if index is None else value

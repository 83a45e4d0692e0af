"""Wieting et al.'s (2016) unsupervised similarity suite (Tables 2 and 3): cosine similarity of the two
sentence vectors against the gold score, no training.

- every SemEval STS sub-dataset of 2012-2015 (19 of the paper's 20; STS13 SMT is not distributed), plus each
  year's plain average over its sub-datasets (the paper's "average" rows);
- SICK test relatedness by cosine (the paper's "SICK 2014" row);
- the Twitter URL corpus test set with graded labels, standing in for SemEval 2015 PIT;
- the Pavlick et al. PPDB pairs by Spearman's ρ, on all pairs and on two fixed halves (``dev`` for model
  selection, ``test`` to report: our stand-in for the paper's Annotated-PPDB test).

Scores are Pearson's r (Spearman's ρ for PPDB) × 100, the paper's scale.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from reproducer.data.loaders import load_ppdb_human, load_sick, load_twitter_url_graded
from reproducer.evaluate.harness import encode_unique
from reproducer.evaluate.protocols import cosine_correlations
from reproducer.evaluate.tasks import CONFIGS

YEARS = ("STS12", "STS13", "STS14", "STS15")


def pavlick_halves(seed: int = 0) -> dict[str, list]:
    """The Pavlick et al. PPDB pairs split once, at random with ``seed``, into ``dev`` and ``test`` halves."""
    pairs = load_ppdb_human("ppdb")
    order = np.random.default_rng(seed).permutation(len(pairs))
    half = len(pairs) // 2
    return {"dev": [pairs[i] for i in order[:half]], "test": [pairs[i] for i in order[half:]], "all": pairs}


def pavlick_test_score(encoder, *, config: str = "paper", batch_size: int = 256, resamples: int = 1000) -> dict:
    """Table 3's score of ``encoder``: Spearman's ρ × 100 of its cosines on the ``test`` half of the Pavlick et al.
    pairs split with seed 0 (the same pairs for every training seed: :func:`pavlick_halves`), with ``resamples``
    bootstrap replicates that resample the pairs (:func:`~reproducer.evaluate.uncertainty.item_replicates`, paired
    across encoders and seeds; 4 significant digits): ``{"spearman", "pairs", "replicates"}``. Of ``config`` only its
    sample matters, as in :func:`similarity_suite`."""
    from reproducer.evaluate.uncertainty import item_replicates

    pairs = CONFIGS[config].sample(pavlick_halves(0)["test"])
    a, b, gold = [p.a for p in pairs], [p.b for p in pairs], [p.score for p in pairs]
    scores = _cosine_scores(encode_unique(encoder, list(dict.fromkeys(a + b)), batch_size), a, b, gold)
    replicates = 100 * item_replicates("spearman", scores["_items"], "PPDB test", resamples)
    return {"spearman": 100 * scores["spearman"], "pairs": len(pairs),
            "replicates": [float(f"{v:.4g}") for v in replicates]}


def _cosine_scores(table: dict, a: list[str], b: list[str], gold) -> dict[str, float]:
    return cosine_correlations(np.stack([table[s] for s in a]), np.stack([table[s] for s in b]),
                               np.asarray(gold, dtype=float))


def similarity_suite(encoder, *, seed: int = 0, batch_size: int = 256, config: str = "paper") -> pd.DataFrame:
    """One row per dataset: ``task, dataset, score`` (× 100), with ``metric`` ``pearson`` or ``spearman``
    (see the module docstring). Every distinct sentence is encoded once. The suite scores cosines only, so of the
    evaluation ``config`` only its sample matters (:meth:`~reproducer.evaluate.tasks.EvalConfig.sample`: ``smoke``
    keeps 400 pairs a dataset; the others, all)."""
    from reproducer.evaluate.length_bins import sts_pairs

    sets: list[tuple[str, str, list, list, list, str]] = []
    for (year, name), group in sts_pairs(YEARS).groupby(["year", "dataset"], sort=False):
        sets.append((year, name, list(group.a), list(group.b), list(group.score), "pearson"))
    sick = load_sick()["test"]
    sets.append(("SICK-R", "test (cosine)", [p.a for p in sick], [p.b for p in sick], [p.relatedness for p in sick],
                 "pearson"))
    twitter = load_twitter_url_graded()
    sets.append(("Twitter", "test (graded)", [p.a for p in twitter], [p.b for p in twitter], [p.label for p in twitter],
                 "pearson"))
    for half, pairs in pavlick_halves(seed).items():
        sets.append(("PPDB", half, [p.a for p in pairs], [p.b for p in pairs], [p.score for p in pairs], "spearman"))
    sample = CONFIGS[config].sample  # fixed by a list's length: a, b and gold of a dataset keep the same pairs
    sets = [(task, name, sample(a), sample(b), sample(gold), metric) for task, name, a, b, gold, metric in sets]
    sentences = list(dict.fromkeys(s for _, _, a, b, _, _ in sets for s in (*a, *b)))
    table = encode_unique(encoder, sentences, batch_size)
    rows = [{"task": task, "dataset": name, "metric": metric, "score": 100 * _cosine_scores(table, a, b, gold)[metric]}
            for task, name, a, b, gold, metric in sets]
    frame = pd.DataFrame(rows)
    averages = frame[frame.task.isin(YEARS)].groupby("task", sort=False).score.mean()
    extra = pd.DataFrame({"task": averages.index, "dataset": "average", "metric": "pearson", "score": averages.values})
    return pd.concat([frame, extra], ignore_index=True)

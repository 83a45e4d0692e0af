"""Intervals and the three outcomes of a claim (reproducer.evaluate.uncertainty)."""
from __future__ import annotations

import numpy as np
import pytest

from reproducer.evaluate.uncertainty import bootstrap_interval, decide, seed_interval


def test_the_bootstrap_interval_of_an_accuracy_has_the_binomial_width():
    correct = np.random.default_rng(0).random(2000) < 0.7
    low, high = bootstrap_interval(np.mean, correct, resamples=1000)
    assert low < correct.mean() < high
    expected = 2 * 1.96 * np.sqrt(0.7 * 0.3 / 2000)  # the normal approximation: 0.040
    assert high - low == pytest.approx(expected, rel=0.15)


def test_a_paired_bootstrap_resamples_items_together():
    rng = np.random.default_rng(1)
    gold = rng.normal(size=500)
    good, noisy = gold + rng.normal(scale=0.3, size=500), gold + rng.normal(scale=1.5, size=500)

    def r_gap(g, a, b):
        return np.corrcoef(g, a)[0, 1] - np.corrcoef(g, b)[0, 1]

    low, high = bootstrap_interval(r_gap, gold, good, noisy, resamples=500)
    assert 0 < low < r_gap(gold, good, noisy) < high  # the better encoder is better beyond the noise
    with pytest.raises(ValueError, match="same length"):
        bootstrap_interval(r_gap, gold, good[:-1], noisy)


def test_the_seed_interval_is_students_t():
    mean, low, high = seed_interval([1.0, 2.0, 3.0])
    assert mean == 2.0 and high - mean == pytest.approx(4.303 * 1.0 / np.sqrt(3), rel=1e-3)  # t(0.975, 2) = 4.303
    with pytest.raises(ValueError, match="two seeds"):
        seed_interval([1.0])


@pytest.mark.parametrize("low, high, threshold, outcome", [
    (0.2, 0.9, 0.0, "reproduced"), (-0.3, 0.4, 0.0, "inconclusive"), (-0.9, -0.1, 0.0, "not reproduced"),
    (4.9, 5.6, 4.8, "reproduced"), (4.1, 4.9, 4.8, "inconclusive"), (3.0, 4.5, 4.8, "not reproduced"),
])
def test_a_claim_is_decided_only_when_its_whole_interval_is_on_one_side(low, high, threshold, outcome):
    assert decide(low, high, threshold) == outcome


def test_an_interval_must_be_ordered():
    with pytest.raises(ValueError, match="low <= high"):
        decide(1.0, 0.0)


# --------------------------------------------------------------------- per-item outcomes and claim judgements
def _results(name, task, items):
    from reproducer.evaluate.harness import Results

    return Results(name, "paper", {task: {}}, items={task: items})


def test_item_scores_reproduce_the_metrics_they_stand_for():
    from scipy.stats import pearsonr, spearmanr

    from reproducer.evaluate.items import correct_items, grouped_items, main_score, scored_items

    rng = np.random.default_rng(0)
    correct = rng.random(300) < 0.8
    assert main_score("acc", correct_items(correct)["_items"]) == pytest.approx(100 * correct.mean())
    pred, gold = rng.normal(size=200), rng.normal(size=200)
    items = scored_items(pred, gold)["_items"]
    assert items["pred"][:2] == [float(f"{p:.4g}") for p in pred[:2]] and items["pred"][0] != pred[0]  # 4 digits kept
    assert main_score("pearson", items) == pytest.approx(pearsonr(pred, gold)[0], abs=1e-5)
    # 4 digits can tie two close predictions: at 200 items a rank correlation moves by up to about 1e-4
    assert main_score("spearman", items) == pytest.approx(spearmanr(pred, gold)[0], abs=5e-4)
    parts = {"a": scored_items(pred[:50], gold[:50])["_items"], "b": scored_items(pred[50:], gold[50:])["_items"]}
    wmean = (50 * pearsonr(pred[:50], gold[:50])[0] + 150 * pearsonr(pred[50:], gold[50:])[0]) / 200
    assert main_score("wmean.pearson", grouped_items(parts)["_items"]) == pytest.approx(wmean, abs=1e-5)


def test_replicates_are_paired_across_encoders():
    from reproducer.evaluate.items import correct_items
    from reproducer.evaluate.uncertainty import task_replicates

    rng = np.random.default_rng(2)
    a = rng.random(1000) < 0.75
    b = a.copy()
    b[:30] = ~b[:30]  # b differs from a on 30 items only
    ra = task_replicates(_results("a", "MR", correct_items(a)["_items"]), "MR", resamples=500)
    rb = task_replicates(_results("b", "MR", correct_items(b)["_items"]), "MR", resamples=500)
    assert ra.shape == (500,) and ra.std() == pytest.approx(100 * np.sqrt(0.75 * 0.25 / 1000), rel=0.2)
    assert (ra - rb).std() < ra.std() / 2  # paired: the shared items cancel in the difference


def test_replicates_need_items():
    from reproducer.errors import ReproducerError
    from reproducer.evaluate.harness import Results
    from reproducer.evaluate.uncertainty import task_replicates

    with pytest.raises(ReproducerError, match="no per-item outcomes on MR"):
        task_replicates(Results("old", "paper", {"MR": {"acc": 70.0}}), "MR")


def test_judge_adds_training_noise_to_evaluation_noise():
    from reproducer.evaluate.uncertainty import judge

    reps = np.random.default_rng(3).normal(1.0, 0.25, size=4000)  # bootstrap interval about 1 ± 0.5
    only_items = judge(1.0, reps)
    assert only_items["outcome"] == "reproduced" and only_items["low"] == pytest.approx(0.5, abs=0.05)
    with_seeds = judge(1.0, reps, seed_values=[0.7, 1.0, 1.3])  # t(2) · 0.3 = 1.29 more: the interval crosses 0
    assert with_seeds["outcome"] == "inconclusive" and with_seeds["seeds"] == 3
    assert with_seeds["low"] == pytest.approx(1.0 - np.hypot(0.49, 4.303 * 0.3), abs=0.05)
    assert judge(-1.0, -reps)["outcome"] == "not reproduced"
    assert judge(3.0, threshold=4.8)["outcome"] == "not reproduced"  # a point without noise is decided by itself
    assert judge(0.5, reps - 0.5, threshold=0.9, at_most=True)["outcome"] == "inconclusive"
    assert judge(0.2, reps * 0.1 + 0.1, threshold=0.9, at_most=True)["outcome"] == "reproduced"


@pytest.mark.parametrize("low, high, threshold, effect, outcome", [
    (0.5, 2.0, 0.0, 1.0, "reproduced"),             # clears the threshold, whatever the paper's effect
    (-2.0, -0.5, 0.0, 1.0, "not reproduced"),       # on the other side
    (-0.5, 1.0, 0.0, 4.8, "smaller than published"),  # contains the threshold, excludes the paper's 4.8
    (-0.5, 5.0, 0.0, 4.8, "inconclusive"),          # contains both
    (-0.5, 1.0, 0.0, None, "inconclusive"),         # no published effect: cannot be smaller than it
    (-0.5, 4.8, 0.0, 4.8, "inconclusive"),          # the effect itself is inside the interval
])
def test_a_magnitude_outcome_when_the_paper_prints_its_effect(low, high, threshold, effect, outcome):
    """Issue 42: an interval that contains the threshold but excludes the paper's own effect size decides the claim
    as *smaller than published* (no effect of the paper's size at our scale)."""
    assert decide(low, high, threshold, effect) == outcome


def test_the_paper_effect_must_be_on_the_claimed_side():
    with pytest.raises(ValueError, match="wrong side"):
        decide(0.0, 1.0, 2.0, effect=1.0)


def test_judge_mirrors_at_most_claims_and_their_effect():
    from reproducer.evaluate.uncertainty import judge

    # "at most 0.5 of the time", the paper's effect 0.2: ours 0.45 [0.40, 0.55] excludes 0.2 and contains 0.5
    j = judge(0.45, np.array([0.40, 0.45, 0.55]), threshold=0.5, at_most=True, effect=0.2)
    assert j["outcome"] == "smaller than published" and j["effect"] == 0.2


def test_the_mean_of_repeats_has_the_half_width_of_a_mean():
    """Issue 42: a value that is the mean of n repeats gets t·s/√n, one run t·s (the book gave the mean of 3 benchmark
    repeats the width of one: √3 too wide)."""
    from scipy import stats

    from reproducer.evaluate.uncertainty import judge

    values = [4.0, 5.0, 6.0]
    one = judge(5.0, seed_values=values, threshold=0.0)
    mean = judge(5.0, seed_values=values, threshold=0.0, averaged=True)
    t = stats.t.ppf(0.975, 2)
    assert one["high"] - 5.0 == pytest.approx(t * 1.0)
    assert mean["high"] - 5.0 == pytest.approx(t * 1.0 / np.sqrt(3))


def test_the_monte_carlo_error_of_a_bootstrap_end_is_the_normal_quantiles():
    """Issue 68: the Monte Carlo standard error of the 2.5% quantile of R normal replicates is
    √(q(1−q)/R) / φ(z_q) ≈ 0.085 at R = 1,000, half that at 4,000."""
    from scipy import stats

    from reproducer.evaluate.uncertainty import quantile_mc_error

    q = 0.025
    for size in (1000, 4000):
        replicates = np.random.default_rng(size).normal(size=size)
        expected = np.sqrt(q * (1 - q) / size) / stats.norm.pdf(stats.norm.ppf(q))
        assert quantile_mc_error(replicates, q) == pytest.approx(expected, rel=0.35)


def test_more_replicates_keep_the_first_thousand():
    from reproducer.evaluate.items import correct_items
    from reproducer.evaluate.uncertainty import item_replicates

    items = correct_items(np.random.default_rng(0).random(300) < 0.6)["_items"]
    first, more = item_replicates("acc", items, "MR", 1000), item_replicates("acc", items, "MR", 2500)
    assert len(more) == 2500 and np.array_equal(more[:1000], first)
    assert not np.array_equal(more[1000:2000], first)  # new draws, not the first ones again


def test_an_interval_end_near_a_boundary_could_flip():
    from reproducer.evaluate.uncertainty import could_flip, judge

    replicates = np.random.default_rng(0).normal(loc=2.0, scale=1.0, size=1000)
    judged = judge(2.0, replicates)  # low ≈ 2 − 1.96: within a few Monte Carlo errors (≈ 0.085) of 0
    assert judged["mc_low"] > 0 and could_flip(judged, 0.0)
    assert not could_flip(judged, -1.0) and not could_flip(judge(5.0, replicates + 3.0), 0.0)
    assert could_flip(judge(5.0, replicates + 3.0), 0.0, effect=3.0)  # the paper's effect is a boundary too
    alone = judge(2.0, seed_values=[1.0, 2.0, 3.0])
    assert alone["mc_low"] == alone["mc_high"] == 0.0 and not could_flip(alone, alone["low"])  # no replicates

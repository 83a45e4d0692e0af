"""Wieting et al.'s similarity suite: datasets, scale, and agreement with the evaluation harness."""
import numpy as np

from reproducer.evaluate.similarity import pavlick_halves, similarity_suite


def test_pavlick_halves_are_disjoint_and_fixed():
    halves = pavlick_halves(0)
    assert len(halves["dev"]) + len(halves["test"]) == len(halves["all"]) == 26456
    assert halves["dev"][:5] == pavlick_halves(0)["dev"][:5] != pavlick_halves(1)["dev"][:5]


def test_suite_covers_the_papers_datasets_and_matches_the_harness():
    from reproducer.encoders.baselines import load_baseline
    from reproducer.evaluate import evaluate

    glove = load_baseline("glove-bow")
    suite = similarity_suite(glove)
    sts = suite[suite.task.str.startswith("STS") & (suite.dataset != "average")]
    assert len(sts) == 19  # the paper's 20 STS datasets without STS13 SMT
    assert set(suite.task) == {"STS12", "STS13", "STS14", "STS15", "SICK-R", "Twitter", "PPDB"}
    assert suite.score.between(-100, 100).all() and np.isfinite(suite.score).all()
    harness = evaluate(glove, ["STS14"], "prototype", progress=False).scores["STS14"]
    row = suite[(suite.task == "STS14") & (suite.dataset == "headlines")].score.item()
    assert abs(row - 100 * harness["headlines.pearson"]) < 1e-6
    mean14 = suite[(suite.task == "STS14") & (suite.dataset == "average")].score.item()
    assert abs(mean14 - 100 * harness["mean.pearson"]) < 1e-6  # the paper's average = the unweighted mean


def test_pavlick_test_score_is_the_suites_test_half_with_paired_replicates():
    """Table 3's score with its replicates (chapter 03's in-domain claims): the suite's PPDB test row, on the half
    split with seed 0 for every training seed, and replicates that resample the same pairs for every encoder."""
    from reproducer.encoders.baselines import load_baseline
    from reproducer.evaluate.similarity import pavlick_test_score

    glove = load_baseline("glove-bow")
    score = pavlick_test_score(glove, config="smoke")
    suite = similarity_suite(glove, config="smoke")
    row = suite[(suite.task == "PPDB") & (suite.dataset == "test")].score.item()
    assert score["pairs"] == 400 and abs(score["spearman"] - row) < 1e-9
    reps = np.asarray(score["replicates"])
    assert reps.shape == (1000,) and abs(np.median(reps) - row) < 3 and reps.std() > 0.5
    assert score["replicates"][0] == float(f"{reps[0]:.4g}")  # 4 significant digits
    again = pavlick_test_score(glove, config="smoke")
    assert again == score  # the same pairs, the same resamples: paired across encoders and seeds

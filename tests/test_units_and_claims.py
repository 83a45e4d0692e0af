"""The building blocks of a chapter's units and claims: per-item outcomes kept through a results file, a chapter's
per-model products cached in its run's folder, the claims judged against their noise (Evidence, check, point_claim,
counts), the training-extent tables, the held-out loss callbacks, a notebook run's siblings at another preset or seed, and the seed presets."""
from __future__ import annotations

import json
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest
import torch

from reproducer.errors import ReproducerError
from reproducer.evaluate.harness import Results
from reproducer.evaluate.items import correct_items, grouped_items, main_score, scored_items


@pytest.fixture()
def results_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    return tmp_path / "results"


# --- per-item outcomes through a results file ------------------------------------------------------------------------

def test_items_survive_a_results_file_and_give_back_the_scores():
    from reproducer.data.loaders import Pair, Sentence
    from reproducer.evaluate import EvalConfig, Task, evaluate
    from reproducer.evaluate import protocols as P

    fast = EvalConfig("test", P.ClassifierConfig(kfold=3, inner_kfold=3, cs=(1.0,), max_iter=200, n_jobs=1),
                      P.RelatednessConfig(epochs_per_round=5, patience=1, max_epochs=20))
    rows = [Sentence(f"this is {w} number {i}", int(w == "good")) for i in range(12) for w in ("good", "bad")]
    rows[0] = Sentence("this is bad number 0", 1)  # one item no encoder gets right
    sentiment = Task("mock-sentiment", lambda: {"all": rows}, lambda d, e, c: P.cv_accuracy(
        e([r.text for r in d["all"]]), np.array([r.label for r in d["all"]]), c.classifier),
        "acc", "classification", "mock", "-")
    pairs = [Pair("a cat", "a cat", 5.0), Pair("a dog", "a cat", 1.0), Pair("good dog", "bad cat", 0.0),
             Pair("good dog", "good dog", 4.0)]
    similarity = Task("mock-sts", lambda: pairs, lambda d, e, c: P.cosine_correlations(
        e([p.a for p in d]), e([p.b for p in d]), np.array([p.label for p in d])), "pearson", "similarity", "mock", "-")

    class Keywords:
        name = "keywords"

        def encode(self, sentences, batch_size=128, show_progress_bar=False):
            return np.array([[float(k in s.split()) for k in ("good", "bad", "cat", "dog", "a")] for s in sentences])

    res = evaluate(Keywords(), [sentiment, similarity], fast, progress=False)
    assert "_items" not in res.scores["mock-sentiment"] and set(res.items) == {"mock-sentiment", "mock-sts"}
    back = Results.from_json(json.loads(json.dumps(res.to_json())))
    assert back.items == res.items and back.scores == res.scores
    assert res.dim == 5 and back.dim == 5  # the vector size is recorded (chapter 06's one table)
    correct = back.items["mock-sentiment"]["correct"]
    assert len(correct) == len(rows) and correct[0] == "0"  # every item once, in the task's order
    assert main_score("acc", back.items["mock-sentiment"]) == pytest.approx(res.scores["mock-sentiment"]["acc"], abs=2)
    assert main_score("pearson", back.items["mock-sts"]) == pytest.approx(res.scores["mock-sts"]["pearson"], abs=1e-5)
    old = {k: v for k, v in res.to_json().items() if k != "items"}  # a file stored before items were kept
    assert Results.from_json(old).items == {}


# --- a chapter's per-model products ----------------------------------------------------------------------------------

class CountingEncoder:
    """Bag of words over a fixed word list; counts its encode calls."""

    def __init__(self, words, name="A"):
        self.words, self.name, self.calls = sorted(words), name, 0

    def encode(self, sentences, batch_size=256, show_progress_bar=False):
        self.calls += 1
        return np.array([[s.split().count(w) + 0.01 * i for i, w in enumerate(self.words)] for s in sentences])


Analogy = namedtuple("Analogy", "section a b c d")
SENTENCES = ["then he went home .", "then she went home .", "the king went home .", "the queen went home ."]
POOL = ["he went home .", "she went away .", "the king sat .", "the queen sat .", "a dog ran ."]
QUERIES = ["she went home .", "the king went away ."]


def _products(encoders, tasks=("MR",)):
    """A chapter's :class:`ModelProducts` in the smoke run of notebook ``nb``; ``encoders`` records which encoders
    were asked for (a product that is cached asks for none)."""
    from reproducer.results_store import NotebookRun
    from reproducer.report.units import ModelProducts

    def encoder(name):
        encoders.append(name)
        return CountingEncoder({w for s in SENTENCES + POOL for w in s.split()}, name)

    return ModelProducts(NotebookRun("nb", "smoke"), encoder, tasks=list(tasks), eval_config="prototype",
                         pool_size=len(POOL), n_queries=len(QUERIES), k=2)


@pytest.fixture()
def fakes(results_dir, monkeypatch):
    """The evaluation, the held-out pool and the analogy questions faked; returns their call counts."""
    import reproducer.data.loaders
    import reproducer.evaluate
    import reproducer.report.explorer

    calls = {"evaluate": [], "pool": 0}

    def evaluate(encoder, tasks, config, progress):
        calls["evaluate"].append((encoder.name, list(tasks), config))
        correct = np.arange(10) < 7
        return Results(encoder.name, config, {"MR": {"acc": 70.0}}, items={"MR": correct_items(correct)["_items"]})

    def held_out_pool(size, queries, *, config=None, seed=0):
        calls["pool"] += 1
        assert (size, queries) == (len(POOL), len(QUERIES))
        return POOL, QUERIES

    monkeypatch.setattr(reproducer.evaluate, "evaluate", evaluate)
    monkeypatch.setattr(reproducer.report.explorer, "held_out_pool", held_out_pool)
    monkeypatch.setattr(reproducer.data.loaders, "load_google_analogy",
                        lambda: [Analogy("gender", "he", "she", "king", "queen")])
    return calls


def test_an_evaluation_is_computed_once_then_read_from_the_run_folder(fakes, results_dir):
    asked = []
    first = _products(asked).evaluation("A")
    assert asked == ["A"] and fakes["evaluate"] == [("A", ["MR"], "prototype")]
    assert (results_dir / "nb" / "smoke" / "eval_A.json").is_file()
    assert first.items["MR"]["correct"] == "1111111000"
    again = _products(asked).evaluation("A")  # a new kernel: the stored file, with its items
    assert asked == ["A"] and len(fakes["evaluate"]) == 1
    assert again.items == first.items and again.scores == first.scores
    _products(asked).evaluation("A", ["MR", "CR"], key="eval_A_more")  # another key: evaluated again
    assert fakes["evaluate"][-1] == ("A", ["MR", "CR"], "prototype") and asked == ["A", "A"]


def test_neighbours_are_searched_once_then_read_from_the_run_folder(fakes, results_dir):
    asked = []
    frame = _products(asked).neighbours("A")
    assert asked == ["A"] and len(frame) == len(QUERIES) * 2
    assert frame.columns.tolist() == ["query", "encoder", "rank", "neighbour", "cosine"]
    assert set(frame.neighbour) <= set(POOL) and set(frame["query"]) == set(QUERIES)
    products = _products(asked)
    pd.testing.assert_frame_equal(products.neighbours("A"), frame)
    assert asked == ["A"]  # no encoder for a cached table
    both = products.neighbour_table(["A", "B"])
    assert asked == ["A", "B"] and both.encoder.tolist() == ["A"] * 4 + ["B"] * 4


def test_a_cached_neighbour_table_needs_no_held_out_pool(fakes, results_dir):
    _products([]).neighbours("A")
    _products([]).neighbours("A")
    assert fakes["pool"] == 1


def test_analogy_answers_are_computed_once_then_read_from_the_run_folder(fakes, results_dir):
    asked, read = [], []

    def sentences():
        read.append(1)
        return SENTENCES

    answers = _products(asked).analogy("A", sentences)
    assert asked == ["A"] and len(read) == 1
    assert answers["accuracy"] == 1.0 and answers["hits"] == "1" and answers["answers"] == [SENTENCES[3]]
    products = _products(asked)
    assert products.analogy("A", sentences) == answers and asked == ["A"] and len(read) == 1  # nothing recomputed
    study = products.analogy_table(["A", "B"], sentences)
    assert study["pairs"] == 2 and len(study["questions"]) == 1 and study["A"] == answers and asked == ["A", "B"]


def test_no_analogy_question_builds_no_encoder(fakes, results_dir):
    asked = []
    products = _products(asked)
    assert products.analogy("A", lambda: SENTENCES[:2]) is None and not asked
    assert products.analogy_table(["A"], lambda: SENTENCES[:2]) == {"pairs": 1, "questions": [], "seed": 0}
    assert not asked


def test_answer_marks_each_question_hit_or_missed():
    from reproducer.report.analogies import answer

    study = {"questions": [{"category": "gender", "a": SENTENCES[0], "b": SENTENCES[1], "c": SENTENCES[2],
                            "d": SENTENCES[3]},
                           {"category": "gender", "a": SENTENCES[0], "b": SENTENCES[1], "c": SENTENCES[2],
                            "d": POOL[-1]}]}  # a wrong "answer": the encoder retrieves the queen sentence again
    out = answer(CountingEncoder({w for s in SENTENCES + POOL for w in s.split()}), study)
    assert out["answers"] == [SENTENCES[3], SENTENCES[3]]
    assert out["hits"] == "10" and out["accuracy"] == 0.5  # hits: per question, in the questions' order


# --- Evidence: scores in points, paired replicates -------------------------------------------------------------------

def _results(name, correct=None, pred_noise=None, sts_noise=None, seed=0):
    """Results with per-item outcomes on MR (``correct``), SICK-R and STS14 (predictions = gold + noise)."""
    rng = np.random.default_rng(seed)
    gold = np.random.default_rng(99).normal(size=200)
    items = {}
    if correct is not None:
        items["MR"] = correct_items(correct)["_items"]
    if pred_noise is not None:
        items["SICK-R"] = scored_items(gold + rng.normal(scale=pred_noise, size=200), gold)["_items"]
    if sts_noise is not None:
        items["STS14"] = grouped_items({g: scored_items(gold + rng.normal(scale=sts_noise, size=200), gold)["_items"]
                                        for g in ("news", "forum")})["_items"]
    metric = {"MR": "acc", "SICK-R": "pearson", "STS14": "wmean.pearson"}
    return Results(name, "paper", {t: {metric[t]: main_score(metric[t], i)} for t, i in items.items()}, items=items)


def test_evidence_scores_are_points_and_their_replicates_pair_up():
    from reproducer.report.claims import RESAMPLES, Evidence

    a_correct = np.arange(400) < 300
    b_correct = a_correct.copy()
    b_correct[:20] = False  # b misses 20 items a gets right, and nothing else differs
    ev = Evidence({"A": _results("A", a_correct, pred_noise=0.5, sts_noise=0.5), "B": _results("B", b_correct)},
                  {"A": {"hits": "1100"}, "B": {"hits": "1100"}})
    assert ev.score("A", "MR") == 75.0 and ev.score("B", "MR") == 70.0  # accuracy as it is
    r = ev.results["A"].main_scores()
    assert ev.score("A", "SICK-R") == pytest.approx(100 * r["SICK-R"]) and 80 < ev.score("A", "SICK-R") < 95
    assert ev.score("A", "STS14") == pytest.approx(100 * r["STS14"])  # correlations × 100
    assert ev.mean("A", ["MR", "SICK-R"]) == pytest.approx((75.0 + 100 * r["SICK-R"]) / 2)
    reps_a, reps_b = ev.score("A", "MR", True), ev.score("B", "MR", True)
    assert reps_a.shape == (RESAMPLES,) and abs(reps_a.mean() - 75.0) < 1
    assert 1.5 < reps_a.std() < 3  # about the binomial sd of 75% of 400 items: 2.2 points
    gap = reps_a - reps_b  # paired: the same resampled items, so only the 20 differing items move the gap
    assert abs(gap.mean() - 5.0) < 0.5 and gap.std() < reps_a.std() / 2
    assert 100 * ev.results["A"].main_scores()["SICK-R"] == pytest.approx(ev.score("A", "SICK-R"))
    assert ev.score("A", "SICK-R", True).shape == (RESAMPLES,)
    assert ev.score("A", "analogy") == 50.0
    assert (ev.score("A", "analogy", True) == ev.score("B", "analogy", True)).all()  # the same questions resampled
    assert ev.score("A", "MR", True) is reps_a  # computed once
    with pytest.raises(ReproducerError, match="No results of C"):
        ev.score("C", "MR")


# --- check: the three outcomes, and the training seeds' spread --------------------------------------------------------

def _gap_claim(threshold=0.0, at_most=False):
    from reproducer.report.claims import Claim

    return Claim("A beats B on MR", lambda ev, r: ev.score("A", "MR", r) - ev.score("B", "MR", r),
                 threshold=threshold, at_most=at_most, paper="A > B",
                 numbers=lambda ev: f"A {ev.score('A', 'MR'):.1f}, B {ev.score('B', 'MR'):.1f}")


def _pair(a, b, seed=0):
    from reproducer.report.claims import Evidence

    return Evidence({"A": _results("A", a), "B": _results("B", b)}, seed=seed)


def _shifted(count, first=0, n=400):
    return np.isin(np.arange(n), (first + np.arange(count)) % n)


def test_check_reproduced_not_reproduced_and_inconclusive():
    from reproducer.report.claims import check

    evidence = {"clearly above": _pair(_shifted(320), _shifted(240)),  # +20 points on 400 items
                "clearly below": _pair(_shifted(240), _shifted(320)),
                "within noise": _pair(_shifted(280), _shifted(280, first=100))}  # equal, on other items
    rows = {name: check([_gap_claim()], ev).iloc[0] for name, ev in evidence.items()}
    assert {n: r.outcome for n, r in rows.items()} == {"clearly above": "reproduced", "clearly below": "not reproduced",
                                                       "within noise": "inconclusive"}
    above = rows["clearly above"]
    assert above.value == pytest.approx(20.0) and 0 < above.low < 20 < above.high
    assert above.ours == f"+20.00 [{above.low:+.2f}, {above.high:+.2f}]" and above.threshold == "≥ 0"
    assert above.numbers == "A 80.0, B 60.0" and above.paper == "A > B" and above.noise == "test items (bootstrap)"
    assert rows["within noise"].value == 0.0 and rows["within noise"].low < 0 < rows["within noise"].high
    at_most = check([_gap_claim(threshold=25.0, at_most=True)], evidence["clearly above"]).iloc[0]
    assert at_most.outcome == "reproduced" and at_most.threshold == "≤ 25"  # +20 is below 25 beyond the noise


def test_check_adds_the_seeds_spread_to_the_test_items_noise():
    from reproducer.report.claims import check

    main = _pair(_shifted(320), _shifted(240))
    alone = check([_gap_claim()], main).iloc[0]
    steady = [_pair(_shifted(320 + d), _shifted(240), seed=s) for s, d in enumerate((-4, 0, 4))]  # gaps 19, 20, 21
    spread = [_pair(_shifted(240 + d), _shifted(240), seed=s) for s, d in enumerate((-60, 0, 80))]  # -15, 0, +20
    with_steady = check([_gap_claim()], main, seeds=steady).iloc[0]
    with_spread = check([_gap_claim()], main, seeds=spread).iloc[0]
    assert with_steady.noise == "test items (bootstrap) + the mean of 3 training seeds"
    assert with_steady.outcome == "reproduced" and with_steady.low < alone.low and with_steady.high > alone.high
    # issue 43: the quantity is the seeds' mean, its training noise t(2) · s / √3 (not t · s, one run's)
    assert with_spread.value == pytest.approx(5 / 3)  # (-15 + 0 + 20) / 3, not the main run's +20
    half = with_spread.value - with_spread.low  # t(2) × sd(-15, 0, 20) / √3 = 4.30 × 17.6 / 1.73 = 43.6, and the items'
    assert with_spread.outcome == "inconclusive" and 43 < half < 48
    assert with_spread.numbers == "A 61.7, B 60.0"  # the numbers of the seeds' mean (SeedMean)
    one_seed = check([_gap_claim()], main, seeds=spread[:1]).iloc[0]  # one seed has no spread: the main run alone
    assert one_seed.noise == "test items (bootstrap)" and one_seed.low == alone.low and one_seed.value == alone.value
    budget = check([_gap_claim()], main, seeds=steady, budget="default").iloc[0]  # the seeds' preset is named
    assert budget.noise == "test items (bootstrap) + the mean of 3 training seeds at `default`"
    assert budget.low == with_steady.low


def test_twin_claims_compare_each_model_with_its_own_untrained_twin_seed_by_seed():
    """Issue 44: training beats the same encoder untrained, on the transfer mean and on STS; each seed's evidence
    holds that seed's twin, so the seeds' spread holds the draw of the initial weights too."""
    from reproducer.report.claims import BOOK, Evidence, check, twin_claims, untrained

    def seed(s, trained_hits, twin_hits):
        return Evidence({"A": _results("A", _shifted(trained_hits), pred_noise=0.3, sts_noise=0.3, seed=s),
                         untrained("A"): _results(untrained("A"), _shifted(twin_hits), pred_noise=1.5, sts_noise=1.5,
                                                  seed=s)}, seed=s)

    claims = twin_claims(["A"], ["MR", "SICK-R"], ["STS14"])
    assert [c.claim for c in claims] == [
        "Training A beats the same encoder untrained on the transfer mean (MR, SICK-R)",
        "Training A beats the same encoder untrained on STS (STS14)"]
    seeds = [seed(s, 320 + d, 240) for s, d in enumerate((-4, 0, 4))]
    rows = check(claims, seeds[0], seeds, budget="default")
    assert list(rows["outcome"]) == ["reproduced", "reproduced"] and (rows["source"] == BOOK).all()
    transfer = np.mean([ev.mean("A", ["MR", "SICK-R"]) - ev.mean(untrained("A"), ["MR", "SICK-R"]) for ev in seeds])
    assert rows["value"].iloc[0] == pytest.approx(transfer) and rows["value"].iloc[0] > 20
    assert rows["numbers"].iloc[1].startswith("trained ") and "untrained" in rows["numbers"].iloc[1]
    assert rows["noise"].iloc[0] == "test items (bootstrap) + the mean of 3 training seeds at `default`"
    worse = check(twin_claims(["A"], ["MR"]), seed(0, 240, 320)).iloc[0]  # no STS: one claim; the twin wins
    assert worse.outcome == "not reproduced" and len(twin_claims(["A", "B"], ["MR"])) == 2
    assert check([_gap_claim()], _pair(_shifted(320), _shifted(240)))["source"].iloc[0] == "paper"
    # a twin given good word vectors (the learned-embedding models) is named as untrained_twin names it
    assert untrained("A", "word2vec-300d") == "A (untrained, word2vec-300d)"
    (good,) = twin_claims(["A"], ["MR"], vectors="word2vec-300d")
    assert good.claim == "Training A beats the same encoder untrained with word2vec-300d as its word embeddings on " \
        "the transfer mean (MR)"
    ev = Evidence({"A": _results("A", _shifted(300)), "A (untrained, word2vec-300d)": _results("w", _shifted(290))})
    assert good.quantity(ev, False) == pytest.approx(2.5)


def test_the_seeds_mean_is_bootstrapped_on_the_same_items_for_every_seed():
    """The replicate of the seeds' mean averages the seeds' replicates of one resampled test set: with identical
    seeds, the mean's interval is one seed's (no training noise, no extra item noise)."""
    from reproducer.report.claims import Evidence, SeedMean, check

    main = _pair(_shifted(320), _shifted(240))
    same = [_pair(_shifted(320), _shifted(240), seed=s) for s in range(3)]
    alone, pooled = check([_gap_claim()], main).iloc[0], check([_gap_claim()], main, seeds=same).iloc[0]
    assert pooled.value == alone.value and pooled.low == pytest.approx(alone.low) and pooled.high == pytest.approx(
        alone.high)
    mean = SeedMean(same[:2] + [_pair(_shifted(300), _shifted(240))])
    assert mean.score("A", "MR") == pytest.approx((80 + 80 + 75) / 3) and mean.mean("B", ["MR"]) == 60.0
    replicates = mean.score("A", "MR", True)
    assert replicates.shape == (1000,) and np.allclose(
        replicates, np.mean([e.score("A", "MR", True) for e in mean.seeds], axis=0))
    with pytest.raises(ReproducerError, match="at least one"):
        SeedMean([])
    assert isinstance(main, Evidence)


def test_point_claims_name_the_seeds_budget():
    from reproducer.report.claims import point_claim

    row = point_claim("x", 1.0, 0.0, seed_values=[1.0, 1.1, 0.9], spread="training seeds", budget="default")
    assert row["noise"] == "3 training seeds at `default`"
    mean = point_claim("x", 1.0, 0.0, seed_values=[1.0, 1.1, 0.9], averaged=True)
    assert mean["noise"] == "the mean of 3 repeats"


# --- point_claim and counts ------------------------------------------------------------------------------------------

def test_point_claim_with_and_without_repeats():
    from reproducer.report.claims import point_claim

    alone = point_claim("QT is faster", 5.0, 4.8, paper="4.8×", numbers="one run", unit="{:.1f}×")
    assert alone["outcome"] == "reproduced" and alone["low"] == alone["high"] == 5.0
    assert alone["ours"] == "5.0× [5.0×, 5.0×]" and alone["noise"] == "none measured" and alone["threshold"] == "≥ 4.8×"
    assert point_claim("x", 4.0, 4.8)["outcome"] == "not reproduced"
    repeated = point_claim("QT is faster", 5.0, 4.8, seed_values=[4.0, 5.0, 6.0])
    assert repeated["outcome"] == "inconclusive" and repeated["noise"] == "3 repeats"
    assert repeated["high"] - repeated["value"] == pytest.approx(4.303 * 1.0, rel=1e-3)  # t(0.975, 2) × sd 1
    assert point_claim("x", 9.0, 4.8, seed_values=[8.9, 9.0, 9.1])["outcome"] == "reproduced"
    assert point_claim("x", 2.0, 4.8, at_most=True)["outcome"] == "reproduced"
    for missing in (None, float("nan")):
        row = point_claim("x", missing, 4.8, paper="4.8×", numbers="not measured")
        assert row["outcome"] == "not checked" and row["ours"] == "" and np.isnan(row["value"])
        assert row["paper"] == "4.8×" and row["numbers"] == "not measured"


def test_counts_counts_each_outcome_and_the_decided_ones():
    from reproducer.report.claims import claim_table, counts, point_claim

    claims = pd.DataFrame([point_claim("a", 5.0, 1.0), point_claim("b", 0.0, 1.0), point_claim("c", None, 1.0),
                           point_claim("d", 1.0, 1.0, seed_values=[0.0, 2.0]), point_claim("e", 3.0, 1.0)])
    assert counts(claims) == {"reproduced": 2, "not reproduced": 1, "smaller than published": 0, "inconclusive": 1,
                              "not checked": 1, "decided": 3, "claims": 5}
    smaller = pd.DataFrame([point_claim("f", 1.5, 1.0, seed_values=[1.0, 2.0], effect=20.0)])
    assert counts(smaller)["smaller than published"] == 1 and counts(smaller)["decided"] == 1
    claim_table(claims)  # every outcome point_claim gives is one the table shows


# --- how far each model trained --------------------------------------------------------------------------------------

def test_held_out_change_over_the_last_third():
    from reproducer.report.tables import held_out_change

    evals = [{"seconds": s, "held-out loss": v} for s, v in ((0, 10.0), (50, 5.0), (100, 4.5), (150, 4.0))]
    assert held_out_change(evals) == pytest.approx(100 * (4.0 - 4.5) / 4.5)  # from 100 s (the last third's start)
    assert held_out_change(evals, tail=0.6) == pytest.approx(-20.0)  # from 50 s, the nearest to 60 s
    assert held_out_change(evals, tail=1.0) == pytest.approx(-60.0)  # from the first record
    assert held_out_change(evals + [{"seconds": 160, "MR": 60.0}]) == pytest.approx(-11.1, abs=0.05)  # records
    # without the key are skipped (the last third of the *held-out* records' seconds)
    rising = [{"seconds": 0, "loss": 2.0}, {"seconds": 30, "loss": 2.5}]
    assert held_out_change(rising, key="loss") == pytest.approx(25.0)
    assert np.isnan(held_out_change(evals[:1])) and np.isnan(held_out_change([]))


def test_training_extent_gives_epochs_and_the_held_out_curve():
    from reproducer.report.tables import training_extent

    evals = [{"seconds": s, "held-out loss": v} for s, v in ((0, 10.0), (50, 5.0), (100, 4.5), (150, 4.0))]
    records = {"uni-QT": {"step": 300, "seconds": 150.0, "examples": 120_000, "evals": evals},
               "MC-QT": {"step": 100, "seconds": 50.0, "examples": 40_000}}
    table = training_extent(records, corpus_sentences=240_000)
    assert table.index.tolist() == ["uni-QT", "MC-QT"]
    assert table.columns.tolist() == ["steps", "training seconds", "sentences / second", "sentences seen", "epochs",
                                      "held-out loss (first)", "held-out loss (last)",
                                      "held-out change, last third (%)"]
    uni = table.loc["uni-QT"]
    assert (uni["steps"], uni["sentences / second"], uni["epochs"]) == (300, 800.0, 0.5)
    assert (uni["held-out loss (first)"], uni["held-out loss (last)"]) == (10.0, 4.0)
    assert uni["held-out change, last third (%)"] == pytest.approx(100 * (4.0 - 4.5) / 4.5)
    mc = table.loc["MC-QT"]
    assert mc["epochs"] == pytest.approx(1 / 6) and mc[["held-out loss (first)", "held-out loss (last)",
                                                         "held-out change, last third (%)"]].isna().all()
    assert training_extent(records, None)["epochs"].isna().all()


# --- held-out loss callbacks -----------------------------------------------------------------------------------------

class Scale(torch.nn.Module):
    """A "loss" of a batch: its mean times a weight (2)."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.tensor(2.0))
        self.seen = []

    def forward(self, batch):
        self.seen.append(batch)
        return self.weight * torch.as_tensor(batch, dtype=torch.float32).mean()


def test_held_out_loss_averages_the_objective_over_fixed_batches():
    from reproducer.evaluate.training_curve import held_out_loss
    from reproducer.runtime import inference

    module = Scale()
    fitted = namedtuple("Fitted", "module")(module)
    batches = [torch.tensor([1.0, 3.0]), torch.tensor([5.0]), [2.0, 2.0]]  # the last has no .to(): passed as is
    callback = held_out_loss(batches)
    with inference(module):  # as the trainer calls it: evaluation mode, no gradients
        assert callback(fitted, 10) == {"held-out loss": pytest.approx((4.0 + 10.0 + 4.0) / 3)}
    assert module.seen[-1] == [2.0, 2.0]
    with torch.no_grad():
        module.weight.fill_(1.0)
    with inference(module):
        assert callback(fitted, 20) == {"held-out loss": pytest.approx(3.0)}  # the same batches, current weights
    with pytest.raises(ReproducerError, match="at least one held-out batch"):
        held_out_loss([])


def test_combined_merges_the_scores_of_every_callback():
    from reproducer.evaluate.training_curve import combined

    seen = []

    def curve(fitted, step):
        seen.append(("curve", fitted, step))
        return {"MR": 60.0}

    def held(fitted, step):
        seen.append(("held", fitted, step))
        return {"held-out loss": 3.0}

    assert combined(curve, None, held)("f", 5) == {"MR": 60.0, "held-out loss": 3.0}
    assert seen == [("curve", "f", 5), ("held", "f", 5)]
    assert combined(None)("f", 5) == {}


def test_quick_thought_held_out_batches_come_from_the_held_out_books(books, monkeypatch):
    import reproducer.data.corpus
    from reproducer.data.training_corpus import word_ids
    from reproducer.evaluate.training_curve import held_out_loss
    from reproducer.papers.registry import family
    from reproducer.papers.quick_thoughts.objective import build_quick_thought
    from reproducer.papers.registry import preset
    from reproducer.runtime import inference

    train, valid = books(sizes=(7, 5, 9)), books(sizes=(6, 6))
    valid.sentences = [s.replace("w", "v", 1) for s in valid.sentences]  # words the training vocabulary lacks
    loaded = []

    def load_corpus(split, config, progress=True):
        loaded.append((split, config.max_books))
        return valid

    monkeypatch.setattr(reproducer.data.corpus, "load_corpus", load_corpus)
    data = word_ids(train, None)
    settings = preset("quick-thought", "smoke", batch_size=4)
    batches = family("quick-thought").held_out_batches("uni-QT", settings, data, n=5)
    assert loaded == [("valid", settings.max_books)] and len(batches) == 5
    assert all(len(b.positions) == 4 and int(b.positions.max()) < len(valid.sentences) for b in batches)
    assert [b.ids.tolist() for b in batches] == [b.ids.tolist()
                                                 for b in family("quick-thought").held_out_batches(
                                                     "uni-QT", settings, data, n=5)]  # fixed batches
    assert (batches[0].ids == data.vocab.unk_id).any()  # ids of the training vocabulary
    torch.manual_seed(0)
    module = build_quick_thought("uni-QT", settings, len(data.vocab))
    with inference(module):
        loss = held_out_loss(batches)(namedtuple("Fitted", "module")(module), 0)["held-out loss"]
    assert np.isfinite(loss) and loss > 0
    with pytest.raises(ReproducerError, match="MC-QT has no held-out loss"):
        family("quick-thought").held_out_batches("MC-QT", settings, data)
    with pytest.raises(ReproducerError, match="paraphrastic family has no held-out books"):
        family("paraphrastic").held_out_batches("word-average", None, None)


# --- a notebook run's siblings and the seed presets -----------------------------------------------------------------

PARAMETERS = '''preset: str = "default"  # smoke | quick | default | paper
seed: int = 0  # the seed
retrain: bool = False  # recompute everything
seeds: int = 3  # training seeds of the claims
pool_size: int = 20000  # held-out sentences
'''


@pytest.fixture()
def nb(tmp_path):
    """Start notebook ``nb`` (:data:`PARAMETERS`) with ``values`` over its defaults, as papermill does."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from reproducer.notebook import start

    path = tmp_path / "nb.ipynb"
    notebook = new_notebook(cells=[new_code_cell(PARAMETERS), new_code_cell('run = start("nb", globals())')])
    notebook.cells[0].metadata["tags"] = ["parameters", "hide-input"]
    nbformat.write(notebook, path)
    defaults = {"preset": "default", "seed": 0, "retrain": False, "seeds": 3, "pool_size": 20000}
    return lambda **values: start("nb", {**defaults, **values}, path=path)


def test_a_sibling_is_the_run_those_parameters_give(results_dir, nb):
    book = nb()
    quick = book.sibling("quick")
    assert quick.dir == results_dir / "nb" / "quick" and not (quick.dir / "parameters.json").exists()
    one = book.sibling("quick", 1)
    assert one.dir == results_dir / "nb" / "quick+seed=1" and (one.preset, one.seed) == ("quick", 1)
    assert json.loads((one.dir / "parameters.json").read_text()) == {"seed": 1}
    started = nb(preset="quick", seed=1)
    assert one.dir == started.dir and one.key == started.key
    settings = {"lr": 0.001, "seed": 1}
    one.settings(settings), started.settings(settings)
    assert one.key == started.key  # so a result one stores is reused by the executed notebook, and back
    one.json("metrics", lambda: {"score": 0.5})
    assert started.reusable("metrics.json")
    assert one.sibling(seed=0).dir == results_dir / "nb" / "quick"  # back to seed 0: no label
    assert book.sibling().dir == book.dir and book.sibling().key == book.key


def test_a_sibling_keeps_the_other_changed_parameters(results_dir, nb):
    run = nb(seed=2, pool_size=500)
    sib = run.sibling("quick", 1)
    assert sib.dir.name == "quick+pool_size=500,seed=1"
    assert json.loads((sib.dir / "parameters.json").read_text()) == {"pool_size": 500, "seed": 1}
    assert sib.key == nb(preset="quick", seed=1, pool_size=500).key
    assert run.sibling("paper").seed == 2 and run.sibling("paper").dir.name == "paper+pool_size=500,seed=2"
    with pytest.raises(ReproducerError, match="Unknown preset 'huge'"):
        run.sibling("huge")


def test_a_sibling_resets_what_does_not_apply_at_its_preset(results_dir, nb):
    run = nb(pool_size=500, seed=0)
    sib = run.sibling("quick", 1, reset=("pool_size",))  # e.g. a budget given for the default preset
    assert sib.dir.name == "quick+seed=1" and sib.parameters["pool_size"] == 20000
    assert sib.key == nb(preset="quick", seed=1).key


def test_the_claims_seeds_train_at_the_preset_of_the_run_they_are_about():
    """Issue 43: no preset borrows another's seeds (``default`` took its training noise from ``quick``)."""
    import reproducer.presets as presets

    assert not hasattr(presets, "SEED_PRESETS")


def test_quick_thought_seeds_train_at_the_runs_preset_in_sibling_runs(results_dir, nb):
    from reproducer.papers.registry import preset
    from reproducer.papers.quick_thoughts.chapter import QuickThoughtModels

    book = nb()
    models = QuickThoughtModels(book, preset("quick-thought", "default"), ["MR"], tasks=["MR", "CR"], seed=0,
                                progress=False, pool_size=100, n_queries=2)
    seeds = models.seeds(3)
    assert seeds[0] is models  # the main run is seed 0 of the claims' seeds, at its own preset (issue 43)
    assert [m.run.dir.name for m in seeds] == ["default", "default+seed=1", "default+seed=2"]
    assert [(m.seed, m.run.seed, m.settings.name) for m in seeds] == [(s, s, "default") for s in range(3)]
    assert all(m.tasks == ["MR", "CR"] and m.curve_tasks == ["MR"] and m.pool_size == 100 for m in seeds)
    declared = json.loads((seeds[1].run.dir / "settings.json").read_text())
    assert declared["seed"] == 1 and declared["quick_thought"]["name"] == "default"
    # the notebook executed at that preset and seed declares the same settings: its results are these
    started = nb(preset="default", seed=1)
    QuickThoughtModels(started, preset("quick-thought", "default"), ["MR"], tasks=["MR", "CR"], seed=1,
                       progress=False, pool_size=100, n_queries=2).declare()
    assert started.key == seeds[1].run.key
    own = QuickThoughtModels(nb(preset="quick"), preset("quick-thought", "quick"), ["MR"], tasks=["MR", "CR"])
    assert own.seeds(2)[0] is own  # at the seed preset, seed 0 is these models

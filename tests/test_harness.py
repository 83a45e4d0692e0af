"""The harness on tiny mock tasks with known answers, and one real task end to end."""
from __future__ import annotations

import json

import numpy as np
import pytest

from reproducer.__main__ import main as cli
from reproducer.data.loaders import Pair, Sentence
from reproducer.evaluate import CONFIGS, EvalConfig, Results, Task, encode_unique, evaluate, sentences_of
from reproducer.evaluate import protocols as P
from reproducer.errors import ReproducerError

FAST = EvalConfig("test", P.ClassifierConfig(kfold=3, inner_kfold=3, cs=(1.0,), max_iter=200, n_jobs=1),
                  P.RelatednessConfig(epochs_per_round=5, patience=1, max_epochs=20))


class KeywordEncoder:
    """Feature i = whether keyword i occurs: makes the mock tasks perfectly separable."""

    name = "keywords"

    def __init__(self, keywords=("good", "bad", "cat", "dog")):
        self.keywords = keywords
        self.calls: list[list[str]] = []

    def encode(self, sentences, batch_size=128, show_progress_bar=False):
        self.calls.append(list(sentences))
        return np.array([[float(k in s.split()) for k in self.keywords] for s in sentences])


def sentiment_task():
    rows = [Sentence(f"this is {w} number {i}", int(w == "good")) for i in range(30) for w in ("good", "bad")]
    return Task("mock-sentiment", lambda: {"all": rows}, lambda d, e, c: P.cv_accuracy(
        e([r.text for r in d["all"]]), np.array([r.label for r in d["all"]]), c.classifier),
        "acc", "classification", "mock", "-")


def similarity_task():
    pairs = [Pair("a cat", "a cat", 5.0), Pair("a dog", "a dog", 5.0), Pair("a cat", "a dog", 0.0),
             Pair("good cat", "bad dog", 0.0), Pair("good dog", "good dog", 5.0)]

    def run(data, embed, config):
        return P.cosine_correlations(embed([p.a for p in data]), embed([p.b for p in data]),
                                     np.array([p.label for p in data]))
    return Task("mock-sts", lambda: pairs, run, "pearson", "similarity", "mock", "-")


def test_mock_tasks_have_known_answers():
    enc = KeywordEncoder()
    res = evaluate(enc, [sentiment_task(), similarity_task()], FAST, progress=False)
    assert res.scores["mock-sentiment"]["acc"] == 100.0
    assert res.scores["mock-sts"]["pearson"] == pytest.approx(1.0)  # identical sentences: cosine 1
    frame = res.to_frame()
    assert set(frame.columns) == {"encoder", "config", "task", "metric", "value"}
    assert res.main_scores()["mock-sentiment"] == 100.0
    assert set(res.seconds) == {"mock-sentiment", "mock-sts"}
    assert Results.from_json(json.loads(json.dumps(res.to_json()))).scores == res.scores


def test_each_unique_sentence_is_encoded_once_sorted_by_length():
    enc = KeywordEncoder()
    evaluate(enc, [similarity_task()], FAST, progress=False)
    [call] = enc.calls
    assert len(call) == len(set(call)) == 5
    assert [len(s.split()) for s in call] == sorted(len(s.split()) for s in call)


def test_sentences_of_walks_records():
    data = {"train": [Pair("x y", "z", 1)], "test": [Sentence("x y", 0), Sentence("w", 1)]}
    assert sentences_of(data) == ["x y", "z", "w"]


def test_bad_encoders_are_reported():
    class Wrong:
        name = "wrong"

        def encode(self, sentences, batch_size=128, show_progress_bar=False):
            return np.zeros((len(sentences) + 1, 3))

    with pytest.raises(ReproducerError, match="returned shape"):
        encode_unique(Wrong(), ["a", "b"])

    class NaNs(Wrong):
        def encode(self, sentences, batch_size=128, show_progress_bar=False):
            return np.full((len(sentences), 3), np.nan)

    with pytest.raises(ReproducerError, match="NaN"):
        encode_unique(NaNs(), ["a"])
    with pytest.raises(ReproducerError, match="encode"):
        evaluate(object(), "MR", FAST, progress=False)


def test_unknown_tasks_and_configs():
    with pytest.raises(ReproducerError, match="Unknown task 'MRX'"):
        evaluate(KeywordEncoder(), "MR,MRX", FAST, progress=False)
    with pytest.raises(ReproducerError, match="Unknown evaluation config"):
        evaluate(KeywordEncoder(), "MR", "fastest", progress=False)
    assert set(CONFIGS) == {"prototype", "sklearn", "fast", "paper", "smoke"}
    from reproducer.train import EVAL_CONFIGS

    assert set(EVAL_CONFIGS) == set(CONFIGS)  # every protocol a preset may name exists, and only those
    paper = CONFIGS["paper"].classifier  # SentEval's PyTorch back end, the literature's configuration
    assert (paper.kfold, paper.l2, paper.batch_size, paper.tenacity, paper.epoch_size) == (
        10, (1e-5, 1e-4, 1e-3, 1e-2), 64, 5, 4)
    assert CONFIGS["sklearn"].classifier.kfold == 10 and CONFIGS["sklearn"].classifier.inner_kfold == 10


def test_real_task_end_to_end_with_glove():
    from reproducer.encoders.baselines import load_baseline

    res = evaluate(load_baseline("glove-bow"), "MR,STS13", "prototype", progress=False)
    assert 65 < res.scores["MR"]["acc"] < 80  # GloVe-50d average: ~70 (the 300d GloVe of the papers: 78)
    sts = res.scores["STS13"]
    assert {"FNWN.pearson", "all.pearson", "mean.pearson", "wmean.spearman"} <= set(sts)
    assert 0.2 < sts["wmean.pearson"] < 0.8


def test_cli_evaluate(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert cli(["evaluate", "--encoder", "glove-bow", "--tasks", "STS16", "--config", "prototype",
                "--json", str(out), "--quiet"]) == 0
    record = json.loads(out.read_text())
    assert record["encoder"] == "glove-bow" and record["config"] == "prototype"
    assert set(record["results"]) == {"STS16"} and record["seconds"]["STS16"] > 0
    assert "wmean.pearson" in capsys.readouterr().out
    assert cli(["evaluate", "--encoder", "nope", "--tasks", "MR"]) == 2
    assert "Unknown encoder 'nope'" in capsys.readouterr().err
    assert cli(["evaluate", "--encoder", "glove-bow", "--tasks", "XYZ"]) == 2


def test_pair_features_follow_the_config():
    import dataclasses

    from reproducer.evaluate.tasks import _pairs

    table = {"a b": np.array([1.0, 0.0]), "c": np.array([0.0, 2.0])}
    embed = lambda batch: np.stack([table[s] for s in batch])  # noqa: E731
    pairs = [Pair("a b", "c", 1)]
    assert _pairs(embed, pairs, FAST).tolist() == [[1.0, 2.0, 0.0, 0.0]]
    assert _pairs(embed, pairs, dataclasses.replace(FAST, pair_uv=True)).shape == (1, 8)


def test_the_smoke_config_scores_a_fixed_sample_of_each_split():
    """``smoke`` (the smoke preset's evaluation: plumbing, not a protocol) cuts every split of a task to the same
    400 records for every encoder, in file order; a split already that small is kept whole."""
    smoke = CONFIGS["smoke"]
    records = [Sentence(f"s{i}", i % 2) for i in range(1000)]
    data = {"train": records, "test": records[:50], "nested": {"a": records[:700]}}
    cut = smoke.sample(data)
    assert len(cut["train"]) == 400 and cut["test"] == records[:50] and len(cut["nested"]["a"]) == 400
    assert cut == smoke.sample(data)  # the same sample every time
    positions = [records.index(r) for r in cut["train"]]
    assert positions == sorted(positions)  # file order kept
    assert CONFIGS["paper"].sample(data) is data  # every other config scores everything

    from reproducer.encoders.baselines import load_baseline

    glove, sif = (evaluate(load_baseline(n), ["MR", "SICK-R"], "smoke", progress=False)
                  for n in ("glove-bow", "sif-glove"))
    assert glove.sentences["MR"] == 400 and glove.config == "smoke"
    assert list(glove.items["MR"]) == list(sif.items["MR"])  # paired: the same items for both encoders
    assert 55 < glove.main_scores()["MR"] <= 100 and 0 < glove.main_scores()["SICK-R"] <= 1.0  # above chance


def test_per_task_units_resume_and_merge_to_the_whole_evaluation():
    """evaluate_per_task stores each task as a unit, builds the encoder only for a missing task, and merges the
    units into what evaluate gives on all the tasks at once."""
    from reproducer.evaluate import evaluate_per_task

    tasks = [sentiment_task(), similarity_task()]
    stored, built = {}, []

    def build():
        built.append(KeywordEncoder())
        return built[-1]

    def store(task, compute):
        if task not in stored:
            stored[task] = json.loads(json.dumps(compute()))
        return stored[task]

    whole = evaluate(KeywordEncoder(), tasks, FAST, progress=False)
    merged = evaluate_per_task(build, tasks, FAST, store)
    assert len(built) == 1 and set(stored) == {"mock-sentiment", "mock-sts"}
    assert merged.scores == whole.scores and merged.sentences == whole.sentences and merged.dim == whole.dim
    assert set(merged.encode_seconds) == set(whole.encode_seconds)
    del stored["mock-sts"]  # an evaluation interrupted after its first task: only the second is computed again
    again = evaluate_per_task(build, tasks, FAST, store)
    assert len(built) == 2 and again.scores == whole.scores
    assert evaluate_per_task(build, tasks, FAST, store).scores == whole.scores and len(built) == 2  # all stored
    without = evaluate_per_task(build, tasks, FAST, lambda task, compute: compute(), items=False)
    assert without.items == {} and without.scores == whole.scores


def test_merging_refuses_other_encoders_and_a_task_twice():
    one = evaluate(KeywordEncoder(), [similarity_task()], FAST, progress=False)
    other = Results.from_json({**one.to_json(), "encoder": "another"})
    with pytest.raises(ReproducerError, match="Cannot merge"):
        Results.merged([one, other])
    with pytest.raises(ReproducerError, match="given twice"):
        Results.merged([one, one])
    with pytest.raises(ReproducerError, match="Nothing to merge"):
        Results.merged([])

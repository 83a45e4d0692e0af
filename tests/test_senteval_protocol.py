"""The ``paper`` protocol against the official SentEval, on small cached real inputs.

``tests/data/senteval_fixtures.*`` hold subsets of CR, TREC and SICK encoded by GloVe-50d averaging (in
SentEval's order) and what SentEval's own ``InnerKFoldClassifier``, ``KFoldClassifier``, ``SplitClassifier`` and
``RelatednessPytorch`` (commit in the JSON, PyTorch back end, the literature's configuration) made of them;
``python scripts/senteval_agreement.py --senteval PATH --fixtures`` rebuilds them.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from reproducer.data.loaders import Pair, Sentence
from reproducer.errors import ReproducerError
from reproducer.evaluate import CONFIGS, evaluate
from reproducer.evaluate.senteval import SentEvalConfig, SentEvalRelatednessConfig
from reproducer.evaluate.tasks import _ordered

FIXTURES = Path(__file__).parent / "data" / "senteval_fixtures"


@pytest.fixture(scope="module")
def fixtures():
    arrays = np.load(FIXTURES.with_suffix(".npz"))
    x = {k: arrays[k].astype(np.float32) if arrays[k].dtype == np.float16 else arrays[k] for k in arrays.files}
    return x, json.loads(FIXTURES.with_suffix(".json").read_text())


def test_inner_kfold_equals_senteval(fixtures):
    x, expected = fixtures
    out = SentEvalConfig(device="cpu").cv(x["cr_x"], x["cr_y"])  # 10 x 4 x (10 + 1) = 440 models at once
    items = out.pop("_items")["correct"]
    assert out == expected["cv"]
    n = len(x["cr_y"])  # every item is a test item once; the accuracy is the folds' mean, so near the items' share
    assert len(items) == n and abs(100 * items.count("1") / n - out["acc"]) < 0.5


def test_kfold_equals_senteval(fixtures):
    x, expected = fixtures
    out = SentEvalConfig(device="cpu").train_test(x["trec_train_x"], x["trec_train_y"], x["trec_test_x"],
                                                  x["trec_test_y"])
    assert {k: out[k] for k in ("acc", "dev_acc")} == expected["train_test"] and "f1" not in out  # 6 classes


def test_split_equals_senteval(fixtures):
    x, expected = fixtures
    out = SentEvalConfig(device="cpu").dev(*(x[f"sick_{s}_{v}"] for s in ("train", "dev", "test") for v in "xe"))
    items = out.pop("_items")["correct"]
    assert len(items) == len(x["sick_test_e"]) and 100 * items.count("1") / len(items) == pytest.approx(out["acc"], abs=0.01)
    assert out == expected["dev"]


def test_relatedness_equals_senteval(fixtures):
    x, expected = fixtures
    out = SentEvalRelatednessConfig(device="cpu").fit(*(x[f"sick_{s}_{v}"] for s in ("train", "dev", "test")
                                                        for v in "xr"))
    assert out["dev_pearson"] == pytest.approx(expected["relatedness"]["dev_pearson"], abs=1e-6)
    assert out["pearson"] == pytest.approx(expected["relatedness"]["pearson"], abs=1e-6)


def test_senteval_order_sorts_by_length_then_label_stably():
    rows = [Sentence("a b c", 1), Sentence("a b", 1), Sentence("x y", 0), Sentence("z", 1), Sentence("q r", 0)]
    ordered = _ordered(rows, CONFIGS["paper"], "text")
    assert [r.text for r in ordered] == ["z", "x y", "q r", "a b", "a b c"]
    assert _ordered(rows, CONFIGS["prototype"], "text") == rows  # the scikit-learn protocols keep file order
    pairs = [Pair("a b", "c", 0.5), Pair("a", "b c d", 0.1), Pair("a", "b c", 0.9)]
    assert [p.label for p in _ordered(pairs, CONFIGS["paper"], "a", "b")] == [0.9, 0.1, 0.5]


def test_bad_features_are_refused_with_a_clear_error():
    y = np.arange(40) % 2
    nan = np.ones((40, 3))
    nan[3, 1] = np.nan
    with pytest.raises(ReproducerError, match="NaN"):
        SentEvalConfig().cv(nan, y)
    with pytest.raises(ReproducerError, match="zero variance"):
        SentEvalConfig().cv(np.ones((40, 3)), y)
    with pytest.raises(ReproducerError, match="class ids"):
        SentEvalConfig().train_test(np.random.default_rng(0).normal(size=(40, 3)), y - 1,
                                    np.ones((4, 3)), np.arange(4) % 2)


def test_unknown_config_names_the_choices():
    with pytest.raises(ReproducerError, match="paper, fast, sklearn, prototype"):
        evaluate(object(), "MR", "senteval-ish", progress=False)

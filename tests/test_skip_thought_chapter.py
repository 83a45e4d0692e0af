"""The library functions chapter 01 (skip-thoughts) calls: its training data, the training-curve callback, the
expanded and combined encoders, the expansion report, and its tables and bar plot."""
from __future__ import annotations

from types import SimpleNamespace

import matplotlib
import numpy as np
import pandas as pd
import pytest
import torch

from reproducer.data.vectors import WordVectors
from reproducer.data.vocab import SPECIALS, Vocabulary
from reproducer.encoders.expansion import combined, expansion_report
from reproducer.encoders.recurrent import RecurrentConfig, RecurrentEncoder
from reproducer.encoders.trained import ConcatEncoder, TokenEncoder
from reproducer.evaluate.tasks import Task
from reproducer.evaluate.training_curve import curve_scores
from reproducer.data.training_corpus import word_ids
from reproducer.report.plots import gap_bars
from reproducer.report.tables import first_neighbours, log_table

matplotlib.use("Agg")

WORDS = ["the", "cat", "dog", "sat", "ran", "mat", "a", "on"]


def toy_encoder(seed: int = 0, bidirectional: bool = True) -> TokenEncoder:
    torch.manual_seed(seed)
    vocab = Vocabulary(list(SPECIALS) + WORDS)
    return TokenEncoder(RecurrentEncoder(RecurrentConfig(len(vocab), word_dim=6, hidden=5, bidirectional=bidirectional)),
                        vocab, f"toy{seed}")


def synonym_vectors(encoder: TokenEncoder) -> WordVectors:
    """Word vectors whose linear image is the encoder's word table for the shared words; 'kitten' next to 'cat' and
    'puppy' next to 'dog' (the encoder's table is set to that image)."""
    rng = np.random.default_rng(1)
    m = rng.normal(size=(4, 6))
    words = WORDS + ["kitten", "puppy"]
    src = rng.normal(size=(len(words), 4)).astype(np.float32)
    src[words.index("kitten")] = src[words.index("cat")] + 0.01
    src[words.index("puppy")] = src[words.index("dog")] + 0.01
    with torch.no_grad():
        for i, w in enumerate(WORDS):
            encoder.module.embed.weight[encoder.vocab.stoi[w]] = torch.from_numpy((src[i] @ m).astype(np.float32))
    return WordVectors(words, src, name="toy-w2v")


def test_word_ids_keeps_the_most_frequent_words_and_the_books(books):
    corpus = books()
    data = word_ids(corpus, vocab_size=len(SPECIALS) + 3)
    assert len(data.vocab) == len(SPECIALS) + 3
    counts = pd.Series(" ".join(corpus.sentences).split()).value_counts()
    assert set(data.vocab.itos[len(SPECIALS):]) == set(counts.index[:3])  # no ties at the cut in the toy corpus
    assert data.tokenized.book_spans == corpus.book_spans
    for i in (0, len(corpus.sentences) - 1):
        ids = data.tokenized.ids[data.tokenized.offsets[i]:data.tokenized.offsets[i + 1]]
        expected = [data.vocab.stoi.get(w, data.vocab.unk_id) for w in corpus.sentences[i].split()]
        assert ids.tolist() == expected
    assert data.vocab.unk_id in data.tokenized.ids  # rarer words became <unk>


def _constant_task(name: str, score: float) -> Task:
    return Task(name, lambda: [{"text": "a cat"}, {"text": "the dog"}], lambda data, embed, config: {"r": score},
                "r", "similarity", "toy", "toy")


def test_curve_scores_scores_the_fitted_encoder_or_the_chosen_part():
    seen = []

    class Spy:
        def __init__(self, name):
            self.name = name

        def encode(self, sentences, batch_size=128, show_progress_bar=False):
            seen.append(self.name)
            return np.ones((len(sentences), 3), np.float32)

    fitted = SimpleNamespace(encoder=SimpleNamespace(encoders=[Spy("f"), Spy("g")], encode=Spy("fg").encode))
    scores = curve_scores([_constant_task("toy-a", 0.25), _constant_task("toy-b", 0.5)])(fitted, 7)
    assert scores == {"toy-a": 0.25, "toy-b": 0.5} and all(isinstance(v, float) for v in scores.values())
    assert set(seen) == {"fg"}
    seen.clear()
    curve_scores([_constant_task("toy-a", 0.25)], encoder=lambda f: f.encoder.encoders[0])(fitted, 7)
    assert set(seen) == {"f"}


def test_combined_concatenates_and_expands_without_changing_the_parts():
    uni, bi = toy_encoder(0, bidirectional=False), toy_encoder(1)
    vectors = synonym_vectors(uni)
    plain = combined([uni, bi], "both")
    assert isinstance(plain, ConcatEncoder) and plain.name == "both"
    assert plain.encode(["the cat"]).shape == (1, uni.dim + bi.dim)
    expanded = combined([uni, bi], "both", vectors)
    assert [e.name for e in expanded.encoders] == ["toy0", "toy1"] and expanded.name == "both"
    assert all("kitten" in e.vocab for e in expanded.encoders) and "kitten" not in uni.vocab
    assert not np.allclose(expanded.encode(["kitten"]), plain.encode(["kitten"]))  # no longer <unk>
    np.testing.assert_allclose(expanded.encode(["the cat sat"]), plain.encode(["the cat sat"]), atol=1e-6)
    single = combined([uni], "uni", vectors)
    assert isinstance(single, TokenEncoder) and single.name == "uni" and "puppy" in single.vocab
    assert combined([uni], "uni") is uni


def test_expansion_report_finds_the_synonym_and_skips_special_tokens():
    encoder = toy_encoder()
    vectors = synonym_vectors(encoder)
    report = expansion_report(encoder, vectors, words=2, k=3)
    assert report["shared"] == len(WORDS) and report["added"] == 2 and report["r2"] == pytest.approx(1.0, abs=1e-4)
    assert set(report["neighbours"]) == {"kitten", "puppy"}
    assert report["neighbours"]["kitten"][0] == "cat" and report["neighbours"]["puppy"][0] == "dog"
    assert all(len(v) == 3 and not set(v) & set(SPECIALS) for v in report["neighbours"].values())
    assert len(expansion_report(encoder, vectors, words=1, k=2)["neighbours"]) == 1


def test_throughput_rows_per_model():
    logs = {"a": {"step": 10, "seconds": 4.0, "examples": 200, "losses": [{"loss": 3.0}, {"loss": 2.5}], "cov": 0.9},
            "b": {"step": 20, "seconds": 5.0, "examples": 100, "losses": [{"loss": 1.5}], "cov": 0.8}}
    table = log_table(logs, loss="final loss (x)", extra={"coverage": "cov"})
    assert list(table.index) == ["a", "b"]
    assert list(table.columns) == ["steps", "training seconds", "sentences / second", "final loss (x)", "coverage"]
    assert table.loc["a", "sentences / second"] == 50.0 and table.loc["b", "sentences / second"] == 20.0
    assert table.loc["a", "final loss (x)"] == 2.5 and table.loc["b", "coverage"] == 0.8


def test_first_neighbours_takes_rank_one_in_query_order():
    rows = [(q, e, r, f"{e}-{q}-{r}") for q in ("q1", "q2") for e in ("x", "y", "z") for r in (1, 2)]
    frame = pd.DataFrame(rows, columns=["query", "encoder", "rank", "neighbour"])
    table = first_neighbours(frame, ["y", "x"], ["q2", "q1"], display=str.upper)
    assert list(table.columns) == ["y", "x"] and list(table.index) == ["Q2", "Q1"]
    assert table.loc["Q1", "x"] == "X-Q1-1" and table.index.name == "query (held out)"
    assert first_neighbours(frame, ["z"], ["q1"]).loc["q1", "z"] == "z-q1-1"


def test_gap_bars_show_points_and_correlations_times_100():
    import matplotlib.pyplot as plt

    comparison = pd.DataFrame({"task": ["MR", "SICK-R", "MRPC", "MR"], "metric": ["acc", "pearson", "f1", "acc"],
                               "diff": [-5.0, -0.2, -3.0, -7.0], "encoder": ["a", "a", "a", "b"]})
    fig, ax = plt.subplots()
    gap_bars(comparison, ax, title="t")
    heights = sorted(round(p.get_height(), 6) for p in ax.patches if p.get_height() == p.get_height() and p.get_width())
    assert heights == [-20.0, -7.0, -5.0]  # f1 left out; r × 100
    assert ax.get_title() == "t" and "points" in ax.get_ylabel()
    plt.close(fig)

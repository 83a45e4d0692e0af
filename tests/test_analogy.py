"""Sentence analogies mined from a corpus (Quick-Thoughts Table 6)."""
from __future__ import annotations

import numpy as np
import pytest

from reproducer.data.loaders import Analogy
from reproducer.errors import ReproducerError
from reproducer.evaluate.analogy import analogy_accuracy, make_questions, mine_pairs, word_pairs

QUESTIONS = [Analogy("gram3-comparative", "good", "better", "bad", "worse"),
             Analogy("gram3-comparative", "big", "bigger", "good", "better"),
             Analogy("gram7-past-tense", "walk", "walked", "go", "went")]

SENTENCES = ["it was a good day .", "it was a better day .", "it was a bad day .", "it was a worse day .",
             "the house is big and old .", "the house is bigger and old .",
             "we walk to the town every day .", "we walked to the town every day .",
             "they go home early .", "they went home early .",
             "it was a good time .",  # no partner
             "a good one .",  # too short for min_len=5? (4 tokens: kept at min_len 4)
             "it was not a better day ."]  # differs in two tokens from "it was a good day ."


def test_word_pairs_by_category():
    pairs = word_pairs(QUESTIONS)
    assert pairs["gram3-comparative"] == {("good", "better"), ("bad", "worse"), ("big", "bigger")}
    assert pairs["gram7-past-tense"] == {("walk", "walked"), ("go", "went")}


def test_mining_finds_exactly_the_one_word_pairs():
    mined = mine_pairs(SENTENCES, word_pairs(QUESTIONS))
    found = {(p.category, p.source, p.target) for p in mined}
    assert found == {
        ("gram3-comparative", "it was a good day .", "it was a better day ."),
        ("gram3-comparative", "it was a bad day .", "it was a worse day ."),
        ("gram3-comparative", "the house is big and old .", "the house is bigger and old ."),
        ("gram7-past-tense", "we walk to the town every day .", "we walked to the town every day ."),
        ("gram7-past-tense", "they go home early .", "they went home early ."),
    }
    short = mine_pairs(SENTENCES, word_pairs(QUESTIONS), max_len=5)  # only the 5-token pair is left
    assert [(p.source, p.words) for p in short] == [("they go home early .", ("go", "went"))]


def test_questions_combine_different_word_pairs_of_one_category():
    questions = make_questions(mine_pairs(SENTENCES, word_pairs(QUESTIONS)), per_category=10)
    assert len(questions) == 3 + 1  # 3 comparative pairs -> 3 combinations; past tense: 1
    for q in questions:
        assert q.a != q.c and q.b != q.d


class Oracle:
    """Vectors = bag of words with a shared 'comparative' / 'past' direction: analogies are exact."""

    def __init__(self, words):
        self.words = sorted(words)

    def encode(self, sentences, batch_size=256, show_progress_bar=False):
        base = {w: i for i, w in enumerate(self.words)}
        shifts = {"better": "good", "worse": "bad", "bigger": "big", "walked": "walk", "went": "go"}
        out = np.zeros((len(sentences), len(self.words) + 2))
        for r, s in enumerate(sentences):
            for t in s.split():
                if t in shifts:
                    out[r, base[shifts[t]]] += 1
                    out[r, -1 if t in ("walked", "went") else -2] += 1
                else:
                    out[r, base[t]] += 1
        return out


def test_an_encoder_with_linear_structure_solves_the_analogies():
    questions = make_questions(mine_pairs(SENTENCES, word_pairs(QUESTIONS)), per_category=10)
    words = {t for s in SENTENCES for t in s.split()}
    result = analogy_accuracy(Oracle(words), questions)
    assert result["accuracy"] == 1.0 and set(result["per_category"]) == {"gram3-comparative", "gram7-past-tense"}
    assert result["pool"] == 10

    class Constant:
        def encode(self, sentences, batch_size=256, show_progress_bar=False):
            return np.ones((len(sentences), 3))

    assert analogy_accuracy(Constant(), questions)["accuracy"] < 1.0
    with pytest.raises(ReproducerError, match="No analogy questions"):
        analogy_accuracy(Constant(), [])


def test_mining_the_real_corpus_finds_pairs():
    from reproducer.data.corpus import CorpusConfig, load_corpus
    from reproducer.data.loaders import load_google_analogy

    corpus = load_corpus("train", CorpusConfig(max_books=3), progress=False)
    mined = mine_pairs(corpus.sentences, word_pairs(load_google_analogy()))
    assert mined and all(len(p.source.split()) == len(p.target.split()) for p in mined)
    for p in mined[:50]:
        diff = [(x, y) for x, y in zip(p.source.split(), p.target.split()) if x != y]
        assert diff == [p.words]

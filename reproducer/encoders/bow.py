"""Bag-of-words encoders that need no training: word averaging, SIF, and a random encoder.

- Word averaging: the mean of a sentence's word vectors (the "GloVe BoW" rows of Quick-Thoughts
  Table 1 and Zhang et al. Table 1; the averaged-vector baselines of Wieting et al. 2016).
- SIF (Arora, Liang & Ma 2017, Algorithm 1): each word vector weighted by a / (a + p(w)), p(w) the
  word's unigram probability, then the projection on the first principal component of the
  sentence vectors removed. As in the paper, the component is computed from the sentences being
  encoded (one evaluation task at a time).
- Random: a fixed random projection of hashed bag-of-words counts, for timing the harness at a
  given width (e.g. 4,800 dimensions, the size of combine-skip) and as a floor for the tables.
"""
from __future__ import annotations

import zlib
from typing import Callable

import numpy as np
from sklearn.decomposition import TruncatedSVD

from reproducer.data.tokenize import tokenize
from reproducer.data.vectors import WordVectors
from reproducer.encoders.inputs import check_sentences
from reproducer.log import progress_bar


def _tokens(sentence: str, lowercase: bool) -> list[str]:
    return tokenize(sentence, lowercase=lowercase) if sentence.strip() else []


class WordAverageEncoder:
    """(Weighted) average of word vectors, optionally minus the top principal component(s).

    ``weights`` maps words to multiplicative weights (missing words weigh 1); out-of-vocabulary
    words are skipped and a sentence with none gives the zero vector.
    """

    def __init__(self, vectors: WordVectors, *, name: str, weights: dict[str, float] | None = None,
                 remove_components: int = 0, lowercase: bool = True,
                 tokenizer: Callable[[str, bool], list[str]] = _tokens):
        self.vectors, self.name, self.weights = vectors, name, weights
        self.remove_components, self.lowercase, self.tokenizer = remove_components, lowercase, tokenizer
        self.dim = vectors.dim

    def _average(self, sentence: str) -> np.ndarray:
        rows, weights = [], []
        for token in self.tokenizer(sentence, self.lowercase):
            i = self.vectors.index.get(token)
            if i is not None:
                rows.append(i)
                weights.append(1.0 if self.weights is None else self.weights.get(token, 1.0))
        if not rows:
            return np.zeros(self.dim, dtype=np.float32)
        w = np.asarray(weights, dtype=np.float32)
        return (w @ self.vectors.vectors[rows]) / len(rows)

    def encode(self, sentences: list[str], batch_size: int = 1024, show_progress_bar: bool = False) -> np.ndarray:
        sentences = check_sentences(sentences)
        out = np.zeros((len(sentences), self.dim), dtype=np.float32)
        for i, s in enumerate(progress_bar(sentences, desc=f"encode {self.name}", disable=not show_progress_bar,
                                           leave=False, mininterval=1.0)):
            out[i] = self._average(s)
        if self.remove_components and len(sentences) > self.remove_components:
            svd = TruncatedSVD(n_components=self.remove_components, n_iter=7, random_state=0)
            svd.fit(out)
            pc = svd.components_.astype(np.float32)  # (k, dim)
            out = out - (out @ pc.T) @ pc  # Arora et al. Algorithm 1, line 5: v_s - u u^T v_s
        return out


def word_average_encoder(vectors: WordVectors, name: str | None = None) -> WordAverageEncoder:
    """Plain mean of word vectors."""
    return WordAverageEncoder(vectors, name=name or f"{vectors.name}-bow")


def sif_encoder(vectors: WordVectors, counts: dict[str, int], a: float = 1e-3,
                name: str | None = None) -> WordAverageEncoder:
    """SIF: weights a / (a + p(w)) from word counts, first principal component removed.

    Arora et al. (2017) use a = 1e-3 with the Wikipedia counts of ``enwiki_vocab_min200.txt``;
    as in their code, words absent from the counts weigh 1, and the weighted vectors are averaged
    over the sentence's in-vocabulary words.
    """
    total = float(sum(counts.values()))
    weights = {w: a / (a + c / total) for w, c in counts.items()}
    return WordAverageEncoder(vectors, name=name or f"sif-{vectors.name}", weights=weights, remove_components=1)


class RandomEncoder:
    """A fixed random projection of hashed bag-of-words counts: ``dim`` features, no training.

    Tokens are hashed (CRC32, stable across runs) into ``buckets`` rows of a Gaussian matrix
    drawn with ``seed``; a sentence is the mean of its tokens' rows.
    """

    def __init__(self, dim: int = 4800, buckets: int = 4096, seed: int = 0, name: str | None = None):
        self.dim, self.buckets = dim, buckets
        self.name = name or f"random-{dim}d"
        self.matrix = np.random.default_rng(seed).standard_normal((buckets, dim), dtype=np.float32)

    def encode(self, sentences: list[str], batch_size: int = 1024, show_progress_bar: bool = False) -> np.ndarray:
        sentences = check_sentences(sentences)
        out = np.zeros((len(sentences), self.dim), dtype=np.float32)
        for i, s in enumerate(progress_bar(sentences, desc=f"encode {self.name}", disable=not show_progress_bar,
                                           leave=False, mininterval=1.0)):
            ids = [zlib.crc32(t.encode()) % self.buckets for t in s.lower().split()]
            if ids:
                out[i] = self.matrix[ids].mean(axis=0)
        return out

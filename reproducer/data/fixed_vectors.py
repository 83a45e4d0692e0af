"""Training data over **fixed** word vectors: our word2vec vectors, the vocabulary of every word they cover, and the
corpus as ids of that vocabulary — what consensus maximisation (Tang & de Sa 2019) and the mean-max autoencoder
(Zhang et al. 2018) read.

The vocabulary is the specials followed by every word word2vec kept, so row ``i`` of :attr:`FixedVectorData.table` is
the vector of word ``i`` (zero for the padding, ``<unk>`` and the other specials): an encoder over these vectors needs
no vocabulary expansion. Everything is loaded on first use, so a notebook whose results are cached pays only for
what it reads::

    data = FixedVectorData.of(settings)   # a ConsensusPreset or an AutoencoderPreset
    family("consensus").fit("MV", settings, data.training_data(), ...)   # tokenizes the corpus once, here
"""
from __future__ import annotations

from functools import cached_property

import numpy as np

from reproducer.data.batches import TokenizedCorpus
from reproducer.data.corpus import CorpusConfig
from reproducer.data.training_data import TrainingData
from reproducer.data.vectors import pretrained_channel
from reproducer.data.vocab import SPECIALS, Vocabulary


class FixedVectorData:
    """Our word2vec vectors of size ``word2vec_dim`` (trained on the ``corpus_config`` corpus, or reloaded), their
    vocabulary and embedding table, and the corpus splits as ids, each built on first use."""

    def __init__(self, corpus_config: CorpusConfig = CorpusConfig(), word2vec_dim: int = 300):
        self.corpus_config, self.word2vec_dim = corpus_config, word2vec_dim
        self._corpora: dict = {}
        self._tokenized: dict = {}

    @classmethod
    def of(cls, preset) -> "FixedVectorData":
        """The data of a preset with ``max_books`` and ``word2vec_dim`` (consensus maximisation, the autoencoders)."""
        return cls(CorpusConfig(max_books=preset.max_books), preset.word2vec_dim)

    @cached_property
    def vectors(self):
        """The :class:`~reproducer.data.vectors.WordVectors` (word2vec on the training split, cached on disk)."""
        from reproducer.data.vectors import Word2VecConfig, train_word2vec

        return train_word2vec(self.corpus_config, Word2VecConfig(vector_size=self.word2vec_dim), progress=False)

    @cached_property
    def _channel(self):
        return pretrained_channel(Vocabulary(list(SPECIALS)), self.vectors)

    @property
    def vocab(self):
        """The specials, then every word with a vector (a :class:`~reproducer.data.vocab.Vocabulary`)."""
        return self._channel[0]

    @property
    def table(self) -> np.ndarray:
        """``(len(vocab), dim)`` float32: row ``i`` is the vector of word ``i`` (zero for the specials)."""
        return self._channel[1]

    def corpus(self, split: str = "train"):
        """The corpus split (:class:`~reproducer.data.corpus.Corpus`), loaded once."""
        from reproducer.data.corpus import load_corpus

        if split not in self._corpora:
            self._corpora[split] = load_corpus(split, self.corpus_config, progress=False)
        return self._corpora[split]

    def tokenized(self, split: str = "train"):
        """The corpus split as ids of :attr:`vocab` (words without a vector are ``<unk>``), built once."""
        if split not in self._tokenized:
            self._tokenized[split] = TokenizedCorpus.from_corpus(self.corpus(split), self.vocab)
        return self._tokenized[split]

    @cached_property
    def counts(self) -> dict[str, int]:
        """Every word's count in the training split (e.g. SIF's word frequencies)."""
        return Vocabulary.build(self.corpus().sentences, max_size=None).counts

    def training_data(self, split: str = "train"):
        """A :class:`~reproducer.data.training_data.TrainingData` of the split's ids, :attr:`vocab` and the fixed
        :attr:`table`."""
        return TrainingData(tokenized=self.tokenized(split), vocab=self.vocab, vectors=self.table)

"""A training corpus as word ids: the vocabulary of its most frequent words and every sentence as ids of it, in the
:class:`~reproducer.data.training_data.TrainingData` every family's ``fit`` reads (skip-thoughts, Quick-Thoughts,
...)."""
from __future__ import annotations

import functools

from reproducer.data.batches import TokenizedCorpus
from reproducer.data.training_data import TrainingData
from reproducer.data.vocab import Vocabulary


def word_ids(corpus, vocab_size: int | None) -> TrainingData:
    """``corpus`` (a :class:`~reproducer.data.corpus.Corpus`, or anything with ``sentences`` and ``book_spans``) as
    ids of its ``vocab_size`` most frequent words (special tokens included; rarer words become ``<unk>``):
    ``TrainingData(tokenized=..., vocab=...)``."""
    vocab = Vocabulary.build(corpus.sentences, max_size=vocab_size)
    return TrainingData(tokenized=TokenizedCorpus.from_corpus(corpus, vocab), vocab=vocab)


@functools.lru_cache(maxsize=1)
def corpus_word_ids(max_books: int | None, vocab_size: int | None):
    """The training split of the corpus of ``max_books`` books (None: all) as :func:`word_ids`, and the corpus;
    the last one is kept (a chapter's models and the MC-QT channel read the same ids; nothing changes them)."""
    from reproducer.data.corpus import CorpusConfig, load_corpus

    corpus = load_corpus("train", CorpusConfig(max_books=max_books), progress=False)
    return word_ids(corpus, vocab_size), corpus


def held_out_ids(data: TrainingData, max_books: int | None) -> TrainingData:
    """The held-out books of the corpus of ``max_books`` books as ids of ``data.vocab`` (the training vocabulary):
    what a training curve's held-out loss is measured on."""
    from reproducer.data.corpus import CorpusConfig, load_corpus

    corpus = load_corpus("valid", CorpusConfig(max_books=max_books), progress=False)
    return TrainingData(tokenized=TokenizedCorpus.from_corpus(corpus, data.vocab), vocab=data.vocab)

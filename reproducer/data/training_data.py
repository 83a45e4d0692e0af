"""What a training objective trains on: :class:`TrainingData`, built by each family's ``training_data`` (see
:mod:`reproducer.papers.registry`) and read by its ``fit``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class TrainingData:
    """What a family trains on; each family reads the fields it needs (see :mod:`reproducer.papers.registry`).

    ``tokenized``: a :class:`~reproducer.data.batches.TokenizedCorpus` of ids of ``vocab``; ``vectors``: fixed word
    vectors, row ``i`` for word ``i`` of ``vocab`` (consensus, autoencoders), or the
    :class:`~reproducer.data.vectors.WordVectors` that initialise a paraphrastic model; ``pairs``: paraphrase pairs;
    ``pretrained``: MC-QT's ``(big vocabulary, rows)`` with ``tokenized`` as ids of the big vocabulary."""

    tokenized: Any = None
    vocab: Any = None
    vectors: Any = None
    pairs: Any = None
    pretrained: Any = None

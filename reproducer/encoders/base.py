"""The encoder contract shared by baselines and trained models, and :class:`ScaledEncoder`, a diagnostic wrapper."""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from reproducer.errors import ReproducerError


@runtime_checkable
class Encoder(Protocol):
    """Anything that maps sentences to vectors.

    ``encode`` receives all sentences of one evaluation task at once (the harness passes each
    unique sentence once, sorted by length) and returns a float array of shape ``(n, dim)``,
    row ``i`` for ``sentences[i]``. It must accept the empty sentence.
    """

    name: str

    def encode(self, sentences: list[str], batch_size: int = 128, show_progress_bar: bool = False) -> np.ndarray:
        ...


class ScaledEncoder:
    """``encoder``'s sentence vectors multiplied by ``factor`` (> 0). Cosine similarity and the direction of every
    vector are unchanged; a probe that is not invariant to the scale of its features is not (SentEval's SICK-R
    probe, Adam without regularisation on a softmax over ``[|u − v|, u ⊙ v]``, whose two halves scale by
    ``factor`` and ``factor²``): a diagnostic of the probe, not a new encoder."""

    def __init__(self, encoder: Encoder, factor: float):
        if not factor > 0 or not np.isfinite(factor):
            raise ReproducerError(f"A scale factor must be a positive finite number, got {factor!r}.")
        self.encoder, self.factor = encoder, float(factor)
        self.name = f"{encoder.name}*{self.factor:g}"

    def encode(self, sentences: list[str], batch_size: int = 128, show_progress_bar: bool = False) -> np.ndarray:
        return self.encoder.encode(sentences, batch_size, show_progress_bar) * np.float32(self.factor)

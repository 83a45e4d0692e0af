"""The encoder contract shared by baselines and trained models."""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


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

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
        if isinstance(factor, bool) or not isinstance(factor, (int, float, np.number)) or not factor > 0 \
                or not np.isfinite(factor):
            raise ReproducerError(f"A scale factor must be a positive finite number, got {factor!r}.")
        if isinstance(encoder, (str, bytes)):
            raise ReproducerError(f"{encoder!r} is a name, not an encoder: scale load_baseline({encoder!r}) (or a "
                                  "loaded model).")
        if not callable(getattr(encoder, "encode", None)):
            raise ReproducerError(f"{encoder!r} is not an encoder (it has no encode(sentences) method).")
        self.encoder, self.factor = encoder, float(factor)
        self.name = f"{getattr(encoder, 'name', type(encoder).__name__)}*{self.factor:g}"

    def encode(self, sentences: list[str], batch_size: int = 128, show_progress_bar: bool = False) -> np.ndarray:
        vectors = np.asarray(call_encode(self.encoder, sentences, batch_size=batch_size,
                                         show_progress_bar=show_progress_bar), dtype=np.float64)
        with np.errstate(over="ignore", under="ignore"):  # checked below, in words
            scaled = (vectors * np.float64(np.float32(self.factor))).astype(np.float32)
        if np.isfinite(vectors).all() and not np.isfinite(scaled).all():
            raise ReproducerError(f"{self.name}: scaling by {self.factor:g} overflows float32 (its largest component "
                                  f"{np.abs(vectors).max():.3g} becomes infinite); choose a smaller factor.")
        if ((scaled == 0).all(axis=1) & (vectors != 0).any(axis=1)).any():
            raise ReproducerError(f"{self.name}: scaling by {self.factor:g} underflows float32 (vectors become all "
                                  "zeros); choose a larger factor.")
        return scaled


def call_encode(encoder, sentences: list[str], **options):
    """``encoder.encode(sentences, **options)`` with only the options its signature takes: the contract is
    ``encode(sentences)``; ``batch_size`` and ``show_progress_bar`` go to encoders that accept them (or ``**kwargs``)."""
    import inspect

    try:
        params = inspect.signature(encoder.encode).parameters
    except (TypeError, ValueError):  # a builtin or C callable: pass nothing it might refuse
        return encoder.encode(sentences)
    if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
        options = {k: v for k, v in options.items() if k in params}
    return encoder.encode(sentences, **options)

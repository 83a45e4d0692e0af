"""Sentence encoders. Every encoder satisfies one contract (see :class:`Encoder`):
``encode(sentences: list[str], batch_size=...) -> np.ndarray`` of shape ``(n, d)``."""
from reproducer.encoders.base import Encoder
from reproducer.encoders.bow import RandomEncoder, WordAverageEncoder, sif_encoder, word_average_encoder

__all__ = ["Encoder", "RandomEncoder", "WordAverageEncoder", "sif_encoder", "word_average_encoder"]

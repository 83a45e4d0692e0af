"""reproducer: retrain and evaluate classic sentence-representation models.

The library behind the reproduction book: data registry and loaders (``reproducer.data``),
encoders, objectives, the trainer and the SentEval-equivalent evaluation harness.
"""
from reproducer.errors import ReproducerError

__version__ = "0.1.0"
__all__ = ["ReproducerError", "__version__"]

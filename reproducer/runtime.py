"""Seeds and devices: one ``seed_everything`` and one ``default_device`` for the whole library.

All training and encoding code takes its device from :func:`default_device` (CUDA when available,
else CPU) or from an explicit argument, never a hard-coded one, so the ``paper`` presets run
unchanged on a GPU.
"""
from __future__ import annotations

import os
import random

import numpy as np


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and PyTorch (CPU and CUDA): same seed and machine, same numbers."""
    random.seed(seed)
    np.random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    import torch

    torch.manual_seed(seed)  # seeds CUDA too


def default_device(prefer: str | None = None):
    """``torch.device(prefer)`` if given, else CUDA when available, else CPU."""
    import torch

    if prefer:
        return torch.device(prefer)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")

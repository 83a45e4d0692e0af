"""Shared fixtures. Loader tests read the real data cache (``make test`` fetches it first)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reproducer.data import registry as reg


@pytest.fixture()
def real_cache() -> Path:
    """The real cache folder, with the small datasets the registry tests copy into fake mirrors."""
    for name in ("word_eval", "word_freq"):
        reg.require(name)
    return reg.data_dir()


@pytest.fixture()
def fake_mirror(tmp_path, monkeypatch, real_cache):
    """A private mirror (copies of ``word_eval`` and ``word_freq``) and an empty private cache."""
    mirror = tmp_path / "mirror"
    for name in ("word_eval", "word_freq"):
        shutil.copytree(real_cache / name, mirror / name)
    cache = tmp_path / "cache"
    monkeypatch.setenv("REPRODUCER_DATA_MIRROR", str(mirror))
    monkeypatch.setenv("REPRODUCER_DATA_DIR", str(cache))
    return mirror, cache


class ToyBooks:
    """A toy corpus shaped like :class:`~reproducer.data.corpus.Corpus` (``sentences``, ``book_spans``): books of
    ``sizes`` sentences whose words repeat, for contiguous-batch objectives."""

    def __init__(self, sizes=(7, 5, 9)):
        self.sentences, self.book_spans = [], []
        for b, n in enumerate(sizes):
            start = len(self.sentences)
            self.sentences += [f"w{(b * 7 + i) % 13} w{i % 5} x{b}" for i in range(n)]
            self.book_spans.append((b, start, len(self.sentences)))


@pytest.fixture()
def books():
    """The :class:`ToyBooks` constructor: ``books()`` or ``books(sizes=(...))``."""
    return ToyBooks

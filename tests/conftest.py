"""Shared fixtures. Loader tests read the real data cache (``make test`` fetches it first)."""
from __future__ import annotations

import shutil
import sys
import textwrap
from pathlib import Path

import pytest

import reproducer.papers
from reproducer.papers import registry as models
from reproducer.data import registry as reg

sys.path.insert(0, str(Path(__file__).parent / "helpers"))
import toy_paper  # noqa: E402
from toy_paper import ToyBooks  # noqa: E402


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


@pytest.fixture()
def books():
    """The :class:`ToyBooks` constructor: ``books()`` or ``books(sizes=(...))``."""
    return ToyBooks


@pytest.fixture
def sixth_paper(tmp_path, monkeypatch):
    """A toy paper in a temporary folder added to ``reproducer.papers``' search path; the registry read again."""
    folder = tmp_path / "papers" / "toy_paper"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(textwrap.dedent(toy_paper.TOY_DECLARATION))
    (folder / "objective.py").write_text(textwrap.dedent(toy_paper.TOY_OBJECTIVE))
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "07_toy.ipynb").write_text("{}")
    monkeypatch.setattr(reproducer.papers, "__path__", [*reproducer.papers.__path__, str(folder.parent)])
    models.refresh()
    yield tmp_path
    monkeypatch.undo()
    for name in [m for m in sys.modules if m.startswith("reproducer.papers.toy_paper")]:
        del sys.modules[name]
    models.refresh()

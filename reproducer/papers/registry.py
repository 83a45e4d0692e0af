"""Every model of the book, as data: the one place to find "all models" and what each one is.

Built from the papers' declarations (:func:`declarations`: ``PAPER = Paper(...)`` in each
``reproducer/papers/<paper>/__init__.py``, of the shape :mod:`reproducer.declarations`) and the untrained baselines
of chapter 00b:

- :data:`PAPERS`: paper key (as in ``report/published.csv``) → citation; :data:`PAPER_LABELS`: key → short label;
  :data:`DECLARATIONS`: key → its :class:`~reproducer.declarations.Paper`.
- :data:`FAMILIES`: one :class:`~reproducer.declarations.Family` per training objective — its paper, chapter, objective
  module, preset table and fit function; ``training_data(variant, preset)`` builds what it trains on as its chapter
  does, ``batch_flops`` counts a batch's useful FLOPs (``python -m reproducer train`` and ``bench train`` use both).
  Every family's ``fit(variant, preset, data, *, checkpoint, evaluate, seed, device, progress)`` returns a
  :class:`~reproducer.fit.Fitted` (test-time encoder, trained module, log); its presets subclass
  :class:`~reproducer.presets.Preset` (:func:`preset` finds one by name).
- :data:`MODELS`: one :class:`~reproducer.declarations.Model` per model a chapter reports — our name, family and variant
  (or ``"baseline"``), chapter, paper, the bundle kind its saved encoder has (:mod:`reproducer.encoders.bundles`),
  and its row names in the published tables (:func:`reproducer.report.published.published`).

A sixth paper is one folder under ``reproducer/papers/`` (see that package), its notebook, its ``_toc.yml`` line and
its rows in ``published.csv``; :func:`refresh` reads the declarations again (after a folder is added to
``reproducer.papers.__path__``).
"""
from __future__ import annotations

import importlib
import pkgutil

from reproducer.errors import ReproducerError
import reproducer.papers as package
from reproducer.declarations import Family, Model, Paper

#: The untrained baselines of chapter 00b; encoders built by :mod:`reproducer.encoders.baselines`.
BASELINE_MODELS: tuple[Model, ...] = tuple(Model(name, "baseline", "00b_baselines", published=published,
                                                 description=description) for name, published, description in [
    ("glove-bow", ("GloVe BoW", "GloVe BOW"), "mean of GloVe 6B 50d vectors"),
    ("sif-glove", ("SIF (GloVe + WR)",), "SIF weighting of GloVe 6B 50d, first component removed"),
    ("word2vec-bow", ("word2vec BOW",), "mean of our Gutenberg word2vec 300d vectors"),
    ("minilm", (), "all-MiniLM-L6-v2 (a modern reference)"),
    ("random-4800", (), "4,800-d random projection of hashed words"),
    # Wieting & Kiela's (2019) untrained encoders (reproducer.encoders.untrained), 4,096 wide as in their tables and
    # 1,200 wide as combine-skip and combine-QT at default
    *((f"{kind}-{vectors}-{dim}", (), f"untrained {kind.upper() if kind != 'lstm' else 'biLSTM'} over "
       f"{'our word2vec 300d' if vectors == 'word2vec' else 'GloVe 6B 50d'}, {dim:,}-d")
      for kind in ("borep", "lstm", "esn") for vectors in ("word2vec", "glove") for dim in (1200, 4096)),
])

def declarations() -> list[Paper]:
    """Every paper declared in a package of this folder (or of a folder added to ``__path__``), in chapter order.
    A package without ``PAPER`` is skipped; two papers with one key are an error."""
    papers = []
    for info in pkgutil.iter_modules(package.__path__):
        if not info.ispkg:
            continue
        found = getattr(importlib.import_module(f"{package.__name__}.{info.name}"), "PAPER", None)
        if isinstance(found, Paper):
            papers.append(found)
    keys = [p.key for p in papers]
    if len(set(keys)) != len(keys):
        raise ReproducerError(f"Two papers declare one key: {sorted({k for k in keys if keys.count(k) > 1})}.")
    return sorted(papers, key=lambda p: p.chapter)


DECLARATIONS: dict[str, Paper] = {}
PAPERS: dict[str, str] = {}
#: Short labels of the papers in tables (first author and year).
PAPER_LABELS: dict[str, str] = {}
FAMILIES: dict[str, Family] = {}
MODELS: dict[str, Model] = {}


def refresh() -> None:
    """Read the papers' declarations (again) into the tables above, in place (every importer sees the change)."""
    papers = declarations()
    for table, items in [(DECLARATIONS, {p.key: p for p in papers}), (PAPERS, {p.key: p.citation for p in papers}),
                         (PAPER_LABELS, {p.key: p.label for p in papers}),
                         (FAMILIES, {f.name: f for p in papers for f in p.families}),
                         (MODELS, {m.name: m for m in (*BASELINE_MODELS, *(m for p in papers for m in p.models))})]:
        table.clear()
        table.update(items)


refresh()


def paper(key: str) -> Paper:
    """The declaration of paper ``key``; a clear error naming the known ones otherwise."""
    if key not in DECLARATIONS:
        raise ReproducerError(f"Unknown paper {key!r}; the book's papers: {', '.join(DECLARATIONS)}.")
    return DECLARATIONS[key]


def family(name: str) -> Family:
    """The family called ``name``; a clear error naming the known ones otherwise."""
    if name not in FAMILIES:
        raise ReproducerError(f"Unknown model family {name!r}; choose one of {', '.join(FAMILIES)}.")
    return FAMILIES[name]


_family = family  # for preset(), whose first parameter is a family's name


def model(name: str) -> Model:
    """The model called ``name``; a clear error naming the known ones otherwise."""
    if name not in MODELS:
        raise ReproducerError(f"Unknown model {name!r}; the book's models: {', '.join(MODELS)}.")
    return MODELS[name]


def models(chapter: str | None = None, family: str | None = None) -> list[Model]:
    """The models of a chapter and/or family, in the book's order."""
    return [m for m in MODELS.values() if (chapter is None or m.chapter == chapter)
            and (family is None or m.family == family)]


def published_names(name: str) -> list[str]:
    """The rows of published tables that report the method of our model ``name`` (itself when none is listed)."""
    found = MODELS.get(name)
    return list(found.published) if found and found.published else [name]


def table() -> "pd.DataFrame":  # noqa: F821
    """Every model as a row: name, family, paper, chapter, variant, bundle kind, published names, description."""
    import pandas as pd  # here, not at the top: the command line reads the registry and starts without pandas

    return pd.DataFrame([{"model": m.name, "family": m.family, "paper": PAPERS.get(m.paper, ""), "chapter": m.chapter,
                          "variant": m.variant or " + ".join(m.parts), "bundle": m.bundle,
                          "published as": ", ".join(m.published), "description": m.description}
                         for m in MODELS.values()])


def preset(family: str, name: str, **overrides) -> "reproducer.train.Preset":  # noqa: F821
    """The ``name`` preset of a model family (``"skip-thought"``, ``"quick-thought"``, ``"paraphrastic"``,
    ``"consensus"``, ``"autoencoder"``, …) with some fields replaced (``None`` values ignored), e.g.
    ``preset("skip-thought", "default", max_steps=600)``."""
    from reproducer.presets import named  # here, not at the top: the command line reads the registry without torch

    return named(_family(family).presets, name, **overrides)

"""Named, frozen configurations per model family and scale: what every family shares, and the one lookup.

- ``smoke``: seconds, for tests and CI (a few books, tiny sizes, and the ``smoke`` evaluation: a fixed sample of 400
  records per split, one C). It checks that every cell runs; its numbers mean nothing.
- ``quick``: minutes per model on a 2-core CPU (about 25-70 minutes per chapter): a student's path to regenerate a
  table. The sizes of ``default``, trained 10-20× shorter: most models are still near their initialisation.
- ``default``: what the committed book shows, 2 to 5 hours per chapter on a 2-core CPU with the claims' quick
  seeds (each notebook's parameters cell states its measured cost): the sizes of ``quick``,
  each model trained until its held-out loss flattens or for about an epoch of our corpus (each chapter states its
  models' budgets and why). Smaller than the papers' models and trained for tens of minutes, not days: every chapter
  states the gap.
- ``paper``: the published sizes and budgets, for a GPU (unchanged code: the device is picked at run time).

:class:`~reproducer.train.Preset` owns the optimiser, the budget and the evaluation schedule; each family's preset (in its objective
module, e.g. :class:`reproducer.papers.skip_thoughts.objective.SkipThoughtPreset`, with its table ``PRESETS``) adds only its
sizes and loss settings. A notebook's parameters override single fields (the lookup by a family's name is the
registry's, :func:`reproducer.papers.registry.preset`)::

    preset("skip-thought", "default", max_steps=600)
"""
from __future__ import annotations

from reproducer.errors import ReproducerError
from reproducer.train import Preset

SCALES = ("smoke", "quick", "default", "paper")


def named(table: dict[str, Preset], name: str, **overrides) -> Preset:
    """``table[name]`` with ``overrides``; a clear error naming the scales otherwise."""
    if name not in table:
        raise ReproducerError(f"Unknown preset {name!r}; choose one of {', '.join(table)}.")
    return table[name].with_overrides(**overrides)


__all__ = ["SCALES", "Preset", "named"]

"""The papers of the book, one package each: ``reproducer/papers/<paper>/``.

A paper's package holds everything that is that paper's own:

- ``objective.py`` — the paper's model and loss (its equations beside the lines that compute them), its presets
  (``PRESETS``: ``smoke``, ``quick``, ``default``, ``paper``), its variants (``VARIANTS``: name → what the variant
  is), ``training_data(variant, preset)``, ``batch_flops(module, batch)`` and the fit function
  ``fit_<…>(variant, preset, data, *, checkpoint, evaluate, seed, device, progress)``;
- ``chapter.py`` and its siblings — the chapter's model set (train-or-reload through the family's ``fit``), its
  tables and its claims;
- ``__init__.py`` — one declaration, ``PAPER = Paper(...)``: what the book's shared code needs to know of it (its key
  in ``report/published.csv``, labels, chapter, families, models, the encoder chapter 06's explorer shows, its lines
  of the equal-compute study and the benchmark, the tasks it reports, the timings it prints).

The declaration's shape is :mod:`reproducer.declarations` (:class:`~reproducer.declarations.Paper`,
:class:`~reproducer.declarations.Family`, :class:`~reproducer.declarations.Model`,
:class:`~reproducer.declarations.Line`). :mod:`.registry` finds the declarations: every package in this folder — or in
any folder added to this package's ``__path__`` — that has a ``PAPER``; the chapters, the overview of chapters 00
and 06 (:mod:`reproducer.overview`) and the tools read them there; no other file lists the papers.

Layers (``tests/test_structure.py``): a paper's ``objective`` (and ``supervised``) sit with the shared objectives,
its declaration and the registry above them, its chapter modules with the reporting.
"""

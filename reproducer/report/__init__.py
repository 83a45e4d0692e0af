"""Reporting: published numbers as data, paper-vs-ours tables, claims, plots and the chapters' model units.
``compare``, ``compare_all`` and ``published`` are re-exported from :mod:`reproducer.report.published` (documented
there). What reads every paper at once (chapters 00 and 06) is :mod:`reproducer.overview`."""
from reproducer.report.published import compare, compare_all, published  # noqa: F401

"""Reporting: published numbers as data, paper-vs-ours tables, claims, and chapter 06 (the comparison). ``compare``
and ``published`` are re-exported from :mod:`reproducer.report.published` (documented there)."""
from reproducer.report.published import compare, published  # noqa: F401

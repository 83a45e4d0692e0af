"""Reporting: published numbers as data, paper-vs-ours tables."""
from reproducer.report.published import compare, published

__all__ = ["compare", "published"]

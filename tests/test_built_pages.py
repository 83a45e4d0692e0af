"""The built book's HTML read as a reader would, without a browser (issue 69).

Run after ``make book`` (``make test`` does both); skipped when the built book is missing, unless
``REPRODUCER_REQUIRE_BROWSER=1`` (CI sets it), as in test_book_browser.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
CHAPTERS = sorted((SITE / "notebooks").glob("*.html"))


@pytest.fixture(scope="module")
def pages():
    if not (SITE / "index.html").is_file():
        if os.environ.get("REPRODUCER_REQUIRE_BROWSER") == "1":
            pytest.fail(f"no built book at {SITE}")
        pytest.skip(f"no built book at {SITE} (run `make book`)")
    from bs4 import BeautifulSoup

    return {path.name: BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser") for path in CHAPTERS}


def test_every_figure_caption_sits_under_an_image(pages):
    """A cell's caption is on its plot only, never on the paragraph or table the cell also prints."""
    assert pages, "no chapter pages were built"
    bare = [(name, figure.figcaption.get_text(" ", strip=True)[:60]) for name, page in pages.items()
            for figure in page.find_all("figure") if figure.figcaption and not figure.find("img")]
    assert not bare, f"captions without an image: {bare}"


def test_figure_numbers_run_consecutively(pages):
    """Across the book's chapters the figures are numbered 1, 2, 3, … with no number skipped or repeated."""
    numbers = [int(match.group(1)) for name in sorted(pages) for figure in pages[name].find_all("figure")
               if figure.figcaption and (match := re.match(r"Fig\.\s*(\d+)", figure.figcaption.get_text(strip=True)))]
    assert numbers, "no numbered figure"
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), numbers

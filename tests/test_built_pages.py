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


def _chapter_links():
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import chapter_links

    return chapter_links


@pytest.mark.parametrize("text, linked", [
    ("as in chapter 01's table", [("as in ", None), ("chapter 01", "01.html"), ("'s table", None)]),
    ("chapters 01 and 02, or chapters 03-05", [("chapters ", None), ("01", "01.html"), (" and ", None),
                                               ("02", "02.html"), (", or chapters ", None), ("03", "03.html"),
                                               ("-", None), ("05", "05.html")]),
    ("chapter 06 of this page", [("chapter 06 of this page", None)]),  # the page itself (None): plain
    ("chapter 09", [("chapter 09", None)])])
def test_chapter_mentions_are_cut_into_links(text, linked):
    links = _chapter_links()
    assert links.pieces(text, lambda n: None if n in ("06", "09") else f"{n}.html") == linked


def test_chapter_links_in_html_leave_tags_links_and_code_alone():
    links = _chapter_links()
    markup = ('<td title="chapter 01">see chapter 01</td><a href="x">chapter 02</a><code>chapter 03</code>'
              '<style>.chapter 04{}</style>')
    assert links.link_html(markup, lambda n: f"{n}.html") == (
        '<td title="chapter 01">see <a class="chapter-link" href="01.html">chapter 01</a></td>'
        '<a href="x">chapter 02</a><code>chapter 03</code><style>.chapter 04{}</style>')
    assert links.chapters(str(ROOT))["02"] == "notebooks/02_quick_thoughts"


def test_every_chapter_mention_on_the_pages_is_a_link(pages):
    """Issue 69: "chapter 0x" linked everywhere (chapter 02 named other chapters 18 times with no link)."""
    mention = re.compile(r"\b[Cc]hapters? 0\d[ab]?\b")
    bare = []
    for name, page in pages.items():
        main = page.find("main")
        for node in main.find_all(string=mention):
            if node.find_parent(["a", "code", "pre", "script", "style", "h1", "h2", "h3", "h4"]) is None:
                own = name.startswith(mention.search(node).group().split()[-1])  # a page's mention of itself
                if not own:
                    bare.append((name, node.strip()[:60]))
    assert not bare, bare


@pytest.mark.parametrize("text, target", [
    ("reproducer.report.claims", ("reproducer.report.claims", "")),
    ("reproducer.report.claims.check", ("reproducer.report.claims", "reproducer.report.claims.check")),
    ("reproducer.evaluate.evaluate(encoder, tasks, config)",  # re-exported: where it is defined
     ("reproducer.evaluate.harness", "reproducer.evaluate.harness.evaluate")),
    ("reproducer/data/registry.json", None), ("numpy.mean", None)])
def test_a_quoted_module_name_finds_its_api_page(text, target):
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import api_links

    modules = api_links.api_modules(str(ROOT))
    assert "reproducer.report.claims" in modules
    found = api_links.api_target(text, modules)
    assert found == target


def test_every_quoted_module_name_on_the_pages_links_to_its_api_page(pages):
    """Issue 69: of 31 module names in the chapters' prose, 1 was linked."""
    bare = [(name, code.get_text()) for name, page in pages.items() for code in page.find("main").find_all("code")
            if re.match(r"reproducer\.[a-z]", code.get_text().strip()) and code.find_parent("a") is None
            and code.find_parent("pre") is None and code.find_parent(class_="cell_input") is None]
    assert not bare, bare


def test_every_api_link_reaches_its_page_and_anchor(pages):
    """A quoted name links to its API page, and to its entry only where autodoc documented one."""
    from bs4 import BeautifulSoup

    checked, broken, loaded = 0, [], {}
    for name, page in pages.items():
        for link in page.select("a.api-link"):
            target, _, anchor = link["href"].partition("#")
            path = (SITE / "notebooks" / target).resolve()
            if path not in loaded:
                loaded[path] = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser") if path.is_file() else None
            checked += 1
            if loaded[path] is None or (anchor and loaded[path].find(id=anchor) is None):
                broken.append((name, link["href"]))
    assert checked and not broken, broken

"""The built book in a real browser (headless Chromium), with the network cut off.

Run after ``make book`` (``make test`` does both). Every request that leaves 127.0.0.1 fails, so
math, figures and widgets that render prove that the book serves its own scripts. Skipped when
Chromium or the built book is missing, unless ``REPRODUCER_REQUIRE_BROWSER=1`` (CI sets it).
"""
from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
REQUIRED = os.environ.get("REPRODUCER_REQUIRE_BROWSER") == "1"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.browser


def _no_chromium() -> str | None:
    """Why the browser cannot run, or None."""
    if not (CHROMIUM and CHROMEDRIVER):
        return "Chromium/ChromeDriver not installed (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium not installed"
    return None


def _missing() -> str | None:
    if not (SITE / "index.html").is_file():
        return f"no built book at {SITE} (run `make book`)"
    return _no_chromium()


def _needs(problem: str | None) -> None:
    """Skip for ``problem`` (fail where CI requires the browser)."""
    if problem:
        if REQUIRED:
            pytest.fail(problem)
        pytest.skip(problem)


def _chromium():
    """Headless Chromium, 1280 × 2000, with the network cut off: every host name but localhost fails to resolve."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,2000", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    return driver


@pytest.fixture(scope="module")
def server():
    _needs(_missing())

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(SITE)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser(server):
    driver = _chromium()
    yield driver
    driver.quit()


def _open(browser, server, page: str):
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{server}/{page}")
    WebDriverWait(browser, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")
    return WebDriverWait(browser, 30)


def _external_requests(browser) -> list[str]:
    urls = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    return [u for u in urls if urlparse(u).hostname not in ("127.0.0.1", None)]


# Known and harmless: sphinx-thebe (pulled in by Jupyter Book 1) declares THEBE_JS_URL twice per page;
# thebe itself is never loaded. There is no favicon.
_KNOWN = ("THEBE_JS_URL", "favicon.ico")


def _errors(browser) -> list[str]:
    """Script errors and failed requests the browser logged since the last call."""
    return [e["message"] for e in browser.get_log("browser")
            if e["level"] == "SEVERE" and e["source"] in ("javascript", "network")
            and not any(k in e["message"] for k in _KNOWN)]


def _typeset(browser) -> int:
    return browser.execute_script("return document.querySelectorAll('mjx-container').length")


def test_math_is_typeset_offline(browser, server):
    wait = _open(browser, server, "book/evaluation.html")
    wait.until(lambda d: _typeset(d) > 0)
    assert browser.execute_script("return document.querySelectorAll('mjx-merror, .MathJax_Error').length") == 0
    scripts = browser.execute_script("return [...document.scripts].map(s => s.src).filter(Boolean)")
    assert any(urlparse(s).path.endswith("/_static/mathjax/es5/tex-chtml.js") for s in scripts), scripts
    assert _external_requests(browser) == []
    assert _errors(browser) == []


def test_evaluation_chapter_shows_the_senteval_agreement_table(browser, server):
    _open(browser, server, "book/evaluation.html")
    rows = browser.execute_script(
        "const t = [...document.querySelectorAll('table')].find(t => t.innerText.includes('ours − SentEval'));"
        "return t ? [...t.querySelectorAll('tbody tr')].map(r => r.cells[0].innerText.trim()).filter(Boolean) : null")
    assert rows == ["MR", "CR", "SUBJ", "MPQA", "TREC", "MRPC", "SICK-E", "SICK-R", "STS12", "STS13", "STS14",
                    "STS15", "STS16"], rows
    text = browser.find_element("tag name", "main").text
    assert "faster" in text and "SentEval (commit" in text


def test_data_chapter_figures_and_tables(browser, server):
    _open(browser, server, "notebooks/00_data.html")
    images = browser.execute_script(
        "return [...document.querySelectorAll('.cell_output img')].map(i => [i.complete, i.naturalWidth])")
    assert images and all(ok and width > 100 for ok, width in images), images
    rows = browser.execute_script(
        "return [...document.querySelectorAll('.cell_output table')].map(t => t.querySelectorAll('tbody tr').length)")
    assert len(rows) >= 4 and min(rows) >= 1, rows
    text = browser.find_element("tag name", "main").text
    assert "BookCorpus (paper)" in text and "74,004,228" in text
    assert _external_requests(browser) == []
    assert _errors(browser) == []


def _shown_query(browser) -> str | None:
    return browser.execute_script(
        "const r = [...document.querySelectorAll('.nn-explorer .nn-result')].filter(e => e.offsetParent !== null);"
        "return r.length === 1 ? r[0].dataset.query + '\\n' + r[0].innerText : null;")


@pytest.mark.parametrize("page", ["notebooks/00b_baselines.html", "notebooks/01_skip_thoughts.html",
                                  "notebooks/02_quick_thoughts.html", "notebooks/03_paraphrastic.html",
                                  "notebooks/04_consensus.html", "notebooks/05_mean_max_aae.html",
                                  "notebooks/06_comparison.html"])
def test_explorer_switches_queries_without_a_kernel(browser, server, page):
    from selenium.webdriver.support.ui import Select

    wait = _open(browser, server, page)
    assert browser.execute_script(
        "return [...document.querySelectorAll('.cell_output img')].filter(i => i.complete && i.naturalWidth > 100).length") >= 2
    wait.until(lambda d: d.find_elements("css selector", ".nn-explorer select"))
    first = wait.until(_shown_query)
    select = Select(browser.find_element("css selector", ".nn-explorer select"))
    assert len(select.options) >= 3
    select.select_by_index(2)
    second = wait.until(lambda d: (s := _shown_query(d)) and s != first and s)
    assert second.split("\n")[0] != first.split("\n")[0]
    # the shown neighbour table has one column per encoder and a cosine in each filled cell
    cosines = browser.execute_script(
        "const r = [...document.querySelectorAll('.nn-explorer .nn-result')].find(e => e.offsetParent !== null);"
        "return [...r.querySelectorAll('.nn-cos')].map(c => parseFloat(c.textContent));")
    assert cosines and all(-1.0 <= c <= 1.0 for c in cosines)
    # the live explorer's output is removed from the static page: it would not respond without a kernel
    assert not browser.find_elements("css selector", ".nn-explorer-live")
    assert _external_requests(browser) == []
    assert _errors(browser) == []  # e.g. the widget manager's fonts resolve under _static/widgets/


CHAPTERS = ["notebooks/00_data.html", "notebooks/00b_baselines.html", "notebooks/01_skip_thoughts.html",
            "notebooks/02_quick_thoughts.html", "notebooks/03_paraphrastic.html", "notebooks/04_consensus.html",
            "notebooks/05_mean_max_aae.html", "notebooks/06_comparison.html"]
#: The first screen of a 1280-px-wide window (a laptop's): where a chapter's claims box must start.
FIRST_SCREEN = 1000
#: The smallest share of its pixels a figure may be shown at: the book draws no text below 10 pt at 110 dpi
#: (reproducer.plot_style.SMALLEST_FONT), which reads at 11 px or more from 72% of its size up.
SMALLEST_SCALE = 11 / (10 * 110 / 72)


@pytest.mark.parametrize("page", ["book/intro.html", *CHAPTERS[2:]])
def test_the_verdict_is_on_the_first_screen(browser, server, page):
    """The intro and every paper's chapter (and chapter 06's scorecard) open with the claims box (issue 41)."""
    _open(browser, server, page)
    box = browser.execute_script(
        "const b = document.querySelector('.claims-box');"
        "return b ? [b.getBoundingClientRect().top + window.scrollY, b.innerText] : null")
    assert box, f"{page}: no claims box"
    top, text = box
    assert top < FIRST_SCREEN, f"{page}: the claims box starts {top:.0f} px down the page"
    assert ("reproduced" in text or "inconclusive" in text) and ("Setting:" in text or "The verdict" in text), text


@pytest.mark.parametrize("page", CHAPTERS)
def test_pages_show_no_plumbing_and_no_unboxed_overflow(browser, server, page):
    """No cache line or progress bar is rendered; every table fits the text column or scrolls in its own box; every
    figure has a caption and is shown large enough for its smallest text to read at 11 px."""
    _open(browser, server, page)
    text = browser.find_element("tag name", "main").text
    for plumbing in ("[reused]", "[computed in", "[recomputed in", "preset=default seed=0 retrain="):
        assert plumbing not in text, f"{page} shows {plumbing!r}"
    assert not browser.find_elements("css selector", ".widget-hprogress, progress"), f"{page} shows a progress bar"
    overflowing = browser.execute_script("""
        const column = document.querySelector('article.bd-article');
        const width = column.getBoundingClientRect().width;
        const bad = [];
        for (const table of column.querySelectorAll('table')) {
          if (table.offsetParent === null || table.scrollWidth <= width + 1) continue;
          let boxed = false;
          for (let e = table.parentElement; e && e !== column; e = e.parentElement) {
            const o = getComputedStyle(e).overflowX;
            if ((o === 'auto' || o === 'scroll') && e.getBoundingClientRect().width <= width + 1) { boxed = true; break; }
          }
          if (!boxed) bad.push(table.innerText.slice(0, 80));
        }
        return bad;""")
    assert not overflowing, f"{page}: tables wider than the text column, not boxed: {overflowing}"
    figures = browser.execute_script("""
        return [...document.querySelectorAll('article.bd-article .cell_output img')].map(i => {
          const f = i.closest('figure'); const c = f && f.querySelector('figcaption');
          return [i.getAttribute('src'), c ? c.innerText.trim().length : 0, i.clientWidth / i.naturalWidth,
                  i.getAttribute('alt') || ''];
        });""")
    for src, caption, scale, alt in figures:
        assert caption > 40, f"{page}: figure {src} has no caption"
        assert scale >= SMALLEST_SCALE, f"{page}: figure {src} shown at {scale:.0%} of its size"
        assert alt and not alt.endswith(".png"), f"{page}: figure {src} has the alt text {alt!r}"


def test_chapters_link_each_other(browser, server):
    _open(browser, server, "notebooks/06_comparison.html")
    targets = browser.execute_script(
        "return [...document.querySelectorAll('article.bd-article a')].map(a => a.getAttribute('href') || '')")
    linked = {t.split("#")[0] for t in targets if t.split("#")[0].endswith(".html") and t[:2] in ("00", "01", "02",
                                                                                                  "03", "04", "05")}
    assert len(linked) >= 4, linked


def test_api_reference_and_bibliography(browser, server):
    """The API index links one page per module; a module's page documents its functions and classes, each with a
    link to its highlighted source (sphinx.ext.viewcode)."""
    from selenium.webdriver.support import expected_conditions as EC

    wait = _open(browser, server, "book/api.html")
    modules = browser.execute_script(
        "return [...document.querySelectorAll('article.bd-article a')].map(a => a.getAttribute('href') || '')"
        ".filter(h => h.startsWith('api/reproducer.'))")
    assert len(modules) >= 40, modules
    link = browser.find_element("css selector", "article.bd-article a[href^='api/reproducer.evaluate.uncertainty.']")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    link.click()
    wait.until(EC.url_contains("book/api/reproducer.evaluate.uncertainty.html"))
    wait.until(lambda d: d.execute_script("return document.readyState") == "complete")
    n = browser.execute_script("return document.querySelectorAll('dl.py.function, dl.py.class').length")
    assert n >= 3, n
    sources = browser.execute_script(
        "return document.querySelectorAll('a .viewcode-link, a[href*=\"_modules/\"]').length")
    assert sources >= n, (sources, n)
    _open(browser, server, "book/references.html")
    text = browser.find_element("tag name", "main").text
    assert "Skip-thought vectors" in text and "Mean-Max Attention Autoencoder".lower() in text.lower()
    _open(browser, server, "book/intro.html")
    citations = browser.execute_script("return [...document.querySelectorAll('a')].filter(a => a.href.includes('references.html#')).length")
    assert citations >= 5


# --- The search explorer (reproducer.report.explorer.search_explorer), from file:// without a built book ---


@pytest.fixture()
def local_browser():
    """Headless Chromium (as ``browser``) for pages written in ``tmp_path``: no built book needed."""
    _needs(_no_chromium())
    driver = _chromium()
    yield driver
    driver.quit()


def _search_table(browser) -> dict | None:
    return browser.execute_script(
        "const r = document.querySelector('.nn-search .nn-search-result');"
        "const t = r && r.querySelector('table.nn-table');"
        "return t ? {query: r.querySelector('p').innerText, head: [...t.tHead.rows[0].cells].map(c => c.innerText),"
        " cells: [...t.tBodies[0].rows].map(row => [...row.cells].slice(1).map(c => c.innerText))} : null;")


def test_search_explorer_finds_any_pool_sentence_offline_from_file(local_browser, tmp_path):
    import numpy as np
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    from reproducer.report import explorer

    rng = np.random.default_rng(0)
    words = ["river", "stone", "night", "garden", "letter", "window", "horse", "silver"]
    pool = [" ".join(rng.choice(words, 4)) + f" {i} ." for i in range(80)]
    pool[5] = 'the river said "</script><b>no</b>" \\ and left .'
    neighbours = {name: explorer.pool_neighbours(
                      explorer.NeighbourIndex(name, None, pool, v / np.linalg.norm(v, axis=1, keepdims=True)))
                  for name, v in [(name, rng.standard_normal((80, 6)).astype(np.float32))
                                  for name in ("BoW", "Skip-thought", "Quick-thought")]}
    page = explorer.search_explorer(pool, neighbours, key="toy", folder=tmp_path / "_static",
                                    display=str.capitalize, note="A toy pool.")
    tag = '<script src="../_static/explorer_toy.js"></script>'
    assert tag in page.data
    explorer.unpack_explorers(tmp_path / "_static", tmp_path / "_static")  # as the book does when it is built
    (tmp_path / "notebooks").mkdir()
    for name, markup in [("index.html", page.data),  # the data script runs first, as in the book
                         ("late.html", page.data.replace(tag, "") + tag)]:  # or after the page's script
        (tmp_path / "notebooks" / name).write_text(
            f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>{markup}</body></html>', encoding="utf-8")

    browser = local_browser
    for name in ("index.html", "late.html"):
        browser.get((tmp_path / "notebooks" / name).as_uri())
        wait = WebDriverWait(browser, 30)
        search = wait.until(lambda d: (e := d.find_element("css selector", ".nn-search-input")).is_enabled() and e)
        assert search.get_attribute("placeholder") == "Search the 80 held-out sentences"
        search.send_keys("RIVER")
        hits = wait.until(lambda d: d.find_elements("css selector", ".nn-search-hit"))
        assert 1 <= len(hits) <= 15 and all("river" in h.text.lower() for h in hits)
        chosen = hits[0].text
        hits[0].click()
        table = wait.until(_search_table)
        i = [str.capitalize(s) for s in pool].index(chosen)
        assert table["query"] == f"Query: {chosen}"
        assert table["head"] == ["#", "BoW", "Skip-thought", "Quick-thought"]
        assert len(table["cells"]) == 5 and all(len(row) == 3 for row in table["cells"])
        for column, found in enumerate(neighbours.values()):
            for rank in range(5):
                cosine, text = table["cells"][rank][column].split(" ", 1)
                assert -1.0 <= float(cosine) <= 1.0 and float(cosine) == round(float(found["cosines"][i, rank]), 3)
                assert text == str.capitalize(pool[found["ids"][i, rank]])
        # Enter takes the first match; the sentence with markup in it shows as text
        search.clear()
        search.send_keys("said", Keys.ENTER)
        wait.until(lambda d, before=f"Query: {chosen}": (t := _search_table(d)) and t["query"] != before)
        assert _search_table(browser)["query"] == "Query: " + str.capitalize(pool[5])
        assert not browser.find_elements("css selector", ".nn-search b:not(.nn-search-result p > b)")
        assert _errors(browser) == []


def test_the_baselines_explorer_searches_the_whole_pool(browser, server):
    """Chapter 00b's search box (issue 41): a word typed lists pool sentences that contain it; picking one shows each
    encoder's five neighbours from the data the page loads itself (served from _static/, no kernel, no network)."""
    from selenium.webdriver.support.ui import WebDriverWait

    wait = _open(browser, server, "notebooks/00b_baselines.html")
    search = WebDriverWait(browser, 30).until(
        lambda d: (e := d.find_element("css selector", ".nn-search-input")).is_enabled() and e)
    assert search.get_attribute("placeholder") == "Search the 20,000 held-out sentences"
    search.send_keys("garden")
    hits = wait.until(lambda d: d.find_elements("css selector", ".nn-search-hit"))
    assert hits and all("garden" in h.text.lower() for h in hits)
    hits[0].click()
    table = wait.until(_search_table)
    assert table["query"] == f"Query: {hits[0].text}"
    assert table["head"] == ["#", "glove-bow", "sif-glove", "word2vec-bow", "minilm"]
    assert len(table["cells"]) == 5
    for row in table["cells"]:
        for cell in row:
            cosine, text = cell.split(" ", 1)
            assert -1.0 <= float(cosine) <= 1.0 and text
    assert _external_requests(browser) == []
    assert _errors(browser) == []

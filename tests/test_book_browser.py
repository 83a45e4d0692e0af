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


def _missing() -> str | None:
    if not (SITE / "index.html").is_file():
        return f"no built book at {SITE} (run `make book`)"
    if not (CHROMIUM and CHROMEDRIVER):
        return "Chromium/ChromeDriver not installed (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium not installed"
    return None


@pytest.fixture(scope="module")
def server():
    problem = _missing()
    if problem:
        if REQUIRED:
            pytest.fail(problem)
        pytest.skip(problem)
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
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,2000",
                # no network: every host name but localhost fails to resolve
                "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
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


def test_api_reference_and_bibliography(browser, server):
    _open(browser, server, "book/api.html")
    n = browser.execute_script("return document.querySelectorAll('dl.py.function, dl.py.class').length")
    assert n >= 40, n
    _open(browser, server, "book/references.html")
    text = browser.find_element("tag name", "main").text
    assert "Skip-thought vectors" in text and "Mean-Max Attention Autoencoder".lower() in text.lower()
    _open(browser, server, "book/intro.html")
    citations = browser.execute_script("return [...document.querySelectorAll('a')].filter(a => a.href.includes('references.html#')).length")
    assert citations >= 5

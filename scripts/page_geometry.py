"""Where the reader finds the verdicts on the built book's pages (issue 69's closing measurement): for each page, in a
1280 x 800 headless Chromium window, the page's height and its claims box's top, height and width, and on chapter 06
the compact verdict tables'; as a Markdown table (or JSON with ``--json``).

    python scripts/page_geometry.py [_build/html] [--json]

Needs the built book (``make book``) and Chromium with ChromeDriver, as the browser tests do.
"""
from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

PAGES = ["book/intro.html", "notebooks/01_skip_thoughts.html", "notebooks/02_quick_thoughts.html",
         "notebooks/03_paraphrastic.html", "notebooks/04_consensus.html", "notebooks/05_mean_max_aae.html",
         "notebooks/06_comparison.html"]
#: What is measured on every page: the first element each selector finds (none: not on that page).
ELEMENTS = {"claims box": ".claims-box", "verdicts": ".verdicts", "whole verdicts": ".verdicts.whole"}
MEASURE = """
const out = {height: document.documentElement.scrollHeight,
             column: document.querySelector('main, .bd-article, article').getBoundingClientRect().width};
for (const [name, selector] of Object.entries(arguments[0])) {
    const e = document.querySelector(selector);
    if (e) { const r = e.getBoundingClientRect();
             out[name] = {top: r.top + window.scrollY, height: r.height, width: e.scrollWidth}; }
}
return out;"""


def measure(site: Path) -> dict[str, dict]:
    """Each page of :data:`PAGES` in ``site``: its height, its text column's width and :data:`ELEMENTS`' boxes."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,800"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        found = {}
        for page in PAGES:
            driver.get((site / page).resolve().as_uri())
            found[page] = driver.execute_script(MEASURE, ELEMENTS)
        return found
    finally:
        driver.quit()


def markdown(found: dict[str, dict]) -> str:
    """One row per page and element: top, height and width in px (the page's height and text column beside)."""
    lines = ["| page | height | column | element | top | height | width |", "|---|---|---|---|---|---|---|"]
    for page, m in found.items():
        for name in ELEMENTS:
            if name in m:
                e = m[name]
                lines.append(f"| {Path(page).stem} | {m['height']:,.0f} | {m['column']:,.0f} | {name} | "
                             f"{e['top']:,.0f} | {e['height']:,.0f} | {e['width']:,.0f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", default="_build/html", type=Path)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    args = parser.parse_args()
    found = measure(args.site)
    print(json.dumps(found, indent=1) if args.json else markdown(found))


if __name__ == "__main__":
    main()

"""``python -m reproducer book table``: one table of a chapter regenerated, its cells run only up to it (issue 69)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from reproducer.errors import ReproducerError
from reproducer.report.page import Page
from reproducer.table_command import regenerate_table, tables_in

CHECKOUT = Path(__file__).resolve().parents[1]


def _notebook(tmp_path) -> Path:
    """A chapter-like notebook: a parameters cell, two tables, then a cell that must not run for table 1."""
    cells = [nbformat.v4.new_code_cell('preset: str = "default"', metadata={"tags": ["parameters"]}),
             nbformat.v4.new_code_cell("import pandas as pd\nfrom reproducer.report.page import Page\n"
                                       "page = Page('00_data')\nscale = 10 if preset == 'quick' else 1"),
             nbformat.v4.new_code_cell("page.table(pd.DataFrame({'MR': [70.6543 + scale]}, index=['MC-QT']))"),
             nbformat.v4.new_code_cell("open('reached', 'w').close()"),
             nbformat.v4.new_code_cell("page.table(pd.DataFrame({'steps': [1600]}), index=False, name='steps.csv')")]
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "language": "python",
                                                                        "display_name": "Python 3"}})
    path = tmp_path / "toy.ipynb"
    nbformat.write(nb, path)
    return path


def test_a_tables_link_carries_its_number_and_csv():
    page = Page("02_quick_thoughts")
    import pandas as pd

    html = page.table(pd.DataFrame({"a": [1.5]})).html + page.table(pd.DataFrame({"b": [2]}), name="b.csv").html
    assert tables_in(html) == {1: ("02_quick_thoughts-table1.csv", ",a\n0,1.5\n"), 2: ("b.csv", ",b\n0,2\n")}
    assert "book table 02_quick_thoughts 1" in html and "book table 02_quick_thoughts 2" in html
    assert html.count("Retrain the chapter") == 1  # the whole-chapter command once a page, under its first table


def test_one_table_is_regenerated_and_nothing_after_it_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRODUCER_QUIET", "1")
    path = _notebook(tmp_path)
    first = regenerate_table(path, 1, "quick", out=tmp_path / "one.csv")
    assert first.read_text() == ",MR\nMC-QT,80.6543\n"  # full precision, at the preset asked
    assert not (tmp_path / "reached").exists()
    second = regenerate_table(path, 2, out=tmp_path / "two.csv")
    assert second.read_text() == "steps\n1600\n" and (tmp_path / "reached").exists()
    with pytest.raises(ReproducerError, match="shows 2 tables at 'default', not 3"):
        regenerate_table(path, 3, out=tmp_path / "three.csv")


def test_the_command_refuses_bad_input(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "reproducer", "book", "table", *args], capture_output=True,
                              text=True, cwd=tmp_path)

    assert run("02_quick_thoughts", "0").returncode != 0
    missing = run("no_such_chapter", "1")
    assert missing.returncode != 0 and "No notebook 'no_such_chapter'" in missing.stderr

"""``python -m reproducer book table CHAPTER N``: regenerate one table of a chapter, not the whole chapter (issue 69,
item 7).

The chapter's notebook runs cell by cell at the preset asked (``default``: the committed results, reused) until the
cell that shows its ``N``-th table (:meth:`~reproducer.report.page.Page.table` numbers them and marks each one's
download link with ``data-table="N"``); nothing after it runs. The table is written as the CSV that link carries (full
precision) and its size and the seconds taken are printed. What the earlier cells need is built first where a machine
lacks it (the corpus and word vectors the cached results were computed from); every cached result is reused.
"""
from __future__ import annotations

import base64
import re
import time
from pathlib import Path

from reproducer.errors import ReproducerError
from reproducer.files import check_writable, write_text

#: A table's download link as :meth:`~reproducer.report.page.Page.download` writes it.
LINK = re.compile(r'<a class="download" data-table="(\d+)" download="([^"]+)" href="data:text/csv;charset=utf-8;'
                  r'base64,([A-Za-z0-9+/=]+)"')


def tables_in(html: str) -> dict[int, tuple[str, str]]:
    """The tables whose download links are in ``html``: number → (file name, CSV text)."""
    return {int(n): (name, base64.b64decode(data).decode("utf-8")) for n, name, data in LINK.findall(html)}


def _html(outputs) -> str:
    return "".join(str(o.get("data", {}).get("text/html", "")) for o in outputs)


def regenerate_table(path: str | Path, number: int, preset: str = "default", out: str | Path | None = None,
                     kernel: str = "python3") -> Path:
    """Run notebook ``path`` at ``preset`` up to the cell that shows its ``number``-th table and write that table's
    CSV to ``out`` (default: the file name its link gives, in the working folder); returns the file written."""
    from nbclient import NotebookClient
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    path = Path(path)
    if number < 1:
        raise ReproducerError(f"Tables are numbered from 1, got {number}.")
    if not path.is_file():
        raise ReproducerError(f"No notebook {path}.")
    if out is not None:
        check_writable(out)
    nb = parameterize_notebook(load_notebook_node(str(path)), {"preset": preset})  # as papermill runs it
    client = NotebookClient(nb, timeout=None, kernel_name=kernel, resources={"metadata": {"path": str(path.parent)}})
    t0, shown = time.perf_counter(), 0
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            client.execute_cell(cell, index)
            found = tables_in(_html(cell.outputs))
            shown = max([shown, *found])
            if number in found:
                name, text = found[number]
                target = Path(out or name)
                write_text(target, text)
                rows = text.count("\n") - 1
                print(f"table {number} of {path.name} at {preset!r}: {rows} rows -> {target} "
                      f"({time.perf_counter() - t0:.0f} s, cells 1-{index + 1} of {len(nb.cells)})")
                return target
    raise ReproducerError(f"{path.name} shows {shown} tables at {preset!r}, not {number}.")

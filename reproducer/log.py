"""Where the library's plumbing goes: cache lines and progress bars, on screen while you work, off the book's pages.

The notebooks say what they reuse and what they compute (``[reused] results/…``, ``[computed in 448.9 s] …``) and
show a progress bar on long work. A reader of the rendered book needs neither, so when a notebook is executed *for
the book* — ``REPRODUCER_QUIET=1`` in the environment, which ``make reproduce`` and ``python -m reproducer book
smoke`` set — the lines go to the run's log file (``results/<chapter>/<preset>/run.log``, git-ignored) and the
progress bars are off. Executed by hand, in Jupyter or with ``papermill``, both stay on screen.
"""
from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from tqdm.auto import tqdm

#: The library's logger: the notebooks' cache lines and run headers.
logger = logging.getLogger("reproducer")
#: The environment variable that executes notebooks for the book (``"1"``): plumbing off the page.
QUIET_ENV = "REPRODUCER_QUIET"
_HANDLER = "reproducer-notebook"


class _Stdout(logging.Handler):
    """Writes to whatever ``sys.stdout`` is when a line is logged (the kernel's, or a test's capture)."""

    def emit(self, record: logging.LogRecord) -> None:
        print(self.format(record), file=sys.stdout, flush=True)


def quiet() -> bool:
    """Whether plumbing stays off the page: ``REPRODUCER_QUIET`` is set to anything but ``""``/``"0"``."""
    return os.environ.get(QUIET_ENV, "") not in ("", "0")


def progress_bar(iterable=None, *, disable: bool = False, **options) -> tqdm:
    """``tqdm.auto.tqdm`` (a widget in Jupyter, text in a terminal), off when :func:`quiet`."""
    return tqdm(iterable, disable=disable or quiet(), **options)


def note(message: str) -> None:
    """A note for whoever runs the notebook — why a product is left out, what the next run will do: printed when the
    notebook is executed by hand, in the run's log (:data:`logger`, as a warning) when executed for the book, whose
    page says what matters in its prose (issue 69: such notes were stored on the page)."""
    if quiet():
        logger.warning(message)
    else:
        print(message, flush=True)


def _appendable(path: Path) -> bool:
    """Whether ``path`` can be appended to (its folder made if missing): a read-only results folder cannot."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8"):
            return True
    except OSError:
        return False


def log_to(log_file: str | Path | None = None) -> None:
    """Send :data:`logger`'s lines to ``log_file`` when :func:`quiet` (appended; nowhere when it cannot be written,
    e.g. a read-only results folder), else to standard output (the notebook's output), replacing what an earlier
    call set up (a notebook cell run twice logs once)."""
    for handler in [h for h in logger.handlers if h.get_name() == _HANDLER]:
        logger.removeHandler(handler)
        handler.close()
    if quiet() and log_file is not None and _appendable(Path(log_file)):
        handler = logging.FileHandler(log_file, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    elif quiet():
        handler = logging.NullHandler()
    else:
        handler = _Stdout()
    handler.set_name(_HANDLER)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False

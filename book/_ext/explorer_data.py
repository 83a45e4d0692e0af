"""The book's Sphinx extension for the search explorers' data: results/explorer/ commits each explorer as a file that
names its data (the pool's sentences, stored once, and the chapters' committed searches: the repository and the GPU
pack must fit one device call's 64 MiB), and the scripts the pages load are assembled from them into the built site's
_static/ (reproducer.report.explorer.unpack_explorers), once the build has copied the static files."""
from pathlib import Path


def _unpack(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        from reproducer.report.explorer import unpack_explorers

        unpack_explorers(Path(app.srcdir) / "results" / "explorer", Path(app.outdir) / "_static")


def setup(app):
    app.connect("build-finished", _unpack)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""The book's Sphinx extension that keeps a figure caption on figures only.

MyST-NB stamps a cell's ``mystnb.figure`` caption on *each* of the cell's display outputs, so a cell that prints a
paragraph or a table beside its plot showed the same "Fig. N" caption under the text as well (issue 69: 20 of 44
captions). This read-time transform unwraps every such figure whose output holds no image: the paragraph or table
stays where it was, without the caption, and only the image keeps it — so figure numbers run consecutively over
images. It runs before Sphinx's ``AutoNumbering`` (priority 210), which would give the captioned text an id to number.
"""
from docutils import nodes
from sphinx.transforms import SphinxTransform


def holds_image(figure: nodes.figure) -> bool:
    """Whether one of ``figure``'s MyST-NB output bundles offers an ``image/*`` rendering."""
    return any(str(node.get("mime_type", "")).startswith("image/") for node in figure.findall(nodes.container))


def is_notebook_output(figure: nodes.figure) -> bool:
    """Whether ``figure`` is MyST-NB's wrapper of a cell output (a figure written in Markdown is left alone)."""
    return any(node.get("nb_element") == "mime_bundle" for node in figure.children)


class CaptionsOnFiguresOnly(SphinxTransform):
    """Replace each notebook-output figure that holds no image by its output (caption and legend dropped)."""

    default_priority = 200

    def apply(self, **kwargs) -> None:
        for figure in list(self.document.findall(nodes.figure)):
            if is_notebook_output(figure) and not holds_image(figure):
                kept = [child for child in figure.children if not isinstance(child, (nodes.caption, nodes.legend))]
                figure.replace_self(kept)


def setup(app):
    app.add_transform(CaptionsOnFiguresOnly)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

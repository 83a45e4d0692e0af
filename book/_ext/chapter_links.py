"""The book's Sphinx extension that links every mention of a chapter ("chapter 01", "chapters 03 and 04",
"chapters 01-05") to that chapter's page, in the prose and in the notebooks' outputs (tables, claims, notes) alike.

The chapters' texts name each other often (chapter 02: 18 mentions, none linked — issue 69); writing each link by
hand misses the ones that the library's strings produce at execution (a claim's wording, a table's caption). This
post-transform runs at write time, when the builder can say each page's relative address: text nodes outside links,
code and titles get reference nodes; HTML outputs (raw nodes) get ``<a>`` elements outside their tags, links, code and
scripts. A page's mentions of itself stay plain.
"""
import functools
import re
from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

#: "chapter 02", "chapters 01 and 02", "chapters 03, 04 and 05", "chapters 01-05" (each number linked).
MENTION = re.compile(r"\b([Cc]hapters?)(\s+)(0\d[ab]?(?:(?:,\s+|\s+and\s+|\s+or\s+|\s*[-–]\s*)0\d[ab]?)*)")
NUMBER = re.compile(r"0\d[ab]?")
#: Raw HTML: a tag, or an element whose text is never linked (a link, code, a script or style block).
_SKIPPED = re.compile(r"<(a|code|pre|script|style)\b[^>]*>.*?</\1\s*>|<[^>]+>", re.S | re.I)
_LEAVE = (nodes.reference, nodes.literal, nodes.title, nodes.raw, nodes.target, nodes.FixedTextElement)


@functools.lru_cache
def chapters(srcdir: str) -> dict[str, str]:
    """Chapter number → its docname: ``notebooks/01_skip_thoughts.ipynb`` gives ``"01"`` →
    ``notebooks/01_skip_thoughts`` (read once per build, not once per page)."""
    notebooks = sorted(Path(srcdir, "notebooks").glob("0*.ipynb"))
    named = (re.match(rf"({NUMBER.pattern})_", path.stem) for path in notebooks)
    return {match.group(1): f"notebooks/{match.string}" for match in named if match}


def pieces(text: str, target) -> list[tuple[str, str | None]]:
    """``text`` cut into ``(words, address or None)``: a one-chapter mention ("chapter 01") whole, or each number of
    a list ("chapters 01 and 02"), with ``target(number)``'s address (None: no such chapter, or the page itself)."""
    out, last = [], 0
    for mention in MENTION.finditer(text):
        start, numbers = mention.start(3), list(NUMBER.finditer(mention.group(3)))
        for number in numbers:
            address = target(number.group())
            if address is None:
                continue
            a, b = start + number.start(), start + number.end()
            if len(numbers) == 1:  # "chapter 01" is the link; in "chapters 01 and 02" each number is one
                a = mention.start()
            out.append((text[last:a], None))
            out.append((text[a:b], address))
            last = b
    out.append((text[last:], None))
    return [(words, address) for words, address in out if words]


def link_html(markup: str, target) -> str:
    """``markup`` with each chapter mention in its text (not in tags, links, code or scripts) as an ``<a>``."""
    out, last = [], 0
    for skipped in _SKIPPED.finditer(markup):
        out.append(_linked_text(markup[last:skipped.start()], target))
        out.append(skipped.group())
        last = skipped.end()
    out.append(_linked_text(markup[last:], target))
    return "".join(out)


def _linked_text(text: str, target) -> str:
    return "".join(f'<a class="chapter-link" href="{address}">{words}</a>' if address else words
                   for words, address in pieces(text, target))


class ChapterLinks(SphinxPostTransform):
    """Link the chapter mentions of every HTML page (see the module)."""

    default_priority = 900
    formats = ("html",)

    def run(self, **kwargs) -> None:
        known = chapters(self.app.srcdir)
        here = self.env.docname

        def target(number: str) -> str | None:
            docname = known.get(number)
            if docname is None or docname == here:
                return None
            return self.app.builder.get_relative_uri(here, docname)

        for text in list(self.document.findall(nodes.Text)):
            if any(isinstance(parent, _LEAVE) for parent in _ancestors(text)) or not MENTION.search(text.astext()):
                continue
            parts = pieces(text.astext(), target)
            if all(address is None for _, address in parts):
                continue
            text.parent.replace(text, [nodes.reference(words, words, refuri=address, classes=["chapter-link"])
                                       if address else nodes.Text(words) for words, address in parts])
        for raw in list(self.document.findall(nodes.raw)):
            if "html" in raw.get("format", "").split() and MENTION.search(raw.astext()):
                linked = link_html(raw.astext(), target)
                if linked != raw.astext():
                    raw.replace_self(nodes.raw("", linked, format="html"))


def _ancestors(node):
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def setup(app):
    app.add_post_transform(ChapterLinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

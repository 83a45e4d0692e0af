"""The book's Sphinx extension that links each module name the pages quote as code (```reproducer.report.claims```,
```reproducer.report.claims.check```) to its page of the API reference (and the object's anchor on it).

The chapters name the library's modules where they say where a number comes from, but linked 1 of 31 (issue 69).
A write-time post-transform: an inline literal whose text is a documented module (``book/api/<module>.md``), or an
object of one, becomes a link; code blocks, links and the API pages' own signatures are left alone.
"""
import functools
import importlib
import re
from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

DOTTED = re.compile(r"^(reproducer(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?:\(.*\))?$")


@functools.lru_cache
def api_modules(srcdir: str) -> frozenset[str]:
    """The modules with a page in the API reference (``book/api/<module>.md``; read once per build)."""
    return frozenset(path.stem for path in Path(srcdir, "book", "api").glob("reproducer*.md"))


def api_target(text: str, modules: frozenset[str]) -> tuple[str, str] | None:
    """``(module, anchor)`` for a quoted dotted name: the longest documented module it starts with and, when it
    names an object of it, that object's full name as the anchor (autodoc's ids); ``None`` otherwise."""
    match = DOTTED.match(text.strip())
    if not match:
        return None
    parts = match.group(1).split(".")
    for end in range(len(parts), 0, -1):
        module = ".".join(parts[:end])
        if module in modules:
            return (module, "") if end == len(parts) else defined_in(module, parts[end:], modules)
    return None


def defined_in(module: str, names: list[str], modules: frozenset[str]) -> tuple[str, str]:
    """``(module, anchor)`` of the object ``module.names…``: where it is defined when that module has an API page
    (a package re-exports what its modules define: ``reproducer.evaluate.evaluate`` is documented in
    ``reproducer.evaluate.harness``), else the quoted module and name."""
    quoted = (module, ".".join([module, *names]))
    try:
        obj = importlib.import_module(module)
        for name in names:
            obj = getattr(obj, name)
    except (ImportError, AttributeError):
        return quoted
    home, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return (home, f"{home}.{qualname}") if home in modules and qualname else quoted


class ApiLinks(SphinxPostTransform):
    """Link the module names quoted as inline code (see the module)."""

    default_priority = 901
    formats = ("html",)

    def run(self, **kwargs) -> None:
        modules = api_modules(self.app.srcdir)
        documented = self.env.get_domain("py").objects  # full name -> where autodoc documented it
        here = self.env.docname
        for literal in list(self.document.findall(nodes.literal)):
            if isinstance(literal.parent, (nodes.reference, nodes.FixedTextElement)) or "xref" in literal["classes"]:
                continue
            found = api_target(literal.astext(), modules)
            if found is None or f"book/api/{found[0]}" == here:
                continue
            module, anchor = found
            if anchor not in documented:  # an object autodoc does not show (no docstring): the module's page
                anchor = ""
            uri = self.app.builder.get_relative_uri(here, f"book/api/{module}") + (f"#{anchor}" if anchor else "")
            link = nodes.reference("", "", refuri=uri, classes=["api-link"])
            literal.replace_self(link)
            link.append(literal)


def setup(app):
    app.add_post_transform(ApiLinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

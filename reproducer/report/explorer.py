"""Nearest-neighbour explorer: which pool sentences does each encoder put closest to a query?

Two front ends over one :class:`NeighbourIndex` per encoder:

- :func:`explorer` — live (needs a running kernel): type a sentence or pick a sample one, choose encoders
  and k; the neighbours are recomputed in Python on every change.
- :func:`static_explorer` — precomputed, for the static book where no kernel runs: a dropdown of sample
  queries linked in the browser (``jslink``) to a stack of pre-rendered neighbour tables, so switching
  the query switches the table with no Python behind it. Its widget state is saved in the executed
  notebook and rendered by the Jupyter widgets HTML manager that the book serves itself.

Cosine similarity on L2-normalised vectors, as the papers' neighbour tables (Kiros et al. 2015 Table 2;
Logeswaran & Lee 2018 Table 5).
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd
from sklearn.preprocessing import normalize

from reproducer.encoders.base import Encoder
from reproducer.errors import ReproducerError


def _unit(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    return normalize(np.asarray(x, dtype=np.float32))


@dataclass
class NeighbourIndex:
    """An encoder's unit vectors for a fixed pool of sentences; cosine top-k search."""

    name: str
    encoder: Encoder
    pool: list[str]
    vectors: np.ndarray = field(repr=False)

    @classmethod
    def build(cls, encoder: Encoder, pool: list[str], *, name: str | None = None, batch_size: int = 256,
              progress: bool = False) -> "NeighbourIndex":
        if not pool:
            raise ReproducerError("The neighbour pool is empty.")
        vectors = encoder.encode(list(pool), batch_size=batch_size, show_progress_bar=progress)
        if len(vectors) != len(pool):
            raise ReproducerError(f"{name or encoder}: {len(vectors)} vectors for {len(pool)} pool sentences.")
        return cls(name or getattr(encoder, "name", type(encoder).__name__), encoder, list(pool), _unit(vectors))

    def search(self, queries: list[str], k: int = 5, *, exclude_identical: bool = True
               ) -> list[list[tuple[str, float]]]:
        """For each query, its ``k`` most similar pool sentences with their cosines, best first.
        A pool sentence identical to the query is skipped (the query itself when it comes from the pool)."""
        if k < 1:
            raise ReproducerError(f"k must be at least 1, got {k}.")
        q = _unit(self.encoder.encode(list(queries), batch_size=256, show_progress_bar=False))
        sims = q @ self.vectors.T
        out = []
        for query, row in zip(queries, sims):
            top = np.argsort(-row, kind="stable")[: k + 1]
            hits = [(self.pool[j], float(row[j])) for j in top if not (exclude_identical and self.pool[j] == query)]
            out.append(hits[:k])
        return out


def _check_indexes(indexes: list[NeighbourIndex]) -> None:
    if not indexes:
        raise ReproducerError("Give at least one NeighbourIndex.")
    names = [ix.name for ix in indexes]
    if len(set(names)) != len(names):
        raise ReproducerError(f"Encoder names must be unique, got {names}.")


def neighbour_frame(indexes: list[NeighbourIndex], queries: list[str], k: int = 5) -> pd.DataFrame:
    """The neighbour table as data: one row per (query, encoder, rank) with the neighbour and its cosine."""
    _check_indexes(indexes)
    rows = [{"query": q, "encoder": ix.name, "rank": r + 1, "neighbour": text, "cosine": cos}
            for ix in indexes for q, hits in zip(queries, ix.search(queries, k))
            for r, (text, cos) in enumerate(hits)]
    return pd.DataFrame(rows, columns=["query", "encoder", "rank", "neighbour", "cosine"])


_STYLE = ("<style>.nn-table{border-collapse:collapse;font-size:88%;line-height:1.35;table-layout:fixed;width:100%}"
          ".nn-table td,.nn-table th{vertical-align:top;padding:4px 6px;border-bottom:1px solid #ddd;text-align:left}"
          ".nn-table th:first-child{width:2em}"
          ".nn-cos{font-family:monospace;background:#eef;border-radius:3px;padding:0 3px;margin-right:3px}</style>")


def neighbours_html(frame: pd.DataFrame, display: Callable[[str], str] | None = None) -> str:
    """One query's neighbours (rows of :func:`neighbour_frame`) as an HTML table: rank down,
    encoders across, each cell a neighbour and its cosine. ``display`` maps a sentence to the text shown
    (e.g. a detokenizer)."""
    display = display or (lambda s: s)
    queries = frame["query"].unique()
    if len(queries) != 1:
        raise ReproducerError(f"neighbours_html takes the rows of one query, got {len(queries)}.")
    encoders = list(dict.fromkeys(frame["encoder"]))
    cell = {(e, r): (n, c) for e, r, n, c in zip(frame.encoder, frame["rank"], frame.neighbour, frame.cosine)}
    head = "".join(f"<th>{html.escape(e)}</th>" for e in encoders)
    rows = []
    for r in range(1, int(frame["rank"].max()) + 1):
        cells = "".join(f'<td><span class="nn-cos">{cell[e, r][1]:.3f}</span> {html.escape(display(cell[e, r][0]))}</td>'
                        if (e, r) in cell else "<td></td>" for e in encoders)
        rows.append(f"<tr><th>{r}</th>{cells}</tr>")
    query = str(queries[0])
    return (f'<div class="nn-result" data-query="{html.escape(query, quote=True)}">{_STYLE}'
            f"<p><b>Query:</b> {html.escape(display(query))}</p>"
            '<table class="nn-table">'
            f"<thead><tr><th>#</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")


def static_explorer(frame: pd.DataFrame, display: Callable[[str], str] | None = None, note: str = ""):
    """A precomputed explorer that works without a kernel, from :func:`neighbour_frame` rows: a query
    dropdown ``jslink``-ed to a stack of neighbour tables (one per query, encoders side by side)."""
    import ipywidgets as w

    if frame.empty:
        raise ReproducerError("No neighbours to show: the frame is empty.")
    display = display or (lambda s: s)
    queries = list(dict.fromkeys(frame["query"]))
    labels = [(f"{i + 1}. {display(q)[:90]}", i) for i, q in enumerate(queries)]
    pick = w.Dropdown(options=labels, value=0, description="Query", layout=w.Layout(width="95%"))
    pages = w.Stack([w.HTML(neighbours_html(frame[frame["query"] == q], display)) for q in queries],
                    selected_index=0)
    link = w.jslink((pick, "index"), (pages, "selected_index"))
    box = w.VBox([pick, w.HTML(f"<small>{html.escape(note)}</small>"), pages] if note else [pick, pages])
    box.add_class("nn-explorer")
    box.link = link  # the browser-side link that switches the tables
    return box


def explorer(indexes: list[NeighbourIndex], queries: list[str] | None = None, k: int = 5,
             display: Callable[[str], str] | None = None):
    """The live explorer (needs a kernel): free-text or sample query, any subset of encoders, any k."""
    import ipywidgets as w

    _check_indexes(indexes)
    by_name = {ix.name: ix for ix in indexes}
    query = w.Combobox(value=(queries or [""])[0], options=list(queries or []), ensure_option=False,
                       placeholder="Type a sentence and press Enter, or pick one", description="Query",
                       continuous_update=False, layout=w.Layout(width="95%"))
    chosen = w.SelectMultiple(options=list(by_name), value=tuple(by_name), description="Encoders",
                              rows=min(5, len(by_name)))
    top_k = w.IntSlider(value=k, min=1, max=20, description="k")
    out = w.HTML()

    def refresh(*_):
        selected = [by_name[n] for n in chosen.value]
        if not query.value.strip():
            out.value = "<i>Type a query.</i>"
        elif not selected:
            out.value = "<i>Pick at least one encoder.</i>"
        else:
            out.value = neighbours_html(neighbour_frame(selected, [query.value.strip()], top_k.value), display)

    for control in (query, chosen, top_k):
        control.observe(refresh, names="value")
    refresh()
    box = w.VBox([query, w.HBox([chosen, top_k]), out])
    box.add_class("nn-explorer-live")
    return box


def held_out_pool(size: int, queries: int, *, config=None, seed: int = 0, min_words: int = 5,
                  max_words: int = 40) -> tuple[list[str], list[str]]:
    """A neighbour pool and disjoint queries from the held-out Gutenberg books (the corpus's ``valid``
    split: no encoder trained on them), sentences of ``min_words``..``max_words`` tokens, deduplicated."""
    from reproducer.data.corpus import CorpusConfig, load_corpus

    corpus = load_corpus("valid", config or CorpusConfig(), progress=False)
    candidates = [s for s in dict.fromkeys(corpus.sentences) if min_words <= len(s.split()) <= max_words]
    if len(candidates) < size + queries:
        raise ReproducerError(f"Only {len(candidates):,} held-out sentences of {min_words}-{max_words} tokens; "
                              f"asked for a pool of {size:,} plus {queries} queries.")
    picked = np.random.default_rng(seed).choice(len(candidates), size + queries, replace=False)
    chosen = [candidates[i] for i in picked]
    return chosen[queries:], chosen[:queries]


def readable(sentence: str) -> str:
    """A tokenized, lower-cased corpus sentence made readable: detokenized, first letter and "I" capitalised."""
    from nltk.tokenize.treebank import TreebankWordDetokenizer

    text = re.sub(r"\bi\b", "I", TreebankWordDetokenizer().detokenize(sentence.split()))
    return re.sub(r"^([^A-Za-z]*)([a-z])", lambda m: m.group(1) + m.group(2).upper(), text)

"""Nearest-neighbour explorer: which pool sentences does each encoder put closest to a query?

Three front ends over one :class:`NeighbourIndex` per encoder:

- :func:`explorer` — live (needs a running kernel): type a sentence or pick a sample one, choose encoders
  and k; the neighbours are recomputed in Python on every change.
- :func:`static_explorer` — precomputed, for the static book where no kernel runs: a dropdown of sample
  queries linked in the browser (``jslink``) to a stack of pre-rendered neighbour tables, so switching
  the query switches the table with no Python behind it. Its widget state is saved in the executed
  notebook and rendered by the Jupyter widgets HTML manager that the book serves itself.
- :func:`search_explorer` — precomputed for every pool sentence (:func:`pool_neighbours`), for the static
  book: a search box over the whole pool; picking a sentence shows each encoder's neighbours. Plain
  JavaScript in the page, its data in a script file beside the book's pages, so it works offline and
  from ``file://``.

Cosine similarity on L2-normalised vectors, as the papers' neighbour tables (Kiros et al. 2015 Table 2;
Logeswaran & Lee 2018 Table 5).
"""
from __future__ import annotations

import gzip
import hashlib
import html
import json
import os
import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.preprocessing import normalize

from reproducer.encoders.base import Encoder
from reproducer.errors import ReproducerError
from reproducer.files import atomic_path, read_json, stored_json, stored_text, write_json, write_result


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
              progress: bool = False) -> NeighbourIndex:
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


#: The cosine that every neighbour an encoder lists must reach for :func:`narrow_cones` to call its vectors a narrow
#: cone (chapter 02's skip-thought ST: above 0.992 over all its queries; the next highest encoder, GloVe averaging,
#: goes down to 0.93).
CONE_FLOOR = 0.99


def narrow_cones(frame: pd.DataFrame, floor: float = CONE_FLOOR) -> dict[str, tuple[float, float]]:
    """The encoders of :func:`neighbour_frame` rows ``frame`` whose every listed neighbour, of every query, has cosine
    at least ``floor``, each with the range of those cosines: their vectors crowd around one shared direction, so the
    ranking is decided in the third or fourth decimal (issue 69: ST's five neighbours all printed 1.000, unexplained)."""
    ranges = frame.groupby("encoder", sort=False)["cosine"].agg(["min", "max"])
    return {e: (float(r["min"]), float(r["max"])) for e, r in ranges.iterrows() if r["min"] >= floor}


def cone_note(frame: pd.DataFrame, floor: float = CONE_FLOOR) -> str:
    """A sentence for each of :func:`narrow_cones`' encoders in ``frame`` (empty when there is none): the range of its
    neighbours' cosines and how to read them."""
    cones = narrow_cones(frame, floor)
    if not cones:
        return ""
    ranges = "; ".join(f"{e}: {low:.4f} to {high:.4f}" for e, (low, high) in cones.items())
    return (f"Every neighbour of {' and '.join(cones)} has cosine above {floor} ({ranges}; shown with four decimals): "
            "its sentence vectors lie in a narrow cone around one shared direction, so cosine ranks the pool by "
            "differences in the third or fourth decimal. They are its nearest sentences all the same; read them as a "
            "ranking, not as near-copies of the query.")


def neighbours_html(frame: pd.DataFrame, display: Callable[[str], str] | None = None,
                    precise: set[str] | frozenset = frozenset()) -> str:
    """One query's neighbours (rows of :func:`neighbour_frame`) as an HTML table: rank down,
    encoders across, each cell a neighbour and its cosine (three decimals; four for the encoders in ``precise``, e.g.
    :func:`narrow_cones`'). ``display`` maps a sentence to the text shown (e.g. a detokenizer)."""
    display = display or (lambda s: s)
    queries = frame["query"].unique()
    if len(queries) != 1:
        raise ReproducerError(f"neighbours_html takes the rows of one query, got {len(queries)}.")
    encoders = list(dict.fromkeys(frame["encoder"]))
    cell = {(e, r): (n, c) for e, r, n, c in zip(frame.encoder, frame["rank"], frame.neighbour, frame.cosine)}
    head = "".join(f"<th>{html.escape(e)}</th>" for e in encoders)
    rows = []
    for r in range(1, int(frame["rank"].max()) + 1):
        cells = "".join(f'<td><span class="nn-cos">{cell[e, r][1]:.{4 if e in precise else 3}f}</span> '
                        f'{html.escape(display(cell[e, r][0]))}</td>'
                        if (e, r) in cell else "<td></td>" for e in encoders)
        rows.append(f"<tr><th>{r}</th>{cells}</tr>")
    query = str(queries[0])
    return (f'<div class="nn-result" data-query="{html.escape(query, quote=True)}">{_STYLE}'
            f"<p><b>Query:</b> {html.escape(display(query))}</p>"
            '<table class="nn-table">'
            f"<thead><tr><th>#</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")


def static_explorer(frame: pd.DataFrame, display: Callable[[str], str] | None = None, note: str = ""):
    """A precomputed explorer that works without a kernel, from :func:`neighbour_frame` rows: a query
    dropdown ``jslink``-ed to a stack of neighbour tables (one per query, encoders side by side); ``note`` above them,
    followed by :func:`cone_note` where an encoder's neighbours all lie in a narrow cone."""
    import ipywidgets as w

    if frame.empty:
        raise ReproducerError("No neighbours to show: the frame is empty.")
    display = display or (lambda s: s)
    queries = list(dict.fromkeys(frame["query"]))
    labels = [(f"{i + 1}. {display(q)[:90]}", i) for i, q in enumerate(queries)]
    pick = w.Dropdown(options=labels, value=0, description="Query", layout=w.Layout(width="95%"))
    cones = set(narrow_cones(frame))
    note = " ".join(filter(None, [note, cone_note(frame)]))
    pages = w.Stack([w.HTML(neighbours_html(frame[frame["query"] == q], display, cones)) for q in queries],
                    selected_index=0)
    link = w.jslink((pick, "index"), (pages, "selected_index"))
    box = w.VBox([pick, w.HTML(f"<small>{html.escape(note)}</small>"), pages] if note else [pick, pages])
    box.add_class("nn-explorer")
    box.link = link  # the browser-side link that switches the tables
    return box


def _top_k(sims: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``k`` largest values and their columns, largest first, ties in column order (as a stable
    sort of the whole row would give them), without sorting the whole row."""
    kth = -np.partition(-sims, k - 1, axis=1)[:, k - 1]  # each row's k-th largest value
    rows, cols = np.nonzero(sims >= kth[:, None])  # k or more candidates a row (more on ties)
    order = np.lexsort((cols, -sims[rows, cols], rows))  # by row, then cosine down, then column
    rows, cols = rows[order], cols[order]
    first = np.searchsorted(rows, np.arange(len(sims)))  # where each row's candidates start
    ids = cols[first[:, None] + np.arange(k)]
    return ids, np.take_along_axis(sims, ids, axis=1)


def pool_neighbours(index: NeighbourIndex, k: int = 5, *, chunk: int = 2048) -> dict:
    """For every sentence of ``index.pool``, its ``k`` nearest other pool sentences by cosine, best first:
    ``{"ids": int32 (n, k), "cosines": float32 (n, k)}``. The sentence itself and any pool sentence with
    the same text are skipped; equal cosines rank in pool order (sentences with identical vectors tie exactly,
    whatever order the matrix product summed in). Computed ``chunk`` rows at a time, so the n × n similarity
    matrix never exists whole."""
    pool, vectors = index.pool, np.asarray(index.vectors, dtype=np.float32)
    n = len(pool)
    if not 1 <= k < n:
        raise ReproducerError(f"k must be at least 1 and less than the pool's {n:,} sentences, got {k}.")
    same: dict[str, list[int]] = {}
    for i, sentence in enumerate(pool):
        same.setdefault(sentence, []).append(i)
    twins = {i: group for group in same.values() if len(group) > 1 for i in group}
    largest = max(len(group) for group in same.values())
    if k > n - largest:
        raise ReproducerError(f"k={k} is too large: a sentence that occurs {largest} times in the pool of {n:,} "
                              f"has only {n - largest} other sentences.")
    _, first, which = np.unique(vectors, axis=0, return_index=True, return_inverse=True)
    original = first[which.ravel()]  # the first pool sentence with the same vector
    copies = np.flatnonzero(original != np.arange(n))
    ids, cosines = np.empty((n, k), np.int32), np.empty((n, k), np.float32)
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        sims = vectors[start:stop] @ vectors.T
        sims[:, copies] = sims[:, original[copies]]  # the product may differ in the last bit: make them tie
        sims[np.arange(stop - start), np.arange(start, stop)] = -np.inf  # the sentence itself
        for i, group in twins.items():
            if start <= i < stop:
                sims[i - start, group] = -np.inf
        ids[start:stop], cosines[start:stop] = _top_k(sims, k)
    return {"ids": ids, "cosines": cosines}


#: Digits of the fixed-width base-64 numerals in the search explorer's data file (most significant first).
_DIGITS = string.ascii_uppercase + string.ascii_lowercase + string.digits + "+/"
_ID_DIGITS, _COSINE_DIGITS = 3, 2  # ids up to 64**3 - 1; cosines as 1000 * cosine + 1000 in 0..2000
_SEARCH_HITS = 15  # matching sentences listed at most


def _numerals(values: np.ndarray, width: int) -> str:
    """Non-negative integers as concatenated ``width``-digit base-64 numerals (digits ``_DIGITS``)."""
    values = np.asarray(values, dtype=np.int64).ravel()
    places = values[:, None] // 64 ** np.arange(width - 1, -1, -1) % 64
    return np.frombuffer(_DIGITS.encode("ascii"), np.uint8)[places].tobytes().decode("ascii")


def _script_json(value) -> str:
    """JSON that is safe anywhere in a script: ASCII only, and no ``<``, ``>`` or ``&`` (so no ``</script>``)."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _check_pool_neighbours(pool: list[str], neighbours: dict[str, dict], k: int | None) -> int:
    """The k to show: ``k``, or the smallest k the models have; :class:`ReproducerError` on malformed arrays."""
    n = len(pool)
    if not n:
        raise ReproducerError("The neighbour pool is empty.")
    if n > 64 ** _ID_DIGITS:
        raise ReproducerError(f"The search explorer takes at most {64 ** _ID_DIGITS:,} pool sentences, got {n:,}.")
    if not neighbours:
        raise ReproducerError("Give the neighbours of at least one model.")
    widths = []
    for name, found in neighbours.items():
        if not {"ids", "cosines"} <= set(found):
            raise ReproducerError(f"{name}: the neighbours need 'ids' and 'cosines' (as pool_neighbours returns).")
        ids, cosines = np.asarray(found["ids"]), np.asarray(found["cosines"])
        if ids.ndim != 2 or ids.shape[0] != n or cosines.shape != ids.shape:
            raise ReproducerError(f"{name}: ids {ids.shape} and cosines {cosines.shape} must both be "
                                  f"({n}, k), one row per pool sentence.")
        if not np.issubdtype(ids.dtype, np.integer) or ids.size and not 0 <= ids.min() <= ids.max() < n:
            raise ReproducerError(f"{name}: neighbour ids must be integers in 0..{n - 1} (pool positions).")
        if not np.isfinite(cosines).all():
            raise ReproducerError(f"{name}: the cosines must be finite numbers.")
        widths.append(ids.shape[1])
    k = min(widths) if k is None else k
    if not 1 <= k <= min(widths):
        raise ReproducerError(f"k must be between 1 and {min(widths)} (the neighbours given), got {k}.")
    return k


def _text_digest(text: str) -> str:
    """The first 16 hex digits of the SHA-256 of ``text`` (UTF-8): how an explorer names what it was drawn from."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _search_data(found: dict, k: int) -> dict:
    """A model's first ``k`` neighbours of every pool sentence as the explorer stores them: ids, cosines to 3 decimals."""
    return {"ids": np.asarray(found["ids"])[:, :k].tolist(),
            "cosines": np.round(np.asarray(found["cosines"], dtype=np.float64)[:, :k], 3).tolist()}


def search_explorer(pool: list[str], neighbours: dict[str, dict], *, key: str, folder: str | Path,
                    display: Callable[[str], str] | None = None, note: str = "", k: int | None = None,
                    src_prefix: str = "../_static/", sources: dict[str, str | Path] | None = None):
    """A precomputed explorer over the whole pool, for the static book (no kernel, offline, ``file://``): a
    search box that lists the pool sentences containing the words typed; clicking one (or Enter) shows each
    model's neighbours of it as a :func:`neighbours_html`-like table. ``neighbours`` maps a model name to
    its :func:`pool_neighbours` (first ``k`` shown; all by default); ``display`` maps a sentence to the
    text shown and searched (e.g. :func:`readable`).

    What it writes to ``folder`` names its data instead of copying it (the repository and the GPU pack must fit one
    device call's 64 MiB): ``explorer_<key>.json`` lists the pool file and each model's neighbours with the digest
    of their text; the displayed sentences are stored once, in ``pool_<digest>.json.xz``, which every explorer over
    the same pool shares (each chapter searches the same 20,000 held-out sentences); ``sources`` maps a model to the
    stored result its ``neighbours`` were read from (a chapter's committed ``search_<name>.json``), which is then
    referred to; a model without one has its neighbours written beside, ``neighbours_<key>-<i>.json.xz``. The book
    assembles the script a page loads when it is built (:func:`unpack_explorers`). The page loads it from
    ``src_prefix + "explorer_<key>.js"``: the book writes it into its ``_static/`` and chapters sit one level below
    the site's root. Returns an ``IPython.display.HTML``; its ``data_file`` is the explorer's file written."""
    from IPython.display import HTML

    if not re.fullmatch(r"[A-Za-z0-9_-]+", key or ""):
        raise ReproducerError(f"The explorer key must be letters, digits, '_' or '-' (a file name), got {key!r}.")
    k = _check_pool_neighbours(pool, neighbours, k)
    display = display or (lambda s: s)
    folder = Path(folder)
    sentences = json.dumps([display(s) for s in pool], ensure_ascii=False) + "\n"
    pool_file = folder / f"pool_{_text_digest(sentences)}.json"
    if stored_json(pool_file) is None:  # the same pool's file is shared, written once
        write_result(pool_file, sentences, compress_above=0)
    files = {}
    for i, (name, found) in enumerate(neighbours.items()):
        source = (sources or {}).get(name)
        if source is None:
            source = write_json(folder / f"neighbours_{key}-{i}.json", _search_data(found, k), compress_above=0)
        elif stored_json(source) is None:
            raise ReproducerError(f"{name}: its neighbours' stored result {source} does not exist.")
        files[str(name)] = source
    named = {name: {"file": Path(os.path.relpath(stored_json(f), folder)).as_posix(),
                    "digest": _text_digest(stored_text(stored_json(f)))} for name, f in files.items()}
    data_file = write_json(folder / f"explorer_{key}.json", {
        "key": key, "k": k, "pool": {"file": stored_json(pool_file).name, "digest": _text_digest(sentences)},
        "models": [{"name": name, **file} for name, file in named.items()]})
    (folder / f"explorer_{key}.js.gz").unlink(missing_ok=True)  # its whole script, as stored before: replaced

    src = src_prefix + f"explorer_{key}.js"
    settings = _script_json({"key": key, "id": f"nn-search-{key}", "src": src, "hits": _SEARCH_HITS,
                             "digits": _DIGITS, "idDigits": _ID_DIGITS, "cosineDigits": _COSINE_DIGITS})
    label = f"Search the {len(pool):,} held-out sentences"
    page = HTML(
        f'<div class="nn-search" id="nn-search-{key}">{_STYLE}{_SEARCH_STYLE}'
        + (f"<p><small>{html.escape(note)}</small></p>" if note else "")
        + f'<input class="nn-search-input" type="search" placeholder="{label}" aria-label="{label}" disabled>'
        '<div class="nn-search-status">Loading the sentences…</div><ul class="nn-search-hits"></ul>'
        '<div class="nn-search-result"></div></div>'
        f'<script src="{html.escape(src, quote=True)}"></script>'
        f"<script>{_SEARCH_SCRIPT.replace('SETTINGS', settings)}</script>")
    page.data_file = data_file
    return page


def explorer_script(manifest: str | Path) -> str:
    """The script a page's search explorer loads, assembled from its ``explorer_<key>.json`` (:func:`search_explorer`):
    it sets ``window.REPRODUCER_EXPLORERS[key]`` to ``{"k", "sentences", "models": [{"name", "ids", "cosines"}]}``,
    the displayed sentences once and per model its neighbour ids (3 base-64 digits each) and cosines
    (``1000 * cosine + 1000``, 2 digits each) as strings, row-major (sentence, rank); digits ``A-Z a-z 0-9 + /``, most
    significant first. :class:`ReproducerError` when a file it names is missing or has changed since (its chapter
    was run again without drawing the explorer again)."""
    manifest = Path(manifest)
    spec = read_json(manifest)
    texts = {}
    for named in [spec["pool"], *spec["models"]]:
        found = stored_json(manifest.parent / named["file"])
        if found is None:
            raise ReproducerError(f"{manifest.name} names {named['file']}, which does not exist: execute its chapter "
                                  "again.")
        texts[named["file"]] = stored_text(found)
        if _text_digest(texts[named["file"]]) != named["digest"]:
            raise ReproducerError(f"{manifest.name}: {named['file']} has changed since the explorer was drawn from it: "
                                  "execute its chapter again.")
    k, sentences = spec["k"], json.loads(texts[spec["pool"]["file"]])
    models = []
    for model in spec["models"]:
        found = json.loads(texts[model["file"]])
        cosines = np.clip(np.rint(np.asarray(found["cosines"], dtype=np.float64)[:, :k] * 1000), -1000, 1000)
        models.append({"name": model["name"], "ids": _numerals(np.asarray(found["ids"])[:, :k], _ID_DIGITS),
                       "cosines": _numerals(cosines.astype(np.int64) + 1000, _COSINE_DIGITS)})
    data = {"k": k, "sentences": sentences, "models": models}
    return ("// Data of a nearest-neighbour search explorer (reproducer.report.explorer.search_explorer).\n"
            "window.REPRODUCER_EXPLORERS = window.REPRODUCER_EXPLORERS || {};\n"
            f'window.REPRODUCER_EXPLORERS["{spec["key"]}"] = {_script_json(data)};\n')


def _values(numerals: str, width: int) -> np.ndarray:
    """The integers :func:`_numerals` wrote as ``numerals``."""
    lookup = np.zeros(256, dtype=np.int64)
    lookup[np.frombuffer(_DIGITS.encode("ascii"), np.uint8)] = np.arange(len(_DIGITS))
    digits = lookup[np.frombuffer(numerals.encode("ascii"), np.uint8)].reshape(-1, width)
    return (digits * 64 ** np.arange(width - 1, -1, -1)).sum(axis=1)


def store_named(script: str | Path) -> Path:
    """An explorer stored as its whole script before (``explorer_<key>.js.gz``) stored as :func:`search_explorer`
    writes one now, in the same folder: its pool shared with the other explorers over the same sentences, each model's
    neighbours in a file of their own. The script it assembles is checked to be the same text; else the old file is put
    back and :class:`ReproducerError` raised. Returns the explorer's file (``explorer_<key>.json``)."""
    script = Path(script)
    stored = script.read_bytes()
    text = gzip.decompress(stored).decode("utf-8")
    found = re.search(r'^window\.REPRODUCER_EXPLORERS\["([A-Za-z0-9_-]+)"\] = (.*);$', text, re.MULTILINE)
    if found is None:
        raise ReproducerError(f"{script} is not an explorer's script (no window.REPRODUCER_EXPLORERS[...] line).")
    key, data = found.group(1), json.loads(found.group(2))
    shape = (len(data["sentences"]), data["k"])
    neighbours = {m["name"]: {"ids": _values(m["ids"], _ID_DIGITS).reshape(shape),
                              "cosines": (_values(m["cosines"], _COSINE_DIGITS).reshape(shape) - 1000) / 1000}
                  for m in data["models"]}
    manifest = search_explorer(data["sentences"], neighbours, key=key, folder=script.parent).data_file
    if explorer_script(manifest) != text:
        with atomic_path(script) as tmp:
            tmp.write_bytes(stored)
        raise ReproducerError(f"{script}: stored as named data it does not assemble the same script; left as it was "
                              f"(remove {manifest.name} and the files it names).")
    return manifest


def unpack_explorers(folder: str | Path, out: str | Path) -> list[Path]:
    """The script of every search explorer in ``folder`` (``explorer_<key>.json``: :func:`explorer_script`; or
    ``explorer_<key>.js.gz``, as an explorer stored its whole script before it named its data) written into ``out``
    as the file a page loads (``explorer_<key>.js``); returns the scripts written. The book calls it when it is
    built (``book/_ext/explorer_data.py``), into its ``_static/``."""
    written = []
    for found in sorted([*Path(folder).glob("explorer_*.json"), *Path(folder).glob("explorer_*.js.gz")]):
        script = Path(out) / (found.name.removesuffix(".json") + ".js" if found.suffix == ".json"
                              else found.name.removesuffix(".gz"))
        text = explorer_script(found) if found.suffix == ".json" else gzip.decompress(found.read_bytes()).decode()
        with atomic_path(script) as tmp:
            tmp.write_text(text, encoding="utf-8")
        written.append(script)
    return written


_SEARCH_STYLE = (
    "<style>.nn-search-input{width:95%;padding:4px 6px;font-size:100%}"
    ".nn-search-status{font-size:85%;color:#666;margin:2px 0}"
    ".nn-search-hits{list-style:none;padding-left:0;margin:0 0 8px 0;font-size:88%;max-height:20em;overflow-y:auto}"
    ".nn-search-hit,.nn-search-result td{cursor:pointer}"
    ".nn-search-hit{padding:2px 4px;border-bottom:1px solid #eee}"
    ".nn-search-hit:hover,.nn-search-hit:focus,.nn-search-result td:hover{background:#f3f3ff}</style>")

# The search explorer's page script; SETTINGS becomes its settings (JSON). It waits for the data script,
# which may run before or after it, and builds every element from text (textContent), never from markup.
_SEARCH_SCRIPT = """
(function () {
  var settings = SETTINGS, box = document.getElementById(settings.id);
  var input = box.querySelector(".nn-search-input"), status = box.querySelector(".nn-search-status"),
      list = box.querySelector(".nn-search-hits"), result = box.querySelector(".nn-search-result");
  var value = {}, data, lower, waited = 0;
  for (var d = 0; d < settings.digits.length; d++) value[settings.digits[d]] = d;

  function number(text, at, width) {  // the base-64 numeral of `width` digits at `at`
    var v = 0;
    for (var j = at; j < at + width; j++) v = v * 64 + value[text[j]];
    return v;
  }

  function start() {
    data = (window.REPRODUCER_EXPLORERS || {})[settings.key];
    if (!data) {
      if ((waited += 100) > 30000) status.textContent = "The explorer's data (" + settings.src + ") did not load.";
      else setTimeout(start, 100);
      return;
    }
    lower = data.sentences.map(function (s) { return s.toLowerCase(); });
    input.disabled = false;
    status.textContent = "Type a word or two.";
    input.addEventListener("input", search);
    input.addEventListener("keydown", function (e) {
      var first = list.querySelector(".nn-search-hit");
      if (e.key === "Enter" && first) { e.preventDefault(); show(+first.dataset.index); }
    });
    list.addEventListener("click", function (e) {
      var hit = e.target.closest(".nn-search-hit");
      if (hit) show(+hit.dataset.index);
    });
    list.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && e.target.dataset.index) show(+e.target.dataset.index);
    });
    result.addEventListener("click", function (e) {  // a neighbour becomes the query
      var cell = e.target.closest("td[data-index]");
      if (cell) show(+cell.dataset.index);
    });
    if (input.value) search();
  }

  function search() {  // the whole query first, then sentences with all of its words
    var query = input.value.trim().toLowerCase(), words = query.split(/\\s+/), whole = [], all = [];
    list.textContent = "";
    if (!query) { status.textContent = "Type a word or two."; return; }
    lower.forEach(function (s, i) {
      if (s.indexOf(query) >= 0) whole.push(i);
      else if (words.every(function (w) { return s.indexOf(w) >= 0; })) all.push(i);
    });
    var hits = whole.concat(all);
    status.textContent = !hits.length ? "No sentence contains all of these words."
      : hits.length.toLocaleString("en") + (hits.length === 1 ? " sentence" : " sentences")
        + (hits.length > settings.hits ? ", the first " + settings.hits + " shown" : "")
        + ": pick one to see its neighbours.";
    hits.slice(0, settings.hits).forEach(function (i) {
      var item = document.createElement("li");
      item.className = "nn-search-hit";
      item.tabIndex = 0;
      item.dataset.index = i;
      item.textContent = data.sentences[i];
      list.appendChild(item);
    });
  }

  function cell(row, tag, text) {
    var c = document.createElement(tag);
    c.textContent = text;
    row.appendChild(c);
    return c;
  }

  function show(i) {  // the neighbour table of pool sentence i: rank down, models across
    var k = data.k, table = document.createElement("table"), head = table.createTHead().insertRow(),
        body = table.createTBody(), query = document.createElement("p"), label = document.createElement("b");
    table.className = "nn-table";
    cell(head, "th", "#");
    data.models.forEach(function (m) { cell(head, "th", m.name); });
    for (var r = 0; r < k; r++) {
      var row = body.insertRow();
      cell(row, "th", String(r + 1));
      data.models.forEach(function (m) {
        var at = i * k + r, j = number(m.ids, at * settings.idDigits, settings.idDigits),
            cosine = (number(m.cosines, at * settings.cosineDigits, settings.cosineDigits) - 1000) / 1000,
            td = cell(row, "td", " " + data.sentences[j]), badge = document.createElement("span");
        badge.className = "nn-cos";
        badge.textContent = cosine.toFixed(3);
        td.insertBefore(badge, td.firstChild);
        td.dataset.index = j;
      });
    }
    label.textContent = "Query:";
    query.append(label, " " + data.sentences[i]);
    result.textContent = "";
    result.dataset.index = i;
    result.append(query, table);
  }

  start();
})();
"""


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

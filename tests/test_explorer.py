"""The nearest-neighbour explorer: search, tables, the static and the live widget."""
from __future__ import annotations

import json
import string

import ipywidgets as w
import numpy as np
import pytest

from reproducer.data.corpus import CorpusConfig
from reproducer.errors import ReproducerError
from reproducer.files import read_json, write_json
from reproducer.report.explorer import (
    NeighbourIndex,
    explorer,
    explorer_script,
    held_out_pool,
    neighbour_frame,
    neighbours_html,
    pool_neighbours,
    readable,
    search_explorer,
    static_explorer,
    unpack_explorers,
)

VECTORS = {"a cat sat": [1, 0, 0], "a kitten sat": [0.9, 0.1, 0], "dogs bark": [0, 1, 0],
           "a dog barked": [0.1, 0.9, 0.1], "rain fell": [0, 0, 1], "<b>bold</b>": [0.5, 0.5, 0.5]}


class Lookup:
    """A toy encoder: fixed vectors, optionally rotated so two encoders disagree."""

    def __init__(self, name: str, flip: bool = False):
        self.name, self.flip = name, flip

    def encode(self, sentences, batch_size=128, show_progress_bar=False):
        x = np.array([VECTORS[s] for s in sentences], dtype=float)
        return x[:, ::-1] if self.flip else x


@pytest.fixture()
def indexes():
    pool = list(VECTORS)
    return [NeighbourIndex.build(Lookup("toy"), pool), NeighbourIndex.build(Lookup("flipped", flip=True), pool)]


def test_search_ranks_by_cosine_and_skips_the_query_itself(indexes):
    hits = indexes[0].search(["a cat sat", "dogs bark"], k=2)
    assert [h[0] for h in hits[0]] == ["a kitten sat", "<b>bold</b>"]
    assert [h[0] for h in hits[1]] == ["a dog barked", "<b>bold</b>"]
    assert hits[0][0][1] == pytest.approx(0.9 / np.hypot(0.9, 0.1))
    assert indexes[0].search(["a cat sat"], k=1, exclude_identical=False)[0][0] == ("a cat sat", pytest.approx(1.0))


def test_bad_inputs_are_refused(indexes):
    with pytest.raises(ReproducerError, match="k must be at least 1"):
        indexes[0].search(["a cat sat"], k=0)
    with pytest.raises(ReproducerError, match="empty"):
        NeighbourIndex.build(Lookup("toy"), [])
    with pytest.raises(ReproducerError, match="unique"):
        neighbour_frame([indexes[0], indexes[0]], ["a cat sat"])


def test_frame_and_html(indexes):
    frame = neighbour_frame(indexes, ["a cat sat", "rain fell"], k=3)
    assert list(frame.columns) == ["query", "encoder", "rank", "neighbour", "cosine"]
    assert len(frame) == 2 * 2 * 3
    page = neighbours_html(frame[frame["query"] == "a cat sat"])
    assert page.count("<th>toy</th>") == 1 and page.count("<th>flipped</th>") == 1
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold</b>" not in page  # escaped
    assert page.count('class="nn-cos"') == 6
    with pytest.raises(ReproducerError, match="one query"):
        neighbours_html(frame)


def test_static_explorer_links_the_dropdown_to_the_tables_in_the_browser(indexes):
    queries = ["a cat sat", "dogs bark", "rain fell"]
    box = static_explorer(neighbour_frame(indexes, queries, k=2), note="toy")
    pick, _note, pages = box.children
    assert isinstance(pick, w.Dropdown) and isinstance(pages, w.Stack)
    assert [label for label, _ in pick.options][1].startswith("2. dogs bark")
    assert all(f'data-query="{q}"' in page.value for q, page in zip(queries, pages.children))
    # the dropdown is jslink-ed (switched in the browser), not observed in Python
    assert type(box.link).__name__ == "Link"
    assert box.link.source == (pick, "index") and box.link.target == (pages, "selected_index")
    assert "nn-explorer" in box._dom_classes


def test_live_explorer_recomputes_on_change(indexes):
    box = explorer(indexes, ["a cat sat"], k=2)
    query, (chosen, top_k), out = box.children[0], box.children[1].children, box.children[2]
    assert 'data-query="a cat sat"' in out.value and "<th>flipped</th>" in out.value
    query.value = "rain fell"
    assert 'data-query="rain fell"' in out.value
    chosen.value = ("toy",)
    assert "<th>flipped</th>" not in out.value
    top_k.value = 4
    assert out.value.count('class="nn-cos"') == 4
    chosen.value = ()
    assert "Pick at least one encoder" in out.value


def test_held_out_pool_is_disjoint_and_in_range():
    pool, queries = held_out_pool(200, 5, config=CorpusConfig(max_books=3), seed=1, min_words=5, max_words=20)
    assert len(pool) == 200 and len(queries) == 5 and not set(pool) & set(queries)
    assert all(5 <= len(s.split()) <= 20 for s in pool + queries)
    assert held_out_pool(200, 5, config=CorpusConfig(max_books=3), seed=1, min_words=5, max_words=20)[1] == queries
    with pytest.raises(ReproducerError, match="held-out sentences"):
        held_out_pool(10**7, 5, config=CorpusConfig(max_books=3))


def test_readable_detokenizes():
    assert readable("`` i do n't know , '' said he .") == '"I don\'t know," said he.'
    assert readable("in it i saw him .") == "In it I saw him."


def _brute_force_neighbours(pool, vectors, k):
    """The k most similar other pool sentences (not the same text) by a stable sort of the whole row
    (cosines summed in float64, so identical vectors tie)."""
    sims = (vectors.astype(np.float64) @ vectors.T.astype(np.float64)).astype(np.float32)
    ids = []
    for i, row in enumerate(sims):
        row = np.where([s == pool[i] for s in pool], -np.inf, row)
        ids.append(np.argsort(-row, kind="stable")[:k])
    ids = np.array(ids)
    return ids, np.take_along_axis(sims, ids, axis=1)


def test_pool_neighbours_equal_a_brute_force_top_k():
    rng = np.random.default_rng(3)
    # a duplicate (same text, same vector) and a different sentence with the same vector (a tie)
    pool = [f"sentence {i}" for i in range(60)] + ["sentence 7", "another 7"]
    vectors = rng.standard_normal((60, 8)).astype(np.float32)
    vectors = np.vstack([vectors, vectors[7], vectors[7]])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = NeighbourIndex("toy", Lookup("toy"), pool, vectors)
    found = pool_neighbours(index, k=4, chunk=7)  # chunks that do not divide the pool
    assert found["ids"].dtype == np.int32 and found["cosines"].dtype == np.float32
    assert found["ids"].shape == found["cosines"].shape == (62, 4)
    ids, cosines = _brute_force_neighbours(pool, vectors, 4)
    np.testing.assert_array_equal(found["ids"], ids)
    np.testing.assert_allclose(found["cosines"], cosines, atol=1e-6)
    assert 60 not in found["ids"][7] and 7 not in found["ids"][60]  # the twin is skipped
    assert found["ids"][7, 0] == found["ids"][60, 0] == 61 and found["ids"][61, :2].tolist() == [7, 60]
    assert (np.diff(found["cosines"], axis=1) <= 0).all()


def test_pool_neighbours_break_ties_in_pool_order():
    # exact vectors: a, b, c and the second "a" are the same point, so their cosines tie at exactly 1
    pool = ["a", "b", "c", "d", "a", "e"]
    vectors = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [1, 0], [0, 1]], dtype=np.float32)
    for chunk in (1, 2, 4, 2048):
        found = pool_neighbours(NeighbourIndex("toy", Lookup("toy"), pool, vectors), k=3, chunk=chunk)
        assert found["ids"].tolist() == [[1, 2, 3], [0, 2, 4], [0, 1, 4], [5, 0, 1], [1, 2, 3], [3, 0, 1]]
        assert found["cosines"].tolist() == [[1, 1, 0], [1, 1, 1], [1, 1, 1], [1, 0, 0], [1, 1, 0], [1, 0, 0]]
        np.testing.assert_array_equal(found["ids"], _brute_force_neighbours(pool, vectors, 3)[0])


def test_pool_neighbours_refuse_a_bad_k(indexes):
    with pytest.raises(ReproducerError, match="at least 1 and less than"):
        pool_neighbours(indexes[0], k=0)
    with pytest.raises(ReproducerError, match="at least 1 and less than the pool's 6"):
        pool_neighbours(indexes[0], k=6)
    twice = NeighbourIndex("toy", Lookup("toy"), ["a", "a", "b"], np.eye(3, dtype=np.float32))
    with pytest.raises(ReproducerError, match="occurs 2 times"):
        pool_neighbours(twice, k=2)


DIGITS = string.ascii_uppercase + string.ascii_lowercase + string.digits + "+/"


def _decode(text: str, width: int) -> list[int]:
    """The fixed-width base-64 numerals of the explorer's data file, as numbers."""
    values = []
    for at in range(0, len(text), width):
        value = 0
        for digit in text[at:at + width]:
            value = value * 64 + DIGITS.index(digit)
        values.append(value)
    return values


def _script(path) -> str:
    """The text of an explorer's data script: assembled from its ``explorer_<key>.json`` as the book does, or as
    stored before (``.js.gz``) or unpacked (``.js``)."""
    import gzip

    if path.suffix == ".json":
        return explorer_script(path)
    data = path.read_bytes()
    return (gzip.decompress(data) if path.name.endswith(".gz") else data).decode("utf-8")


def _payload(path, key):
    prefix = f'window.REPRODUCER_EXPLORERS["{key}"] = '
    line = next(line for line in _script(path).splitlines() if line.startswith(prefix))
    return json.loads(line[len(prefix):].rstrip(";"))


def test_search_explorer_writes_its_data_file(indexes, tmp_path):
    pool = indexes[0].pool + ['he said "</script><script>alert(1)</script>" \\ and \'left\'']
    vectors = np.vstack([indexes[0].vectors, indexes[0].vectors[:1]])
    neighbours = {name: pool_neighbours(NeighbourIndex(name, None, pool, v), k=3)
                  for name, v in [("toy", vectors), ("flipped", vectors[:, ::-1])]}
    page = search_explorer(pool, neighbours, key="toy-1", folder=tmp_path / "static", display=str.upper,
                           note="toy <note>", k=2)
    assert page.data_file == tmp_path / "static" / "explorer_toy-1.json"  # names its data; the book assembles it
    text = _script(page.data_file)
    assert text.isascii()
    assert text.startswith("// ") and "window.REPRODUCER_EXPLORERS = window.REPRODUCER_EXPLORERS || {};" in text
    assert "</script>" not in text.lower() and "<" not in text  # cannot close a script, whatever the sentences
    data = _payload(page.data_file, "toy-1")
    assert data["k"] == 2 and data["sentences"] == [s.upper() for s in pool]
    assert [m["name"] for m in data["models"]] == ["toy", "flipped"]
    for model, (name, found) in zip(data["models"], neighbours.items()):
        assert len(model["ids"]) == 3 * len(pool) * 2 and len(model["cosines"]) == 2 * len(pool) * 2
        assert _decode(model["ids"], 3) == found["ids"][:, :2].ravel().tolist()
        cosines = (np.array(_decode(model["cosines"], 2)) - 1000) / 1000
        np.testing.assert_allclose(cosines, found["cosines"][:, :2].ravel(), atol=5e-4)
    markup = page.data
    assert 'class="nn-search" id="nn-search-toy-1"' in markup and 'class="nn-search-input"' in markup
    assert "Search the 7 held-out sentences" in markup and "toy &lt;note&gt;" in markup
    assert '<script src="../_static/explorer_toy-1.js"></script>' in markup
    assert "fetch(" not in markup and "XMLHttpRequest" not in markup
    other = search_explorer(pool, neighbours, key="toy-1", folder=tmp_path, src_prefix="data/")
    assert '<script src="data/explorer_toy-1.js">' in other.data and _payload(other.data_file, "toy-1")["k"] == 3
    # the book unpacks every explorer's data into its _static/ (book/_ext/explorer_data.py), byte for byte
    again = search_explorer(pool, neighbours, key="toy-1", folder=tmp_path / "static", display=str.upper, k=2)
    assert page.data_file.read_bytes() == again.data_file.read_bytes()  # the same bytes every run
    unpacked = unpack_explorers(tmp_path / "static", tmp_path / "site" / "_static")
    assert unpacked == [tmp_path / "site" / "_static" / "explorer_toy-1.js"]
    assert unpacked[0].read_text(encoding="utf-8") == text


def test_explorers_share_their_pool_and_name_the_searches_they_read(indexes, tmp_path):
    """The repository holds each explorer's data once (issue 67: the 64 MiB of a device call): explorers over the same
    pool share one pool file; a model's stored search (``sources``) is named, not copied; the book refuses to draw an
    explorer whose search has changed since, or is gone; a script stored whole (before) is still unpacked."""
    import gzip

    pool = indexes[0].pool
    found = pool_neighbours(indexes[0], k=3)
    stored = tmp_path / "chapter" / "search_toy.json"  # a result's plain name: stored as search_toy.json.xz
    write_json(stored, {"ids": found["ids"].tolist(), "cosines": found["cosines"].round(3).tolist()},
               compress_above=0)  # as a chapter's search is stored
    folder = tmp_path / "explorer"
    first = search_explorer(pool, {"toy": found}, key="a", folder=folder, sources={"toy": stored})
    second = search_explorer(pool, {"toy": found, "copy": found}, key="b", folder=folder)
    assert sorted(p.name for p in folder.iterdir()) == ["explorer_a.json", "explorer_b.json", "neighbours_b-0.json.xz",
                                                      "neighbours_b-1.json.xz", pool_file(folder)]
    assert read_json(first.data_file)["models"] == [{"name": "toy", "file": "../chapter/search_toy.json.xz",
                                                     "digest": read_json(first.data_file)["models"][0]["digest"]}]
    assert _payload(first.data_file, "a")["models"][0] == _payload(second.data_file, "b")["models"][0]
    (folder / "explorer_old.js.gz").write_bytes(gzip.compress(b"// stored whole\n"))
    assert [p.name for p in unpack_explorers(folder, tmp_path / "site")] == ["explorer_a.js", "explorer_b.js",
                                                                             "explorer_old.js"]
    write_json(stored, {"ids": found["ids"][::-1].tolist(), "cosines": found["cosines"].tolist()}, compress_above=0)
    with pytest.raises(ReproducerError, match="search_toy.json.xz has changed since the explorer was drawn"):
        explorer_script(first.data_file)
    stored.with_suffix(".json.xz").unlink()
    with pytest.raises(ReproducerError, match="names ../chapter/search_toy.json.xz, which does not exist"):
        explorer_script(first.data_file)
    with pytest.raises(ReproducerError, match="does not exist"):
        search_explorer(pool, {"toy": found}, key="c", folder=folder, sources={"toy": stored})


def pool_file(folder) -> str:
    """The one pool file in ``folder``."""
    (found,) = folder.glob("pool_*.json.xz")
    return found.name


def test_search_explorer_refuses_bad_input(indexes, tmp_path):
    pool = indexes[0].pool
    good = {"toy": pool_neighbours(indexes[0], k=2)}
    for key in ("", "a b", "../up", "x.js"):
        with pytest.raises(ReproducerError, match="file name"):
            search_explorer(pool, good, key=key, folder=tmp_path)
    with pytest.raises(ReproducerError, match="one row per pool sentence"):
        search_explorer(pool[:-1], good, key="k", folder=tmp_path)
    short = {"toy": {"ids": good["toy"]["ids"], "cosines": good["toy"]["cosines"][:, :1]}}
    with pytest.raises(ReproducerError, match="one row per pool sentence"):
        search_explorer(pool, short, key="k", folder=tmp_path)
    far = {"toy": {"ids": good["toy"]["ids"] + 1, "cosines": good["toy"]["cosines"]}}
    with pytest.raises(ReproducerError, match="ids must be integers in 0..5"):
        search_explorer(pool, far, key="k", folder=tmp_path)
    with pytest.raises(ReproducerError, match="'ids' and 'cosines'"):
        search_explorer(pool, {"toy": {"ids": good["toy"]["ids"]}}, key="k", folder=tmp_path)
    with pytest.raises(ReproducerError, match="k must be between 1 and 2"):
        search_explorer(pool, good, key="k", folder=tmp_path, k=3)
    with pytest.raises(ReproducerError, match="at least one model"):
        search_explorer(pool, {}, key="k", folder=tmp_path)
    assert not list(tmp_path.iterdir())  # nothing written when refused


def test_a_narrow_cone_is_named_and_printed_with_four_decimals():
    """An encoder whose every neighbour has cosine ≥ 0.99 (chapter 02's ST: 0.9961-0.9997) is explained under the
    explorer and its cosines get a fourth decimal; an ordinary encoder gets neither."""
    import pandas as pd

    from reproducer.report.explorer import cone_note, narrow_cones, neighbours_html

    rows = [("q", "ST", 1, "a", 0.99971), ("q", "ST", 2, "b", 0.99612), ("q", "QT", 1, "a", 0.95),
            ("q", "QT", 2, "c", 0.71)]
    frame = pd.DataFrame(rows, columns=["query", "encoder", "rank", "neighbour", "cosine"])
    assert narrow_cones(frame) == {"ST": (0.99612, 0.99971)}
    assert "Every neighbour of ST has cosine above 0.99 (ST: 0.9961 to 0.9997" in cone_note(frame)
    assert cone_note(frame[frame.encoder == "QT"]) == "" and narrow_cones(frame, floor=0.7) == {
        "ST": (0.99612, 0.99971), "QT": (0.71, 0.95)}
    page = neighbours_html(frame, precise=set(narrow_cones(frame)))
    assert "0.9997" in page and "0.9961" in page and "0.950" in page and "0.9500" not in page
    box = static_explorer(frame, note="two encoders")
    assert "two encoders Every neighbour of ST" in box.children[1].value
    assert "0.9997" in box.children[2].children[0].value


def test_the_committed_explorers_assemble_and_the_folder_holds_only_their_data():
    """Every committed explorer's script assembles (each search it names is there, unchanged since it was drawn), and
    results/explorer/ holds nothing else: its pools and neighbours are named by an explorer, and a whole script stored
    before (``.js.gz``) has no explorer file beside it."""
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "results" / "explorer"
    named, keys = set(), set()
    for manifest in sorted(folder.glob("explorer_*.json")):
        assert explorer_script(manifest).startswith("// ")
        spec = read_json(manifest)
        keys.add(spec["key"])
        named |= {manifest.name, spec["pool"]["file"], *(m["file"] for m in spec["models"])}
    whole = {p.name for p in folder.glob("explorer_*.js.gz")}
    assert not {f"explorer_{key}.js.gz" for key in keys} & whole
    stray = {p.name for p in folder.iterdir() if p.is_file() and p.suffix != ".js"} - named - whole
    assert not stray, f"files no explorer names: {sorted(stray)}"


def test_an_explorer_stored_as_its_whole_script_is_stored_as_named_data_assembling_the_same_script(tmp_path):
    """``store_named`` (``scripts/store_results.py``): an explorer stored as its whole script before
    (``explorer_<key>.js.gz``) becomes its data file, a shared pool and one neighbours file per model, and assembles
    the very same script; a file that is no explorer's script is refused."""
    import gzip

    from reproducer.report.explorer import store_named

    pool = ["a cat sat", "a dog ran", "the cat ran", "dogs sit"]
    found = {"ids": np.array([[1, 2], [0, 3], [0, 1], [1, 0]]),
             "cosines": np.array([[0.5, -0.25], [1.0, 0.125], [0.999, -1.0], [0.0, 0.333]])}
    whole = tmp_path / "whole"
    script = explorer_script(search_explorer(pool, {"m": found, "n": found}, key="old", folder=whole).data_file)
    folder = tmp_path / "explorer"
    folder.mkdir()
    (folder / "explorer_old.js.gz").write_bytes(gzip.compress(script.encode()))
    manifest = store_named(folder / "explorer_old.js.gz")
    assert manifest == folder / "explorer_old.json" and explorer_script(manifest) == script
    assert not (folder / "explorer_old.js.gz").exists()
    assert len(list(folder.glob("pool_*"))) == 1 and len(list(folder.glob("neighbours_old-*"))) == 2
    (folder / "explorer_bad.js.gz").write_bytes(gzip.compress(b"// no data\n"))
    with pytest.raises(ReproducerError, match="not an explorer's script"):
        store_named(folder / "explorer_bad.js.gz")

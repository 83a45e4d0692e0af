"""The nearest-neighbour explorer: search, tables, the static and the live widget."""
from __future__ import annotations

import ipywidgets as w
import numpy as np
import pytest

from reproducer.data.corpus import CorpusConfig
from reproducer.errors import ReproducerError
from reproducer.report.explorer import (NeighbourIndex, explorer, held_out_pool, neighbour_frame, neighbours_html,
                                        readable, static_explorer)

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
    pick, note, pages = box.children
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

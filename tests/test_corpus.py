"""The Gutenberg corpus builder: boilerplate stripping, paragraphs, boundaries, caching."""
from __future__ import annotations

import json

import numpy as np
import pytest

from reproducer.data.corpus import Corpus, CorpusConfig, build_corpus, load_corpus, paragraphs, strip_gutenberg

BOOK = """The Project Gutenberg EBook of Test, by Someone\r
\r
*** START OF THIS PROJECT GUTENBERG EBOOK TEST\r
***\r
\r
Produced by Volunteers\r
\r
CHAPTER I.\r
\r
It was a dark and stormy night; the rain fell in\r
torrents. Mr. Smith stayed in.\r
\r
[Illustration: a storm]\r
\r
"Who is there?" asked he.\r
\r
End of the Project Gutenberg EBook of Test\r
\r
*** END OF THIS PROJECT GUTENBERG EBOOK TEST ***\r
License text that must go.\r
"""


def test_strip_gutenberg_header_footer_and_wrapped_marker():
    body = strip_gutenberg(BOOK)
    assert "START OF" not in body and "***" not in body
    assert "License" not in body and "End of the Project" not in body
    assert "stormy night" in body


def test_strip_uses_the_last_repeated_start_marker():
    text = "*** START OF THE PROJECT GUTENBERG EBOOK A ***\nfront\n*** START OF THE PROJECT GUTENBERG EBOOK A ***\nbody\n*** END OF THE PROJECT GUTENBERG EBOOK A ***\n"
    assert strip_gutenberg(text).strip() == "body"


def test_paragraphs_join_lines_and_drop_non_prose():
    paras = paragraphs(strip_gutenberg(BOOK))
    assert paras == ["It was a dark and stormy night; the rain fell in torrents. Mr. Smith stayed in.",
                     '"Who is there?" asked he.']


@pytest.fixture(scope="module")
def small():
    return build_corpus(CorpusConfig(max_books=2), progress=False)


def test_small_corpus_keeps_books_in_order_and_splits_apart(small):
    train, valid = Corpus(small, "train"), Corpus(small, "valid")
    assert [b for b, _, _ in train.book_spans] == [0, 1]
    assert [b for b, _, _ in valid.book_spans] == [389, 390]
    for corpus in (train, valid):
        assert len(corpus) == len(corpus.book_ids) == len(corpus.paragraph_ids) > 1000
        spans = corpus.book_spans
        assert spans[0][1] == 0 and spans[-1][2] == len(corpus)
        assert all(a[2] == b[1] for a, b in zip(spans, spans[1:])), "spans tile the corpus"
        # paragraph ids never decrease inside a book
        for _, s, e in spans:
            assert np.all(np.diff(corpus.paragraph_ids[s:e]) >= 0)
    assert all(s == s.lower() for s in train.sentences[:500])
    assert all(s and "  " not in s for s in train.sentences)


def test_corpus_stats_have_the_table1_fields(small):
    meta = json.loads((small / "meta.json").read_text())
    stats = meta["stats"]["train"]
    assert stats["books"] == 2
    assert stats["sentences"] == len(Corpus(small, "train"))
    assert meta["stats"] == {split: Corpus(small, split).stats() for split in ("train", "valid")}
    assert stats["tokens"] > stats["words"] > stats["sentences"]
    assert 5 < stats["mean_words_per_sentence"] < 40
    assert meta["build_seconds"] > 0 and meta["config"]["max_books"] == 2


def test_corpus_is_cached_and_rebuilt_only_when_settings_change(small):
    stamp = (small / "meta.json").stat().st_mtime_ns
    assert build_corpus(CorpusConfig(max_books=2), progress=False) == small
    assert (small / "meta.json").stat().st_mtime_ns == stamp, "reused, not rebuilt"
    cased = build_corpus(CorpusConfig(max_books=2, lowercase=False), progress=False, workers=1)
    assert cased != small
    assert Corpus(cased, "train").sentences != Corpus(small, "train").sentences


def test_bad_split_name(small):
    with pytest.raises(ValueError, match="train"):
        Corpus(small, "test")


@pytest.mark.slow
def test_full_corpus_has_about_one_and_a_half_million_sentences():
    train = load_corpus("train", progress=False)
    stats = train.meta["stats"]
    assert stats["train"]["books"] == 389 and stats["valid"]["books"] == 10
    total = stats["train"]["sentences"] + stats["valid"]["sentences"]
    assert 1_300_000 < total < 1_700_000
    assert 15 < stats["train"]["mean_words_per_sentence"] < 25


def test_cli_corpus_stats_writes_json(small, tmp_path, capsys):
    from reproducer.__main__ import main as cli

    assert cli(["corpus", "stats", "--max-books", "2", "--json", str(tmp_path / "stats.json")]) == 0
    saved = json.loads((tmp_path / "stats.json").read_text())
    assert saved["stats"] == json.loads((small / "meta.json").read_text())["stats"]
    assert "mean_words_per_sentence" in capsys.readouterr().out

"""Loaders on the real data: published sizes, label conventions and every quirk of the files."""
from __future__ import annotations

from collections import Counter

import pytest

from reproducer.data import loaders as L


def sizes(splits):
    return {k: len(v) for k, v in splits.items()}


@pytest.mark.parametrize("loader, n, n_pos, n_empty", [
    (L.load_mr, 10662, 5331, 0), (L.load_cr, 3775, 2407, 4), (L.load_subj, 10000, 5000, 0),
    (L.load_mpqa, 10606, 3312, 3),
])
def test_binary_classification_sizes(loader, n, n_pos, n_empty):
    data = loader()
    assert sizes(data) == {"all": n}
    assert Counter(s.label for s in data["all"])[1] == n_pos
    assert all(s.text == s.text.strip() for s in data["all"])
    # the published counts include a few empty lines (SentEval keeps them too)
    assert sum(not s.text for s in data["all"]) == n_empty


def test_subj_objective_is_the_positive_class():
    data = L.load_subj()["all"]
    assert data[0].label == 1 and data[-1].label == 0
    assert len({s.text for s in data}) > 9900


def test_trec_latin1_and_coarse_labels():
    data = L.load_trec()
    assert sizes(data) == {"train": 5452, "test": 500}
    assert set(Counter(s.label for s in data["train"])) == {"ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"}
    assert data["train"][0] == L.Sentence("How did serfdom develop in and then leave Russia ?", "DESC")
    assert any("\u00f0" in s.text for s in data["train"]), "the stray 0xF0 byte decodes as latin-1 'ð'"
    assert Counter(s.label for s in data["test"])["NUM"] == 113  # the TREC-10 test distribution


def test_sst2_sentence_and_phrase_level():
    sent = L.load_sst2()
    assert sizes(sent) == {"train": 6920, "dev": 872, "test": 1821}
    assert {s.label for s in sent["train"]} == {0, 1}
    phrase = L.load_sst2("phrase")
    assert sizes(phrase) == {"train": 67349, "dev": 872, "test": 1821}
    assert Counter(s.label for s in phrase["test"]) == Counter(s.label for s in sent["test"])
    with pytest.raises(ValueError):
        L.load_sst2("word")


def test_mrpc_bom_and_labels():
    data = L.load_mrpc()
    assert sizes(data) == {"train": 4076, "test": 1725}
    first = data["train"][0]
    assert first.label == 1 and first.a.startswith("Amrozi accused")
    assert Counter(p.label for p in data["test"])[1] == 1147
    assert not any(p.a.startswith("\ufeff") for p in data["train"])


@pytest.mark.parametrize("variant", ["senteval", "original"])
def test_sick_splits_crlf_and_labels(variant):
    data = L.load_sick(variant)
    assert sizes(data) == {"train": 4500, "dev": 500, "test": 4927}
    for rows in data.values():
        for r in rows:
            assert 1.0 <= r.relatedness <= 5.0
            assert r.entailment in {"NEUTRAL", "ENTAILMENT", "CONTRADICTION"}
            assert "\r" not in r.entailment and "\r" not in r.b
    assert data["test"][0].pair_id == 6


def test_sick_variants_agree_on_ids_scores_and_labels():
    a, b = L.load_sick("senteval"), L.load_sick("original")
    for split in a:
        assert [(r.pair_id, r.relatedness, r.entailment) for r in a[split]] == \
               [(r.pair_id, r.relatedness, r.entailment) for r in b[split]]


@pytest.mark.parametrize("year, n", [("STS12", 3108), ("STS13", 1500), ("STS14", 3750), ("STS15", 3000),
                                     ("STS16", 1186)])
def test_sts_sizes_with_unscored_pairs_dropped(year, n):
    data = L.load_sts(year)
    assert set(data) == set(L.STS_DATASETS[year])
    assert sum(len(v) for v in data.values()) == n
    assert all(0.0 <= p.label <= 5.0 for v in data.values() for p in v)
    assert all(p.a and p.b for v in data.values() for p in v)


def test_sts_unknown_year():
    with pytest.raises(ValueError, match="STS12"):
        L.load_sts("STS17")


def test_stsb():
    data = L.load_stsb()
    assert sizes(data) == {"train": 5749, "dev": 1500, "test": 1379}
    assert data["train"][0] == L.Pair("a plane is taking off .", "an air plane is taking off .", 5.0)


def test_ppdb_human_pairs():
    ppdb, wiki = L.load_ppdb_human(), L.load_ppdb_human("wiki")
    assert (len(ppdb), len(wiki)) == (26456, 13954)
    assert ppdb[0] == L.PhrasePair("this video", "the movie", 4.0, "NP", (3.0, 4.0, 4.0, 4.0, 5.0))
    assert all(1.0 <= p.score <= 5.0 for p in ppdb)


def test_twitter_url_corpus():
    data = L.load_twitter_url()
    assert sizes(data) == {"train": 42200, "test": 9324}
    assert sum(p.label for p in data["train"]) == 11167
    assert sum(p.label for p in data["test"]) == 1820


def test_wiki_pool_and_word_sets():
    pool = L.load_wiki_pool()
    assert len(pool) == 17614 and len({s.page_id for s in pool}) == 96
    analogies = L.load_google_analogy()
    assert len(analogies) == 19544 and len({a.section for a in analogies}) == 14
    assert analogies[0] == L.Analogy("capital-common-countries", "Athens", "Greece", "Baghdad", "Iraq")
    assert len(L.load_simlex()) == 999 and len(L.load_wordsim()) == 353
    assert L.load_simlex()[0] == L.WordPair("old", "new", 1.58)


def test_sif_counts():
    counts = L.load_sif_counts()
    assert len(counts) == 188033
    assert counts["the"] == 167485604


def test_gutenberg_books_metadata():
    books = L.load_gutenberg_books()
    assert len(books) == 399
    assert Counter(b["split"] for b in books) == {"train": 389, "valid": 10}
    assert [b["book_idx"] for b in books if b["split"] == "valid"] == [str(i) for i in range(389, 399)]

"""The vocabulary: specials first, frequency order, cap, unknowns, save/load."""
from __future__ import annotations

import pytest

from reproducer.data.vocab import SPECIALS, Vocabulary
from reproducer.errors import ReproducerError

SENTS = ["the cat sat", "the dog sat", "a cat", ["the", "end"]]


def test_build_orders_by_count_then_alphabet():
    v = Vocabulary.build(SENTS)
    assert v.itos[:4] == list(SPECIALS)
    assert v.itos[4:] == ["the", "cat", "sat", "a", "dog", "end"]
    assert v.counts["the"] == 3


def test_size_cap_includes_specials_and_min_count():
    assert len(Vocabulary.build(SENTS, max_size=6)) == 6
    assert Vocabulary.build(SENTS, min_count=2).itos[4:] == ["the", "cat", "sat"]
    with pytest.raises(ValueError):
        Vocabulary.build(SENTS, max_size=4)
    with pytest.raises(ReproducerError, match="empty"):
        Vocabulary.build([])


def test_encode_decode_and_unknowns():
    v = Vocabulary.build(SENTS)
    ids = v.encode("the zebra sat", bos=True, eos=True)
    assert ids[0] == v.bos_id and ids[-1] == v.eos_id and ids[2] == v.unk_id
    assert v.decode(ids) == ["the", "<unk>", "sat"]
    assert v.encode("") == []
    assert "cat" in v and "zebra" not in v
    assert v.coverage(["the zebra"]) == 0.5


def test_save_load_roundtrip(tmp_path):
    v = Vocabulary.build(SENTS)
    v.save(tmp_path / "vocab.json")
    w = Vocabulary.load(tmp_path / "vocab.json")
    assert w == v and w.counts == v.counts


def test_rejects_malformed_token_lists():
    with pytest.raises(ReproducerError):
        Vocabulary(["a", "b"])
    with pytest.raises(ReproducerError):
        Vocabulary(list(SPECIALS) + ["x", "x"])

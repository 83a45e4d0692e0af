"""Trained encoders behind the encoder contract: batching, vocabulary expansion, bundles, combine."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from reproducer.data.vectors import WordVectors
from reproducer.data.vocab import SPECIALS, Vocabulary
from reproducer.encoders.recurrent import RecurrentConfig, RecurrentEncoder
from reproducer.encoders.bundles import load_encoder
from reproducer.encoders.trained import ConcatEncoder, TokenEncoder, expand_embeddings, fit_linear_map
from reproducer.errors import ReproducerError

WORDS = ["the", "cat", "dog", "sat", "ran", "mat", "a", "on"]


@pytest.fixture()
def encoder():
    torch.manual_seed(0)
    vocab = Vocabulary(list(SPECIALS) + WORDS)
    return TokenEncoder(RecurrentEncoder(RecurrentConfig(len(vocab), word_dim=6, hidden=5, bidirectional=True)),
                        vocab, "toy")


def test_encode_is_order_and_batch_independent(encoder):
    sentences = ["The cat sat on the mat.", "a dog", "", "the unknownword ran"]
    full = encoder.encode(sentences, batch_size=16)
    assert full.shape == (4, 10) and full.dtype == np.float32
    np.testing.assert_allclose(encoder.encode(sentences, batch_size=1), full, atol=1e-6)
    np.testing.assert_allclose(encoder.encode(sentences[::-1], batch_size=3)[::-1], full, atol=1e-6)
    assert encoder.ids("") == [encoder.vocab.unk_id]


def test_linear_map_recovers_a_known_map():
    rng = np.random.default_rng(0)
    x, m = rng.normal(size=(50, 4)), rng.normal(size=(4, 3))
    fitted, r2 = fit_linear_map(x, x @ m)
    np.testing.assert_allclose(fitted, m, atol=1e-5)
    assert r2 == pytest.approx(1.0)
    with pytest.raises(ReproducerError, match="at least as many shared words"):
        fit_linear_map(x[:3], (x @ m)[:3])


def test_expansion_gives_a_new_word_a_vector_near_its_synonym(encoder):
    """'kitten' is not in the training vocabulary; its word2vec-like vector is close to 'cat', so its
    mapped embedding must be closest to the trained embedding of 'cat'."""
    rng = np.random.default_rng(1)
    table = encoder.module.embed.weight.detach().numpy()
    source_dim = 4
    m = rng.normal(size=(source_dim, 6))
    words = WORDS + ["kitten", "puppy"]
    src = rng.normal(size=(len(words), source_dim)).astype(np.float32)
    src[words.index("kitten")] = src[words.index("cat")] + 0.01
    src[words.index("puppy")] = src[words.index("dog")] + 0.01
    # make the trained table an exact linear image of the source space for the shared words
    for i, w in enumerate(WORDS):
        table[encoder.vocab.stoi[w]] = src[i] @ m
    vectors = WordVectors(words, src, name="toy-w2v")
    vocab, expanded, report = expand_embeddings(encoder.vocab, table, vectors)
    assert report.shared == len(WORDS) and report.added == 2 and report.r2 == pytest.approx(1.0, abs=1e-4)
    assert vocab.itos[: len(encoder.vocab)] == encoder.vocab.itos and "kitten" in vocab
    np.testing.assert_array_equal(expanded[: len(table)], table)  # trained rows unchanged
    k = expanded[vocab.stoi["kitten"]]
    sims = {w: k @ table[encoder.vocab.stoi[w]] / np.linalg.norm(k) / np.linalg.norm(table[encoder.vocab.stoi[w]])
            for w in WORDS}
    assert max(sims, key=sims.get) == "cat"

    with torch.no_grad():
        encoder.module.embed.weight.copy_(torch.from_numpy(table))
    bigger, report2 = encoder.expanded(vectors)
    assert report2 == report and len(bigger.vocab) == len(encoder.vocab) + 2
    assert bigger.encode(["the kitten sat"]).shape == (1, 10)
    assert not np.allclose(bigger.encode(["kitten"]), encoder.encode(["kitten"]))  # no longer <unk>
    np.testing.assert_allclose(bigger.encode(["the cat sat"]), encoder.encode(["the cat sat"]), atol=1e-6)


def test_bundle_round_trip(encoder, tmp_path):
    path = tmp_path / "toy.pt"
    encoder.save(path)
    loaded = load_encoder(path, device="cpu")
    assert loaded.name == "toy" and loaded.vocab == encoder.vocab
    np.testing.assert_allclose(loaded.encode(["the cat sat"]), encoder.encode(["the cat sat"]), atol=1e-6)
    torch.save({"model": {}}, tmp_path / "ckpt.pt")
    with pytest.raises(ReproducerError, match="not an encoder bundle"):
        load_encoder(tmp_path / "ckpt.pt")
    with pytest.raises(ReproducerError, match="No encoder bundle"):
        load_encoder(tmp_path / "missing.pt")


def test_concat_encoder(encoder):
    both = ConcatEncoder([encoder, encoder], "twice")
    out = both.encode(["a cat"])
    assert out.shape == (1, 20)
    np.testing.assert_array_equal(out[:, :10], out[:, 10:])


def test_cli_evaluates_a_saved_encoder(encoder, tmp_path, capsys):
    import json

    from reproducer.__main__ import main as cli

    path = tmp_path / "toy.pt"
    encoder.save(path)
    out = tmp_path / "r.json"
    assert cli(["evaluate", "--encoder", str(path), "--tasks", "STS16", "--json", str(out), "--quiet",
                "--device", "cpu"]) == 0
    record = json.loads(out.read_text())
    assert record["encoder"] == "toy" and -1 <= record["results"]["STS16"]["wmean.pearson"] <= 1
    assert cli(["evaluate", "--encoder", "glove-bow", "--expand", "glove", "--tasks", "STS16"]) == 2
    assert "applies to a trained encoder" in capsys.readouterr().err
    assert cli(["evaluate", "--encoder", str(tmp_path / "missing.pt"), "--tasks", "STS16"]) == 2


@pytest.mark.parametrize("kind", ["token", "concat", "compositional", "views", "aae"])
def test_bundles_written_before_the_papers_moved_load_and_encode_the_same(kind):
    """tests/data/bundles_5e7934b: tiny bundles of every kind written by commit 5e7934b, before the objectives moved
    to reproducer/papers/ (bundles name only reproducer.encoders modules, which did not move: the format is
    unchanged, ``reproducer-encoder/2``). The same to float32 rounding: a CPU with AVX-512 sums in another order than
    the AVX2 machine that wrote them (seen: 1e-9 apart, relative 3e-7), while a wrongly loaded weight moves every
    vector entirely."""
    folder = Path(__file__).parent / "data" / "bundles_5e7934b"
    expected = np.load(folder / "expected.npz")[kind]
    loaded = load_encoder(folder / f"{kind}.pt", device="cpu")
    np.testing.assert_allclose(loaded.encode(["the cat sat on the mat", "a dog ran", "mat"]), expected,
                               rtol=1e-5, atol=1e-8)

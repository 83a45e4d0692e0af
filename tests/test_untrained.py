"""Untrained encoders (Wieting & Kiela 2019): BOREP, a random (bi)LSTM and an echo state network over fixed word
vectors, drawn from a seed, pooled over each sentence's own words."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from reproducer.data.vectors import WordVectors
from reproducer.encoders.bundles import load_encoder
from reproducer.encoders.untrained import UntrainedConfig, reverse_within, untrained_encoder
from reproducer.errors import ReproducerError

WORDS = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran"]
SENTENCES = ["The cat sat on a mat.", "a dog ran", "cat", "", "the dog sat on the cat and the mat"]


@pytest.fixture(scope="module")
def vectors():
    return WordVectors(WORDS, np.random.default_rng(3).standard_normal((len(WORDS), 6)).astype(np.float32), "toy")


@pytest.mark.parametrize("kind", ["borep", "lstm", "esn"])
def test_an_untrained_encoder_is_its_seed_and_its_width(vectors, kind):
    one = untrained_encoder(kind, vectors, dim=10, seed=1, device="cpu").encode(SENTENCES)
    again = untrained_encoder(kind, vectors, dim=10, seed=1, device="cpu").encode(SENTENCES)
    other = untrained_encoder(kind, vectors, dim=10, seed=2, device="cpu").encode(SENTENCES)
    assert one.shape == (len(SENTENCES), 10) and np.isfinite(one).all()
    assert np.array_equal(one, again) and not np.allclose(one, other)


@pytest.mark.parametrize("kind", ["borep", "lstm", "esn"])
def test_a_sentence_reads_the_same_alone_or_beside_longer_ones(vectors, kind):
    """Padding never counts: the pooling covers each sentence's own words, the backward direction starts at its last."""
    encoder = untrained_encoder(kind, vectors, dim=8, seed=0, device="cpu")
    batched = encoder.encode(SENTENCES, batch_size=len(SENTENCES))
    alone = np.stack([encoder.encode([s], batch_size=1)[0] for s in SENTENCES])
    assert np.allclose(batched, alone, atol=1e-5)


def test_borep_max_pools_a_projection_drawn_as_pytorch_draws_a_linear_layer(vectors):
    encoder = untrained_encoder("borep", vectors, dim=400, seed=0, device="cpu")
    w = encoder.module.proj.weight.numpy()
    assert np.abs(w).max() <= 1 / np.sqrt(6) and np.abs(w).max() > 0.9 / np.sqrt(6)  # U[-1/sqrt(d), 1/sqrt(d)]
    rows = vectors.vectors[[vectors.index[t] for t in ["a", "dog", "ran"]]]
    assert np.allclose(encoder.encode(["a dog ran"])[0], (rows @ w.T).max(axis=0), atol=1e-5)
    assert not encoder.encode(["zebra quagga"]).any()  # words without a vector read zero: nothing to project


def test_borep_with_a_relu_after_mean_pooling(vectors):
    encoder = untrained_encoder("borep", vectors, dim=50, seed=0, device="cpu", pooling="avg", output_activation="relu")
    rows = vectors.vectors[[vectors.index[t] for t in ["a", "dog", "ran"]]]
    expected = np.maximum((rows @ encoder.module.proj.weight.numpy().T).mean(axis=0), 0)
    assert np.allclose(encoder.encode(["a dog ran"])[0], expected, atol=1e-5) and (expected == 0).any()


def test_the_esn_reservoir_has_the_asked_spectral_radius_and_sparsity(vectors):
    encoder = untrained_encoder("esn", vectors, dim=200, seed=0, device="cpu", spectral_radius=0.9, sparsity=0.5)
    for w in encoder.module.w:  # one reservoir a direction
        assert torch.linalg.eigvals(w.double()).abs().max().item() == pytest.approx(0.9, rel=1e-4)
        assert 0.45 < (w == 0).float().mean().item() < 0.55
    assert encoder.module.w_in.abs().max() <= 0.1


def test_the_esn_backward_direction_reads_each_sentence_from_its_last_word(vectors):
    encoder = untrained_encoder("esn", vectors, dim=8, seed=0, device="cpu", state_activation="tanh")
    module, ids = encoder.module, torch.tensor([encoder.ids("the cat sat on a mat")])
    states = module.states(ids, torch.tensor([ids.shape[1]]))
    forward_only = module._esn(module.embed(ids.flip(1)), 1).flip(1)  # the same reservoir over the reversed words
    assert torch.allclose(states[..., 4:], forward_only, atol=1e-6)


def test_reversing_within_lengths_leaves_the_padding_in_place():
    x = torch.arange(8.0).reshape(2, 4, 1)
    flipped = reverse_within(x, torch.tensor([4, 2]))
    assert flipped[..., 0].tolist() == [[3, 2, 1, 0], [5, 4, 6, 7]]
    assert torch.equal(reverse_within(flipped, torch.tensor([4, 2])), x)


def test_an_untrained_encoder_saves_and_loads_as_every_encoder(vectors, tmp_path):
    encoder = untrained_encoder("lstm", vectors, dim=6, seed=4, device="cpu", pooling="avg")
    encoder.save(tmp_path / "lstm.pt")
    assert np.array_equal(load_encoder(tmp_path / "lstm.pt", device="cpu").encode(SENTENCES), encoder.encode(SENTENCES))


@pytest.mark.parametrize("fields, message", [
    ({"kind": "gru"}, "Unknown untrained encoder 'gru'"),
    ({"kind": "lstm", "dim": 7}, "even for a bidirectional lstm"),
    ({"kind": "borep", "pooling": "min"}, "pooling must be 'max' or 'avg'"),
    ({"kind": "esn", "state_activation": "sigmoid"}, "state_activation must be one of"),
    ({"kind": "esn", "sparsity": 1.0}, "0 <= sparsity < 1"),
])
def test_a_wrong_configuration_is_refused_with_its_reason(fields, message):
    with pytest.raises(ReproducerError, match=message):
        UntrainedConfig(vocab_size=10, word_dim=4, **fields)


def test_named_untrained_baselines_read_their_kind_vectors_and_width_from_the_name(vectors, monkeypatch):
    """``<kind>-<vectors>-<width>`` loads like every baseline (the vectors are our word2vec or GloVe 6B 50d: a toy
    table stands in for both here); its seed draws the weights, and a deterministic baseline refuses a seed."""
    import reproducer.data.vectors
    import reproducer.encoders.baselines as baselines
    from reproducer.papers import registry as models

    monkeypatch.setattr(reproducer.data.vectors, "train_word2vec", lambda: vectors)
    monkeypatch.setattr(baselines, "load_glove", lambda: WordVectors(vectors.words, vectors.vectors[:, :4], "glove"))
    esn = baselines.load_baseline("esn-word2vec-12", seed=1)
    assert esn.name == "esn-word2vec-12" and esn.module.config.kind == "esn" and esn.module.config.word_dim == 6
    assert esn.encode(SENTENCES).shape == (len(SENTENCES), 12)
    assert np.array_equal(esn.encode(SENTENCES), untrained_encoder("esn", vectors, dim=12, seed=1).encode(SENTENCES))
    assert not np.allclose(esn.encode(SENTENCES), baselines.load_baseline("esn-word2vec-12").encode(SENTENCES))
    assert baselines.load_baseline("borep-glove-8").module.config.word_dim == 4
    for name in ["tree-word2vec-12", "esn-fasttext-12", "esn-word2vec-0", "esn-word2vec"]:
        with pytest.raises(ReproducerError, match="Unknown encoder"):
            baselines.load_baseline(name)
    with pytest.raises(ReproducerError, match="draws nothing at random"):
        baselines.load_baseline("glove-bow", seed=1)
    names = {m.name for m in models.models(family="baseline")}
    expected = {f"{k}-{v}-{d}" for k in ("borep", "lstm", "esn") for v in ("word2vec", "glove") for d in (1200, 4096)}
    assert expected <= names


def test_a_scaled_encoder_keeps_each_direction_and_rejects_a_bad_factor(vectors):
    """ScaledEncoder (the SICK-R probe's scale diagnostic): factor × the encoder's vectors, same cosines."""
    from reproducer.encoders.base import ScaledEncoder
    from reproducer.evaluate.protocols import cosine

    encoder = untrained_encoder("esn", vectors, dim=8, seed=0, device="cpu")
    plain, scaled = encoder.encode(SENTENCES), ScaledEncoder(encoder, 0.1).encode(SENTENCES)
    assert np.allclose(scaled, 0.1 * plain, rtol=1e-6) and not np.allclose(scaled, plain)
    assert np.allclose(cosine(scaled, scaled[::-1]), cosine(plain, plain[::-1]), atol=1e-6)
    assert ScaledEncoder(encoder, 0.1).name == f"{encoder.name}*0.1"
    for bad in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ReproducerError, match="positive finite"):
            ScaledEncoder(encoder, bad)

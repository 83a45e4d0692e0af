"""Mean-max attention autoencoder (Zhang et al. 2018): shapes, masking, parameter count, causality, the loss."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from reproducer.data.batches import pad
from reproducer.encoders.attention import AAEConfig, MultiHeadAttention, sinusoidal_positions
from reproducer.errors import ReproducerError
from reproducer.papers.mean_max_aae.objective import MeanMaxAAE, reconstruction_loss

V_IN, W = 40, 6


def small(positions="sinusoidal", vocab_size=25, seed=0, family="AAE", pooling=("max", "avg")):
    torch.manual_seed(seed)
    vectors = np.random.default_rng(seed).normal(size=(V_IN, W)).astype(np.float32)
    vectors[0] = 0
    config = AAEConfig(vocab_size, word_dim=W, d_model=8, d_ff=12, heads=2, positions=positions, max_len=16,
                       family=family, pooling=pooling)
    return MeanMaxAAE(vectors, config).eval()


VARIANTS = [(family, pooling) for family in ("AAE", "RAE") for pooling in (("max", "avg"), ("avg",), ("max",))]


@pytest.mark.parametrize("family, pooling", VARIANTS)
def test_shapes_and_attention_over_the_pooled_vectors(family, pooling):
    model = small(family=family, pooling=pooling)
    ids, lengths = pad([np.array([5, 6, 7, 3]), np.array([8, 3])])
    z = model.encoder(ids, lengths)
    k = len(pooling)
    assert z.shape == (2, 8 * k) and model.encoder.output_dim == 8 * k
    logits, targets, weights = model.reconstruct(ids, lengths)
    assert logits.shape == (2, 4, 25) and weights.shape == (2, 2, 4, k)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 2, 4))
    assert targets[1].tolist() == [8, 3, 0, 0]  # padding is not a target


@pytest.mark.parametrize("family", ["AAE", "RAE"])
def test_padding_never_changes_a_sentence_vector(family):
    model = small(family=family)
    alone = model.encoder(*pad([np.array([8, 9, 3])]))
    ids, lengths = pad([np.array([8, 9, 3]), np.array([5, 6, 7, 11, 12, 13, 3])])
    torch.testing.assert_close(model.encoder(ids, lengths)[0], alone[0], atol=1e-5, rtol=1e-5)


def test_the_mean_half_and_the_max_half():
    model = small()
    ids, lengths = pad([np.array([5, 6, 7])])
    h = model.encoder.states(ids, lengths)[0]
    z = model.encoder(ids, lengths)[0]
    torch.testing.assert_close(z[:8], h.max(dim=0).values)
    torch.testing.assert_close(z[8:], h.mean(dim=0))


@pytest.mark.parametrize("positions, family", [("sinusoidal", "AAE"), ("learned", "AAE"), ("sinusoidal", "RAE")])
def test_parameter_count_is_the_formula(positions, family):
    model = small(positions, family=family)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert trainable == model.config.parameter_count()
    assert not model.encoder.embed.weight.requires_grad and model.encoder.embed is model.decoder.embed
    # the paper's sizes (300-d input, 21.6k output words), term by term: 106.7M trainable parameters
    w, m, f, v = 300, 2048, 4096, 21_600
    self_attention, meanmax_attention = 3 * (w * m + m) + m * m + m, 4 * (m * m + m)
    ffn = m * f + f + f * m + m
    expected = (self_attention + ffn + 2 * 2 * m) + (self_attention + meanmax_attention + ffn + 3 * 2 * m + m * v + v)
    assert AAEConfig(v, w, m, f, 8).parameter_count() == expected == 106_722_400


@pytest.mark.parametrize("family", ["AAE", "RAE"])
def test_a_decoder_position_never_sees_later_tokens(family):
    model = small(family=family)
    ids, lengths = pad([np.array([5, 6, 7, 9, 10, 3])])
    z = model.encoder(ids, lengths)
    changed = ids.clone()
    changed[0, 4] = 11
    a, _ = model.decoder(ids, lengths, z)
    b, _ = model.decoder(changed, lengths, z)
    torch.testing.assert_close(a[0, :4], b[0, :4])
    assert not torch.allclose(a[0, 4:], b[0, 4:])
    attention = MultiHeadAttention(4, 4, 4, 2)
    x = torch.randn(1, 5, 4)
    _, w = attention(x, x, causal=True)
    assert torch.all(w[0, :, 0, 1:] == 0) and torch.all(w.triu(diagonal=1) == 0)


@pytest.mark.parametrize("family", ["AAE", "RAE"])
def test_the_loss_ignores_padding_and_drops_when_overfitting_one_batch(family):
    logits = torch.randn(2, 3, 5)
    targets = torch.tensor([[1, 2, 0], [3, 0, 0]])
    keep = targets != 0
    expected = F.cross_entropy(logits[keep], targets[keep])
    torch.testing.assert_close(reconstruction_loss(logits, targets), expected)
    model = small(family=family).train()

    class Batch:
        ids, lengths = pad([np.array([5, 6, 7, 3]), np.array([8, 9, 3]), np.array([30, 12, 13, 14, 3])])

    from reproducer.papers.mean_max_aae.objective import held_out_statistics

    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    first = model(Batch).item()
    before = held_out_statistics(model, [Batch])["accuracy"]
    for _ in range(60):
        loss = model(Batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert loss.item() < 0.2 * first
    after = held_out_statistics(model, [Batch])
    assert after["tokens"] == 12 and before < 0.5 < after["accuracy"] == 1.0  # every token reconstructed
    assert model.training  # restored after scoring
    _, targets, _ = model.reconstruct(Batch.ids, Batch.lengths)
    assert targets[2, 0].item() == 1  # word 30 is outside the 25-word output vocabulary: predicted as <unk>


@pytest.mark.parametrize("pooling", [("max", "avg"), ("avg",)])
def test_attention_on_the_pooled_vectors_is_a_distribution_per_step(pooling):
    from reproducer.papers.mean_max_aae.objective import decoder_attention, held_out_statistics

    model = small(pooling=pooling)
    weights, names = decoder_attention(model, np.array([5, 6, 7, 9, 3]))
    assert weights.shape == (2, 5, len(pooling)) and names == [{"max": "z_max", "avg": "z_mean"}[p] for p in pooling]
    np.testing.assert_allclose(weights.sum(-1), 1, rtol=1e-5)

    class Batch:
        ids, lengths = pad([np.array([5, 6, 7, 9, 3]), np.array([8, 3])])

    stats = held_out_statistics(model, [Batch])
    assert stats["tokens"] == 7 and set(stats["attention"]) == set(names)
    assert sum(stats["attention"].values()) == pytest.approx(1.0)
    expected = (weights.mean(0).sum(0) + decoder_attention(model, np.array([8, 3]))[0].mean(0).sum(0)) / 7
    np.testing.assert_allclose(list(stats["attention"].values()), expected, rtol=1e-5)


@pytest.mark.parametrize("positions", ["sinusoidal", "learned"])
def test_test_sentences_longer_than_the_position_table_are_encoded(positions):
    model = small(positions)  # max_len 16: training sentences fit; an evaluation sentence may not
    inputs = model.encoder.inputs
    long = inputs.table(20)
    assert long.shape == (20, W)
    torch.testing.assert_close(long[:16], inputs.positions[:16])
    if positions == "sinusoidal":
        torch.testing.assert_close(long, sinusoidal_positions(20, W))
    else:
        torch.testing.assert_close(long[16:], inputs.positions[-1:].expand(4, -1))
    ids, lengths = pad([np.arange(4, 24), np.array([5, 6, 3])])
    z = model.encoder(ids, lengths)
    assert z.shape == (2, 16) and torch.isfinite(z).all()


def test_sinusoidal_positions_and_bad_settings():
    p = sinusoidal_positions(4, 6)
    assert torch.equal(p[0, 0::2], torch.zeros(3)) and torch.equal(p[0, 1::2], torch.ones(3))
    assert float(p[1, 0]) == pytest.approx(np.sin(1.0))
    with pytest.raises(ReproducerError, match="heads"):
        MultiHeadAttention(4, 4, 6, 4)
    with pytest.raises(ReproducerError, match="positions"):
        AAEConfig(10, positions="rotary")
    with pytest.raises(ReproducerError, match="family"):
        AAEConfig(10, family="CNN")
    with pytest.raises(ReproducerError, match="Pooling"):
        AAEConfig(10, pooling=("min",))


def test_sentence_batches_keep_4_to_32_tokens_and_end_with_eos(books):
    from reproducer.data.batches import SentenceSampler, TokenizedCorpus
    from reproducer.data.vocab import Vocabulary

    corpus = books(sizes=(6, 4))
    corpus.sentences[2] = "a b"  # too short: never sampled
    corpus.sentences[5] = " ".join(["w"] * 40)  # too long: never sampled
    vocab = Vocabulary.build(corpus.sentences, max_size=None)
    sampler = SentenceSampler(TokenizedCorpus.from_corpus(corpus, vocab), batch_size=2, min_tokens=3, seed=1)
    assert sorted(sampler.positions.tolist()) == [0, 1, 3, 4, 6, 7, 8, 9]
    seen = []
    for step in range(sampler.steps_per_epoch):
        batch = sampler.batch(step)
        assert batch.ids.shape[0] == 2 and torch.all(batch.ids[torch.arange(2), batch.lengths - 1] == vocab.eos_id)
        seen += [" ".join(vocab.decode(row[: n - 1].tolist())) for row, n in zip(batch.ids, batch.lengths)]
    assert sorted(seen) == sorted(corpus.sentences[i] for i in sampler.positions)  # one epoch, each sentence once
    assert torch.equal(sampler.batch(3).ids, SentenceSampler(sampler.corpus, 2, min_tokens=3, seed=1).batch(3).ids)
    with pytest.raises(ReproducerError, match="Only"):
        SentenceSampler(sampler.corpus, 50)


@pytest.mark.parametrize("variant", ["mean-max AAE", "max RAE"])
def test_training_a_variant_and_encoding_with_eos(tmp_path, books, variant):
    from reproducer.data.batches import TokenizedCorpus
    from reproducer.data.vocab import SPECIALS, Vocabulary
    from reproducer.data.vectors import pretrained_channel
    from reproducer.encoders.bundles import load_encoder
    from reproducer.fit import fit
    from reproducer.papers.mean_max_aae.objective import OBJECTIVE, sentence_encoder
    from reproducer.papers.registry import preset as named_preset
    from reproducer.data.training_data import TrainingData

    corpus = books(sizes=(20, 15))
    small_vocab = Vocabulary.build(corpus.sentences, max_size=12)

    class Vectors:  # every corpus word has a vector; ids of the big vocabulary put the output words first
        words = sorted({w for s in corpus.sentences for w in s.split()})
        index = {w: i for i, w in enumerate(words)}
        vectors = np.random.default_rng(0).normal(size=(len(words), 6)).astype(np.float32)
        dim = 6

    vocab, table = pretrained_channel(small_vocab, Vectors)
    assert vocab.itos[:len(small_vocab)] == small_vocab.itos and len(vocab) > len(small_vocab)
    preset = named_preset("autoencoder", "smoke", vocab_size=len(small_vocab), d_model=8, d_ff=16, heads=2, batch_size=8,
                                min_tokens=3, max_steps=30, lr=1e-2)
    evals = []
    fitted = fit(OBJECTIVE, variant, preset, TrainingData(TokenizedCorpus.from_corpus(corpus, vocab), vocab, table),
                             progress=False, evaluate=lambda f, step: evals.append((f.encoder.dim, step)) or {"dim": 1})
    encoder, model, log = fitted.encoder, fitted.module, fitted.log
    assert log.losses[-1]["loss"] < log.losses[0]["loss"] and evals == [(encoder.dim, s) for s in (10, 20, 30)]
    assert [e["step"] for e in log.evals] == [10, 20, 30]
    sentences = corpus.sentences[:5]
    x = encoder.encode(sentences)
    k = 1 if variant.startswith("max") else 2
    assert x.shape == (5, 8 * k)
    # the test-time vector is the pooled encoding of the sentence followed by </s>, as in training
    ids = torch.tensor([vocab.encode(sentences[0]) + [vocab.eos_id]])
    with torch.no_grad():
        expected = model.encoder(ids, torch.tensor([ids.shape[1]]))[0].numpy()
    np.testing.assert_allclose(x[0], expected, atol=1e-5)
    halves = sentence_encoder(model, vocab, "normalised", normalize_halves=True).encode(sentences)
    np.testing.assert_allclose(np.linalg.norm(halves.reshape(5, k, 8), axis=-1), 1.0, atol=1e-5)
    # trained with normalize_halves, the test-time encoder (also the one the evaluation points see) pools that way
    seen = []
    normalised = fit(OBJECTIVE, variant, dataclasses.replace(preset, max_steps=10),
                                 TrainingData(TokenizedCorpus.from_corpus(corpus, vocab), vocab, table), progress=False,
                                 normalize_halves=True, evaluate=lambda f, step: seen.append(f.encoder.encode(sentences))
                                 or {"dim": 1})
    assert normalised.encoder.module.normalize_halves and not encoder.module.normalize_halves
    np.testing.assert_allclose(np.linalg.norm(seen[-1].reshape(5, k, 8), axis=-1), 1.0, atol=1e-5)
    path = tmp_path / "aae.encoder.pt"
    encoder.save(path)
    np.testing.assert_allclose(load_encoder(path).encode(sentences), x, atol=1e-5)
    np.testing.assert_allclose(load_encoder(path, normalize_halves=True).encode(sentences), halves, atol=1e-5)
    if variant == "mean-max AAE":  # the command line reads the bundle too
        import json

        from reproducer.__main__ import main as cli

        out = tmp_path / "out.json"
        assert cli(["evaluate", "--encoder", str(path), "--normalize-halves", "--tasks", "SICK-cos", "--device", "cpu",
                    "--quiet", "--json", str(out)]) == 0
        assert set(json.loads(out.read_text())["results"]) == {"SICK-cos"}

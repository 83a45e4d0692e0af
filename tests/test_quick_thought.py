"""Quick-Thoughts: targets, the contiguity invariant, the loss, parameter count, contiguous batches."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from reproducer.data.batches import ContiguousSampler, TokenizedCorpus
from reproducer.data.vocab import Vocabulary
from reproducer.encoders.recurrent import RecurrentConfig
from reproducer.errors import ReproducerError
from reproducer.papers.quick_thoughts.objective import QuickThought, context_targets, quick_thought_loss
from reproducer.train import TrainConfig, train


def test_targets_are_the_neighbours_inside_one_book():
    positions = torch.arange(10, 16)
    books = torch.tensor([0, 0, 0, 1, 1, 1])
    t = context_targets(positions, books)
    assert t[0].tolist() == [0, 1, 0, 0, 0, 0]
    assert t[1].tolist() == [0.5, 0, 0.5, 0, 0, 0]
    assert t[2].tolist() == [0, 1, 0, 0, 0, 0]  # sentence 3 is in the next book: not a target
    assert t[3].tolist() == [0, 0, 0, 0, 1, 0]
    wider = context_targets(positions, books, context=2)
    assert wider[0].tolist() == [0, 0.5, 0.5, 0, 0, 0]


def test_a_non_contiguous_batch_is_refused():
    with pytest.raises(ReproducerError, match="contiguous"):
        context_targets(torch.tensor([3, 4, 6]), torch.tensor([0, 0, 0]))
    context_targets(torch.tensor([3, 4, 90]), torch.tensor([0, 0, 1]))  # a jump at a book boundary is fine


def test_loss_is_near_zero_when_the_true_context_scores_highest():
    n = 6
    positions, books = torch.arange(n), torch.zeros(n, dtype=torch.long)
    targets = context_targets(positions, books)
    u = torch.eye(n) * 20
    v = torch.zeros(n, n)
    for i in range(n):  # g(s_j) points at f(s_{j-1}) and f(s_{j+1})
        for j in (i - 1, i + 1):
            if 0 <= j < n:
                v[j, i] = 1.0
    assert quick_thought_loss(u, v, targets).item() < 1e-6
    uniform = quick_thought_loss(torch.zeros(n, 3), torch.zeros(n, 3), targets).item()
    # a model that cannot tell candidates apart: KL = log(N-1) - entropy of the targets, averaged
    expected = np.mean([math.log(n - 1) - math.log(k) for k in (1, 2, 2, 2, 2, 1)])
    assert uniform == pytest.approx(expected, rel=1e-5)
    with pytest.raises(ReproducerError, match="No sentence"):
        quick_thought_loss(u[:2], v[:2], context_targets(torch.tensor([0, 5]), torch.tensor([0, 1])))


def test_uni_qt_parameter_count_is_the_papers():
    h, w, v = 7, 5, 40
    config = RecurrentConfig(v, w, h, single_bias=True)
    model = QuickThought.recurrent(config)
    assert sum(p.numel() for p in model.parameters()) == 2 * config.parameter_count() == 6 * h * (h + w + 1) + 2 * v * w
    assert model.f.embed.weight.data_ptr() != model.g.embed.weight.data_ptr()  # separate parameters


def test_contiguous_batches_and_a_training_run(books):
    corpus = books()
    vocab = Vocabulary.build(corpus.sentences, max_size=None)
    sampler = ContiguousSampler(TokenizedCorpus.from_corpus(corpus, vocab), batch_size=6, seed=1)
    seen = set()
    for step in range(sampler.steps_per_epoch):
        b = sampler.batch(step)
        assert torch.equal(b.positions, torch.arange(b.positions[0], b.positions[0] + 6))
        seen.add(int(b.positions[0]))
    assert seen == {0, 6, 12}  # one epoch visits every block once
    assert torch.equal(sampler.batch(1).ids, ContiguousSampler(sampler.corpus, 6, seed=1).batch(1).ids)
    torch.manual_seed(0)
    model = QuickThought.recurrent(RecurrentConfig(len(vocab), 8, 8))
    log = train(model, sampler.batch, TrainConfig(lr=2e-2, max_steps=150, log_every=1), progress=False)
    assert log.losses[-1]["loss"] < 0.5 * log.losses[0]["loss"]


def test_bench_widths_times_both_objectives(tmp_path, capsys):
    import json

    from reproducer.__main__ import main as cli

    out = tmp_path / "bench.json"
    assert cli(["bench", "widths", "--hidden", "16", "--word-dim", "8", "--vocab", "500", "--seconds", "1",
                "--max-books", "3", "--device", "cpu", "--json", str(out)]) == 0
    record = json.loads(out.read_text())
    assert [r["objective"] for r in record["runs"]] == ["quick_thought", "skip_thought"]
    assert all(r["steps"] > 0 and r["sentences_per_second"] > 0 and r["peak_memory_bytes"] > 0 for r in record["runs"])
    ratio = record["speed_ratio"]["quick_thought/skip_thought"]
    assert ratio == pytest.approx(record["runs"][0]["sentences_per_second"] / record["runs"][1]["sentences_per_second"])
    assert "speed ratio quick_thought/skip_thought" in capsys.readouterr().out
    assert cli(["bench", "widths", "--objectives", "magic", "--seconds", "1"]) == 2


def test_bench_widths_times_the_autoencoders_at_one_batch_size():
    from reproducer.papers.widths import bench_widths

    record = bench_widths(["aae", "rae", "skip_thought"], hidden=16, word_dim=8, vocab_size=500, seconds=1, max_books=3,
                         device="cpu", batch_size=8)
    runs = {r["objective"]: r for r in record["runs"]}
    assert set(runs) == {"aae", "rae", "skip_thought"} and all(r["batch_size"] == 8 for r in runs.values())
    for r in runs.values():
        assert r["steps"] > 0 and r["softmax"] == "exact"
        assert r["minutes_per_1000_batches"] == pytest.approx(r["training_seconds"] / r["steps"] * 1000 / 60)
    from reproducer.encoders.attention import AAEConfig

    for family in ("AAE", "RAE"):  # widths as documented; the fixed word vectors are not counted
        config = AAEConfig(500, word_dim=8, d_model=16, d_ff=32, max_len=33, family=family)
        assert runs[family.lower()]["parameters"] == config.parameter_count()
        assert runs[family.lower()]["word_embedding_parameters"] == 0  # fixed vectors
    skip = runs["skip_thought"]  # learns its words: the count Zhang et al. leave out (section 4.4)
    assert 0 < skip["word_embedding_parameters"] <= 500 * 8 and skip["word_embedding_parameters"] % 8 == 0


def test_benchmark_memory_is_the_spawned_process_own_peak():
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    from reproducer.runtime import peak_rss as _peak_rss

    ballast = np.ones(300 * 2**20 // 8)  # 300 MiB held by this (parent) process
    parent = _peak_rss()
    with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:
        child = pool.submit(_peak_rss).result()
    assert 0 < child < parent - 200 * 2**20, (child, parent)  # not the parent's peak inherited through fork + exec
    del ballast


def test_bag_of_words_and_multichannel_encoders():
    from reproducer.data.batches import pad
    from reproducer.data.vectors import pretrained_channel, pretrained_channel_vocabulary
    from reproducer.encoders.channels import AverageEncoder, MultiChannelEncoder, multichannel_gru
    from reproducer.data.vocab import SPECIALS

    avg = AverageEncoder(20, 4)
    ids, lengths = pad([np.array([5, 6]), np.array([5, 6, 7, 8])])
    out = avg(ids, lengths)
    torch.testing.assert_close(out[0], avg.embed.weight[[5, 6]].mean(0))
    torch.testing.assert_close(avg(*pad([np.array([5, 6])]))[0], out[0])  # padding does not count

    small = Vocabulary(list(SPECIALS) + ["the", "cat"])
    big = pretrained_channel_vocabulary(small, ["cat", "dog", "the", "emu"])
    assert big.itos == list(SPECIALS) + ["the", "cat", "dog", "emu"]
    vectors = np.random.default_rng(0).normal(size=(len(big), 3)).astype(np.float32)
    mc = multichannel_gru(big, vectors, len(small), hidden=4, word_dim=5)
    assert mc.output_dim == 16 and mc.embed.num_embeddings == len(big)
    fixed, tuned = mc.channels
    assert not fixed.embed.weight.requires_grad and tuned.inner.embed.num_embeddings == len(small)
    dog, unk = mc(*pad([np.array([big.stoi["dog"]])])), mc(*pad([np.array([1])]))
    torch.testing.assert_close(dog[:, 8:], unk[:, 8:])  # the tuned channel sees <unk> for "dog"
    assert not torch.allclose(dog[:, :8], unk[:, :8])  # the pre-trained channel knows it
    from reproducer.data.vectors import WordVectors

    glove_like = WordVectors(["dog", "cat", "emu"], np.arange(6, dtype=np.float32).reshape(3, 2))
    big2, rows = pretrained_channel(small, glove_like)
    assert big2.itos == list(SPECIALS) + ["the", "cat", "dog", "emu"]
    assert rows[big2.stoi["dog"]].tolist() == [0, 1] and rows[big2.stoi["emu"]].tolist() == [4, 5]
    assert not rows[big2.stoi["the"]].any() and not rows[: len(SPECIALS)].any()  # no vector: zero row
    with pytest.raises(ReproducerError, match="pre-trained rows"):
        multichannel_gru(big, vectors[:3], len(small), 4, 5)
    with pytest.raises(ReproducerError, match="own parameters"):
        QuickThought(avg, avg)
    with pytest.raises(ReproducerError, match="same output size"):
        QuickThought(avg, AverageEncoder(20, 5))
    QuickThought(MultiChannelEncoder([AverageEncoder(20, 4)]), AverageEncoder(20, 4))


@pytest.mark.parametrize("single_bias", [False, True])
def test_xavier_init_sets_gate_biases_to_one(single_bias):
    from reproducer.encoders.recurrent import RecurrentEncoder

    h = 6
    enc = RecurrentEncoder(RecurrentConfig(30, 5, h, single_bias=single_bias, init="xavier"))
    if single_bias:
        bias = enc.rnn.weight_ih_l0[:, -1]
    else:
        bias = enc.rnn.bias_ih_l0
        assert enc.rnn.bias_hh_l0.abs().sum() == 0
    assert bias[: 2 * h].eq(1).all() and bias[2 * h:].eq(0).all()  # reset, update = 1; candidate = 0
    limit = math.sqrt(6 / (h + 5))
    assert enc.rnn.weight_ih_l0[:h, :5].abs().max() <= limit + 1e-6
    kiros = RecurrentEncoder(RecurrentConfig(30, 5, h, single_bias=single_bias))
    w = kiros.rnn.weight_hh_l0[:h]
    torch.testing.assert_close(w @ w.T, torch.eye(h), atol=1e-5, rtol=0)
    assert (kiros.rnn.weight_ih_l0[:, -1] if single_bias else kiros.rnn.bias_ih_l0).abs().sum() == 0
    with pytest.raises(ReproducerError, match="init scheme"):
        RecurrentEncoder(RecurrentConfig(30, 5, h, init="he"))


@pytest.mark.parametrize("variant", ["uni-QT", "bi-QT", "BoW-QT", "MC-QT"])
def test_every_variant_trains_and_encodes(variant, books, tmp_path):
    from reproducer.data.vectors import pretrained_channel_vocabulary
    from reproducer.fit import fit
    from reproducer.papers.quick_thoughts.objective import OBJECTIVE
    from reproducer.papers.registry import preset as named_preset
    from reproducer.data.training_data import TrainingData

    corpus = books(sizes=(12, 9, 15))
    vocab = Vocabulary.build(corpus.sentences, max_size=12)  # small: some words are <unk> for the tuned channel
    preset = named_preset("quick-thought", "smoke", batch_size=6, max_steps=4)
    pretrained = None
    ids_vocab = vocab
    if variant == "MC-QT":
        ids_vocab = pretrained_channel_vocabulary(vocab, sorted({w for s in corpus.sentences for w in s.split()}))
        vectors = np.random.default_rng(0).normal(size=(len(ids_vocab), 10)).astype(np.float32)
        pretrained = (ids_vocab, vectors)
    tokenized = TokenizedCorpus.from_corpus(corpus, ids_vocab)
    fitted = fit(OBJECTIVE, variant, preset, TrainingData(tokenized, vocab, pretrained=pretrained), progress=False,
                               evaluate=lambda f, step: {"dim": float(f.encoder.encode(["w1 w2 x0"]).shape[1])})
    encoder, log = fitted.encoder, fitted.log
    assert log.step == 4 and np.isfinite(log.losses[-1]["loss"])
    expected = {"uni-QT": 2 * 16, "bi-QT": 2 * 16, "BoW-QT": 2 * 32, "MC-QT": 2 * 32}[variant]
    assert encoder.encode(["w1 w2 x0", "w3"]).shape == (2, expected) and log.evals[-1]["dim"] == expected
    # [f; g] is saved as one bundle and loads as the same encoder (MC-QT's two channels included)
    from reproducer.encoders.bundles import load_encoder

    path = encoder.save(tmp_path / "qt.encoder.pt")
    np.testing.assert_allclose(load_encoder(path, device="cpu").encode(["w1 w2 x0", "w3"]),
                               encoder.encode(["w1 w2 x0", "w3"]), atol=1e-5)
    if variant == "MC-QT":  # and the command line evaluates it
        from reproducer.__main__ import main as cli

        assert cli(["evaluate", "--encoder", str(path), "--tasks", "STS16", "--quiet", "--device", "cpu"]) == 0


def test_qt_presets():
    from reproducer.papers.quick_thoughts.objective import PRESETS as QUICK_THOUGHT
    from reproducer.papers.registry import preset

    paper = QUICK_THOUGHT["paper"]
    assert (paper.batch_size, paper.lr, 2 * paper.hidden, 4 * paper.bi_hidden) == (400, 5e-4, 2400, 2400)
    assert preset("quick-thought", "default", max_seconds=30).max_seconds == 30
    with pytest.raises(ReproducerError, match="Unknown QuickThoughtPreset settings"):
        preset("quick-thought", "default", softmax=1)
    from reproducer.papers.quick_thoughts.objective import build_quick_thought

    with pytest.raises(ReproducerError, match="MC-QT needs pre-trained"):
        build_quick_thought("MC-QT", QUICK_THOUGHT["smoke"], 50)
    with pytest.raises(ReproducerError, match="Unknown Quick-Thoughts variant"):
        build_quick_thought("tri-QT", QUICK_THOUGHT["smoke"], 50)

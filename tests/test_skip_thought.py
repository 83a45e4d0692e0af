"""Skip-thought: the GRU encoder, the conditional decoder, the loss, triple batches and the trainer."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from reproducer.data.batches import TokenizedCorpus, TripleSampler, pad
from reproducer.data.vocab import Vocabulary
from reproducer.encoders.recurrent import RecurrentConfig, RecurrentEncoder
from reproducer.errors import ReproducerError
from reproducer.papers.skip_thoughts.objective import ConditionalGRU, SkipThought, SkipThoughtConfig, skip_thought_loss
from reproducer.train import TrainConfig, train


def n_params(module) -> int:
    return sum(p.numel() for p in module.parameters())


@pytest.mark.parametrize("bidirectional", [False, True])
def test_encoder_shapes_and_parameter_count(bidirectional):
    config = RecurrentConfig(vocab_size=50, word_dim=8, hidden=6, bidirectional=bidirectional)
    enc = RecurrentEncoder(config)
    ids, lengths = pad([np.array([4, 5, 6]), np.array([7])])
    out = enc(ids, lengths)
    assert out.shape == (2, 12 if bidirectional else 6) == (2, config.output_dim)
    assert n_params(enc) == config.parameter_count() == 50 * 8 + (2 if bidirectional else 1) * 3 * 6 * (8 + 6 + 2)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_padding_never_changes_a_sentence_vector(bidirectional):
    torch.manual_seed(0)
    enc = RecurrentEncoder(RecurrentConfig(vocab_size=50, word_dim=8, hidden=6, bidirectional=bidirectional))
    alone = enc(*pad([np.array([4, 5, 6])]))
    ids, lengths = pad([np.array([4, 5, 6]), np.arange(10, 30)])
    together = enc(ids, lengths)
    torch.testing.assert_close(alone[0], together[0])
    with pytest.raises(ReproducerError, match="at least one token"):
        enc(ids, torch.tensor([3, 0]))


def test_recurrent_init_follows_kiros():
    enc = RecurrentEncoder(RecurrentConfig(vocab_size=50, word_dim=8, hidden=6))
    u_r = enc.rnn.weight_hh_l0[:6]
    torch.testing.assert_close(u_r @ u_r.T, torch.eye(6), atol=1e-5, rtol=0)  # orthogonal block
    assert enc.embed.weight.abs().max() <= 0.1 and enc.embed.weight[0].abs().sum() == 0


def test_conditional_gru_is_causal_and_conditioned():
    torch.manual_seed(0)
    dec = ConditionalGRU(input_dim=5, hidden=4, context_dim=3)
    x, c = torch.randn(2, 6, 5), torch.randn(2, 3)
    out = dec(x, c)
    assert out.shape == (2, 6, 4)
    later = x.clone()
    later[:, 4:] += 1.0  # change the inputs after step 3
    torch.testing.assert_close(dec(later, c)[:, :4], out[:, :4])  # steps 0..3 unchanged
    assert not torch.allclose(dec(x, c + 1.0)[:, 0], out[:, 0])  # the context enters from the first step
    assert n_params(dec) == 3 * 4 * (5 + 1) + 3 * 4 * (4 + 1) + 3 * 4 * 3


def test_skip_thought_parameter_count():
    config = SkipThoughtConfig(RecurrentConfig(vocab_size=40, word_dim=6, hidden=5, bidirectional=True), decoder_hidden=7)
    assert n_params(SkipThought(config)) == config.parameter_count()


def test_loss_bounds():
    targets = torch.tensor([[3, 4, 0]])
    perfect = torch.full((1, 3, 6), -30.0).scatter(2, targets.unsqueeze(-1), 30.0)
    assert skip_thought_loss(perfect, targets, perfect, targets).item() < 1e-6
    uniform = torch.zeros(1, 3, 6)
    assert skip_thought_loss(uniform, targets, uniform, targets).item() == pytest.approx(2 * math.log(6))


class ToyCorpus:
    """Three books of a few sentences; words name their book, so crossing a boundary would show."""

    def __init__(self):
        self.sentences, self.book_spans = [], []
        for b, n in enumerate((5, 2, 6)):
            start = len(self.sentences)
            self.sentences += [" ".join(f"b{b}s{i}w{j}" for j in range(1 + i % 3)) for i in range(n)]
            self.book_spans.append((b, start, len(self.sentences)))


@pytest.fixture()
def toy():
    corpus = ToyCorpus()
    vocab = Vocabulary.build(corpus.sentences, max_size=None)
    return corpus, vocab, TokenizedCorpus.from_corpus(corpus, vocab)


def test_triples_never_cross_a_book(toy):
    corpus, vocab, tok = toy
    assert sorted(tok.triple_centres().tolist()) == [1, 2, 3, 8, 9, 10, 11]  # book 1 (2 sentences) has none
    sampler = TripleSampler(tok, vocab, batch_size=3, seed=1)
    for step in range(10):
        b = sampler.batch(step)
        for row in range(3):
            books = {vocab.itos[i][:2] for t in (b.ids, b.prev_out, b.next_out) for i in t[row].tolist() if i > 3}
            assert len(books) == 1
        assert (b.prev_in[:, 0] == vocab.bos_id).all() and (b.prev_out.gather(1, b.lengths.new_tensor(
            [int((r > 0).sum()) - 1 for r in b.prev_out]).unsqueeze(1)) == vocab.eos_id).all()
    again = TripleSampler(tok, vocab, batch_size=3, seed=1)
    assert torch.equal(again.batch(7).ids, sampler.batch(7).ids)
    assert not np.array_equal(again.positions(0), again.positions(2))  # next epoch, new order


def _tiny_model(vocab, seed=0):
    torch.manual_seed(seed)
    return SkipThought(SkipThoughtConfig(RecurrentConfig(len(vocab), word_dim=8, hidden=12), decoder_hidden=12))


def test_loss_drops_when_overfitting_one_batch(toy):
    _, vocab, tok = toy
    batch = TripleSampler(tok, vocab, batch_size=4).batch(0)
    model = _tiny_model(vocab)
    log = train(model, lambda step: batch, TrainConfig(lr=2e-2, max_steps=150, log_every=1), progress=False)
    assert log.losses[-1]["loss"] < 0.1 * log.losses[0]["loss"]


def test_resume_gives_the_same_model_as_an_uninterrupted_run(toy, tmp_path):
    _, vocab, tok = toy
    sampler = TripleSampler(tok, vocab, batch_size=2, seed=3)
    config = TrainConfig(lr=5e-3, max_steps=8, checkpoint_every=2, log_every=1)
    straight = _tiny_model(vocab)
    train(straight, sampler.batch, config, progress=False)

    ckpt = tmp_path / "run.pt"
    first = _tiny_model(vocab)
    half = train(first, sampler.batch, TrainConfig(lr=5e-3, max_steps=5, checkpoint_every=2, log_every=1),
                 checkpoint=ckpt, progress=False)
    assert half.step == 5
    resumed_model = _tiny_model(vocab, seed=99)  # a fresh process would build a fresh model
    log = train(resumed_model, sampler.batch, config, checkpoint=ckpt, progress=False)
    assert log.step == 8 and [r["step"] for r in log.losses] == list(range(1, 9))
    for (name, a), b in zip(straight.state_dict().items(), resumed_model.state_dict().values()):
        assert torch.equal(a, b), name


def test_time_budget_and_evaluation_log(toy):
    _, vocab, tok = toy
    sampler = TripleSampler(tok, vocab, batch_size=2)
    calls = []

    def evaluate(step):
        calls.append(step)
        return {"score": float(len(calls))}

    # a budget of seconds, not a handful of steps: a first step slowed by a busy machine must leave room for more
    log = train(_tiny_model(vocab), sampler.batch, TrainConfig(max_seconds=2.0, eval_every=0.2), evaluate=evaluate,
                progress=False)
    assert 2.0 <= log.seconds < 8 and log.examples == 2 * log.step
    assert len(log.evals) >= 3 and all({"step", "seconds", "score"} <= set(e) for e in log.evals)
    assert [e["seconds"] for e in log.evals] == sorted(e["seconds"] for e in log.evals)
    assert calls == [e["step"] for e in log.evals]  # train() passes the finished steps to the callback


def test_a_nan_loss_is_an_error(toy):
    _, vocab, tok = toy
    model = _tiny_model(vocab)
    with torch.no_grad():
        model.out.bias.fill_(float("nan"))
    with pytest.raises(ReproducerError, match="diverged.*lower learning rate"):
        train(model, TripleSampler(tok, vocab, batch_size=2).batch, TrainConfig(max_steps=2), progress=False)


def test_a_budget_is_required():
    with pytest.raises(ReproducerError, match="budget"):
        TrainConfig()


def test_sampled_softmax_candidates_cover_the_targets_and_equal_the_full_loss_when_complete(toy):
    _, vocab, tok = toy
    sampled = TripleSampler(tok, vocab, batch_size=3, seed=2, n_sampled=5).batch(4)
    targets = set(sampled.prev_out.flatten().tolist() + sampled.next_out.flatten().tolist()) - {0}
    assert targets <= set(sampled.candidates.tolist()) and 0 not in sampled.candidates.tolist()
    assert torch.equal(sampled.candidates, sampled.candidates.sort().values)
    model = _tiny_model(vocab)
    full = TripleSampler(tok, vocab, batch_size=3, seed=2).batch(4)
    assert full.candidates.numel() == 0
    everything = TripleSampler(tok, vocab, batch_size=3, seed=2).batch(4)
    everything.candidates = torch.arange(len(vocab))  # every word: the same softmax as the full one
    torch.testing.assert_close(model(everything), model(full))
    assert model(sampled).item() < model(full).item()  # fewer competitors, lower loss


def test_presets_name_the_paper_sizes_and_take_overrides():
    from reproducer.papers.skip_thoughts.objective import PRESETS as SKIP_THOUGHT
    from reproducer.papers.registry import preset

    paper = SKIP_THOUGHT["paper"]
    assert (paper.vocab_size, paper.word_dim, paper.uni_hidden, 2 * paper.bi_hidden) == (20000, 620, 2400, 2400)
    assert paper.n_sampled == 0 and paper.batch_size == 128 and paper.clip == 10
    assert all(p.max_seconds is None and p.max_steps for p in SKIP_THOUGHT.values())  # budgets in steps
    assert preset("skip-thought", "default", max_seconds=60, eval_config=None).max_seconds == 60
    assert preset("skip-thought", "default", eval_config=None).eval_config == "paper"
    with pytest.raises(ReproducerError, match="Unknown preset"):
        preset("skip-thought", "huge")
    with pytest.raises(ReproducerError, match="Unknown SkipThoughtPreset settings"):
        preset("skip-thought", "smoke", hidden=3)
    with pytest.raises(ReproducerError, match="Unknown model family"):
        preset("skip-thoughts", "smoke")


@pytest.mark.parametrize("bidirectional", [False, True])
def test_single_bias_gru_matches_the_papers_count_and_ignores_padding(bidirectional):
    config = RecurrentConfig(vocab_size=30, word_dim=7, hidden=5, bidirectional=bidirectional, single_bias=True)
    enc = RecurrentEncoder(config)
    d = 2 if bidirectional else 1
    assert n_params(enc) == config.parameter_count() == 30 * 7 + d * 3 * 5 * (5 + 7 + 1)
    assert enc.rnn.weight_ih_l0[:, -1].abs().sum() == 0  # bias column starts at 0
    alone = enc(*pad([np.array([4, 5])]))
    together = enc(*pad([np.array([4, 5]), np.arange(6, 20)]))
    torch.testing.assert_close(alone[0], together[0])

"""Wieting et al. (2016): the six compositional encoders, negatives from the minibatch, the margin loss (Eq. 11),
the regularisers and training through :func:`reproducer.train.train`."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from reproducer.data.batches import pad
from reproducer.encoders.compositional import CompositionalConfig, CompositionalEncoder, compositional_encoder
from reproducer.errors import ReproducerError
from reproducer.papers.paraphrastic.objective import (PairBatch, ParaphraseModel, negatives, paraphrase_margin_loss,
                                              squared_distance)
from reproducer.train import TrainConfig, train

V, D = 40, 6
CONFIGS = {
    "PP": dict(kind="PP"),
    "proj": dict(kind="proj"),
    "DAN-1-tanh": dict(kind="DAN", layers=1, activation="tanh"),
    "DAN-2-relu": dict(kind="DAN", layers=2, activation="relu"),
    "RNN-tanh": dict(kind="RNN", activation="tanh"),
    "RNN-relu": dict(kind="RNN", activation="relu"),
    "iRNN": dict(kind="iRNN"),
    "LSTM-og": dict(kind="LSTM", output_gate=True),
    "LSTM-no-og": dict(kind="LSTM", output_gate=False),
}
# Compositional parameters by the paper's equations, written out independently of the config's formula.
EXPECTED_WC = {
    "PP": 0,
    "proj": D * D + D,  # W_p, b (Eq. 2)
    "DAN-1-tanh": D * D + D,
    "DAN-2-relu": 2 * (D * D + D),
    "RNN-tanh": 2 * D * D + D,  # W_x, W_h, b (Eq. 3)
    "RNN-relu": 2 * D * D + D,
    "iRNN": 2 * D * D + D,
    "LSTM-og": 8 * D * D + 4 * D + 3 * D,  # W_x*, W_h* and b_* of 4 blocks (Eq. 5-8), 3 diagonal peepholes
    "LSTM-no-og": 6 * D * D + 3 * D + 2 * D,
}


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """The models here are tiny: one thread avoids OpenMP hand-offs that dominate (and stall on a busy machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def table(seed: int = 0) -> torch.Tensor:
    return torch.randn(V, D, generator=torch.Generator().manual_seed(seed))


def make(name: str, seed: int = 0) -> CompositionalEncoder:
    torch.manual_seed(seed)
    return CompositionalEncoder(CompositionalConfig(vocab_size=V, dim=D, **CONFIGS[name]), table(seed))


def random_batch(n: int, seed: int = 0, max_len: int = 9) -> tuple[torch.Tensor, torch.Tensor]:
    rng = np.random.default_rng(seed)
    return pad([rng.integers(1, V, rng.integers(1, max_len + 1)) for _ in range(n)])


def n_params(module) -> int:
    return sum(p.numel() for p in module.parameters())


# --- encoders -------------------------------------------------------------------------------------------

def test_irnn_is_word_averaging_at_initialisation():
    ids, lengths = random_batch(12, seed=3)
    irnn = make("iRNN")
    average = (table()[ids] * (ids != 0).unsqueeze(-1)).sum(1) / lengths.unsqueeze(1)  # Eq. 1 by hand
    torch.testing.assert_close(irnn(ids, lengths), average)
    torch.testing.assert_close(make("PP")(ids, lengths), average)
    anchors = irnn.compositional_anchors()  # what the regulariser pulls toward: the initial I, I, 0
    for name, p in irnn.compositional_parameters().items():
        torch.testing.assert_close(p.detach(), anchors[name], rtol=0, atol=0)
    assert torch.equal(anchors["cell.W_h.weight"], torch.eye(D))


def test_proj_dan_and_rnn_follow_their_equations():
    ids, lengths = random_batch(4, seed=8)
    words = table()[ids]
    average = (words * (ids != 0).unsqueeze(-1)).sum(1) / lengths.unsqueeze(1)
    proj, dan, rnn = make("proj"), make("DAN-2-relu"), make("RNN-tanh")
    W_p, b = proj.layers[0].weight, proj.layers[0].bias
    torch.testing.assert_close(proj(ids, lengths), average @ W_p.T + b)  # Eq. 2
    hidden = average
    for layer in dan.layers:  # each DAN layer: f(W h + b)
        hidden = torch.relu(hidden @ layer.weight.T + layer.bias)
    torch.testing.assert_close(dan(ids, lengths), hidden)
    cell = rnn.cell
    for i in range(len(ids)):  # Eq. 3-4, one sentence at a time
        h = torch.zeros(D)
        for t in range(lengths[i]):
            h = torch.tanh(cell.W_x.weight @ words[i, t] + cell.W_h.weight @ h + cell.W_x.bias)
        torch.testing.assert_close(rnn(ids, lengths)[i], h)


def test_lstm_follows_equations_5_to_10():
    ids, lengths = random_batch(3, seed=9)
    words = table()[ids]
    lstm = make("LSTM-og")
    cell = lstm.cell
    with torch.no_grad():
        cell.peephole.uniform_(-1, 1)  # make the peepholes matter
    Wx, Wh, b = (m.chunk(4, dim=0) for m in (cell.W_x.weight, cell.W_h.weight, cell.W_x.bias))
    p_i, p_f, p_o = cell.peephole
    for s in range(len(ids)):
        h, c = torch.zeros(D), torch.zeros(D)
        for t in range(lengths[s]):
            x = words[s, t]
            i = torch.sigmoid(Wx[0] @ x + Wh[0] @ h + p_i * c + b[0])  # (5)
            f = torch.sigmoid(Wx[1] @ x + Wh[1] @ h + p_f * c + b[1])  # (6)
            c = f * c + i * torch.tanh(Wx[2] @ x + Wh[2] @ h + b[2])  # (7)
            o = torch.sigmoid(Wx[3] @ x + Wh[3] @ h + p_o * c + b[3])  # (8): the new c_t
            h = o * torch.tanh(c)  # (9)
        torch.testing.assert_close(lstm(ids, lengths)[s], h)  # (10)


@pytest.mark.parametrize("name", CONFIGS)
def test_parameter_count_is_the_formula(name):
    encoder = make(name)
    config = encoder.config
    assert sum(p.numel() for p in encoder.compositional_parameters().values()) == EXPECTED_WC[name]
    assert n_params(encoder) == config.parameter_count() == V * D + EXPECTED_WC[name]
    assert config.compositional_parameter_count() == EXPECTED_WC[name]


@pytest.mark.parametrize("name", CONFIGS)
def test_padding_and_batch_order_never_change_a_vector(name):
    encoder = make(name, seed=1)
    ids, lengths = random_batch(7, seed=5)
    together = encoder(ids, lengths)
    assert together.shape == (7, D) == (7, encoder.output_dim)
    for i in range(len(ids)):
        alone = encoder(ids[i:i + 1, :lengths[i]], lengths[i:i + 1])
        torch.testing.assert_close(alone[0], together[i])
    wider = torch.cat([ids, torch.zeros(7, 4, dtype=torch.long)], dim=1)  # extra padding columns
    order = torch.tensor([6, 2, 0, 5, 1, 3, 4])
    torch.testing.assert_close(encoder(wider[order], lengths[order]), together[order])


def test_words_are_the_pretrained_matrix_and_trainable():
    pretrained = table(7).numpy()
    encoder = compositional_encoder("DAN", pretrained, layers=2, activation="relu")
    assert encoder.config == CompositionalConfig("DAN", V, D, layers=2, activation="relu")
    assert encoder.embed.padding_idx == 0 and encoder.embed.weight.requires_grad
    np.testing.assert_array_equal(encoder.embed.weight.detach()[1:].numpy(), pretrained[1:])
    assert not encoder.embed.weight[0].any()  # the padding row
    assert CompositionalConfig(**encoder.config.to_dict()) == encoder.config
    assert CompositionalConfig("RNN", V).activation == "tanh"
    assert CompositionalConfig("iRNN", V).activation == "identity"


def test_lstm_without_output_gate_is_tanh_of_the_cell():
    ids, lengths = random_batch(5, seed=2)
    with_gate, without = make("LSTM-og"), make("LSTM-no-og")
    assert not torch.allclose(with_gate(ids, lengths), without(ids, lengths))
    with torch.no_grad():  # share W_x, W_h, b of the i, f, c blocks and the i, f peepholes
        for name in ("W_x.weight", "W_x.bias", "W_h.weight"):
            without.cell.get_parameter(name).copy_(with_gate.cell.get_parameter(name)[:3 * D])
        without.cell.peephole.copy_(with_gate.cell.peephole[:2])
        different = with_gate(ids, lengths)
        with_gate.cell.W_x.weight[3 * D:].zero_()  # now force the output gate open: o_t = σ(30) ≈ 1
        with_gate.cell.W_h.weight[3 * D:].zero_()
        with_gate.cell.peephole[2].zero_()
        with_gate.cell.W_x.bias[3 * D:].fill_(30.0)
        torch.testing.assert_close(with_gate(ids, lengths), without(ids, lengths))
        assert not torch.allclose(different, without(ids, lengths))


def test_bad_configurations_and_inputs_are_refused():
    with pytest.raises(ReproducerError, match="Unknown compositional model kind 'GRU'"):
        CompositionalConfig("GRU", V)
    with pytest.raises(ReproducerError, match="'sigmoid' is not available for the DAN"):
        CompositionalConfig("DAN", V, activation="sigmoid")
    with pytest.raises(ReproducerError, match="not available for the iRNN"):
        CompositionalConfig("iRNN", V, activation="tanh")
    with pytest.raises(ReproducerError, match="layers applies to the DAN only"):
        CompositionalConfig("RNN", V, layers=2)
    with pytest.raises(ReproducerError, match="output_gate applies to the LSTM only"):
        CompositionalConfig("RNN", V, output_gate=False)
    with pytest.raises(ReproducerError, match=r"expects \(vocab_size, dim\) = \(40, 6\)"):
        CompositionalEncoder(CompositionalConfig("PP", V, D), torch.zeros(V, D + 1))
    encoder = make("RNN-tanh")
    ids, lengths = random_batch(3)
    with pytest.raises(ReproducerError, match="Expected ids"):
        encoder(ids, lengths[:2])
    with pytest.raises(ReproducerError, match="between 1 and"):
        encoder(ids, torch.tensor([1, 0, 2]))


# --- negatives and loss ---------------------------------------------------------------------------------

def at(degrees: float, norm: float = 1.0) -> list[float]:
    return [norm * math.cos(math.radians(degrees)), norm * math.sin(math.radians(degrees))]


def test_max_negative_is_the_most_similar_phrase_outside_the_pair():
    # pool rows 0-2: x_1 of pairs 0-2 at 0°, 100°, 200°; rows 3-5: x_2 at 10°, 60°, 150°. Norms vary: cosine only.
    g1 = torch.tensor([at(0, 5.0), at(100), at(200, 0.2)])
    g2 = torch.tensor([at(10), at(60, 3.0), at(150)])
    t1, t2 = negatives(g1, g2, "MAX")
    assert t1.tolist() == [4, 5, 1]  # 0° -> 60°, 100° -> 150°, 200° -> 100°; 0°'s partner at 10° is excluded
    assert t2.tolist() == [4, 3, 1]  # 10° -> 60°, 60° -> 10°, 150° -> 100°
    with pytest.raises(ReproducerError, match="at least 2 pairs"):
        negatives(g1[:1], g2[:1])
    with pytest.raises(ReproducerError, match="Unknown negative sampling mode 'RAND'"):
        negatives(g1, g2, "RAND")


def test_mix_replaces_about_half_of_the_max_negatives_reproducibly():
    pairs = 200
    g = torch.randn(2 * pairs, 16, generator=torch.Generator().manual_seed(0))
    g1, g2 = g[:pairs], g[pairs:]
    best = torch.cat(negatives(g1, g2, "MAX"))
    mixed = torch.cat(negatives(g1, g2, "MIX", torch.Generator().manual_seed(1)))
    random_share = (mixed != best).float().mean().item()
    assert 0.42 < random_share < 0.58  # 0.5 × (1 − 1/(2B − 2)) expected
    assert torch.equal(mixed, torch.cat(negatives(g1, g2, "MIX", torch.Generator().manual_seed(1))))
    assert not torch.equal(mixed, torch.cat(negatives(g1, g2, "MIX", torch.Generator().manual_seed(2))))
    own_pair = torch.arange(2 * pairs) % pairs
    assert not (mixed % pairs == own_pair).any()  # never the phrase itself or its partner


def test_loss_is_zero_when_every_pair_beats_every_negative_by_the_margin():
    g1 = torch.eye(4)[:3] * torch.tensor([[1.0], [2.0], [0.5]])
    g2 = torch.eye(4)[:3] + 0.1 * torch.eye(4)[3]  # cos(pair) ≈ 0.995, cos(negative) ≤ 0.01
    pool = torch.cat([g1, g2])
    t1, t2 = negatives(g1, g2)
    assert paraphrase_margin_loss(g1, g2, pool[t1], pool[t2], delta=0.9).item() == 0.0
    assert paraphrase_margin_loss(g1, g2, pool[t1], pool[t2], delta=1.0).item() > 0.0


def test_loss_on_a_hand_computed_case():
    g1 = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    g2 = torch.tensor([[1.0, 1.0], [-1.0, 0.0]])
    t1 = torch.tensor([[0.0, 1.0], [2.0, 0.0]])
    t2 = torch.tensor([[1.0, 0.0], [0.0, 3.0]])
    # pair 0: cos(g1,g2) = 1/√2, cos(g1,t1) = 0, cos(g2,t2) = 1/√2 -> max(0, .5 − .707) + max(0, .5) = 0.5
    # pair 1: cos(g1,g2) = −1, cos(g1,t1) = 1, cos(g2,t2) = 0       -> (.5 + 1 + 1) + (.5 + 1 + 0) = 4
    loss = paraphrase_margin_loss(g1, g2, t1, t2, delta=0.5)
    assert loss.item() == pytest.approx((0.5 + 4.0) / 2, abs=1e-6)
    with pytest.raises(ReproducerError, match="one shape"):
        paraphrase_margin_loss(g1, g2, t1[:1], t2, delta=0.5)


# --- regularisers and the model -------------------------------------------------------------------------

def pair_batch(pairs: int = 8, seed: int = 0) -> PairBatch:
    ids1, lengths1 = random_batch(pairs, seed=seed, max_len=5)
    ids2, lengths2 = random_batch(pairs, seed=seed + 100, max_len=5)
    return PairBatch(ids1, lengths1, ids2, lengths2)


def test_regularisers_pull_toward_the_right_anchors():
    batch = pair_batch()
    irnn = ParaphraseModel(make("iRNN"), lambda_c=10.0, lambda_w=1.0)
    assert irnn.compositional_penalty().item() == 0.0 and irnn.word_penalty().item() == 0.0
    margin_only = ParaphraseModel(make("iRNN"))
    assert irnn(batch).item() == pytest.approx(margin_only(batch).item())
    rnn = make("RNN-tanh")
    expected = sum(p.pow(2).sum() for p in rnn.compositional_parameters().values())
    assert ParaphraseModel(rnn, lambda_c=1e-3).compositional_penalty().item() == pytest.approx(expected.item())
    assert ParaphraseModel(rnn, lambda_c=1e-3, anchor="initial").compositional_penalty().item() == 0.0
    with torch.no_grad():
        irnn.encoder.embed.weight[5] += 2.0
    assert irnn.word_penalty().item() == pytest.approx(4.0 * D)
    assert squared_distance({}, {}).item() == 0.0
    with pytest.raises(ReproducerError, match="anchor 'zero'"):
        ParaphraseModel(rnn, anchor="zero")
    frozen = ParaphraseModel(make("PP"), train_words=False, lambda_w=1.0)
    assert not frozen.encoder.embed.weight.requires_grad and frozen.words_init is None


@pytest.mark.parametrize("name", CONFIGS)
def test_gradients_reach_every_parameter(name):
    model = ParaphraseModel(make(name), delta=0.8, lambda_c=1e-3, lambda_w=1e-3)
    model(pair_batch()).backward()
    for pname, p in model.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, pname


@pytest.mark.parametrize("name,mode", [("PP", "MAX"), ("LSTM-no-og", "MIX"), ("iRNN", "MIX")])
def test_a_few_training_steps_reduce_the_loss(name, mode):
    batch = pair_batch(8, seed=4)
    model = ParaphraseModel(make(name), delta=0.6, mode=mode, lambda_c=1e-4, lambda_w=1e-5)
    before = model(batch).item()
    model.batches_seen.zero_()
    log = train(model, lambda step: batch, TrainConfig(lr=0.02, max_steps=30, log_every=1), progress=False)
    model.eval()
    model.batches_seen.zero_()  # the MIX draws of the first step again
    assert log.losses[0]["loss"] == pytest.approx(before, rel=1e-5)
    assert model(batch.to(model.encoder.embed.weight.device)).item() < 0.5 * before
    assert log.losses[-1]["loss"] < log.losses[0]["loss"]


@pytest.mark.parametrize("kind", ["PP", "LSTM (o.g.)"])
def test_fit_paraphrastic_trains_saves_and_loads(tmp_path, kind):
    from reproducer.data.pairs import TrainingPair
    from reproducer.data.vectors import WordVectors
    from reproducer.encoders.bundles import load_encoder
    from reproducer.fit import fit
    from reproducer.papers.paraphrastic.objective import OBJECTIVE, initial_vocabulary
    from reproducer.papers.registry import preset
    from reproducer.data.training_data import TrainingData

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(30)]
    vectors = WordVectors(words, rng.normal(size=(30, 6)).astype(np.float32))
    pairs = [TrainingPair(f"w{i} w{i + 1} new{i}", f"w{i + 1} w{i}", 4.0, "ppdb-wiki") for i in range(20)]
    vocab, table = initial_vocabulary(vectors, pairs)
    assert vocab.itos[4:34] == words and "new3" in vocab.stoi
    np.testing.assert_array_equal(table[vocab.stoi["w7"]], vectors["w7"])
    settings = preset("paraphrastic", "smoke", batch_size=5, max_steps=6)
    fitted = fit(OBJECTIVE, kind, settings, TrainingData(pairs=pairs, vectors=vectors), progress=False,
                              evaluate=lambda f, step: {"dim": float(f.encoder.encode(["w1 w2"]).shape[1])})
    encoder, log = fitted.encoder, fitted.log
    assert log.step == 6 and log.evals[-1]["dim"] == 6
    assert not np.allclose(encoder.module.embed.weight.detach().numpy()[vocab.stoi["w7"]], vectors["w7"])  # trained
    encoder.save(tmp_path / "m.pt")
    again = load_encoder(tmp_path / "m.pt")
    np.testing.assert_allclose(again.encode(["w1 w2 new1", "w9"]), encoder.encode(["w1 w2 new1", "w9"]), rtol=1e-5)
    from reproducer.__main__ import main as cli

    assert cli(["evaluate", "--encoder", str(tmp_path / "m.pt"), "--tasks", "STS16", "--quiet", "--device", "cpu"]) == 0


def test_train_config_knows_adagrad():
    from reproducer.errors import ReproducerError
    from reproducer.papers.registry import preset
    from reproducer.train import TrainConfig

    assert preset("paraphrastic", "default").train_config().optimizer == "adagrad"
    with pytest.raises(ReproducerError, match="Unknown paraphrastic model"):
        from reproducer.fit import fit
        from reproducer.papers.paraphrastic.objective import OBJECTIVE

        fit(OBJECTIVE, "GRU", preset("paraphrastic", "smoke"), None)
    with pytest.raises(ReproducerError, match="optimizer must be one of adam, adagrad"):
        TrainConfig(max_steps=1, optimizer="sgd")


def test_norm_weighted_vectors_scale_initial_vectors_by_trained_l1_norms():
    from reproducer.data.vocab import SPECIALS, Vocabulary
    from reproducer.errors import ReproducerError
    from reproducer.papers.paraphrastic.objective import norm_weighted_vectors

    vocab = Vocabulary(list(SPECIALS) + ["the", "poverty"])
    initial = np.ones((6, 2), dtype=np.float32)
    trained = np.zeros((6, 2), dtype=np.float32)
    trained[4] = [0.1, -0.1]  # "the": small trained norm
    trained[5] = [2.0, -1.0]  # "poverty": large
    vectors = norm_weighted_vectors(vocab, initial, trained)
    assert vectors.words == ["the", "poverty"]
    np.testing.assert_allclose(vectors["the"], [0.2, 0.2], rtol=1e-6)
    np.testing.assert_allclose(vectors["poverty"], [3.0, 3.0])
    with pytest.raises(ReproducerError, match="Tables of shape"):
        norm_weighted_vectors(vocab, initial[:3], trained)


@pytest.mark.parametrize("cell_kind", ["LSTM", "RNN"])
def test_unroll_gradients_are_bit_for_bit_those_of_indexing_each_step(cell_kind):
    """``unroll`` takes the input projections apart once (``unbind``) instead of indexing ``inputs[:, t]`` per step;
    the backward then stacks instead of adding zero-filled buffers, which must not change a single bit."""
    from reproducer.encoders.compositional import ElmanCell, PeepholeLSTMCell, unroll

    def indexed(cell, x, mask):  # the loop as it was written before
        inputs, state = cell.project_inputs(x), cell.initial_state(x)
        for t in range(x.shape[1]):
            new = cell.step(inputs[:, t], state)
            state = tuple(torch.where(mask[:, t, None], n, old) for n, old in zip(new, state))
        return state[0]

    torch.manual_seed(0)
    cell = PeepholeLSTMCell(16) if cell_kind == "LSTM" else ElmanCell(16, "tanh")
    x = torch.randn(7, 9, 16)
    mask = torch.arange(9)[None, :] < torch.tensor([9, 1, 4, 9, 2, 6, 3])[:, None]
    grads = []
    for run in (unroll, indexed):
        xx = x.clone().requires_grad_()
        (run(cell, xx, mask) ** 2).sum().backward()
        grads.append([xx.grad.clone()] + [p.grad.clone() for p in cell.parameters()])
        cell.zero_grad()
    assert all(torch.equal(a, b) for a, b in zip(*grads))

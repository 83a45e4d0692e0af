"""Training an encoder with a task head (Wieting et al. 2016 section 4.3, Tai et al. 2015)."""
import numpy as np
import pytest
import torch

from reproducer.data.vocab import Vocabulary
from reproducer.encoders.compositional import CompositionalConfig, CompositionalEncoder
from reproducer.errors import ReproducerError
from reproducer.papers.paraphrastic.supervised import (ENTAILMENT, LabelledSampler, SupervisedModel, TaskHead, targets)
from reproducer.train import TrainConfig, train


def test_pair_head_is_eq_13():
    torch.manual_seed(0)
    head = TaskHead(4, 3, 5, pairs=True)
    u, v = torch.randn(2, 4), torch.randn(2, 4)
    hidden = torch.sigmoid(u * v @ head.times.weight.T + head.times.bias + (u - v).abs() @ head.plus.weight.T)
    torch.testing.assert_close(head(u, v), hidden @ head.out.weight.T + head.out.bias)
    with pytest.raises(ReproducerError, match="both sentence vectors"):
        head(u)


def test_targets():
    p = targets("relatedness", [1.0, 3.4, 5.0])
    torch.testing.assert_close(p @ torch.arange(1.0, 6.0), torch.tensor([1.0, 3.4, 5.0]))
    assert targets("entailment", ["entailment", "CONTRADICTION"]).tolist() == [ENTAILMENT.index("ENTAILMENT"), 2]
    with pytest.raises(ReproducerError, match="Unknown supervised task"):
        targets("parsing", [1])


def _toy():
    words = ["good", "great", "fine", "bad", "awful", "poor", "the", "film", "was"]
    vocab = Vocabulary(["<pad>", "<unk>", "<s>", "</s>"] + words)
    rng = np.random.default_rng(0)
    texts, labels = [], []
    for _ in range(200):
        y = int(rng.integers(2))
        word = rng.choice(words[:3] if y else words[3:6])
        texts.append(f"the film was {word}")
        labels.append(y)
    return vocab, texts, labels


def test_sentiment_model_learns_a_separable_task_and_penalties_behave():
    vocab, texts, labels = _toy()
    torch.manual_seed(0)
    encoder = CompositionalEncoder(CompositionalConfig("PP", len(vocab), 8))
    model = SupervisedModel(encoder, "sentiment", hidden=8, lambda_c=1.0, lambda_w=1e-3)
    assert model.penalty().item() == 0.0  # everything at its initial value, the head unregularised
    sampler = LabelledSampler(texts, labels, vocab, "sentiment", batch_size=20, seed=1)
    train(model, sampler.batch, TrainConfig(lr=0.05, optimizer="adagrad", max_steps=150), progress=False)
    predicted = model.predict(sampler.batch(indices=np.arange(200)))
    assert (predicted.numpy() == np.array(labels)).mean() > 0.95
    assert model.penalty().item() > 0  # the words moved away from their initial values
    assert SupervisedModel(CompositionalEncoder(CompositionalConfig("proj", len(vocab), 8)), "sentiment",
                           lambda_c=1.0, anchor="zero").penalty().item() > 0  # plain L2 on W_p
    with pytest.raises(ReproducerError, match="Unknown supervised task"):
        SupervisedModel(encoder, "parsing")


def test_relatedness_predictions_are_expected_scores_and_sampler_is_deterministic():
    vocab, texts, _ = _toy()
    pairs = [(t, texts[(i + 1) % len(texts)]) for i, t in enumerate(texts)]
    scores = np.random.default_rng(0).uniform(1, 5, size=len(pairs))
    sampler = LabelledSampler(pairs, scores, vocab, "relatedness", batch_size=10, seed=3)
    b = sampler.batch(4)
    assert b.target.shape == (10, 5) and b.ids2 is not None
    torch.testing.assert_close(LabelledSampler(pairs, scores, vocab, "relatedness", 10, seed=3).batch(4).ids1, b.ids1)
    model = SupervisedModel(CompositionalEncoder(CompositionalConfig("LSTM", len(vocab), 6)), "relatedness")
    assert torch.isfinite(model(b)) and ((model.predict(b) >= 1) & (model.predict(b) <= 5)).all()
    with pytest.raises(ReproducerError, match="equal lengths"):
        LabelledSampler(pairs, scores[:5], vocab, "relatedness", 10)


def test_fit_supervised_keeps_the_best_dev_epoch(tmp_path):
    from reproducer.papers.paraphrastic.supervised import fit_supervised

    vocab, texts, labels = _toy()
    data = {"train": (texts[:120], labels[:120]), "dev": (texts[120:160], labels[120:160]),
            "test": (texts[160:], labels[160:])}
    torch.manual_seed(0)
    model = SupervisedModel(CompositionalEncoder(CompositionalConfig("PP", len(vocab), 8)), "sentiment", hidden=8)
    report = fit_supervised(model, vocab, data, epochs=4, batch_size=20, workdir=tmp_path)
    assert [e for e, _ in report["curve"]] == [1, 2, 3, 4]
    assert report["dev"] == max(d for _, d in report["curve"]) and report["test"] > 90


def test_task_data_splits():
    from reproducer.papers.paraphrastic.supervised import task_data

    sick = task_data("relatedness")
    assert [len(sick[s][0]) for s in ("train", "dev", "test")] == [4500, 500, 4927]
    assert isinstance(sick["train"][0][0], tuple) and 1 <= min(sick["train"][1]) <= max(sick["train"][1]) <= 5
    assert [len(x[0]) for x in task_data("sentiment").values()] == [6920, 872, 1821]
    assert set(task_data("entailment")["dev"][1]) == {"NEUTRAL", "ENTAILMENT", "CONTRADICTION"}

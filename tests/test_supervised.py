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

    def make():
        return SupervisedModel(CompositionalEncoder(CompositionalConfig("PP", len(vocab), 8)), "sentiment", hidden=8)

    def fit(workdir):
        torch.rand(3)  # fit_supervised seeds: what ran before does not matter
        return fit_supervised(make, "sentiment", vocab, data, epochs=4, batch_size=20, workdir=workdir)

    report = fit(tmp_path / "a")
    assert fit(tmp_path / "b") == report  # the same seed, the same run: its scores and replicates
    assert [e for e, _ in report["curve"]] == [1, 2, 3, 4]
    assert report["dev"] == max(d for _, d in report["curve"]) and report["test"] > 90
    # the test score's replicates resample the 40 test records: a percentile interval around the score
    reps = np.asarray(report["replicates"])
    assert reps.shape == (1000,) and np.percentile(reps, 2.5) <= report["test"] <= np.percentile(reps, 97.5)


def test_supervised_replicates_resample_the_same_records_for_every_model():
    """Table 5's replicates (paired across models and seeds): the indices depend only on the task and the record
    count, so two models' replicates on the same records differ only where their outcomes do."""
    from reproducer.evaluate.items import correct_items, scored_items
    from reproducer.papers.paraphrastic.supervised import score_replicates, task_score

    rng = np.random.default_rng(0)
    right = rng.random(200) < 0.8
    fixed = right.copy()
    fixed[np.flatnonzero(~right)[0]] = True  # one more record right
    a, b = correct_items(right)["_items"], correct_items(fixed)["_items"]
    ra, rb = np.asarray(score_replicates("sentiment", a)), np.asarray(score_replicates("sentiment", b))
    assert task_score("sentiment", a) == pytest.approx(100 * right.mean())
    assert ((rb - ra) >= 0).all() and ((rb - ra) > 0).any() and ra.std() > 1  # higher where it is drawn
    assert not np.array_equal(ra, score_replicates("entailment", a))  # another task: other draws
    gold = rng.uniform(1, 5, 300)
    items = scored_items(gold + rng.normal(0, 1, 300), gold)["_items"]
    assert task_score("relatedness", items) == pytest.approx(100 * np.corrcoef(items["pred"], gold)[0, 1])
    assert 30 < np.median(score_replicates("relatedness", items)) < 100  # Pearson's r × 100


def test_task_data_splits():
    from reproducer.papers.paraphrastic.supervised import task_data

    sick = task_data("relatedness")
    assert [len(sick[s][0]) for s in ("train", "dev", "test")] == [4500, 500, 4927]
    assert isinstance(sick["train"][0][0], tuple) and 1 <= min(sick["train"][1]) <= max(sick["train"][1]) <= 5
    assert [len(x[0]) for x in task_data("sentiment").values()] == [6920, 872, 1821]
    assert set(task_data("entailment")["dev"][1]) == {"NEUTRAL", "ENTAILMENT", "CONTRADICTION"}

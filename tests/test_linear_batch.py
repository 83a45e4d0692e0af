"""The batched linear-probe trainer equals SentEval's one-model-at-a-time loop, early stopping included."""
from __future__ import annotations

import copy
from dataclasses import replace

import numpy as np
import pytest
import torch

from reproducer.errors import ReproducerError
from reproducer.evaluate.linear_batch import LinearSpec, TrainSettings, fit_linear_models
from reproducer.evaluate.protocols import score_distribution


def reference_fit(x, targets, spec, settings, gold=None):
    """SentEval's ``PyTorchClassifier.fit`` (or ``RelatednessPytorch.run`` for loss="mse") for one model, written
    plainly with nn.Linear, torch.optim.Adam (or RMSprop) and autograd: (weight, bias, best validation score, epochs)."""
    rng = np.random.RandomState(settings.seed)  # SentEval: np.random.seed(seed) when the model is built
    torch.manual_seed(settings.seed)
    model = torch.nn.Linear(x.shape[1], settings.n_classes)
    if settings.optimizer == "rmsprop":
        opt = torch.optim.RMSprop(model.parameters(), lr=settings.lr, weight_decay=spec.l2)
    else:
        opt = torch.optim.Adam(model.parameters(), weight_decay=spec.l2)
    train, valid = np.asarray(spec.train), spec.valid
    if valid is None:
        perm = rng.permutation(len(train))
        k = int(settings.validation_split * len(train))
        train, valid = train[perm[k:]], train[perm[:k]]
    xt, xv = torch.tensor(x[train], dtype=torch.float32), torch.tensor(x[valid], dtype=torch.float32)
    if settings.loss == "ce":
        yt = torch.tensor(targets[train], dtype=torch.int64)
        loss_fn = torch.nn.CrossEntropyLoss()
    else:
        yt = torch.tensor(targets[train], dtype=torch.float32)
        loss_fn = torch.nn.MSELoss()
    nepoch, best, misses, stop, kept = 0, -1.0, 0, False, None
    while not stop and nepoch <= settings.max_epoch:
        for _ in range(settings.epochs_per_round):
            perm = rng.permutation(len(xt))
            for i in range(0, len(xt), settings.batch_size):
                idx = torch.from_numpy(perm[i:i + settings.batch_size])
                out = model(xt[idx])
                loss = loss_fn(out if settings.loss == "ce" else out.softmax(-1), yt[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
        nepoch += settings.epochs_per_round
        with torch.no_grad():
            if settings.loss == "ce":
                score = (model(xv).argmax(1).numpy() == targets[valid]).sum() / len(valid)
            else:
                expected = model(xv).softmax(-1).double().numpy() @ np.arange(1, settings.n_classes + 1)
                score = np.corrcoef(expected, gold[valid])[0, 1]
        if score > best:
            best, kept = score, copy.deepcopy(model)
        else:
            if misses >= settings.tenacity:
                stop = True
            misses += 1
    return kept.weight.detach().T, kept.bias.detach(), best, nepoch


def noisy_problem(n=160, d=6, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    x = rng.normal(size=(n, d)).astype(np.float32)
    x[np.arange(n), y] += 0.8  # learnable, but not separable: validation accuracy wobbles and stops early
    return x, y


SETTINGS = TrainSettings(n_classes=3, batch_size=16, epochs_per_round=2, tenacity=2, max_epoch=40,
                         validation_split=0.1)


def test_batched_equals_one_model_at_a_time_for_classification():
    x, y = noisy_problem()
    rows = np.arange(len(x))
    specs = [LinearSpec(rows[:100], rows[100:130], 1e-4),  # 100 rows: a short last minibatch of 4
             LinearSpec(rows[:97], rows[100:130], 1e-2),  # 97 rows: a minibatch fewer than the 100-row models
             LinearSpec(rows[10:110], rows[110:], 0.0),
             LinearSpec(rows[:130], None, 1e-3),  # early stopping on a 10% split of its own rows
             LinearSpec(rows[:130], None, 1e-5)]
    batched = fit_linear_models(x, y, specs, SETTINGS, device="cpu")
    epochs = set()
    for m, spec in enumerate(specs):
        w, b, best, nepoch = reference_fit(x, y, spec, SETTINGS)
        assert batched.dev_score[m] == best, m  # exactly: same minibatches, same stopping decisions
        assert batched.epochs[m] == nepoch, m
        np.testing.assert_allclose(batched.weight[m].numpy(), w.numpy(), atol=2e-5)
        np.testing.assert_allclose(batched.bias[m].numpy(), b.numpy(), atol=2e-5)
        epochs.add(nepoch)
    assert len(epochs) > 1 and max(epochs) < SETTINGS.max_epoch  # the models stopped early, at different epochs


def test_rmsprop_batched_equals_one_model_at_a_time():
    # SentEval's prototyping config trains with RMSprop (lr 1e-2): the batched update is torch.optim.RMSprop's
    x, y = noisy_problem(seed=2)
    rows = np.arange(len(x))
    settings = TrainSettings(n_classes=3, batch_size=16, epochs_per_round=2, tenacity=2, max_epoch=40,
                             validation_split=0.1, optimizer="rmsprop", lr=1e-2)
    specs = [LinearSpec(rows[:100], rows[100:130], 1e-4),
             LinearSpec(rows[:97], rows[100:130], 1e-2),  # a minibatch fewer: it sits out the last step
             LinearSpec(rows[:130], None, 1e-3)]
    batched = fit_linear_models(x, y, specs, settings, device="cpu")
    for m, spec in enumerate(specs):
        w, b, best, nepoch = reference_fit(x, y, spec, settings)
        assert batched.dev_score[m] == best, m
        assert batched.epochs[m] == nepoch, m
        np.testing.assert_allclose(batched.weight[m].numpy(), w.numpy(), atol=5e-5)
        np.testing.assert_allclose(batched.bias[m].numpy(), b.numpy(), atol=5e-5)
    adam = fit_linear_models(x, y, specs, replace(settings, optimizer="adam", lr=1e-3), device="cpu")
    assert not np.allclose(adam.weight.numpy(), batched.weight.numpy())  # the optimiser setting is used


def test_prototyping_config_is_senteval_readme_s():
    from reproducer.evaluate.senteval import PROTOTYPING
    from reproducer.evaluate.tasks import CONFIGS

    s = CONFIGS["fast"].classifier.settings(2)
    assert (CONFIGS["fast"].classifier is PROTOTYPING and PROTOTYPING.kfold == 5 and s.optimizer == "rmsprop"
            and s.lr == 1e-2 and s.batch_size == 128 and s.tenacity == 3 and s.epochs_per_round == 2)
    assert CONFIGS["paper"].classifier.settings(2).optimizer == "adam"
    with pytest.raises(ReproducerError, match="optimizer"):
        x, y = noisy_problem()
        fit_linear_models(x, y, [LinearSpec(np.arange(100), np.arange(100, 130))],
                          replace(SETTINGS, optimizer="sgd"), device="cpu")


def test_batched_equals_one_model_at_a_time_for_relatedness():
    rng = np.random.default_rng(3)
    n, d = 150, 8
    x = rng.normal(size=(n, d)).astype(np.float32)
    gold = np.clip(3 + x[:, 0] + 0.5 * rng.normal(size=n), 1, 5)
    target = score_distribution(gold).astype(np.float32)
    settings = TrainSettings(n_classes=5, loss="mse", batch_size=16, epochs_per_round=3, tenacity=1, max_epoch=60)
    spec = LinearSpec(np.arange(110), np.arange(110, n), 0.0)
    batched = fit_linear_models(x, target, [spec, spec], settings, gold=gold, device="cpu")
    w, b, best, nepoch = reference_fit(x, target, spec, settings, gold=gold)
    assert batched.dev_score[0] == pytest.approx(best, abs=1e-6)  # float32 rounding, not the protocol
    assert batched.dev_score[1] == pytest.approx(batched.dev_score[0], abs=1e-6)
    assert batched.epochs[0] == nepoch
    np.testing.assert_allclose(batched.weight[0].numpy(), w.numpy(), atol=2e-5)
    expected = batched.expected_score(x, np.arange(110, n))[0]
    assert np.all((expected >= 1) & (expected <= 5))


def test_predictions_come_from_the_kept_copy():
    x, y = noisy_problem(seed=1)
    rows = np.arange(len(x))
    models = fit_linear_models(x, y, [LinearSpec(rows[:120], rows[120:], 1e-4)], SETTINGS, device="cpu")
    pred = models.predict(x, rows[120:])[0]
    assert (pred == y[120:]).sum() / 40 == models.dev_score[0]


def test_bad_inputs_are_refused():
    x, y = noisy_problem()
    rows = np.arange(len(x))
    with pytest.raises(ReproducerError, match="Class ids"):
        fit_linear_models(x, y + 5, [LinearSpec(rows[:100], rows[100:])], SETTINGS)
    with pytest.raises(ReproducerError, match="validation rows"):
        fit_linear_models(x, y, [LinearSpec(rows[:5], None)], SETTINGS)  # int(0.1 * 5) = 0 held-out rows
    with pytest.raises(ReproducerError, match="loss"):
        fit_linear_models(x, y, [LinearSpec(rows[:100], rows[100:])], TrainSettings(n_classes=3, loss="hinge"))
    with pytest.raises(ReproducerError, match="gold"):
        fit_linear_models(x, score_distribution(np.full(len(x), 3.0)), [LinearSpec(rows[:100], rows[100:])],
                          TrainSettings(n_classes=5, loss="mse"))


@pytest.mark.parametrize("loss,optimizer", [("ce", "adam"), ("ce", "rmsprop"), ("mse", "adam")])
def test_slices_of_groups_train_bit_for_bit_as_the_whole_batch(monkeypatch, loss, optimizer):
    """Issue 66: on a CPU the groups are trained a cache-sized slice at a time, and small minibatches are gathered
    several at once. Groups never interact within an epoch, so this must change no bit: one group and one minibatch
    at a time, and every group with the whole epoch at once, give the same weights, scores and stopping epochs —
    with groups of uneven sizes, so that Adam's t differs between groups (its per-group path) and short last
    minibatches occur."""
    import reproducer.evaluate.linear_batch as lb

    x, y = noisy_problem(n=200, seed=3)
    rows = np.arange(len(x))
    specs = [LinearSpec(rows[:100], rows[100:130], l2) for l2 in (1e-4, 1e-2)]  # one group of two models
    specs += [LinearSpec(rows[i:i + 90 + 3 * i], rows[150:], 1e-3) for i in range(16)]  # groups of uneven sizes
    specs += [LinearSpec(rows[30:160], None, 1e-5), LinearSpec(rows[:130], None, 1e-3)]  # 19 groups: 8 + 8 + 3
    settings = replace(SETTINGS, optimizer=optimizer, lr=1e-2 if optimizer == "rmsprop" else 1e-3)
    targets, gold = y, None
    if loss == "mse":
        gold = (y + 1).astype(np.float64)
        targets = score_distribution(gold, 3)
        settings = replace(settings, loss="mse")
        specs = [replace(spec, l2=0.0) for spec in specs]
    fits = {}
    for name, floats in (("slices of 8 groups, a minibatch at a time", 1), ("all at once", 1 << 30)):
        monkeypatch.setattr(lb, "_CACHE_FLOATS", floats)
        fits[name] = fit_linear_models(x, targets, specs, settings, gold=gold, device="cpu")
    one, whole = fits["slices of 8 groups, a minibatch at a time"], fits["all at once"]
    assert torch.equal(one.weight, whole.weight) and torch.equal(one.bias, whole.bias)
    assert np.array_equal(one.dev_score, whole.dev_score) and np.array_equal(one.epochs, whole.epochs)
    assert len(set(whole.epochs)) > 1  # the groups stopped at different epochs

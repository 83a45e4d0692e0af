"""SentEval's PyTorch protocol -- the one the literature reports -- with every model of a task trained at once.

The papers this book reproduces measured with SentEval (Conneau & Kiela 2018) in the configuration its README
calls comparable to the literature: ``usepytorch=True, kfold=10`` and a logistic regression
(``nhid=0, optim=adam, batch_size=64, tenacity=5, epoch_size=4``). Read from SentEval's code
(``senteval/tools/validation.py``, ``relatedness.py`` and each task file), the protocol is:

- **MR, CR, SUBJ, MPQA** (``InnerKFoldClassifier``): stratified 10-fold CV (shuffled, seed 1111); in each
  training part, an inner stratified 10-fold CV (same seed) scores every L2 value in ``10^-5 .. 10^-2`` -- each
  inner model stops early on its own held-out inner fold -- and the L2 value with the best mean (rounded to
  0.01) is refitted on the whole training part with 5% of it held out for early stopping, then tested.
- **TREC, MRPC** (``KFoldClassifier``): the same 10-fold selection on the training set, the refit on all of it
  (5% held out for early stopping), scored on the test set; MRPC also reports F1 of the paraphrase class.
- **SST, SICK-E** (``SplitClassifier``): each L2 value trained with early stopping on dev; the best on dev is
  scored on test (its refit is the same deterministic run, so the trained copy is reused).
- **SICK-R** (``RelatednessPytorch``): Tai et al. (2015)'s softmax over the integer scores on
  ``[|u - v|, u * v]``, trained by Adam (no L2) on the squared error to the sparse target distribution, in
  rounds of 50 epochs with early stopping on dev Pearson (tenacity 3, at most 1000 epochs); the prediction is
  the expected score.
- **Order**: SentEval sorts each split by sentence length (then label) before anything else, and its folds are
  drawn on that order; the tasks sort their records the same way (``senteval_order``), so the folds are
  SentEval's folds.

Every (fold x L2 value) model of a task is one member of a single batched linear model
(:mod:`reproducer.evaluate.linear_batch`), so a task costs one training loop instead of hundreds.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold

from reproducer.errors import ReproducerError
from reproducer.evaluate.items import correct_items, scored_items
from reproducer.evaluate.linear_batch import LinearSpec, TrainSettings, fit_linear_models
from reproducer.evaluate.protocols import score_distribution


def _check_features(*arrays: np.ndarray) -> None:
    """Features must be finite and vary: a NaN or a constant column is an encoder bug, not a score."""
    for x in arrays:
        if x.ndim != 2 or len(x) == 0:
            raise ReproducerError(f"Features must be a non-empty (n, d) array, got shape {x.shape}.")
        if not np.all(np.isfinite(x)):
            raise ReproducerError("Features contain NaN or infinite values: check the encoder's output.")
    first = arrays[0][0]
    if all(np.all(x == first) for x in arrays):  # zero variance in every column, without copying the features
        raise ReproducerError("Every feature has zero variance (all sentence vectors identical): "
                              "the encoder returned a constant; nothing can be learned from it.")


#: The learning rate SentEval's classifier gets for each optimiser: none is given, so torch's default.
OPTIMIZER_LR = {"adam": 1e-3, "rmsprop": 1e-2}


@dataclass(frozen=True)
class SentEvalConfig:
    """SentEval's PyTorch logistic regression: by default the literature's configuration (its README's default
    config); :data:`PROTOTYPING` is its README's prototyping config (5 folds, RMSprop, batch 128, tenacity 3, epoch
    size 2: "a proxy of the results", about 5× faster for classification)."""

    kfold: int = 10
    l2: tuple[float, ...] = (1e-5, 1e-4, 1e-3, 1e-2)  # [10**t for t in range(-5, -1)]
    batch_size: int = 64
    tenacity: int = 5
    epoch_size: int = 4
    max_epoch: int = 200
    validation_split: float = 0.05
    seed: int = 1111
    optimizer: str = "adam"  # "rmsprop" in SentEval's prototyping config
    device: str | None = None  # None: CUDA when available, else CPU
    senteval_order: bool = True  # tasks sort their records as SentEval does (its folds depend on the order)

    def settings(self, n_classes: int) -> TrainSettings:
        return TrainSettings(n_classes=n_classes, batch_size=self.batch_size, epochs_per_round=self.epoch_size,
                             tenacity=self.tenacity, max_epoch=self.max_epoch,
                             validation_split=self.validation_split, seed=self.seed, optimizer=self.optimizer,
                             lr=OPTIMIZER_LR.get(self.optimizer, 1e-3))

    # ------------------------------------------------------------------ the three classification protocols
    def cv(self, x: np.ndarray, y: np.ndarray) -> dict[str, float]:
        """MR/CR/SUBJ/MPQA: outer k-fold test accuracy, L2 by inner k-fold CV in each training part (%)."""
        _check_features(x)
        y = np.asarray(y)
        outer = list(StratifiedKFold(self.kfold, shuffle=True, random_state=self.seed).split(x, y))
        inner_cv = StratifiedKFold(self.kfold, shuffle=True, random_state=self.seed)
        specs, where = [], {}
        for o, (train, _) in enumerate(outer):
            for r, l2 in enumerate(self.l2):
                for i, (a, b) in enumerate(inner_cv.split(train, y[train])):  # only the count and labels matter
                    where[o, r, i] = len(specs)
                    specs.append(LinearSpec(train[a], train[b], l2))
                where[o, r, "final"] = len(specs)
                specs.append(LinearSpec(train, None, l2))  # the refit, for every L2 value: chosen afterwards
        models = fit_linear_models(x, y, specs, self.settings(_n_classes(y)), device=self.device)
        dev, test, correct = [], [], np.zeros(len(y), dtype=bool)
        for o, (_, held_out) in enumerate(outer):
            scores = [round(100 * float(np.mean([models.dev_score[where[o, r, i]] for i in range(self.kfold)])), 2)
                      for r in range(len(self.l2))]
            best = int(np.argmax(scores))
            dev.append(max(scores))
            pred = models.predict(x, held_out, [where[o, best, "final"]])[0]
            correct[held_out] = pred == y[held_out]
            test.append(round(100 * float(np.mean(pred == y[held_out])), 2))
        return {"acc": round(float(np.mean(test)), 2), "dev_acc": round(float(np.mean(dev)), 2),
                **correct_items(correct)}

    def train_test(self, x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray,
                   y_test: np.ndarray) -> dict[str, float]:
        """TREC/MRPC: L2 by k-fold CV on train, refit on train (5% for early stopping), test accuracy; binary
        tasks also F1 of class 1 (%)."""
        _check_features(x_train, x_test)
        y_train, y_test = np.asarray(y_train), np.asarray(y_test)
        folds = list(StratifiedKFold(self.kfold, shuffle=True, random_state=self.seed).split(x_train, y_train))
        specs = [LinearSpec(a, b, l2) for l2 in self.l2 for a, b in folds]
        finals = len(specs)
        specs += [LinearSpec(np.arange(len(x_train)), None, l2) for l2 in self.l2]
        models = fit_linear_models(x_train, y_train, specs, self.settings(_n_classes(y_train, y_test)),
                                   device=self.device)
        k = len(folds)
        scores = [round(100 * float(np.mean(models.dev_score[r * k:(r + 1) * k])), 2) for r in range(len(self.l2))]
        best = int(np.argmax(scores))
        pred = models.predict(x_test, None, [finals + best])[0]
        out = {"acc": round(100 * float(np.mean(pred == y_test)), 2), "dev_acc": max(scores)}
        if len(np.unique(y_train)) == 2:
            out["f1"] = round(100 * float(f1_score(y_test, pred, pos_label=1)), 2)
        return {**out, **correct_items(pred == y_test)}

    def dev(self, x_train: np.ndarray, y_train: np.ndarray, x_dev: np.ndarray, y_dev: np.ndarray,
            x_test: np.ndarray, y_test: np.ndarray) -> dict[str, float]:
        """SST/SICK-E: each L2 value with early stopping on dev; the best on dev, scored on test (%)."""
        _check_features(x_train, x_dev, x_test)
        x = np.concatenate([x_train, x_dev])
        y = np.concatenate([np.asarray(y_train), np.asarray(y_dev)])
        rows, dev_rows = np.arange(len(x_train)), np.arange(len(x_train), len(x))
        models = fit_linear_models(x, y, [LinearSpec(rows, dev_rows, l2) for l2 in self.l2],
                                   self.settings(_n_classes(y, y_test)), device=self.device)
        scores = [round(100 * float(s), 2) for s in models.dev_score]
        best = int(np.argmax(scores))
        pred = models.predict(x_test, None, [best])[0]
        return {"acc": round(100 * float(np.mean(pred == np.asarray(y_test))), 2), "dev_acc": max(scores),
                **correct_items(pred == np.asarray(y_test))}


#: SentEval's prototyping config (its README), for tables with many high-dimensional rows.
PROTOTYPING = SentEvalConfig(kfold=5, batch_size=128, tenacity=3, epoch_size=2, optimizer="rmsprop")


def _n_classes(*labels: np.ndarray) -> int:
    y = np.concatenate([np.asarray(v) for v in labels])
    if not np.issubdtype(y.dtype, np.integer) or y.min() < 0:
        raise ReproducerError("SentEval's classifier takes class ids 0..C-1; map the labels first.")
    return int(y.max()) + 1


@dataclass(frozen=True)
class SentEvalRelatednessConfig:
    """SentEval's ``RelatednessPytorch`` (SICK-R): Adam without L2, squared error to Tai et al.'s target
    distribution, batch 64, 50-epoch rounds, early stopping on dev Pearson with tenacity 3, at most 1000 epochs."""

    epochs_per_round: int = 50
    tenacity: int = 3
    max_epoch: int = 1000
    batch_size: int = 64
    seed: int = 1111
    device: str | None = None

    def fit(self, x_train: np.ndarray, y_train: np.ndarray, x_dev: np.ndarray, y_dev: np.ndarray,
            x_test: np.ndarray, y_test: np.ndarray, n_classes: int = 5) -> dict[str, float]:
        """Pearson r, Spearman rho and MSE of the expected score on test; scores lie in 1..``n_classes``."""
        from scipy.stats import pearsonr, spearmanr


        _check_features(x_train, x_dev, x_test)
        x = np.concatenate([x_train, x_dev])
        gold = np.concatenate([y_train, y_dev]).astype(np.float64)
        target = score_distribution(gold, n_classes)
        settings = TrainSettings(n_classes=n_classes, loss="mse", batch_size=self.batch_size,
                                 epochs_per_round=self.epochs_per_round, tenacity=self.tenacity,
                                 max_epoch=self.max_epoch, seed=self.seed)
        spec = LinearSpec(np.arange(len(x_train)), np.arange(len(x_train), len(x)), 0.0)
        models = fit_linear_models(x, target, [spec], settings, gold=gold, device=self.device)
        pred = models.expected_score(x_test)[0]
        y_test = np.asarray(y_test, dtype=np.float64)
        pr, sr = pearsonr(pred, y_test)[0], spearmanr(pred, y_test)[0]
        return {"pearson": 0.0 if pr != pr else float(pr), "spearman": 0.0 if sr != sr else float(sr),
                "mse": float(np.mean((pred - y_test) ** 2)), "dev_pearson": float(models.dev_score[0]),
                "epochs": int(models.epochs[0]), **scored_items(pred, y_test)}

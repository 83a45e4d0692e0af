"""Evaluation protocols on frozen sentence vectors with SentEval's *scikit-learn* back end (Conneau & Kiela 2018)
and Kiros et al. (2015)'s SICK-R probe: the ``sklearn`` and ``prototype`` configurations. The literature's
protocol, SentEval's PyTorch back end, is :mod:`reproducer.evaluate.senteval` (the ``paper`` configuration).
Each protocol is a function of embeddings and labels only, so it is testable on hand-made features;
:mod:`reproducer.evaluate.harness` feeds it encoder outputs.

- :func:`cv_accuracy`: MR/CR/SUBJ/MPQA. Outer stratified k-fold; in each training fold the L2
  penalty is chosen by an inner stratified k-fold (SentEval's ``InnerKFoldClassifier``).
- :func:`train_test_accuracy`: TREC, MRPC. Penalty chosen by k-fold CV on train, refit on all of
  train, scored on test (``KFoldClassifier``); accuracy, and F1 of class 1 for binary tasks.
- :func:`dev_accuracy`: SST-2, SICK-E. Penalty chosen on the dev split (``SplitClassifier``).
- :func:`relatedness`: SICK-R, Tai et al. (2015)'s model as used by Kiros et al.: a softmax over the
  five integer scores on pair features, trained to match the sparse target distribution (KL), the
  prediction being its expectation; early stopping on dev Pearson.
- :func:`cosine_correlations`: STS and PPDB — Pearson and Spearman of cosine vs gold.

The classifier is scikit-learn's ``LogisticRegressionCV`` (lbfgs, warm-started along the L2 path
inside each fold): it performs exactly the inner selection (mean accuracy over the folds for each
C, argmax, refit on the whole training part).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.stats import pearsonr, spearmanr
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold

from reproducer.evaluate.items import correct_items, scored_items
from reproducer.runtime import default_device


@dataclass(frozen=True)
class ClassifierConfig:
    """The linear probe's settings. SentEval (scikit-learn back end): C in 2^-2 ... 2^3, 10 folds."""

    kfold: int = 10
    inner_kfold: int = 10
    cs: tuple[float, ...] = tuple(2.0 ** t for t in range(-2, 4))
    max_iter: int = 1000
    seed: int = 1111
    n_jobs: int = 2
    senteval_order: ClassVar[bool] = False  # tasks keep their records in file order

    def cv(self, x: np.ndarray, y: np.ndarray) -> dict[str, float]:
        return cv_accuracy(x, y, self)

    def train_test(self, x_train, y_train, x_test, y_test) -> dict[str, float]:
        return train_test_accuracy(x_train, y_train, x_test, y_test, self)

    def dev(self, x_train, y_train, x_dev, y_dev, x_test, y_test) -> dict[str, float]:
        return dev_accuracy(x_train, y_train, x_dev, y_dev, x_test, y_test, self)


def pair_features(u: np.ndarray, v: np.ndarray, *, with_uv: bool = False) -> np.ndarray:
    """``[|u - v|, u * v]`` (Tai et al. 2015; Kiros et al. 2015), optionally preceded by ``[u, v]``."""
    parts = ([u, v] if with_uv else []) + [np.abs(u - v), u * v]
    return np.concatenate(parts, axis=1)


def _fit_cv(x: np.ndarray, y: np.ndarray, config: ClassifierConfig, folds: int) -> LogisticRegressionCV:
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=config.seed)
    clf = LogisticRegressionCV(Cs=list(config.cs), l1_ratios=(0.0,), cv=cv, scoring="accuracy",
                               max_iter=config.max_iter, n_jobs=config.n_jobs, random_state=config.seed,
                               refit=True, use_legacy_attributes=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(x, y)
    return clf


def _best_inner_score(clf: LogisticRegressionCV) -> float:
    return float(clf.scores_.mean(axis=0).max())  # scores_: (folds, 1 l1-ratio, len(Cs))


def cv_accuracy(x: np.ndarray, y: np.ndarray, config: ClassifierConfig = ClassifierConfig()) -> dict[str, float]:
    """Outer k-fold test accuracy with the L2 penalty chosen by inner k-fold CV in each fold (%)."""
    outer = StratifiedKFold(n_splits=config.kfold, shuffle=True, random_state=config.seed)
    test, dev, correct = [], [], np.zeros(len(y), dtype=bool)
    for train_idx, test_idx in outer.split(x, y):
        clf = _fit_cv(x[train_idx], y[train_idx], config, config.inner_kfold)
        dev.append(_best_inner_score(clf))
        correct[test_idx] = clf.predict(x[test_idx]) == y[test_idx]
        test.append(float(np.mean(correct[test_idx])))
    return {"acc": 100 * float(np.mean(test)), "dev_acc": 100 * float(np.mean(dev)), **correct_items(correct)}


def train_test_accuracy(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, y_test: np.ndarray,
                        config: ClassifierConfig = ClassifierConfig()) -> dict[str, float]:
    """L2 penalty by k-fold CV on train, refit on train, test accuracy (and F1 of class 1 if binary) (%)."""
    clf = _fit_cv(x_train, y_train, config, config.kfold)
    pred = clf.predict(x_test)
    out = {"acc": 100 * float(np.mean(pred == y_test)), "dev_acc": 100 * _best_inner_score(clf)}
    if len(np.unique(y_train)) == 2:
        out["f1"] = 100 * float(f1_score(y_test, pred, pos_label=1))
    return {**out, **correct_items(pred == y_test)}


def dev_accuracy(x_train: np.ndarray, y_train: np.ndarray, x_dev: np.ndarray, y_dev: np.ndarray,
                 x_test: np.ndarray, y_test: np.ndarray,
                 config: ClassifierConfig = ClassifierConfig()) -> dict[str, float]:
    """L2 penalty chosen on the dev split; test accuracy of the model trained on train (%)."""
    best, best_c = -1.0, None
    clf = LogisticRegression(max_iter=config.max_iter, random_state=config.seed, warm_start=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for c in config.cs:  # warm start along the path: each fit starts from the previous solution
            clf.set_params(C=c)
            clf.fit(x_train, y_train)
            score = clf.score(x_dev, y_dev)
            if score > best:
                best, best_c = score, c
        final = LogisticRegression(C=best_c, max_iter=config.max_iter, random_state=config.seed)
        final.fit(x_train, y_train)
    pred = final.predict(x_test)
    return {"acc": 100 * float(np.mean(pred == y_test)), "dev_acc": 100 * best, **correct_items(pred == y_test)}


@dataclass(frozen=True)
class RelatednessConfig:
    """Tai et al.'s SICK-R probe as trained by SentEval: Adam, batch 64, early stopping on dev r,
    evaluated every ``epochs_per_round`` epochs, stopping after ``patience`` rounds without gain."""

    epochs_per_round: int = 50
    patience: int = 3
    max_epochs: int = 1000
    batch_size: int = 64
    lr: float = 1e-3
    seed: int = 1111

    def fit(self, x_train, y_train, x_dev, y_dev, x_test, y_test, n_classes: int = 5) -> dict[str, float]:
        return relatedness(x_train, y_train, x_dev, y_dev, x_test, y_test, self, n_classes=n_classes)


def score_distribution(scores: np.ndarray, n_classes: int = 5) -> np.ndarray:
    """Tai et al. (2015) sparse target: y in [1, K] puts mass y - floor(y) on floor(y)+1 and the
    rest on floor(y) (1-based), so that the expectation of the distribution equals y."""
    scores = np.asarray(scores, dtype=np.float64)
    p = np.zeros((len(scores), n_classes))
    floor = np.clip(np.floor(scores).astype(int), 1, n_classes)
    frac = scores - floor
    for i, (f, r) in enumerate(zip(floor, frac)):
        if f == n_classes:
            p[i, n_classes - 1] = 1.0
        else:
            p[i, f] = r
            p[i, f - 1] = 1.0 - r
    return p


def _fit_epochs(model, opt, xt, pt, gen, config: RelatednessConfig) -> None:
    import torch

    for _ in range(config.epochs_per_round):
        perm = torch.randperm(len(xt), generator=gen).to(xt.device)
        for i in range(0, len(xt), config.batch_size):
            idx = perm[i:i + config.batch_size]
            loss = torch.nn.functional.kl_div(model(xt[idx]).log_softmax(-1), pt[idx], reduction="batchmean")
            opt.zero_grad()
            loss.backward()
            opt.step()


def relatedness(x_train: np.ndarray, y_train: np.ndarray, x_dev: np.ndarray, y_dev: np.ndarray,
                x_test: np.ndarray, y_test: np.ndarray,
                config: RelatednessConfig = RelatednessConfig(), device=None, n_classes: int = 5) -> dict[str, float]:
    """SICK-R: softmax regression on pair features to the score distribution (KL divergence);
    predicted score = expectation over 1..``n_classes`` (5 for SICK; STS-B's 0-5 scores are shifted to 1-6 and
    use 6, as SentEval). Returns Pearson r, Spearman rho and MSE on test."""
    import torch


    device = default_device(device)
    gen = torch.Generator().manual_seed(config.seed)
    xt = torch.as_tensor(x_train, dtype=torch.float32, device=device)
    pt = torch.as_tensor(score_distribution(y_train, n_classes), dtype=torch.float32, device=device)
    with torch.random.fork_rng(devices=[]):  # a seeded initialisation that leaves the caller's random state alone
        torch.manual_seed(config.seed)
        model = torch.nn.Linear(xt.shape[1], n_classes).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    levels = torch.arange(1, n_classes + 1, dtype=torch.float32, device=device)

    def predict(x: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = model(torch.as_tensor(x, dtype=torch.float32, device=device))
            return (logits.softmax(-1) @ levels).cpu().numpy()

    best_r, best_state, bad, epoch = -np.inf, None, 0, 0
    while epoch < config.max_epochs and bad <= config.patience:
        with torch.enable_grad():  # callers may evaluate under no_grad (the trainer's evaluation callback does)
            _fit_epochs(model, opt, xt, pt, gen, config)
        epoch += config.epochs_per_round
        r = pearsonr(predict(x_dev), y_dev)[0]
        r = -1.0 if np.isnan(r) else r
        if r > best_r:
            best_r, bad = r, 0
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        else:
            bad += 1
    model.load_state_dict(best_state)
    pred = predict(x_test)
    return {"pearson": float(pearsonr(pred, y_test)[0]), "spearman": float(spearmanr(pred, y_test)[0]),
            "mse": float(np.mean((pred - y_test) ** 2)), "dev_pearson": float(best_r), "epochs": epoch,
            **scored_items(pred, y_test)}


def cosine(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity; a zero vector has similarity 0 with everything. Computed in float64, so float16
    vectors do not overflow and very large float32 ones (×1e30) do not lose their angle."""
    u, v = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
    scale = np.maximum(np.abs(u).max(axis=1, initial=0.0), np.abs(v).max(axis=1, initial=0.0))
    scale[scale == 0] = 1.0
    u, v = u / scale[:, None], v / scale[:, None]  # the cosine does not change; nothing overflows
    nu = np.linalg.norm(u, axis=1)
    nv = np.linalg.norm(v, axis=1)
    dots = np.einsum("ij,ij->i", u, v)
    with np.errstate(invalid="ignore", divide="ignore"):
        sims = dots / (nu * nv)
    return np.nan_to_num(sims, nan=0.0, posinf=0.0, neginf=0.0)


def cosine_correlations(u: np.ndarray, v: np.ndarray, gold: np.ndarray) -> dict[str, float]:
    """Pearson r and Spearman rho between cosine(u_i, v_i) and the gold scores."""
    sims = cosine(u, v)
    if np.ptp(sims) < 1e-9:  # constant predictions: the correlation is undefined; report 0
        return {"pearson": 0.0, "spearman": 0.0, "n": len(gold), **scored_items(sims, gold)}
    return {"pearson": float(pearsonr(sims, gold)[0]), "spearman": float(spearmanr(sims, gold)[0]),
            "n": len(gold), **scored_items(sims, gold)}


def aggregate_sts(per_subset: dict[str, dict[str, float]], pooled: dict[str, float]) -> dict[str, float]:
    """The aggregates papers report, named explicitly: ``all`` (all pairs pooled), ``mean``
    (unweighted mean over sub-datasets) and ``wmean`` (weighted by the number of pairs)."""
    n = np.array([m["n"] for m in per_subset.values()], dtype=float)
    out = {}
    for metric in ("pearson", "spearman"):
        vals = np.array([m[metric] for m in per_subset.values()])
        out[f"all.{metric}"] = pooled[metric]
        out[f"mean.{metric}"] = float(vals.mean())
        out[f"wmean.{metric}"] = float((vals * n).sum() / n.sum())
    return out

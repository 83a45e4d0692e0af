"""Many small linear models trained at once: SentEval's PyTorch linear probe, batched.

SentEval (Conneau & Kiela 2018; facebookresearch/SentEval ``senteval/tools/classifier.py`` and
``relatedness.py``) fits one ``nn.Linear`` per (fold, L2 value): 440 separate models for MR alone, each a
Python loop of tiny minibatch steps. :func:`fit_linear_models` trains all of a task's models as **one batched
model** -- weights ``(M, d, C)``, one ``bmm`` per minibatch for all of them -- while every model keeps what it
has in SentEval: its own training rows, minibatch order, weight decay, Adam state and early stopping. A model
that stops early leaves the batch.

What each model does, as SentEval does it (``PyTorchClassifier.fit`` / ``RelatednessPytorch.run``):

- **Initialisation**: ``nn.Linear(d, C)`` right after ``torch.manual_seed(seed)`` -- the same start for every model.
- **Minibatch order**: NumPy's global generator reseeded with ``seed`` when the model is built; with
  ``validation_split`` one permutation of the training rows first sets aside its first ``int(split * n)`` rows
  for early stopping, then each epoch draws one permutation of the remaining rows; batches of ``batch_size``.
- **Loss**: cross-entropy averaged over the minibatch (``loss="ce"``), or, for relatedness (Tai et al. 2015, as
  SentEval trains it), the squared error between the softmax and the target distribution averaged over
  minibatch x classes (``loss="mse"``). Both gradients are written out below (no autograd: the model is linear).
- **Adam** (``torch.optim.Adam``'s update, lr 1e-3, betas (0.9, 0.999), eps 1e-8) with ``weight_decay`` = the
  model's L2 penalty, added to the gradient of the weights *and* the bias (SentEval puts both in one group).
- **Early stopping**: train ``epochs_per_round`` epochs, then score the validation rows (accuracy, or Pearson's r
  of the expected score for relatedness). A better score keeps a copy of the model; a score that is not better
  stops training if ``tenacity`` non-improvements were counted already, and is counted (the count is never
  reset). Rounds continue while ``epoch <= max_epoch``. The kept copy is the result.

Models with as many training rows and the same kind of validation draw the same permutations (they are
reseeded identically, and a permutation depends on its length only), so the generator runs once per stream.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reproducer.errors import ReproducerError


@dataclass(frozen=True)
class LinearSpec:
    """One model of the batch: the rows of ``x`` it trains on, the rows that decide early stopping
    (``None``: a ``validation_split`` share of ``train``, drawn as SentEval draws it) and its L2 penalty."""

    train: np.ndarray
    valid: np.ndarray | None = None
    l2: float = 0.0


@dataclass(frozen=True)
class TrainSettings:
    """How every model of a batch is trained (SentEval's defaults for the literature configuration)."""

    n_classes: int
    loss: str = "ce"  # "ce": targets are class ids; "mse": targets are distributions over the classes
    batch_size: int = 64
    epochs_per_round: int = 4  # SentEval's epoch_size (relatedness: 50)
    tenacity: int = 5  # relatedness: 3
    max_epoch: int = 200  # relatedness: 1000
    validation_split: float = 0.05
    lr: float = 1e-3
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    seed: int = 1111


@dataclass
class LinearModels:
    """The kept (best-on-validation) copy of each model: ``weight`` (M, d, C), ``bias`` (M, C)."""

    weight: "torch.Tensor"  # noqa: F821
    bias: "torch.Tensor"  # noqa: F821
    dev_score: np.ndarray  # the validation score of the kept copy
    epochs: np.ndarray  # epochs trained before stopping

    def logits(self, x, rows: np.ndarray | None = None, models: list[int] | None = None):
        """Logits ``(len(models), len(rows), C)`` of the chosen models on rows of ``x`` (all by default)."""
        import torch

        models = list(range(len(self.weight))) if models is None else list(models)
        x = torch.as_tensor(x, dtype=torch.float32, device=self.weight.device)
        if rows is not None:
            x = x[torch.as_tensor(rows, device=x.device)]
        w, b = self.weight[models], self.bias[models]
        return torch.einsum("nd,mdc->mnc", x, w) + b[:, None, :]

    def predict(self, x, rows: np.ndarray | None = None, models: list[int] | None = None) -> np.ndarray:
        """Predicted class ids ``(len(models), len(rows))``."""
        return self.logits(x, rows, models).argmax(-1).cpu().numpy()

    def expected_score(self, x, rows: np.ndarray | None = None, models: list[int] | None = None) -> np.ndarray:
        """Relatedness prediction: the expectation of the levels 1..C under the softmax, ``(models, rows)``."""
        p = self.logits(x, rows, models).softmax(-1).double()
        levels = np.arange(1, p.shape[-1] + 1, dtype=np.float64)
        return p.cpu().numpy() @ levels


class _Streams:
    """SentEval's minibatch order: per model, a NumPy generator reseeded with ``seed``; one generator per
    (validation kind, number of rows), since identically seeded models draw identical permutations."""

    def __init__(self, specs: list[LinearSpec], settings: TrainSettings):
        self.train: list[np.ndarray] = []
        self.valid: list[np.ndarray] = []
        self.key: list[tuple] = []
        self._rng: dict[tuple, np.random.RandomState] = {}
        for spec in specs:
            rows = np.asarray(spec.train, dtype=np.int64)
            rng = np.random.RandomState(settings.seed)
            if spec.valid is None:
                perm = rng.permutation(len(rows))
                k = int(settings.validation_split * len(rows))
                train, valid = rows[perm[k:]], rows[perm[:k]]
            else:
                train, valid = rows, np.asarray(spec.valid, dtype=np.int64)
            if len(train) == 0 or len(valid) == 0:
                raise ReproducerError(f"A linear probe needs training and validation rows (got {len(train)} and "
                                      f"{len(valid)}).")
            key = (spec.valid is None, len(rows))  # the permutations depend on the seed and the sizes only
            self._rng.setdefault(key, rng)
            self.train.append(train)
            self.valid.append(valid)
            self.key.append(key)

    def epoch_orders(self, models: list[int], pad: int) -> np.ndarray:
        """Each model's rows in this epoch's order, ``(len(models), max rows)``, padded with ``pad``."""
        perms = {}
        for m in models:
            if self.key[m] not in perms:
                perms[self.key[m]] = self._rng[self.key[m]].permutation(len(self.train[m]))
        out = np.full((len(models), max(len(self.train[m]) for m in models)), pad, dtype=np.int64)
        for i, m in enumerate(models):
            out[i, :len(self.train[m])] = self.train[m][perms[self.key[m]]]
        return out


def _initial_linear(d: int, c: int, seed: int):
    """``nn.Linear(d, c)`` built right after ``torch.manual_seed(seed)``, as ``(d, c)`` weight and bias."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        layer = torch.nn.Linear(d, c)
    return layer.weight.detach().T.contiguous(), layer.bias.detach().clone()


def _pearson(pred: np.ndarray, gold: np.ndarray) -> float:
    from scipy.stats import pearsonr

    if np.ptp(pred) == 0 or np.ptp(gold) == 0:
        return 0.0  # SentEval: NaN (constant predictions) counts as 0
    r = pearsonr(pred, gold)[0]
    return 0.0 if r != r else float(r)


def fit_linear_models(x, targets, specs: list[LinearSpec], settings: TrainSettings, *, gold=None,
                      device=None) -> LinearModels:
    """Train every model of ``specs`` on rows of ``x`` (N, d) at once; see the module docstring.

    ``targets``: class ids (N,) for ``loss="ce"``; target distributions (N, C) for ``loss="mse"``, where ``gold``
    (N,) holds the scores whose Pearson correlation with the expected level decides early stopping.
    """
    import torch

    from reproducer.runtime import default_device

    if settings.loss not in ("ce", "mse"):
        raise ReproducerError(f"Unknown loss {settings.loss!r}: 'ce' or 'mse'.")
    if not specs:
        raise ReproducerError("No models to train.")
    dev = default_device(device)
    x = torch.as_tensor(np.asarray(x), dtype=torch.float32)
    n, d = x.shape
    c = settings.n_classes
    pad = n  # an all-zero row that padded minibatch slots point to
    xs = torch.cat([x, x.new_zeros(1, d)]).to(dev)
    if settings.loss == "ce":
        labels = torch.as_tensor(np.asarray(targets), dtype=torch.int64)
        if labels.min() < 0 or labels.max() >= c:
            raise ReproducerError(f"Class ids must lie in 0..{c - 1}.")
        target = torch.nn.functional.one_hot(labels, c).float()
        label_of = torch.cat([labels, labels.new_zeros(1)]).to(dev)
    else:
        target = torch.as_tensor(np.asarray(targets), dtype=torch.float32)
        if gold is None:
            raise ReproducerError("loss='mse' needs the gold scores that decide early stopping.")
        gold = np.asarray(gold, dtype=np.float64)
    target = torch.cat([target, target.new_zeros(1, c)]).to(dev)

    streams = _Streams(specs, settings)
    total = len(specs)
    w0, b0 = _initial_linear(d, c, settings.seed)
    # Weight and bias as one (d + 1, C) matrix per model, the inputs with a constant 1 appended: one bmm gives
    # both gradients and one Adam update moves both (SentEval decays both). The padding row is all zero.
    xs = torch.cat([xs, torch.ones(n + 1, 1, device=dev)], 1)
    xs[pad] = 0
    ids = list(range(total))  # the models still training, in the order of the working tensors below
    w = torch.cat([w0, b0[None]]).to(dev).expand(total, d + 1, c).clone()
    m1, m2 = torch.zeros_like(w), torch.zeros_like(w)
    steps = np.zeros(total)  # Adam's t, per model (a model without rows in a minibatch does not step)
    decay = torch.tensor([s.l2 for s in specs], dtype=torch.float32, device=dev).view(-1, 1, 1)
    best_w = w.clone()
    best = np.full(total, -1.0)  # SentEval starts from bestaccuracy = -1 (relatedness: bestpr = -1)
    misses = np.zeros(total, dtype=int)
    epochs = np.zeros(total, dtype=int)
    beta1, beta2 = settings.betas
    bs = settings.batch_size

    def train_epoch():
        order = torch.from_numpy(streams.epoch_orders(ids, pad)).to(dev)
        sizes = np.array([len(streams.train[m]) for m in ids])
        for start in range(0, order.shape[1], bs):
            idx = order[:, start:start + bs]
            count = np.clip(sizes - start, 0, idx.shape[1])  # real rows of this minibatch, per model
            xb = xs[idx]  # (M, b, d + 1)
            p = torch.bmm(xb, w).softmax(-1)
            if settings.loss == "ce":  # d CE / d logits = softmax - onehot
                g = p.sub_(target[idx])
            else:  # d MSE / d p = 2 (p - t) / C; through the softmax: p * (gp - <gp, p>)
                gp = (p - target[idx]).mul_(2.0 / c)
                g = p.mul_(gp - (gp * p).sum(-1, keepdim=True))
            stepping = count > 0
            if stepping.all() and (count == idx.shape[1]).all():
                g.mul_(1.0 / idx.shape[1])  # the mean over the minibatch
            else:  # a shorter last minibatch: padded slots carry no gradient
                real = np.arange(idx.shape[1])[None, :] < count[:, None]
                g.mul_(torch.from_numpy((real / np.maximum(count, 1)[:, None]).astype(np.float32)).to(dev)[..., None])
            grad = torch.bmm(xb.transpose(1, 2), g).addcmul_(decay, w)  # + weight decay (Adam's L2)
            # torch.optim.Adam, each model with its own t: m1 = lerp(m1, g, 1 - b1); m2 = b2 m2 + (1 - b2) g^2;
            # w -= lr / (1 - b1^t) * m1 / (sqrt(m2) / sqrt(1 - b2^t) + eps)
            steps[stepping] += 1
            t = np.maximum(steps, 1)
            step_size = torch.from_numpy((settings.lr / (1 - beta1 ** t)).astype(np.float32)).to(dev).view(-1, 1, 1)
            bc2_sqrt = torch.from_numpy(np.sqrt(1 - beta2 ** t).astype(np.float32)).to(dev).view(-1, 1, 1)
            if stepping.all():
                m1.lerp_(grad, 1 - beta1)
                m2.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                w.sub_(step_size * (m1 / (m2.sqrt() / bc2_sqrt).add_(settings.eps)))
            else:  # models without rows in this minibatch keep their weights and moments
                on = torch.from_numpy(stepping).to(dev).view(-1, 1, 1)
                new1 = m1.lerp(grad, 1 - beta1)
                new2 = m2.mul(beta2).addcmul_(grad, grad, value=1 - beta2)
                new_w = w - step_size * (new1 / (new2.sqrt() / bc2_sqrt).add_(settings.eps))
                m1.copy_(torch.where(on, new1, m1))
                m2.copy_(torch.where(on, new2, m2))
                w.copy_(torch.where(on, new_w, w))

    def validation_scores() -> np.ndarray:
        longest = max(len(streams.valid[m]) for m in ids)
        rows = np.full((len(ids), longest), pad, dtype=np.int64)
        for i, m in enumerate(ids):
            rows[i, :len(streams.valid[m])] = streams.valid[m]
        rows_t = torch.from_numpy(rows).to(dev)
        # one GEMM for every model on every row, then each model's own validation rows
        z = (xs @ w.permute(1, 0, 2).reshape(d + 1, -1)).view(n + 1, len(ids), c)
        logits = z[rows_t, torch.arange(len(ids), device=dev).view(-1, 1)]
        scores = np.empty(len(ids))
        if settings.loss == "ce":
            hits = (logits.argmax(-1) == label_of[rows_t]).cpu().numpy()
            for i, m in enumerate(ids):
                scores[i] = hits[i, :len(streams.valid[m])].sum() / len(streams.valid[m])
        else:
            expected = logits.softmax(-1).double().cpu().numpy() @ np.arange(1, c + 1, dtype=np.float64)
            for i, m in enumerate(ids):
                scores[i] = _pearson(expected[i, :len(streams.valid[m])], gold[streams.valid[m]])
        return scores

    epoch = 0
    with torch.no_grad():
        while ids and epoch <= settings.max_epoch:
            for _ in range(settings.epochs_per_round):
                train_epoch()
            epoch += settings.epochs_per_round
            scores = validation_scores()
            keep, better = [], []
            for i, m in enumerate(ids):
                epochs[m] = epoch
                if scores[i] > best[m]:
                    best[m] = scores[i]
                    better.append(i)
                    keep.append(i)
                else:
                    if misses[m] < settings.tenacity:
                        keep.append(i)
                    misses[m] += 1
            if better:
                best_w[[ids[i] for i in better]] = w[better]
            if len(keep) < len(ids):
                w, m1, m2, decay = (v[keep] for v in (w, m1, m2, decay))
                steps = steps[keep]
                ids = [ids[i] for i in keep]
    return LinearModels(best_w[:, :d].contiguous(), best_w[:, d].contiguous(), best, epochs)

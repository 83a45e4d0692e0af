"""Many small linear models trained at once: SentEval's PyTorch linear probe, batched.

SentEval (Conneau & Kiela 2018; facebookresearch/SentEval ``senteval/tools/classifier.py`` and
``relatedness.py``) fits one ``nn.Linear`` per (fold, L2 value): 440 separate models for MR alone, each a
Python loop of tiny minibatch steps. :func:`fit_linear_models` trains all of a task's models as **one batched
model** -- weights ``(M, d, C)``, one ``bmm`` per minibatch for all of them -- while every model keeps what it
has in SentEval: its own training rows, minibatch order, weight decay, Adam state and early stopping.

What each model does, as SentEval does it (``PyTorchClassifier.fit`` / ``RelatednessPytorch.run``):

- **Initialisation**: ``nn.Linear(d, C)`` right after ``torch.manual_seed(seed)`` -- the same start for every model.
- **Minibatch order**: NumPy's global generator reseeded with ``seed`` when the model is built; with
  ``validation_split`` one permutation of the training rows first sets aside its first ``int(split * n)`` rows
  for early stopping, then each epoch draws one permutation of the remaining rows; batches of ``batch_size``.
- **Loss**: cross-entropy averaged over the minibatch (``loss="ce"``), or, for relatedness (Tai et al. 2015, as
  SentEval trains it), the squared error between the softmax and the target distribution averaged over
  minibatch x classes (``loss="mse"``). Both gradients are written out below (no autograd: the model is linear).
- **Adam** (``torch.optim.Adam``'s update, lr 1e-3, betas (0.9, 0.999), eps 1e-8) with ``weight_decay`` = the
  model's L2 penalty, added to the gradient of the weights *and* the bias (SentEval puts both in one group); or
  **RMSprop** (``torch.optim.RMSprop``'s defaults, lr 1e-2, alpha 0.99, eps 1e-8), SentEval's prototyping config.
- **Early stopping**: train ``epochs_per_round`` epochs, then score the validation rows (accuracy, or Pearson's r
  of the expected score for relatedness). A better score keeps a copy of the model; a score that is not better
  stops training if ``tenacity`` non-improvements were counted already, and is counted (the count is never
  reset). Rounds continue while ``epoch <= max_epoch``. The kept copy is the result.

Speed without changing any of this: models that see the same minibatches (the L2 values of one fold, whose
generators are seeded alike) form a group whose rows are gathered once per step; a group's weights are laid out
(classes, features) so that one ``bmm`` gives the logits of all its models and the softmax runs over a
non-innermost dimension; a group leaves the batch when all its models have stopped.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reproducer.errors import ReproducerError
from reproducer.runtime import default_device


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
    optimizer: str = "adam"  # "adam" (SentEval's default config) or "rmsprop" (its prototyping config)
    lr: float = 1e-3  # torch's defaults, which SentEval keeps: Adam 1e-3, RMSprop 1e-2
    betas: tuple[float, float] = (0.9, 0.999)  # Adam
    alpha: float = 0.99  # RMSprop's smoothing constant
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


class _Groups:
    """The models of a batch, grouped by the minibatches they see.

    SentEval reseeds NumPy's generator with ``seed`` for every model, so two models with the same training rows
    (e.g. the L2 values of one fold) see exactly the same minibatches: a group, whose rows are gathered once per
    step. A group's generator draws, as SentEval's does, the split permutation (if any) and then one
    permutation per epoch; groups with as many rows and the same kind of validation draw the same permutations
    (a permutation depends on its length only), so one generator serves each such stream.
    """

    def __init__(self, specs: list[LinearSpec], settings: TrainSettings):
        by_rows: dict[tuple, int] = {}
        self.members: list[list[int]] = []  # group -> model indices
        self.train: list[np.ndarray] = []  # group -> training rows (after the split)
        self.valid: list[np.ndarray] = []  # group -> validation rows
        self.stream: list[tuple] = []
        self._rng: dict[tuple, np.random.RandomState] = {}
        for m, spec in enumerate(specs):
            rows = np.asarray(spec.train, dtype=np.int64)
            valid = None if spec.valid is None else np.asarray(spec.valid, dtype=np.int64)
            key = (rows.tobytes(), None if valid is None else valid.tobytes())
            if key in by_rows:
                self.members[by_rows[key]].append(m)
                continue
            rng = np.random.RandomState(settings.seed)
            if valid is None:
                perm = rng.permutation(len(rows))
                k = int(settings.validation_split * len(rows))
                rows, valid = rows[perm[k:]], rows[perm[:k]]
            if len(rows) == 0 or len(valid) == 0:
                raise ReproducerError(f"A linear probe needs training and validation rows (got {len(rows)} and "
                                      f"{len(valid)}).")
            stream = (spec.valid is None, len(spec.train))
            self._rng.setdefault(stream, rng)
            by_rows[key] = len(self.members)
            self.members.append([m])
            self.train.append(rows)
            self.valid.append(valid)
            self.stream.append(stream)
        self.size = max(len(g) for g in self.members)

    def __len__(self) -> int:
        return len(self.members)

    def epoch_orders(self, groups: list[int], pad: int) -> np.ndarray:
        """Each group's training rows in this epoch's order, ``(len(groups), max rows)``, padded with ``pad``."""
        perms = {}
        for g in groups:
            if self.stream[g] not in perms:
                perms[self.stream[g]] = self._rng[self.stream[g]].permutation(len(self.train[g]))
        return _padded([self.train[g][perms[self.stream[g]]] for g in groups], pad)[0]


def _padded(rows: list[np.ndarray], pad: int) -> tuple[np.ndarray, np.ndarray]:
    """Row lists as one ``(len(rows), longest)`` array padded with ``pad``, and their lengths."""
    lengths = np.array([len(r) for r in rows])
    out = np.full((len(rows), lengths.max()), pad, dtype=np.int64)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out, lengths


def _initial_linear(d: int, c: int, seed: int):
    """``nn.Linear(d, c)`` built right after ``torch.manual_seed(seed)``: its (c, d) weight and (c,) bias."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        layer = torch.nn.Linear(d, c)
    return layer.weight.detach().clone(), layer.bias.detach().clone()


def _pearson(pred: np.ndarray, gold: np.ndarray) -> float:
    from scipy.stats import pearsonr

    if np.ptp(pred) == 0 or np.ptp(gold) == 0:
        return 0.0  # SentEval: NaN (constant predictions) counts as 0
    r = pearsonr(pred, gold)[0]
    return 0.0 if r != r else float(r)


def _argmax_classes(logits):
    """``logits.argmax(2)`` of ``(G, K, C, N)`` logits -- the first class of the largest logit -- by comparing the
    classes' slices in turn: the same classes, several times faster than an argmax over a dimension that is not the
    innermost one (MR's validation scoring spent 0.5 s in it)."""
    import torch

    best, which = logits[:, :, 0], torch.zeros_like(logits[:, :, 0], dtype=torch.int64)
    for j in range(1, logits.shape[2]):
        better = logits[:, :, j] > best
        best = torch.where(better, logits[:, :, j], best)
        which.masked_fill_(better, j)
    return which


_GATHER = 1 << 25  # floats gathered at once when scoring validation rows (128 MB)
#: Floats of minibatch rows a CPU step works on at once (8 MB): a slice of groups whose rows stay in the cache for
#: the step's two products, or several minibatches of them when they are small. 8 MB was the fastest of 1 to 64 MB
#: on this machine's EPYC (2 MB of L2 a core, 32 MB of L3): CR's 440 models on 4,800-d features 164 s -> 64-68 s.
_CACHE_FLOATS = 1 << 21


def fit_linear_models(x, targets, specs: list[LinearSpec], settings: TrainSettings, *, gold=None,
                      device=None) -> LinearModels:
    """Train every model of ``specs`` on rows of ``x`` (N, d) at once; see the module docstring.

    ``targets``: class ids (N,) for ``loss="ce"``; target distributions (N, C) for ``loss="mse"``, where ``gold``
    (N,) holds the scores whose Pearson correlation with the expected level decides early stopping.
    """
    import torch


    if settings.loss not in ("ce", "mse"):
        raise ReproducerError(f"Unknown loss {settings.loss!r}: 'ce' or 'mse'.")
    if settings.optimizer not in ("adam", "rmsprop"):
        raise ReproducerError(f"Unknown optimizer {settings.optimizer!r}: 'adam' or 'rmsprop'.")
    if not specs:
        raise ReproducerError("No models to train.")
    dev = default_device(device)
    x = torch.as_tensor(np.asarray(x), dtype=torch.float32)
    n, d = x.shape
    c = settings.n_classes
    pad = n  # an all-zero row that padded minibatch slots point to
    # Inputs with a constant 1 appended, so that a model is one (C, d + 1) matrix [weight, bias]: one bmm gives
    # both gradients and one Adam update moves both (SentEval decays both). The padding row is all zero.
    xs = torch.cat([torch.cat([x, torch.ones(n, 1)], 1), torch.zeros(1, d + 1)]).to(dev)
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

    groups = _Groups(specs, settings)
    k = groups.size  # models per group; a group with fewer carries unused slots (no decay, never read)
    w0, b0 = _initial_linear(d, c, settings.seed)
    # working tensors, one row per group still training: weights (G, K * C, d + 1) -- classes before features,
    # so that the softmax runs over a dimension that is not the innermost one (fast for 2 or 3 classes)
    w = torch.cat([w0, b0[:, None]], 1).to(dev).repeat(len(groups), k, 1)
    m1, m2 = torch.zeros_like(w), torch.zeros_like(w)
    decay = torch.tensor([[specs[m].l2 for m in members] + [0.0] * (k - len(members)) for members in groups.members],
                         dtype=torch.float32, device=dev).view(len(groups), k, 1, 1)
    decays = any(spec.l2 for spec in specs)  # without any (SICK-R), adding 0 * w changes no gradient: skipped
    steps = np.zeros(len(groups))  # Adam's t, per group (a group without rows in a minibatch does not step)
    live = list(range(len(groups)))  # the groups still training, in the order of the working tensors
    best_w = torch.zeros(len(specs), c, d + 1, device=dev)
    best = np.full(len(specs), -1.0)  # SentEval starts from bestaccuracy = -1 (relatedness: bestpr = -1)
    misses = np.zeros(len(specs), dtype=int)
    stopped = np.zeros(len(specs), dtype=bool)
    epochs = np.zeros(len(specs), dtype=int)
    beta1, beta2 = settings.betas
    bs = settings.batch_size

    def rmsprop_step(w4, v4, grad, stepping: np.ndarray):
        """torch.optim.RMSprop (no momentum, not centred): v = alpha v + (1 - alpha) g^2; w -= lr g / (sqrt(v) + eps);
        groups without rows in the minibatch (``stepping`` False) keep their weights and ``v``."""
        if stepping.all():
            v4.mul_(settings.alpha).addcmul_(grad, grad, value=1 - settings.alpha)
            w4.addcdiv_(grad, v4.sqrt().add_(settings.eps), value=-settings.lr)
            return
        on = torch.from_numpy(stepping).to(dev).view(-1, 1, 1, 1)
        new_v = v4.mul(settings.alpha).addcmul_(grad, grad, value=1 - settings.alpha)
        new_w = w4 - settings.lr * grad / new_v.sqrt().add_(settings.eps)
        v4.copy_(torch.where(on, new_v, v4))
        w4.copy_(torch.where(on, new_w, w4))

    def adam_step(w4, m14, m24, grad, t: np.ndarray, stepping: np.ndarray, uniform: bool, alone: bool):
        """torch.optim.Adam, each group with its own t (``t``: after this step): m1 = lerp(m1, g, 1 - b1);
        m2 = b2 m2 + (1 - b2) g^2; w -= lr / (1 - b1^t) * m1 / (sqrt(m2) / sqrt(1 - b2^t) + eps). ``uniform``: every
        live group steps, all at the same t (the usual case: scalar step sizes); else the groups without rows in this
        minibatch (``stepping`` False) keep weights and moments. ``uniform`` is decided over all live groups, and
        ``alone`` says whether one group is live, so a slice of them takes the arithmetic the whole batch would."""
        if uniform:
            t = t[0]
            m14.lerp_(grad, 1 - beta1)
            m24.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = (m24.sqrt() / math.sqrt(1 - beta2 ** t)).add_(settings.eps)
            w4.addcdiv_(m14, denom, value=-settings.lr / (1 - beta1 ** t))
            return
        tt = np.maximum(t, 1)
        step_size = torch.from_numpy((settings.lr / (1 - beta1 ** tt)).astype(np.float32)).to(dev)
        bc2_sqrt = torch.from_numpy(np.sqrt(1 - beta2 ** tt).astype(np.float32)).to(dev)
        step_size, bc2_sqrt = step_size.view(-1, 1, 1, 1), bc2_sqrt.view(-1, 1, 1, 1)
        if len(t) == 1 and not alone:
            # PyTorch divides by a one-element divisor as a multiplication by its reciprocal (another rounding); a
            # slice of one group divides as the whole batch of several did: by a divisor of the dividend's shape
            bc2_sqrt = bc2_sqrt.expand_as(m24).contiguous()
        if stepping.all():  # every group steps, at different t (after one had no rows in a minibatch): in place
            m14.lerp_(grad, 1 - beta1)
            m24.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            w4.sub_(step_size * (m14 / (m24.sqrt() / bc2_sqrt).add_(settings.eps)))
            return
        on = torch.from_numpy(stepping).to(dev).view(-1, 1, 1, 1)  # the others keep weights and moments
        new1 = m14.lerp(grad, 1 - beta1)
        new2 = m24.mul(beta2).addcmul_(grad, grad, value=1 - beta2)
        new_w = w4 - step_size * (new1 / (new2.sqrt() / bc2_sqrt).add_(settings.eps))
        m14.copy_(torch.where(on, new1, m14))
        m24.copy_(torch.where(on, new2, m24))
        w4.copy_(torch.where(on, new_w, w4))

    def train_epoch():
        """One epoch of every live group. Groups never interact within an epoch, so the batch is trained a slice of
        groups at a time -- on a CPU, slices whose minibatch rows fit in the cache (:data:`_CACHE_FLOATS`): with
        4,800-d features, gathering all 110 groups' rows of a step wrote 135 MB that the two products then read back
        from memory. What does not change within the epoch is worked out once: each minibatch's real rows per group,
        Adam's t and whether all groups step at the same t, and the rows and targets, gathered for several minibatches
        at once when they are small. The same values meet the same operations, group by group, as when all groups
        moved together (``tests/test_linear_batch.py`` checks the weights bit for bit). Slices are multiples of 8
        groups: the CPU's batched product computes small matrices in pairs, a matrix at an odd place of the batch
        with other roundings than alone (measured: (10 x 64) @ (64 x 101) products), so every group keeps its
        place's parity."""
        order = torch.from_numpy(groups.epoch_orders(live, pad)).to(dev)
        n_groups, width = order.shape
        sizes = np.array([len(groups.train[g]) for g in live])
        starts = np.arange(0, width, bs)
        lengths = np.minimum(starts + bs, width) - starts
        counts = np.clip(sizes[None, :] - starts[:, None], 0, bs)  # real rows of each minibatch, per group
        stepping = counts > 0  # (minibatch, group): the group has rows in it (else it does not step)
        t_after = steps[None, :] + np.cumsum(stepping, 0)  # Adam's t of each group after each minibatch
        uniform = (stepping.all(1) & (t_after.min(1) == t_after.max(1))).tolist()
        full = (counts.min(1) == lengths).tolist()  # no padded slot in the minibatch
        starts, lengths = starts.tolist(), lengths.tolist()
        row_floats = bs * (d + 1 + c)  # a group's minibatch: rows and targets
        per = n_groups if dev.type != "cpu" else min(n_groups, max(8, _CACHE_FLOATS // row_floats // 8 * 8))
        for g0 in range(0, n_groups, per):
            sl = slice(g0, g0 + per)
            ws = w[sl]
            ng = len(ws)
            w4, m14, m24 = (v[sl].view(ng, k, c, d + 1) for v in (w, m1, m2))
            chunk = bs * max(1, _CACHE_FLOATS // (ng * row_floats))  # rows gathered at once: whole minibatches
            for c0 in range(0, width, chunk):
                rows = order[sl, c0:c0 + chunk].reshape(-1)
                xc = xs.index_select(0, rows).view(ng, -1, d + 1)
                tc = target.index_select(0, rows).view(ng, 1, -1, c)
                for s in range(c0 // bs, (c0 + xc.shape[1] + bs - 1) // bs):
                    a, b = starts[s] - c0, lengths[s]
                    xb = xc[:, a:a + b]
                    p = torch.bmm(ws, xb.transpose(1, 2)).view(ng, k, c, b).softmax(2)
                    t = tc[:, :, a:a + b].transpose(2, 3)
                    if settings.loss == "ce":  # d CE / d logits = softmax - onehot
                        grad_z = p.sub_(t)
                    else:  # d MSE / d p = 2 (p - t) / C; through the softmax: p * (gp - <gp, p>)
                        gp = (p - t).mul_(2.0 / c)
                        grad_z = p.mul_(gp - (gp * p).sum(2, keepdim=True))
                    if full[s]:
                        grad_z.mul_(1.0 / b)  # the mean over the minibatch
                    else:  # a shorter last minibatch: padded slots carry no gradient
                        count = counts[s, sl]
                        real = np.arange(b)[None, :] < count[:, None]
                        weight = torch.from_numpy((real / np.maximum(count, 1)[:, None]).astype(np.float32)).to(dev)
                        grad_z.mul_(weight.view(ng, 1, 1, b))
                    grad = torch.bmm(grad_z.view(ng, k * c, b), xb).view(ng, k, c, d + 1)
                    if decays:
                        grad.addcmul_(decay[sl], w4)  # the optimiser's weight decay: + L2 * [weight, bias]
                    if settings.optimizer == "rmsprop":
                        rmsprop_step(w4, m24, grad, stepping[s, sl])
                    else:
                        adam_step(w4, m14, m24, grad, t_after[s, sl], stepping[s, sl], uniform[s], n_groups == 1)
        if len(starts):
            steps[:] = t_after[-1]

    def validation_scores() -> np.ndarray:
        """(live groups, K) scores on each group's validation rows."""
        rows, lengths = _padded([groups.valid[g] for g in live], pad)
        chunk = max(1, _GATHER // (rows.shape[1] * (d + 1)))
        logits = []
        for i in range(0, len(live), chunk):  # gather a few groups' rows at a time
            r = torch.from_numpy(rows[i:i + chunk]).to(dev)
            xv = xs.index_select(0, r.reshape(-1)).view(len(r), r.shape[1], d + 1)
            logits.append(torch.bmm(w[i:i + chunk], xv.transpose(1, 2)).view(len(r), k, c, -1))
        logits = torch.cat(logits)
        if settings.loss == "ce":  # accuracy: hits on each group's real rows / their number
            hits = (_argmax_classes(logits) == label_of[torch.from_numpy(rows).to(dev)][:, None]).cpu().numpy()
            real = np.arange(rows.shape[1])[None, :] < lengths[:, None]
            scores = (hits & real[:, None, :]).sum(-1) / lengths[:, None]
        else:
            expected = np.einsum("gkcn,c->gkn", logits.softmax(2).double().cpu().numpy(),
                                 np.arange(1, c + 1, dtype=np.float64))
            scores = np.zeros((len(live), k))
            for i, g in enumerate(live):
                for j in range(len(groups.members[g])):
                    scores[i, j] = _pearson(expected[i, j, :lengths[i]], gold[groups.valid[g]])
        return scores

    epoch = 0
    with torch.no_grad():
        while live and epoch <= settings.max_epoch:
            for _ in range(settings.epochs_per_round):
                train_epoch()
            epoch += settings.epochs_per_round
            scores = validation_scores()
            keep = []
            for i, g in enumerate(live):
                for j, m in enumerate(groups.members[g]):
                    if stopped[m]:
                        continue
                    epochs[m] = epoch
                    if scores[i, j] > best[m]:
                        best[m] = scores[i, j]
                        best_w[m] = w[i].view(k, c, d + 1)[j]
                    else:
                        stopped[m] = misses[m] >= settings.tenacity
                        misses[m] += 1
                if not stopped[groups.members[g]].all():
                    keep.append(i)
            if len(keep) < len(live):
                w, m1, m2, decay = (v[keep] for v in (w, m1, m2, decay))
                steps = steps[keep]
                live = [live[i] for i in keep]
    return LinearModels(best_w[:, :, :d].transpose(1, 2).contiguous(), best_w[:, :, d].contiguous(), best, epochs)

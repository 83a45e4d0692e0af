"""Training a sentence encoder *with* a task (Wieting et al. 2016, section 4.3, Eq. 13-14; Tai et al. 2015).

Unlike the frozen-encoder evaluation of :mod:`reproducer.evaluate`, here the encoder is trained end to end
with a small head on one supervised task:

- **relatedness** (SICK): ``h_× = u ⊙ v``, ``h_+ = |u − v|``, ``h_s = σ(W^(×) h_× + W^(+) h_+ + b^(h))``,
  ``p̂ = softmax(W^(p) h_s + b^(p))`` over the scores 1..K, prediction ``ŷ = rᵀp̂`` with ``r = [1 .. K]``;
  the loss is ``KL(p ‖ p̂)`` to Tai et al.'s sparse target ``p`` with ``rᵀp = y`` (Eq. 13-14);
- **entailment** (SICK): the same head with three outputs and the negative log-likelihood;
- **sentiment** (SST): ``σ(W u + b)`` then a softmax layer with two outputs, negative log-likelihood.

Regularisers (the paper's λ_s, λ_c, λ_w): ``λ_s‖head‖²`` on the classifier, ``λ_c‖W_c − A‖²`` on the
encoder's compositional parameters (``A`` = their values at construction: the *universal* parameters when
the encoder comes from PPDB training, and ``anchor="zero"`` for plain L2), ``λ_w‖W_w − W_w,initial‖²``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from reproducer.data.batches import EpochOrder, _Batch, pad, sentence_ids
from reproducer.data.loaders import load_sick, load_sst2
from reproducer.errors import ReproducerError
from reproducer.evaluate.protocols import score_distribution
from reproducer.papers.paraphrastic.objective import Snapshot, squared_distance
from reproducer.fit import Objective, fit
from reproducer.runtime import inference
from reproducer.train import Preset

TASK_CLASSES = {"relatedness": 5, "entailment": 3, "sentiment": 2}
ENTAILMENT = ("NEUTRAL", "ENTAILMENT", "CONTRADICTION")


class TaskHead(nn.Module):
    """The classifier on top of the sentence vectors: a sigmoid hidden layer, then class logits. For pair
    tasks the hidden layer reads ``u ⊙ v`` and ``|u − v|`` through two matrices (Eq. 13's ``W^(×)``, ``W^(+)``)."""

    def __init__(self, dim: int, hidden: int, classes: int, pairs: bool):
        super().__init__()
        self.pairs = pairs
        self.times = nn.Linear(dim, hidden)  # W^(×) and b^(h); for sentences: W and b
        self.plus = nn.Linear(dim, hidden, bias=False) if pairs else None  # W^(+)
        self.out = nn.Linear(hidden, classes)  # W^(p), b^(p)

    def forward(self, u: torch.Tensor, v: torch.Tensor | None = None) -> torch.Tensor:
        if self.pairs:
            if v is None:
                raise ReproducerError("A pair task needs both sentence vectors.")
            hidden = torch.sigmoid(self.times(u * v) + self.plus((u - v).abs()))
        else:
            hidden = torch.sigmoid(self.times(u))
        return self.out(hidden)


@dataclass
class LabelledBatch(_Batch):
    """Padded ids of the first (and, for pair tasks, second) sentences and the targets: class ids, or
    for relatedness the ``(B, K)`` target distributions."""

    ids1: torch.Tensor
    lengths1: torch.Tensor
    target: torch.Tensor
    ids2: torch.Tensor | None = None
    lengths2: torch.Tensor | None = None


def targets(task: str, labels) -> torch.Tensor:
    """Training targets of ``labels``: Tai et al.'s sparse distribution over 1..5 for relatedness scores,
    class ids for entailment (:data:`ENTAILMENT` order) and sentiment (0/1)."""
    if task == "relatedness":
        return torch.as_tensor(score_distribution(np.asarray(labels, dtype=float), TASK_CLASSES[task]),
                               dtype=torch.float32)
    if task == "entailment":
        return torch.as_tensor([ENTAILMENT.index(str(y).upper()) for y in labels])
    if task == "sentiment":
        return torch.as_tensor([int(y) for y in labels])
    raise ReproducerError(f"Unknown supervised task {task!r}; choose one of {', '.join(TASK_CLASSES)}.")


class SupervisedModel(nn.Module):
    """``encoder`` (a :class:`~reproducer.encoders.compositional.CompositionalEncoder`) plus a :class:`TaskHead`; ``forward(batch)``
    returns the regularised loss, :meth:`predict` the predicted score (relatedness) or class."""

    def __init__(self, encoder: nn.Module, task: str, *, hidden: int = 50, lambda_s: float = 0.0,
                 lambda_c: float = 0.0, lambda_w: float = 0.0, anchor: str = "initial", train_words: bool = True):
        super().__init__()
        if task not in TASK_CLASSES:
            raise ReproducerError(f"Unknown supervised task {task!r}; choose one of {', '.join(TASK_CLASSES)}.")
        if anchor not in ("initial", "zero"):
            raise ReproducerError(f"anchor must be 'initial' or 'zero', got {anchor!r}.")
        self.encoder, self.task = encoder, task
        self.head = TaskHead(encoder.output_dim, hidden, TASK_CLASSES[task], pairs=task != "sentiment")
        self.lambda_s, self.lambda_c, self.lambda_w = lambda_s, lambda_c, lambda_w
        encoder.embed.weight.requires_grad_(train_words)
        self.register_buffer("words_init", encoder.embed.weight.detach().clone() if lambda_w and train_words else None)
        self.anchors = Snapshot({n: p if anchor == "initial" else torch.zeros_like(p)
                                 for n, p in encoder.compositional_parameters().items()})

    def logits(self, batch) -> torch.Tensor:
        u = self.encoder(batch.ids1, batch.lengths1)
        v = self.encoder(batch.ids2, batch.lengths2) if self.head.pairs else None
        return self.head(u, v)

    def penalty(self) -> torch.Tensor:
        """``λ_s‖head‖² + λ_c‖W_c − A‖² + λ_w‖W_w − W_w,initial‖²``."""
        total = self.lambda_s * sum((p ** 2).sum() for p in self.head.parameters())
        if self.lambda_c:
            total = total + self.lambda_c * squared_distance(self.encoder.compositional_parameters(),
                                                             self.anchors.as_dict())
        if self.lambda_w and self.words_init is not None:
            total = total + self.lambda_w * squared_distance({"W_w": self.encoder.embed.weight}, {"W_w": self.words_init})
        return total

    def forward(self, batch) -> torch.Tensor:
        logits = self.logits(batch)
        if self.task == "relatedness":  # Eq. 14: KL(p ‖ p̂), averaged over the batch
            loss = F.kl_div(logits.log_softmax(-1), batch.target, reduction="batchmean")
        else:
            loss = F.cross_entropy(logits, batch.target)
        return loss + self.penalty()

    @torch.no_grad()
    def predict(self, batch) -> torch.Tensor:
        """Relatedness: ``rᵀp̂`` (a score in 1..K); otherwise the arg-max class."""
        logits = self.logits(batch)
        if self.task == "relatedness":
            levels = torch.arange(1, TASK_CLASSES["relatedness"] + 1, dtype=logits.dtype, device=logits.device)
            return logits.softmax(-1) @ levels
        return logits.argmax(-1)


class LabelledSampler:
    """Batches of labelled records, deterministic in ``(seed, step)``. ``texts`` is a list of sentences or
    of ``(a, b)`` pairs; ``labels`` the raw labels (see :func:`targets`)."""

    def __init__(self, texts: list, labels: list, vocab, task: str, batch_size: int, *, seed: int = 0,
                 lowercase: bool = True, max_len: int = 60):
        if len(texts) != len(labels) or len(texts) < batch_size:
            raise ReproducerError(f"{len(texts)} texts, {len(labels)} labels, batch of {batch_size}: need equal "
                                  "lengths and at least one batch.")

        def ids(s: str) -> np.ndarray:
            return sentence_ids(vocab, s, lowercase=lowercase, max_len=max_len)

        self.pairs = task != "sentiment"
        self.first = [ids(t[0] if self.pairs else t) for t in texts]
        self.second = [ids(t[1]) for t in texts] if self.pairs else None
        self.target = targets(task, labels)
        self.indices = EpochOrder(len(texts), batch_size, seed)
        self.steps_per_epoch = self.indices.steps_per_epoch

    def batch(self, step: int | None = None, indices: np.ndarray | None = None) -> LabelledBatch:
        """The batch of a training ``step``, or of the given record ``indices`` (e.g. to predict a split)."""
        idx = self.indices(step) if indices is None else np.asarray(indices)
        ids1, lengths1 = pad([self.first[i] for i in idx])
        batch = LabelledBatch(ids1, lengths1, self.target[torch.as_tensor(idx)])
        if self.pairs:
            batch.ids2, batch.lengths2 = pad([self.second[i] for i in idx])
        return batch


def task_data(task: str) -> dict[str, tuple[list, list]]:
    """``split -> (texts, labels)`` of a supervised task: SICK (relatedness or entailment; texts are
    ``(a, b)`` pairs) or SST-2 at the sentence level (sentiment), train / dev / test."""
    if task in ("relatedness", "entailment"):
        field = "relatedness" if task == "relatedness" else "entailment"
        return {split: ([(r.a, r.b) for r in rows], [getattr(r, field) for r in rows])
                for split, rows in load_sick().items()}
    if task == "sentiment":
        return {split: ([r.text for r in rows], [r.label for r in rows]) for split, rows in load_sst2("sentence").items()}
    raise ReproducerError(f"Unknown supervised task {task!r}; choose one of {', '.join(TASK_CLASSES)}.")


def item_outcomes(model: SupervisedModel, sampler: LabelledSampler, labels, batch_size: int = 500) -> dict:
    """``model``'s per-item outcomes on all records of ``sampler`` (:mod:`reproducer.evaluate.items`): predicted and
    gold scores (relatedness) or which records it classifies correctly."""
    from reproducer.evaluate.items import KEY, correct_items, scored_items

    device = next(model.parameters()).device
    chunks = [np.arange(i, min(i + batch_size, len(labels))) for i in range(0, len(labels), batch_size)]
    with inference(model):
        predicted = torch.cat([model.predict(sampler.batch(indices=idx).to(device)).cpu() for idx in chunks]).numpy()
    if model.task == "relatedness":
        return scored_items(predicted, np.asarray(labels, dtype=float))[KEY]
    return correct_items(predicted == targets(model.task, labels).numpy())[KEY]


#: The main metric of each supervised task (:func:`~reproducer.evaluate.items.main_score`): Pearson's r for
#: relatedness, accuracy for the classification tasks.
METRICS = {"relatedness": "pearson", "entailment": "acc", "sentiment": "acc"}


def task_score(task: str, items: dict, index=None):
    """Pearson's r × 100 (relatedness) or accuracy in % of per-item outcomes ``items`` (:func:`item_outcomes`); with
    ``index`` (resampled item indices) one value per row."""
    from reproducer.evaluate.items import main_score

    return _points(task) * main_score(METRICS[task], items, index)


def _points(task: str) -> int:
    """The scale of a task's main metric in points: Pearson's r × 100; accuracy is already in %."""
    return 100 if METRICS[task] == "pearson" else 1


def score(model: SupervisedModel, sampler: LabelledSampler, labels, batch_size: int = 500) -> float:
    """Pearson r × 100 (relatedness) or accuracy in % of ``model`` on all records of ``sampler``."""
    return float(task_score(model.task, item_outcomes(model, sampler, labels, batch_size)))


def score_replicates(task: str, items: dict, resamples: int = 1000) -> list[float]:
    """``resamples`` bootstrap replicates of a supervised test score (:func:`task_score`), resampling the test records
    with indices that depend only on the task and the record count
    (:func:`~reproducer.evaluate.uncertainty.item_replicates`): paired across models and training seeds; 4 significant
    digits."""
    from reproducer.evaluate.uncertainty import item_replicates

    replicates = _points(task) * item_replicates(METRICS[task], items, f"Table 5 {task}", resamples)
    return [float(f"{v:.4g}") for v in replicates]


class EpochTraining(Objective):
    """A :class:`SupervisedModel` as a :class:`~reproducer.fit.Objective` (variant: its task), so that Table 5's
    models train through :func:`reproducer.fit.fit` like every other model of the book: ``make()`` builds the model
    (the seed just set), ``batches`` are the training split's (a :class:`LabelledSampler`)."""

    name, variants = "supervised", {task: f"Table 5, {task}" for task in TASK_CLASSES}

    def __init__(self, make: Callable[[], SupervisedModel], batches: LabelledSampler):
        self.make, self.batches = make, batches

    def build(self, variant, preset, data, *, device, seed: int = 0):
        return self.make().to(device), None

    def sampler(self, variant, preset, data, seed: int = 0, encoder=None):
        return self.batches


def fit_supervised(make: Callable[[], SupervisedModel], task: str, vocab, data: dict, *, epochs: int = 10,
                   batch_size: int = 50, lr: float = 0.05, optimizer: str = "adagrad", seed: int = 0, device=None,
                   workdir=None, progress: bool = False, resamples: int = 1000) -> dict:
    """Train the model ``make()`` builds (a :class:`SupervisedModel` of ``task``) on ``data["train"]`` for ``epochs``
    (the paper: 10), keep the epoch with the best dev score, and report it: ``{"dev": ..., "test": ...,
    "epoch": ..., "curve": [(epoch, dev), ...], "replicates": [...]}`` (``resamples`` paired bootstrap replicates of
    the test score: :func:`score_replicates`).
    Training goes through :func:`reproducer.fit.fit` (which seeds with ``seed`` and builds the model) one epoch at a
    time, resuming from a checkpoint in ``workdir`` (a temporary folder by default), so the optimiser state carries
    over between epochs exactly as in one run."""
    import copy
    import tempfile
    from pathlib import Path

    samplers = {split: LabelledSampler(*data[split], vocab, task, min(batch_size, len(data[split][0])), seed=seed)
                for split in ("train", "dev", "test")}
    objective = EpochTraining(make, samplers["train"])
    best, curve = None, []
    with tempfile.TemporaryDirectory() as tmp:
        checkpoint = Path(workdir or tmp) / f"supervised-{task}.train.pt"
        for epoch in range(1, epochs + 1):
            preset = Preset(name=f"epoch {epoch}", lr=lr, optimizer=optimizer, clip=1e9,
                            max_steps=epoch * samplers["train"].steps_per_epoch)
            model = fit(objective, task, preset, data, checkpoint=checkpoint, seed=seed, device=device,
                        progress=progress).module
            dev = score(model, samplers["dev"], data["dev"][1])
            curve.append((epoch, dev))
            if best is None or dev > best[1]:
                best = (epoch, dev, copy.deepcopy(model.state_dict()))
    model.load_state_dict(best[2])
    items = item_outcomes(model, samplers["test"], data["test"][1])
    return {"dev": best[1], "test": float(task_score(model.task, items)), "epoch": best[0], "curve": curve,
            "replicates": score_replicates(model.task, items, resamples)}

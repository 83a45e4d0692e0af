"""Classifying a sentence's context among the other sentences of a batch: the loss Quick-Thoughts (Logeswaran & Lee
2018, section 3) and consensus maximisation (Tang & de Sa 2019, Eq. 1-2) share.

A batch is ``N`` **contiguous** sentences of the corpus. Row ``i`` of a score matrix ``(N, N)`` is a softmax over the
batch's sentences as candidates for ``i``'s context; the target of the row is uniform over its context sentences
(those within ``c`` positions in the same book), as the authors' code, and the loss is the cross-entropy to it,
reported as the KL divergence (the cross-entropy minus the targets' entropy, a constant), so that 0 is perfect::

    loss = mean_i  KL(t_i ‖ softmax(s_i)),     t_ij = 1[0 < |i − j| ≤ c, same book] / #context(i)

Each paper supplies its own scores: Quick-Thoughts ``f(s_i)ᵀ g(s_j)``
(:mod:`reproducer.papers.quick_thoughts.objective`), consensus maximisation the agreement of two views over a temperature
(:mod:`reproducer.papers.consensus.objective`).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from reproducer.errors import ReproducerError


def context_targets(positions: torch.Tensor, book_ids: torch.Tensor, context: int = 1, *,
                    include_self: bool = False) -> torch.Tensor:
    """``(N, N)`` target matrix: row ``i`` uniform over the sentences within ``context`` of ``i`` in the
    same book (all zero for a sentence with none), and ``i`` itself with ``include_self`` (consensus
    maximisation's ``|i − j| ≤ c``). Raises unless the batch is contiguous."""
    same_book = book_ids[1:] == book_ids[:-1]
    if not torch.equal(positions[1:][same_book] - positions[:-1][same_book], torch.ones_like(positions[1:][same_book])):
        raise ReproducerError("A Quick-Thoughts batch must be contiguous sentences: positions must increase by "
                              "one inside a book.")
    offset = (positions[None, :] - positions[:, None]).abs()
    mask = ((offset > 0) | include_self) & (offset <= context) & (book_ids[None, :] == book_ids[:, None])
    counts = mask.sum(dim=1, keepdim=True).clamp(min=1)
    return mask.float() / counts


def context_loss(scores: torch.Tensor, targets: torch.Tensor, *, exclude_self: bool = True) -> torch.Tensor:
    """Mean over sentences with a context of KL(targets ‖ softmax(scores)) row by row, the diagonal (a
    sentence as its own candidate) excluded unless ``exclude_self=False``: the classification over in-batch
    candidates shared by Quick-Thoughts and consensus maximisation. ``scores``: ``(N, N)``; ``targets`` from
    :func:`context_targets`."""
    if exclude_self:
        scores = scores.masked_fill(torch.eye(len(scores), dtype=torch.bool, device=scores.device), float("-inf"))
    log_p = F.log_softmax(scores, dim=1)
    has_context = targets.sum(dim=1) > 0
    if not has_context.any():
        raise ReproducerError("No sentence of the batch has a context sentence in the same book.")
    t = targets[has_context]
    kl = torch.where(t > 0, t * (torch.log(t.clamp(min=1e-30)) - log_p[has_context]), torch.zeros_like(t))
    return kl.sum(dim=1).mean()

"""Layers shared by several papers' encoders, owned by none of them.

- :func:`pool`: global poolings over time (max, mean, min, last state) — consensus maximisation's Table 2 and the
  mean-max autoencoder's Eq. 12-14 (Zhang et al. 2018).
- :func:`fixed_embedding`: a frozen table of pre-trained word vectors (consensus maximisation, the autoencoders,
  MC-QT's fixed channel).
- :func:`top_component` / :func:`remove_top_component`: removing the first principal direction of a set of
  sentence vectors (Arora et al. 2017; Tang & de Sa 2019, section 2.3).
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from reproducer.errors import ReproducerError

PARTS = ("max", "avg", "min", "last")


def top_component(z: torch.Tensor, iterations: int = 20) -> torch.Tensor:
    """The unit vector ``u`` maximising ``‖z u‖`` — the first right singular vector of ``z`` (not centred, as
    Arora et al.'s common component) — by power iteration on ``zᵀz`` (von Mises & Pollaczek-Geiringer 1929).
    Starts from the mean row, which for uncentred sentence vectors is already close. No gradient flows through
    it: the component is a statistic of the batch, removed as a constant."""
    z = z.detach()
    u = z.mean(dim=0)
    if u.norm() < 1e-12:
        u = torch.ones_like(u)
    u = u / u.norm()
    for _ in range(iterations):
        v = z.T @ (z @ u)
        norm = v.norm()
        if norm < 1e-12:  # z is zero (or orthogonal to every start): nothing to remove
            break
        u = v / norm
    return u


def remove_top_component(z: torch.Tensor, iterations: int = 20) -> torch.Tensor:
    """``z − (z u) uᵀ`` with ``u`` = :func:`top_component` of ``z`` (Arora et al. 2017, Algorithm 1, line 5)."""
    u = top_component(z, iterations)
    return z - (z @ u).unsqueeze(1) * u


def pool(states: torch.Tensor, lengths: torch.Tensor, last: torch.Tensor | None, parts: tuple[str, ...]) -> torch.Tensor:
    """Concatenated global poolings over time of ``states (B, T, d)``: ``max``, ``avg``, ``min`` over each
    sentence's own positions (padding never counts) and ``last`` (the recurrent view's final state)."""
    mask = (torch.arange(states.shape[1], device=states.device)[None, :] < lengths.to(states.device)[:, None]).unsqueeze(-1)
    out = []
    for part in parts:
        if part == "avg":
            out.append((states * mask).sum(dim=1) / lengths.clamp(min=1).to(states)[:, None])
        elif part == "max":
            out.append(states.masked_fill(~mask, float("-inf")).amax(dim=1))
        elif part == "min":
            out.append(states.masked_fill(~mask, float("inf")).amin(dim=1))
        elif part == "last":
            if last is None:
                raise ReproducerError("'last' pooling needs a recurrent view (the linear view has no last state).")
            out.append(last)
        else:
            raise ReproducerError(f"Unknown pooling {part!r}; choose from {', '.join(PARTS)}.")
    return torch.cat(out, dim=-1)


def fixed_embedding(vectors: np.ndarray | torch.Tensor) -> nn.Embedding:
    """A frozen embedding table (row ``i`` = pre-trained vector of word ``i``; row 0 the zero padding)."""
    return nn.Embedding.from_pretrained(torch.as_tensor(vectors, dtype=torch.float32), freeze=True, padding_idx=0)

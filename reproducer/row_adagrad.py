"""AdaGrad that updates only the rows a batch touched: Wieting et al. (2016)'s optimiser for PP, at the cost of the
rows it changes rather than of the whole word table.

Wieting et al. train PP (and the other paraphrastic models) with AdaGrad over the word embeddings themselves: at our
``default`` sizes a table of 69,717 words × 300 = 20.9M parameters (84 MB). ``torch.optim.Adagrad`` updates the whole
table every step -- it reads the gradient, the accumulated squares and the weights and writes two of them back, about
420 MB a step -- although a batch of 100 pairs uses at most some 2,800 of its rows (3.4 MB). That made PP's step a
memory-bound sweep over the table (0.2% of the machine's matrix-product rate; ``bench train``).

AdaGrad's update of an element whose gradient is zero is exactly nothing: the sum of squares adds ``0 * 0``, the weight
adds ``-lr * 0 / std``, a signed zero. So :class:`RowAdagrad` gathers the rows of a matrix whose gradient is not all
zero (the rows the batch used, and any that a penalty such as ``λ_w‖W − W_init‖²`` moves), applies
``torch.optim.Adagrad``'s own single-tensor arithmetic to them (``addcmul_``, ``sqrt``, ``add_``, ``addcdiv_``: elementwise,
so the same values element by element) and writes them back. The weights after every step are bit for bit those of
``torch.optim.Adagrad`` (``tests/test_row_adagrad.py``); only the rows it did not need to touch are skipped.
"""
from __future__ import annotations

import torch

#: Above this share of a matrix's rows, the whole matrix is updated as ``torch.optim.Adagrad`` does (gathering most
#: rows costs more than the sweep it saves).
DENSE_SHARE = 0.5


class RowAdagrad(torch.optim.Adagrad):
    """``torch.optim.Adagrad`` (its single-tensor update: no ``foreach``, no ``fused``) that updates a matrix's rows
    with a non-zero gradient only, on a CPU -- bit for bit the same weights and sums. Options that make a zero gradient move a
    weight (``weight_decay``, ``lr_decay``, ``maximize``) or need autograd (``differentiable``), and sparse or complex
    gradients, are left to ``torch.optim.Adagrad``'s own step."""

    def __init__(self, params, lr: float = 1e-2, **options):
        super().__init__(params, lr=lr, foreach=False, **options)

    @torch.no_grad()
    def step(self, closure=None):
        if closure is not None or any(g["weight_decay"] or g["lr_decay"] or g["maximize"] or g["differentiable"]
                                      for g in self.param_groups) or any(
                p.grad is not None and (p.grad.is_sparse or torch.is_complex(p))
                for g in self.param_groups for p in g["params"]):
            return super().step(closure)
        for group in self.param_groups:
            lr, eps = group["lr"], group["eps"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                grad, state = param.grad, self.state[param]
                state["step"] += 1
                if param.dim() != 2 or param.device.type != "cpu":
                    # not a matrix of rows, or on a GPU (counting the rows would wait for the device every step, and
                    # its memory sweeps the table in microseconds): the whole tensor, as torch updates it
                    _update(param, grad, state["sum"], lr, eps)
                    continue
                rows = grad.ne(0).any(1).nonzero().squeeze(1)  # NaN != 0: a NaN gradient is updated (and seen)
                if len(rows) > DENSE_SHARE * len(param):
                    _update(param, grad, state["sum"], lr, eps)
                    continue
                weights, sums = param.index_select(0, rows), state["sum"].index_select(0, rows)
                _update(weights, grad.index_select(0, rows), sums, lr, eps)
                param.index_copy_(0, rows, weights)
                state["sum"].index_copy_(0, rows, sums)
        return None


def _update(param: torch.Tensor, grad: torch.Tensor, state_sum: torch.Tensor, lr: float, eps: float) -> None:
    """``torch.optim.Adagrad``'s single-tensor update with ``lr_decay`` 0 (``clr = lr / (1 + (step - 1) * 0)`` is
    ``lr``), in its order of operations."""
    state_sum.addcmul_(grad, grad, value=1)
    std = state_sum.sqrt().add_(eps)
    param.addcdiv_(grad, std, value=-lr)

"""Counting useful arithmetic: how many floating-point operations a training step *needs*, so a benchmark can say
how much of the machine a model uses.

Every objective module defines ``batch_flops(model, batch)``: the training FLOPs of one batch, counting only
**non-padding** tokens (the work a perfect implementation would do), from the model's sizes and the batch's lengths.
The formulas are written next to each family's parameter count; they count multiply-adds (MACs) of the matrix
products and turn them into FLOPs with :func:`training_flops`: 2 FLOPs per MAC, and a backward pass costing twice the
forward (the usual ``6 × parameters × tokens`` rule), ``3 ×`` for the parts gradients flow through; parts computed
without gradients (e.g. Wieting et al.'s choice of negatives) count once. Element-wise work (activations, softmax,
layer norms) and embedding look-ups are not counted: they are memory-bound and small next to the products.
"""
from __future__ import annotations

import time

from torch import nn


def rnn_token_macs(module: nn.Module, part: str = "all") -> int:
    """Multiply-adds per input token of every ``nn.GRU`` / ``nn.LSTM`` inside ``module``: per direction and layer
    ``gates × H × (I + H)`` (GRU: 3 gates, LSTM: 4; ``I`` the layer's input size, ``H`` its hidden size).
    ``part="input"``: only the first layer's ``gates × H × I`` (the product with the word vectors), ``"rest"``: the
    others."""
    total = first_input = 0
    for rnn in module.modules():
        if isinstance(rnn, (nn.GRU, nn.LSTM)):
            gates = 3 if isinstance(rnn, nn.GRU) else 4
            directions = 2 if rnn.bidirectional else 1
            h = rnn.hidden_size
            for layer in range(rnn.num_layers):
                i = rnn.input_size if layer == 0 else h * directions
                total += directions * gates * h * (i + h)
            first_input += directions * gates * h * rnn.input_size
    return {"all": total, "input": first_input, "rest": total - first_input}[part]


def training_flops(macs_with_gradient: float, macs_without_gradient: float = 0.0, macs_of_fixed_inputs: float = 0.0
                   ) -> float:
    """FLOPs of a training step: ``2 × 3 × MACs`` through which gradients flow (forward + a backward of twice the
    forward: the gradients of the inputs and of the weights), ``2 × MACs`` of parts computed without gradients, and
    ``2 × 2 × MACs`` of products whose input is fixed (pre-trained word vectors: no gradient of the input)."""
    return 6.0 * macs_with_gradient + 2.0 * macs_without_gradient + 4.0 * macs_of_fixed_inputs


def sgemm_peak(n: int | None = None, repeats: int = 10, device=None, dtype: str = "float32") -> float:
    """This machine's measured matrix-multiply rate in FLOP/s: the best of ``repeats`` timings of an ``n × n`` by
    ``n × n`` ``torch.mm`` (``2n³`` FLOPs) of ``dtype`` (``"float32"``, or ``"bfloat16"``: a GPU's mixed-precision
    rate) on ``device``, after a warm-up, with the threads torch uses now. ``n``: 2048 on a CPU, 8192 on a GPU (which
    a smaller product does not fill). The denominator of "% of peak": what this process can get from the hardware,
    not the vendor's figure."""
    import torch

    device = torch.device(device or "cpu")
    n = n or (8192 if device.type == "cuda" else 2048)
    kind = getattr(torch, dtype)
    a, b = torch.randn(n, n, device=device, dtype=kind), torch.randn(n, n, device=device, dtype=kind)
    best = float("inf")
    for _ in range(repeats + 2):  # the first two warm the caches and the thread pool
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        t0 = time.perf_counter()
        torch.mm(a, b)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        best = min(best, time.perf_counter() - t0)
    return 2.0 * n ** 3 / best

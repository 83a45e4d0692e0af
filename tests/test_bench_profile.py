"""Where a training step's time goes (issue 66): ``torch.profiler`` over a few steps, the share of the time in matrix
products, and (on a GPU) the share the device sits idle: what ``bench train --profile-steps`` and the GPU plan print."""
from __future__ import annotations

import torch

from reproducer.bench import MATMUL, _profile


class _Batch:
    def __init__(self, x):
        self.x = x

    def to(self, device):
        return _Batch(self.x.to(device))


class _Wide(torch.nn.Module):
    """Two large matrix products and a cheap elementwise tail: most of a step is matrix products."""

    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(512, 1024), torch.nn.Linear(1024, 512)

    def forward(self, batch):
        return torch.tanh(self.b(torch.relu(self.a(batch.x)))).square().mean()


def test_the_profile_finds_the_matrix_products_of_a_step():
    torch.manual_seed(0)
    module, x = _Wide(), torch.randn(1024, 512)
    found = _profile(module, lambda step: _Batch(x), 3, torch.device("cpu"), first_step=0, top=5)
    assert found["steps"] == 3 and found["time"] == "cpu" and found["idle_share"] is None  # no device to sit idle
    assert found["wall_ms_per_step"] > 0 and 0 < len(found["top"]) <= 5
    shares = [op["share"] for op in found["top"]]
    assert shares == sorted(shares, reverse=True) and all(0 < v <= 1 for v in shares)
    assert 0.3 < found["matmul_share"] <= 1.0, found  # the linear layers dominate
    assert any(MATMUL.search(op["op"]) for op in found["top"])


def test_the_matrix_product_pattern_names_blas_and_cublas_kernels():
    for name in ("aten::mm", "aten::addmm", "aten::bmm", "sm90_xmma_gemm_bf16bf16_bf16f32", "ampere_sgemm_128x64_nn",
                 "cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm>", "void gemv2T_kernel"):
        assert MATMUL.search(name), name
    for name in ("aten::tanh", "aten::embedding_dense_backward", "void at::native::vectorized_elementwise_kernel",
                 "aten::add_", "Memcpy HtoD"):
        assert not MATMUL.search(name), name

"""Issue 66: PP's AdaGrad updates only the word rows a batch used, with the same weights as torch.optim.Adagrad."""
from __future__ import annotations

import pytest
import torch

from reproducer.row_adagrad import RowAdagrad


def _model(seed: int = 0):
    torch.manual_seed(seed)
    embed = torch.nn.Embedding(500, 16, padding_idx=0)
    head = torch.nn.Linear(16, 3)
    return embed, head


def _train(optimizer_class, penalty: float, steps: int = 25, **options):
    """A bag-of-words classifier whose batches use a few dozen of the 500 rows (``penalty``: λ‖E − E₀‖², which moves
    every row that has moved once); returns its weights and the optimiser's sums."""
    embed, head = _model()
    start = embed.weight.detach().clone()
    opt = optimizer_class(list(embed.parameters()) + list(head.parameters()), lr=0.05, **options)
    rng = torch.Generator().manual_seed(1)
    for _ in range(steps):
        ids = torch.randint(0, 60, (8, 6), generator=rng)  # rows 60..499 are never used
        ids[:, -1] = 0  # padding
        loss = torch.nn.functional.cross_entropy(head(embed(ids).mean(1)), torch.randint(0, 3, (8,), generator=rng))
        if penalty:
            loss = loss + penalty * (embed.weight - start).pow(2).sum()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return [p.detach().clone() for p in (embed.weight, head.weight, head.bias)], [
        opt.state[p]["sum"].clone() for p in (embed.weight, head.weight, head.bias)]


@pytest.mark.parametrize("penalty", [0.0, 1e-3])
def test_row_adagrad_is_torchs_adagrad_bit_for_bit(penalty):
    """The weights and the sums of squares after 25 steps are torch.optim.Adagrad's, bit for bit — with sparse row
    use (no penalty: 440 of 500 rows never change) and with a penalty that keeps moving every row used once."""
    ours, ours_sums = _train(RowAdagrad, penalty)
    theirs, their_sums = _train(torch.optim.Adagrad, penalty)
    for a, b in zip(ours + ours_sums, theirs + their_sums):
        assert torch.equal(a, b)
    embed, _ = _model()
    assert torch.equal(ours[0][60:], embed.weight[60:].detach())  # the rows no batch used did not move
    assert not torch.equal(ours[0][1:60], embed.weight[1:60].detach())


def test_options_that_move_unused_rows_are_torchs_own_step():
    """With weight decay a zero gradient moves a weight: RowAdagrad leaves the step to torch (same result)."""
    ours, _ = _train(RowAdagrad, 0.0, steps=5, weight_decay=1e-2)
    theirs, _ = _train(torch.optim.Adagrad, 0.0, steps=5, weight_decay=1e-2)
    assert all(torch.equal(a, b) for a, b in zip(ours, theirs))


def test_state_loads_into_torchs_adagrad():
    """A checkpoint's optimiser state is torch.optim.Adagrad's (same keys, same shapes): runs resume either way."""
    embed, head = _model()
    params = list(embed.parameters()) + list(head.parameters())
    ours = RowAdagrad(params, lr=0.05)
    torch.optim.Adagrad(params, lr=0.05).load_state_dict(ours.state_dict())

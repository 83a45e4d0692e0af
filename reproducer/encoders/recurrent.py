"""Recurrent sentence encoders: one configurable GRU module for uni- and bidirectional encoders.

Kiros et al. (2015), section 2: the encoder is a GRU over word embeddings whose last hidden state is the
sentence vector (Eq. 1-4 with the standard GRU gates). *uni-skip* is one GRU of width H; *bi-skip* a
forward and a backward GRU of width H each, their last states concatenated (2H). The same module serves
Quick-Thoughts' f and g encoders and the f view of consensus maximisation (which pools all the
hidden states at test time: :meth:`RecurrentEncoder.states`).

Initialisation (``RecurrentConfig.init``): ``"kiros"`` as Kiros et al. — recurrent matrices orthogonal,
input matrices U[-0.1, 0.1], biases 0 — or ``"xavier"`` as Quick-Thoughts — Xavier-uniform matrices,
reset and update gate biases 1. Word embeddings U[-0.1, 0.1] in both.

Parameter count (PyTorch keeps two bias vectors per GRU, ``b_ih`` and ``b_hh``):
``V*W + D * 3H(W + H + 2)`` with ``D`` = 1 or 2 directions. With ``single_bias=True`` the GRU has one bias
per gate, on the input side (as Cho et al.'s GRU and the papers' parameter counts): a constant 1 is
appended to every word vector and the GRU itself has no bias, giving ``V*W + D * 3H(W + H + 1)``
(Logeswaran & Lee 2018 count ``6H(H + W + 1) + 2VW`` for uni-QT's two encoders).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from reproducer.encoders.bundles import ConfiguredModule, savable
from reproducer.errors import ReproducerError


@dataclass(frozen=True)
class RecurrentConfig:
    """Sizes of a recurrent encoder: vocabulary V, word dimension W, hidden size H per direction."""

    vocab_size: int
    word_dim: int = 620
    hidden: int = 2400
    bidirectional: bool = False
    single_bias: bool = False
    init: str = "kiros"  # "kiros" (orthogonal recurrent, U[-0.1, 0.1]) or "xavier" (Quick-Thoughts; gate biases 1)

    @property
    def output_dim(self) -> int:
        return self.hidden * (2 if self.bidirectional else 1)

    def parameter_count(self) -> int:
        """``V*W + D * 3H(W + H + b)``: embeddings plus D GRUs with ``b`` = 2 bias vectors (PyTorch) or 1."""
        directions = 2 if self.bidirectional else 1
        v, w, h = self.vocab_size, self.word_dim, self.hidden
        return v * w + directions * 3 * h * (w + h + (1 if self.single_bias else 2))

    def to_dict(self) -> dict:
        return asdict(self)


def init_gru_(gru: nn.GRU | nn.GRUCell, scale: float = 0.1, scheme: str = "kiros", single_bias: bool = False) -> None:
    """Initialise a GRU in place, gate by gate (reset, update, candidate blocks).

    - ``"kiros"`` (Kiros et al. 2015): orthogonal recurrent blocks, U[-scale, scale] input blocks, zero biases.
    - ``"xavier"`` (Logeswaran & Lee 2018): Xavier-uniform blocks, reset and update gate biases 1, candidate 0.

    With ``single_bias`` the bias is the last column of the input matrices (see :class:`RecurrentConfig`).
    """
    if scheme not in ("kiros", "xavier"):
        raise ReproducerError(f"Unknown init scheme {scheme!r}; choose kiros or xavier.")
    with torch.no_grad():
        for name, p in gru.named_parameters():
            blocks = p.data.chunk(3, dim=0)
            if name.startswith("weight"):
                for block in blocks:
                    weights = block[:, :-1] if single_bias and name.startswith("weight_ih") else block
                    if scheme == "xavier":
                        nn.init.xavier_uniform_(weights)
                    elif name.startswith("weight_hh"):
                        nn.init.orthogonal_(weights)
                    else:
                        nn.init.uniform_(weights, -scale, scale)
            gate_biases = ([block[:, -1] for block in blocks] if single_bias and name.startswith("weight_ih")
                           else list(blocks) if name.startswith("bias") else [])
            for gate, bias in zip(("reset", "update", "candidate"), gate_biases):
                bias.fill_(1.0 if scheme == "xavier" and gate != "candidate" and "hh" not in name else 0.0)


@savable
class RecurrentEncoder(ConfiguredModule, nn.Module):
    """Token ids ``(B, T)`` and lengths ``(B,)`` -> sentence vectors ``(B, output_dim)``: the last hidden
    state of the GRU (of each direction, concatenated). Padding (id 0) never changes a vector: sequences
    are packed, so the GRU stops at each sentence's own length."""

    config_class = RecurrentConfig

    def __init__(self, config: RecurrentConfig):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.word_dim, padding_idx=0)
        self.rnn = nn.GRU(config.word_dim + config.single_bias, config.hidden, batch_first=True,
                          bidirectional=config.bidirectional, bias=not config.single_bias)
        nn.init.uniform_(self.embed.weight, -0.1, 0.1)
        with torch.no_grad():
            self.embed.weight[0].zero_()
        init_gru_(self.rnn, scheme=config.init, single_bias=config.single_bias)

    @property
    def output_dim(self) -> int:
        return self.config.output_dim

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return self.encode_embedded(self.embed(ids), lengths)

    def states(self, ids: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Every position's hidden state ``(B, T, output_dim)`` (zero beyond a sentence's length; both
        directions concatenated) and the last state ``(B, output_dim)`` as :meth:`forward` returns it."""
        out, h_n = self._run(self.embed(ids), lengths)
        states, _ = pad_packed_sequence(out, batch_first=True, total_length=ids.shape[1])
        return states, torch.cat(list(h_n), dim=-1)

    def _packed(self, x: torch.Tensor, lengths: torch.Tensor):
        if (lengths < 1).any():
            raise ReproducerError("Every sentence needs at least one token (empty sentences get <unk>).")
        if self.config.single_bias:  # the input-side bias as the weight of a constant 1 feature
            x = torch.cat([x, x.new_ones(*x.shape[:-1], 1)], dim=-1)
        return pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)

    def _run(self, x: torch.Tensor, lengths: torch.Tensor):
        return self.rnn(self._packed(x, lengths))

    def encode_embedded(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The same from word vectors ``(B, T, W)`` (used after vocabulary expansion). Training on a CPU uses
        :func:`packed_gru_last` (the same numbers, a faster backward)."""
        packed = self._packed(x, lengths)
        if torch.is_grad_enabled() and x.device.type == "cpu":
            h_n = packed_gru_last(self.rnn, packed)
        else:
            _, h_n = self.rnn(packed)  # (directions, B, H), in the original batch order
        return torch.cat(list(h_n), dim=-1)


def _gru_cell(gi: torch.Tensor, h: torch.Tensor, w_hh: torch.Tensor, b_hh: torch.Tensor | None) -> torch.Tensor:
    """One step of PyTorch's GRU (gates r, z, n) from the precomputed input part ``gi`` ``(b, 3H)``."""
    i_r, i_z, i_n = gi.chunk(3, dim=1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, dim=1)
    r, z = torch.sigmoid(i_r + h_r), torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return n + z * (h - n)


def packed_gru_last(rnn: nn.GRU, packed) -> torch.Tensor:
    """The last hidden states ``(directions, B, H)`` of a one-layer ``nn.GRU`` over a ``PackedSequence``, in the batch's
    original order: ``rnn(packed)[1]`` computed differently. The input part of every gate for every real token is one
    matrix product; the recurrence then runs over the packed time steps, each step's input part a ``split`` of that
    product. PyTorch's own CPU GRU slices the same product per step, and the backward of each slice adds a full-size
    zero-filled buffer (``n_tokens × 3H``) per time step (profiled: the ``fill_``/``add_`` of ``bench train``); the
    backward of ``split`` is one concatenation. Same parameters, same numbers (values and gradients tested to 1e-10
    in float64)."""
    if rnn.num_layers != 1:
        raise ReproducerError("packed_gru_last runs one-layer GRUs.")
    sizes = packed.batch_sizes.tolist()
    directions = []
    for suffix in ("", "_reverse")[: 2 if rnn.bidirectional else 1]:
        w_ih, w_hh = getattr(rnn, f"weight_ih_l0{suffix}"), getattr(rnn, f"weight_hh_l0{suffix}")
        b_ih, b_hh = (getattr(rnn, f"bias_ih_l0{suffix}"), getattr(rnn, f"bias_hh_l0{suffix}")) if rnn.bias else (None, None)
        gi = F.linear(packed.data, w_ih, b_ih).split(sizes)
        h = packed.data.new_zeros(sizes[-1] if suffix else sizes[0], rnn.hidden_size)
        if suffix:  # backward in time: sentences join as their last token comes; the state at t = 0 is the last
            for t in reversed(range(len(sizes))):
                if sizes[t] > len(h):
                    h = torch.cat([h, h.new_zeros(sizes[t] - len(h), rnn.hidden_size)])
                h = _gru_cell(gi[t], h, w_hh, b_hh)
            directions.append(h)
            continue
        finished = []  # forward in time: the shortest sentences (last rows) finish first
        for t, size in enumerate(sizes):
            if size < len(h):
                finished.append(h[size:])
                h = h[:size]
            h = _gru_cell(gi[t], h, w_hh, b_hh)
        directions.append(torch.cat([h, *reversed(finished)]))
    h_n = torch.stack(directions)
    return h_n if packed.unsorted_indices is None else h_n.index_select(1, packed.unsorted_indices)

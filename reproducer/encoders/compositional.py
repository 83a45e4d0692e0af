"""The six compositional architectures of Wieting et al. (2016), "Towards Universal Paraphrastic Sentence
Embeddings", section 3 — one configurable module, :class:`CompositionalEncoder`.

Every model maps a word sequence ``x = <x_1 .. x_n>`` to a vector of the word-vector size ``d`` (the paper
fixes every output size to the word dimension, 300). The word embeddings ``W_w`` are trainable and
initialised from pre-trained vectors; every other parameter is *compositional* (``W_c``).

Two shapes cover the six kinds:

- **averaging** kinds average the word vectors (Eq. 1), then apply ``k`` affine layers:
  ``"PP"`` (paragram-phrase, Eq. 1: ``k = 0``), ``"proj"`` (Eq. 2: ``W_p·avg + b``, ``k = 1``, no
  activation) and ``"DAN"`` (Iyyer et al. 2015: ``k`` = 1 or 2 layers, each ``f(W·h + b)`` with
  ``f`` = tanh or relu);
- **recurrent** kinds step a cell over the words and keep the state after each sentence's own last word:
  ``"RNN"`` (Eq. 3-4, ``f`` = tanh or relu, random weights), ``"iRNN"`` (the identity-RNN: Eq. 3 with
  ``W_x = W_h = I``, ``b = 0`` and ``f`` the identity at initialisation; the last state is divided by the
  sentence length, so that before training it *is* word averaging) and ``"LSTM"`` (Gers et al. 2003,
  Eq. 5-10, with peephole connections, ``output_gate=True`` or ``False``: without it ``h_t = tanh(c_t)``).

Peepholes (``W_ci``, ``W_cf``, ``W_co`` in Eq. 5, 6, 8) are diagonal, as in Gers et al., i.e. one
vector of size ``d`` each. Parameter counts (see :meth:`CompositionalConfig.parameter_count`), with ``V``
words of size ``d``: ``Vd`` word embeddings plus

====== =====================================================
PP     0
proj   ``d² + d``
DAN    ``L(d² + d)`` for ``L`` layers
RNN    ``2d² + d`` (``W_x``, ``W_h``, ``b``); iRNN the same
LSTM   ``4(2d² + d) + 3d`` with the output gate, ``3(2d² + d) + 2d`` without
====== =====================================================

Padding (id 0) never changes a vector: averages are masked, and a recurrent state stops changing after its
sentence's last word. The padding row of the embedding table is zero and gets no gradient.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from reproducer.encoders.bundles import ConfiguredModule, savable
from reproducer.errors import ReproducerError

AVERAGING_KINDS = ("PP", "proj", "DAN")
RECURRENT_KINDS = ("RNN", "iRNN", "LSTM")
KINDS = AVERAGING_KINDS + RECURRENT_KINDS

# The activations a kind accepts; the first is its default. "tanh" for the LSTM names its cell nonlinearity.
KIND_ACTIVATIONS = {"PP": ("identity",), "proj": ("identity",), "DAN": ("tanh", "relu"),
                    "RNN": ("tanh", "relu"), "iRNN": ("identity",), "LSTM": ("tanh",)}


def identity(x: torch.Tensor) -> torch.Tensor:
    return x


ACTIVATIONS = {"identity": identity, "tanh": torch.tanh, "relu": torch.relu}


@dataclass(frozen=True)
class CompositionalConfig:
    """One of the six architectures of Wieting et al. (2016), section 3.

    ``kind``: ``"PP"``, ``"proj"``, ``"DAN"``, ``"RNN"``, ``"iRNN"`` or ``"LSTM"``; ``vocab_size`` V and
    word dimension ``dim`` d (also the output size); ``layers``: the DAN's number of layers (1 for every
    other kind); ``activation``: ``"tanh"`` or ``"relu"`` for DAN and RNN, fixed for the others (``None``:
    the kind's default); ``output_gate``: LSTM only (Eq. 8-9, or ``h_t = tanh(c_t)`` without it).
    """

    kind: str
    vocab_size: int
    dim: int = 300
    layers: int = 1
    activation: str | None = None
    output_gate: bool = True

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ReproducerError(f"Unknown compositional model kind {self.kind!r}; choose one of {', '.join(KINDS)}.")
        if self.vocab_size < 1 or self.dim < 1:
            raise ReproducerError(f"vocab_size and dim must be positive, got {self.vocab_size} and {self.dim}.")
        allowed = KIND_ACTIVATIONS[self.kind]
        if self.activation is None:
            object.__setattr__(self, "activation", allowed[0])
        elif self.activation not in allowed:
            raise ReproducerError(f"Activation {self.activation!r} is not available for the {self.kind} model; "
                                  f"choose one of {', '.join(allowed)}.")
        if self.kind == "DAN" and self.layers < 1:
            raise ReproducerError(f"A DAN needs at least one layer, got layers={self.layers}.")
        if self.kind != "DAN" and self.layers != 1:
            raise ReproducerError(f"layers applies to the DAN only; leave it at 1 for the {self.kind} model.")
        if self.kind != "LSTM" and not self.output_gate:
            raise ReproducerError(f"output_gate applies to the LSTM only, not to the {self.kind} model.")

    @property
    def output_dim(self) -> int:
        return self.dim

    @property
    def recurrent(self) -> bool:
        return self.kind in RECURRENT_KINDS

    @property
    def affine_layers(self) -> int:
        """Affine layers after the average: 0 (PP), 1 (proj, Eq. 2) or ``layers`` (DAN); 0 for recurrent kinds."""
        return {"PP": 0, "proj": 1, "DAN": self.layers}.get(self.kind, 0)

    def compositional_parameter_count(self) -> int:
        """Size of ``W_c``, every parameter but the word embeddings (formulas in the module docstring)."""
        d = self.dim
        if self.kind in AVERAGING_KINDS:
            return self.affine_layers * (d * d + d)
        if self.kind in ("RNN", "iRNN"):
            return 2 * d * d + d
        gates, peepholes = (4, 3) if self.output_gate else (3, 2)
        return gates * (2 * d * d + d) + peepholes * d

    def parameter_count(self) -> int:
        """``V·d`` word embeddings plus :meth:`compositional_parameter_count`."""
        return self.vocab_size * self.dim + self.compositional_parameter_count()

    def to_dict(self) -> dict:
        return asdict(self)


class ElmanCell(nn.Module):
    """Eq. 3: ``h_t = f(W_x·x_t + W_h·h_{t-1} + b)``. ``identity_init``: ``W_x = W_h = I``, ``b = 0``
    (the identity-RNN); otherwise Xavier-uniform matrices and ``b = 0``."""

    def __init__(self, dim: int, activation: str, identity_init: bool = False):
        super().__init__()
        self.W_x = nn.Linear(dim, dim)  # W_x and the bias b
        self.W_h = nn.Linear(dim, dim, bias=False)
        self.f = ACTIVATIONS[activation]
        with torch.no_grad():
            for w in (self.W_x.weight, self.W_h.weight):
                if identity_init:
                    nn.init.eye_(w)
                else:
                    nn.init.xavier_uniform_(w)
            self.W_x.bias.zero_()

    def initial_state(self, x: torch.Tensor) -> tuple[torch.Tensor]:
        return (x.new_zeros(x.shape[0], self.W_h.in_features),)

    def project_inputs(self, x: torch.Tensor) -> torch.Tensor:
        """``W_x·x_t + b`` for every position at once: ``(B, T, d)``."""
        return self.W_x(x)

    def step(self, x_proj: torch.Tensor, state: tuple[torch.Tensor]) -> tuple[torch.Tensor]:
        (h,) = state
        return (self.f(x_proj + self.W_h(h)),)


class PeepholeLSTMCell(nn.Module):
    """Gers et al.'s LSTM (Eq. 5-9) with diagonal peepholes ``p_i, p_f, p_o``::

        i_t = σ(W_xi x_t + W_hi h_{t-1} + p_i ⊙ c_{t-1} + b_i)          (5)
        f_t = σ(W_xf x_t + W_hf h_{t-1} + p_f ⊙ c_{t-1} + b_f)          (6)
        c_t = f_t ⊙ c_{t-1} + i_t ⊙ tanh(W_xc x_t + W_hc h_{t-1} + b_c)  (7)
        o_t = σ(W_xo x_t + W_ho h_{t-1} + p_o ⊙ c_t + b_o)              (8)
        h_t = o_t ⊙ tanh(c_t)    or, without the output gate, tanh(c_t) (9)

    The gate blocks are stacked in the order i, f, c(, o). Matrices Xavier-uniform per block, biases 0,
    peepholes U[-0.1, 0.1].
    """

    def __init__(self, dim: int, output_gate: bool = True):
        super().__init__()
        self.output_gate = output_gate
        gates, peepholes = (4, 3) if output_gate else (3, 2)
        self.W_x = nn.Linear(dim, gates * dim)  # W_x{i,f,c,o} and b_{i,f,c,o}
        self.W_h = nn.Linear(dim, gates * dim, bias=False)
        self.peephole = nn.Parameter(torch.empty(peepholes, dim))  # diagonal W_ci, W_cf(, W_co)
        with torch.no_grad():
            for w in (self.W_x.weight, self.W_h.weight):
                for block in w.chunk(gates, dim=0):
                    nn.init.xavier_uniform_(block)
            self.W_x.bias.zero_()
            nn.init.uniform_(self.peephole, -0.1, 0.1)

    def initial_state(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = x.new_zeros(x.shape[0], self.W_h.in_features)
        return h, torch.zeros_like(h)

    def project_inputs(self, x: torch.Tensor) -> torch.Tensor:
        """``W_x·x_t + b`` of every gate and position at once: ``(B, T, gates·d)``."""
        return self.W_x(x)

    def step(self, x_proj: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        h, c = state
        z = (x_proj + self.W_h(h)).chunk(4 if self.output_gate else 3, dim=-1)
        i = torch.sigmoid(z[0] + self.peephole[0] * c)  # Eq. 5
        f = torch.sigmoid(z[1] + self.peephole[1] * c)  # Eq. 6
        c = f * c + i * torch.tanh(z[2])  # Eq. 7
        if not self.output_gate:
            return torch.tanh(c), c  # Eq. 9 without o_t
        o = torch.sigmoid(z[3] + self.peephole[2] * c)  # Eq. 8 (peeks at the new cell c_t)
        return o * torch.tanh(c), c  # Eq. 9


def unroll(cell: nn.Module, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Run ``cell`` over word vectors ``x`` ``(B, T, d)``; a sentence's state only changes where ``mask``
    ``(B, T)`` is true, so the result is the hidden state after its own last word (Eq. 4 and 10: ``h_{-1}``).

    The input projections are taken apart once (``unbind``) rather than indexed per step: the backward of
    ``inputs[:, t]`` zero-fills and adds a whole ``(B, T, gates·d)`` buffer at every step, the backward of ``unbind``
    is one ``stack``; adding zeros is exact, so the gradients are bit for bit the same."""
    inputs = cell.project_inputs(x).unbind(1)
    keeps = mask.unsqueeze(-1).unbind(1)
    state = cell.initial_state(x)
    for x_t, keep in zip(inputs, keeps):
        new = cell.step(x_t, state)
        state = tuple(torch.where(keep, n, old) for n, old in zip(new, state))
    return state[0]


@savable
class CompositionalEncoder(ConfiguredModule, nn.Module):
    """Token ids ``(B, T)`` (padded with 0) and lengths ``(B,)`` -> sentence vectors ``(B, d)``, for any
    kind of :class:`CompositionalConfig`. ``embeddings``: the pre-trained ``(V, d)`` word vectors that
    initialise the trainable ``W_w`` (row 0, the padding, is set to zero); ``None`` draws U[-0.1, 0.1]
    (for models whose weights are loaded afterwards)."""

    config_class = CompositionalConfig

    def __init__(self, config: CompositionalConfig, embeddings: torch.Tensor | np.ndarray | None = None):
        super().__init__()
        self.config = config
        self.output_dim = config.output_dim
        self.embed = nn.Embedding(config.vocab_size, config.dim, padding_idx=0)
        self._init_embeddings(embeddings)
        d, f = config.dim, config.activation
        self.layers = nn.ModuleList(nn.Linear(d, d) for _ in range(config.affine_layers))  # Eq. 2 / DAN
        for layer in self.layers:
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)
        self.f = ACTIVATIONS[f]
        self.cell = None
        if config.kind == "LSTM":
            self.cell = PeepholeLSTMCell(d, config.output_gate)
        elif config.recurrent:
            self.cell = ElmanCell(d, f, identity_init=config.kind == "iRNN")

    def _init_embeddings(self, embeddings) -> None:
        shape = (self.config.vocab_size, self.config.dim)
        with torch.no_grad():
            if embeddings is None:
                nn.init.uniform_(self.embed.weight, -0.1, 0.1)
            else:
                table = torch.as_tensor(embeddings)
                if tuple(table.shape) != shape:
                    raise ReproducerError(f"The pre-trained embedding matrix has shape {tuple(table.shape)}, but the "
                                          f"{self.config.kind} model expects (vocab_size, dim) = {shape}.")
                self.embed.weight.copy_(table.to(self.embed.weight.dtype))
            self.embed.weight[0].zero_()

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        mask, lengths = self._mask(ids, lengths)
        return self.encode_embedded(self.embed(ids), lengths, mask)

    def encode_embedded(self, x: torch.Tensor, lengths: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """The same from word vectors ``(B, T, d)`` (e.g. after vocabulary expansion)."""
        if mask is None:
            mask, lengths = self._mask(x[..., 0], lengths)
        n = lengths.to(x.dtype).unsqueeze(1)
        if self.cell is None:
            h = (x * mask.unsqueeze(-1)).sum(dim=1) / n  # Eq. 1: (1/n) Σ_i W_w^{x_i}
            for layer in self.layers:
                h = self.f(layer(h))  # Eq. 2 (f = identity) or a DAN layer
            return h
        h = unroll(self.cell, x, mask)  # Eq. 4 / 10: the state after the last word
        return h / n if self.config.kind == "iRNN" else h  # the iRNN divides by the number of tokens

    @staticmethod
    def _mask(ids: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(B, T)`` mask of real tokens; checks that ids and lengths agree."""
        if ids.dim() != 2 or lengths.dim() != 1 or lengths.shape[0] != ids.shape[0]:
            raise ReproducerError(f"Expected ids (B, T) and lengths (B,), got {tuple(ids.shape)} and "
                                  f"{tuple(lengths.shape)}.")
        lengths = lengths.to(ids.device)
        if len(lengths) and (lengths.min() < 1 or lengths.max() > ids.shape[1]):
            raise ReproducerError(f"Every length must be between 1 and the padded width {ids.shape[1]}, got "
                                  f"{lengths.min().item()}..{lengths.max().item()} (empty sentences get <unk>).")
        return torch.arange(ids.shape[1], device=ids.device) < lengths.unsqueeze(1), lengths

    def compositional_parameters(self) -> dict[str, nn.Parameter]:
        """``W_c``: every parameter but the word embeddings, by name (empty for PP)."""
        return {name: p for name, p in self.named_parameters() if not name.startswith("embed.")}

    def compositional_anchors(self) -> dict[str, torch.Tensor]:
        """What the λ_c regulariser of Eq. 11 pulls ``W_c`` toward: for the iRNN its initial values
        (``W_x = W_h = I``, ``b = 0``: "we regularize the identity-RNN parameters to their initial values"),
        for every other kind zero (``λ_c‖W_c‖²``)."""
        identity = self.config.kind == "iRNN"
        return {name: (torch.eye(*p.shape, dtype=p.dtype, device=p.device) if identity and p.dim() == 2
                       else torch.zeros_like(p))
                for name, p in self.compositional_parameters().items()}


def compositional_encoder(kind: str, embeddings: torch.Tensor | np.ndarray, **options) -> CompositionalEncoder:
    """A :class:`CompositionalEncoder` whose sizes come from the pre-trained ``(V, d)`` matrix;
    ``options``: ``layers``, ``activation``, ``output_gate`` of :class:`CompositionalConfig`."""
    if len(getattr(embeddings, "shape", ())) != 2:
        raise ReproducerError("embeddings must be a (vocab_size, dim) matrix of pre-trained word vectors.")
    vocab_size, dim = embeddings.shape
    return CompositionalEncoder(CompositionalConfig(kind, int(vocab_size), int(dim), **options), embeddings)

"""The skip-thought objective (Kiros et al. 2015, section 2).

An encoder maps sentence s_i to h_i; two decoders, one for the previous sentence s_{i-1} and one for the
next s_{i+1}, are GRUs *conditioned* on h_i: the encoder vector enters every gate through its own matrix
(Eq. 5-7; ``r`` reset, ``z`` update, ``h̄`` candidate)::

    r_t = σ(W_r x_{t-1} + U_r h_{t-1} + C_r h_i)
    z_t = σ(W_z x_{t-1} + U_z h_{t-1} + C_z h_i)
    h̄_t = tanh(W x_{t-1} + r_t ⊙ (U h_{t-1}) + C h_i)
    h_t = (1 - z_t) ⊙ h_{t-1} + z_t ⊙ h̄_t

(the reset gate multiplies ``U h`` as in the authors' Theano code and cuDNN). Teacher forcing: the decoder
reads the true previous words. Both decoders share the input word embeddings with the encoder and one
output matrix V (Eq. 8). Objective (Eq. 9), summed over the two neighbours::

    Σ_t log P(w_{i+1}^t | w_{i+1}^{<t}, h_i) + Σ_t log P(w_{i-1}^t | w_{i-1}^{<t}, h_i)

We minimise its negative averaged over the target tokens of each decoder (a per-token scale, so the
learning rate does not depend on sentence length).

**Deviation, optional**: on a CPU the exact softmax over a 20k vocabulary costs most of a training step.
With sampled candidates in the batch (``TripleSampler(n_sampled=K)``) the softmax runs over the batch's
target words plus K random words only (the target-vocabulary sampling of Jean et al. 2015, without
their importance correction). The exact softmax stays the default and is what evaluation perplexities use.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from reproducer.encoders.recurrent import RecurrentConfig, RecurrentEncoder


class ConditionalGRU(nn.Module):
    """A GRU decoder whose three gates also see a fixed context vector (Kiros et al., Eq. 5-7).
    ``forward(x (B, T, W), context (B, C)) -> hidden states (B, T, H)``, starting from a zero state."""

    def __init__(self, input_dim: int, hidden: int, context_dim: int):
        super().__init__()
        self.hidden = hidden
        self.w = nn.Linear(input_dim, 3 * hidden)  # W_r, W_z, W (+ bias)
        self.u = nn.Linear(hidden, 3 * hidden)  # U_r, U_z, U (+ bias)
        self.c = nn.Linear(context_dim, 3 * hidden, bias=False)  # C_r, C_z, C
        nn.init.uniform_(self.w.weight, -0.1, 0.1)
        nn.init.uniform_(self.c.weight, -0.1, 0.1)
        for block in self.u.weight.data.chunk(3, dim=0):
            nn.init.orthogonal_(block)
        nn.init.zeros_(self.w.bias)
        nn.init.zeros_(self.u.bias)

    def forward(self, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        # the input and context terms do not depend on h: one matrix product for all time steps
        gx = self.w(x) + self.c(context).unsqueeze(1)
        h = x.new_zeros(x.shape[0], self.hidden)
        states = []
        for t in range(x.shape[1]):
            xr, xz, xn = gx[:, t].chunk(3, dim=-1)
            hr, hz, hn = self.u(h).chunk(3, dim=-1)
            r = torch.sigmoid(xr + hr)
            z = torch.sigmoid(xz + hz)
            candidate = torch.tanh(xn + r * hn)
            h = (1 - z) * h + z * candidate
            states.append(h)
        return torch.stack(states, dim=1)


def skip_thought_loss(logits_prev: torch.Tensor, targets_prev: torch.Tensor, logits_next: torch.Tensor,
                      targets_next: torch.Tensor, pad_id: int = 0) -> torch.Tensor:
    """Negative log-likelihood of both neighbours (Eq. 9): mean over each decoder's target tokens,
    summed over the two decoders. ``logits`` ``(B, T, V)``, ``targets`` ``(B, T)`` with ``pad_id`` ignored."""
    def nll(logits, targets):
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=pad_id)

    return nll(logits_prev, targets_prev) + nll(logits_next, targets_next)


@dataclass(frozen=True)
class SkipThoughtConfig:
    """Encoder sizes plus the decoders' width (Kiros et al.: as wide as the encoder's output)."""

    encoder: RecurrentConfig
    decoder_hidden: int

    def parameter_count(self) -> int:
        """Encoder + 2 conditional GRUs ``3H_d(W + 1) + 3H_d(H_d + 1) + 3H_d·E`` + output ``H_d·V + V``."""
        e, w, v, hd = self.encoder.output_dim, self.encoder.word_dim, self.encoder.vocab_size, self.decoder_hidden
        decoder = 3 * hd * (w + 1) + 3 * hd * (hd + 1) + 3 * hd * e
        return self.encoder.parameter_count() + 2 * decoder + hd * v + v


class SkipThought(nn.Module):
    """Encoder, previous- and next-sentence decoders, shared embeddings and output layer.
    ``forward(batch) -> loss`` for a :class:`reproducer.data.batches.TripleBatch`."""

    def __init__(self, config: SkipThoughtConfig):
        super().__init__()
        self.config = config
        self.encoder = RecurrentEncoder(config.encoder)
        w, e, hd = config.encoder.word_dim, config.encoder.output_dim, config.decoder_hidden
        self.decode_prev = ConditionalGRU(w, hd, e)
        self.decode_next = ConditionalGRU(w, hd, e)
        self.out = nn.Linear(hd, config.encoder.vocab_size)  # V in Eq. 8, shared by both decoders
        nn.init.uniform_(self.out.weight, -0.1, 0.1)
        nn.init.zeros_(self.out.bias)

    def logits(self, decoder: ConditionalGRU, inputs: torch.Tensor, h: torch.Tensor,
               candidates: torch.Tensor | None = None) -> torch.Tensor:
        """Decoder scores over the vocabulary, or over ``candidates`` (word ids) only."""
        states = decoder(self.encoder.embed(inputs), h)
        if candidates is None:
            return self.out(states)
        return states @ self.out.weight[candidates].T + self.out.bias[candidates]

    def forward(self, batch) -> torch.Tensor:
        h = self.encoder(batch.ids, batch.lengths)
        cand = batch.candidates if batch.candidates.numel() else None
        if cand is None:
            prev_out, next_out, pad = batch.prev_out, batch.next_out, 0
        else:  # targets as positions in the candidate list; padding ignored
            prev_out, next_out = (torch.where(t == 0, -100, torch.searchsorted(cand, t))
                                  for t in (batch.prev_out, batch.next_out))
            pad = -100
        return skip_thought_loss(self.logits(self.decode_prev, batch.prev_in, h, cand), prev_out,
                                 self.logits(self.decode_next, batch.next_in, h, cand), next_out, pad_id=pad)


def fit_skip_thought(preset, tokenized, vocab, *, bidirectional: bool, checkpoint=None, evaluate=None,
                     seed: int = 0, device=None, progress: bool = True):
    """Train uni-skip (``bidirectional=False``) or bi-skip on a :class:`~reproducer.data.batches.TokenizedCorpus`
    under a :class:`~reproducer.presets.SkipThoughtPreset`; resume from ``checkpoint`` when present.

    ``evaluate(encoder)`` (a :class:`~reproducer.encoders.trained.TokenEncoder` over the current weights)
    returns scores for the training curve. Returns the trained encoder and the :class:`~reproducer.train.TrainLog`.
    """
    from reproducer.data.batches import TripleSampler
    from reproducer.encoders.trained import TokenEncoder
    from reproducer.runtime import default_device, seed_everything
    from reproducer.train import TrainConfig, train

    name = "bi-skip" if bidirectional else "uni-skip"
    seed_everything(seed)
    hidden = preset.bi_hidden if bidirectional else preset.uni_hidden
    model = SkipThought(SkipThoughtConfig(RecurrentConfig(len(vocab), preset.word_dim, hidden, bidirectional),
                                          preset.decoder_hidden))
    device = default_device(device)
    model.to(device)
    sampler = TripleSampler(tokenized, vocab, preset.batch_size, max_len=preset.max_len, seed=seed,
                            n_sampled=preset.n_sampled)
    encoder = TokenEncoder(model.encoder, vocab, name, device=device)
    log = train(model, sampler.batch, TrainConfig.from_preset(preset, seed), checkpoint=checkpoint, device=device,
                progress=progress, desc=name, evaluate=(lambda: evaluate(encoder)) if evaluate else None)
    return encoder, log

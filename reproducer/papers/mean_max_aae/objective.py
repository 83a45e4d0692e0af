"""Training and using the mean-max attention autoencoder and its variants (Zhang et al. 2018, sections 3-4).

The encoder lives in :mod:`reproducer.encoders.attention`; the decoders (Eq. 15-21: :class:`MeanMaxDecoder`, and the RAE's
:class:`LSTMDecoder`), the reconstruction loss (Eq. 22) and the whole model (:class:`MeanMaxAAE`) live here. The model
reconstructs each sentence from its own vector: batches of
unordered sentences of 4-32 tokens, each ending with ``</s>`` (:class:`~reproducer.data.batches.SentenceSampler`),
Adam at 2e-4 with gradient-norm clipping at 5, label smoothing 0.1 (the authors' code). The input reads every word
with a pre-trained vector (fixed), so encoding needs no vocabulary expansion; the decoder predicts the
``vocab_size`` most frequent corpus words, which come first in the input vocabulary
(:func:`~reproducer.data.vectors.pretrained_channel`).

At test time the sentence vector is ``z = [z_max; z_mean]`` of the sentence followed by ``</s>`` (as in training);
``normalize_halves`` L2-normalises each pooled half, as the authors' evaluation code does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from reproducer.data.batches import SentenceSampler
from reproducer.data.fixed_vectors import FixedVectorData
from reproducer.encoders.attention import (
    AAEConfig,
    FeedForward,
    Inputs,
    LSTMEncoder,
    MeanMaxEncoder,
    MultiHeadAttention,
    SentenceVector,
    token_mask,
)
from reproducer.encoders.layers import fixed_embedding
from reproducer.encoders.trained import TokenEncoder
from reproducer.errors import ReproducerError
from reproducer.flops import rnn_token_macs, training_flops
from reproducer.fit import AtWidth, Objective
from reproducer.runtime import inference
from reproducer.train import Preset

VARIANTS = {  # Table 3: name -> (family, pooling)
    "mean-max AAE": ("AAE", ("max", "avg")), "mean AAE": ("AAE", ("avg",)), "max AAE": ("AAE", ("max",)),
    "mean-max RAE": ("RAE", ("max", "avg")), "mean RAE": ("RAE", ("avg",)), "max RAE": ("RAE", ("max",)),
}


@dataclass(frozen=True, kw_only=True)
class AutoencoderPreset(Preset):
    """Zhang et al. (2018): sizes, optimiser and budget of the mean-max AAE and its variants (Table 3). The input
    reads every word with a (fixed) pre-trained vector; the decoder predicts the ``vocab_size`` most frequent corpus
    words (the paper: about 21.6k). Sizes of the recurrent variants follow ``d_model`` (see
    :mod:`reproducer.encoders.attention`)."""

    max_books: int | None
    vocab_size: int  # output vocabulary, special tokens included
    d_model: int  # paper: 2048
    d_ff: int  # paper: 4096
    heads: int = 8
    word2vec_dim: int = 300  # the fixed input vectors: our word2vec of this size (the paper: GloVe 300d)
    dropout: float = 0.0  # the authors' code: 0.5
    label_smoothing: float = 0.1  # the authors' code
    positions: str = "sinusoidal"
    batch_size: int = 64
    min_tokens: int = 4
    max_tokens: int = 32
    bucket: int = 64  # batches sorted together by length: little padding (every sentence still once per epoch)
    lr: float = 2e-4  # Adam, as the paper
    clip: float = 5.0


PRESETS: dict[str, AutoencoderPreset] = {p.name: p for p in [
    AutoencoderPreset(name="smoke", max_books=3, vocab_size=2000, d_model=16, d_ff=32, heads=2, word2vec_dim=32,
                      batch_size=16, max_steps=20, eval_steps=10, eval_config="smoke"),
    # CPU-sized: the 10k-way softmax dominates a step (about 0.2 s on 2 idle cores: 300 steps in 63-72 s); 300 steps =
    # 19,200 sentences per variant
    AutoencoderPreset(name="quick", max_books=None, vocab_size=10000, d_model=256, d_ff=512, max_steps=300,
                      eval_steps=100, eval_config="paper"),
    # quick's sizes for 5,000 batches per variant, 29% of an epoch (17,006 batches of 64): the six variants train on
    # the same batches (Table 3 compares them at equal budget), about 15 minutes each here (0.175 s a batch measured on
    # an idle machine). At 3,000 batches the mean-max AAE's held-out reconstruction accuracy (0.42 -> 0.48 -> 0.52 at
    # 2,000, 2,500, 3,000) and STS14 (0.22 -> 0.25 -> 0.28) were still rising steeply
    AutoencoderPreset(name="default", max_books=None, vocab_size=10000, d_model=256, d_ff=512, max_steps=5000,
                      eval_steps=500, eval_config="paper"),
    # one epoch of our corpus (17,006 batches of 64; the paper trained "in less than 5 hours on a single GPU" and names
    # no number of steps): 10,920 TFLOP of useful work (mean-max RAE: 9,130), 0.03 h at a
    # sustained 100 TFLOP/s, 17 h at this 2-core CPU's sgemm rate (`python -m reproducer bench epoch`)
    AutoencoderPreset(name="paper", max_books=None, vocab_size=21600, d_model=2048, d_ff=4096, dropout=0.5,
                      max_steps=17006, eval_steps=1700, eval_config="paper"),
]}


class MeanMaxDecoder(nn.Module):
    """Eq. 15-21: decoder inputs ``(B, T)`` and ``z (B, 2 d_m)`` → logits ``(B, T, V)`` and the mean-max attention
    weights ``(B, heads, T, 2)`` (key 0 is ``z_max``, key 1 ``z_mean``)."""

    def __init__(self, embed: nn.Embedding, config: AAEConfig):
        super().__init__()
        m = config.d_model
        self.config, self.inputs = config, Inputs(embed, config)
        self.self_attention = MultiHeadAttention(config.word_dim, config.word_dim, m, config.heads, config.dropout)
        self.meanmax_attention = MultiHeadAttention(m, m, m, config.heads, config.dropout)
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(m), nn.LayerNorm(m), nn.LayerNorm(m)
        self.ffn = FeedForward(m, config.d_ff)
        self.project = nn.Linear(m, config.vocab_size)

    @property
    def embed(self) -> nn.Embedding:
        return self.inputs.embed

    def forward(self, inputs: torch.Tensor, lengths: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h, weights = self.states(inputs, lengths, z)
        return self.project(h), weights

    def states(self, inputs: torch.Tensor, lengths: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The states ``(B, T, d_m)`` before the softmax layer, and the mean-max attention weights."""
        y = self.inputs(inputs)
        a, _ = self.self_attention(y, y, key_mask=token_mask(inputs, lengths), causal=True)
        a = self.norm1(a)  # Eq. 16: no residual
        memory = z.view(z.shape[0], len(self.config.pooling), -1)  # [z_max, z_mean] as two keys
        c, weights = self.meanmax_attention(a, memory)
        c = self.norm2(c + a)  # Eq. 18
        return self.norm3(self.ffn(c) + c), weights  # Eq. 20


class LSTMDecoder(nn.Module):
    """The RAE decoder (Table 3): an LSTM of ``d_m`` over the fixed word vectors whose state at each step queries the
    pooled vectors with the same mean-max attention (residual + LN), then the softmax over the output vocabulary."""

    def __init__(self, embed: nn.Embedding, config: AAEConfig):
        super().__init__()
        m = config.d_model
        self.config, self.embed, self.dropout = config, embed, nn.Dropout(config.dropout)
        self.rnn = nn.LSTM(config.word_dim, m, batch_first=True)  # causal by construction
        self.meanmax_attention = MultiHeadAttention(m, m, m, config.heads, config.dropout)
        self.norm = nn.LayerNorm(m)
        self.project = nn.Linear(m, config.vocab_size)

    def forward(self, inputs: torch.Tensor, lengths: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h, weights = self.states(inputs, lengths, z)
        return self.project(h), weights

    def states(self, inputs: torch.Tensor, lengths: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The states ``(B, T, d_m)`` before the softmax layer, and the mean-max attention weights."""
        packed = pack_padded_sequence(self.dropout(self.embed(inputs)), lengths.cpu(), batch_first=True,
                                      enforce_sorted=False)
        s = pad_packed_sequence(self.rnn(packed)[0], batch_first=True, total_length=inputs.shape[1])[0]
        c, weights = self.meanmax_attention(s, z.view(z.shape[0], len(self.config.pooling), -1))
        return self.norm(c + s), weights


def reconstruction_loss(logits: torch.Tensor, targets: torch.Tensor, label_smoothing: float = 0.0,
                        pad_id: int = 0) -> torch.Tensor:
    """Eq. 22 as a mean per target token: cross-entropy of ``logits (B, T, V)`` against ``targets (B, T)`` (or of the
    real positions only, ``(n, V)`` and ``(n,)``), padding ignored, optionally label-smoothed (the authors' code:
    0.1)."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=pad_id,
                           label_smoothing=label_smoothing)


class MeanMaxAAE(nn.Module):
    """Encoder + decoder (AAE or RAE, by ``config.family``) over one fixed word-vector table (ids of a vocabulary whose first ``vocab_size`` words are
    the output vocabulary; other words are read but predicted as ``<unk>``). ``forward(batch) -> loss`` for a
    batch with ``ids`` and ``lengths`` (the sentence, ``</s>`` included)."""

    def __init__(self, vectors, config: AAEConfig, label_smoothing: float = 0.0, bos_id: int = 2, unk_id: int = 1):
        super().__init__()
        embed = fixed_embedding(vectors)
        self.config, self.label_smoothing, self.bos_id, self.unk_id = config, label_smoothing, bos_id, unk_id
        if config.family == "AAE":
            self.encoder, self.decoder = MeanMaxEncoder(embed, config), MeanMaxDecoder(embed, config)
        else:
            self.encoder, self.decoder = LSTMEncoder(embed, config), LSTMDecoder(embed, config)

    def _teacher_forced(self, ids: torch.Tensor, lengths: torch.Tensor):
        """The decoder's states before the softmax layer, the targets they predict (0 at padding), the weights."""
        z = self.encoder(ids, lengths)
        padding = ~token_mask(ids, lengths)
        inputs = torch.cat([torch.full_like(ids[:, :1], self.bos_id), ids[:, :-1]], dim=1)  # (<s>, w_1, ..., w_{n-1})
        inputs = inputs.masked_fill(padding, 0)
        targets = torch.where(ids < self.config.vocab_size, ids, torch.full_like(ids, self.unk_id)).masked_fill(padding, 0)
        h, weights = self.decoder.states(inputs, lengths, z)
        return h, targets, weights

    def reconstruct(self, ids: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Teacher-forced logits, the targets they predict, and the mean-max attention weights."""
        h, targets, weights = self._teacher_forced(ids, lengths)
        return self.decoder.project(h), targets, weights

    def forward(self, batch) -> torch.Tensor:
        h, targets, _ = self._teacher_forced(batch.ids, batch.lengths)
        keep = targets != 0  # the softmax layer only where a token is predicted (Eq. 22 ignores padding)
        return reconstruction_loss(self.decoder.project(h[keep]), targets[keep], self.label_smoothing)


def batch_flops(model: MeanMaxAAE, batch) -> float:
    """Useful training FLOPs of a :class:`~reproducer.data.batches.SentenceBatch` (:mod:`reproducer.flops`): ``n``
    real tokens (``</s>`` included) in sentences of lengths ``L_i``, ``P`` pooled vectors of ``d_m``, output
    vocabulary ``V``. AAE, per token: the encoder's projections ``3W d_m + d_m²`` and feed-forward ``2 d_m d_f``; the
    decoder's self-attention projections ``3W d_m + d_m²``, mean-max query and output ``2 d_m²``, scores over the
    ``P`` keys ``2P d_m``, feed-forward ``2 d_m d_f`` and softmax layer ``d_m V``; per sentence the keys and values
    of the pooled vectors ``2P d_m²``, the encoder's attention ``2 L_i² d_m`` and the decoder's causal one
    ``L_i (L_i + 1) d_m``. RAE: the LSTMs (:func:`~reproducer.flops.rnn_token_macs`) instead of the encoder block and
    the decoder's self-attention and feed-forward. The products with the fixed word vectors (the projections ``3W d_m``
    of encoder and decoder, the LSTMs' input weights) need no input gradient."""
    c = model.config
    w, m, f, v, p = c.word_dim, c.d_model, c.d_ff, c.vocab_size, len(c.pooling)
    lengths = batch.lengths.to(torch.float64)
    tokens, sentences = float(lengths.sum()), len(batch)
    meanmax = tokens * (2 * m * m + 2 * p * m) + sentences * 2 * p * m * m
    if c.family == "RAE":
        macs = tokens * rnn_token_macs(model, "rest") + meanmax + tokens * m * v
        return training_flops(macs, macs_of_fixed_inputs=tokens * rnn_token_macs(model, "input"))
    block = tokens * (m * m + 2 * m * f)  # output projection and feed-forward, encoder or decoder
    attention = float((2 * lengths ** 2 + lengths * (lengths + 1)).sum()) * m
    macs = 2 * block + attention + meanmax + tokens * m * v
    return training_flops(macs, macs_of_fixed_inputs=2 * tokens * 3 * w * m)


def build_autoencoder(variant: str, preset, vectors: np.ndarray) -> MeanMaxAAE:
    """The model of a Table 3 variant under an :class:`~reproducer.presets.AutoencoderPreset`."""
    if variant not in VARIANTS:
        raise ReproducerError(f"Unknown autoencoder variant {variant!r}; choose one of {', '.join(VARIANTS)}.")
    family, pooling = VARIANTS[variant]
    config = AAEConfig(preset.vocab_size, word_dim=vectors.shape[1], d_model=preset.d_model, d_ff=preset.d_ff,
                       heads=preset.heads, dropout=preset.dropout, positions=preset.positions,
                       max_len=preset.max_tokens + 1, pooling=pooling, family=family)
    return MeanMaxAAE(vectors, config, label_smoothing=preset.label_smoothing)


def sentence_encoder(model: MeanMaxAAE, vocab, name: str, *, normalize_halves: bool = False, device=None):
    """The test-time encoder of a trained model (a :class:`~reproducer.encoders.trained.TokenEncoder` over a
    :class:`~reproducer.encoders.attention.SentenceVector`)."""
    return TokenEncoder(SentenceVector(model.encoder, vocab.eos_id, normalize_halves), vocab, name, device=device)


def aae_at_width(vocab, hidden: int, word_dim: int) -> MeanMaxAAE:
    """The mean-max AAE at ``d_m = hidden`` (``d_f = 2 hidden``, 8 heads) over fixed random ``word_dim``-d vectors of
    ``vocab`` (their values do not change the cost; the widths study)."""
    return _at_width(vocab, hidden, word_dim, "AAE")


def rae_at_width(vocab, hidden: int, word_dim: int) -> MeanMaxAAE:
    """The mean-max RAE: a BiLSTM of ``hidden / 2`` per direction and an LSTM decoder of ``hidden`` (the widths
    study)."""
    return _at_width(vocab, hidden, word_dim, "RAE")


def _at_width(vocab, hidden: int, word_dim: int, family: str) -> MeanMaxAAE:
    vectors = torch.randn(len(vocab), word_dim).numpy()
    return MeanMaxAAE(vectors, AAEConfig(len(vocab), word_dim, hidden, 2 * hidden, max_len=33, family=family))


def batches_at_width(vocab, tokenized, size: int, seed: int, n_sampled: int = 0) -> SentenceSampler:
    """Single sentences, each ended by ``</s>`` (the widths study)."""
    return SentenceSampler(tokenized, size, eos=vocab.eos_id, seed=seed)


class AutoencoderObjective(Objective):
    """The autoencoders of Table 3 for :func:`reproducer.fit.fit`, trained on unordered sentences of
    ``data.tokenized`` (ids of ``data.vocab``, the output words first; row ``i`` of ``data.vectors`` the fixed vector
    of word ``i``). The test-time encoder (also the one a training curve's ``evaluate`` sees) pools with
    ``normalize_halves`` (each pooled half scaled to unit length, as the authors' evaluation code: what chapter 05
    trains with, :attr:`fit_options`)."""

    name, presets, variants = "autoencoder", PRESETS, VARIANTS
    reads, inputs = "books", "fixed"
    fit_options = {"normalize_halves": True}
    widths = {"aae": AtWidth(aae_at_width, batches_at_width, batch=64),
              "rae": AtWidth(rae_at_width, batches_at_width, batch=64)}

    def training_data(self, variant: str, preset: AutoencoderPreset):
        """As chapter 05 builds it (the fixed word2vec vectors of
        :class:`~reproducer.data.fixed_vectors.FixedVectorData`, most frequent words first)."""
        return FixedVectorData.of(preset).training_data()

    def build(self, variant: str, preset: AutoencoderPreset, data, *, device, seed: int = 0,
              normalize_halves: bool = False):
        vocab, vectors = data.vocab, data.vectors
        if len(vectors) != len(vocab):
            raise ReproducerError(f"{len(vectors)} word vectors for a vocabulary of {len(vocab)} words.")
        if preset.vocab_size > len(vocab):
            raise ReproducerError(f"The output vocabulary ({preset.vocab_size}) exceeds the vocabulary ({len(vocab)}).")
        model = build_autoencoder(variant, preset, np.asarray(vectors, dtype=np.float32)).to(device)
        return model, sentence_encoder(model, vocab, variant, normalize_halves=normalize_halves, device=device)

    def sampler(self, variant: str, preset: AutoencoderPreset, data, seed: int = 0, encoder=None):
        """Unordered sentences bucketed by length (also the held-out batches of a training curve)."""
        return SentenceSampler(data.tokenized, preset.batch_size, eos=data.vocab.eos_id, min_tokens=preset.min_tokens,
                               max_tokens=preset.max_tokens, seed=seed, bucket=preset.bucket)

    def held_out_data(self, variant: str, preset: AutoencoderPreset, data):
        """The held-out books as ids of the training vocabulary, with the same fixed vectors."""
        return FixedVectorData.of(preset).training_data("valid")

    def batch_flops(self, module: MeanMaxAAE, batch) -> float:
        return batch_flops(module, batch)


#: The autoencoders' objective (:func:`reproducer.fit.fit`).
OBJECTIVE = AutoencoderObjective()


POOLED_NAMES = {"max": "z_max", "avg": "z_mean"}


def held_out_statistics(model: MeanMaxAAE, batches) -> dict:
    """Over held-out batches (``ids``, ``lengths``, ``</s>`` included), teacher-forced: the **reconstruction
    accuracy** (share of target tokens whose most probable word is the right one; words outside the output
    vocabulary are the target ``<unk>``) and the decoder's **mean attention weight on each pooled vector** (Zhang et al.
    Figure 2; weights averaged over heads, then over every decoding step)."""
    device = next(model.parameters()).device
    correct = tokens = 0
    weight = torch.zeros(len(model.config.pooling), device=device)
    with inference(model):
        for batch in batches:
            logits, targets, weights = model.reconstruct(batch.ids.to(device), batch.lengths.to(device))
            valid = targets != 0
            correct += int((logits.argmax(-1) == targets)[valid].sum())
            tokens += int(valid.sum())
            weight += weights.mean(1)[valid].sum(0)
    if not tokens:
        raise ReproducerError("No held-out tokens to score.")
    names = [POOLED_NAMES[p] for p in model.config.pooling]
    return {"accuracy": correct / tokens, "tokens": tokens,
            "attention": {n: float(w) / tokens for n, w in zip(names, weight)}}


def decoder_attention(model: MeanMaxAAE, ids: torch.Tensor) -> tuple[np.ndarray, list[str]]:
    """Figure 2 for one sentence (``ids`` of its words, ``</s>`` included): ``(heads, steps, k)`` weights of each
    decoding step on the pooled vectors, and their names (``z_max``, ``z_mean``)."""
    device = next(model.parameters()).device
    ids = torch.as_tensor(ids, device=device)[None]
    with inference(model):
        _, _, weights = model.reconstruct(ids, torch.tensor([ids.shape[1]], device=device))
    return weights[0].cpu().numpy(), [POOLED_NAMES[p] for p in model.config.pooling]

"""Training and using the mean-max attention autoencoder and its variants (Zhang et al. 2018, sections 3-4).

The model (:mod:`reproducer.encoders.attention`) reconstructs each sentence from its own vector: batches of
unordered sentences of 4-32 tokens, each ending with ``</s>`` (:class:`~reproducer.data.batches.SentenceSampler`),
Adam at 2e-4 with gradient-norm clipping at 5, label smoothing 0.1 (the authors' code). The input reads every word
with a pre-trained vector (fixed), so encoding needs no vocabulary expansion; the decoder predicts the
``vocab_size`` most frequent corpus words, which come first in the input vocabulary
(:func:`~reproducer.encoders.channels.pretrained_channel`).

At test time the sentence vector is ``z = [z_max; z_mean]`` of the sentence followed by ``</s>`` (as in training);
``normalize_halves`` L2-normalises each pooled half, as the authors' evaluation code does.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from reproducer.encoders.attention import AAEConfig, MeanMaxAAE
from reproducer.errors import ReproducerError

VARIANTS = {  # Table 3: name -> (family, pooling)
    "mean-max AAE": ("AAE", ("max", "avg")), "mean AAE": ("AAE", ("avg",)), "max AAE": ("AAE", ("max",)),
    "mean-max RAE": ("RAE", ("max", "avg")), "mean RAE": ("RAE", ("avg",)), "max RAE": ("RAE", ("max",)),
}


class SentenceVector(nn.Module):
    """An autoencoder's encoder as a ``(ids, lengths) -> z`` module for
    :class:`~reproducer.encoders.trained.TokenEncoder`: appends ``</s>`` to every sentence, then pools; with
    ``normalize_halves`` each pooled part is scaled to unit length."""

    def __init__(self, encoder: nn.Module, eos_id: int = 3, normalize_halves: bool = False):
        super().__init__()
        self.encoder, self.eos_id, self.normalize_halves = encoder, eos_id, normalize_halves
        self.parts = len(encoder.config.pooling)
        self.output_dim = encoder.output_dim

    @property
    def embed(self) -> nn.Embedding:
        return self.encoder.embed

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        ids = torch.cat([ids, torch.zeros_like(ids[:, :1])], dim=1)
        ids[torch.arange(len(ids), device=ids.device), lengths.to(ids.device)] = self.eos_id
        z = self.encoder(ids, lengths + 1)
        if self.normalize_halves:
            z = F.normalize(z.view(len(z), self.parts, -1), dim=-1).flatten(1)
        return z


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
    """The test-time encoder of a trained model (a :class:`~reproducer.encoders.trained.TokenEncoder`)."""
    from reproducer.encoders.trained import TokenEncoder

    return TokenEncoder(SentenceVector(model.encoder, vocab.eos_id, normalize_halves), vocab, name, device=device)


def fit_autoencoder(variant: str, preset, tokenized, vocab, vectors, *, checkpoint=None, evaluate=None, seed: int = 0,
                    normalize_halves: bool = False, device=None, progress: bool = True):
    """Train one variant on unordered sentences of a :class:`~reproducer.data.batches.TokenizedCorpus` (ids of
    ``vocab``: the output words first, row ``i`` of ``vectors`` the fixed vector of word ``i``); resume from
    ``checkpoint`` when present. ``evaluate(model, encoder) -> dict`` is called at the preset's evaluation points.
    Returns the test-time encoder (``normalize_halves`` as :class:`SentenceVector`), the model and the training log."""
    from reproducer.data.batches import SentenceSampler
    from reproducer.runtime import default_device, seed_everything
    from reproducer.train import TrainConfig, train

    if len(vectors) != len(vocab):
        raise ReproducerError(f"{len(vectors)} word vectors for a vocabulary of {len(vocab)} words.")
    if preset.vocab_size > len(vocab):
        raise ReproducerError(f"The output vocabulary ({preset.vocab_size}) exceeds the vocabulary ({len(vocab)}).")
    seed_everything(seed)
    model = build_autoencoder(variant, preset, np.asarray(vectors, dtype=np.float32))
    device = default_device(device)
    model.to(device)
    encoder = sentence_encoder(model, vocab, variant, normalize_halves=normalize_halves, device=device)
    sampler = SentenceSampler(tokenized, preset.batch_size, eos=vocab.eos_id, min_tokens=preset.min_tokens,
                              max_tokens=preset.max_tokens, seed=seed)
    log = train(model, sampler.batch, TrainConfig.from_preset(preset, seed), checkpoint=checkpoint, device=device,
                progress=progress, desc=variant, evaluate=(lambda: evaluate(model, encoder)) if evaluate else None)
    return encoder, model, log


POOLED_NAMES = {"max": "z_max", "avg": "z_mean"}


def held_out_statistics(model: MeanMaxAAE, batches) -> dict:
    """Over held-out batches (``ids``, ``lengths``, ``</s>`` included), teacher-forced: the **reconstruction
    accuracy** (share of target tokens whose most probable word is the right one; words outside the output
    vocabulary are the target ``<unk>``) and the decoder's **mean attention weight on each pooled vector** (Zhang et al.
    Figure 2; weights averaged over heads, then over every decoding step)."""
    from reproducer.runtime import inference

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
    from reproducer.runtime import inference

    device = next(model.parameters()).device
    ids = torch.as_tensor(ids, device=device)[None]
    with inference(model):
        _, _, weights = model.reconstruct(ids, torch.tensor([ids.shape[1]], device=device))
    return weights[0].cpu().numpy(), [POOLED_NAMES[p] for p in model.config.pooling]


def save_autoencoder(model: MeanMaxAAE, vocab, path, name: str) -> None:
    """An encoder bundle (the encoder's weights, sizes, vocabulary) for ``python -m reproducer evaluate --encoder``."""
    from reproducer.io import atomic_path

    bundle = {"format": "reproducer-encoder/1", "kind": "Autoencoder", "name": name, "lowercase": True,
              "config": {**model.config.to_dict(), "pooling": list(model.config.pooling)}, "vocab": list(vocab.itos),
              "state_dict": {k: t.cpu() for k, t in model.encoder.state_dict().items()}}
    with atomic_path(path) as tmp:
        torch.save(bundle, tmp)


def autoencoder_from_bundle(bundle: dict, normalize_halves: bool = False, device=None):
    """The test-time encoder of a bundle written by :func:`save_autoencoder`."""
    from reproducer.data.vocab import Vocabulary
    from reproducer.encoders.attention import LSTMEncoder, MeanMaxEncoder
    from reproducer.encoders.multiview import fixed_embedding
    from reproducer.encoders.trained import TokenEncoder
    from reproducer.runtime import default_device

    config = AAEConfig(**{**bundle["config"], "pooling": tuple(bundle["config"]["pooling"])})
    table = next(t for k, t in bundle["state_dict"].items() if k.endswith("embed.weight"))
    encoder = (MeanMaxEncoder if config.family == "AAE" else LSTMEncoder)(fixed_embedding(torch.zeros_like(table)), config)
    encoder.load_state_dict(bundle["state_dict"])
    vocab = Vocabulary(bundle["vocab"])
    device = default_device(device)
    return TokenEncoder(SentenceVector(encoder, vocab.eos_id, normalize_halves).to(device), vocab, bundle["name"],
                        device=device)

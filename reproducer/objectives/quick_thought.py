"""The Quick-Thoughts objective (Logeswaran & Lee 2018, section 3).

Instead of generating the neighbouring sentences, *choose* them: two encoders ``f`` (input) and ``g``
(output) embed every sentence of a minibatch of **contiguous** sentences; the score of a candidate is
the inner product ``c(u, v) = uᵀv`` of ``f(s)`` and ``g(s')`` (section 3, Eq. 1), and for each sentence a
softmax over the other sentences of the batch should put its mass on the true context (the previous and
next sentence: context size 3)::

    p(s_ctx | s, S_cand) = exp(c(f(s), g(s_ctx))) / Σ_{s' ∈ S_cand} exp(c(f(s), g(s')))

    loss = − Σ_s Σ_{s_ctx} log p(s_ctx | s, S_cand)

With two context sentences sharing one softmax, the best a row can do is 1/2 on each; as the authors'
code, the target of a row is uniform over its context sentences and the loss is the cross-entropy to it.
We report it as KL divergence (the cross-entropy minus the targets' entropy, a constant), so a perfect
model scores 0. The batch must be contiguous: positions increase by one inside a book (asserted), and a
sentence is never the context of a sentence from another book (the pair is masked out of the targets).
At test time a sentence's vector is ``[f(s); g(s)]``.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from reproducer.encoders.recurrent import RecurrentConfig, RecurrentEncoder
from reproducer.errors import ReproducerError


def context_targets(positions: torch.Tensor, book_ids: torch.Tensor, context: int = 1, *,
                    include_self: bool = False) -> torch.Tensor:
    """``(N, N)`` target matrix: row ``i`` uniform over the sentences within ``context`` of ``i`` in the
    same book (all zero for a sentence with none), and ``i`` itself with ``include_self`` (consensus
    maximisation's ``|i − j| ≤ c``). Raises unless the batch is contiguous."""
    same_book = book_ids[1:] == book_ids[:-1]
    if not torch.equal(positions[1:][same_book] - positions[:-1][same_book], torch.ones_like(positions[1:][same_book])):
        raise ReproducerError("A Quick-Thoughts batch must be contiguous sentences: positions must increase by "
                              "one inside a book.")
    offset = (positions[None, :] - positions[:, None]).abs()
    mask = ((offset > 0) | include_self) & (offset <= context) & (book_ids[None, :] == book_ids[:, None])
    counts = mask.sum(dim=1, keepdim=True).clamp(min=1)
    return mask.float() / counts


def quick_thought_loss(u: torch.Tensor, v: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean over sentences with a context of KL(targets ‖ softmax(u vᵀ)), a sentence never its own candidate.
    ``u = f(batch)``, ``v = g(batch)``: ``(N, d)``; ``targets`` from :func:`context_targets`."""
    return context_loss(u @ v.T, targets)


def context_loss(scores: torch.Tensor, targets: torch.Tensor, *, exclude_self: bool = True) -> torch.Tensor:
    """Mean over sentences with a context of KL(targets ‖ softmax(scores)) row by row, the diagonal (a
    sentence as its own candidate) excluded unless ``exclude_self=False``: the classification over in-batch
    candidates shared by Quick-Thoughts and consensus maximisation. ``scores``: ``(N, N)``; ``targets`` from
    :func:`context_targets`."""
    if exclude_self:
        scores = scores.masked_fill(torch.eye(len(scores), dtype=torch.bool, device=scores.device), float("-inf"))
    log_p = F.log_softmax(scores, dim=1)
    has_context = targets.sum(dim=1) > 0
    if not has_context.any():
        raise ReproducerError("No sentence of the batch has a context sentence in the same book.")
    t = targets[has_context]
    kl = torch.where(t > 0, t * (torch.log(t.clamp(min=1e-30)) - log_p[has_context]), torch.zeros_like(t))
    return kl.sum(dim=1).mean()


class QuickThought(nn.Module):
    """Two encoders ``f`` and ``g`` with separate parameters; ``forward(batch) -> loss`` for a
    :class:`~reproducer.data.batches.ContiguousBatch`. Any id-to-vector modules of equal output size
    serve: GRUs (uni-QT, bi-QT with ``bidirectional=True``), :class:`~reproducer.encoders.channels.AverageEncoder`
    (BoW-QT), :func:`~reproducer.encoders.channels.multichannel_gru` (MC-QT)."""

    def __init__(self, f: nn.Module, g: nn.Module, context: int = 1):
        super().__init__()
        if f is g:
            raise ReproducerError("f and g must be two encoders with their own parameters.")
        if f.output_dim != g.output_dim:
            raise ReproducerError(f"f and g must have the same output size, got {f.output_dim} and {g.output_dim}.")
        self.f, self.g, self.context = f, g, context

    @classmethod
    def recurrent(cls, config: RecurrentConfig, context: int = 1) -> "QuickThought":
        """uni-QT or bi-QT: two GRU encoders of the same sizes; with ``single_bias`` the parameter count is the
        paper's ``6H(H + W + 1) + 2VW`` for uni-QT."""
        return cls(RecurrentEncoder(config), RecurrentEncoder(config), context)

    def forward(self, batch) -> torch.Tensor:
        targets = context_targets(batch.positions, batch.book_ids, self.context)
        return quick_thought_loss(self.f(batch.ids, batch.lengths), self.g(batch.ids, batch.lengths), targets)


VARIANTS = ("uni-QT", "bi-QT", "BoW-QT", "MC-QT")


def build_quick_thought(variant: str, preset, vocab_size: int, pretrained=None) -> QuickThought:
    """The QT model of a variant under a :class:`~reproducer.presets.QuickThoughtPreset`. MC-QT needs
    ``pretrained = (big_vocab, vectors)`` (see :func:`~reproducer.encoders.channels.multichannel_gru`)."""
    from reproducer.encoders.channels import AverageEncoder, multichannel_gru

    if variant in ("uni-QT", "bi-QT"):
        bi = variant == "bi-QT"
        return QuickThought.recurrent(RecurrentConfig(vocab_size, preset.word_dim, preset.bi_hidden if bi else preset.hidden,
                                                      bidirectional=bi, single_bias=True, init="xavier"), preset.context)
    if variant == "BoW-QT":
        return QuickThought(AverageEncoder(vocab_size, preset.bow_dim), AverageEncoder(vocab_size, preset.bow_dim),
                            preset.context)
    if variant == "MC-QT":
        if pretrained is None:
            raise ReproducerError("MC-QT needs pre-trained vectors: pretrained=(big_vocab, vectors).")
        big_vocab, vectors = pretrained

        def channel():
            return multichannel_gru(big_vocab, vectors, vocab_size, preset.bi_hidden, preset.word_dim)

        return QuickThought(channel(), channel(), preset.context)
    raise ReproducerError(f"Unknown Quick-Thoughts variant {variant!r}; choose one of {', '.join(VARIANTS)}.")


def fit_quick_thought(variant: str, preset, tokenized, vocab, *, pretrained=None, checkpoint=None, evaluate=None,
                      seed: int = 0, device=None, progress: bool = True):
    """Train one QT variant on contiguous batches of a :class:`~reproducer.data.batches.TokenizedCorpus`
    (ids of ``vocab``; for MC-QT, ids of the big vocabulary of ``pretrained``). Returns the test-time
    encoder ``[f(s); g(s)]`` (a :class:`~reproducer.encoders.trained.ConcatEncoder`) and the training log."""
    from reproducer.data.batches import ContiguousSampler
    from reproducer.encoders.trained import ConcatEncoder, TokenEncoder
    from reproducer.runtime import default_device, seed_everything
    from reproducer.train import TrainConfig, train

    seed_everything(seed)
    model = build_quick_thought(variant, preset, len(vocab), pretrained)
    device = default_device(device)
    model.to(device)
    ids_vocab = pretrained[0] if variant == "MC-QT" else vocab
    encoder = ConcatEncoder([TokenEncoder(model.f, ids_vocab, f"{variant}.f", device=device),
                             TokenEncoder(model.g, ids_vocab, f"{variant}.g", device=device)], variant)
    sampler = ContiguousSampler(tokenized, preset.batch_size, max_len=preset.max_len, seed=seed)
    log = train(model, sampler.batch, TrainConfig.from_preset(preset, seed), checkpoint=checkpoint, device=device,
                progress=progress, desc=variant, evaluate=(lambda: evaluate(encoder)) if evaluate else None)
    return encoder, log

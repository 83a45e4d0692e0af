"""Vocabulary expansion at the level of a chapter's encoders (Kiros et al. 2015, section 2.2): a trained encoder,
or several side by side (combine-skip), with the vocabulary expanded by word vectors; and what the expansion did
(how well the linear map fits, which trained words the unseen words land near).

The map itself (least squares from word2vec space to the encoder's word space) is
:func:`reproducer.encoders.trained.expand_embeddings`."""
from __future__ import annotations

import numpy as np

from reproducer.data.vocab import SPECIALS
from reproducer.encoders.trained import ConcatEncoder


def combined(encoders: list, name: str, vectors=None):
    """``encoders`` as one encoder named ``name`` (a single one as it is, several side by side in a
    :class:`~reproducer.encoders.trained.ConcatEncoder`, e.g. combine-skip = [uni-skip; bi-skip]); with ``vectors``
    (:class:`~reproducer.data.vectors.WordVectors`) every part's vocabulary is expanded (each part keeps its name).
    The given encoders are not changed."""
    encoder = encoders[0] if len(encoders) == 1 else ConcatEncoder(encoders, name)
    return encoder.expanded(vectors, name=name)[0] if vectors is not None else encoder


def expansion_report(encoder, vectors, *, words: int = 8, among: int = 3000, k: int = 5, seed: int = 0) -> dict:
    """Expand ``encoder`` (a :class:`~reproducer.encoders.trained.TokenEncoder`) with ``vectors``; return the
    expansion's ``shared`` (words the map was fitted on), ``added`` and ``r2`` (fit of the map), and ``neighbours``:
    for ``words`` added words (drawn with ``seed`` among the first ``among`` added, i.e. the most frequent in
    ``vectors``), the ``k`` trained words nearest by cosine in the encoder's word space (special tokens excluded)."""
    expanded, report = encoder.expanded(vectors)
    trained = len(encoder.vocab)
    table = expanded.module.embed.weight.detach().cpu().numpy()
    rows = table[:trained] / np.linalg.norm(table[:trained], axis=1, keepdims=True).clip(1e-9)
    new_words = expanded.vocab.itos[trained:]
    picks = np.random.default_rng(seed).choice(min(len(new_words), among), min(words, len(new_words)), replace=False)
    neighbours = {}
    for word in (new_words[i] for i in picks):
        v = table[expanded.vocab.stoi[word]]
        order = np.argsort(-(rows @ (v / max(np.linalg.norm(v), 1e-9))))
        neighbours[word] = [expanded.vocab.itos[j] for j in order if j >= len(SPECIALS)][:k]
    return {"shared": report.shared, "added": report.added, "r2": report.r2, "neighbours": neighbours}

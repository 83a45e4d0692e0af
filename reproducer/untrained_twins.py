"""Each paper's own encoder with its weights at initialisation: the untrained twin of a model a paper declares
(:mod:`reproducer.declarations`), the floor its training has to clear (Wieting & Kiela 2019 ask the question for BOREP,
random LSTMs and echo state networks, :mod:`reproducer.encoders.untrained`; here it is asked of every book's
architecture).

:func:`untrained_twin` builds model ``name`` through its family's ``fit``
(:meth:`~reproducer.declarations.Family.untrained`: the same code, preset and seed as the trained run, stopped before its first step), so the twin is always the trained
model's architecture with the trained model's initial weights. A combination (combine-skip, combine-QT) is the
concatenation of its parts' twins. Word inputs stay what the paper gives them:

- fixed pre-trained vectors (the autoencoders, consensus maximisation) and vectors the training starts from (the
  paraphrastic models) are already our word2vec at initialisation;
- learned word embeddings (skip-thought, Quick-Thoughts) are random draws at initialisation; ``word_vectors`` puts our
  word2vec in their place (each vocabulary word the vectors hold; the others keep their draw), so the twin separates
  what training adds over random words from what it adds over good ones.
"""
from __future__ import annotations

import torch

from reproducer.data.vectors import WordVectors
from reproducer.declarations import Family, Paper
from reproducer.encoders.trained import ConcatEncoder
from reproducer.errors import ReproducerError
from reproducer.fit import Fitted


def family_inputs(family: Family) -> str:
    """What ``family`` does with word vectors (:data:`reproducer.declarations.INPUTS`), as its objective declares it
    (:attr:`reproducer.fit.Objective.inputs`): ``"learned"``, ``"fixed"`` or ``"initialised"``."""
    return family.objective().inputs


def twin_name(name: str, vectors: str | None = None) -> str:
    """The name of model ``name``'s untrained twin (``vectors``: the name of the word vectors put in its learned
    embeddings): ``"<name> (untrained)"`` or ``"<name> (untrained, <vectors>)"``. The one rule: the claims read a twin
    in a seed's evidence under it (:func:`reproducer.report.claims.untrained`)."""
    return f"{name} (untrained{', ' + vectors if vectors else ''})"


def untrained_twin(name: str, preset, data, *, paper: Paper, seed: int = 0, word_vectors: WordVectors | None = None,
                   device=None):
    """Model ``name`` of ``paper`` (its declaration: the model, its parts, its family) at initialisation: its
    test-time encoder as its family builds it under ``preset`` (a :class:`~reproducer.presets.Preset` of that family;
    its budget does not matter: no step is taken) on ``data`` (what it trains on:
    :meth:`~reproducer.declarations.Family.training_data`, for its vocabulary) with ``seed``, before any step. ``word_vectors`` (learned-embedding families only) replaces the random embedding
    rows of every vocabulary word they hold. Its name is ``"<name> (untrained)"``, or ``"<name> (untrained,
    <vectors' name>)"``."""
    model = paper.model(name)
    family = paper.family(model.family)
    if word_vectors is not None and family_inputs(family) != "learned":
        raise ReproducerError(f"{name} reads {family_inputs(family)} pre-trained word vectors: at initialisation "
                              "they are our word2vec already, so there is nothing to put in their place.")
    label = twin_name(name, word_vectors.name if word_vectors is not None else None)
    if model.parts:
        return ConcatEncoder([untrained_twin(p, preset, data, paper=paper, seed=seed, word_vectors=word_vectors,
                                             device=device)
                              for p in model.parts], label)
    fitted: Fitted = family.untrained(model.variant, preset, data, seed=seed, device=device)
    encoder = fitted.encoder
    if word_vectors is not None:
        for part in encoder.encoders if isinstance(encoder, ConcatEncoder) else [encoder]:
            put_vectors(part.module.embed, part.vocab.itos, word_vectors)
    encoder.name = label
    return encoder


def put_vectors(embed: torch.nn.Embedding, words: list[str], vectors: WordVectors) -> int:
    """Overwrite row ``i`` of ``embed`` with the vector of ``words[i]`` for every word ``vectors`` holds; the number
    of rows replaced. The widths must agree."""
    if embed.embedding_dim != vectors.dim:
        raise ReproducerError(f"The word embeddings are {embed.embedding_dim}-d but {vectors.name or 'the vectors'} "
                              f"are {vectors.dim}-d: train the model with word_dim = {vectors.dim} to put them in "
                              "place.")
    rows = [(i, vectors.index[w]) for i, w in enumerate(words) if w in vectors.index]
    if rows:
        ours, theirs = map(list, zip(*rows))
        with torch.no_grad():
            embed.weight[ours] = torch.as_tensor(vectors.vectors[theirs], dtype=embed.weight.dtype,
                                                 device=embed.weight.device)
    return len(rows)

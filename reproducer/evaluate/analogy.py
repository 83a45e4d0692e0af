"""Sentence analogies mined from a corpus (Quick-Thoughts Table 6, built the way Guu et al. 2018 built theirs).

The Yelp analogy set of Logeswaran & Lee (2018) is not available, so we rebuild one:

1. **Word pairs by category** from the Google analogy questions: ``a : b :: c : d`` in section
   ``gram3-comparative`` gives the pairs ``(a, b)`` and ``(c, d)`` (e.g. *good → better*).
2. **Sentence pairs**: two corpus sentences that differ in exactly one token, where the two tokens form a
   pair of one category (*"it was a good day ." → "it was a better day ."*).
3. **Questions**: two sentence pairs of the same category with different word pairs make
   ``A : B :: C : D``; the answer is retrieved as the pool sentence whose vector is most similar (cosine)
   to ``v(C) + v(B) − v(A)``. The pool is every sentence of the mined pairs; the three query sentences
   are excluded unless ``exclude_query=False`` (the paper's Table 7 shows the model returning C).
"""
from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from sklearn.preprocessing import normalize

from reproducer.errors import ReproducerError


@dataclass(frozen=True)
class SentencePair:
    """Two corpus sentences that differ in one token, the two tokens (``words``) a word pair of ``category``."""

    category: str
    source: str  # sentence with the first word of the pair
    target: str  # the same sentence with the second word
    words: tuple[str, str]


@dataclass(frozen=True)
class SentenceAnalogy:
    """A question ``a : b :: c : d`` made of two sentence pairs of one category; ``d`` is the answer."""

    category: str
    a: str
    b: str
    c: str
    d: str


def word_pairs(analogies) -> dict[str, set[tuple[str, str]]]:
    """Category -> the word pairs of its questions (records with ``section, a, b, c, d``), lower-cased."""
    pairs: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for q in analogies:
        pairs[q.section].add((q.a.lower(), q.b.lower()))
        pairs[q.section].add((q.c.lower(), q.d.lower()))
    return dict(pairs)


def mine_pairs(sentences: list[str], pairs: dict[str, set[tuple[str, str]]], *, min_len: int = 4,
               max_len: int = 25) -> list[SentencePair]:
    """Sentence pairs differing in exactly one token whose two values form a category's word pair.
    Sentences are space-joined tokens; each distinct sentence pair is returned once per category."""
    lookup: dict[tuple[str, str], list[str]] = defaultdict(list)
    for category, ps in pairs.items():
        for a, b in ps:
            lookup[a, b].append(category)
    words = {w for ab in lookup for w in ab}
    slots: dict[tuple, list[tuple[str, str]]] = defaultdict(list)  # sentence with one word blanked -> (word, sentence)
    for s in dict.fromkeys(sentences):
        tokens = s.split(" ")
        if not min_len <= len(tokens) <= max_len:
            continue
        for i, t in enumerate(tokens):
            if t in words:
                slots[(*tokens[:i], None, *tokens[i + 1:])].append((t, s))
    found: dict[tuple[str, str, str], SentencePair] = {}
    for entries in slots.values():
        for w1, s1 in entries:
            for w2, s2 in entries:
                for category in lookup.get((w1, w2), ()):
                    found.setdefault((category, s1, s2), SentencePair(category, s1, s2, (w1, w2)))
    return list(found.values())


def make_questions(mined: list[SentencePair], *, per_category: int = 200, seed: int = 0) -> list[SentenceAnalogy]:
    """Up to ``per_category`` random questions A:B::C:D per category from two mined pairs with different
    word pairs."""
    rng = random.Random(seed)
    by_category: dict[str, list[SentencePair]] = defaultdict(list)
    for p in mined:
        by_category[p.category].append(p)
    questions = []
    for category, ps in sorted(by_category.items()):
        candidates = [(x, y) for i, x in enumerate(ps) for y in ps[i + 1:] if x.words != y.words]
        for x, y in rng.sample(candidates, min(per_category, len(candidates))):
            questions.append(SentenceAnalogy(category, x.source, x.target, y.source, y.target))
    return questions


def analogy_accuracy(encoder, questions: list[SentenceAnalogy], *, exclude_query: bool = True,
                     batch_size: int = 256) -> dict:
    """Accuracy of retrieving D by ``v(C) + v(B) − v(A)`` among every sentence of the questions, overall and
    per category, plus each question's retrieved sentence."""
    if not questions:
        raise ReproducerError("No analogy questions: mine more sentences or relax the length limits.")
    pool = list(dict.fromkeys(s for q in questions for s in (q.a, q.b, q.c, q.d)))
    index = {s: i for i, s in enumerate(pool)}
    vectors = normalize(np.asarray(encoder.encode(pool, batch_size=batch_size), dtype=np.float64))
    hits, answers = defaultdict(list), []
    for q in questions:
        query = vectors[index[q.c]] + vectors[index[q.b]] - vectors[index[q.a]]
        sims = vectors @ query
        if exclude_query:
            sims[[index[q.a], index[q.b], index[q.c]]] = -np.inf
        answer = pool[int(np.argmax(sims))]
        answers.append(answer)
        hits[q.category].append(answer == q.d)
    per_category = {c: float(np.mean(h)) for c, h in sorted(hits.items())}
    return {"accuracy": float(np.mean([x for h in hits.values() for x in h])), "per_category": per_category,
            "questions": {c: len(h) for c, h in hits.items()}, "pool": len(pool), "answers": answers}

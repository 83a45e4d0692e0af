"""Paraphrase training pairs for Wieting et al. (2016) and their minibatches.

The paper trains on PPDB XL (3M phrase pairs), which is not available here. The stand-in, stated in the
chapter: the **paraphrase** pairs of the Twitter URL corpus' *train* split (Lan et al. 2017; 11,167 pairs
labelled paraphrase by the majority of annotators) plus the pairs of PPDB 2.0's human-scored *Wikipedia*
sample (Pavlick et al. 2015) whose mean score is at least ``wiki_min_score``. The human-scored *PPDB* sample
(the "Pavlick et al." set of the paper's Table 3) stays out of training: it selects models and is a test set.
No SICK, STS, STS-B or MRPC pair is ever used for training (they are evaluation sets).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reproducer.data.batches import EpochOrder, PairBatch, pad, sentence_ids
from reproducer.data.loaders import load_ppdb_human, load_twitter_url
from reproducer.data.vocab import Vocabulary
from reproducer.errors import ReproducerError


@dataclass(frozen=True)
class TrainingPair:
    """Two phrases assumed to be paraphrases; ``score`` is the human mean score (1-5) for PPDB pairs and
    NaN for Twitter pairs (labelled paraphrase, not scored)."""

    a: str
    b: str
    score: float
    source: str  # "twitter" | "ppdb-wiki"


def training_pairs(wiki_min_score: float = 4.0, *, twitter: bool = True) -> list[TrainingPair]:
    """The stand-in for PPDB XL (see the module docstring), deduplicated, in a fixed order: PPDB-wiki pairs
    by decreasing score, then the Twitter pairs in file order."""
    wiki = sorted((p for p in load_ppdb_human("wiki") if p.score >= wiki_min_score), key=lambda p: -p.score)
    pairs = [TrainingPair(p.a, p.b, p.score, "ppdb-wiki") for p in wiki]
    if twitter:
        pairs += [TrainingPair(p.a, p.b, float("nan"), "twitter") for p in load_twitter_url()["train"] if p.label == 1]
    held_out = {(p.a.lower(), p.b.lower()) for p in load_ppdb_human("ppdb")}  # the Pavlick set is never trained on
    seen, out = set(held_out) | {(b, a) for a, b in held_out}, []
    for p in pairs:
        key = (p.a.lower(), p.b.lower())
        if p.a.strip() and p.b.strip() and p.a.lower() != p.b.lower() and key not in seen:
            seen.add(key)
            out.append(p)
    if not out:
        raise ReproducerError(f"No training pairs (PPDB-wiki score >= {wiki_min_score}, twitter={twitter}).")
    return out


class PairSampler:
    """``batch(step)``: ``batch_size`` random pairs as a :class:`~reproducer.data.batches.PairBatch`,
    deterministic in ``(seed, step)`` (one shuffled pass over the pairs per epoch), phrases tokenized and
    cut to ``max_len`` tokens."""

    def __init__(self, pairs: list[TrainingPair], vocab: Vocabulary, batch_size: int, *, max_len: int = 40,
                 seed: int = 0, lowercase: bool = True):
        if len(pairs) < max(batch_size, 2):
            raise ReproducerError(f"Only {len(pairs)} training pairs for a batch of {batch_size} (need 2 or more).")
        self.left = [sentence_ids(vocab, p.a, lowercase=lowercase, max_len=max_len) for p in pairs]
        self.right = [sentence_ids(vocab, p.b, lowercase=lowercase, max_len=max_len) for p in pairs]
        self.indices = EpochOrder(len(pairs), batch_size, seed)
        self.steps_per_epoch = self.indices.steps_per_epoch

    def batch(self, step: int) -> PairBatch:
        idx = self.indices(step)
        ids1, lengths1 = pad([self.left[i] for i in idx])
        ids2, lengths2 = pad([self.right[i] for i in idx])
        return PairBatch(ids1, lengths1, ids2, lengths2)


def nested_subsets(pairs: list[TrainingPair], order: str = "random", *, min_size: int = 10,
                   seed: int = 0) -> list[list[TrainingPair]]:
    """Wieting et al.'s Figure 1 training sets: all pairs, then halved again and again while at least
    ``min_size`` remain, each smaller set a prefix of the larger ones (so each larger set contains the
    previous one). ``order="ordered"`` keeps the given order (for :func:`training_pairs`: the highest-scored
    PPDB pairs first, as PPDB's confidence order); ``"random"`` shuffles once with ``seed``. Smallest first."""
    if order not in ("random", "ordered"):
        raise ReproducerError(f"order must be 'random' or 'ordered', got {order!r}.")
    pool = list(pairs)
    if order == "random":
        pool = [pool[i] for i in np.random.default_rng(seed).permutation(len(pool))]
    sizes, n = [], len(pool)
    while n >= min_size:
        sizes.append(n)
        n //= 2
    if not sizes:
        raise ReproducerError(f"{len(pool)} pairs: fewer than min_size={min_size}.")
    return [pool[:k] for k in reversed(sizes)]

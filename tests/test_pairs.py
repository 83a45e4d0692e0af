"""Paraphrase training pairs (the PPDB XL stand-in) and their minibatches."""
import math

import numpy as np
import pytest
import torch

from reproducer.data.pairs import PairSampler, TrainingPair, training_pairs
from reproducer.data.vocab import Vocabulary
from reproducer.errors import ReproducerError


def test_training_pairs_are_the_stated_stand_in_and_never_an_evaluation_set():
    from reproducer.data.loaders import load_mrpc, load_ppdb_human, load_sick

    pairs = training_pairs(4.0)
    wiki = [p for p in pairs if p.source == "ppdb-wiki"]
    twitter = [p for p in pairs if p.source == "twitter"]
    assert wiki and twitter and len(wiki) + len(twitter) == len(pairs)
    assert min(p.score for p in wiki) >= 4.0 and all(math.isnan(p.score) for p in twitter)
    assert [p.score for p in wiki] == sorted((p.score for p in wiki), reverse=True)
    assert len({(p.a, p.b) for p in pairs}) == len(pairs)
    assert len(training_pairs(3.0)) > len(pairs) > len(training_pairs(4.5))
    held_out = {(p.a, p.b) for p in load_ppdb_human("ppdb")}  # the Pavlick set: model selection and Table 3
    evaluation = {s for split in load_sick().values() for r in split for s in (r.a, r.b)}
    evaluation |= {s for split in load_mrpc().values() for r in split for s in (r.a, r.b)}
    assert not any((p.a, p.b) in held_out for p in pairs)
    assert not any(p.a in evaluation or p.b in evaluation for p in pairs)


def test_pair_sampler_is_deterministic_and_covers_an_epoch():
    pairs = [TrainingPair(f"w{i} x", f"w{i} y z", 4.0, "ppdb-wiki") for i in range(10)]
    vocab = Vocabulary.build([p.a for p in pairs] + [p.b for p in pairs], max_size=50)
    sampler = PairSampler(pairs, vocab, batch_size=4, seed=1)
    b = sampler.batch(0)
    assert len(b) == 4 and b.ids1.shape == (4, 2) and b.ids2.shape == (4, 3) and b.lengths2.tolist() == [3] * 4
    assert torch.equal(PairSampler(pairs, vocab, batch_size=4, seed=1).batch(0).ids1, b.ids1)
    seen = np.concatenate([sampler.indices(0), sampler.indices(1)])
    assert len(set(seen.tolist())) == 8  # no pair twice within an epoch
    with pytest.raises(ReproducerError, match="Only 10 training pairs"):
        PairSampler(pairs, vocab, batch_size=20)


def test_nested_subsets_halve_and_nest():
    from reproducer.data.pairs import nested_subsets

    pairs = [TrainingPair(f"a{i}", f"b{i}", 5.0 - i / 100, "ppdb-wiki") for i in range(100)]
    random = nested_subsets(pairs, "random", min_size=10, seed=0)
    assert [len(s) for s in random] == [12, 25, 50, 100]
    assert all(small == big[: len(small)] for small, big in zip(random, random[1:]))  # each contains the previous
    assert random[0] != pairs[:12]
    assert nested_subsets(pairs, "ordered", min_size=10)[0] == pairs[:12]  # the best-scored pairs first
    with pytest.raises(ReproducerError, match="order must be"):
        nested_subsets(pairs, "sorted")

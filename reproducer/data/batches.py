"""Training batches from the corpus: token ids in flat arrays, consecutive-sentence triples inside a book.

A batch is a pure function of ``(seed, step)``: epoch ``e`` visits the valid positions in the order of
``np.random.default_rng([seed, e]).permutation``. The trainer can therefore resume at any step with
nothing but the step number, and an interrupted run gives the same batches as an uninterrupted one.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np
import torch

from reproducer.data.tokenize import tokenize
from reproducer.data.vocab import Vocabulary
from reproducer.errors import ReproducerError


class TokenizedCorpus:
    """A corpus split as vocabulary ids: ``ids[offsets[i]:offsets[i+1]]`` is sentence ``i``."""

    def __init__(self, ids: np.ndarray, offsets: np.ndarray, book_spans: list[tuple[int, int, int]]):
        self.ids, self.offsets, self.book_spans = ids, offsets, book_spans

    @classmethod
    def from_corpus(cls, corpus, vocab: Vocabulary) -> "TokenizedCorpus":
        lengths = np.fromiter((s.count(" ") + 1 if s else 0 for s in corpus.sentences), dtype=np.int64,
                              count=len(corpus.sentences))
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        stoi, unk = vocab.stoi, vocab.unk_id
        ids = np.fromiter((stoi.get(t, unk) for s in corpus.sentences for t in s.split(" ") if s),
                          dtype=np.int32, count=int(offsets[-1]))
        return cls(ids, offsets, list(corpus.book_spans))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def sentence(self, i: int, max_len: int | None = None) -> np.ndarray:
        start, end = self.offsets[i], self.offsets[i + 1]
        if max_len is not None:
            end = min(end, start + max_len)
        return self.ids[start:end]

    def triple_centres(self) -> np.ndarray:
        """Positions ``i`` whose previous and next sentences are in the same book (never across books)."""
        centres = [np.arange(start + 1, end - 1) for _, start, end in self.book_spans if end - start >= 3]
        if not centres:
            raise ReproducerError("No book has three sentences: nothing to train on.")
        return np.concatenate(centres)


def pad(seqs: list[np.ndarray], *, bos: int | None = None, eos: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded id matrix (pad id 0) and lengths, optionally with ``bos`` before / ``eos`` after."""
    pre, post = ([bos] if bos is not None else []), ([eos] if eos is not None else [])
    rows = [pre + s.tolist() + post for s in seqs]
    lengths = torch.tensor([max(len(r), 1) for r in rows])
    out = torch.zeros(len(rows), int(lengths.max()), dtype=torch.long)
    for i, r in enumerate(rows):
        out[i, : len(r)] = torch.tensor(r, dtype=torch.long)
    return out, lengths


def sentence_ids(vocab: Vocabulary, sentence: str, *, lowercase: bool = True, max_len: int | None = None) -> np.ndarray:
    """The ids of a raw sentence's tokens, cut to ``max_len``; an empty sentence is one ``<unk>``."""
    return np.asarray(vocab.encode(tokenize(sentence, lowercase=lowercase))[:max_len] or [vocab.unk_id])


class EpochOrder:
    """``order(step)``: the ``k``-th block of ``batch_size`` items of epoch ``e``'s permutation,
    ``np.random.default_rng([seed, e]).permutation(items)`` (``items``: a count or an array of positions),
    with ``e, k = divmod(step, steps_per_epoch)``: every sampler's batches are pure functions of the step.

    **Length buckets** (``lengths``, a function from items to sizes, and ``bucket`` > 1): the permutation is cut into
    pools of ``bucket`` batches; each pool's items are sorted by size and cut into batches, which are visited in the
    order of ``np.random.default_rng([seed, e, pool]).permutation``. Every item is still seen once per epoch and a batch
    is still a pure function of the step, but its sentences have similar lengths: little padding."""

    def __init__(self, items: int | np.ndarray, batch_size: int, seed: int, *, lengths=None, bucket: int = 0):
        self.items, self.batch_size, self.seed = items, batch_size, seed
        self.lengths, self.bucket = lengths, bucket if lengths is not None else 0
        self.steps_per_epoch = (items if isinstance(items, int) else len(items)) // batch_size
        self._epoch, self._order, self._pool = -1, None, (None, None)

    def __call__(self, step: int) -> np.ndarray:
        epoch, k = divmod(step, self.steps_per_epoch)
        if epoch != self._epoch:
            self._epoch, self._order = epoch, np.random.default_rng([self.seed, epoch]).permutation(self.items)
            self._pool = (None, None)
        if self.bucket <= 1:
            return self._order[k * self.batch_size:(k + 1) * self.batch_size]
        pool, j = divmod(k, self.bucket)
        if self._pool[0] != pool:
            first = pool * self.bucket
            count = min(self.bucket, self.steps_per_epoch - first)
            members = self._order[first * self.batch_size:(first + count) * self.batch_size]
            members = members[np.argsort(self.lengths(members), kind="stable")]
            batches = members.reshape(count, self.batch_size)
            self._pool = (pool, batches[np.random.default_rng([self.seed, epoch, pool]).permutation(count)])
        return self._pool[1][j]


class _Batch:
    """Tensor fields (or ``None``) moved together to a device; ``len`` is the batch size (the first field's)."""

    def _map(self, fn):
        return type(self)(**{f.name: None if getattr(self, f.name) is None else fn(getattr(self, f.name))
                             for f in fields(self)})

    def to(self, device, non_blocking: bool = False):
        return self._map(lambda t: t.to(device, non_blocking=non_blocking))

    def pin_memory(self):
        """The batch in page-locked memory, for an asynchronous copy to a GPU."""
        return self._map(lambda t: t.pin_memory())

    def __len__(self) -> int:
        return len(getattr(self, fields(self)[0].name))

    def token_counts(self) -> tuple[int, int]:
        """``(padded, real)`` token positions of the batch's id matrices (the encoders' and decoders' inputs; pad id
        0): ``padded / real`` is the padding waste of a model that computes over whole matrices."""
        matrices = [getattr(self, f.name) for f in fields(self) if f.name in _ID_MATRICES]
        return sum(m.numel() for m in matrices), sum(int((m != 0).sum()) for m in matrices)


_ID_MATRICES = ("ids", "ids1", "ids2", "prev_in", "next_in")


@dataclass
class TripleBatch(_Batch):
    """Centre sentences (``ids``, ``lengths``) and their neighbours as decoder input/target pairs:
    ``prev_in`` = ``<s> w_1 .. w_n``, ``prev_out`` = ``w_1 .. w_n </s>`` (likewise ``next_*``).
    ``candidates``: sorted word ids of a sampled softmax (every target word of the batch plus random
    ones), or empty for the exact softmax over the whole vocabulary."""

    ids: torch.Tensor
    lengths: torch.Tensor
    prev_in: torch.Tensor
    prev_out: torch.Tensor
    next_in: torch.Tensor
    next_out: torch.Tensor
    candidates: torch.Tensor = field(default_factory=lambda: torch.empty(0, dtype=torch.long))


class TripleSampler:
    """``batch(step)``: ``batch_size`` random centre sentences with their neighbours, deterministic in
    ``(seed, step)``; sentences are cut to ``max_len`` tokens (Kiros et al.'s code used 30).
    With ``n_sampled > 0`` each batch also carries softmax candidates: its target words plus
    ``n_sampled`` words drawn uniformly from the vocabulary (also deterministic in the step)."""

    def __init__(self, corpus: TokenizedCorpus, vocab: Vocabulary, batch_size: int, *, max_len: int = 30,
                 seed: int = 0, n_sampled: int = 0, bucket: int = 0):
        self.corpus, self.batch_size, self.max_len, self.seed = corpus, batch_size, max_len, seed
        self.vocab_size, self.n_sampled = len(vocab), n_sampled
        self.bos, self.eos = vocab.bos_id, vocab.eos_id
        self.centres = corpus.triple_centres()
        if len(self.centres) < batch_size:
            raise ReproducerError(f"Only {len(self.centres)} training triples for a batch of {batch_size}.")
        sizes = np.minimum(np.diff(corpus.offsets), max_len)

        def decoded(centres: np.ndarray) -> np.ndarray:  # what the two decoders unroll: the neighbours' lengths
            return sizes[centres - 1] + sizes[centres + 1]

        self.positions = EpochOrder(self.centres, batch_size, seed, lengths=decoded, bucket=bucket)
        self.steps_per_epoch = self.positions.steps_per_epoch

    def batch(self, step: int) -> TripleBatch:
        centre = self.positions(step)
        get = self.corpus.sentence
        ids, lengths = pad([get(i, self.max_len) for i in centre])
        prev = [get(i - 1, self.max_len) for i in centre]
        nxt = [get(i + 1, self.max_len) for i in centre]
        prev_in, _ = pad(prev, bos=self.bos)
        prev_out, _ = pad(prev, eos=self.eos)
        next_in, _ = pad(nxt, bos=self.bos)
        next_out, _ = pad(nxt, eos=self.eos)
        batch = TripleBatch(ids, lengths, prev_in, prev_out, next_in, next_out)
        if self.n_sampled:
            drawn = np.random.default_rng([self.seed, step, 1]).integers(4, self.vocab_size, self.n_sampled)
            targets = torch.cat([prev_out.flatten(), next_out.flatten(), torch.from_numpy(drawn)])
            batch.candidates = torch.unique(targets[targets != 0])  # sorted; padding is never a target
        return batch


@dataclass
class ContiguousBatch(_Batch):
    """``batch_size`` consecutive sentences of the corpus (Quick-Thoughts): ids, lengths, corpus positions
    and the book of each sentence (a batch may straddle two books; the objective masks such pairs)."""

    ids: torch.Tensor
    lengths: torch.Tensor
    positions: torch.Tensor
    book_ids: torch.Tensor


class ContiguousSampler:
    """``batch(step)``: one of the corpus's consecutive blocks of ``batch_size`` sentences, blocks visited
    in the order of ``np.random.default_rng([seed, epoch]).permutation`` (deterministic in the step)."""

    def __init__(self, corpus: TokenizedCorpus, batch_size: int, *, max_len: int = 30, seed: int = 0):
        if len(corpus) < batch_size:
            raise ReproducerError(f"Only {len(corpus)} sentences for a batch of {batch_size}.")
        self.corpus, self.batch_size, self.max_len, self.seed = corpus, batch_size, max_len, seed
        self.book_of = np.zeros(len(corpus), dtype=np.int64)
        for book, start, end in corpus.book_spans:
            self.book_of[start:end] = book
        self.steps_per_epoch = len(corpus) // batch_size
        self._blocks = EpochOrder(self.steps_per_epoch, 1, seed)

    def start(self, step: int) -> int:
        return int(self._blocks(step)[0]) * self.batch_size

    def batch(self, step: int) -> ContiguousBatch:
        start = self.start(step)
        positions = np.arange(start, start + self.batch_size)
        ids, lengths = pad([self.corpus.sentence(i, self.max_len) for i in positions])
        return ContiguousBatch(ids, lengths, torch.from_numpy(positions), torch.from_numpy(self.book_of[positions]))


@dataclass
class PairBatch(_Batch):
    """``B`` phrase pairs as padded ids (pad 0) and lengths: ``x_1`` in ``ids1, lengths1``, ``x_2`` in
    ``ids2, lengths2``; ``len`` is the number of pairs."""

    ids1: torch.Tensor
    lengths1: torch.Tensor
    ids2: torch.Tensor
    lengths2: torch.Tensor


@dataclass
class SentenceBatch(_Batch):
    """``B`` single sentences as padded ids (pad 0) and lengths, each ending with ``</s>`` (autoencoders)."""

    ids: torch.Tensor
    lengths: torch.Tensor


class SentenceSampler:
    """``batch(step)``: ``batch_size`` sentences of ``min_tokens``..``max_tokens`` tokens, treated as **unordered**
    (Zhang et al. 2018: a sentence is reconstructed from itself, no context), each followed by ``eos``; epoch ``e``
    visits them in the order of :class:`EpochOrder`."""

    def __init__(self, corpus: TokenizedCorpus, batch_size: int, *, eos: int = Vocabulary.eos_id, min_tokens: int = 4,
                 max_tokens: int = 32, seed: int = 0, bucket: int = 0):
        lengths = np.diff(corpus.offsets)
        self.positions = np.flatnonzero((lengths >= min_tokens) & (lengths <= max_tokens))
        if len(self.positions) < batch_size:
            raise ReproducerError(f"Only {len(self.positions)} sentences of {min_tokens}-{max_tokens} tokens for a "
                                  f"batch of {batch_size}.")
        self.corpus, self.batch_size, self.eos = corpus, batch_size, eos
        self.order = EpochOrder(self.positions, batch_size, seed, lengths=lambda p: lengths[p], bucket=bucket)

    @property
    def steps_per_epoch(self) -> int:
        return self.order.steps_per_epoch

    def batch(self, step: int) -> SentenceBatch:
        ids, lengths = pad([self.corpus.sentence(int(i)) for i in self.order(step)], eos=self.eos)
        return SentenceBatch(ids, lengths)

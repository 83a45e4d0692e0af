"""A word vocabulary: tokens <-> ids, built from corpus counts with a size cap.

Kiros et al. (2015) and Logeswaran & Lee (2018) keep the 20,000 most frequent words; everything
else maps to ``<unk>``. Ids 0-3 are the special tokens ``<pad>`` (0, so that zero-padding is
padding), ``<unk>``, ``<s>`` and ``</s>``; words follow by decreasing count, ties broken
alphabetically so that the same corpus always gives the same ids.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Iterable, Sequence

from reproducer.errors import ReproducerError
from reproducer.files import write_json

PAD, UNK, BOS, EOS = "<pad>", "<unk>", "<s>", "</s>"
SPECIALS = (PAD, UNK, BOS, EOS)


class Vocabulary:
    """Maps tokens to ids and back. Build with :meth:`build`, persist with :meth:`save` / :meth:`load`."""

    def __init__(self, tokens: Sequence[str], counts: dict[str, int] | None = None):
        if list(tokens[: len(SPECIALS)]) != list(SPECIALS):
            raise ReproducerError(f"A vocabulary must start with the special tokens {SPECIALS}.")
        if len(set(tokens)) != len(tokens):
            raise ReproducerError("A vocabulary cannot hold the same token twice.")
        self.itos: list[str] = list(tokens)
        self.stoi: dict[str, int] = {t: i for i, t in enumerate(self.itos)}
        self.counts: dict[str, int] = dict(counts or {})

    pad_id, unk_id, bos_id, eos_id = 0, 1, 2, 3

    @classmethod
    def build(cls, sentences: Iterable[str | Sequence[str]], max_size: int | None = 20000,
              min_count: int = 1) -> "Vocabulary":
        """The ``max_size`` (special tokens included) most frequent tokens seen ``min_count`` times.

        ``sentences`` are token lists or space-joined token strings (as the corpus stores them).
        """
        if max_size is not None and max_size <= len(SPECIALS):
            raise ValueError(f"max_size must exceed the {len(SPECIALS)} special tokens, got {max_size}")
        counter: Counter[str] = Counter()
        for s in sentences:
            counter.update(s.split(" ") if isinstance(s, str) else s)
        for t in SPECIALS:
            counter.pop(t, None)
        words = sorted((w for w, c in counter.items() if c >= min_count), key=lambda w: (-counter[w], w))
        if max_size is not None:
            words = words[: max_size - len(SPECIALS)]
        if not words:
            raise ReproducerError("Cannot build a vocabulary from an empty corpus.")
        return cls(list(SPECIALS) + words, {w: counter[w] for w in words})

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: str) -> bool:
        return token in self.stoi

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocabulary) and self.itos == other.itos

    def __repr__(self) -> str:
        return f"Vocabulary({len(self)} tokens: {', '.join(self.itos[4:9])}, ...)"

    def token_to_id(self, token: str) -> int:
        return self.stoi.get(token, self.unk_id)

    def id_to_token(self, i: int) -> str:
        return self.itos[i]

    def encode(self, tokens: str | Sequence[str], *, bos: bool = False, eos: bool = False) -> list[int]:
        """Ids of a token list (or space-joined string); unknown tokens become ``<unk>``."""
        if isinstance(tokens, str):
            tokens = tokens.split(" ") if tokens else []
        ids = [self.stoi.get(t, self.unk_id) for t in tokens]
        return ([self.bos_id] if bos else []) + ids + ([self.eos_id] if eos else [])

    def decode(self, ids: Iterable[int], *, strip_special: bool = True) -> list[str]:
        """Tokens of an id sequence; with ``strip_special``, drops padding and sentence markers."""
        skip = {self.pad_id, self.bos_id, self.eos_id} if strip_special else set()
        return [self.itos[i] for i in ids if i not in skip]

    def coverage(self, sentences: Iterable[str | Sequence[str]]) -> float:
        """Fraction of running tokens that are in the vocabulary (not ``<unk>``)."""
        known = total = 0
        for s in sentences:
            toks = s.split(" ") if isinstance(s, str) else s
            total += len(toks)
            known += sum(t in self.stoi for t in toks)
        return known / total if total else 0.0

    def save(self, path: str | Path) -> None:
        """Write JSON atomically (temporary file + rename)."""
        write_json(path, {"tokens": self.itos, "counts": self.counts})

    @classmethod
    def load(cls, path: str | Path) -> "Vocabulary":
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(data["tokens"], data.get("counts"))

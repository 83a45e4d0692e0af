"""What every encoder's ``encode`` accepts: a list (or any iterable) of ``str``, each valid Unicode text.

:func:`check_sentences` is the first line of each public ``encode``, so that a bare string (which would be encoded
one character at a time), ``None``, ``bytes`` or a lone surrogate (text decoded with ``surrogateescape``) is an
error naming the sentence, not a traceback from deep inside a tokenizer or a wrong answer.
"""
from __future__ import annotations

from typing import Iterable

from reproducer.errors import ReproducerError


def _unicode_problem(sentence: str) -> str | None:
    """Why ``sentence`` is not valid Unicode text (a lone surrogate, and where), else ``None``."""
    if sentence.isascii():
        return None
    try:
        sentence.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"has a lone surrogate {sentence[e.start]!r} at character {e.start}"
    return None


def _problem(sentence: object) -> str | None:
    """Why ``sentence`` cannot be encoded, else ``None``."""
    if isinstance(sentence, bytes):
        return "is bytes: decode it first (e.g. sentence.decode('utf-8'))"
    if not isinstance(sentence, str):
        return f"is {type(sentence).__name__}, not str"
    problem = _unicode_problem(sentence)
    if problem:
        return f"{problem} in {sentence[:40]!r}: decode the source text with errors='replace' (or fix it)"
    return None


def check_sentences(sentences: Iterable[str]) -> list[str]:
    """``sentences`` as a list of ``str``; :class:`ReproducerError` naming the first bad one (by index) otherwise."""
    if isinstance(sentences, (str, bytes)):
        raise ReproducerError(f"encode() takes a list of sentences, got a {type(sentences).__name__}; "
                              "wrap it: encode([...]).")
    try:
        sentences = list(sentences)
    except TypeError:
        raise ReproducerError(f"encode() takes a list of sentences, got {type(sentences).__name__}.") from None
    for i, sentence in enumerate(sentences):
        problem = _problem(sentence)
        if problem:
            raise ReproducerError(f"encode(): sentence {i} {problem}.")
    return sentences

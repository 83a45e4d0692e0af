r"""Sentence splitting and word tokenization, matched to the SentEval data.

SentEval's classification files (MR, CR, SUBJ, MPQA, TREC) use Penn-Treebank conventions:
``does n't``, ``'s``, :literal:`\`\`...''` quotes, ``--`` dashes. NLTK's Treebank-style word tokenizer
(``NLTKWordTokenizer``, which needs no downloaded model) reproduces them: re-tokenizing MR gives back
97.2% of its lines unchanged, against 63% for sacremoses' Moses tokenizer (which writes ``does n 't``
and ``' s``), so the corpus and the benchmarks share one vocabulary. Sentences are split with
``blingfire`` (a fast splitter that handles abbreviations such as "Mr." and "St."). Before
tokenizing, typographic quotes and dashes are mapped to ASCII and Project Gutenberg's ``_italic_``
markers are removed.
"""
from __future__ import annotations

import re
from functools import lru_cache

from nltk.tokenize import NLTKWordTokenizer

_TRANSLATE = str.maketrans({
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u2032": "'",
    "\u2014": " -- ", "\u2013": "-", "\u2026": "...", "\u00a0": " ", "\ufeff": "",
})
_ITALIC = re.compile(r"(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
_SPACES = re.compile(r"\s+")


def normalize(text: str) -> str:
    """ASCII quotes and dashes, no ``_emphasis_`` markers, single spaces."""
    text = _ITALIC.sub("", text.translate(_TRANSLATE))
    return _SPACES.sub(" ", text).strip()


_CONTINUES = re.compile(r"^[\W_]*[a-z]")
_TITLE_END = re.compile(r"\b(Mr|Mrs|Ms|Messrs|Mme|Mlle|Dr|St|Capt|Col|Gen|Lieut|Rev|Prof|Gov|Hon|Sgt)\.$",
                        re.IGNORECASE)


def split_sentences(paragraph: str) -> list[str]:
    """Split one paragraph (a single line of text) into sentences with blingfire.

    Two kinds of blingfire cuts are joined back: a piece that starts with a lower-case letter
    continues the previous sentence (dialogue such as ``"Have you heard?" she asked.``, about 3% of
    its cuts in the Gutenberg books), and a piece that ends in a title such as ``Mr.`` belongs with
    the name that follows (``lawyer. Mr. Troy`` was cut as ``lawyer.`` / ``Mr.`` / ``Troy ...``).
    """
    from blingfire import text_to_sentences  # here, not at the top: the GPU machine tokenizes but never splits

    paragraph = paragraph.strip()
    if not paragraph:
        return []
    out: list[str] = []
    for piece in text_to_sentences(paragraph).split("\n"):
        if not piece.strip():
            continue
        if out and (_CONTINUES.match(piece) or _TITLE_END.search(out[-1])):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


#: The flags the standard ``re`` module knows (NLTK's patterns also carry the ``regex`` module's VERSION0 flag).
_RE_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.UNICODE | re.VERBOSE | re.ASCII


def _stdlib(pattern):
    """``pattern`` (NLTK's, compiled with the third-party ``regex`` engine and run under a timeout) compiled with the
    standard ``re`` module instead: the same expression, the same flags."""
    return re.compile(pattern.pattern, pattern.flags & _RE_FLAGS)


class TreebankTokenizer(NLTKWordTokenizer):
    """NLTK's Treebank-style word tokenizer with its regular expressions run by the standard ``re`` module.

    Since NLTK 3.9.3 every pattern goes through ``nltk.redos``: the ``regex`` engine, each substitution under a
    wall-clock timeout (a guard against patterns supplied by a caller). The tokenizer's own fixed patterns need no
    guard, and the wrapper cost three times the matching itself: about 110 of the 160 µs a sentence took (some 12 s of
    the 18 s that tokenizing every sentence of the evaluation tasks took). Same expressions, same order, same tokens:
    ``tests/test_tokenize.py`` compares the two on every kind of sentence the data holds."""

    STARTING_QUOTES = [(_stdlib(p), s) for p, s in NLTKWordTokenizer.STARTING_QUOTES]
    ENDING_QUOTES = [(_stdlib(p), s) for p, s in NLTKWordTokenizer.ENDING_QUOTES]
    PUNCTUATION = [(_stdlib(p), s) for p, s in NLTKWordTokenizer.PUNCTUATION]
    PARENS_BRACKETS = (_stdlib(NLTKWordTokenizer.PARENS_BRACKETS[0]), NLTKWordTokenizer.PARENS_BRACKETS[1])
    CONVERT_PARENTHESES = [(_stdlib(p), s) for p, s in NLTKWordTokenizer.CONVERT_PARENTHESES]
    DOUBLE_DASHES = (_stdlib(NLTKWordTokenizer.DOUBLE_DASHES[0]), NLTKWordTokenizer.DOUBLE_DASHES[1])


@lru_cache(maxsize=1)
def _treebank() -> TreebankTokenizer:
    return TreebankTokenizer()


def tokenize(sentence: str, *, lowercase: bool = False) -> list[str]:
    r"""Treebank-style tokens of one sentence (``do n't``, ``'s``, :literal:`\`\`...''`)."""
    return list(_tokens(sentence, lowercase))


@lru_cache(maxsize=1 << 18)
def _tokens(sentence: str, lowercase: bool) -> tuple[str, ...]:
    """:func:`tokenize`, remembered for the last 262,144 sentences: every distinct sentence of the evaluation tasks
    (about 114,000 with ``--tasks all``; some 60 MB) stays tokenized for the next model a chapter scores —
    with 65,536 the cache cycled, and each model tokenized every task sentence again (about 20 s of the Treebank
    tokenizer's regular expressions per model on all tasks). Training pairs and corpus sentences share it (chapter 03's
    grid tokenizes its pairs dozens of times)."""
    text = normalize(sentence)
    if lowercase:
        text = text.lower()
    return tuple(_treebank().tokenize(text))


def clear_token_cache() -> None:
    """Forget every remembered tokenization (a timing that must start cold, e.g. ``scripts/senteval_agreement.py``)."""
    _tokens.cache_clear()

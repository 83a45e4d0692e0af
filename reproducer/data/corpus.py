"""The ordered sentence corpus: 399 Project Gutenberg books -> tokenized sentences in book order.

BookCorpus (Zhu et al. 2015), on which Skip-Thought, Quick-Thoughts, consensus maximisation and
the mean-max autoencoder were trained, is no longer distributed; this builder makes the stand-in
from the ``gutenberg`` dataset:

1. strip the Project Gutenberg header and footer (everything up to the last ``*** START OF``
   marker and from the first ``*** END OF`` marker on);
2. split into paragraphs at blank lines, join each paragraph's lines, and drop paragraphs that are
   not prose: producer credits, ``[Illustration]``-style notes, headings with no lower-case letter;
3. split paragraphs into sentences (blingfire) and tokenize them (Penn-Treebank style, see
   :mod:`reproducer.data.tokenize`), optionally lower-casing.

The result keeps book boundaries (context sentences must never be paired across books),
paragraph ids and the books' ``train``/``valid`` split. It is cached under
``<data_dir>/corpus/<key>/`` where the key hashes the settings, the builder version and the
checksums of the input books, so it is rebuilt only when one of them changes.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from functools import cached_property
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from reproducer.data.loaders import load_gutenberg_books
from reproducer.data.registry import data_dir, dataset, require
from reproducer.data.tokenize import split_sentences, tokenize
from reproducer.errors import DataError
from reproducer.files import follow_umask, write_json
from reproducer.log import progress_bar

BUILDER_VERSION = 5  # bump whenever the processing changes: it is part of the cache key
SPLITS = ("train", "valid")

_START = re.compile(r"^\*\*\* ?START OF (THE|THIS) PROJECT GUTENBERG", re.IGNORECASE)
_END = re.compile(r"^(\*\*\* ?END OF (THE|THIS) PROJECT GUTENBERG|End of (the )?Project Gutenberg)",
                  re.IGNORECASE)
_CREDIT = re.compile(r"^(produced by|e-?text prepared by|transcriber'?s note|this e-?book was produced)",
                     re.IGNORECASE)
_LOWER = re.compile(r"[a-z]")
_ALNUM = re.compile(r"[^\W_]")


@dataclass(frozen=True)
class CorpusConfig:
    """Settings of the corpus build. ``max_books`` keeps the first N books of each split (for tests)."""

    lowercase: bool = True
    max_books: int | None = None
    min_tokens: int = 1

    def __post_init__(self):
        if self.max_books is not None and self.max_books < 1:  # a slice [:0] or [:-1] would build a wrong corpus
            raise DataError(f"max_books must be None (all books) or at least 1, got {self.max_books!r}.")

    def key(self, input_checksums: str) -> str:
        blob = json.dumps({"config": asdict(self), "version": BUILDER_VERSION, "inputs": input_checksums},
                          sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def strip_gutenberg(text: str) -> str:
    """The body of a Project Gutenberg e-text, without the licence header and footer.

    Some books repeat the START marker or wrap it over two lines; the body starts after the last
    START marker line (and its ``***`` continuation) and stops at the first END marker.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    start = 0
    for i, line in enumerate(lines):
        if _END.match(line):
            break
        if _START.match(line):
            start = i + 1
            if not line.rstrip().endswith("***") and start < len(lines) and lines[start].rstrip().endswith("***"):
                start += 1
    end = next((i for i in range(start, len(lines)) if _END.match(lines[i])), len(lines))
    return "\n".join(lines[start:end])


def paragraphs(body: str) -> list[str]:
    """Prose paragraphs of a book body: blank-line separated, lines joined, non-prose dropped."""
    out = []
    for block in re.split(r"\n\s*\n", body):
        para = " ".join(block.split())
        if not para or not _LOWER.search(para) or _CREDIT.match(para):
            continue
        if para.startswith("[") and para.endswith("]"):
            continue
        out.append(para)
    return out


def process_book(path: Path, lowercase: bool = True, min_tokens: int = 1) -> tuple[list[str], list[int]]:
    """Tokenized sentences of one gzipped e-text (tokens joined by spaces) and their paragraph ids."""
    text = gzip.decompress(Path(path).read_bytes()).decode("utf-8")
    sentences, para_ids = [], []
    for p, para in enumerate(paragraphs(strip_gutenberg(text))):
        for sent in split_sentences(para):
            tokens = tokenize(sent, lowercase=lowercase)
            if len(tokens) >= min_tokens:
                sentences.append(" ".join(tokens))
                para_ids.append(p)
    return sentences, para_ids


def _process(args: tuple[str, bool, int]) -> tuple[list[str], list[int]]:
    return process_book(Path(args[0]), args[1], args[2])


class Corpus:
    """A built corpus split: sentences in reading order with their book and paragraph ids.

    ``sentences[i]`` is a space-joined token string; ``book_ids[i]`` the ``book_idx`` of
    ``books.tsv``; ``paragraph_ids[i]`` the paragraph within the book. ``book_spans`` gives
    each book's ``[start, end)`` range, so that context windows stay inside one book.
    """

    def __init__(self, root: Path, split: str):
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
        self.root, self.split = Path(root), split
        self.sentences: list[str] = (self.root / f"{split}.txt").read_text(encoding="utf-8").split("\n")[:-1]
        index = np.load(self.root / f"{split}.index.npz")
        self.book_ids: np.ndarray = index["book"]
        self.paragraph_ids: np.ndarray = index["paragraph"]
        self.meta: dict = json.loads((self.root / "meta.json").read_text(encoding="utf-8"))
        if len(self.sentences) != len(self.book_ids):
            raise DataError(f"Corpus cache {self.root} is inconsistent; delete it and build again.")

    def __len__(self) -> int:
        return len(self.sentences)

    def __getitem__(self, i: int) -> str:
        return self.sentences[i]

    def tokens(self, i: int) -> list[str]:
        return self.sentences[i].split(" ")

    @cached_property
    def book_spans(self) -> list[tuple[int, int, int]]:
        """``(book_idx, start, end)`` for each book, in corpus order."""
        ids = self.book_ids
        if len(ids) == 0:
            return []
        cuts = np.flatnonzero(np.diff(ids)) + 1
        starts = np.concatenate([[0], cuts])
        ends = np.concatenate([cuts, [len(ids)]])
        return [(int(ids[s]), int(s), int(e)) for s, e in zip(starts, ends)]

    def stats(self) -> dict[str, float]:
        """Corpus statistics in the form of Skip-Thoughts' Table 1 (see :func:`corpus_stats`)."""
        return corpus_stats(self.sentences, len(self.book_spans))


def corpus_stats(sentences: list[str], books: int) -> dict[str, float]:
    """Corpus statistics in the form of Skip-Thoughts' Table 1 (Kiros et al. 2015).

    ``tokens`` counts every token, punctuation included; ``words`` and the per-sentence
    figures count only tokens with a letter or digit.
    """
    vocab: Counter[str] = Counter()
    for s in sentences:
        vocab.update(s.split(" "))
    is_word = {t: bool(_ALNUM.search(t)) for t in vocab}
    lengths = np.zeros(len(sentences), dtype=np.int64)  # words: tokens with a letter or digit
    for i, s in enumerate(sentences):
        lengths[i] = sum(is_word[t] for t in s.split(" "))
    n = len(lengths)
    return {
        "books": books,
        "sentences": n,
        "tokens": int(sum(vocab.values())),
        "words": int(lengths.sum()),
        "unique_words": sum(is_word.values()),
        "mean_words_per_sentence": float(lengths.mean()) if n else 0.0,
        "median_words_per_sentence": float(np.median(lengths)) if n else 0.0,
        "p99_words_per_sentence": float(np.percentile(lengths, 99)) if n else 0.0,
    }


def corpus_dir(config: CorpusConfig) -> Path:
    """Where the corpus with these settings is (or will be) cached."""
    inputs = hashlib.sha256("".join(f.sha256 for f in dataset("gutenberg").files).encode()).hexdigest()
    return data_dir() / "corpus" / config.key(inputs)


def _ignore_interrupts() -> None:
    """In a worker of the corpus build: leave Ctrl-C to the parent, which stops the pool (one clean message, not a
    traceback from every worker)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def build_corpus(config: CorpusConfig = CorpusConfig(), *, workers: int | None = None,
                 progress: bool = True, rebuild: bool = False) -> Path:
    """Build (or reuse) the tokenized sentence corpus and return its cache folder.

    Books are processed in parallel (``workers`` processes, default: all cores) and written in
    ``books.tsv`` order. The folder is assembled in a temporary directory and renamed into place,
    so an interrupted build leaves nothing half-written.
    """
    out = corpus_dir(config)
    if (out / "meta.json").is_file() and not rebuild:
        return out
    root = require("gutenberg")
    books = load_gutenberg_books()
    chosen = []
    for split in SPLITS:
        in_split = [b for b in books if b["split"] == split]
        chosen += in_split[: config.max_books] if config.max_books is not None else in_split
    jobs = [(str(root / "raw" / f"pg{b['pg_ebook_no']}.txt.gz"), config.lowercase, config.min_tokens)
            for b in chosen]
    workers = workers or os.cpu_count() or 1
    t0 = time.perf_counter()
    results: list[tuple[list[str], list[int]]] = []
    bar = progress_bar(total=len(jobs), desc="build corpus", unit="book", disable=not progress)
    try:
        if workers > 1 and len(jobs) > 1:
            with get_context("spawn").Pool(workers, initializer=_ignore_interrupts) as pool:
                for r in pool.imap(_process, jobs, chunksize=1):
                    results.append(r)
                    bar.update()
        else:
            for job in jobs:
                results.append(_process(job))
                bar.update()
    finally:
        bar.close()
    seconds = time.perf_counter() - t0

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    follow_umask(tmp)  # not mkdtemp's private 0o700 once renamed into place
    try:
        stats = {}
        for split in SPLITS:
            sents, book_ids, para_ids = [], [], []
            in_split = [(b, r) for b, r in zip(chosen, results) if b["split"] == split]
            for b, (s, p) in in_split:
                sents += s
                book_ids += [int(b["book_idx"])] * len(s)
                para_ids += p
            (tmp / f"{split}.txt").write_text("".join(x + "\n" for x in sents), encoding="utf-8")
            np.savez(tmp / f"{split}.index.npz", book=np.asarray(book_ids, dtype=np.int32),
                     paragraph=np.asarray(para_ids, dtype=np.int32))
            stats[split] = corpus_stats(sents, sum(1 for _, (s, _) in in_split if s))
        meta = {"config": asdict(config), "builder_version": BUILDER_VERSION, "build_seconds": seconds,
                "workers": workers, "books": [b["book_idx"] for b in chosen], "stats": stats}
        write_json(tmp / "meta.json", meta)
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return out


def load_corpus(split: str = "train", config: CorpusConfig = CorpusConfig(), *,
                progress: bool = True) -> Corpus:
    """The corpus split with these settings, built first if it is not cached yet."""
    return Corpus(build_corpus(config, progress=progress), split)

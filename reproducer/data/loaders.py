"""Loaders for every benchmark and resource: files in the cache -> plain records.

Each loader returns simple frozen dataclasses (no tensors, no vocabulary), split by split,
exactly as the published task defines them. The quirks of the real files are handled here and
nowhere else (see the data README):

- ``TREC/train_5500.label`` is ISO-8859-1 with a stray byte 0xF0: read as bytes, decode latin-1.
- ``MRPC/*`` start with a UTF-8 BOM: read with ``utf-8-sig``.
- ``SICK_test_annotated.txt`` has CRLF line endings: lines are stripped of ``\\r``.
- STS15/STS16 gold files have empty lines for unscored pairs: those pairs are dropped (as SentEval).

- CR has 4 and MPQA 3 empty lines (one ``*``-only line in CR too). They are part of the published
  counts (3,775 and 10,606) and SentEval keeps them, so they are kept: encoders must accept "".

Label conventions follow SentEval: MR/CR/MPQA positive = 1, SUBJ objective = 1, SST-2 positive = 1.
"""
from __future__ import annotations

import csv
import gzip
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from reproducer.data.registry import require
from reproducer.errors import DataError


@dataclass(frozen=True)
class Sentence:
    """A sentence with a class label (int for binary tasks, str for TREC)."""

    text: str
    label: int | str


@dataclass(frozen=True)
class Pair:
    """Two sentences with a label: a 0/1 class, a similarity score, or a class name."""

    a: str
    b: str
    label: int | float | str


@dataclass(frozen=True)
class SickPair:
    """A SICK pair: relatedness score in [1, 5] (SICK-R) and entailment class (SICK-E)."""

    pair_id: int
    a: str
    b: str
    relatedness: float
    entailment: str


@dataclass(frozen=True)
class PhrasePair:
    """A PPDB 2.0 human-scored pair: mean of the annotators' 1-5 scores, syntactic category."""

    a: str
    b: str
    score: float
    category: str
    scores: tuple[float, ...]


@dataclass(frozen=True)
class WikiSentence:
    """A sentence of the Wikipedia retrieval pool (:func:`load_wiki_pool`): its article's id and title, its position
    in the article and its text."""

    page_id: int
    title: str
    sent_idx: int
    text: str


@dataclass(frozen=True)
class Analogy:
    """A word analogy question a : b :: c : d from one section of the Google set."""

    section: str
    a: str
    b: str
    c: str
    d: str


@dataclass(frozen=True)
class WordPair:
    """Two words and their human score: similarity (SimLex-999) or relatedness (WordSim-353), 0-10."""

    a: str
    b: str
    score: float


# ----------------------------------------------------------------------------- reading helpers

def _lines(path: Path, encoding: str = "utf-8") -> list[str]:
    """Lines of a (possibly gzipped) text file without line terminators (LF or CRLF)."""
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    text = raw.decode(encoding)
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


def _tsv(path: Path, encoding: str = "utf-8") -> Iterator[list[str]]:
    """Rows of a tab-separated file, split on every tab (no quoting: the files contain quotes)."""
    for line in _lines(path, encoding):
        yield line.split("\t")


def _senteval(relpath: str) -> Path:
    return require("senteval") / "downstream" / relpath


def _binary(pos: str, neg: str) -> dict[str, list[Sentence]]:
    rows = [Sentence(t.strip(), 1) for t in _lines(_senteval(pos))]
    rows += [Sentence(t.strip(), 0) for t in _lines(_senteval(neg))]
    return {"all": rows}


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise DataError(message)


# ----------------------------------------------------------------------------- classification

def load_mr() -> dict[str, list[Sentence]]:
    """MR movie-review polarity (Pang & Lee 2005): 10,662 sentences, no split (10-fold CV)."""
    return _binary("MR/rt-polarity.pos", "MR/rt-polarity.neg")


def load_cr() -> dict[str, list[Sentence]]:
    """CR customer reviews (Hu & Liu 2004): 3,775 sentences, no split (10-fold CV)."""
    return _binary("CR/custrev.pos", "CR/custrev.neg")


def load_subj() -> dict[str, list[Sentence]]:
    """SUBJ subjectivity (Pang & Lee 2004): 10,000 sentences, objective = 1 as in SentEval."""
    return _binary("SUBJ/subj.objective", "SUBJ/subj.subjective")


def load_mpqa() -> dict[str, list[Sentence]]:
    """MPQA opinion polarity (Wiebe et al. 2005): 10,606 phrases, no split (10-fold CV)."""
    return _binary("MPQA/mpqa.pos", "MPQA/mpqa.neg")


def load_trec() -> dict[str, list[Sentence]]:
    """TREC question type (Li & Roth 2002): 5,452 train / 500 test, 6 coarse classes.

    Lines are ``COARSE:fine question``. The train file is ISO-8859-1 (one stray 0xF0 byte), so
    both files are decoded as latin-1, as SentEval does.
    """
    out = {}
    for split, name in (("train", "train_5500.label"), ("test", "TREC_10.label")):
        rows = []
        for line in _lines(_senteval(f"TREC/{name}"), encoding="latin-1"):
            if not line.strip():
                continue
            label, text = line.split(" ", 1)
            rows.append(Sentence(text.strip(), label.split(":", 1)[0]))
        out[split] = rows
    return out


def load_sst2(level: str = "sentence") -> dict[str, list[Sentence]]:
    """SST-2 binary sentiment (Socher et al. 2013), train / dev / test.

    ``level="sentence"``: the 6,920 / 872 / 1,821 sentences the 2015-2019 papers trained on
    (``sst2_sentence``, lines ``label sentence``). ``level="phrase"``: SentEval's version whose
    train split holds 67,349 phrases (lines ``sentence<TAB>label``).
    """
    out = {}
    if level == "sentence":
        root = require("sst2_sentence")
        for split in ("train", "dev", "test"):
            rows = []
            for line in _lines(root / f"stsa.binary.{split}"):
                label, text = line.split(" ", 1)
                rows.append(Sentence(text.strip(), int(label)))
            out[split] = rows
    elif level == "phrase":
        for split in ("train", "dev", "test"):
            rows = []
            for text, label in _tsv(_senteval(f"SST/binary/sentiment-{split}")):
                rows.append(Sentence(text.strip(), int(label)))
            out[split] = rows
    else:
        raise ValueError(f"level must be 'sentence' or 'phrase', not {level!r}")
    return out


# ----------------------------------------------------------------------------- sentence pairs

def load_mrpc() -> dict[str, list[Pair]]:
    """MSR paraphrase corpus (Dolan et al. 2004): 4,076 train / 1,725 test pairs, label 1 = paraphrase.

    TSV with header ``Quality #1 ID #2 ID #1 String #2 String``; the files start with a BOM.
    """
    out = {}
    for split in ("train", "test"):
        rows = list(_tsv(_senteval(f"MRPC/msr_paraphrase_{split}.txt"), encoding="utf-8-sig"))
        _check(rows[0][0] == "Quality", f"unexpected MRPC header {rows[0]!r}")
        out[split] = [Pair(r[3].strip(), r[4].strip(), int(r[0])) for r in rows[1:]]
    return out


def load_sick(variant: str = "senteval") -> dict[str, list[SickPair]]:
    """SICK (Marelli et al. 2014): 4,500 train / 500 dev (trial) / 4,927 test pairs.

    ``variant="senteval"`` reads SentEval's copy, ``"original"`` the SemEval-2014 release
    (``sick_original``); both have the same IDs, scores and labels. The test file has CRLF endings.
    """
    if variant == "senteval":
        root = _senteval("SICK")
    elif variant == "original":
        root = require("sick_original")
    else:
        raise ValueError(f"variant must be 'senteval' or 'original', not {variant!r}")
    out = {}
    for split, name in (("train", "SICK_train.txt"), ("dev", "SICK_trial.txt"),
                        ("test", "SICK_test_annotated.txt")):
        rows = list(_tsv(root / name))
        _check(rows[0][:3] == ["pair_ID", "sentence_A", "sentence_B"], f"unexpected SICK header {rows[0]!r}")
        out[split] = [SickPair(int(r[0]), r[1].strip(), r[2].strip(), float(r[3]), r[4].strip())
                      for r in rows[1:]]
    return out


STS_DATASETS: dict[str, tuple[str, ...]] = {
    "STS12": ("MSRpar", "MSRvid", "SMTeuroparl", "surprise.OnWN", "surprise.SMTnews"),
    "STS13": ("FNWN", "headlines", "OnWN"),  # the SMT sub-dataset is licence-restricted (absent)
    "STS14": ("deft-forum", "deft-news", "headlines", "images", "OnWN", "tweet-news"),
    "STS15": ("answers-forums", "answers-students", "belief", "headlines", "images"),
    "STS16": ("answer-answer", "headlines", "plagiarism", "postediting", "question-question"),
}


def load_sts(year: str) -> dict[str, list[Pair]]:
    """One SemEval STS year (``"STS12"`` ... ``"STS16"``): sub-dataset -> scored pairs.

    Inputs are ``s1<TAB>s2`` lines, gold files one score (0-5) per line; an empty gold line
    marks an unscored pair, which is dropped (STS15 and STS16 have them).
    """
    if year not in STS_DATASETS:
        raise ValueError(f"year must be one of {', '.join(STS_DATASETS)}, not {year!r}")
    root = _senteval(f"STS/{year}-en-test")
    out = {}
    for name in STS_DATASETS[year]:
        inputs = _lines(root / f"STS.input.{name}.txt")
        gold = _lines(root / f"STS.gs.{name}.txt")
        _check(len(inputs) == len(gold), f"{year} {name}: {len(inputs)} inputs but {len(gold)} gold lines")
        pairs = []
        for line, score in zip(inputs, gold):
            if not score.strip():
                continue
            a, b = line.split("\t")[:2]
            pairs.append(Pair(a.strip(), b.strip(), float(score)))
        out[name] = pairs
    return out


def load_stsb() -> dict[str, list[Pair]]:
    """STS Benchmark (Cer et al. 2017): 5,749 / 1,500 / 1,379 pairs scored 0-5.

    TSV columns: genre, source, year, id, score, s1, s2 (a few rows carry extra columns, ignored).
    """
    root = _senteval("STS/STSBenchmark")
    return {
        split: [Pair(r[5].strip(), r[6].strip(), float(r[4])) for r in _tsv(root / f"sts-{split}.csv")]
        for split in ("train", "dev", "test")
    }


def load_ppdb_human(sample: str = "ppdb") -> list[PhrasePair]:
    """PPDB 2.0 human-scored pairs (Pavlick et al. 2015): ``"ppdb"`` 26,456 or ``"wiki"`` 13,954.

    TSV: mean score (1-5), ``[CATEGORY]``, phrase, paraphrase, comma-separated annotator scores.
    """
    names = {"ppdb": "ppdb-sample.tsv", "wiki": "wiki-sample.tsv"}
    if sample not in names:
        raise ValueError(f"sample must be 'ppdb' or 'wiki', not {sample!r}")
    rows = []
    for r in _tsv(require("ppdb_human") / names[sample]):
        scores = tuple(float(s) for s in r[4].split(",")) if len(r) > 4 and r[4] else ()
        rows.append(PhrasePair(r[2].strip(), r[3].strip(), float(r[0]), r[1].strip("[]"), scores))
    return rows


def load_twitter_url() -> dict[str, list[Pair]]:
    """Twitter URL paraphrase corpus (Lan et al. 2017): 42,200 train / 9,324 test pairs, 1 = paraphrase."""
    root = require("twitter_url_corpus")
    out = {}
    for split in ("train", "test"):
        a = _lines(root / split / "a.toks.gz")
        b = _lines(root / split / "b.toks.gz")
        y = _lines(root / split / "sim.txt")
        _check(len(a) == len(b) == len(y), f"twitter {split}: misaligned files ({len(a)}, {len(b)}, {len(y)})")
        out[split] = [Pair(s.strip(), t.strip(), int(label)) for s, t, label in zip(a, b, y)]
    return out


def load_twitter_url_graded() -> list[Pair]:
    """The Twitter URL corpus' raw test file with graded labels: ``label`` = share of the 6
    annotators who judged the pair a paraphrase (0-1). TSV ``s1 s2 (n_yes,6) url``, CRLF, with
    250 blank lines (skipped) and 10 rows with an empty extra column: 10,120 pairs. The binary
    test split (9,324 pairs) is this set without the debatable (3,6) pairs."""
    rows = []
    for r in _tsv(require("twitter_url_corpus") / "Twitter_URL_Corpus_testNew.larger.txt.gz"):
        if len(r) < 3:
            continue
        votes, total = r[2].strip("()").split(",")
        rows.append(Pair(r[0].strip(), r[1].strip(), int(votes) / int(total)))
    return rows


# ----------------------------------------------------------------------------- pools and words

def load_wiki_pool() -> list[WikiSentence]:
    """17,614 Wikipedia sentences from 96 articles (a nearest-neighbour retrieval pool)."""
    rows = list(_tsv(require("wiki_pool") / "enwiki_sample_sentences.tsv.gz"))
    _check(rows[0] == ["page_id", "title", "sent_idx", "sentence"], f"unexpected header {rows[0]!r}")
    return [WikiSentence(int(r[0]), r[1], int(r[2]), r[3]) for r in rows[1:]]


def load_google_analogy() -> list[Analogy]:
    """The Google analogy set (Mikolov et al. 2013): 19,544 questions in 14 ``: section`` blocks."""
    out, section = [], None
    for line in _lines(require("word_eval") / "questions-words.txt"):
        if line.startswith(":"):
            section = line[1:].strip()
        elif line.strip():
            a, b, c, d = line.split()
            out.append(Analogy(section, a, b, c, d))
    return out


def _word_pairs(name: str) -> list[WordPair]:
    out = []
    for r in _tsv(require("word_eval") / name):
        if r[0].startswith("#"):
            continue
        out.append(WordPair(r[0], r[1], float(r[2])))
    return out


def load_simlex() -> list[WordPair]:
    """SimLex-999 (Hill et al. 2015): 999 word pairs with similarity scores (0-10)."""
    return _word_pairs("simlex999.txt")


def load_wordsim() -> list[WordPair]:
    """WordSim-353 (Finkelstein et al. 2002): 353 word pairs with relatedness scores (0-10)."""
    return _word_pairs("wordsim353.tsv")


def load_sif_counts() -> dict[str, int]:
    """Word counts from English Wikipedia (Arora et al. 2017's SIF file): 188,033 words."""
    out = {}
    for line in _lines(require("word_freq") / "enwiki_vocab_min200.txt.gz"):
        word, count = line.rsplit(" ", 1)
        out[word] = int(count)
    return out


def load_gutenberg_books() -> list[dict[str, str]]:
    """The 399 Gutenberg books' metadata (``books.tsv``): book_idx, split, pg_ebook_no, author, title."""
    with open(require("gutenberg") / "books.tsv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))

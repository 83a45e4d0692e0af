"""The GPU pack: everything a run of :mod:`reproducer.gpu_run` needs on a machine that has a GPU but none of our data,
no network and none of papermill, gensim, blingfire or nltk (the lent H100: Python 3.12, torch 2.11, numpy, pandas,
scikit-learn, scipy, tqdm). :func:`build_pack` writes it here, on the CPU machine, into one git-ignored folder
(``build/gpu-pack/``, at most :data:`MAX_PACK_BYTES`); :class:`Pack` reads it there.

What it holds (each file's SHA-256 in ``meta.json``, checked when the pack is opened):

- ``corpus.npz.xz``: the held-out split of our Gutenberg corpus and as much of its training split as the plans that
  read the pack train on (:func:`planned_sentences`: whole books in the corpus's order, up to the largest model's
  steps × batch, so no planned model reads a sentence twice; at ``paper`` 1.0 of the 1.46 million sentences. The
  whole split was 28.8 of the 32 MiB of a pack, and a margin of a tenth more 2 MiB, which left the repository too
  little of the 64 MiB a device call takes) as ids of its :data:`MAX_WORDS` most frequent words (``uint16``; the
  vocabulary is the whole training split's, so the ids are a chapter's), each sentence cut to :data:`KEEP_TOKENS` tokens (every objective reads at most 32:
  Quick-Thoughts, skip-thought and consensus cut at 30, the autoencoders drop sentences above 32, so a 33-token cut
  changes nothing any of them sees), with the sentence lengths and the book spans. Because our vocabulary lists words
  by decreasing count (:class:`~reproducer.data.vocab.Vocabulary`), the vocabulary of any ``vocab_size`` up to
  :data:`MAX_WORDS` is a prefix of the packed one, and its ids are the packed ids with the rest mapped to ``<unk>``:
  one array serves every preset (:meth:`Pack.word_ids`).
- ``vocab.txt.xz``: those words, most frequent first (the special tokens first).
- ``pairs.json.xz``: the paraphrase training pairs of chapter 03 (``bench train`` of PP and the LSTM).
- ``data.tar.xz``: the data-cache folders of the evaluation tasks the run scores (the registry checks their
  checksums again there).
- ``site/nltk.zip``: the tokenizer's package (pure Python) from this environment; the GPU machine lacks it.

Fixed word vectors (consensus, the autoencoders, PP's initial vectors) are *not* packed: our word2vec table alone
would be 80 MB. :meth:`Pack.training_data` gives those families random vectors of the preset's size instead — which
is right for ``bench train`` (a product's cost does not depend on the values in it) and is why the run trains
only Quick-Thoughts for scores.
"""
from __future__ import annotations

import io
import json
import lzma
import tarfile
import time
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from reproducer.errors import ReproducerError
from reproducer.files import atomic_path, sha256_file, write_json

MAX_PACK_BYTES = 60 * 2**20  # the limit: 64 MiB travel with a device call, the rest is the repository
MAX_WORDS = 65535  # ids fit uint16; the largest vocabulary a preset trains (Quick-Thoughts' paper preset) is 50,000
KEEP_TOKENS = 33  # one above the longest sentence any objective reads (the autoencoders' max_tokens, 32)
PACK_VERSION = 4  # 2: the strongest xz preset (the same arrays, 1.2 MB smaller); 3: the training sentences the plans
# read (and a tenth more); 4: without that tenth (its samplers read steps × batch sentences: uni-QT 2,500 × 400)
#: Scale of the pack -> corpus books per split (``None``: all) and the word-vector size of the stand-in vectors.
SCALES = {"smoke": {"max_books": 3, "word_dim": 32}, "paper": {"max_books": None, "word_dim": 300}}
#: The evaluation datasets a run scores on: the tasks of Logeswaran & Lee's Table 1 read ``senteval`` only.
DATASETS = ("senteval",)


#: The files a pack holds besides ``meta.json`` (:func:`build_pack` writes these and nothing else).
PACK_FILES = ("corpus.npz.xz", "vocab.txt.xz", "pairs.json.xz", "data.tar.xz", "site/nltk.zip")


def _files(folder: Path) -> list[str]:
    """Every file under ``folder`` but ``meta.json``, as paths relative to it."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p.name != "meta.json")


def read_meta(folder: str | Path) -> dict:
    """A pack's ``meta.json``: :class:`ReproducerError` when it is missing or damaged (not JSON, not an object, without
    its ``files``, ``scale`` or ``version``), saying how to build the pack again."""
    path = Path(folder) / "meta.json"
    if not path.is_file():
        raise ReproducerError(f"{path.parent} is not a GPU pack (no meta.json): build it with `make gpu-pack` "
                              "(python -m reproducer gpu pack).")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        meta, problem = None, f"not JSON: {e}"
    else:
        problem = ("not a JSON object" if not isinstance(meta, dict) else
                   "no file list" if not isinstance(meta.get("files"), dict) else
                   "no scale or version" if not {"scale", "version"} <= set(meta) else None)
    if problem:
        raise ReproducerError(f"{path} is damaged ({problem}): build the pack again with `python -m reproducer gpu "
                              "pack --rebuild` (make gpu-pack).")
    return meta


def _write_xz(path: Path, data: bytes) -> None:
    """``data`` xz-compressed at the strongest preset: on the corpus (57 MB of ids) it takes about a minute more than
    preset 6 and saves 1.2 MB (30.0 -> 28.8 MB), room in the 64 MiB a device call takes with the repository."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))


def planned_sentences(scale: str) -> int | None:
    """The training sentences a pack of ``scale`` holds at least: the most that one model of
    the plans reading such a pack (:data:`reproducer.gpu_plans.PLANS`) trains on, its steps × its preset's batch
    (``paper``: uni-QT's 2,500 × 400); ``None`` when no plan reads it (the whole split)."""
    from reproducer.gpu_plans import PLANS
    from reproducer.papers import registry

    read = [m.steps * registry.preset(registry.model(m.name).family, plan.train_preset).batch_size
            for plan in PLANS.values() if plan.pack_scale == scale for m in plan.models]
    return max(read) if read else None


def _first_books(tokenized, sentences: int | None):
    """The first books of ``tokenized`` (in the corpus's order) that hold at least ``sentences`` sentences (all of
    them: ``None``, or when the split holds fewer)."""
    from reproducer.data.batches import TokenizedCorpus

    ends = np.array([end for _, _, end in tokenized.book_spans])
    if sentences is None or ends[-1] <= sentences:
        return tokenized
    books = int(np.searchsorted(ends, sentences)) + 1  # the first book whose end reaches `sentences`, included
    end = int(ends[books - 1])
    return TokenizedCorpus(tokenized.ids[: tokenized.offsets[end]], tokenized.offsets[: end + 1],
                           list(tokenized.book_spans[:books]))


def _split_arrays(split: str, corpus, vocab, sentences: int | None = None) -> dict[str, np.ndarray]:
    """One corpus split as packed arrays: ids (``uint16``, cut to :data:`KEEP_TOKENS` per sentence), lengths
    (``uint8``, after the cut) and book spans (book id, first sentence, end); only its first books that hold
    ``sentences`` (all: ``None``)."""
    from reproducer.data.batches import TokenizedCorpus

    full = _first_books(TokenizedCorpus.from_corpus(corpus, vocab), sentences)
    lengths = np.diff(full.offsets)
    position = np.arange(len(full.ids)) - np.repeat(full.offsets[:-1], lengths)  # of each token in its sentence
    return {f"{split}_ids": full.ids[position < KEEP_TOKENS].astype(np.uint16),
            f"{split}_lengths": np.minimum(lengths, KEEP_TOKENS).astype(np.uint8),
            f"{split}_books": np.asarray(full.book_spans, dtype=np.int64).reshape(-1, 3)}


def _nltk_zip(path: Path) -> None:
    """The installed ``nltk`` package (pure Python) as a zip to unpack on the GPU machine."""
    import importlib.util

    spec = importlib.util.find_spec("nltk")
    if spec is None or not spec.submodule_search_locations:
        raise ReproducerError("nltk is not installed here; run `make setup` first (the pack carries it to the GPU).")
    root = Path(next(iter(spec.submodule_search_locations)))
    with atomic_path(path) as tmp, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for file in sorted(root.rglob("*")):
            if file.is_file() and "__pycache__" not in file.parts:
                zf.write(file, Path("nltk") / file.relative_to(root))


def _data_tar(path: Path, names: tuple[str, ...]) -> None:
    """The verified data-cache folders ``names`` as one ``tar.xz`` (laid out as the cache: ``<name>/...``)."""
    from reproducer.data.registry import data_dir, dataset, require

    for name in names:
        require(name)
    with atomic_path(path) as tmp, tarfile.open(tmp, "w:xz") as tar:
        for name in names:
            for entry in dataset(name).files:
                tar.add(data_dir() / entry.path, arcname=entry.path)


def build_pack(out: str | Path = "build/gpu-pack", scale: str = "paper", *, rebuild: bool = False,
               progress: bool = True) -> Path:
    """Write the pack of ``scale`` (``"paper"``: the whole corpus; ``"smoke"``: 3 books, for the dry run) into
    ``out``; reuse it when it is complete and of the same scale and version. Refuses a pack above
    :data:`MAX_PACK_BYTES`. Returns ``out``."""
    from reproducer.papers import registry
    from reproducer.data.corpus import CorpusConfig, load_corpus
    from reproducer.data.pairs import training_pairs
    from reproducer.data.vocab import Vocabulary

    if scale not in SCALES:
        raise ReproducerError(f"Unknown pack scale {scale!r}; choose one of {', '.join(SCALES)}.")
    out = Path(out)
    if not rebuild:
        try:
            found = Pack(out)
            if found.meta["scale"] == scale and found.meta["version"] == PACK_VERSION:
                return out
        except ReproducerError:
            pass
    t0 = time.perf_counter()
    say = print if progress else (lambda *a, **k: None)
    out.mkdir(parents=True, exist_ok=True)
    for part in out.rglob(".*.part"):  # a killed build's unfinished files
        part.unlink()
    foreign = [rel for rel in _files(out) if rel not in PACK_FILES]
    if foreign:
        raise ReproducerError(f"{out} holds files that are not a pack's ({', '.join(foreign)}): they would travel with "
                              "it and count against its size. Give --out an empty folder, or remove them.")
    (out / "meta.json").unlink(missing_ok=True)  # an unfinished pack has no meta.json: Pack() refuses it
    settings = SCALES[scale]
    config = CorpusConfig(max_books=settings["max_books"])
    train = load_corpus("train", config, progress=progress)
    vocab = Vocabulary.build(train.sentences, max_size=MAX_WORDS)
    corpus_sentences = len(train.sentences)
    arrays = {**_split_arrays("train", train, vocab, planned_sentences(scale)),
              **_split_arrays("valid", load_corpus("valid", config, progress=False), vocab)}
    del train
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    _write_xz(out / "corpus.npz.xz", buffer.getvalue())
    say(f"corpus: {len(arrays['train_lengths']):,} of its {corpus_sentences:,} training sentences (what the plans "
        f"read), {len(arrays['train_ids']):,} tokens")
    _write_xz(out / "vocab.txt.xz", "\n".join(vocab.itos).encode())
    on_pairs = [f for f in registry.FAMILIES.values() if f.objective().reads == "pairs"]  # their presets' pairs
    pairs = {str(p.wiki_min_score): [[t.a, t.b] for t in training_pairs(p.wiki_min_score)]
             for f in on_pairs for p in f.presets.values()}
    _write_xz(out / "pairs.json.xz", json.dumps(pairs).encode())
    _data_tar(out / "data.tar.xz", DATASETS)
    (out / "site").mkdir(exist_ok=True)
    _nltk_zip(out / "site" / "nltk.zip")
    files = sorted(PACK_FILES)
    meta = {"version": PACK_VERSION, "scale": scale, **settings, "words": len(vocab),
            "train_sentences": int(len(arrays["train_lengths"])), "train_tokens": int(len(arrays["train_ids"])),
            "corpus_train_sentences": corpus_sentences,
            "valid_sentences": int(len(arrays["valid_lengths"])), "keep_tokens": KEEP_TOKENS,
            "datasets": list(DATASETS), "files": {f: sha256_file(out / f) for f in files},
            "bytes": sum((out / f).stat().st_size for f in files), "build_seconds": time.perf_counter() - t0}
    if meta["bytes"] > MAX_PACK_BYTES:
        raise ReproducerError(f"The pack is {meta['bytes'] / 2**20:.1f} MiB, above its limit of "
                              f"{MAX_PACK_BYTES / 2**20:.0f} MiB: it would not travel to the GPU machine.")
    write_json(out / "meta.json", meta)
    say(f"pack: {out} ({meta['bytes'] / 2**20:.1f} MiB, {len(files)} files, {meta['build_seconds']:.0f} s)")
    return out


@dataclass
class Pack:
    """A built pack, opened (its ``meta.json`` read and every file's checksum verified)."""

    folder: Path

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.meta = read_meta(self.folder)
        for name, digest in self.meta["files"].items():
            path = self.folder / name
            if not path.is_file() or sha256_file(path) != digest:
                raise ReproducerError(f"{path} is missing or changed since the pack was built; build it again with "
                                      "`make gpu-pack`.")
        unlisted = sorted(rel for rel in _files(self.folder) if rel not in self.meta["files"])
        if unlisted:
            raise ReproducerError(f"{self.folder} holds files its meta.json does not list ({', '.join(unlisted)}): a "
                                  "pack runs only what it lists. Remove them, or build it again with `python -m "
                                  "reproducer gpu pack --rebuild`.")
        self._arrays: dict | None = None
        self._words: list[str] | None = None

    # ---- what the GPU machine lacks: the tokenizer's package and the evaluation data ----

    @contextmanager
    def installed(self, where: str | Path) -> Iterator[Path]:
        """Within this block the pack's listed Python packages and data cache are unpacked under ``where``, the
        packages first on ``sys.path`` and the data registry pointed at the unpacked cache (``REPRODUCER_DATA_DIR``);
        both are as before afterwards. Yields the cache folder."""
        import os
        import sys

        where = Path(where)
        site, cache = where / "site", where / "data"
        for name in sorted(n for n in self.meta["files"] if n.startswith("site/") and n.endswith(".zip")):
            with zipfile.ZipFile(self.folder / name) as zf:
                zf.extractall(site)
        try:
            with tarfile.open(self.folder / "data.tar.xz") as tar:
                tar.extractall(cache, filter="data")
        except tarfile.FilterError as e:
            raise ReproducerError(f"{self.folder / 'data.tar.xz'} holds an entry that would land outside its folder "
                                  f"({e}): build the pack again with `python -m reproducer gpu pack --rebuild`."
                                  ) from None
        saved = {k: os.environ.get(k) for k in ("REPRODUCER_DATA_DIR", "REPRODUCER_DATA_MIRROR")}
        sys.path.insert(0, str(site))
        os.environ["REPRODUCER_DATA_DIR"] = str(cache)
        os.environ.pop("REPRODUCER_DATA_MIRROR", None)
        try:
            yield cache
        finally:
            if str(site) in sys.path:
                sys.path.remove(str(site))
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value

    # ---- the corpus ----

    @property
    def corpus_fraction(self) -> float:
        """The share of our corpus's training sentences the pack holds (:func:`planned_sentences`)."""
        return self.meta["train_sentences"] / self.meta.get("corpus_train_sentences", self.meta["train_sentences"])

    def _load(self) -> dict:
        if self._arrays is None:
            with np.load(io.BytesIO(lzma.decompress((self.folder / "corpus.npz.xz").read_bytes()))) as npz:
                self._arrays = {k: npz[k] for k in npz.files}
        return self._arrays

    @property
    def words(self) -> list[str]:
        """The packed vocabulary: special tokens, then words by decreasing count."""
        if self._words is None:
            self._words = lzma.decompress((self.folder / "vocab.txt.xz").read_bytes()).decode().split("\n")
        return self._words

    def vocabulary(self, size: int | None = None):
        """The :class:`~reproducer.data.vocab.Vocabulary` of the ``size`` most frequent words (all: ``None``)."""
        from reproducer.data.vocab import Vocabulary

        if size is not None and size > len(self.words):
            raise ReproducerError(f"The pack holds {len(self.words):,} words, fewer than the {size:,} asked for.")
        return Vocabulary(self.words[:size])

    def word_ids(self, split: str = "train", vocab_size: int | None = None):
        """A split as a :class:`~reproducer.data.batches.TokenizedCorpus` of ids of :meth:`vocabulary`
        ``(vocab_size)``: the packed ids, those beyond the vocabulary mapped to ``<unk>``."""
        from reproducer.data.batches import TokenizedCorpus
        from reproducer.data.vocab import Vocabulary

        arrays = self._load()
        ids = arrays[f"{split}_ids"].astype(np.int32)
        if vocab_size is not None:
            ids[ids >= vocab_size] = Vocabulary.unk_id
        offsets = np.zeros(len(arrays[f"{split}_lengths"]) + 1, dtype=np.int64)
        np.cumsum(arrays[f"{split}_lengths"], out=offsets[1:])
        return TokenizedCorpus(ids, offsets, [tuple(int(x) for x in row) for row in arrays[f"{split}_books"]])

    def pairs(self, wiki_min_score: float):
        """Chapter 03's training pairs at ``wiki_min_score`` (:class:`~reproducer.data.pairs.TrainingPair`, text
        only)."""
        from reproducer.data.pairs import TrainingPair

        table = json.loads(lzma.decompress((self.folder / "pairs.json.xz").read_bytes()))
        if str(wiki_min_score) not in table:
            raise ReproducerError(f"The pack has no pairs at wiki_min_score={wiki_min_score}.")
        return [TrainingPair(a, b, float("nan"), "pack") for a, b in table[str(wiki_min_score)]]

    def random_vectors(self, dim: int, size: int | None = None, seed: int = 0) -> np.ndarray:
        """Stand-in fixed word vectors ``(size, dim)`` (all packed words: ``None``), seeded; zero rows for the special
        tokens. Their values do not change a step's cost: for ``bench train`` only."""
        from reproducer.data.vocab import SPECIALS

        table = np.random.default_rng(seed).normal(0, 0.1, (size or len(self.words), dim)).astype(np.float32)
        table[: len(SPECIALS)] = 0
        return table

    def training_data(self, family: str, variant: str, preset, split: str = "train"):
        """What ``variant`` of ``family`` trains on at ``preset``, from the pack: the real corpus as ids for
        Quick-Thoughts and skip-thought; for consensus and the autoencoders the real corpus over every packed word
        with :meth:`random_vectors` as their fixed vectors; for the paraphrastic family the real pairs with random
        initial vectors. A :class:`~reproducer.data.training_data.TrainingData`."""
        from reproducer.papers import registry
        from reproducer.data.training_data import TrainingData
        from reproducer.data.vectors import WordVectors
        from reproducer.data.vocab import SPECIALS

        if variant == "MC-QT":
            raise ReproducerError("MC-QT reads GloVe, which the pack does not carry.")
        objective = registry.family(family).objective()  # what it reads, as its objective declares it
        if objective.reads == "pairs":
            words = self.words[len(SPECIALS):]
            vectors = WordVectors(words, self.random_vectors(self.meta["word_dim"])[len(SPECIALS):], name="random")
            return TrainingData(pairs=self.pairs(preset.wiki_min_score), vectors=vectors)
        if objective.inputs == "fixed":
            return TrainingData(tokenized=self.word_ids(split), vocab=self.vocabulary(),
                                vectors=self.random_vectors(preset.word2vec_dim))
        size = getattr(preset, "vocab_size", None)  # an objective without a vocabulary size reads every packed word
        return TrainingData(tokenized=self.word_ids(split, size), vocab=self.vocabulary(size))


"""Named, frozen configurations per model and scale.

- ``smoke``: seconds, for tests and CI (a few books, tiny sizes).
- ``default``: minutes on a 2-core CPU; what the committed book shows. Smaller than the papers' models and
  trained for minutes, not weeks: every chapter states the gap.
- ``paper``: the published sizes and budgets, for a GPU (unchanged code: the device is picked at run time).

A notebook's parameters override single fields: ``skip_thought_preset("default", max_seconds=600)``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from reproducer.errors import ReproducerError


@dataclass(frozen=True)
class SkipThoughtPreset:
    """Kiros et al. (2015): sizes, optimiser and budget of uni-skip and bi-skip."""

    name: str
    max_books: int | None  # corpus books per split (None: all 389 + 10)
    vocab_size: int  # including <pad> <unk> <s> </s> (paper: 20,000)
    word_dim: int  # paper: 620
    uni_hidden: int  # uni-skip GRU width (paper: 2400)
    bi_hidden: int  # width of each direction of bi-skip (paper: 1200, so 2400 in all)
    decoder_hidden: int  # conditional GRU width (the authors' code: as the encoder)
    batch_size: int = 128
    max_len: int = 30  # tokens kept per sentence (the authors' code: 30)
    lr: float = 1e-3  # Adam; the paper does not state it
    clip: float = 10.0  # gradient-norm clipping
    n_sampled: int = 0  # 0: exact softmax; K > 0: batch targets + K random words (a named deviation)
    max_seconds: float | None = None  # training budget per model
    max_steps: int | None = None
    eval_every: float | None = None  # training seconds between the curve's evaluations
    eval_config: str = "prototype"  # evaluation protocol of the tables: prototype | paper

    def to_dict(self) -> dict:
        return asdict(self)


SKIP_THOUGHT: dict[str, SkipThoughtPreset] = {p.name: p for p in [
    SkipThoughtPreset("smoke", max_books=3, vocab_size=2000, word_dim=32, uni_hidden=32, bi_hidden=16,
                      decoder_hidden=32, batch_size=16, max_len=20, max_steps=30, eval_every=None),
    SkipThoughtPreset("default", max_books=None, vocab_size=20000, word_dim=300, uni_hidden=600, bi_hidden=300,
                      decoder_hidden=600, n_sampled=1024, max_seconds=360, eval_every=60),
    SkipThoughtPreset("paper", max_books=None, vocab_size=20000, word_dim=620, uni_hidden=2400, bi_hidden=1200,
                      decoder_hidden=2400, max_seconds=14 * 24 * 3600, eval_every=3600, eval_config="paper"),
]}


def skip_thought_preset(name: str, **overrides) -> SkipThoughtPreset:
    """The named preset with some fields replaced (``None`` values are ignored)."""
    return _preset(SKIP_THOUGHT, SkipThoughtPreset, "skip-thought", name, overrides)


@dataclass(frozen=True)
class QuickThoughtPreset:
    """Logeswaran & Lee (2018): sizes, optimiser and budget of the QT family. ``hidden`` is the width of
    each of f and g (uni-QT's vector is ``[f; g]``: 2 × hidden); bi-QT's f and g are forward + backward
    GRUs of ``bi_hidden`` each."""

    name: str
    max_books: int | None
    vocab_size: int  # tunable-embedding vocabulary (paper: ~50k)
    word_dim: int  # paper: 300
    hidden: int  # paper: 1200 (uni-QT: 2400-d vectors)
    bi_hidden: int  # paper: 600 (bi-QT: 2400-d vectors)
    bow_dim: int = 300  # BoW-QT embedding size (paper's Appendix B: 300)
    batch_size: int = 400  # contiguous sentences per batch = candidates per softmax
    context: int = 1  # sentences on each side (context size 3 in the paper's terms)
    max_len: int = 30
    lr: float = 5e-4  # Adam, as the paper
    clip: float = 10.0  # not stated in the paper; as our skip-thought
    max_seconds: float | None = None
    max_steps: int | None = None
    eval_every: float | None = None
    eval_config: str = "prototype"

    def to_dict(self) -> dict:
        return asdict(self)


QUICK_THOUGHT: dict[str, QuickThoughtPreset] = {p.name: p for p in [
    QuickThoughtPreset("smoke", max_books=3, vocab_size=2000, word_dim=32, hidden=16, bi_hidden=8, bow_dim=32,
                       batch_size=32, max_len=20, max_steps=30),
    # equal vector sizes to the default skip-thoughts (uni: 2 x 300 = 600-d; bi: 2 x 2 x 150)
    QuickThoughtPreset("default", max_books=None, vocab_size=20000, word_dim=300, hidden=300, bi_hidden=150,
                       max_seconds=120, eval_every=40),
    QuickThoughtPreset("paper", max_books=None, vocab_size=50000, word_dim=300, hidden=1200, bi_hidden=600,
                       max_seconds=11 * 3600, eval_every=3600, eval_config="paper"),
]}


def quick_thought_preset(name: str, **overrides) -> QuickThoughtPreset:
    """The named Quick-Thoughts preset with some fields replaced (``None`` values are ignored)."""
    return _preset(QUICK_THOUGHT, QuickThoughtPreset, "Quick-Thoughts", name, overrides)


@dataclass(frozen=True)
class ParaphrasticPreset:
    """Wieting et al. (2016): loss, optimiser and budget of the six compositional models. The paper's own
    reduced grid fixes batch 100, δ 0.4 and AdaGrad at 0.05 and tunes ``lambda_w``, MIX/MAX and (for the
    compositional models) ``lambda_c``; a notebook grid overrides those fields."""

    name: str
    wiki_min_score: float = 4.0  # PPDB-wiki pairs kept for training (plus the Twitter URL paraphrases)
    vocab_size: int | None = None  # words of the initial vectors kept (None: all), plus every training word
    batch_size: int = 100  # pairs per batch = the pool of negatives
    delta: float = 0.4  # the margin δ
    negatives: str = "MAX"  # "MAX" | "MIX"
    lambda_c: float = 1e-6  # compositional weights (the iRNN's toward their initial values)
    lambda_w: float = 0.0  # word embeddings toward their initial values
    train_words: bool = True  # False: the paper's "do not update W_w" setting
    optimizer: str = "adagrad"  # the paper tunes AdaGrad vs Adam; PP's best is AdaGrad 0.05
    lr: float = 0.05
    clip: float = 1e9  # the paper tunes clipping at 1 vs none; none here (a very large threshold)
    max_len: int = 40
    max_seconds: float | None = None
    max_steps: int | None = None
    eval_every: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)


PARAPHRASTIC: dict[str, ParaphrasticPreset] = {p.name: p for p in [
    ParaphrasticPreset("smoke", vocab_size=2000, batch_size=16, max_steps=20),
    ParaphrasticPreset("default", max_steps=200),  # two epochs of our 10,131 training pairs
    ParaphrasticPreset("paper", max_steps=10 * 30_000),  # 10 epochs of PPDB XL (3M pairs, batch 100)
]}


def paraphrastic_preset(name: str, **overrides) -> ParaphrasticPreset:
    """The named Wieting et al. preset with some fields replaced (``None`` values are ignored)."""
    return _preset(PARAPHRASTIC, ParaphrasticPreset, "paraphrastic", name, overrides)


@dataclass(frozen=True)
class ConsensusPreset:
    """Tang & de Sa (2019): sizes, optimiser and budget of the consensus-maximisation variants. The paper gives
    neither ``d`` nor ``N`` nor ``c`` (tuned on STS14); every variant of Table 3 uses the same ``N`` and ``d``.
    f is a bidirectional GRU of ``dim / 2`` per direction, g a ``dim × word_dim`` projection; the word vectors
    are our word2vec (the paper: fastText 300d), fixed."""

    name: str
    max_books: int | None  # corpus books (None: all 389 + 10)
    dim: int  # d, the size of each view's representation
    word2vec_dim: int = 300  # the fixed word vectors: our word2vec of this size
    batch_size: int = 400  # N contiguous sentences = the candidates of each softmax (as Quick-Thoughts)
    context: int = 1  # c: neighbours on each side that count as context
    max_len: int = 30
    temperature: float = 0.1  # initial τ, then learned
    remove_pc: bool = True  # remove each view's top batch component during training (section 2.3)
    self_pairs: bool = True  # Eq. 1-2 read literally (|i - j| <= c, n runs over the whole window): the sentence
    # itself is a target and a candidate, so its two views must agree; False: only its neighbours, as Quick-Thoughts
    lr: float = 1e-3  # Adam (the paper: Adam, rate not given)
    clip: float = 5.0  # gradient-norm clipping (the paper: clipping, threshold not given)
    max_seconds: float | None = None
    max_steps: int | None = None
    eval_every: float | None = None
    eval_steps: int | None = None  # steps between Figure 1's evaluations (equal steps across variants)
    eval_config: str = "prototype"

    def to_dict(self) -> dict:
        return asdict(self)


CONSENSUS: dict[str, ConsensusPreset] = {p.name: p for p in [
    ConsensusPreset("smoke", max_books=3, dim=16, word2vec_dim=32, batch_size=32, max_len=20, max_steps=20,
                    eval_steps=10),
    ConsensusPreset("default", max_books=None, dim=300, max_steps=500, eval_steps=125),  # 200k sentences per variant
    # one epoch of our 1.46M-sentence corpus at N = 400; d as the paper's contemporaries (MC-QT: 2 x 2 x 600)
    ConsensusPreset("paper", max_books=None, dim=2048, max_steps=3650, eval_steps=365, eval_config="paper"),
]}


def consensus_preset(name: str, **overrides) -> ConsensusPreset:
    """The named consensus-maximisation preset with some fields replaced (``None`` values are ignored)."""
    return _preset(CONSENSUS, ConsensusPreset, "consensus", name, overrides)


@dataclass(frozen=True)
class AutoencoderPreset:
    """Zhang et al. (2018): sizes, optimiser and budget of the mean-max AAE and its variants (Table 3). The input
    reads every word with a (fixed) pre-trained vector; the decoder predicts the ``vocab_size`` most frequent corpus
    words (the paper: about 21.6k). Sizes of the recurrent variants follow ``d_model`` (see
    :mod:`reproducer.encoders.attention`)."""

    name: str
    max_books: int | None
    vocab_size: int  # output vocabulary, special tokens included
    d_model: int  # paper: 2048
    d_ff: int  # paper: 4096
    heads: int = 8
    word2vec_dim: int = 300  # the fixed input vectors: our word2vec of this size (the paper: GloVe 300d)
    dropout: float = 0.0  # the authors' code: 0.5
    label_smoothing: float = 0.1  # the authors' code
    positions: str = "sinusoidal"
    batch_size: int = 64
    min_tokens: int = 4
    max_tokens: int = 32
    lr: float = 2e-4  # Adam, as the paper
    clip: float = 5.0
    max_seconds: float | None = None
    max_steps: int | None = None
    eval_every: float | None = None
    eval_steps: int | None = None
    eval_config: str = "prototype"

    def to_dict(self) -> dict:
        return asdict(self)


AUTOENCODER: dict[str, AutoencoderPreset] = {p.name: p for p in [
    AutoencoderPreset("smoke", max_books=3, vocab_size=2000, d_model=16, d_ff=32, heads=2, word2vec_dim=32,
                      batch_size=16, max_steps=20, eval_steps=10),
    # CPU-sized: the 10k-way softmax dominates a step (0.3 s on 2 cores); 300 steps = 19,200 sentences per variant
    AutoencoderPreset("default", max_books=None, vocab_size=10000, d_model=256, d_ff=512, max_steps=300,
                      eval_steps=100),
    AutoencoderPreset("paper", max_books=None, vocab_size=21600, d_model=2048, d_ff=4096, dropout=0.5,
                      max_seconds=5 * 3600, eval_every=1800, eval_config="paper"),
]}


def autoencoder_preset(name: str, **overrides) -> AutoencoderPreset:
    """The named mean-max AAE preset with some fields replaced (``None`` values are ignored)."""
    return _preset(AUTOENCODER, AutoencoderPreset, "autoencoder", name, overrides)


def _preset(table: dict, cls, label: str, name: str, overrides: dict):
    if name not in table:
        raise ReproducerError(f"Unknown preset {name!r}; choose one of {', '.join(table)}.")
    unknown = set(overrides) - set(cls.__dataclass_fields__)
    if unknown:
        raise ReproducerError(f"Unknown {label} settings {sorted(unknown)}.")
    return replace(table[name], **{k: v for k, v in overrides.items() if v is not None})

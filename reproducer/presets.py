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
    if name not in SKIP_THOUGHT:
        raise ReproducerError(f"Unknown preset {name!r}; choose one of {', '.join(SKIP_THOUGHT)}.")
    fields = set(SkipThoughtPreset.__dataclass_fields__)
    unknown = set(overrides) - fields
    if unknown:
        raise ReproducerError(f"Unknown skip-thought settings {sorted(unknown)}.")
    return replace(SKIP_THOUGHT[name], **{k: v for k, v in overrides.items() if v is not None})

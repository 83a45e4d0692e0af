"""Trained encoders behind the one encoder contract, vocabulary expansion, and saved encoder bundles.

:class:`TokenEncoder` wraps a module that maps token ids to sentence vectors (e.g.
:class:`~reproducer.encoders.recurrent.RecurrentEncoder`): it tokenizes like the corpus, looks words up
(``<unk>`` otherwise), batches by length on the module's device, and returns NumPy vectors.

Vocabulary expansion (Kiros et al. 2015, section 3.1): fit a linear map ``M`` from a large pre-trained
word space (word2vec) to the encoder's word-embedding space by least squares on the words both share,
``min_M ||X_shared M - E_shared||²``; every word with a pre-trained vector but no trained embedding then
gets ``x M``. The encoder itself is unchanged; only its embedding table grows.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from reproducer.data.batches import pad, sentence_ids
from reproducer.data.vectors import WordVectors
from reproducer.data.vocab import SPECIALS, Vocabulary
from reproducer.encoders.bundles import (
    build_module,
    encoder_kind,
    from_bundle,
    module_spec,
    new_bundle,
    python_modules,
    save_encoder,
)
from reproducer.encoders.inputs import check_sentences
from reproducer.errors import ReproducerError
from reproducer.log import progress_bar
from reproducer.runtime import default_device, inference


@dataclass(frozen=True)
class Expansion:
    """What vocabulary expansion did: shared words the map was fitted on, words added, fit R²."""

    shared: int
    added: int
    r2: float


def fit_linear_map(source: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, float]:
    """Least-squares ``M`` with ``source @ M ≈ target`` (no bias, as Kiros et al.) and the fit's R²."""
    if len(source) != len(target) or len(source) < source.shape[1]:
        raise ReproducerError(f"Need at least as many shared words ({len(source)}) as source dimensions "
                              f"({source.shape[1]}) to fit the expansion map.")
    m, *_ = np.linalg.lstsq(source.astype(np.float64), target.astype(np.float64), rcond=None)
    residual = ((source @ m - target) ** 2).sum()
    total = ((target - target.mean(0)) ** 2).sum()
    return m.astype(np.float32), float(1 - residual / total)


def expand_embeddings(vocab: Vocabulary, embeddings: np.ndarray, vectors: WordVectors
                      ) -> tuple[Vocabulary, np.ndarray, Expansion]:
    """The vocabulary extended by every word of ``vectors`` it lacks, and the embedding table extended
    by their mapped vectors. Rows of the trained words are kept as they are."""
    index = {w: i for i, w in enumerate(vectors.words)}
    shared = [w for w in vocab.itos[len(SPECIALS):] if w in index]
    m, r2 = fit_linear_map(vectors.vectors[[index[w] for w in shared]],
                           embeddings[[vocab.stoi[w] for w in shared]])
    new = [w for w in vectors.words if w not in vocab.stoi]
    mapped = vectors.vectors[[index[w] for w in new]] @ m if new else np.zeros((0, embeddings.shape[1]), np.float32)
    expanded = Vocabulary(vocab.itos + new)
    return expanded, np.concatenate([embeddings, mapped.astype(embeddings.dtype)]), Expansion(len(shared), len(new), r2)


def refuse_view_options(name: str, options: dict) -> None:
    """:class:`ReproducerError` if ``options`` hold a choice that only consensus encoders take (``view``,
    ``pooling``): encoder ``name`` has no views, and silently ignoring the choice would mislabel its scores."""
    if any(options.get(key) is not None for key in ("view", "pooling")):
        raise ReproducerError(f"{name} has no views: the options view and pooling (--view, --pooling) apply only to "
                              "multi-view (consensus) encoders.")


#: The tokens (padding included) a batch of :meth:`TokenEncoder.encode` holds, per sentence of a full batch: batches of
#: sentences up to this long are full; longer ones come in smaller batches (one 10,000-word sentence among short ones
#: padded its whole batch of 128 to 1.3M tokens, ~21 GB for a 4,096-wide LSTM).
TOKENS_PER_SENTENCE = 256


def length_batches(lengths: list[int], batch_size: int, per_sentence: int = TOKENS_PER_SENTENCE
                   ) -> list[tuple[int, int]]:
    """``(start, end)`` spans over ``lengths`` (sorted ascending): at most ``batch_size`` sentences each, and at most
    ``batch_size × per_sentence`` tokens once padded to the longest (a sentence longer than that alone)."""
    budget, spans, start = batch_size * per_sentence, [], 0
    while start < len(lengths):
        end = start + 1
        while end < len(lengths) and end - start < batch_size and (end - start + 1) * lengths[end] <= budget:
            end += 1
        spans.append((start, end))
        start = end
    return spans


@encoder_kind
class TokenEncoder:
    """``encode(sentences) -> (n, d)`` for a trained id-to-vector module and its vocabulary."""

    def __init__(self, module: torch.nn.Module, vocab: Vocabulary, name: str, *, lowercase: bool = True,
                 device=None):
        if module.embed.num_embeddings != len(vocab):
            raise ReproducerError(f"{name}: the module has {module.embed.num_embeddings} word embeddings "
                                  f"but the vocabulary {len(vocab)} words.")
        self.module, self.vocab, self.name, self.lowercase = module, vocab, name, lowercase
        self.device = device if device is not None else next(module.parameters()).device

    @property
    def dim(self) -> int:
        return self.module.output_dim

    def ids(self, sentence: str) -> list[int]:
        return sentence_ids(self.vocab, sentence, lowercase=self.lowercase).tolist()  # empty: one <unk>

    def encode(self, sentences: list[str], batch_size: int = 128, show_progress_bar: bool = False) -> np.ndarray:
        rows = [self.ids(s) for s in check_sentences(sentences)]
        order = np.argsort([len(r) for r in rows], kind="stable")
        out = np.zeros((len(rows), self.dim), dtype=np.float32)
        spans = length_batches([len(rows[i]) for i in order], batch_size)
        with inference(self.module):
            for start, end in progress_bar(spans, desc=f"encode {self.name}", unit="batch",
                                           disable=not show_progress_bar):
                idx = order[start:end]
                ids, lengths = pad([np.asarray(rows[i]) for i in idx])
                out[idx] = self.module(ids.to(self.device), lengths.to(self.device)).float().cpu().numpy()
        return out

    def expanded(self, vectors: WordVectors, name: str | None = None) -> tuple["TokenEncoder", Expansion]:
        """A copy whose vocabulary is expanded with ``vectors`` (the original is unchanged)."""
        module = copy.deepcopy(self.module)
        vocab, table, report = expand_embeddings(self.vocab, module.embed.weight.detach().cpu().numpy(), vectors)
        module.embed = torch.nn.Embedding.from_pretrained(torch.from_numpy(table), freeze=True, padding_idx=0)
        module.to(self.device)
        return TokenEncoder(module, vocab, name or f"{self.name}+expansion", lowercase=self.lowercase,
                            device=self.device), report

    def to_bundle(self) -> dict:
        """What this encoder is (its module's spec), its vocabulary and its weights: see
        :mod:`reproducer.encoders.bundles`."""
        spec = module_spec(self.module)
        return new_bundle(self, module=spec, modules=python_modules(spec), vocab=list(self.vocab.itos),
                          lowercase=self.lowercase, state_dict={k: v.cpu() for k, v in self.module.state_dict().items()})

    @classmethod
    def from_bundle(cls, bundle: dict, device=None, **options) -> "TokenEncoder":
        """The encoder of :meth:`to_bundle`; ``options`` set attributes of the module that has them (e.g. the
        autoencoder's ``normalize_halves``)."""
        refuse_view_options(bundle["name"], options)
        module = build_module(bundle["module"])
        module.load_state_dict(bundle["state_dict"])
        for key, value in options.items():
            if not hasattr(module, key):
                raise ReproducerError(f"{bundle['name']} ({type(module).__name__}) has no option {key!r}.")
            setattr(module, key, value)
        device = default_device(device)
        return cls(module.to(device), Vocabulary(bundle["vocab"]), bundle["name"], lowercase=bundle["lowercase"],
                   device=device)

    def save(self, path: str | Path) -> Path:
        """An encoder bundle (loads with :func:`~reproducer.encoders.bundles.load_encoder`, ``weights_only=True``)."""
        return save_encoder(self, path)


@encoder_kind
class ConcatEncoder:
    """Several encoders side by side: their vectors concatenated (Kiros et al.'s combine-skip)."""

    def __init__(self, encoders: list, name: str):
        if not encoders:
            raise ReproducerError("ConcatEncoder needs at least one encoder.")
        self.encoders, self.name = list(encoders), name

    def encode(self, sentences: list[str], batch_size: int = 128, show_progress_bar: bool = False) -> np.ndarray:
        sentences = check_sentences(sentences)
        return np.concatenate([e.encode(sentences, batch_size, show_progress_bar) for e in self.encoders], axis=1)

    @property
    def expandable(self) -> bool:
        """Whether every part has a trained vocabulary to expand (not fixed pre-trained vectors)."""
        return all(getattr(e, "expandable", hasattr(e, "expanded")) for e in self.encoders)

    def expanded(self, vectors: WordVectors, name: str | None = None) -> tuple["ConcatEncoder", list]:
        """A copy whose parts' vocabularies are expanded (:meth:`TokenEncoder.expanded`); the expansion reports."""
        fixed = [e.name for e in self.encoders if not hasattr(e, "expanded")]
        if fixed:
            raise ReproducerError(f"{', '.join(fixed)} read fixed pre-trained word vectors: they need no expansion.")
        parts = [e.expanded(vectors, name=e.name) for e in self.encoders]
        return ConcatEncoder([e for e, _ in parts], name or f"{self.name}+expansion"), [r for _, r in parts]

    def to_bundle(self) -> dict:
        """The bundles of its parts (each must have ``to_bundle``)."""
        return new_bundle(self, parts=[e.to_bundle() for e in self.encoders])

    @classmethod
    def from_bundle(cls, bundle: dict, device=None, **options) -> "ConcatEncoder":
        refuse_view_options(bundle["name"], options)
        return cls([from_bundle(part, device, **options) for part in bundle["parts"]], bundle["name"])

    def save(self, path: str | Path) -> Path:
        return save_encoder(self, path)

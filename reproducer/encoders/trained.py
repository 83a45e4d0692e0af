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
from tqdm.auto import tqdm

from reproducer.data.batches import pad, sentence_ids
from reproducer.data.vectors import WordVectors
from reproducer.data.vocab import SPECIALS, Vocabulary
from reproducer.errors import ReproducerError
from reproducer.io import atomic_path
from reproducer.runtime import inference


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
        rows = [self.ids(s) for s in sentences]
        order = np.argsort([len(r) for r in rows], kind="stable")
        out = np.zeros((len(rows), self.dim), dtype=np.float32)
        with inference(self.module):
            for start in tqdm(range(0, len(rows), batch_size), desc=f"encode {self.name}", unit="batch",
                              disable=not show_progress_bar):
                idx = order[start:start + batch_size]
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

    def save(self, path: str | Path) -> None:
        """An encoder bundle: kind, sizes, vocabulary and weights; loads with ``weights_only=True``."""
        bundle = {"format": "reproducer-encoder/1", "kind": type(self.module).__name__, "name": self.name,
                  "config": self.module.config.to_dict(), "vocab": self.vocab.itos, "lowercase": self.lowercase,
                  "state_dict": {k: v.cpu() for k, v in self.module.state_dict().items()}}
        with atomic_path(path) as tmp:
            torch.save(bundle, tmp)


def load_encoder(path: str | Path, device=None, *, pooling: str = "unsupervised", view: str = "ensemble",
                 normalize_halves: bool = False):
    """A :class:`TokenEncoder` from a bundle written by :meth:`TokenEncoder.save`, or the encoder of a
    consensus-maximisation bundle (:func:`~reproducer.objectives.consensus.save_consensus`): one of its views or
    their ensemble (``view``) under the ``pooling`` rule, ``"unsupervised"`` or ``"supervised"``; or of a mean-max
    autoencoder bundle (:func:`~reproducer.objectives.autoencoder.save_autoencoder`), each pooled half L2-normalised
    with ``normalize_halves``."""
    from reproducer.encoders.compositional import CompositionalConfig, CompositionalEncoder
    from reproducer.encoders.recurrent import RecurrentConfig, RecurrentEncoder
    from reproducer.runtime import default_device

    kinds = {"RecurrentEncoder": (RecurrentConfig, RecurrentEncoder),
             "CompositionalEncoder": (CompositionalConfig, CompositionalEncoder)}
    path = Path(path)
    if not path.is_file():
        raise ReproducerError(f"No encoder file at {path}.")
    bundle = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(bundle, dict) or bundle.get("format") != "reproducer-encoder/1":
        raise ReproducerError(f"{path} is not an encoder bundle (a training checkpoint? save the encoder with "
                              f"TokenEncoder.save).")
    if bundle["kind"] == "Consensus":
        from reproducer.objectives.consensus import consensus_from_bundle

        return consensus_from_bundle(bundle, pooling, view, device)
    if bundle["kind"] == "Autoencoder":
        from reproducer.objectives.autoencoder import autoencoder_from_bundle

        return autoencoder_from_bundle(bundle, normalize_halves, device=device)
    if bundle["kind"] not in kinds:
        raise ReproducerError(f"{path}: unknown encoder kind {bundle['kind']!r}; known: {', '.join(kinds)}.")
    config_cls, module_cls = kinds[bundle["kind"]]
    config = config_cls(**{**bundle["config"], "vocab_size": len(bundle["vocab"])})
    module = module_cls(config)
    module.load_state_dict(bundle["state_dict"])
    device = default_device(device)
    return TokenEncoder(module.to(device), Vocabulary(bundle["vocab"]), bundle["name"],
                        lowercase=bundle["lowercase"], device=device)


class ConcatEncoder:
    """Several encoders side by side: their vectors concatenated (Kiros et al.'s combine-skip)."""

    def __init__(self, encoders: list, name: str):
        if not encoders:
            raise ReproducerError("ConcatEncoder needs at least one encoder.")
        self.encoders, self.name = list(encoders), name

    def encode(self, sentences: list[str], batch_size: int = 128, show_progress_bar: bool = False) -> np.ndarray:
        return np.concatenate([e.encode(sentences, batch_size, show_progress_bar) for e in self.encoders], axis=1)

"""One entry point for every table: ``evaluate(encoder, tasks, config) -> Results``.

For each task the harness loads its records, collects every unique sentence in them, sorts them
by length (so a batching encoder pads little), calls ``encoder.encode`` once with all of them,
then runs the task's protocol on the looked-up vectors. Results come back as a tidy
:class:`pandas.DataFrame` (task, metric, value) and as JSON, with the seconds each task took.
"""
from __future__ import annotations

import dataclasses
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np
import pandas as pd

from reproducer.encoders.base import Encoder, call_encode
from reproducer.errors import DegenerateEmbeddingWarning, ReproducerError, ReproducerWarning
from reproducer.evaluate.items import pop_items
from reproducer.evaluate.tasks import CONFIGS, TASKS, EvalConfig, Task, resolve_tasks
from reproducer.files import write_json
from reproducer.log import progress_bar

_TEXT_FIELDS = ("text", "a", "b")


def sentences_of(data: Any) -> list[str]:
    """Every sentence in a task's records (fields ``text``, ``a``, ``b``), unique, in first-seen order."""
    seen: dict[str, None] = {}

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)
        elif dataclasses.is_dataclass(x):
            for name in _TEXT_FIELDS:
                s = getattr(x, name, None)
                if isinstance(s, str):
                    seen.setdefault(s)

    walk(data)
    return list(seen)


def check_vectors(vectors: np.ndarray, n: int, encoder: str, task: str | None = None) -> None:
    """Raise unless ``vectors`` are ``n`` finite rows; warn (:class:`DegenerateEmbeddingWarning`) when every row is
    the same (e.g. all zero): the encoder then tells no sentence apart, and its scores are chance level."""
    where = f" on task {task}" if task else ""
    if vectors.ndim != 2 or len(vectors) != n or vectors.shape[1] == 0:
        raise ReproducerError(f"Encoder {encoder!r} returned shape {vectors.shape} for {n} sentences{where}; "
                              f"expected ({n}, dim) with dim at least 1.")
    if not np.all(np.isfinite(vectors)):
        rows = int((~np.isfinite(vectors)).any(axis=1).sum())
        raise ReproducerError(f"Encoder {encoder!r} returned NaN or infinite values{where} ({rows} of {n} "
                              "sentences): a diverged training run or a broken checkpoint?")
    if n > 1 and np.all(vectors == vectors[0]):
        warnings.warn(f"{encoder} is degenerate (constant vectors){where}: it gave the same vector for all {n} "
                      "sentences, so its scores mean nothing (chance level). An untrained, collapsed or zeroed model?",
                      DegenerateEmbeddingWarning, stacklevel=3)


def encode_unique(encoder: Encoder, sentences: list[str], batch_size: int = 128,
                  progress: bool = False, task: str | None = None) -> dict[str, np.ndarray]:
    """Encode each sentence once, in length-sorted order, and return a sentence -> vector map (vectors checked with
    :func:`check_vectors`; ``task`` names the task in its messages)."""
    order = sorted(sentences, key=lambda s: (len(s.split()), s))
    name = getattr(encoder, "name", type(encoder).__name__)
    found = call_encode(encoder, order, batch_size=batch_size, show_progress_bar=progress)
    if hasattr(found, "detach") and hasattr(found, "cpu"):  # a torch tensor (one that requires grad included)
        found = found.detach().cpu().numpy()
    try:
        vectors = np.asarray(found)
    except ValueError as e:  # NumPy refuses ragged rows
        raise ReproducerError(f"Encoder {name!r} returned vectors NumPy cannot stack ({e}); every sentence needs a "
                              "vector of the same size.") from None
    if vectors.dtype.kind not in "fiu":
        raise ReproducerError(f"Encoder {name!r} returned vectors of {vectors.dtype} values; a sentence's vector is "
                              "real numbers (float).")
    check_vectors(vectors, len(order), name, task)
    return dict(zip(order, probe_safe(vectors, name)))


#: The largest component the probes take as it is; larger vectors are scaled down by a power of two first.
PROBE_SAFE = 1e6


def probe_safe(vectors: np.ndarray, encoder: str) -> np.ndarray:
    """``vectors`` as the probes take them: as they are, unless a component is above :data:`PROBE_SAFE` in size — then
    divided by the power of two that brings the largest to at most 1, with a warning. A classifier's products of
    such features overflow or swamp its optimiser (glove-bow × 1e10 scored SICK-R 0.0 instead of 0.643); the
    direction of every vector, and so every cosine, is unchanged."""
    largest = float(np.abs(vectors).max(initial=0.0))
    if largest <= PROBE_SAFE:
        return vectors
    power = int(np.ceil(np.log2(largest)))
    warnings.warn(f"{encoder}'s vectors reach {largest:.3g}: scaled by 2^-{power} for the probes (cosines do not "
                  "change; a probe's fit depends on the scale of its features).", ReproducerWarning, stacklevel=3)
    scaled = vectors.astype(np.float64) * 2.0 ** -power  # a power of two: exact
    return scaled.astype(vectors.dtype) if vectors.dtype.kind == "f" else scaled


@dataclass
class Results:
    """Evaluation results: ``scores[task][metric]`` plus timing and settings."""

    encoder: str
    config: str
    scores: dict[str, dict[str, float]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    encode_seconds: dict[str, float] = field(default_factory=dict)
    sentences: dict[str, int] = field(default_factory=dict)
    items: dict[str, dict] = field(default_factory=dict)  # task -> per-item outcomes (reproducer.evaluate.items)
    dim: int | None = None  # the size of the encoder's vectors

    def to_frame(self) -> pd.DataFrame:
        """Tidy table: one row per (task, metric)."""
        rows = [{"encoder": self.encoder, "config": self.config, "task": t, "metric": m, "value": v}
                for t, metrics in self.scores.items() for m, v in metrics.items()]
        return pd.DataFrame(rows, columns=["encoder", "config", "task", "metric", "value"])

    def main_scores(self) -> pd.Series:
        """Each task's main metric (accuracy in %, or a correlation), indexed by task."""
        main = {t: TASKS[t].main_metric if t in TASKS else next(iter(m)) for t, m in self.scores.items()}
        return pd.Series({t: m.get(main[t], np.nan) for t, m in self.scores.items()}, name=self.encoder)

    def to_json(self) -> dict:
        return {"encoder": self.encoder, "config": self.config, "results": self.scores,
                "seconds": self.seconds, "encode_seconds": self.encode_seconds, "sentences": self.sentences,
                "items": self.items, "dim": self.dim}

    def save(self, path) -> None:
        write_json(path, self.to_json())

    @classmethod
    def from_json(cls, d: dict) -> "Results":
        return cls(d["encoder"], d["config"], d["results"], d.get("seconds", {}), d.get("encode_seconds", {}),
                   d.get("sentences", {}), d.get("items", {}), d.get("dim"))

    @classmethod
    def merged(cls, parts: Iterable["Results"]) -> "Results":
        """One encoder's results on several tasks from parts that each hold some of them (e.g. evaluated and cached
        one task at a time: :func:`evaluate_per_task`); a clear error when the parts are of different encoders or
        configurations, or share a task."""
        parts = list(parts)
        if not parts:
            raise ReproducerError("Nothing to merge: no results given.")
        first = parts[0]
        merged = cls(first.encoder, first.config, dim=first.dim)
        for part in parts:
            if (part.encoder, part.config) != (first.encoder, first.config):
                raise ReproducerError(f"Cannot merge results of {part.encoder} ({part.config}) into those of "
                                      f"{first.encoder} ({first.config}).")
            if twice := set(part.scores) & set(merged.scores):
                raise ReproducerError(f"{first.encoder}: task(s) {', '.join(sorted(twice))} given twice.")
            for mine, theirs in [(merged.scores, part.scores), (merged.seconds, part.seconds),
                                 (merged.encode_seconds, part.encode_seconds), (merged.sentences, part.sentences),
                                 (merged.items, part.items)]:
                mine.update(theirs)
            merged.dim = merged.dim if merged.dim is not None else part.dim
        return merged


def evaluate_per_task(build: Callable[[], Encoder], tasks: str | Iterable[str | Task], config: str | EvalConfig,
                      store: Callable[[str, Callable[[], dict]], dict], *, items: bool = True) -> Results:
    """:func:`evaluate` with each task a unit: ``store(task, compute)`` returns the stored JSON of the encoder's results
    on that task, or computes and stores it (a notebook's ``lambda task, f: run.json(f"{name}_{task}", f)``), so an
    interrupted evaluation resumes at its first unstored task. The encoder is built (``build()``) only when a task is
    missing, once. ``items=False`` stores no per-item outcomes (a table that no claim reads: a sixth of the size)."""
    encoder = None

    def compute(task: Task) -> dict:
        nonlocal encoder
        encoder = encoder if encoder is not None else build()
        done = evaluate(encoder, [task], config, progress=False).to_json()
        return done if items else {**done, "items": {}}

    return Results.merged(Results.from_json(store(task.name, lambda: compute(task)))
                          for task in resolve_tasks(tasks if isinstance(tasks, str) else list(tasks)))


def evaluate(encoder: Encoder, tasks: str | Iterable[str | Task] = "all", config: str | EvalConfig = "paper",
             *, progress: bool = True) -> Results:
    """Evaluate ``encoder`` on ``tasks`` ("all", "MR,CR" or a list) under ``config``: "paper" (the default:
    SentEval's PyTorch protocol, what the papers report), "fast" (SentEval's prototyping config), "sklearn",
    "prototype", "smoke" (a fixed sample of each task: plumbing checks only) or an :class:`EvalConfig`."""
    if isinstance(config, str):
        if config not in CONFIGS:
            raise ReproducerError(f"Unknown evaluation config {config!r}; choose one of {', '.join(CONFIGS)}.")
        config = CONFIGS[config]
    if not callable(getattr(encoder, "encode", None)):
        raise ReproducerError("An encoder needs a method encode(sentences: list[str]) -> np.ndarray.")
    chosen: list[Task] = resolve_tasks(tasks if isinstance(tasks, str) else list(tasks))
    results = Results(getattr(encoder, "name", type(encoder).__name__), config.name)
    bar = progress_bar(chosen, desc="evaluate", unit="task", disable=not progress)
    for task in bar:
        bar.set_postfix_str(task.name)
        t0 = time.perf_counter()
        data = config.sample(task.load())
        sentences = sentences_of(data)
        table = encode_unique(encoder, sentences, config.batch_size, progress=progress, task=task.name)
        t1 = time.perf_counter()
        if table:  # a task may encode nothing (e.g. a constant test task)
            results.dim = len(next(iter(table.values())))

        def embed(batch: list[str]) -> np.ndarray:
            return np.stack([table[s] for s in batch])

        try:
            scores = task.run(data, embed, config)
        except KeyError as e:
            raise ReproducerError(f"Task {task.name}: a sentence was not encoded ({e}); does load() "
                                  "return records with text/a/b fields?") from e
        items = pop_items(scores)
        results.scores[task.name] = scores
        if items is not None:
            results.items[task.name] = items
        results.seconds[task.name] = time.perf_counter() - t0
        results.encode_seconds[task.name] = t1 - t0
        results.sentences[task.name] = len(sentences)
    return results

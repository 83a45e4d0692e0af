"""The benchmarks at a glance: sizes, metrics, which of the five papers report each, sample sentences.

Used by the data chapter (``notebooks/00_data.ipynb``).
"""
from __future__ import annotations

import random

import pandas as pd

from reproducer.evaluate.harness import sentences_of
from reproducer.evaluate.tasks import TASKS, Task
from reproducer.papers.registry import DECLARATIONS

#: What the table says of a task no paper reports.
_NONE = "(none of the five)"


def reported_by() -> dict[str, tuple[str, ...]]:
    """Which papers report each task of :data:`~reproducer.evaluate.tasks.TASKS` (supervised-transfer or
    unsupervised, as the paper does): task -> paper keys in chapter order (empty for none), from each declaration's
    ``tasks`` (:mod:`reproducer.papers`)."""
    return {task: tuple(p.key for p in DECLARATIONS.values() if task in p.tasks) for task in TASKS}


def split_sizes(data) -> dict[str, int]:
    """Records per split (or per sub-dataset for STS); ``{"all": n}`` for a flat list."""
    if isinstance(data, dict):
        return {k: len(v) for k, v in data.items()}
    return {"all": len(data)}


def _records(data) -> list:
    return [r for v in data.values() for r in v] if isinstance(data, dict) else list(data)


def benchmark_table(tasks: dict[str, Task] | None = None) -> pd.DataFrame:
    """One row per task: kind, splits and sizes, total records, main metric, description, source,
    and which papers report it."""
    rows, reporters = [], reported_by()
    for name, task in (tasks or TASKS).items():
        sizes = split_sizes(task.load())
        rows.append({"task": name, "kind": task.kind,
                     "splits": ", ".join(f"{k} {v:,}" for k, v in sizes.items()),
                     "records": sum(sizes.values()), "metric": task.main_metric,
                     "protocol": task.description, "source": task.citation,
                     "reported by": ", ".join(DECLARATIONS[p].label for p in reporters.get(name, ())) or _NONE})
    return pd.DataFrame(rows)


#: The record field a task is scored against, where a record holds several (a SICK pair: relatedness and entailment).
_LABELS = {"SICK-E": ("entailment",), "SICK-R": ("relatedness",)}


def sample_records(task: Task, n: int = 3, seed: int = 0) -> pd.DataFrame:
    """``n`` random records of a task: text (or the two sides of a pair) and the label or score the task scores
    (SICK-E its entailment class, SICK-R its relatedness)."""
    records = random.Random(seed).sample(_records(task.load()), n)
    rows = []
    for r in records:
        text = r.text if hasattr(r, "text") else f"{r.a}  |||  {r.b}"
        label = next(getattr(r, f) for f in _LABELS.get(task.name, ("label", "score", "relatedness")) if hasattr(r, f))
        rows.append({"task": task.name, "text": text, "label": label})
    return pd.DataFrame(rows)


def sentence_lengths(task: Task, n: int = 2000, seed: int = 0) -> list[int]:
    """Whitespace-token lengths of up to ``n`` random sentences of a task (both sides of pairs)."""
    sentences = sentences_of(task.load())
    rng = random.Random(seed)
    sample = rng.sample(sentences, min(n, len(sentences)))
    return [len(s.split()) for s in sample]

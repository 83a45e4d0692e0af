"""The benchmarks at a glance: sizes, metrics, which of the five papers report each, sample sentences.

Used by the data chapter (``notebooks/00_data.ipynb``).
"""
from __future__ import annotations

import random

import pandas as pd

from reproducer.evaluate.tasks import TASKS, Task
from reproducer.models import PAPER_LABELS

ST, QT, PP, CM, MM = "kiros2015", "logeswaran2018", "wieting2016", "tang2019", "zhang2018"  # keys of models.PAPERS

#: Which of the five papers report each task (supervised-transfer or unsupervised, as the paper does).
#: Wieting et al. report SICK-E and SST with models fine-tuned on the task (their Table 5), not frozen probes;
#: their Twitter numbers are on SemEval-2015 PIT, for which the Twitter URL corpus stands in here.
REPORTED_BY: dict[str, tuple[str, ...]] = {
    **{t: (ST, QT, CM, MM) for t in ("MR", "CR", "SUBJ", "MPQA", "TREC", "MRPC")},
    "SST2": (QT, PP, CM, MM),
    "SICK-E": (PP, CM, MM),
    "SICK-R": (ST, QT, PP, CM, MM),
    "STS12": (PP, CM), "STS13": (PP, CM), "STS14": (QT, PP, CM, MM), "STS15": (PP, CM), "STS16": (CM,),
    "STSB": (),  # Tang & de Sa report the supervised STS-B (STSB-R)
    "STSB-R": (CM,),
    "SICK-cos": (PP, CM),
    "PPDB": (PP,),
    "PPDB-wiki": (),
    "Twitter": (PP,),
}


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
    rows = []
    for name, task in (tasks or TASKS).items():
        sizes = split_sizes(task.load())
        rows.append({"task": name, "kind": task.kind,
                     "splits": ", ".join(f"{k} {v:,}" for k, v in sizes.items()),
                     "records": sum(sizes.values()), "metric": task.main_metric,
                     "protocol": task.description, "source": task.citation,
                     "reported by": ", ".join(PAPER_LABELS[p] for p in REPORTED_BY.get(name, ())) or "(none of the five)"})
    return pd.DataFrame(rows)


def sample_records(task: Task, n: int = 3, seed: int = 0) -> pd.DataFrame:
    """``n`` random records of a task: text (or the two sides of a pair) and the label or score."""
    records = random.Random(seed).sample(_records(task.load()), n)
    rows = []
    for r in records:
        text = r.text if hasattr(r, "text") else f"{r.a}  |||  {r.b}"
        label = next(getattr(r, f) for f in ("label", "score", "relatedness") if hasattr(r, f))
        rows.append({"task": task.name, "text": text, "label": label})
    return pd.DataFrame(rows)


def sentence_lengths(task: Task, n: int = 2000, seed: int = 0) -> list[int]:
    """Whitespace-token lengths of up to ``n`` random sentences of a task (both sides of pairs)."""
    from reproducer.evaluate.harness import sentences_of

    sentences = sentences_of(task.load())
    rng = random.Random(seed)
    sample = rng.sample(sentences, min(n, len(sentences)))
    return [len(s.split()) for s in sample]

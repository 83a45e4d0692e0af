"""The evaluation tasks, declared as data: name, loader, protocol, main metric, citation.

A task's ``load()`` returns its records (from :mod:`reproducer.data.loaders`); the harness
encodes every unique sentence in them once, then ``run(data, embed, config)`` looks the vectors up
with ``embed`` and applies its protocol from :mod:`reproducer.evaluate.protocols`. Adding a task
means adding one entry to :data:`TASKS`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable

import numpy as np

from reproducer.data import loaders as L
from reproducer.errors import ReproducerError
from reproducer.evaluate import protocols as P

Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class EvalConfig:
    """A named evaluation configuration: the linear probe, the SICK-R probe, the encoding batch."""

    name: str
    classifier: P.ClassifierConfig
    relatedness: P.RelatednessConfig
    batch_size: int = 128
    pair_uv: bool = False  # MRPC/SICK features [u, v, |u-v|, u*v] instead of Kiros et al.'s [|u-v|, u*v]


CONFIGS: dict[str, EvalConfig] = {
    # SentEval's protocol: 10 outer x 10 inner folds over C in 2^-2..2^3; SICK-R in 50-epoch rounds.
    "paper": EvalConfig("paper", P.ClassifierConfig(), P.RelatednessConfig()),
    # Quick checks (tests, smoke runs): fewer folds, a coarser grid, shorter SICK-R rounds.
    "prototype": EvalConfig(
        "prototype",
        P.ClassifierConfig(kfold=5, inner_kfold=3, cs=(0.25, 1.0, 4.0), max_iter=300),
        P.RelatednessConfig(epochs_per_round=5, patience=1, max_epochs=50),
    ),
}


def _texts(records, *fields) -> list[list[str]]:
    return [[getattr(r, f) for r in records] for f in fields]


def _labels(records, field: str = "label") -> np.ndarray:
    return np.array([getattr(r, field) for r in records])


def _single_cv(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
    rows = data["all"]
    return P.cv_accuracy(embed([r.text for r in rows]), _labels(rows), config.classifier)


def _trec(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
    return P.train_test_accuracy(embed([r.text for r in data["train"]]), _labels(data["train"]),
                                 embed([r.text for r in data["test"]]), _labels(data["test"]), config.classifier)


def _sst2(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
    x = {s: embed([r.text for r in data[s]]) for s in ("train", "dev", "test")}
    y = {s: _labels(data[s]) for s in ("train", "dev", "test")}
    return P.dev_accuracy(x["train"], y["train"], x["dev"], y["dev"], x["test"], y["test"], config.classifier)


def _pairs(embed: Embed, records, config: EvalConfig) -> np.ndarray:
    a, b = _texts(records, "a", "b")
    return P.pair_features(embed(a), embed(b), with_uv=config.pair_uv)


def _mrpc(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
    return P.train_test_accuracy(_pairs(embed, data["train"], config), _labels(data["train"]),
                                 _pairs(embed, data["test"], config), _labels(data["test"]), config.classifier)


def _sick_e(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
    x = {s: _pairs(embed, data[s], config) for s in data}
    y = {s: _labels(data[s], "entailment") for s in data}
    return P.dev_accuracy(x["train"], y["train"], x["dev"], y["dev"], x["test"], y["test"], config.classifier)


def _relatedness(field: str, shift: float = 0.0, n_classes: int = 5) -> Callable:
    """Tai et al.'s relatedness probe on train/dev/test pairs scored in ``field``: SICK-R (1-5), or STS-B supervised
    (SentEval's STSBenchmark: 0-5 scores shifted by 1 to 1-6, six levels)."""
    def run(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
        x = {s: _pairs(embed, data[s], config) for s in data}
        y = {s: _labels(data[s], field).astype(float) + shift for s in data}
        return P.relatedness(x["train"], y["train"], x["dev"], y["dev"], x["test"], y["test"], config.relatedness,
                             n_classes=n_classes)
    return run


def _sts(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
    out, per, us, vs, golds = {}, {}, [], [], []
    for name, pairs in data.items():
        a, b = _texts(pairs, "a", "b")
        u, v, gold = embed(a), embed(b), _labels(pairs).astype(float)
        per[name] = P.cosine_correlations(u, v, gold)
        out[f"{name}.pearson"], out[f"{name}.spearman"] = per[name]["pearson"], per[name]["spearman"]
        us.append(u), vs.append(v), golds.append(gold)
    pooled = P.cosine_correlations(np.concatenate(us), np.concatenate(vs), np.concatenate(golds))
    out.update(P.aggregate_sts(per, pooled))
    return out


def _stsb(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
    out = {}
    for split in ("dev", "test"):
        a, b = _texts(data[split], "a", "b")
        r = P.cosine_correlations(embed(a), embed(b), _labels(data[split]).astype(float))
        prefix = "" if split == "test" else "dev_"
        out[f"{prefix}pearson"], out[f"{prefix}spearman"] = r["pearson"], r["spearman"]
    return out


def _cosine_task(label: str) -> Callable:
    def run(pairs, embed: Embed, config: EvalConfig) -> dict[str, float]:
        a, b = _texts(pairs, "a", "b")
        r = P.cosine_correlations(embed(a), embed(b), _labels(pairs, label).astype(float))
        return {"spearman": r["spearman"], "pearson": r["pearson"]}
    return run


@dataclass(frozen=True)
class Task:
    name: str
    load: Callable[[], object]
    run: Callable[[object, Embed, EvalConfig], dict[str, float]]
    main_metric: str
    kind: str  # "classification" | "pair-classification" | "relatedness" | "similarity"
    description: str
    citation: str


TASKS: dict[str, Task] = {t.name: t for t in [
    Task("MR", L.load_mr, _single_cv, "acc", "classification",
         "movie-review sentiment, 10-fold CV", "Pang & Lee 2005"),
    Task("CR", L.load_cr, _single_cv, "acc", "classification",
         "product-review sentiment, 10-fold CV", "Hu & Liu 2004"),
    Task("SUBJ", L.load_subj, _single_cv, "acc", "classification",
         "subjectivity, 10-fold CV", "Pang & Lee 2004"),
    Task("MPQA", L.load_mpqa, _single_cv, "acc", "classification",
         "opinion polarity, 10-fold CV", "Wiebe et al. 2005"),
    Task("TREC", L.load_trec, _trec, "acc", "classification",
         "question type (6 coarse classes), train/test", "Li & Roth 2002"),
    Task("SST2", partial(L.load_sst2, "sentence"), _sst2, "acc", "classification",
         "binary sentiment, sentence level, dev selects L2", "Socher et al. 2013"),
    Task("MRPC", L.load_mrpc, _mrpc, "acc", "pair-classification",
         "paraphrase detection on [|u-v|, u*v], accuracy and F1", "Dolan et al. 2004"),
    Task("SICK-E", L.load_sick, _sick_e, "acc", "pair-classification",
         "entailment (3 classes) on [|u-v|, u*v], dev selects L2", "Marelli et al. 2014"),
    Task("SICK-R", L.load_sick, _relatedness("relatedness"), "pearson", "relatedness",
         "relatedness, Tai et al.'s softmax-over-scores probe", "Marelli et al. 2014"),
    *[Task(year, partial(L.load_sts, year), _sts, "wmean.pearson", "similarity",
           f"SemEval 20{year[3:]} STS, cosine vs gold", "Agirre et al. 2012-2016")
      for year in L.STS_DATASETS],
    Task("STSB", L.load_stsb, _stsb, "pearson", "similarity",
         "STS Benchmark test, cosine vs gold (unsupervised)", "Cer et al. 2017"),
    Task("STSB-R", L.load_stsb, _relatedness("label", shift=1.0, n_classes=6), "pearson", "relatedness",
         "STS Benchmark, supervised: the SICK-R probe trained on STS-B train", "Cer et al. 2017"),
    Task("SICK-cos", lambda: L.load_sick()["test"], _cosine_task("relatedness"), "pearson", "similarity",
         "SICK test relatedness by cosine, unsupervised (SICK14 of Tang & de Sa 2019)", "Marelli et al. 2014"),
    Task("PPDB", partial(L.load_ppdb_human, "ppdb"), _cosine_task("score"), "spearman", "similarity",
         "PPDB 2.0 human-scored phrase pairs, Spearman of cosine", "Pavlick et al. 2015"),
    Task("PPDB-wiki", partial(L.load_ppdb_human, "wiki"), _cosine_task("score"), "spearman", "similarity",
         "PPDB 2.0 human-scored Wikipedia pairs, Spearman of cosine", "Pavlick et al. 2015"),
    Task("Twitter", L.load_twitter_url_graded, _cosine_task("label"), "pearson", "similarity",
         "Twitter URL corpus test, cosine vs share of 6 annotators saying paraphrase", "Lan et al. 2017"),
]}


def resolve_tasks(names: str | list[str | Task]) -> list[Task]:
    """Task objects for ``"all"``, a comma-separated string, or a list of names (case-insensitive)
    and :class:`Task` objects (e.g. small mock tasks in tests)."""
    if isinstance(names, str):
        names = list(TASKS) if names.strip().lower() == "all" else [n for n in names.split(",") if n.strip()]
    lookup = {k.lower(): k for k in TASKS}
    out = []
    for n in names:
        if isinstance(n, Task):
            out.append(n)
            continue
        key = lookup.get(n.strip().lower())
        if key is None:
            raise ReproducerError(f"Unknown task {n!r}. Known tasks: {', '.join(TASKS)} (or 'all').")
        out.append(TASKS[key])
    if not out:
        raise ReproducerError("No tasks given: name some (e.g. MR,CR) or 'all'.")
    return out

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
from reproducer.evaluate import senteval as S
from reproducer.evaluate.items import KEY, grouped_items

Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class EvalConfig:
    """A named evaluation configuration: the linear probe (SentEval's PyTorch back end,
    :class:`~reproducer.evaluate.senteval.SentEvalConfig`, or its scikit-learn one,
    :class:`~reproducer.evaluate.protocols.ClassifierConfig`), the SICK-R probe, the encoding batch."""

    name: str
    classifier: P.ClassifierConfig | S.SentEvalConfig
    relatedness: P.RelatednessConfig | S.SentEvalRelatednessConfig
    batch_size: int = 128
    pair_uv: bool = False  # MRPC/SICK features [u, v, |u-v|, u*v] instead of Kiros et al.'s [|u-v|, u*v]
    max_items: int | None = None  # at most this many records per split, a fixed sample (``smoke``; None: all)

    def sample(self, data):
        """``data`` as a task loaded it (lists of records, or a dict of them per split or dataset) with each list cut
        to :attr:`max_items` records: a sample fixed by the list's length alone, in file order, so every encoder
        is scored on the same items (and paired comparisons stay paired)."""
        if self.max_items is None:
            return data
        if isinstance(data, dict):
            return {k: self.sample(v) for k, v in data.items()}
        if not isinstance(data, list) or len(data) <= self.max_items:
            return data
        keep = np.sort(np.random.default_rng(len(data)).choice(len(data), self.max_items, replace=False))
        return [data[i] for i in keep]


CONFIGS: dict[str, EvalConfig] = {
    # What the papers used: SentEval's PyTorch logistic regression (10 folds, L2 in 10^-5..10^-2, Adam, early
    # stopping), its SICK-R probe, its record order -- the literature's SentEval numbers, trained batched.
    "paper": EvalConfig("paper", S.SentEvalConfig(), S.SentEvalRelatednessConfig()),
    # SentEval's prototyping config (its README: "a proxy of the results", about 5x faster for classification):
    # 5 folds, RMSprop, batch 128, tenacity 3, epoch size 2; the SICK-R probe as "paper". For tables with many
    # high-dimensional rows (chapter 04's Table 3).
    "fast": EvalConfig("fast", S.PROTOTYPING, S.SentEvalRelatednessConfig()),
    # SentEval's scikit-learn back end: lbfgs to the optimum, C in 2^-2..2^3, 10 outer x 10 inner folds.
    "sklearn": EvalConfig("sklearn", P.ClassifierConfig(), P.RelatednessConfig()),
    # Quick looks (tests, smoke runs, the default-preset chapters): the scikit-learn back end with fewer folds,
    # a coarser grid and shorter SICK-R rounds.
    "prototype": EvalConfig(
        "prototype",
        P.ClassifierConfig(kfold=5, inner_kfold=3, cs=(0.25, 1.0, 4.0), max_iter=300),
        P.RelatednessConfig(epochs_per_round=5, patience=1, max_epochs=50),
    ),
    # The smoke preset's: does every table's plumbing run? Not a protocol (each protocol has its own exact tests):
    # 400 items a split, one C, two folds, one process, a few SICK-R epochs. Its scores mean nothing.
    "smoke": EvalConfig(
        "smoke",
        P.ClassifierConfig(kfold=2, inner_kfold=2, cs=(1.0,), max_iter=100, n_jobs=1),
        P.RelatednessConfig(epochs_per_round=2, patience=1, max_epochs=4),
        max_items=400,
    ),
}


def quick_look(config: str) -> str:
    """The protocol of the quick looks a chapter takes beside its tables (training curves, the U score of many
    snapshots): ``prototype``, or ``smoke`` where the tables themselves use ``smoke`` (the smoke preset)."""
    return "smoke" if config == "smoke" else "prototype"


# Class ids in SentEval's order (its initial weights are per class, so the order is part of the protocol).
TREC_CLASSES = ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM")
SICK_E_CLASSES = ("CONTRADICTION", "NEUTRAL", "ENTAILMENT")


def _texts(records, *fields) -> list[list[str]]:
    return [[getattr(r, f) for r in records] for f in fields]


def _labels(records, field: str = "label", classes: tuple[str, ...] | None = None) -> np.ndarray:
    values = [getattr(r, field) for r in records]
    if classes is None:
        return np.array(values)
    ids = {c: i for i, c in enumerate(classes)}
    unknown = set(values) - set(ids)
    if unknown:
        raise ReproducerError(f"Unexpected labels {sorted(unknown)}; expected {', '.join(classes)}.")
    return np.array([ids[v] for v in values])


def _length(text: str) -> int:
    return len(text.split())


def _ordered(records, config: EvalConfig, *texts: str, label: str = "label", classes: tuple[str, ...] = ()):
    """Records in SentEval's order when the protocol is SentEval's: sorted by the token count of each field in
    ``texts``, then by ``label`` (a score, or its class id in ``classes``); otherwise as loaded."""
    if not config.classifier.senteval_order:
        return list(records)
    ids = {c: i for i, c in enumerate(classes)}

    def key(r):
        value = getattr(r, label)
        return (*(_length(getattr(r, f)) for f in texts), ids.get(value, -1) if classes else value)
    return sorted(records, key=key)  # stable, as Python's sort in SentEval


def _single_cv(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
    rows = _ordered(data["all"], config, "text")
    return config.classifier.cv(embed([r.text for r in rows]), _labels(rows))


def _trec(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
    train, test = (_ordered(data[s], config, "text", classes=TREC_CLASSES) for s in ("train", "test"))
    return config.classifier.train_test(embed([r.text for r in train]), _labels(train, classes=TREC_CLASSES),
                                        embed([r.text for r in test]), _labels(test, classes=TREC_CLASSES))


def _sst2(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
    rows = {s: _ordered(data[s], config, "text") for s in ("train", "dev", "test")}
    x = {s: embed([r.text for r in rows[s]]) for s in rows}
    y = {s: _labels(rows[s]) for s in rows}
    return config.classifier.dev(x["train"], y["train"], x["dev"], y["dev"], x["test"], y["test"])


def _pairs(embed: Embed, records, config: EvalConfig) -> np.ndarray:
    a, b = _texts(records, "a", "b")
    return P.pair_features(embed(a), embed(b), with_uv=config.pair_uv)


def _mrpc(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
    train, test = (_ordered(data[s], config, "a", "b") for s in ("train", "test"))
    return config.classifier.train_test(_pairs(embed, train, config), _labels(train),
                                        _pairs(embed, test, config), _labels(test))


def _sick_e(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
    rows = {s: _ordered(data[s], config, "a", "b", label="entailment", classes=SICK_E_CLASSES) for s in data}
    x = {s: _pairs(embed, rows[s], config) for s in rows}
    y = {s: _labels(rows[s], "entailment", SICK_E_CLASSES) for s in rows}
    return config.classifier.dev(x["train"], y["train"], x["dev"], y["dev"], x["test"], y["test"])


def _relatedness(field: str, shift: float = 0.0, n_classes: int = 5) -> Callable:
    """Tai et al.'s relatedness probe on train/dev/test pairs scored in ``field``: SICK-R (1-5), or STS-B supervised
    (0-5 scores shifted by 1 to 1-6, six levels)."""
    def run(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
        rows = {s: _ordered(data[s], config, "a", "b", label=field) for s in data}
        x = {s: _pairs(embed, rows[s], config) for s in rows}
        y = {s: _labels(rows[s], field).astype(float) + shift for s in rows}
        return config.relatedness.fit(x["train"], y["train"], x["dev"], y["dev"], x["test"], y["test"],
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
    return {**out, **grouped_items({name: m[KEY] for name, m in per.items()})}


def _stsb(data, embed: Embed, config: EvalConfig) -> dict[str, float]:
    out = {}
    for split in ("dev", "test"):
        a, b = _texts(data[split], "a", "b")
        r = P.cosine_correlations(embed(a), embed(b), _labels(data[split]).astype(float))
        prefix = "" if split == "test" else "dev_"
        out[f"{prefix}pearson"], out[f"{prefix}spearman"] = r["pearson"], r["spearman"]
    return {**out, KEY: r[KEY]}  # the test split's items


def _cosine_task(label: str) -> Callable:
    def run(pairs, embed: Embed, config: EvalConfig) -> dict[str, float]:
        a, b = _texts(pairs, "a", "b")
        r = P.cosine_correlations(embed(a), embed(b), _labels(pairs, label).astype(float))
        return {"spearman": r["spearman"], "pearson": r["pearson"], KEY: r[KEY]}
    return run


@dataclass(frozen=True)
class Task:
    """An evaluation task: its name, ``load()`` (its records), ``run(data, embed, config)`` (its protocol: the
    scores), the main metric, its kind, a description and the citation of its data."""

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


def points_scale(task: str) -> float:
    """What turns ``task``'s main score into points, the unit of the book's comparisons: 1 for an accuracy (already
    in %), 100 for a correlation."""
    return 1.0 if TASKS[task].main_metric == "acc" else 100.0


def resolve_tasks(names: str | list[str | Task]) -> list[Task]:
    """Task objects for ``"all"``, a comma-separated string, or a list of names (case-insensitive)
    and :class:`Task` objects (e.g. small mock tasks in tests)."""
    if isinstance(names, str):
        names = list(TASKS) if names.strip().lower() == "all" else [n for n in names.split(",") if n.strip()]
    lookup = {k.lower(): k for k in TASKS}
    out = []
    if not isinstance(names, (list, tuple)):
        raise ReproducerError(f"Tasks are a list of names (or 'MR,CR', or 'all'), got {type(names).__name__}.")
    for n in names:
        if isinstance(n, Task):
            out.append(n)
            continue
        if not isinstance(n, str):
            raise ReproducerError(f"A task is a name such as 'MR' (or a Task), got {n!r} ({type(n).__name__}).")
        key = lookup.get(n.strip().lower())
        if key is None:
            raise ReproducerError(f"Unknown task {n!r}. Known tasks: {', '.join(TASKS)} (or 'all').")
        if TASKS[key] not in out:  # "MR,mr" is one task, evaluated once
            out.append(TASKS[key])
    if not out:
        raise ReproducerError("No tasks given: name some (e.g. MR,CR) or 'all'.")
    return out

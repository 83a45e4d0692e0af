"""Sentence analogies as tables (Logeswaran & Lee 2018, Tables 6 and 7), over questions mined from our corpus.

:func:`analogy_study` mines the questions (:mod:`reproducer.evaluate.analogy`: sentence pairs that differ in one
word of a Google analogy pair) and scores each encoder; its result is plain JSON, so a chapter caches it.
:func:`accuracy_table` is Table 6 (accuracy by category, with :func:`table6_caption`, or :func:`no_questions`
when the corpus gave none), :func:`answer_examples` Table 7 (questions and answers).
"""
from __future__ import annotations

from typing import Callable, Iterable

import pandas as pd

from reproducer.evaluate.analogy import SentenceAnalogy, analogy_accuracy, make_questions, mine_pairs, word_pairs


def analogy_study(sentences: list[str], names: Iterable[str], encoder: Callable[[str], object], *,
                  per_category: int = 200, seed: int = 0) -> dict:
    """Questions ``A : B :: C : D`` mined from ``sentences`` (up to ``per_category`` per Google analogy category) and,
    for each of ``names``, :func:`~reproducer.evaluate.analogy.analogy_accuracy` of ``encoder(name)``:
    ``{"pairs": mined pairs, "questions": [...], name: {...}, ...}``. With no question (a tiny corpus) no encoder is
    built."""
    out = mine_questions(sentences, per_category, seed)
    for name in names if out["questions"] else ():
        out[name] = answer(encoder(name), out)
    return out


def mine_questions(sentences: list[str], per_category: int = 200, seed: int = 0) -> dict:
    """``{"pairs": mined pairs, "questions": [question fields, ...], "seed": seed}``: questions ``A : B :: C : D``
    mined from ``sentences`` (up to ``per_category`` per Google analogy category, drawn with ``seed``)."""
    from reproducer.data.loaders import load_google_analogy

    mined = mine_pairs(sentences, word_pairs(load_google_analogy()))
    questions = make_questions(mined, per_category=per_category, seed=seed)
    return {"pairs": len(mined), "questions": [q.__dict__ for q in questions], "seed": seed}


def answer(encoder, study: dict) -> dict:
    """:func:`~reproducer.evaluate.analogy.analogy_accuracy` of ``encoder`` on the questions of ``study``
    (:func:`mine_questions`), with ``hits``: which questions it answered right (a string of ``0``/``1``, the
    per-item outcomes of a bootstrap interval)."""
    questions = [SentenceAnalogy(**q) for q in study["questions"]]
    out = analogy_accuracy(encoder, questions)
    out["hits"] = "".join("1" if a == q.d else "0" for a, q in zip(out["answers"], questions))
    return out


def accuracy_table(study: dict, names: list[str]) -> pd.DataFrame:
    """Table 6: retrieval accuracy (%) of each of ``names`` by category, most questions first, then ``all``; a column
    ``questions`` counts them."""
    counts = pd.Series(study[names[0]]["questions"], name="questions")
    table = pd.DataFrame({n: study[n]["per_category"] for n in names}).mul(100)
    table = table.join(counts).sort_values("questions", ascending=False)
    table.loc["all"] = [100 * study[n]["accuracy"] for n in names] + [counts.sum()]
    return table


def table6_caption(study: dict, table: pd.DataFrame, name: str) -> str:
    """Table 6's caption (Markdown): mined pairs, questions (``table``'s ``all`` row) and ``name``'s pool size."""
    return (f"**Table 6**: retrieval accuracy (%) by category; {study['pairs']:,} mined sentence pairs, "
            f"{int(table.loc['all', 'questions']):,} questions, a pool of {study[name]['pool']:,} sentences.")


def no_questions(study: dict) -> str:
    """What a chapter shows instead of Table 6 when the corpus gave no question (Markdown)."""
    return (f"No analogy questions in this corpus ({study['pairs']} mined pairs): the `smoke` preset's "
            "three books are too few.")


def answer_examples(study: dict, name: str, *, hits: int = 3, misses: int = 2,
                    display: Callable[[str], str] = str) -> pd.DataFrame:
    """Table 7: ``name``'s answers to a few questions, the first hit of ``hits`` categories (the last ones with a hit)
    then the first ``misses`` failures, with a column ``correct`` (✓, or ✗ and the expected sentence); sentences
    shown through ``display``."""
    qs = pd.DataFrame(study["questions"]).assign(answer=study[name]["answers"])
    qs["correct"] = qs.answer == qs.d
    picks = pd.concat([qs[qs.correct].groupby("category").head(1).tail(hits), qs[~qs.correct].head(misses)])
    table = picks[["category", "a", "b", "c", "answer"]].map(display).assign(category=picks.category)
    table["correct"] = ["✓" if ok else "✗ expected: " + display(d) for ok, d in zip(picks.correct, picks.d)]
    return table


def category_share(study: dict, category: str, name: str) -> float:
    """The share of the questions that belong to ``category`` (0 with no question)."""
    if not study["questions"]:
        return 0.0
    return study[name]["questions"].get(category, 0) / len(study["questions"])

"""Downstream scores while a model trains: the ``evaluate(fitted, step)`` callback of every family's ``fit``
(:func:`reproducer.train.fit_module`), whose scores become the log's evaluation records and a chapter's training
curve (:func:`reproducer.report.plots.curves` with ``part="evals"``)."""
from __future__ import annotations

from typing import Callable, Iterable

from reproducer.evaluate.harness import evaluate


def curve_scores(tasks: Iterable = ("STS14",), config: str = "prototype", *,
                 encoder: Callable | None = None) -> Callable[[object, int], dict[str, float]]:
    """A callback ``(fitted, step) -> {task: main score}`` scoring ``fitted.encoder`` (or ``encoder(fitted)``, e.g.
    Quick-Thoughts' input encoder ``f`` alone) on ``tasks`` under the ``config`` protocol. The default, STS14 by
    cosine (weighted-mean Pearson r), trains nothing: a cheap signal to evaluate every minute."""
    tasks = list(tasks)

    def scores(fitted, step: int) -> dict[str, float]:
        chosen = encoder(fitted) if encoder is not None else fitted.encoder
        return {task: float(score) for task, score in
                evaluate(chosen, tasks, config, progress=False).main_scores().items()}

    return scores

"""Downstream scores while a model trains: the ``evaluate(fitted, step)`` callback of every family's ``fit``
(:func:`reproducer.fit.fit`), whose scores become the log's evaluation records and a chapter's training
curve (:func:`reproducer.report.plots.curves` with ``part="evals"``)."""
from __future__ import annotations

from typing import Callable, Iterable

from reproducer.errors import ReproducerError
from reproducer.evaluate.harness import evaluate
from reproducer.runtime import inference


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


def held_out_loss(batches: list) -> Callable[[object, int], dict[str, float]]:
    """A callback ``(fitted, step) -> {"held-out loss": mean}``: the training objective (``fitted.module(batch)``, in
    evaluation mode, without gradients) averaged over fixed held-out ``batches``
    (:meth:`reproducer.declarations.Family.held_out_batches`). When it stops falling, more training of this objective buys
    little; when it rises, the model is fitting its training books."""
    if not batches:
        raise ReproducerError("held_out_loss needs at least one held-out batch.")

    def scores(fitted, step: int) -> dict[str, float]:
        device = next(fitted.module.parameters()).device
        with inference(fitted.module):
            losses = [float(fitted.module(b.to(device) if hasattr(b, "to") else b)) for b in batches]
        return {"held-out loss": sum(losses) / len(losses)}

    return scores


def combined(*callbacks: Callable[[object, int], dict] | None) -> Callable[[object, int], dict[str, float]]:
    """One callback returning the scores of every given one (``None`` entries skipped)."""
    chosen = [c for c in callbacks if c is not None]

    def scores(fitted, step: int) -> dict[str, float]:
        return {k: v for c in chosen for k, v in c(fitted, step).items()}

    return scores

"""Plots the chapters share: training curves from :class:`~reproducer.train.TrainLog` records."""
from __future__ import annotations

import pandas as pd


def log_frame(logs: dict[str, dict], part: str = "losses") -> pd.DataFrame:
    """The ``losses`` or ``evals`` records of several training logs (name → ``TrainLog.to_dict()``) as one frame with
    a ``model`` column."""
    return pd.concat([pd.DataFrame(log[part]).assign(model=name) for name, log in logs.items() if log.get(part)],
                     ignore_index=True)


def legend_below(ax, ncol: int = 3, **options) -> None:
    """``ax``'s legend under the axes (below its x label), in ``ncol`` columns: off the data, and not beside the
    axes, where it would take the width the figure needs in the book's text column."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=ncol, **options)


def curves(logs: dict[str, dict], y: str, ax, *, part: str = "losses", x: str = "seconds", marker: str | None = None,
           **labels):
    """One line per model of ``y`` (``"loss"``, or a score of the evaluation records with ``part="evals"``) against
    training ``x`` (``"seconds"`` or ``"step"``) on ``ax``; ``labels`` go to ``ax.set`` (xlabel, ylabel, title)."""
    import seaborn as sns

    sns.lineplot(data=log_frame(logs, part), x=x, y=y, hue="model", marker=marker, ax=ax)
    ax.set(**labels)
    legend_below(ax, title="model")
    return ax


def gap_bars(comparison: pd.DataFrame, ax, *, metrics: tuple[str, ...] = ("acc", "pearson"), **labels):
    """Ours − paper as bars per task (x) and encoder (colour) from a :func:`~reproducer.report.published.compare`
    frame (several encoders stacked): the rows of ``metrics``, accuracies in points and correlations × 100, with a
    line at zero; ``labels`` go to ``ax.set`` (the y label says the units unless replaced)."""
    import numpy as np
    import seaborn as sns

    diffs = comparison[comparison.metric.isin(metrics)].copy()
    diffs["points"] = np.where(diffs.metric == "acc", diffs["diff"], 100 * diffs["diff"])
    sns.barplot(data=diffs, x="task", y="points", hue="encoder", errorbar=None, ax=ax)
    ax.axhline(0, color="black", lw=0.8)
    ax.set(**{"xlabel": "", "ylabel": "ours − paper (accuracy points; r × 100)", **labels})
    return ax


def task_curves(logs: dict[str, dict], tasks: list[str], *, ylabel: str = "", title: str = "",
                seconds_per_step: dict[str, float] | None = None, xlabel: str = "training seconds"):
    """Downstream scores while training, one panel per task of ``tasks`` (three a row, own y scales): a line per model
    (name → a training log whose evaluation records score those tasks) against training seconds — as measured, or,
    with ``seconds_per_step`` (model → seconds), each record's step times its model's declared seconds per step (a
    clock that reads the same on every machine); the x label once, under the grid (under each panel, a long one made
    the figure too wide for the book's column). Returns the seaborn ``FacetGrid``."""
    import seaborn as sns

    frame = log_frame(logs, "evals").melt(id_vars=["model", "step", "seconds"], var_name="task", value_name="score")
    if seconds_per_step:
        frame["seconds"] = frame["step"] * frame["model"].map(seconds_per_step)
    grid = sns.relplot(data=frame, x="seconds", y="score", hue="model", col="task", col_wrap=3, col_order=tasks,
                       kind="line", marker="o", height=2.6, aspect=1.2, facet_kws={"sharey": False})
    grid.set_axis_labels("", "").set_titles("{col_name}")
    grid.figure.supxlabel(xlabel, y=-0.01)  # once, under the grid: a long label under each panel widens the figure
    grid.figure.supylabel(ylabel, x=-0.01)
    grid.figure.suptitle(title, y=1.02)
    return grid


def score_bars(scores: pd.DataFrame, ax, *, value: str = "accuracy", **labels):
    """Grouped bars of ``scores`` (rows: encoders, columns: tasks): a group per task, a bar per encoder, the y axis
    from 5 below the lowest score to 100 and the legend in five columns at the top; ``labels`` go to ``ax.set``."""
    import seaborn as sns

    bars = scores.reset_index(names="encoder").melt(id_vars="encoder", var_name="task", value_name=value)
    sns.barplot(data=bars, x="task", y=value, hue="encoder", ax=ax)
    ax.set(ylim=(bars[value].min() - 5, 100), **{"xlabel": "", **labels})
    ax.legend(ncol=4, loc="lower center", bbox_to_anchor=(0.5, 1.02))  # above the bars, off the data
    return ax


def versus_bars(ours: pd.DataFrame, paper: pd.DataFrame, metrics: list[str], *, title: str = ""):
    """Ours against the paper as horizontal bars, one panel per metric of ``metrics`` (columns of both frames), one
    pair of bars per row of ``ours`` (``paper`` aligned to it; a missing published value leaves its bar out). Returns
    the figure."""
    import matplotlib.pyplot as plt
    import numpy as np

    paper = paper.reindex(ours.index)
    fig, axes = plt.subplots(1, len(metrics), figsize=(4 * len(metrics), 4.6), sharey=True, squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        y = np.arange(len(ours))
        ax.barh(y + 0.2, ours[metric], height=0.4, label="ours", color="C0")
        ax.barh(y - 0.2, paper[metric], height=0.4, label="paper", color="C7")
        ax.set(title=metric, yticks=y, yticklabels=ours.index)
        ax.invert_yaxis()
    axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1))  # beside the panels, off the bars
    fig.suptitle(title)
    return fig


def ours_and_paper_lines(ours: pd.DataFrame, paper: pd.DataFrame, ax, *, value: str = "value", **labels):
    """Each row of ``ours`` and of ``paper`` (same rows and columns, e.g. models × length bins) as a line over the
    columns in their order: colour per row, line style and markers per source (ours / paper), the legend under the
    axes; ``labels`` go to ``ax.set``."""
    import seaborn as sns

    long = pd.concat([ours.stack().rename(value).reset_index().assign(source="ours"),
                      paper.stack().rename(value).reset_index().assign(source="paper")])
    sns.lineplot(data=long, x=ours.columns.name, y=value, hue=ours.index.name, style="source", markers=True, ax=ax,
                 sort=False)
    ax.set(**labels)
    legend_below(ax, ncol=4)
    return ax


def difference_heatmap(diff: pd.DataFrame, ax, *, label: str = "ours − paper", **labels):
    """Ours − the paper as an annotated heatmap centred at zero (red below, blue above), one row label per index entry
    (tuples joined by spaces), no axis labels unless given; ``labels`` go to ``ax.set``."""
    import seaborn as sns

    sns.heatmap(diff, annot=True, fmt=".0f", center=0, cmap="RdBu", ax=ax, cbar_kws={"label": label})
    ax.set(**{"xlabel": "", "ylabel": "", **labels})
    ax.set_yticklabels([" ".join(map(str, i)) if isinstance(i, tuple) else str(i) for i in diff.index], rotation=0)
    return ax


def score_curves(logs: dict[str, dict], y: str, ax, *, x: str = "seconds", per: float = 60, **labels):
    """One line with a marker per evaluation point of each model: the score ``y`` of its ``evals`` records (name →
    ``{"evals": [...]}``, e.g. a ``TrainLog.to_dict()``) against training ``x`` divided by ``per`` (default: seconds
    shown as minutes), in the logs' order; ``labels`` go to ``ax.set`` (xlabel, ylabel, title)."""
    for name, group in log_frame(logs, "evals").groupby("model", sort=False):
        ax.plot(group[x] / per, group[y], marker="o", label=name)
    ax.set(**labels)
    legend_below(ax)
    return ax

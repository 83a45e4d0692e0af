"""Training efficiency of Quick-Thoughts against skip-thought (Logeswaran & Lee 2018, Appendices C and D), from our runs.

- **Figure 2** (Appendix C): the same GRU encoder trained with both objectives. :func:`matched_skip_thought` is the
  skip-thought preset of a Quick-Thoughts encoder (sizes, data, optimiser, budget); :func:`throughput` times both
  objectives, each in its own process (:func:`reproducer.bench.bench_train`); :func:`speed_table` and
  :func:`speed_ratios` read its runs; :func:`curve_changes` counts the tasks whose score fell while training.
- **Table 9** (Appendix D): MC-QT at several sizes for the same number of steps: :func:`smaller_mc_qt` (the smaller
  models' preset overrides), :func:`size_table` (ours), :func:`paper_sizes` (the paper's) and :func:`size_figure`
  (accuracy against training time, both side by side).
"""
from __future__ import annotations

import math

import pandas as pd

from reproducer.report.published import published

PAPER = "logeswaran2018"


def matched_skip_thought(qt):
    """The skip-thought preset of the efficiency study for a :class:`~reproducer.objectives.quick_thought.QuickThoughtPreset`
    ``qt``: uni-skip with QT's encoder (vocabulary, word size, GRU width ``qt.hidden``, decoders as wide), batch,
    sentence length, optimiser and budget; the rest (e.g. the sampled softmax) from the skip-thought preset of the
    same scale."""
    from reproducer.presets import preset

    return preset("skip-thought", qt.name, vocab_size=qt.vocab_size, word_dim=qt.word_dim, uni_hidden=qt.hidden,
                  decoder_hidden=qt.hidden, batch_size=qt.batch_size, lr=qt.lr, clip=qt.clip, max_len=qt.max_len,
                  max_seconds=qt.max_seconds, max_steps=qt.max_steps, eval_every=qt.eval_every)


def throughput(qt, st, seconds: float, seed: int = 0) -> dict:
    """``{"runs": [...]}``: Quick-Thoughts and exact-softmax skip-thought with QT's encoder sizes, each trained for
    ``seconds`` in a fresh process (:func:`~reproducer.bench.bench_train`); also the sampled-softmax skip-thought when
    the skip-thought preset ``st`` uses one."""
    from reproducer.bench import bench_train

    sizes = dict(hidden=qt.hidden, word_dim=qt.word_dim, vocab_size=qt.vocab_size, seconds=seconds,
                 max_books=qt.max_books, seed=seed)
    runs = bench_train(["quick_thought", "skip_thought"], n_sampled=0, **sizes)["runs"]
    if st.n_sampled:
        runs += bench_train(["skip_thought"], n_sampled=st.n_sampled, **sizes)["runs"]
    return {"runs": runs}


def speed_table(runs: list[dict]) -> pd.DataFrame:
    """The benchmark's runs indexed by softmax (``in-batch`` is Quick-Thoughts; ``exact``, ``sampled``: skip-thought):
    objective, batch size, steps, sentences per second, QT's speed-up over each, peak memory in MiB, parameters."""
    speed = pd.DataFrame(runs).set_index("softmax")
    speed["speed-up of QT"] = speed.loc["in-batch", "sentences_per_second"] / speed["sentences_per_second"]
    speed["peak memory (MiB)"] = speed["peak_memory_bytes"] / 2**20
    return speed[["objective", "batch_size", "steps", "sentences_per_second", "speed-up of QT", "peak memory (MiB)",
                  "parameters"]]


def speed_ratios(speed: pd.DataFrame) -> tuple[float, float]:
    """QT's sentences per second over exact-softmax and over sampled-softmax skip-thought (NaN when not measured)."""
    qt_rate = speed.loc["in-batch", "sentences_per_second"]
    exact = qt_rate / speed.loc["exact", "sentences_per_second"]
    sampled = qt_rate / speed.loc["sampled", "sentences_per_second"] if "sampled" in speed.index else float("nan")
    return exact, sampled


def training_hours() -> pd.Series:
    """The paper's training times in hours by model (Table 1, Table 9 and the efficiency study)."""
    return published(PAPER).query("task == 'training'").set_index("model")["value"]


def paper_speed_ratio() -> float:
    """The paper's speed-up of QT over skip-thought in the efficiency study (ST hours over QT hours)."""
    hours = training_hours()
    return hours["ST (efficiency study)"] / hours["QT (efficiency study)"]


def smaller_mc_qt(qt) -> dict[str, dict]:
    """Table 9's smaller MC-QT models beside the preset's: name (``MC-QT <vector size>d``) → preset overrides, each
    channel's GRU a third and two thirds as wide (their vectors: 8 × ``bi_hidden``)."""
    return {f"MC-QT {8 * h}d": {"bi_hidden": h} for h in (qt.bi_hidden // 3, 2 * qt.bi_hidden // 3)}


def curve_changes(evals: list[dict], tasks: list[str]) -> dict[str, int]:
    """Between the first and the last evaluation record of a training log: on how many of ``tasks`` the score
    ``"fell"`` and on how many it ``"rose"``."""
    first, last = pd.Series(evals[0])[tasks], pd.Series(evals[-1])[tasks]
    return {"fell": int((first > last).sum()), "rose": int((first < last).sum())}


def size_table(records: dict[str, dict], mean_accuracy: dict[str, float]) -> pd.DataFrame:
    """Table 9, ours: one row per model (``records``: its training record with ``dim``, ``step``, ``seconds``;
    ``mean_accuracy``: its mean classification accuracy), named ``MC-QT <dim>d``, smallest first."""
    rows = {f"MC-QT {r['dim']}d": {"vector size": r["dim"], "steps": r["step"], "training seconds": r["seconds"],
                                   "mean accuracy": mean_accuracy[name]} for name, r in records.items()}
    return pd.DataFrame(rows).T.sort_values("vector size")


def paper_sizes() -> pd.DataFrame:
    """Table 9, the paper's: MC-QT by size with its vector size, training hours and mean accuracy."""
    paper = published(PAPER).query("table == 'Table 9'").pivot(index="model", columns="task", values="value")
    paper = paper.rename(columns={"training": "training hours", "classification mean": "mean accuracy"})
    paper.insert(0, "vector size", paper.index.str.extract(r"(\d+)d", expand=False).astype(int).to_numpy())
    return paper


def size_figure(ours: pd.DataFrame, paper: pd.DataFrame):
    """Mean accuracy against training time, each model a dot sized and labelled by its vector size: ours (seconds,
    the same number of steps) beside the paper's (hours, one epoch)."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    for ax, frame, x, title in ((axes[0], ours, "training seconds", "ours (same number of steps)"),
                                (axes[1], paper, "training hours", "paper (one epoch)")):
        sns.scatterplot(data=frame, x=x, y="mean accuracy", size="vector size", sizes=(40, 200), legend=False, ax=ax)
        for _, r in frame.iterrows():
            ax.annotate(f"{r['vector size']:,.0f}-d", (r[x], r["mean accuracy"]), xytext=(4, 4),
                        textcoords="offset points")
        ax.set(title=title)
    return fig


def faster(*ratios: float) -> bool:
    """Whether every measured speed ratio (NaN: not measured) is above 1."""
    return all(r > 1 for r in ratios if not math.isnan(r))

"""The claims of the multi-view study (Tang & de Sa 2019, chapter 04), each read from the paper's words and checked
on our numbers and their noise (:mod:`reproducer.report.claims`).

- :func:`consensus_claims`: the paper's claims (sections 4.1-4.4, Figure 1) on one run's numbers, as a table.
- :func:`multiview_claims`, :func:`variant_claims`, :func:`figure1_claim`: the same claims with the seeds' noise;
  :func:`view_claims`: the paper's readings of f against g, the skip connection and single-view learning;
  :func:`quick_thought_claims`: Table 5, against chapter 02's Quick-Thoughts.
- :func:`twin_row_claims`: the book's own claims (issue 44), MV's row against its untrained twin.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from reproducer.report.claims import Claim, seeds_point_claim, twin_claim, untrained, verdict, worst_column
from reproducer.papers.consensus.chapter import BASELINE_NAMES, TWIN_ROWS
from reproducer.papers.consensus.tables import METRICS


def _beats(ours3: pd.DataFrame, a: str, b: str, metrics=METRICS) -> tuple[bool, str]:
    wins = {m: ours3.loc[a, m] > ours3.loc[b, m] for m in metrics}
    text = ", ".join(f"{m} {ours3.loc[a, m]:.1f} vs {ours3.loc[b, m]:.1f}" for m in metrics)
    return all(wins.values()), f"{sum(wins.values())}/{len(wins)}: {text}"


def consensus_claims(ours3: pd.DataFrame, fig1: pd.DataFrame) -> pd.DataFrame:
    """The paper's claims checked on Table 3 (``ours3``: rows of :data:`~reproducer.evaluate.views.ROWS`, columns
    :data:`METRICS`) and Figure 1 (:func:`figure1_frame`): one row per claim with ``claim``, ``outcome``
    (:func:`~reproducer.report.claims.verdict`) and the ``numbers`` behind it."""
    checks = []
    for view in ("f", "g"):
        ok, text = _beats(ours3, f"MV {view}", f"SV-{view} {view}")
        checks.append({"claim": f"MV {view} beats SV {view} (U, S, B, MRPC)", "outcome": verdict(ok), "numbers": text})
    ok, text = _beats(ours3, "MV ensemble", "ens(SV-f f, SV-g g)")
    checks.append({"claim": "The MV ensemble beats the SV ensemble (U, S, B, MRPC)", "outcome": verdict(ok),
                   "numbers": text})
    u = ours3["U"]
    checks.append({"claim": "The MV ensemble beats each of its views on U",
                   "outcome": verdict(u["MV ensemble"] > max(u["MV f"], u["MV g"])),
                   "numbers": f"ensemble {u['MV ensemble']:.1f}, f {u['MV f']:.1f}, g {u['MV g']:.1f}"})
    independent = {"ens(MV-ff f1, MV-gg g1)": ("MV-ff f1", "MV-gg g1"), "ens(SV-f f, SV-g g)": ("SV-f f", "SV-g g")}
    checks.append({"claim": "Ensembling independently trained views does not help U (below its better view)",
                   "outcome": verdict(all(u[e] < max(u[a], u[b]) for e, (a, b) in independent.items())),
                   "numbers": "; ".join(f"{e} {u[e]:.1f} vs {a} {u[a]:.1f}, {b} {u[b]:.1f}"
                                        for e, (a, b) in independent.items())})
    checks.append({"claim": "MV f–g beats the same-architecture pairs f1–f2 and g1–g2 on U (ensembles)",
                   "outcome": verdict(u["MV ensemble"] > max(u["MV-ff ensemble"], u["MV-gg ensemble"])),
                   "numbers": f"MV {u['MV ensemble']:.1f}, f1–f2 {u['MV-ff ensemble']:.1f}, "
                              f"g1–g2 {u['MV-gg ensemble']:.1f}"})
    curves = fig1.pivot_table(index="step", columns="curve", values="U")
    pairs = [("MV f", "SV f"), ("MV g", "SV g"), ("MV ensemble", "SV ensemble")]
    ahead = {mv: (curves[mv] >= curves[sv]) for mv, sv in pairs}
    checks.append({"claim": "At every checkpoint of Figure 1, MV ≥ SV for f, g and the ensemble",
                   "outcome": verdict(all(a.all() for a in ahead.values())),
                   "numbers": "; ".join(f"{mv}: ahead at {int(a.sum())}/{len(a)} (last {curves[mv].iloc[-1]:.1f} vs "
                                        f"{curves[sv].iloc[-1]:.1f})" for (mv, sv), a in zip(pairs, ahead.values()))})
    return pd.DataFrame(checks)


def _group_score(ev, row: str, group: str, groups: dict, reps: bool):
    """Table 3's column ``group`` (U, S, B or MRPC acc) of ``row`` in points."""
    if group == "U":
        return ev.mean(f"{row} U", groups["U"], reps)
    if group == "MRPC acc":
        return ev.score(f"{row} S", "MRPC", reps)
    return ev.mean(f"{row} S", groups[group], reps)


#: Tang & de Sa's contribution 2 (section 1): each view of MV beats its single-view counterpart.
VIEWS_WORDS = ("\"maximising the agreement between representations from two encoding functions/views gives improved "
               "performance of each individual view on all evaluation tasks compared to their single-view trained "
               "counterparts\" (section 1)")


def multiview_claims(groups: dict[str, list[str]]) -> list:
    """Tang & de Sa's claims on Table 3's rows and Table 4 as :class:`~reproducer.report.claims.Claim` (judged on
    each seed's :meth:`ConsensusModels.evidence`): MV beats SV view by view and as ensembles on every column (the
    smallest of the four gaps), the MV ensemble beats its views, ensembles of independent views do not help,
    f–g beats f1–f2 and g1–g2, and the MV ensemble beats the other unsupervised methods of Table 4 but GloVe+UP
    (ours: averages and SIF on our word2vec and on GloVe-50d)."""
    def score(ev, row, group, r):
        return _group_score(ev, row, group, groups, r)

    def every_column(a, b):  # one gap per column of Table 3 (the claim: the smallest of the seeds' mean gaps)
        return lambda ev, r: np.stack([np.asarray(score(ev, a, m, r) - score(ev, b, m, r)) for m in METRICS])

    def columns(a, b):
        return lambda ev: "; ".join(f"{m} {score(ev, a, m, False):.1f} vs {score(ev, b, m, False):.1f}"
                                    for m in METRICS)

    def u(ev, row, r=False):
        return score(ev, row, "U", r)

    claims = [Claim(f"MV {v} beats SV {v} on U, S, B and MRPC (Table 3; the smallest gap)",
                    every_column(f"MV {v}", f"SV-{v} {v}"), effect=effect, every_column=True,
                    paper=f"{VIEWS_WORDS}; Table 3: smallest gap {effect:+.1f} ({where})",
                    numbers=columns(f"MV {v}", f"SV-{v} {v}"))
              for v, effect, where in (("f", 0.7, "MRPC, 75.5 vs 74.8"), ("g", 0.5, "U, 69.2 vs 68.7"))]
    claims += [
        Claim("The MV ensemble beats the SV ensemble on U, S, B and MRPC (Table 3; the smallest gap)",
              every_column("MV ensemble", "ens(SV-f f, SV-g g)"), effect=0.3, every_column=True,
              paper="\"the ensemble of views trained with consensus maximisation between the two different "
                    "architectures performs better on downstream tasks than an analogous ensemble made from the "
                    "single-view trained counterparts\" (abstract); Table 3: smallest gap +0.3 (B, 86.6 vs 86.3)",
              numbers=columns("MV ensemble", "ens(SV-f f, SV-g g)")),
        Claim("The MV ensemble beats each of its views on U (Table 3)",
              lambda ev, r: np.stack([u(ev, "MV ensemble", r) - u(ev, f"MV {v}", r) for v in ("f", "g")]),
              effect=71.4 - 69.2, every_column=True,
              paper="\"the ensemble of z^f and z^g performs even better than each one of them\" (section 4.1); Table "
                    "3, U: 71.4 vs f 67.4, g 69.2",
              numbers=lambda ev: f"ensemble {u(ev, 'MV ensemble'):.1f}, f {u(ev, 'MV f'):.1f}, g {u(ev, 'MV g'):.1f}"),
        Claim("Ensembling independently trained views does not help U (the ensemble at most its better view)",
              lambda ev, r: np.stack([  # each ensemble minus the better of its two views (the claim: the largest)
                  u(ev, "ens(MV-ff f1, MV-gg g1)", r) - np.maximum(u(ev, "MV-ff f1", r), u(ev, "MV-gg g1", r)),
                  u(ev, "ens(SV-f f, SV-g g)", r) - np.maximum(u(ev, "SV-f f", r), u(ev, "SV-g g", r))]),
              at_most=True, effect=68.6 - 68.7, every_column=True,
              paper="\"The ensemble of two independently trained z^f and z^g provides worse results than z^g does "
                    "solely on unsupervised evaluation tasks\" (section 4.1); Table 3, U: f1–g1 67.5 vs g1 68.5, SV "
                    "ensemble 68.6 vs SV g 68.7",
              numbers=lambda ev: f"ens(MV-ff f1, MV-gg g1) {u(ev, 'ens(MV-ff f1, MV-gg g1)'):.1f} vs "
                                 f"{u(ev, 'MV-ff f1'):.1f}, {u(ev, 'MV-gg g1'):.1f}; SV ensemble "
                                 f"{u(ev, 'ens(SV-f f, SV-g g)'):.1f} vs {u(ev, 'SV-f f'):.1f}, {u(ev, 'SV-g g'):.1f}"),
        Claim("MV f–g beats the same-architecture pairs f1–f2 and g1–g2 on U (ensembles, Table 3)",
              lambda ev, r: np.stack([u(ev, "MV ensemble", r) - u(ev, f"{pair} ensemble", r)
                                      for pair in ("MV-ff", "MV-gg")]),
              every_column=True,  # no effect: the text states no comparison, so no "smaller than published"
              paper="Table 3, U (ensembles): f–g 71.4 vs f1–f2 57.3 (↓14.1), g1–g2 69.1 (↓2.3); the text states no "
                    "comparison",
              numbers=lambda ev: f"MV {u(ev, 'MV ensemble'):.1f}, f1–f2 {u(ev, 'MV-ff ensemble'):.1f}, "
                                 f"g1–g2 {u(ev, 'MV-gg ensemble'):.1f}"),
        Claim("The multi-view ensemble beats the other unsupervised methods except GloVe+UP (Table 4, U; ours: "
              "averages and SIF on our word2vec and GloVe-50d)",
              lambda ev, r: np.stack([u(ev, "MV ensemble", r) - np.asarray(ev.mean(f"{n} U", groups["U"], r))
                                      for n in BASELINE_NAMES]),
              effect=71.4 - 67.8, every_column=True,
              paper="\"Our consensus maximisation learning method slightly underperforms GloVe+UP on STS12-14 tasks, "
                    "and outperforms all other unsupervised learning methods on all other tasks\" (section 5.1); "
                    "Table 4, average: 71.4 vs fastText+WR 67.8",
              numbers=lambda ev: f"MV ensemble {u(ev, 'MV ensemble'):.1f}; " + ", ".join(
                  f"{n} {ev.mean(f'{n} U', groups['U']):.1f}" for n in BASELINE_NAMES)),
    ]
    return claims


#: Table 5's Quick-Thoughts rows (STS14, Pearson r × 100: RNN 49.0, BOW 65.0) and chapter 02's models standing in.
QT_STANDINS = {"combine-QT": "QT RNN", "BoW-QT": "QT BOW"}


def quick_thought_claims() -> list[Claim]:
    """Table 5 as a :class:`~reproducer.report.claims.Claim`: the multi-view ensemble's STS14 against chapter 02's
    Quick-Thoughts of the same seed (:data:`QT_STANDINS`; the smallest gap), each seed's evidence carrying them
    (:meth:`ConsensusModels.evidence`'s ``earlier``). Ours keep each chapter's protocol, as the paper's table does:
    the multi-view score with its principal component removed, Quick-Thoughts' plain cosine."""
    def sts14(ev, name, r=False):
        return np.asarray(ev.score(name, "STS14", r))

    return [Claim("The multi-view ensemble beats Quick-Thoughts on STS14 (Table 5, Pearson r × 100; ours: chapter 02's "
                  "combine-QT and BoW-QT of the same seed, the smallest gap)",
                  lambda ev, r: np.stack([sts14(ev, "MV ensemble U", r) - sts14(ev, n, r) for n in QT_STANDINS]),
                  effect=71.5 - 65.0, every_column=True,
                  paper="\"Since the performance of FastSent (Hill et al., 2016) and Quick-Thought (QT) (Logeswaran & "
                        "Lee, 2018) were only evaluated on STS14, we compare to their results in Table 5\" (section "
                        "5.1); Table 5: multi-view (BookCorpus) 71.5 vs QT RNN 49.0, QT BOW 65.0",
                  numbers=lambda ev: ", ".join(f"{n} {float(sts14(ev, n)):.1f}"
                                               for n in ("MV ensemble U", *QT_STANDINS)))]


def twin_row_claims(groups: dict[str, list[str]], rows=TWIN_ROWS) -> list[Claim]:
    """The book's own claims (issue 44; :func:`~reproducer.report.claims.twin_claim`): training beats the same
    encoder untrained, for each row of ``rows`` (the MV ensemble) against its twin of :meth:`ConsensusModels.twin_row`,
    on the transfer mean (Table 3's supervised tasks: S, B and MRPC, their main scores in points) and on STS (U),
    judged on each seed's :meth:`ConsensusModels.evidence` (each seed's twin is that seed's initialisation)."""
    transfer = groups["S"] + groups["B"] + groups["M"]
    return [twin_claim(f"the {row}", what, tasks, f"{row} {g}", f"{untrained(row)} {g}") for row in rows
            for what, tasks, g in (("the transfer mean", transfer, "S"), ("STS", groups["U"], "U"))]


def variant_claims(groups: dict[str, list[str]]) -> list:
    """Tang & de Sa's claims on the regularising variants of Table 3 (judged on each seed's
    :meth:`ConsensusModels.evidence`, like :func:`multiview_claims`): MV beats the same RNN regularised with a skip
    connection (contribution 3; on U, where the paper's margins are clear: the smallest gap over f, g and the
    ensemble), and MV+SV is slightly below MV (section 4.4; the ensembles, the smallest gap over U, S, B and MRPC)."""
    def u(ev, row, r=False):
        return _group_score(ev, row, "U", groups, r)

    views = ("f", "g", "ensemble")
    return [
        Claim("MV beats the skip-connection regulariser on U (Table 3: f, g and the ensemble; the smallest gap)",
              lambda ev, r: np.stack([np.asarray(u(ev, f"MV {v}", r) - u(ev, f"skip {v}", r)) for v in views]),
              effect=6.9, every_column=True,
              paper="\"maximising the agreement between representations from an RNN and a linear model does more than "
                    "regularising the same RNN model with a skip connection\" (section 1); Table 3, U: smallest gap "
                    "+6.9 (ensemble)",
              numbers=lambda ev: "; ".join(f"{v}: MV {u(ev, f'MV {v}'):.1f} vs skip {u(ev, f'skip {v}'):.1f}"
                                           for v in views)),
        Claim("MV+SV is slightly below MV (Table 3, ensembles: MV minus MV+SV, the smallest gap over U, S, B and MRPC)",
              lambda ev, r: np.stack([np.asarray(_group_score(ev, "MV ensemble", m, groups, r)
                                                 - _group_score(ev, "MV+SV ensemble", m, groups, r)) for m in METRICS]),
              effect=0.1, every_column=True,
              paper="\"The performance of this variant is slightly worse than our method learnt with only multi-view "
                    "maximisation\" (section 4.4); Table 3 (ensembles): smallest gap +0.1 (B)",
              numbers=lambda ev: "; ".join(f"{m} {_group_score(ev, 'MV ensemble', m, groups, False):.1f} vs "
                                           f"{_group_score(ev, 'MV+SV ensemble', m, groups, False):.1f}"
                                           for m in METRICS)),
    ]


#: Table 3's rows whose views f and g are separate encoders (the skip variant sums them into one representation):
#: (the row of f, the row of g), for "g consistently provides better results on unsupervised tasks than f"; MV+SV's
#: views are not among the rows every training seed scores (:data:`~reproducer.papers.consensus.chapter.CLAIM_ROWS`).
F_AND_G_ROWS = (("MV f", "MV g"), ("MV-ff f1", "MV-gg g1"), ("SV-f f", "SV-g g"))


def view_claims(groups: dict[str, list[str]]) -> list:
    """Tang & de Sa's readings of Table 3's views (section 4; judged on each seed's :meth:`ConsensusModels.evidence`
    like :func:`multiview_claims`): the linear view g beats the RNN f on U in every variant that trains them as two
    encoders (:data:`F_AND_G_ROWS`; the smallest gap), the skip connection improves the single-view RNN on U (skip's
    f against SV's f and against f1 of two f-s), and the single-view models are not worse overall than the
    same-architecture two-view ones (the mean of Table 3's four columns: SV f against f1, SV g against g1; the
    smallest gap; the paper gives no margin, so "not worse" is read as at least as good)."""
    def score(ev, row, group, r=False):
        return np.asarray(_group_score(ev, row, group, groups, r))

    def overall(ev, row, r=False):
        return np.mean([score(ev, row, m, r) for m in METRICS], axis=0)

    def listed(rows, of=lambda ev, row: score(ev, row, "U")):
        return lambda ev: ", ".join(f"{row} {float(of(ev, row)):.1f}" for row in rows)

    single = (("SV-f f", "MV-ff f1"), ("SV-g g", "MV-gg g1"))
    return [
        Claim("g beats f on U in every variant with two separate views (Table 3: MV, f1 vs g1, SV; the smallest "
              "gap)",
              lambda ev, r: np.stack([score(ev, g, "U", r) - score(ev, f, "U", r) for f, g in F_AND_G_ROWS]),
              effect=69.2 - 67.4, every_column=True,
              paper="\"g consistently provides better results on unsupervised tasks than f\" (section 4.1); Table 3, "
                    "U: smallest gap +1.8 (MV, 69.2 vs 67.4); the skip variant, whose f and g are summed into one "
                    "representation, is left out (its g is below its f, 52.8 vs 59.4)",
              numbers=listed([row for pair in F_AND_G_ROWS for row in pair])),
        Claim("A skip connection improves the single-view RNN on U (Table 3: skip's f minus SV's f and minus f1; the "
              "smallest gap)",
              lambda ev, r: np.stack([score(ev, "skip f", "U", r) - score(ev, row, "U", r)
                                      for row in ("SV-f f", "MV-ff f1")]),
              effect=59.4 - 57.8, every_column=True,
              paper="\"The performance on the unsupervised evaluation tasks of the RNN model in single-view learning "
                    "method gets improved by having the linear model as a skip connection (from 57.8 and 49.7 to "
                    "59.4)\" (section 4.3)", numbers=listed(["skip f", "SV-f f", "MV-ff f1"])),
        Claim("Single-view learning is not worse overall than two views of the same architecture (Table 3, the mean "
              "of U, S, B and MRPC: SV f minus f1, SV g minus g1; the smallest gap)",
              lambda ev, r: np.stack([overall(ev, sv, r) - overall(ev, same, r) for sv, same in single]),
              every_column=True,  # no effect: Table 3's own gaps are +1.5 (f) and +0.0 (g)
              paper="\"compared to a model with two views but of the same type, the single-view learnt model doesn't "
                    "provide worse performance overall\" (section 4.2); Table 3's means of the four columns: SV f "
                    "75.0 vs f1 73.5, SV g 76.5 vs g1 76.5",
              numbers=listed([row for pair in single for row in pair], overall)),
    ]


def figure1_claim(fig1: pd.DataFrame, seed_frames: list[pd.DataFrame], budget: str | None = None) -> dict:
    """"At every checkpoint of Figure 1, MV ≥ SV for f, g and the ensemble": the MV − SV gaps (U) at every checkpoint
    and pair, averaged over the seeds' Figure 1 frames (:func:`figure1_frame`; every seed trained at the preset
    ``budget``, the main run's ``fig1`` among them), and the smallest of those means, judged on the seeds' spread at
    that checkpoint and pair (:func:`~reproducer.evaluate.uncertainty.worst_column`); ``fig1``'s smallest gap alone with
    fewer than two seeds."""
    pairs = [("MV f", "SV f"), ("MV g", "SV g"), ("MV ensemble", "SV ensemble")]

    def gaps(frame):  # one gap per (checkpoint, pair), in one order for every seed
        curves = frame.pivot_table(index="step", columns="curve", values="U")
        return np.concatenate([(curves[mv] - curves[sv]).to_numpy() for mv, sv in pairs])

    curves = fig1.pivot_table(index="step", columns="curve", values="U")
    values = None
    if len(seed_frames) >= 2:
        _, _, values = worst_column([gaps(f) for f in seed_frames])
    return seeds_point_claim(
        "At every checkpoint of Figure 1, MV ≥ SV for f, g and the ensemble (the smallest gap, U)",
        float(gaps(fig1).min()), values, 0.0, budget=budget, unit="{:+.1f}",
        paper="\"our consensus maximisation with two different views improves both f and g on unsupervised tasks "
              "compared to their singleview learnt counterparts during learning\" (Figure 1's caption; no values "
              "printed)",
        numbers=("the smallest mean gap, per seed: " + ", ".join(f"{v:+.1f}" for v in values) + "; "
                 if values is not None else "")
        + "main run, last checkpoint: " + "; ".join(f"{mv} − {sv} {curves[mv].iloc[-1] - curves[sv].iloc[-1]:+.1f}"
                                                    for mv, sv in pairs))

"""Scoring the views of consensus-maximisation models (Tang & de Sa 2019, Table 3 and Figure 1).

- The task groups of Table 3 (:func:`task_groups`): **U** (unsupervised similarity by cosine), **S** (supervised
  similarity), **B** (binary classification) and **M** (MRPC); Table 6 scores the MV ensemble on its nine transfer tasks.
- :func:`u_score`: the unsupervised score U of one encoder (mean Pearson × 100), Figure 1's y axis.
- :func:`curve_callback`: the evaluation a variant runs *during* training for Figure 1 — U of each view and of the
  ensemble. The single-view ensemble pairs SV f with SV g **at the same step**: SV g's run keeps its projection at
  each evaluation step in a :class:`ProjectionSnapshots` file, which SV f's evaluation then borrows.
- :data:`ROWS` and :class:`RowEncoders`: the rows of Table 3 — one view of a variant, its ensemble, or the ensemble of
  views of *independently* trained variants — as test-time encoders under either pooling rule
  (:data:`~reproducer.encoders.multiview.POOLING`), each view's pooled vectors computed once for both rules;
  :meth:`RowEncoders.evaluate` scores a row, :func:`row_summary` reduces it to Table 3's columns.
- :func:`reading_scores`: U of MV and SV models trained under the other reading of Eq. 1.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Callable

import torch

from reproducer import checkpoints
from reproducer.encoders.layers import fixed_embedding
from reproducer.encoders.multiview import COMBINE, EnsembleEncoder, ViewSet, make_view
from reproducer.evaluate.harness import Results, evaluate
from reproducer.runtime import default_device

U_TASKS = ["STS12", "STS13", "STS14", "STS15", "STS16", "SICK-cos"]  # Table 3's "U" and Figure 1
S_TASKS = ["SICK-R", "STSB-R"]  # "S": supervised similarity
B_TASKS = ["MR", "CR", "SUBJ", "MPQA", "SST2"]  # "B": binary classification

#: Table 3's rows: our row name -> the (variant, view) pairs whose vectors are combined (one pair: a single view).
ROWS: dict[str, list[tuple[str, str]]] = {
    "MV f": [("MV", "f")], "MV g": [("MV", "g")], "MV ensemble": [("MV", "ensemble")],
    "MV-ff f1": [("MV-ff", "f1")], "MV-ff ensemble": [("MV-ff", "ensemble")],
    "MV-gg g1": [("MV-gg", "g1")], "MV-gg ensemble": [("MV-gg", "ensemble")],
    "ens(MV-ff f1, MV-gg g1)": [("MV-ff", "f1"), ("MV-gg", "g1")],
    "SV-f f": [("SV-f", "f")], "SV-g g": [("SV-g", "g")], "ens(SV-f f, SV-g g)": [("SV-f", "f"), ("SV-g", "g")],
    "MV+SV f": [("MV+SV", "f")], "MV+SV g": [("MV+SV", "g")], "MV+SV ensemble": [("MV+SV", "ensemble")],
    "skip f": [("skip", "f")], "skip g": [("skip", "g")], "skip ensemble": [("skip", "ensemble")],
}


def task_groups(smoke: bool = False) -> dict[str, list[str]]:
    """Table 3's task groups ``U``, ``S``, ``B``, ``M``; the smoke preset keeps two binary tasks (MR, SST-2)."""
    return {"U": list(U_TASKS), "S": list(S_TASKS), "B": ["MR", "SST2"] if smoke else list(B_TASKS), "M": ["MRPC"]}


def u_score(encoder, tasks: list[str] = U_TASKS) -> dict[str, float]:
    """``U``: the mean Pearson r × 100 over ``tasks`` (STS12-16 as SentEval's weighted mean per year, SICK by cosine;
    the ``prototype`` protocol, PC removed per dataset by the encoder), and each task's score × 100."""
    scores = evaluate(encoder, tasks, "prototype", progress=False).main_scores()
    return {"U": 100 * float(scores.mean()), **{t: 100 * float(v) for t, v in scores.items()}}


class ProjectionSnapshots:
    """The linear view g's projection ``W`` at each evaluation step of a run, kept in one file (step -> ``W``) so
    that another run can score g *as it was at that step* (Figure 1's single-view ensemble)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    def load(self) -> dict[int, torch.Tensor]:
        """Every kept step's projection (empty when none was kept)."""
        return checkpoints.load(self.path, what="projection snapshot file") if self.path.is_file() else {}

    def keep(self, step: int, view) -> None:
        """Add ``view.proj.weight`` (a :class:`~reproducer.encoders.multiview.LinearView`) as step ``step``."""
        snapshots = self.load()

        snapshots[step] = view.proj.weight.detach().cpu().clone()
        checkpoints.save(snapshots, self.path)

    def encoder(self, step: int, vectors, vocab, dim: int):
        """Single-view g as it was at ``step`` (over the fixed ``vectors`` of ``vocab``, size ``dim``): its
        unsupervised test-time encoder (named ``"g"``)."""
        g = make_view("g", fixed_embedding(vectors), dim)
        with torch.no_grad():
            g.proj.weight.copy_(self.load()[step])
        return ViewSet({"g": g.to(default_device())}, vocab, "SV-g").encoders("unsupervised", prefix="")["g"]


def curve_callback(name: str, snapshots: ProjectionSnapshots, vectors, vocab, dim: int,
                   tasks: list[str] = U_TASKS) -> Callable:
    """Figure 1's ``evaluate(fitted, step)`` for variant ``name``: ``"<view>.U"`` and ``"<view>.<task>"`` of
    :func:`u_score` for each view and the ensemble, and the learned ``"tau"``. Run ``"SV-g"`` first: it keeps its
    projection in ``snapshots``; ``"SV-f"`` pairs its f with that g at the same step as its ``ensemble``
    (``vectors``, ``vocab``, ``dim``: SV g's fixed table, vocabulary and size)."""

    def evaluate_now(fitted, step: int) -> dict:
        encoders = fitted.encoder.encoders("unsupervised", prefix=f"{name} ")
        if name == "SV-g":
            snapshots.keep(step, fitted.module.views["g"])
        if name == "SV-f":
            encoders["ensemble"] = EnsembleEncoder([encoders["f"], snapshots.encoder(step, vectors, vocab, dim)],
                                                   "SV ensemble", "mean")
        return {**{f"{view}.{k}": v for view, e in encoders.items() for k, v in u_score(e, tasks).items()},
                "tau": float(fitted.module.temperature.tau.detach())}

    return evaluate_now


class RowEncoders:
    """The test-time encoders of :data:`ROWS` over trained variants: ``viewset(variant)`` gives a variant's
    :class:`~reproducer.encoders.multiview.ViewSet` (e.g. ``lambda v: run.model(v, ...).encoder``: called only when a
    row is encoded). Each variant's pooled vectors are cached across rows and both pooling rules."""

    def __init__(self, viewset: Callable[[str], ViewSet], rows: dict[str, list[tuple[str, str]]] = ROWS):
        self.viewset, self.rows = viewset, rows
        self.caches: dict[str, dict] = defaultdict(dict)

    def encoder(self, row: str, rule: str):
        """Row ``row`` under the ``"unsupervised"`` or ``"supervised"`` pooling rule; several views are averaged or
        concatenated (:data:`~reproducer.encoders.multiview.COMBINE`)."""
        parts = [self.viewset(variant).encoders(rule, prefix=f"{variant} ", caches=self.caches[variant])[view]
                 for variant, view in self.rows[row]]
        return parts[0] if len(parts) == 1 else EnsembleEncoder(parts, row, COMBINE[rule])

    def evaluate(self, row: str, groups: dict[str, list[str]], config: str, transfer: list[str] = (),
                 transfer_config: str | None = None) -> dict:
        """Row ``row`` scored on U with the unsupervised pooling and on S, B, MRPC with the supervised one, at
        protocol ``config``; with ``transfer`` tasks (Table 6) also those, supervised, at ``transfer_config`` (by
        default ``config``, in one evaluation with S, B, MRPC): ``{"unsupervised", "supervised"[, "transfer"]}``,
        each a ``Results`` record."""
        supervised = groups["S"] + groups["B"] + groups["M"]
        transfer_config = transfer_config or config
        same = transfer_config == config
        encoder = self.encoder(row, "supervised")
        unsup = evaluate(self.encoder(row, "unsupervised"), groups["U"], config, progress=False)
        sup = evaluate(encoder, supervised + [t for t in transfer if same and t not in supervised], config,
                       progress=False)
        out = {"unsupervised": unsup.to_json(), "supervised": sup.to_json()}
        if transfer:
            out["transfer"] = (sup if same else evaluate(encoder, list(transfer), transfer_config,
                                                         progress=False)).to_json()
        return out

    def clear(self) -> None:
        """Forget the pooled vectors."""
        self.caches.clear()


def row_summary(record: dict, groups: dict[str, list[str]], seconds: float) -> dict[str, float]:
    """Table 3's columns from a row's :meth:`RowEncoders.evaluate` record: ``U`` and ``S`` (mean Pearson × 100),
    ``B`` (mean accuracy), ``MRPC acc`` and ``MRPC F1``, and the ``minutes`` of training behind the row."""
    u = Results.from_json(record["unsupervised"]).main_scores()
    s = Results.from_json(record["supervised"]).main_scores()
    mrpc = record["supervised"]["results"]["MRPC"]
    return {"U": 100 * u[groups["U"]].mean(), "S": 100 * s[groups["S"]].mean(), "B": s[groups["B"]].mean(),
            "MRPC acc": mrpc["acc"], "MRPC F1": mrpc["f1"], "minutes": seconds / 60}


def row_seconds(row: str, seconds: dict[str, float], rows: dict[str, list[tuple[str, str]]] = ROWS) -> float:
    """The training seconds behind a row: the sum over the distinct variants it combines."""
    return sum(seconds[v] for v in dict.fromkeys(v for v, _ in rows[row]))


def reading_scores(mv: ViewSet, sv_f: ViewSet, sv_g: ViewSet, tasks: list[str] = U_TASKS) -> dict[str, float]:
    """U (:func:`u_score`) of a multi-view model's views and ensemble (``"MV f"``, ``"MV g"``, ``"MV ensemble"``) and of
    the single-view models ``"SV f"``, ``"SV g"`` and their ``"SV ensemble"`` (e.g. the models of another reading
    of Eq. 1)."""
    encoders = {f"MV {v}": e for v, e in mv.encoders("unsupervised", prefix="").items()}
    encoders["SV f"] = sv_f.encoders("unsupervised", prefix="")["f"]
    encoders["SV g"] = sv_g.encoders("unsupervised", prefix="")["g"]
    encoders["SV ensemble"] = EnsembleEncoder([encoders["SV f"], encoders["SV g"]], "SV ensemble", "mean")
    return {name: u_score(e, tasks)["U"] for name, e in encoders.items()}

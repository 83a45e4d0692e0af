"""Chapters 01 and 03-05: each chapter's models as units (train, then cache everything the chapter needs of
the model) and its claims judged against their noise — :mod:`reproducer.papers.consensus.chapter` (chapter 04),
:mod:`reproducer.papers.paraphrastic.chapter` and :mod:`reproducer.papers.paraphrastic.claims` (chapter 03),
:mod:`reproducer.papers.skip_thoughts.chapter` (chapter 01), the seed runs of :mod:`reproducer.papers.mean_max_aae.chapter`
and the timing study and earlier chapters' results of :mod:`reproducer.papers.mean_max_aae.tables` (chapter 05).
Training, evaluation and data are faked: every test runs in well under a second or two."""
from __future__ import annotations

import json
import zlib
from collections import namedtuple
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from reproducer.errors import ReproducerError  # noqa: E402
from reproducer.files import read_json  # noqa: E402
from reproducer.report.units import eval_key, twin_key  # noqa: E402
from reproducer.evaluate.harness import Results  # noqa: E402
from reproducer.results_store import NotebookRun  # noqa: E402
from reproducer.papers.consensus import chapter as mv  # noqa: E402
from reproducer.papers.consensus import claims as mv_claims  # noqa: E402
from reproducer.papers.consensus import tables as mv_tables  # noqa: E402
from reproducer.report.claims import Evidence, check  # noqa: E402


@pytest.fixture()
def results_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    return tmp_path / "results"


PARAMETERS = '''preset: str = "default"  # smoke | quick | default | paper
seed: int = 0  # the seed
retrain: bool = False  # recompute everything
max_steps: int = 0  # a training budget (0: the preset's)
seeds: int = 3  # training seeds of the claims
'''


@pytest.fixture()
def nb(tmp_path, results_dir):
    """Start notebook ``name`` (:data:`PARAMETERS`) with ``values`` over its defaults, as papermill does."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from reproducer.notebook import start

    path = tmp_path / "nb.ipynb"
    notebook = new_notebook(cells=[new_code_cell(PARAMETERS), new_code_cell('run = start("nb", globals())')])
    notebook.cells[0].metadata["tags"] = ["parameters", "hide-input"]
    nbformat.write(notebook, path)
    defaults = {"preset": "default", "seed": 0, "retrain": False, "max_steps": 0, "seeds": 3}
    return lambda name="nb", **values: start(name, {**defaults, **values}, path=path)


# --- evidence with known scores ---------------------------------------------------------------------------------------

UNITS = 40


def _deviations(key: str, scale: float) -> np.ndarray:
    """``UNITS`` deviations of mean exactly 0, fixed by ``key``."""
    v = np.random.default_rng(zlib.crc32(key.encode())).normal(scale=scale, size=UNITS)
    return v - v.mean()


def sampled(scores: dict[str, dict[str, float]], own: dict[str, float] | None = None, seed: int = 0) -> Evidence:
    """An :class:`Evidence` whose score of (model, task) is ``scores[model][task]`` exactly, as per-unit samples: the
    models share their deviations on each task (so a difference between two of them has no noise), plus deviations
    of their own of scale ``own[model]`` (noise in the differences)."""
    samples = {(name, task): value + _deviations(task, 3.0) + _deviations(f"{name}|{task}", (own or {}).get(name, 0))
               for name, by_task in scores.items() for task, value in by_task.items()}
    return Evidence({}, samples=samples, seed=seed)


def outcomes(frame: pd.DataFrame) -> list[str]:
    return frame.outcome.tolist()


class Stub:
    """An encoder that only has a name (and a bag-of-letters encoding, for neighbour searches)."""

    def __init__(self, name, *parts):
        self.name, self.parts = name, parts

    def encode(self, sentences, batch_size=256, show_progress_bar=False):
        return np.array([[s.count(c) + 0.01 for c in "aeioust "] for s in sentences], dtype=np.float32)

    def save(self, path):  # what run.model calls after training
        pass


def fake_evaluate(calls: list, score=lambda name, task: 0.5):
    """A stand-in for the harness's ``evaluate``: records (encoder name, tasks, config); every main metric
    ``score(name, task)``."""
    from reproducer.evaluate.tasks import TASKS

    def evaluate(encoder, tasks, config="paper", progress=True):
        name = getattr(encoder, "name", str(encoder))
        calls.append((name, list(tasks), config))
        return Results(name, config, {t: {TASKS[t].main_metric: score(name, t)} for t in tasks})

    return evaluate


# === chapter 04: reproducer.papers.consensus.chapter ==========================================================================

GROUPS = {"U": ["STS12", "SICK-cos"], "S": ["SICK-R"], "B": ["MR", "CR"], "M": ["MRPC"]}


def test_the_chapters_constants_agree_with_table3s_rows():
    from reproducer.evaluate.views import ROWS

    variants = {row: {v for v, _ in parts} for row, parts in ROWS.items()}
    assert set().union(*variants.values()) == set(mv.ORDER)  # every variant a row needs is trained by a unit
    assert mv.ORDER.index("SV-g") < mv.ORDER.index("SV-f")  # SV f's Figure 1 ensemble borrows SV g's snapshots
    assert set(mv.CLAIM_ROWS) <= set(ROWS) and set(mv.NEIGHBOURS) - {"word2vec avg"} <= set(ROWS)
    # the seeds train SEED_MODELS in ORDER's order, and unit() takes every variant before it in ORDER as trained
    assert mv.SEED_MODELS == mv.ORDER[:len(mv.SEED_MODELS)]
    assert set().union(*(variants[r] for r in mv.CLAIM_ROWS)) == set(mv.SEED_MODELS)
    assert set(mv_tables.CURVES) <= set(mv.SEED_MODELS)  # figure1_claim reads the seeds' Figure 1 records
    assert mv.SEED_MODELS == mv.ORDER  # issue 43: every variant a claim reads trains with the claims' seeds
    assert set(mv.READING) <= set(mv.ORDER) and mv.READING == ("MV", "SV-f", "SV-g")  # reading_scores(mv, sv_f, sv_g)


# --- the units -------------------------------------------------------------------------------------------------------

class FakeRows:
    """What ConsensusModels uses of RowEncoders: a row's evaluation record (its STS12 score: the row's place in
    ROWS; an untrained twin's row, issue 44: -1), and clear(); with a ``viewset`` (:meth:`over`) it first asks it for
    the row's variants, as the real one encodes with their views."""

    def __init__(self):
        self.evaluated, self.transfer, self.cleared, self.viewset = [], [], 0, None

    def over(self, viewset):
        self.viewset = viewset
        return self

    def evaluate(self, row, groups, config, transfer=(), transfer_config=None):
        from reproducer.evaluate.views import ROWS

        for variant in sorted({v for v, _ in ROWS.get(row, ())}) if self.viewset else ():
            self.viewset(variant)
        self.evaluated.append((row, config))
        if transfer:
            self.transfer.append((row, tuple(transfer), transfer_config))
        r = list(ROWS).index(row) if row in ROWS else -1
        out = {"unsupervised": Results(row, config, {"STS12": {"wmean.pearson": r / 100},
                                                     "SICK-cos": {"pearson": 0.5}}).to_json(),
               "supervised": Results(row, config, {"SICK-R": {"pearson": 0.7}, "MR": {"acc": 60.0 + r},
                                                   "CR": {"acc": 70.0}, "MRPC": {"acc": 65.0, "f1": 80.0}}).to_json()}
        if transfer:
            out["transfer"] = Results(row, transfer_config, {t: {"acc": 75.0} for t in transfer}).to_json()
        return out

    def clear(self):
        self.cleared += 1


def consensus(run, settings=None, **options):
    """ConsensusModels in ``run`` whose training (fit: it saves a halfway bundle, as the real one), rows (the half
    view's too: ``models.half_rows``, over its views) and neighbour searches are faked; returns the models and what
    they were asked: ``fit`` (name, variant, config) and ``neighbours`` (encoder names)."""
    from reproducer.papers.registry import preset
    from reproducer.results_store import model_files

    models = mv.ConsensusModels(run, settings or preset("consensus", "smoke"), groups=GROUPS, progress=False,
                                **options)
    asked = {"fit": [], "neighbours": [], "search": []}
    Fitted = namedtuple("Fitted", "encoder module log")

    def fit(name, variant=None, config=None):  # trained once per kernel, as run.model does
        def train(checkpoint):
            asked["fit"].append((name, variant, config))
            model_files(run.dir, name)["half"].parent.mkdir(parents=True, exist_ok=True)
            model_files(run.dir, name)["half"].touch()  # a run with a checkpoint keeps its encoder halfway
            log = SimpleNamespace(to_dict=lambda: {"step": 2, "seconds": 1.5, "examples": 10, "losses": [],
                                                   "evals": []})
            return Fitted(Stub(f"views of {name}"), SimpleNamespace(temperature=SimpleNamespace(
                tau=torch.tensor(0.25))), log)

        return run.model(name, train)

    def half_encoder(name, **options):  # the halfway bundle, where the fake training saved one
        return Stub(f"{name} halfway") if model_files(run.dir, name)["half"].is_file() else None

    def at_half():
        view = plain_half()
        view.rows = models.half_rows.over(view.viewset)
        return view

    models.fit, run.half_encoder = fit, half_encoder
    models.rows, models.half_rows = FakeRows(), FakeRows()
    plain_half, models.at_half = models.at_half, at_half
    models.products.neighbours = lambda name: asked["neighbours"].append(name)
    models.products.search = lambda name: asked["search"].append(name)
    return models, asked


def test_consensus_units_score_each_row_once_its_variants_are_trained(results_dir):
    from reproducer.evaluate.views import ROWS

    run = NotebookRun("04_consensus", "smoke")
    models, asked = consensus(run)
    per_unit = {}
    for name in mv.ORDER:
        before = len(models.rows.evaluated)
        models.unit(name)
        per_unit[name] = [row for row, _ in models.rows.evaluated[before:]]
    assert per_unit["MV"] == ["MV f", "MV g", "MV ensemble", "MV ensemble (untrained)"]  # MV's twin (issue 44)
    assert per_unit["SV-g"] == ["SV-g g"]
    assert per_unit["SV-f"] == ["SV-f f", "ens(SV-f f, SV-g g)"]  # the SV ensemble as soon as both are trained
    assert per_unit["MV-ff"] == ["MV-ff f1", "MV-ff ensemble"]
    assert per_unit["MV-gg"] == ["MV-gg g1", "MV-gg ensemble", "ens(MV-ff f1, MV-gg g1)"]
    assert sorted(r for rows in per_unit.values() for r in rows) == sorted([*ROWS, *mv.TWINS_OF_ROWS])  # once each
    assert {config for _, config in models.rows.evaluated} == {models.settings.rows_config}
    # only Table 6's row is also scored on the transfer tasks, at the preset's eval_config
    assert [(row, config) for row, _, config in models.rows.transfer] == [(mv_tables.TRANSFER_ROW,
                                                                          models.settings.eval_config)]
    assert [n for n, _, _ in asked["fit"]] == list(mv.ORDER) and models.rows.cleared == len(mv.ORDER)
    assert asked["neighbours"] == ["MV ensemble", "ens(SV-f f, SV-g g)"]  # the Table 3 rows of NEIGHBOURS
    assert asked["search"] == ["MV ensemble"]  # issue 69: its neighbours of every pool sentence, for the explorer
    assert read_json(run.path("SV-f_training.json"))["tau"] == 0.25  # each record with its learned τ
    assert run.path("eval_ens(SV-f_f,_SV-g_g).json").is_file() and run.path("eval_MV_ensemble.json").is_file()
    assert run.path("eval_MV_ensemble_untrained.json").is_file()
    # a new kernel: every record and row is read back, nothing trains or is scored again
    again, asked_again = consensus(NotebookRun("04_consensus", "smoke"))
    for name in mv.ORDER:
        again.unit(name)
    assert again.rows.evaluated == [] and asked_again["fit"] == []


def test_consensus_units_score_the_rows_over_the_views_saved_at_half_the_budget(results_dir, monkeypatch, capsys):
    """Issue 70 in chapter 04: each unit also scores the Table 3 rows it completes over the variants' views saved at
    half their step budget (``eval_<row>_half.json``); the half view's evidence reads them, and the untrained twin's
    row is shared (no budget); without the saved views (checkpoints gone) a missing row's variant is trained again to
    half its budget, as a run of its own under its own name, once."""
    from reproducer.evaluate.views import ROWS
    from reproducer.results_store import model_files

    run = NotebookRun("04_consensus", "smoke")
    models, asked = consensus(run)
    half_rows = models.half_rows
    for name in mv.ORDER:
        models.unit(name)
    assert sorted(row for row, _ in half_rows.evaluated) == sorted(ROWS)  # each row once, over the half views
    assert run.path("eval_MV_ensemble_half.json").is_file() and [n for n, _, _ in asked["fit"]] == list(mv.ORDER)
    assert not run.path("eval_MV_ensemble_untrained_half.json").exists()
    evidence = models.at_half().evidence(baselines=False)
    assert evidence.results["MV f U"].main_scores()["STS12"] == list(ROWS).index("MV f") / 100
    assert "MV ensemble (untrained) U" in evidence.results  # shared with the full budget
    assert len(half_rows.evaluated) == len(ROWS)  # read, not scored again
    for name in mv.ORDER:
        model_files(run.dir, name)["half"].unlink()
    run.path("eval_MV_f_half.json").unlink()
    again, asked_again = consensus(NotebookRun("04_consensus", "smoke"))
    again.half_rows = half_rows
    again.unit("MV")
    assert [row for row, _ in half_rows.evaluated[len(ROWS):]] == ["MV f"]  # the one missing, scored again
    (name, variant, config), = asked_again["fit"]  # MV's views trained once more, to half the steps
    assert (name, variant) == ("MV (half budget)", "MV") and config.max_steps == again.settings.max_steps // 2
    assert config.with_overrides(max_steps=again.settings.max_steps) == again.settings  # nothing else changes
    assert "needs the half-budget" not in capsys.readouterr().out
    assert "MV f U" in again.at_half().evidence(baselines=False).results
    third, asked_third = consensus(NotebookRun("04_consensus", "smoke"))
    third.unit("MV")
    assert asked_third["fit"] == [] and third.half_rows.evaluated == []  # cached: read, not trained again


def test_consensus_seed_units_score_only_the_claim_rows(results_dir):
    models, asked = consensus(NotebookRun("04_consensus", "smoke"))
    for name in mv.SEED_MODELS:
        models.unit(name, rows=mv.CLAIM_ROWS, neighbours=False)
    assert sorted(row for row, _ in models.rows.evaluated) == sorted([*mv.CLAIM_ROWS, *mv.TWINS_OF_ROWS])  # + twin
    assert [n for n, _, _ in asked["fit"]] == list(mv.SEED_MODELS) and asked["neighbours"] == asked["search"] == []


def test_the_reading_unit_trains_the_three_runs_of_the_other_reading(results_dir, monkeypatch):
    import reproducer.evaluate.views as views

    models, asked = consensus(NotebookRun("04_consensus", "smoke"))
    scored = []
    monkeypatch.setattr(views, "reading_scores", lambda *sets: scored.append(sets) or {"MV ensemble": 61.0})
    models.unit("reading")
    other = models.other
    assert other.self_pairs is (not models.settings.self_pairs) and other.dim == models.settings.dim
    assert asked["fit"] == [("MV (other reading)", "MV", other), ("SV-f (other reading)", "SV-f", other),
                            ("SV-g (other reading)", "SV-g", other)]
    assert [tuple(e.name for e in sets) for sets in scored] == [(
        "views of MV (other reading)", "views of SV-f (other reading)",
        "views of SV-g (other reading)")]  # reading_scores(mv, sv_f, sv_g)
    assert read_json(models.run.path("other_reading.json")) == {"MV ensemble": 61.0}
    assert models.rows.evaluated == [] and asked["neighbours"] == []
    models.unit("reading")
    assert len(asked["fit"]) == 3  # cached


@pytest.fixture()
def fake_baselines(monkeypatch):
    """The baseline encoders and the evaluation faked; returns the evaluate calls."""
    import reproducer.encoders.baselines
    import reproducer.encoders.bow
    import reproducer.evaluate

    calls = []
    monkeypatch.setattr(reproducer.encoders.baselines, "load_baseline", lambda name: Stub(name))
    monkeypatch.setattr(reproducer.encoders.bow, "word_average_encoder",
                        lambda vectors, name=None: Stub(f"average of {vectors}"))
    monkeypatch.setattr(reproducer.encoders.bow, "sif_encoder",
                        lambda vectors, counts: Stub(f"SIF of {vectors} with {counts}"))
    monkeypatch.setattr(reproducer.evaluate, "evaluate",
                        fake_evaluate(calls, lambda name, task: len(name) / 100))  # correlations by name length
    return calls


def test_the_baselines_unit_scores_table4s_baselines_on_u(results_dir, fake_baselines):
    models, asked = consensus(NotebookRun("04_consensus", "smoke"))
    models.data = SimpleNamespace(vectors="our word2vec", counts="our counts")
    models.unit("baselines")
    assert fake_baselines == [("average of our word2vec", GROUPS["U"], "smoke"),  # quick looks: smoke's sample
                              ("SIF of our word2vec with our counts", GROUPS["U"], "smoke"),
                              ("glove-bow", GROUPS["U"], "smoke"), ("sif-glove", GROUPS["U"], "smoke")]
    assert sorted(p.name for p in models.run.dir.glob("eval_baseline_*.json")) == [
        "eval_baseline_GloVe-50d_SIF.json", "eval_baseline_GloVe-50d_avg.json", "eval_baseline_word2vec_SIF.json",
        "eval_baseline_word2vec_avg.json"]
    assert asked["neighbours"] == ["word2vec avg"] and asked["fit"] == [] and models.rows.evaluated == []
    assert models.trained("word2vec avg").name == "average of our word2vec"  # the neighbour table's encoder
    assert list(models.baselines()) == list(mv.BASELINE_NAMES) and len(fake_baselines) == 4  # cached
    models.unit("baselines", neighbours=False)
    assert asked["neighbours"] == ["word2vec avg"]


def test_consensus_evidence_names_each_rows_unsupervised_and_supervised_results(results_dir, fake_baselines):
    from reproducer.evaluate.views import ROWS

    models, _ = consensus(NotebookRun("04_consensus", "smoke"))
    models.data = SimpleNamespace(vectors="v", counts="c")
    for name in mv.SEED_MODELS:
        models.unit(name, rows=mv.CLAIM_ROWS, neighbours=False)
    ev = models.evidence()
    twins = {f"MV ensemble (untrained) {k}" for k in "US"}  # this seed's untrained twin of MV's row (issue 44)
    assert set(ev.results) == ({f"{r} U" for r in mv.CLAIM_ROWS} | {f"{r} S" for r in mv.CLAIM_ROWS}
                               | {f"{n} U" for n in mv.BASELINE_NAMES} | twins)
    r = list(ROWS).index("ens(MV-ff f1, MV-gg g1)")
    assert ev.score("ens(MV-ff f1, MV-gg g1) U", "STS12") == pytest.approx(r)  # correlations × 100
    assert ev.score("ens(MV-ff f1, MV-gg g1) S", "MR") == 60.0 + r and ev.score("MV f S", "SICK-R") == 70.0
    assert ev.score("word2vec avg (ours) U", "STS12") == pytest.approx(len("average of v"))  # × 100
    assert ev.seed == models.seed
    assert set(models.evidence(baselines=False).results) == {f"{r} {k}" for r in mv.CLAIM_ROWS for k in "US"} | twins
    assert len(models.rows.evaluated) == len(mv.CLAIM_ROWS) + 1  # the evidence reads the cached rows and twin
    qt = {"combine-QT": ev.results["MV f U"]}  # another chapter's results of this seed (Table 5), under their names
    assert models.evidence(earlier=qt).results["combine-QT"] is qt["combine-QT"]


def test_consensus_seeds_train_at_the_runs_preset_and_budget_with_the_same_groups(nb):
    from reproducer.papers.registry import preset

    run = nb("04_consensus", max_steps=100)
    main = mv.ConsensusModels(run, preset("consensus", "default", max_steps=100), groups=GROUPS, progress=False,
                              pool_size=300, n_queries=4)
    seeds = main.seeds(3)
    assert seeds[0] is main  # the main run is seed 0 (issue 43)
    assert [m.run.dir.name for m in seeds[1:]] == [run.sibling(seed=k).dir.name for k in (1, 2)]
    for seed, m in enumerate(seeds):
        assert isinstance(m, mv.ConsensusModels) and m.groups == GROUPS and (m.seed, m.run.seed) == (seed, seed)
        assert m.settings.name == "default" and m.settings.max_steps == 100  # the main run's budget, kept
        assert m.settings.eval_config == main.settings.eval_config and (m.pool_size, m.n_queries) == (300, 4)
        assert m.snapshots.path == m.run.path("checkpoints/SV-g.snapshots.pt")  # its own Figure 1 snapshots
        if seed:
            declared = json.loads(m.run.path("settings.json").read_text())
            assert declared["seed"] == seed and declared["consensus"]["name"] == "default"
            assert declared["U"] == GROUPS["U"] and m.run.parameters["max_steps"] == 100
    started = nb("04_consensus", max_steps=100, seed=1)
    mv.ConsensusModels(started, preset("consensus", "default", max_steps=100), groups=GROUPS, seed=1,
                       progress=False).declare()
    assert started.key == seeds[1].run.key  # the notebook executed at that preset and seed reuses these results


# --- the claims ------------------------------------------------------------------------------------------------------

def table3_evidence(rows: dict[str, tuple], baselines=(50.0, 52.0, 48.0, 53.0), own=None) -> Evidence:
    """Evidence of the claim rows from their Table 3 columns ``rows[row] = (U, S, B, MRPC acc)`` (every task of a
    group at its column's value), and Table 4's baselines' U."""
    scores = {}
    for row, (u, s, b, mrpc) in rows.items():
        scores[f"{row} U"] = {t: u for t in GROUPS["U"]}
        scores[f"{row} S"] = {**{t: s for t in GROUPS["S"]}, **{t: b for t in GROUPS["B"]}, "MRPC": mrpc}
    scores.update({f"{n} U": {t: v for t in GROUPS["U"]} for n, v in zip(mv.BASELINE_NAMES, baselines)})
    return sampled(scores, own)


TABLE3 = {  # (U, S, B, MRPC acc)
    "MV f": (60, 70, 80, 70), "SV-f f": (55, 68, 78, 69.5),  # MV ahead in every column, by 0.5 at least
    "MV g": (61, 70, 76, 70), "SV-g g": (58, 69, 79, 69),  # MV behind on B
    "MV ensemble": (64, 72, 81, 71), "ens(SV-f f, SV-g g)": (59, 70, 80, 70),
    "MV-ff f1": (56, 0, 0, 0), "MV-gg g1": (58, 0, 0, 0), "ens(MV-ff f1, MV-gg g1)": (57, 0, 0, 0),
    "MV-ff ensemble": (62, 0, 0, 0), "MV-gg ensemble": (65, 0, 0, 0),
}


def test_multiview_claims_measure_each_claim_on_table3_and_table4():
    claims = mv_claims.multiview_claims(GROUPS)
    assert len(claims) == 7
    table = check(claims, table3_evidence(TABLE3))
    assert outcomes(table) == ["reproduced", "not reproduced", "reproduced", "reproduced", "not reproduced",
                               "not reproduced", "reproduced"]
    assert table.value.tolist() == pytest.approx([
        0.5,  # MV f − SV f: the smallest of the four gaps (MRPC)
        -3.0,  # MV g − SV g: B
        1.0,  # MV ensemble − SV ensemble: B and MRPC
        64 - 61,  # the MV ensemble over its better view, U
        59 - 58,  # independent ensembles: the larger excess over the better view (SV: 59 vs 58; MV-ff/gg: 57 vs 58)
        64 - 65,  # f–g against the better of f1–f2 and g1–g2
        64 - 53])  # the MV ensemble against the best of Table 4's baselines
    independent = table.iloc[4]
    assert independent.threshold == "≤ 0" and claims[4].at_most  # "does not help": at most its better view
    assert table.numbers.iloc[0] == "U 60.0 vs 55.0; S 70.0 vs 68.0; B 80.0 vs 78.0; MRPC acc 70.0 vs 69.5"
    assert table.numbers.iloc[3] == "ensemble 64.0, f 60.0, g 61.0"
    assert table.numbers.iloc[6].startswith("MV ensemble 64.0; word2vec avg (ours) 50.0, ")
    np.testing.assert_allclose(table.low, table.value, atol=1e-9)  # the models' items deviate alike: the
    np.testing.assert_allclose(table.high, table.value, atol=1e-9)  # differences have no noise
    # the independent ensembles help no more than their better view: the claim holds
    fixed = {**TABLE3, "ens(SV-f f, SV-g g)": (57.5, 70, 80, 70)}
    assert check(claims[4:5], table3_evidence(fixed)).outcome.item() == "reproduced"


def test_multiview_claims_carry_the_papers_effects_and_sentences():
    claims = mv_claims.multiview_claims(GROUPS)
    # f–g against f1–f2 and g1–g2 carries no effect (issue 68: the text states no comparison)
    assert [c.effect for c in claims] == pytest.approx([0.7, 0.5, 0.3, 2.2, -0.1, None, 3.6], nan_ok=True)
    assert all('"' in c.paper or "Table 3" in c.paper for c in claims)


def test_variant_claims_judge_the_skip_connection_and_mv_plus_sv():
    """Issue 42: Tang & de Sa's contribution 3 (MV beats the skip-connection regulariser) and section 4.4 (MV+SV
    slightly below MV); issue 43: judged over their seeds as every other claim."""
    claims = mv_claims.variant_claims(GROUPS)
    rows = {**TABLE3, "skip f": (50, 60, 70, 60), "skip g": (59, 0, 0, 0), "skip ensemble": (61, 0, 0, 0),
            "MV+SV ensemble": (63, 71.5, 80, 70.5)}
    table = check(claims, table3_evidence(rows))
    assert table.value.tolist() == pytest.approx([61 - 59, 0.5])  # g: 61 vs 59; MV − MV+SV: S and MRPC
    assert outcomes(table) == ["reproduced", "reproduced"]
    assert [c.effect for c in claims] == pytest.approx([6.9, 0.1])
    assert table.numbers.iloc[0] == "f: MV 60.0 vs skip 50.0; g: MV 61.0 vs skip 59.0; ensemble: MV 64.0 vs skip 61.0"
    behind = check(claims[1:], table3_evidence({**rows, "MV+SV ensemble": (65, 72, 81, 71)})).iloc[0]
    assert behind.value == pytest.approx(-1.0) and behind.outcome == "not reproduced"
    seeds = [table3_evidence({**rows, "MV+SV ensemble": (63, 71.5 + d, 80, 70.5)}) for d in (-0.2, 0.0, 0.2)]
    seeded = check(claims[1:], table3_evidence(rows), seeds, budget="default").iloc[0]
    # issue 68: the smallest column of the seeds' mean gaps (S: 0.7, 0.5, 0.3 -> 0.5; MRPC 0.5), not the mean of each
    # seed's own smallest ((0.5 + 0.5 + 0.3) / 3 = 0.43, biased low)
    assert seeded.value == pytest.approx(0.5) and "3 training seeds at `default`" in seeded.noise


def test_view_claims_read_f_against_g_the_skip_connection_and_single_view_learning():
    """Issue 68: Tang & de Sa's section 4 readings of Table 3 — g above f wherever they are two encoders, the skip
    connection lifting the single-view RNN, single-view learning not worse overall than two views of one kind."""
    claims = mv_claims.view_claims(GROUPS)
    rows = {**TABLE3, "skip f": (57.5, 0, 0, 0),
            "MV-ff f1": (56, 60, 70, 60), "MV-gg g1": (58, 66, 80, 68)}
    table = check(claims, table3_evidence(rows))
    # g − f: MV 61 − 60, f1/g1 58 − 56, SV 58 − 55; skip f − SV f 57.5 − 55, − f1 57.5 − 56;
    # overall: SV f (55+68+78+69.5)/4 − f1 (56+60+70+60)/4, SV g (58+69+79+69)/4 − g1 (58+66+80+68)/4
    assert table.value.tolist() == pytest.approx([1.0, 1.5, min(67.625 - 61.5, 68.75 - 68.0)])
    assert outcomes(table) == ["reproduced"] * 3
    assert [c.effect for c in claims] == pytest.approx([1.8, 1.6, None], nan_ok=True)
    assert table.numbers.iloc[1] == "skip f 57.5, SV-f f 55.0, MV-ff f1 56.0"
    assert "skip variant" in table.paper.iloc[0] and table.paper.iloc[2].startswith('"compared to a model')
    flipped = check(claims[:1], table3_evidence({**rows, "SV-g g": (54, 0, 0, 0)})).iloc[0]
    assert flipped.value == pytest.approx(-1.0) and flipped.outcome == "not reproduced"  # SV: g below f
    assert {r for pair in mv_claims.F_AND_G_ROWS for r in pair} <= set(mv.CLAIM_ROWS)  # every seed scores them


def test_table5_claim_compares_the_mv_ensembles_sts14_with_chapter_02s_quick_thoughts():
    """Issue 68: Tang & de Sa's Table 5 — the MV ensemble's STS14 against combine-QT and BoW-QT of the same seed."""
    claims = mv_claims.quick_thought_claims()
    scores = {"MV ensemble U": {"STS14": 60.0}, "combine-QT": {"STS14": 45.0}, "BoW-QT": {"STS14": 58.0}}
    row = check(claims, sampled(scores)).iloc[0]
    assert row.value == pytest.approx(2.0) and row.outcome == "reproduced"  # 60 − BoW-QT's 58, the smaller gap
    assert row["paper's effect"] == "+6.50" and row.numbers == "MV ensemble U 60.0, combine-QT 45.0, BoW-QT 58.0"
    behind = check(claims, sampled({**scores, "BoW-QT": {"STS14": 63.0}})).iloc[0]
    assert behind.value == pytest.approx(-3.0) and behind.outcome == "not reproduced"


def test_multiview_claims_are_inconclusive_within_the_noise_and_widen_with_seeds():
    claims = mv_claims.multiview_claims(GROUPS)[:1]
    noisy = table3_evidence(TABLE3, own={"MV f U": 30.0, "MV f S": 30.0})  # MV f's items deviate on their own
    row = check(claims, noisy).iloc[0]
    assert row.outcome == "inconclusive" and row.value == pytest.approx(0.5) and row.low < 0 < row.high
    seeds = [table3_evidence({**TABLE3, "MV f": (60, 70, 80, 70 + d)}) for d in (-1.0, 0.0, 1.0)]
    spread = check(claims, table3_evidence(TABLE3), seeds).iloc[0]
    assert spread.noise == "test items (bootstrap) + the mean of 3 training seeds" and spread.outcome == "inconclusive"
    assert spread.value == pytest.approx(0.5)  # the seeds' mean: smallest gaps -0.5, 0.5, 1.5


def figure1(gaps: dict[str, list[float]]) -> pd.DataFrame:
    """A Figure 1 frame: SV curves at 50, MV curves ``gaps`` above them at each step."""
    rows = []
    for view, values in gaps.items():
        for step, gap in enumerate(values, 1):
            rows += [{"step": step, "seconds": step, "curve": f"SV {view}", "U": 50.0},
                     {"step": step, "seconds": step, "curve": f"MV {view}", "U": 50.0 + gap}]
    return pd.DataFrame(rows)


def test_figure1_claim_takes_the_smallest_gap_and_the_seeds_spread():
    fig1 = figure1({"f": [1.0, 1.0], "g": [1.0, 3.0], "ensemble": [4.0, -1.0]})  # the ensemble behind at the end
    alone = mv_claims.figure1_claim(fig1, [])
    assert alone["outcome"] == "not reproduced" and alone["value"] == -1.0 and alone["noise"] == "one run"
    assert alone["numbers"] == ("main run, last checkpoint: MV f − SV f +1.0; MV g − SV g +3.0; "
                                "MV ensemble − SV ensemble -1.0")
    assert alone["threshold"] == "≥ 0" and alone["ours"] == "-1.0 [-1.0, -1.0]"
    ahead = figure1({"f": [2.0, 1.5], "g": [1.0, 3.0], "ensemble": [4.0, 2.0]})
    assert mv_claims.figure1_claim(ahead, [])["outcome"] == "reproduced" and mv_claims.figure1_claim(ahead, [])["value"] == 1.0
    steady = [figure1({"f": [g, 2.0], "g": [2.0, 2.0], "ensemble": [2.0, 2.0]}) for g in (0.9, 1.0, 1.1)]
    judged = mv_claims.figure1_claim(ahead, steady)  # the seeds' smallest gaps 0.9, 1.0, 1.1: their mean
    assert judged["outcome"] == "reproduced" and judged["noise"] == "the mean of 3 training seeds"
    assert judged["value"] == pytest.approx(1.0)
    assert judged["numbers"].startswith("the smallest mean gap, per seed: +0.9, +1.0, +1.1")
    # issue 68: a checkpoint where one seed dips and another does not: the smallest of the seeds' mean gaps (1.0 at
    # the first checkpoint: 0.0 and 2.0; 1.5 at the second), not the mean of each seed's own smallest (0.75)
    dips = [figure1({"f": [0.0, 1.5], "g": [5.0, 5.0], "ensemble": [5.0, 5.0]}),
            figure1({"f": [2.0, 1.5], "g": [5.0, 5.0], "ensemble": [5.0, 5.0]})]
    assert mv_claims.figure1_claim(ahead, dips)["value"] == pytest.approx(1.0)
    assert mv_claims.figure1_claim(ahead, steady[:2])["value"] == pytest.approx(0.95)  # not the main run's 1.0
    spread = [figure1({"f": [g, 2.0], "g": [2.0, 2.0], "ensemble": [2.0, 2.0]}) for g in (-3.0, 1.0, 5.0)]
    wide = mv_claims.figure1_claim(ahead, spread)
    assert wide["outcome"] == "inconclusive" and wide["low"] < 0 < wide["high"]
    assert mv_claims.figure1_claim(ahead, spread[:1])["noise"] == "one run"  # one seed has no spread
    # from the training records, as the notebook builds it (figure1_frame)
    ev = lambda step, **u: {"step": step, "seconds": float(step), **{f"{k}.U": v for k, v in u.items()}}
    training = {"MV": {"evals": [ev(1, f=50, g=52, ensemble=54), ev(2, f=55, g=56, ensemble=58)]},
                "SV-g": {"evals": [ev(1, g=51), ev(2, g=53)]},
                "SV-f": {"evals": [ev(1, f=49, ensemble=50), ev(2, f=54, ensemble=59)]}}
    assert mv_claims.figure1_claim(mv_tables.figure1_frame(training), [])["value"] == 58 - 59


# === chapter 05: the seed runs of reproducer.papers.mean_max_aae.chapter, the timing study  ============================

def test_autoencoder_seeds_keep_the_pooling_and_the_held_out_batches(nb, monkeypatch):
    from reproducer.papers.registry import preset
    from reproducer.papers.mean_max_aae import chapter as at

    main = at.AutoencoderModels(nb("05_mean_max_aae", max_steps=50), preset("autoencoder", "default", max_steps=50),
                                tasks=["MR", "STS14"], progress=False, normalize_halves=False, held_out_batches=3,
                                pool_size=200, n_queries=2)
    seeds = main.seeds(2)
    assert seeds[0] is main and seeds[1].run.dir.name == main.run.sibling(seed=1).dir.name  # issue 43
    for seed, m in enumerate(seeds):
        assert isinstance(m, at.AutoencoderModels) and (m.seed, m.tasks, m.pool_size, m.n_queries) == (
            seed, ["MR", "STS14"], 200, 2)
        assert m.normalize_halves is False and m.held_out_batches == 3  # the main run's evaluation, not the defaults
        assert m.settings.name == "default" and m.settings.max_steps == 50  # the main run's budget
    declared = json.loads(seeds[1].run.path("settings.json").read_text())
    assert declared["normalize_halves"] is False and declared["seed"] == 1
    loaded = []
    monkeypatch.setattr(at.AutoencoderData, "load", classmethod(
        lambda cls, p, seed=0, held_out_batches=16: loaded.append((p.name, seed, held_out_batches)) or "data"))
    assert seeds[1].data == "data" and loaded == [("default", 1, 3)]  # its data: its seed, the same held-out batches
    started = nb("05_mean_max_aae", max_steps=50, seed=1)
    at.AutoencoderModels(started, preset("autoencoder", "default", max_steps=50), tasks=["MR", "STS14"], seed=1,
                         normalize_halves=False, held_out_batches=3).declare()
    assert started.key == seeds[1].run.key


def test_an_autoencoder_whose_halfway_encoder_is_gone_is_trained_again_to_half_its_steps(results_dir, monkeypatch):
    """Issue 70 in chapter 05: at half the budget a variant's encoder is the bundle its run saved halfway; when that is
    gone (checkpoints are not committed) the variant is trained again, as a run of its own under its own name, for
    half the steps of the same settings, without a training curve — once per kernel, then its saved bundle."""
    import reproducer.encoders.bundles
    from reproducer.papers.mean_max_aae import chapter as at
    from reproducer.papers.registry import preset
    from reproducer.report.units import half_run
    from reproducer.results_store import model_files

    calls, loaded = [], []

    def train_or_reload(run, name, data, *, normalize_halves, curves=(), progress=True, variant=None, preset=None):
        calls.append((name, variant, preset.max_steps if preset else None, tuple(curves), normalize_halves))
        return run.model(name, lambda checkpoint: SimpleNamespace(encoder=Stub(f"trained {name}")))

    monkeypatch.setattr(at, "train_or_reload", train_or_reload)
    monkeypatch.setattr(reproducer.encoders.bundles, "load_encoder",
                        lambda path, **options: loaded.append(path.name) or Stub(path.name))
    run = NotebookRun("05_mean_max_aae", "smoke")
    models = at.AutoencoderModels(run, preset("autoencoder", "smoke", max_steps=12), tasks=["MR"], progress=False,
                                  normalize_halves=False)
    models.__dict__["data"] = "data"  # loaded on first use: not needed by the fake
    half = models.at_half().trained("mean-max AAE")
    assert calls == [("mean-max AAE (half budget)", "mean-max AAE", 6, (), False)] and loaded == []
    assert half.name == "mean-max AAE"  # named as the model it stands for
    assert models.at_half().trained("mean-max AAE") is half  # this kernel's: not trained again
    model_files(run.dir, "mean-max AAE")["half"].parent.mkdir(parents=True, exist_ok=True)
    model_files(run.dir, "mean-max AAE")["half"].touch()  # saved halfway by its full run: read, nothing trains
    again = at.AutoencoderModels(NotebookRun("05_mean_max_aae", "smoke"), models.settings, tasks=["MR"])
    assert again.at_half().trained("mean-max AAE").name == "mean-max AAE" and len(calls) == 1
    assert loaded == ["mean-max_AAE.half.encoder.pt"]
    assert half_run("mean-max AAE") == "mean-max AAE (half budget)"


def test_the_search_of_a_model_whose_checkpoint_is_gone_trains_it_again_as_a_run_of_its_own(results_dir, monkeypatch,
                                                                                            capsys):
    """Issue 69 item 8 in chapter 05: the main run's searchable explorer needs the trained mean-max AAE; when its
    bundle is gone (checkpoints are not committed; its training record stays cached, so ``run.model`` refuses to
    train it under its own name) the variant is trained again from the same seed for its whole step budget, as a run
    of its own (``… (again)``, no training curve), once, and named as the model it stands for; the search is then
    cached and nothing trains again. Only the search trains again: a half-budget product or an evaluation does not."""
    from reproducer.errors import ReproducerError
    from reproducer.papers.mean_max_aae import chapter as at
    from reproducer.papers.registry import preset
    from reproducer.report.units import again_run, search_key
    from reproducer.results_store import training_record_name

    calls, searched = [], []

    def train_or_reload(run, name, data, *, normalize_halves, curves=(), progress=True, variant=None, preset=None):
        calls.append((name, variant, preset.max_steps if preset else None, tuple(curves)))
        return run.model(name, lambda checkpoint: SimpleNamespace(encoder=Stub(f"trained {name}")))

    monkeypatch.setattr(at, "train_or_reload", train_or_reload)
    run = NotebookRun("05_mean_max_aae", "smoke")

    def chapter():
        models = at.AutoencoderModels(run, preset("autoencoder", "smoke", max_steps=12), tasks=["MR"],
                                      progress=False, normalize_halves=False)
        models.__dict__["data"] = "data"  # loaded on first use: not needed by the fake
        models.products.search = lambda name: run.json(search_key(name), lambda: searched.append(
            models.trained(name)) or {"ids": [[1]], "cosines": [[0.5]]})  # as the real one: trains only to compute
        return models

    run.json(training_record_name("mean-max AAE"), lambda: {"step": 12})  # its record cached, its checkpoint gone
    models = chapter()
    with pytest.raises(ReproducerError, match="checkpoint is gone"):
        models.trained("mean-max AAE")  # outside the search: never trained again under its own name
    assert [c[0] for c in calls] == ["mean-max AAE"]
    calls.clear()
    assert models.search("mean-max AAE") == {"ids": [[1]], "cosines": [[0.5]]}
    assert calls == [("mean-max AAE (again)", "mean-max AAE", 12, ())]  # the whole budget, no curve
    assert [e.name for e in searched] == ["mean-max AAE"] and not models.again
    assert "trained again from the same seed and step budget" in capsys.readouterr().out
    assert chapter().search("mean-max AAE") == {"ids": [[1]], "cosines": [[0.5]]} and len(calls) == 1  # cached
    assert again_run("mean-max AAE") == "mean-max AAE (again)"


def test_the_consensus_views_of_the_searched_ensemble_train_again_as_runs_of_their_own(results_dir):
    """Issue 69 item 8 in chapter 04: the MV ensemble's views, gone with their checkpoints while MV's record stays
    cached, train again for the search only: MV as ``MV (again)`` at the chapter's settings (Figure 1's curve is not
    drawn again), once; outside the search the missing views are refused, as before."""
    from reproducer.errors import ReproducerError
    from reproducer.results_store import training_record_name

    run = NotebookRun("04_consensus", "smoke")
    run.json(training_record_name("MV"), lambda: {"step": 2})
    models, asked = consensus(run)
    with pytest.raises(ReproducerError, match="checkpoint is gone"):
        models.viewset("MV")
    models.products.search = lambda name: models.viewset("MV")
    views = models.search("MV ensemble", ("MV",))
    assert views.name == "MV" and not models.again  # named as the views it stands for
    assert asked["fit"] == [("MV (again)", "MV", models.settings)]  # the refused one never started
    assert models.search("MV ensemble", ("MV",)) is views and len(asked["fit"]) == 1  # this kernel's: once


def test_chapter_03s_views_read_the_untrained_twins_of_its_twins():
    """Issue 70: chapter 03's evidence at half its budget and at quick (``along_evidence``) holds PP's and the LSTM's
    untrained twins beside the trained models, so the four training-beats-untrained claims are read along training
    (they were read at one budget: the class did not name its twins, and ``twins`` kept none of them)."""
    from reproducer.papers.paraphrastic import chapter as pc
    from reproducer.report.claims import untrained

    models = object.__new__(pc.ParaphraseModels)
    models.twin_results = lambda name, *vectors: f"twin of {name}"
    assert models.twins(pc.TWINS) == {untrained(n): f"twin of {n}" for n in pc.TWINS} and len(pc.TWINS) == 2


def test_models_trained_longer_are_the_run_that_executing_the_notebook_with_their_steps_gives(nb):
    """Issue 70's check of the book's extrapolations: ``longer()`` is the same seed at 4 × the step budget, in the
    folder and under the keys of the notebook executed with ``-p max_steps <steps>``; a parameter the notebook has
    not got is refused."""
    from reproducer.papers.mean_max_aae import chapter as at
    from reproducer.papers.registry import preset

    main = at.AutoencoderModels(nb("05_mean_max_aae"), preset("autoencoder", "default"), tasks=["MR"],
                                progress=False, normalize_halves=False)
    longer = main.longer()
    steps = 4 * main.settings.max_steps
    assert longer.settings.max_steps == steps and longer.settings.with_overrides(
        max_steps=main.settings.max_steps) == main.settings
    assert (longer.seed, longer.normalize_halves, longer.tasks) == (0, False, ["MR"])
    assert longer.run.dir.name == f"default+max_steps={steps}" and longer.run.parameters["max_steps"] == steps
    started = nb("05_mean_max_aae", max_steps=steps)
    at.AutoencoderModels(started, preset("autoencoder", "default", max_steps=steps), tasks=["MR"],
                         normalize_halves=False).declare()
    assert started.key == longer.run.key
    assert main.run.sibling(changes={"max_steps": 0}).dir == main.run.dir  # back at its default: the same run
    with pytest.raises(ReproducerError, match="no parameter long_steps"):
        main.run.sibling(changes={"long_steps": 1})


def test_timing_repeats_the_study_with_successive_seeds(monkeypatch):
    import reproducer.papers.widths
    from reproducer.papers.registry import preset
    from reproducer.papers.mean_max_aae import tables as aae

    calls = []

    def bench_widths(objectives, **options):
        calls.append((list(objectives), options))
        return {"runs": [{"objective": o, "seed": options["seed"]} for o in objectives], "ratios": {},
                "settings": {"hidden": options["hidden"]}}

    monkeypatch.setattr(reproducer.papers.widths, "bench_widths", bench_widths)
    settings = preset("autoencoder", "quick")
    out = aae.timing(settings, 30.0, 40, seed=5, repeats=3)
    assert calls[0] == (["aae", "rae", "skip_thought"], {
        "hidden": settings.d_model, "word_dim": settings.word2vec_dim, "vocab_size": settings.vocab_size,
        "seconds": 30.0, "max_books": 40, "seed": 5, "batch_size": settings.batch_size})
    assert [o["seed"] for _, o in calls] == [5, 6, 7]  # each repeat its own seed
    assert len(out["repeats"]) == 3 and out["runs"] == out["repeats"][0]
    assert [r[0]["seed"] for r in out["repeats"]] == [5, 6, 7] and set(out) == {"runs", "repeats", "settings"}
    assert out["settings"] == {"hidden": settings.d_model}  # the widths, for counting a record's sizes later
    assert list(aae.our_minutes({"runs": [{"objective": "aae", "minutes_per_1000_batches": 4.0}]})) == ["mean-max AAE"]
    calls.clear()
    assert len(aae.timing(settings, 30.0, 40)["repeats"]) == 1 and calls[0][1]["seed"] == 0


# === chapter 03: reproducer.papers.paraphrastic.chapter, paraphrase_claims ===========================================

from reproducer.files import stored_json  # noqa: E402
from reproducer.papers.paraphrastic import claims as pc  # noqa: E402
from reproducer.papers.paraphrastic import chapter as pt  # noqa: E402
from reproducer.papers.paraphrastic.chapter import VARIANTS  # noqa: E402
from reproducer.report.tables import paper_table  # noqa: E402

DATASETS = [("STS12", "MSRpar"), ("STS12", "MSRvid"), ("STS13", "FNWN"), ("SICK-R", "test (cosine)")]


def suite(offset: float, dev: float = 0.0, test: float = 0.0, pattern=(0.0, 0.0, 0.0, 0.0)) -> list[dict]:
    """A similarity suite: :data:`DATASETS` at 10, 20, 30, 40 plus ``offset`` (and ``pattern``), a year's average and
    the PPDB halves."""
    rows = [{"task": t, "dataset": d, "metric": "pearson", "score": 10.0 * (i + 1) + offset + p}
            for i, ((t, d), p) in enumerate(zip(DATASETS, pattern))]
    rows.append({"task": "STS12", "dataset": "average", "metric": "pearson", "score": 15.0 + offset})
    return rows + [{"task": "PPDB", "dataset": h, "metric": "spearman", "score": v} for h, v in (("dev", dev),
                                                                                               ("test", test))]


class UnitTraining(pt.ParaphraseModels):
    """The chapter's training without training: each grid configuration's dev score is its learning rate × 100 (MIX
    +5: PP chooses MIX), its Table 3 test score half of that; chosen models are stub encoders registered with
    ``run.model``; the word-level analyses, Figure 1 and Table 5 are recorded, not computed."""

    def record(self, name, label, overrides):
        self.calls.append(("grid", name, label))
        dev = 100 * overrides.get("lr", 0.0) + (5 if overrides["negatives"] == "MIX" else 0) + overrides["lambda_w"]
        return {"model": name, "config": label, "overrides": overrides, "steps": 2, "seconds": 1.0,
                "pairs_per_second": 3.0, "losses": [{"step": 2, "seconds": 1.0, "loss": 0.5}],
                "suite": suite(VARIANT_MEANS[name] - 25, dev=dev, test=dev / 2)}

    def chosen(self, name):
        def fit(checkpoint):
            self.calls.append(("chosen", name))
            return SimpleNamespace(encoder=Stub(name))

        return self.run.model(name, fit)

    def word_neighbours(self, queries, k=6):
        self.calls.append(("table8", tuple(queries)))
        return pd.DataFrame({"word": queries})

    def evaluated(self, name, tasks=None, key=None):  # the transfer scores, through transfer() and evaluations()
        suffix = self.products.suffix  # at half the budget: eval_PP_half
        return self.run.json(eval_key(name, suffix), lambda: self.calls.append(("transfer", name + suffix))
                             or {"encoder": name})

    def half_chosen(self, name):  # once per kernel, as the real one
        if name not in self._half:
            self.calls.append(("half", name))
            self._half[name] = Stub(f"{name} (half)")
        return self._half[name]

    def twin_results(self, name):
        return self.run.json(twin_key(name), lambda: self.calls.append(("twin", name)) or {"encoder": name})

    def word_weight_extremes(self, n=12, among=5000):
        self.calls.append(("weights",))
        return pd.DataFrame({"smallest": ["the"], "largest": ["lookin"]})

    def reweighted_suite(self):
        self.calls.append(("reweighted",))
        return suite(55.0 - 25)  # 55 on average: half way from the initial vectors (50) to PP (60)

    def supervised(self, name, task, epochs):
        self.calls.append(("supervised", name, task, epochs))
        test = {"PP": 80.0, "LSTM (no o.g.)": 82.0}.get(name, 70.0) + list(pt.TASKS).index(task)
        return {"model": name, "task": task, "optimiser": "Adam 0.001", "test": test, "dev": test,
                "replicates": [test - 1.0, test + 1.0]}

    def figure1(self, datasets, epochs):
        self.calls.append(("figure1", tuple(datasets), epochs))
        n = len(self.pairs)
        points = (("random", n // 2, 40.0), ("random", n, 50.0), ("ordered", n // 2, 35.0), ("ordered", n, 50.0))
        return [{"order": o, "pairs": k, "steps": 1, "mean r": m, "suite": suite(m - 25)} for o, k, m in points]


#: Table 2's mean over DATASETS of each model (the suites: 10, 20, 30, 40 + mean − 25).
VARIANT_MEANS = {"PP": 60.0, "proj": 59.0, "DAN": 57.0, "RNN": 40.0, "iRNN": 58.0, "LSTM (no o.g.)": 55.0,
                 "LSTM (o.g.)": 50.0}
BASELINE_MEANS = {"GloVe": 45.0, "initial vectors": 50.0}
#: The same at half the step budget (UnitTraining.half_chosen's encoders): 5 points lower.
HALF_MEANS = {f"{n} (half)": m - 5 for n, m in VARIANT_MEANS.items()}


@pytest.fixture()
def products(monkeypatch):
    """The length bins, the STS pool, the baselines' encoders and their similarity suites faked; returns the calls."""
    import reproducer.encoders.baselines
    import reproducer.evaluate.similarity
    import reproducer.papers.paraphrastic.tables as st
    from reproducer.evaluate.length_bins import bin_labels

    calls = []

    def length_bin_frame(encoders):
        calls.append(("bins", list(encoders)))
        level = {"PP": 0.6, "LSTM (no o.g.)": 0.5, "LSTM (o.g.)": 0.45, "initial vectors": 0.3}
        return pd.DataFrame([{"bin": b, "n": 3, "pearson": level[name], "spearman": 0.1, "model": name}
                             for name in encoders for b in bin_labels()])

    def sts_pool(n_queries, seed=0, limit=None):
        calls.append(("pool", n_queries, limit))
        return (["a cat sat", "the dog ran", "it is out", "so it is", "a eel", "the eel sat", "a dog is out"],
                ["a cat ran", "it is so"][:n_queries])

    def similarity_suite(encoder, seed=0, config="paper"):
        calls.append(("suite", encoder.name, seed))
        return pd.DataFrame(suite({**BASELINE_MEANS, **HALF_MEANS}[encoder.name] - 25, test=20.0))

    monkeypatch.setattr(st, "length_bin_frame", length_bin_frame)
    monkeypatch.setattr(st, "sts_pool", sts_pool)
    monkeypatch.setattr(reproducer.evaluate.similarity, "similarity_suite", similarity_suite)
    monkeypatch.setattr(reproducer.encoders.baselines, "load_baseline", lambda name: Stub("GloVe"))
    return calls


def training(run, max_steps=None, **options) -> UnitTraining:
    from reproducer.data.training_data import TrainingData
    from reproducer.data.vectors import WordVectors
    from reproducer.papers.registry import preset

    vectors = WordVectors(["a", "cat", "dog", "it", "is"], np.eye(5, 3, dtype=np.float32) + 0.1, name="toy")
    t = UnitTraining(run, preset("paraphrastic", run.preset, max_steps=max_steps),
                     data=TrainingData(pairs=list(range(20)), vectors=vectors), **options)
    t.calls = []
    return t


def test_paraphrase_units_train_pp_first_and_cache_what_the_constants_name(results_dir, products):
    t = training(NotebookRun("03_paraphrastic", "default"), n_queries=2)
    t.unit("DAN")  # before PP: PP's unit first, its choice shared
    assert t.pp_choice == "MIX, λw=1e-05" and list(t.best) == ["PP", "DAN"]
    assert [c[1:] for c in t.calls if c[0] == "grid"] == [("PP", label) for label in pt.PP_GRID] + [
        ("DAN", "MIX, lr=0.05"), ("DAN", "MIX, lr=0.005"), ("DAN", "MAX, lr=0.05"), ("DAN", "MAX, lr=0.005")]
    assert [r["overrides"]["negatives"] for r in t.runs["DAN"]] == ["MIX", "MIX", "MAX", "MAX"]
    assert ("bins", ["PP"]) in products and ("table8", tuple(pt.TABLE8_QUERIES)) in t.calls
    assert ("weights",) in t.calls and ("reweighted",) in t.calls  # PP's word-level analyses, PP at hand
    assert [c for c in t.calls if c[0] == "transfer"] == [("transfer", "PP")]  # PP on the transfer tasks (ch. 06)
    assert t.run.path("table8_neighbours.json").is_file() and t.run.path("norm_analysis.json").is_file()
    t.train_grid()
    assert list(t.best) == ["PP", "DAN"] + [n for n in VARIANTS if n not in ("PP", "DAN")]
    assert [c[1] for c in products if c[0] == "bins"] == [["PP"], ["LSTM (no o.g.)"], ["LSTM (o.g.)"]]
    neighbours = sorted(p.name for p in t.run.dir.glob("neighbours_*.csv"))
    assert neighbours == ["neighbours_LSTM__no_o.g._.csv", "neighbours_PP.csv"]  # EXPLORER's trained models
    # issue 69: PP's and the LSTM's neighbours of every sentence of the chapter's own pool (the STS sentences)
    searched = sorted(p.name for p in t.run.dir.glob("search_*.json*"))
    assert searched == ["search_LSTM_no_o.g..json", "search_PP.json"]
    assert len(read_json(t.run.path("search_PP.json"))["ids"]) == len(t.pool[0])
    assert [c for c in products if c[0] == "pool"] == [("pool", 2, None)]  # the pool is built once, then reused
    assert sorted(c[1] for c in t.calls if c[0] == "chosen") == ["LSTM (no o.g.)", "LSTM (o.g.)", "PP"]
    assert sum(c[0] == "table8" for c in t.calls) == 1 and len(t.grid_table()) == 4 + 4 * 6
    t.unit("baselines")
    assert [c[1] for c in products if c[0] == "suite"] == ["GloVe", "initial vectors"]
    assert products[-1] == ("bins", ["initial vectors"]) and t.run.path("neighbours_initial_vectors.csv").is_file()
    assert t.run.path("length_bins_initial_vectors.csv").is_file() and len(t.runs) == len(VARIANTS)
    frame = pd.read_csv(t.run.path("neighbours_PP.csv"))
    assert set(frame.encoder) == {"PP"} and len(frame) == 2 * 5 and set(frame["query"]) == {"a cat ran", "it is so"}
    # a new kernel: every grid record, table and suite is read back; nothing trains
    again = training(NotebookRun("03_paraphrastic", "default"), n_queries=2)
    products.clear()
    again.train_grid()
    again.unit("baselines")
    assert again.calls == [] and products == [] and again.pp_choice == t.pp_choice


def test_paraphrase_units_without_the_explorer_still_cache_the_length_bins(results_dir, products):
    t = training(NotebookRun("03_paraphrastic", "smoke"))
    t.train_grid(neighbours=False)
    t.unit("baselines", neighbours=False)
    assert not list(t.run.dir.glob("neighbours_*.csv")) and not [c for c in products if c[0] == "pool"]
    # issue 44: every run (the seeds' too) scores PP and the LSTM (o.g.) on the transfer tasks beside their twins
    assert [c for c in t.calls if c[0] in ("transfer", "twin")] == [
        ("transfer", "PP"), ("twin", "PP"), ("transfer", "LSTM (o.g.)"), ("twin", "LSTM (o.g.)")]
    assert [c[1] for c in products if c[0] == "bins"] == [["PP"], ["LSTM (no o.g.)"], ["LSTM (o.g.)"],
                                                           ["initial vectors"]]
    # at smoke only the first configuration of each grid
    assert [c[1:] for c in t.calls if c[0] == "grid"] == [(n, next(iter(pt.grid(n, t.pp_choice)))) for n in VARIANTS]
    assert t.pp_choice == "MAX, λw=1e-05"


def test_baseline_suites_read_chapter_01s_skip_thought_from_the_same_folder(results_dir, products, capsys):
    run = NotebookRun("03_paraphrastic", "quick").sibling(seed=1)
    t = training(run)
    suites = t.baseline_suites()
    assert list(suites) == ["GloVe", "initial vectors"]  # chapter 01 not run: skip-thought left out
    assert "is missing" not in capsys.readouterr().out  # silently at a claims seed: only seed 0's Table 2 shows it
    chapter01 = results_dir / "01_skip_thoughts" / "quick+seed=1"
    chapter01.mkdir(parents=True)
    (chapter01 / "similarity_combine-skip.json").write_text(json.dumps(suite(-5.0)))
    (results_dir / "01_skip_thoughts" / "quick").mkdir()
    (results_dir / "01_skip_thoughts" / "quick" / "similarity_combine-skip.json").write_text(json.dumps(suite(99.0)))
    suites = t.baseline_suites()
    assert list(suites) == ["skip-thought", "GloVe", "initial vectors"]
    assert suites["skip-thought"] == suite(-5.0)  # the seed's own, not the quick run's
    assert [c[1] for c in products if c[0] == "suite"] == ["GloVe", "initial vectors"]  # the others cached
    assert list(training(NotebookRun("03_paraphrastic", "smoke")).baseline_suites()) == ["GloVe", "initial vectors"]
    assert "01_skip_thoughts/smoke/similarity_combine-skip.json is missing" in capsys.readouterr().out  # seed 0 notes


def test_paraphrase_seeds_run_at_the_runs_preset_and_budget(nb, products):
    run = nb("03_paraphrastic", max_steps=500)
    main = training(run, max_steps=500, figure_epochs=2, supervised_epochs=4, n_queries=3)
    assert main.settings.max_steps == 500
    with pytest.raises(ReproducerError, match="train_grid"):
        main.seeds(3)  # the seeds train this run's choices: there are none yet
    main.train_grid(neighbours=False)
    seeds = main.seeds(3)
    assert seeds[0] is main and [t.run.dir.name for t in seeds[1:]] == [run.sibling(seed=k).dir.name for k in (1, 2)]
    for seed, t in enumerate(seeds[1:], 1):
        assert isinstance(t, pt.ParaphraseModels) and t.seed == seed  # the main run's budget
        assert t.settings.name == "default" and t.settings.max_steps == 500
        assert (t.figure_epochs, t.supervised_epochs, t.n_queries) == (2, 4, 3)
        assert t.pairs is main.pairs and t.vectors is main.vectors and t.runs == {} and t.best == {}
        assert t.choices == {n: main.best[n]["config"] for n in pt.VARIANTS} and main.choices is None
        declared = json.loads(t.run.path("settings.json").read_text())
        assert declared["seed"] == seed and declared["paraphrastic"]["name"] == "default"
    started = nb("03_paraphrastic", max_steps=500, seed=1)
    training(started, max_steps=500, figure_epochs=2, supervised_epochs=4, n_queries=3).declare()
    assert started.key == seeds[1].run.key  # the notebook executed there reuses these results, and back
    own = training(nb("03_paraphrastic", preset="quick"))
    assert own.seeds(1) == [own]  # no seeds: nothing chosen is needed


def test_a_longer_paraphrase_run_trains_the_main_runs_choices_at_factor_times_the_steps(nb, products):
    """Issue 70's check of chapter 03's extrapolations: the longer run is this seed at ``factor`` × the steps, in the
    run ``-p max_steps`` gives, training the configurations chosen here (the grid is not tuned again), through the
    unit interface :func:`~reproducer.report.extrapolations.check_longer` calls."""
    main = training(nb("03_paraphrastic", max_steps=500), max_steps=500)
    with pytest.raises(ReproducerError, match="train_grid"):
        main.longer(2)  # nothing chosen yet
    main.train_grid(neighbours=False)
    longer = main.longer(2)
    assert longer.settings.max_steps == 1000 and longer.seed == main.seed
    assert longer.run.dir.name == main.run.sibling(changes={"max_steps": 1000}).dir.name != main.run.dir.name
    assert longer.choices == {n: main.best[n]["config"] for n in pt.VARIANTS} and main.choices is None
    longer.calls = []  # the fake's record of what it trains (a sibling is built without it)
    longer.unit("iRNN", neighbours=False)  # PP first (the others take its choice), then the iRNN: one configuration each
    assert [c[1:] for c in longer.calls if c[0] == "grid"] == [("PP", main.pp_choice), ("iRNN", longer.choices["iRNN"])]


def test_the_claims_seeds_train_the_main_runs_choices_and_forget_what_another_choice_cached(results_dir, products,
                                                                                              capsys):
    """A seed trains each model's configuration chosen by the main run, not the grid; where the seed had chosen
    another before (its own grid), what it cached of that choice — PP's Figure 1 and word analyses, the saved
    encoder — is computed again."""
    main = training(NotebookRun("03_paraphrastic", "default"))
    main.train_grid(neighbours=False)
    planned = main.seeds(2)[1]
    seed = training(planned.run, choices=planned.choices)  # the same seed with the fakes
    choices = {n: main.best[n]["config"] for n in pt.VARIANTS}
    old = {**choices, "PP": "MAX, λw=1e-05"}
    seed.run.path("choices.json").write_text(json.dumps(old))
    stale = [seed.run.path("figure1.json"), seed.run.path("norm_analysis.json.gz"), seed.run.bundle_path("PP")]
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("of the old choice")
    seed.train_grid(neighbours=False)
    assert [c for c in seed.calls if c[0] == "grid"] == [("grid", n, choices[n]) for n in pt.VARIANTS]
    assert seed.pp_choice == main.pp_choice and {n: r["config"] for n, r in seed.best.items()} == choices
    assert not any(p.exists() for p in stale[::2]) and ("reweighted",) in seed.calls  # recomputed from the new choice
    assert read_json(seed.run.path("choices.json")) == choices
    assert "PP: chosen configuration now 'MIX, λw=1e-05' (was 'MAX, λw=1e-05'): figure1.json" in capsys.readouterr().out
    with pytest.raises(ReproducerError, match="not in its grid"):
        training(planned.run, choices={**choices, "DAN": "MIX, lr=9"}).train_grid(neighbours=False)


def test_paraphrase_claims_are_read_at_half_the_budget_and_from_a_stored_run(results_dir, products, monkeypatch):
    """Issue 70, chapter 03: the half view scores each chosen configuration at half its step budget into its own
    ``_half`` products (the baselines and the untrained twins are shared) and leaves Figure 1 and Table 5 out (they do
    not depend on the budget); a stored view of another preset reads what that run stored, under its own choices,
    computing and writing nothing; the claims then have a trend over the budgets."""
    import reproducer.evaluate.length_bins as length_bins
    import reproducer.evaluate.similarity as similarity
    from reproducer.papers.registry import preset
    from reproducer.report.trend import trend_rows

    level = lambda name: {**VARIANT_MEANS, **HALF_MEANS, "initial vectors": 50.0}.get(name, 40.0)  # noqa: E731
    monkeypatch.setattr(similarity, "pavlick_test_score", lambda encoder, config="paper": {
        "spearman": level(encoder.name), "replicates": [level(encoder.name) + d for d in (-1.0, 0.0, 1.0)]})
    monkeypatch.setattr(length_bins, "sts_pairs", lambda years=None: pd.DataFrame())
    monkeypatch.setattr(length_bins, "length_bin_replicates", lambda encoder, pairs: {
        "0-10": {"pearson": level(encoder.name), "replicates": [level(encoder.name)] * 3}})
    quick = training(NotebookRun("03_paraphrastic", "quick"))
    quick.declare()  # its results under the key a stored view of it expects
    quick.train_grid(neighbours=False)
    quick.unit("baselines", neighbours=False)
    quick.replicated_scores()
    t = training(NotebookRun("03_paraphrastic", "default"))
    t.train_grid(neighbours=False)
    t.unit("baselines", neighbours=False)
    full = Evidence({n: t.transfer(n) for n in pt.TWINS}, samples=pc.suite_samples(t.claim_suites(DATASETS), DATASETS),
                    replicated=t.replicated_scores())
    before = len(t.calls)
    half = t.at_half().along_evidence(DATASETS)
    new = t.calls[before:]
    assert sorted(c[1] for c in new if c[0] == "half") == sorted(VARIANTS)  # every chosen model, once
    assert ("transfer", "PP_half") in new and not any(c[0] in ("figure1", "supervised", "twin") for c in new)
    assert half.score("PP", "T2") == 55.0 and full.score("PP", "T2") == 60.0  # the half-budget encoder's suite
    assert half.score("initial vectors", "T2") == 50.0  # a baseline: the same at every budget
    for file in ("suite_PP_half.json", "in_domain_PP_half.json", "length_replicates_PP_half.json", "eval_PP_half.json"):
        assert stored_json(t.run.path(file)) is not None, file
    assert stored_json(t.run.path("in_domain_initial_vectors_half.json")) is None  # shared with the full models
    again = t.at_half()
    again.calls = []
    assert again.along_evidence(DATASETS).score("PP", "T2") == 55.0 and again.calls == []  # read back
    files = sorted(quick.run.dir.rglob("*"))
    stored = t.stored_at("quick", preset("paraphrastic", "quick"))
    stored.calls = []
    at_quick = stored.along_evidence(DATASETS)
    assert stored.calls == [] and sorted(quick.run.dir.rglob("*")) == files  # read only
    assert at_quick.score("PP", "T2") == 60.0 and at_quick.score("initial vectors", "T2") == 50.0
    assert stored.recorded_choices() == read_json(quick.run.path("choices.json"))  # quick's own choices
    assert set(stored.recorded_choices()) == set(VARIANTS)
    rows = trend_rows(pc.paraphrase_claims()[3:4] + pc.supervised_claims(list(pt.SUPERVISED))[:1],
                      {1010: [full], 505: [half], 200: [at_quick]})
    assert rows[0]["budgets"] and [b["steps"] for b in rows[0]["budgets"]] == [200, 505, 1010]
    assert rows[1]["direction"] == "not read"  # Table 5: at one budget only


def test_table5_evidence_gathers_each_supervised_run_with_its_replicates_from_the_cached_units(results_dir, products):
    t = training(NotebookRun("03_paraphrastic", "default"), supervised_epochs=2)
    t.train_grid(neighbours=False)
    t.unit("baselines", neighbours=False)
    scores = t.supervised_scores()
    assert set(scores) == {(n, pc.supervised_key(c)) for n in pt.SUPERVISED for c in pt.TASKS.values()}
    assert scores["PP", "Table 5 SICK-R"] == (80.0, [79.0, 81.0]) and scores["DAN", "Table 5 SST2"][0] == 72.0
    assert {c[3] for c in t.calls if c[0] == "supervised"} == {2}  # supervised_epochs
    assert t.run.path("table5/PP__sentiment.json.xz").is_file()  # with its replicates: compressed
    assert set(scores) <= set(t.replicated_scores())  # in the claims' evidence beside Tables 3 and 7
    # the suites the claims on Table 2, Figure 1 and section 6 resample, Figure 1's each with its points' suites
    suites = t.claim_suites(DATASETS)
    assert ("figure1", tuple(DATASETS), 3) in t.calls and t.run.path("figure1.json").is_file()
    assert set(suites) == {*pt.VARIANTS, "GloVe", "initial vectors", pc.REWEIGHTED,
                           *(pc.figure1_name(o, n) for o in ("random", "ordered") for n in (10, 20))}
    assert t.figure1_frame(DATASETS).columns.tolist() == ["order", "pairs", "steps", "mean r"]
    table = check(pc.figure1_claims([10, 20]), Evidence({}, samples=pc.suite_samples(suites, DATASETS)))
    # 20 pairs: no subset of the paper's 92; the rise 40 → 50, random − ordered 40 − 35, (55 − 50) / (60 − 50)
    assert table.value.tolist() == pytest.approx([10.0, 5.0, 0.5]) and len(table) == 3
    calls = len(t.calls)
    t.supervised_scores(), t.claim_suites(DATASETS)
    assert len(t.calls) == calls  # Figure 1, Table 5 and section 6 read back


def test_suite_samples_are_each_models_scores_on_the_datasets_in_one_order():
    samples = pc.suite_samples({"A": suite(0.0), "B": suite(5.0)[1:]}, DATASETS[::-1])
    assert list(samples) == [("A", "T2"), ("B", "T2")]
    np.testing.assert_array_equal(samples["A", "T2"], [40.0, 30.0, 20.0, 10.0])
    assert np.isnan(samples["B", "T2"][-1]) and samples["B", "T2"][:3].tolist() == [45.0, 35.0, 25.0]
    ev = Evidence({}, samples=samples)
    assert ev.score("A", "T2") == 25.0
    gap = ev.score("A", "T2", True) - ev.score("A", "T2", True)
    assert ev.score("A", "T2", True).shape == (1000,) and not gap.any()


def table2_evidence(means: dict[str, float], patterns: dict[str, tuple] | None = None) -> Evidence:
    suites = {n: suite(m - 25, pattern=(patterns or {}).get(n, (0.0,) * 4)) for n, m in means.items()}
    return Evidence({}, samples=pc.suite_samples(suites, DATASETS))


def test_paraphrase_claims_on_table2s_mean():
    claims = pc.paraphrase_claims()
    means = {**VARIANT_MEANS, "initial vectors": 50.0, "GloVe": 45.0}
    table = check(claims, table2_evidence(means))
    assert outcomes(table) == ["reproduced"] * 8
    # PP or proj best on every dataset (the paper counts datasets: 17 of 22, not the mean, where its own iRNN is
    # 0.05 above PP); the iRNN over the best of DAN, the RNN and the LSTMs (issue 42; DAN since issue 68: the paper
    # ranks the iRNN after PP and proj, so above DAN too); the LSTM without output gate better than with it and than
    # the initial vectors on every dataset (section 4.2.2's counts, as shares); PP over the better LSTM (the abstract)
    assert table.value.tolist() == pytest.approx([100.0, 58 - 57, 55 - 50, 100.0, 100.0, 60 - 55, 60 - 50, 60 - 45])
    assert table.numbers.iloc[0] == ("won on 100.0% of our datasets; means: PP 60.0, proj 59.0, DAN 57.0, RNN 40.0, "
                                     "iRNN 58.0, LSTM (no o.g.) 55.0, LSTM (o.g.) 50.0")
    assert table.paper.iloc[1].startswith('"The iRNN model has the next best performance')
    assert table["paper's effect"].tolist() == ["77.3%", "+2.04", "+6.51", "81.8%", "54.5%", "+9.99", "+10.70",
                                                "+14.95"]
    assert table.threshold.iloc[0] == "≥ 50%" and "17 of 22" in table.paper.iloc[0]
    assert "18 of the 22" in table.paper.iloc[3] and "12 of the 22" in table.paper.iloc[4]
    assert table.numbers.iloc[5] == "PP 60.0, LSTM (no o.g.) 55.0, LSTM (o.g.) 50.0"
    worse = check(claims, table2_evidence({**means, "RNN": 58.5, "initial vectors": 61.0}))
    assert outcomes(worse) == ["reproduced", "not reproduced", "reproduced", "reproduced", "not reproduced",
                               "reproduced", "not reproduced", "reproduced"]
    assert worse.value.iloc[1] == pytest.approx(-0.5) and worse.value.iloc[4] == 0.0  # 55 < 61 on every dataset
    # the better LSTM is the one with the output gate: PP is compared with it
    assert check(claims[5:6], table2_evidence({**means, "LSTM (o.g.)": 57.0})).value.iloc[0] == pytest.approx(3.0)
    # the iRNN above PP and proj on 3 of the 4 datasets: they win one, a share of 25%
    split = check(claims[:1], table2_evidence(means, {"iRNN": (5.0, 5.0, 5.0, -5.0)})).iloc[0]
    assert split.value == pytest.approx(25.0)
    # the LSTMs 5 points apart on average but in opposite directions dataset by dataset: inconclusive
    noisy = check(claims[2:4], table2_evidence(means, {"LSTM (o.g.)": (20.0, -20.0, 20.0, -20.0)}))
    assert noisy.outcome.iloc[0] == "inconclusive" and noisy.value.iloc[0] == pytest.approx(5.0)
    assert noisy.low.iloc[0] < 0 < noisy.high.iloc[0]
    assert noisy.value.iloc[1] == pytest.approx(50.0)  # better on 2 of the 4 datasets: not most of them
    assert noisy.outcome.iloc[1] != "reproduced"


def table5_evidence(lstm_sst: float = 85.0, shift: float = 0.0, noise=None) -> Evidence:
    """One seed's Table 5 scores (PP and one LSTM), each with replicates: ``noise`` (the resampled test records,
    alike for both models) or ±1."""
    noise = np.array([-1.0, 1.0]) if noise is None else noise
    table = {"PP": {"SICK-R": 80, "SICK-E": 80, "SST2": 80}, "LSTM (o.g.)": {"SICK-R": 70, "SICK-E": 78,
                                                                             "SST2": lstm_sst + shift}}
    return Evidence({}, replicated={(n, pc.supervised_key(c)): (v, v + noise) for n, row in table.items()
                                    for c, v in row.items()})


def test_in_domain_claims_read_each_models_score_and_replicates_on_the_same_pairs():
    """Table 3's claims on the Pavlick test half: each model's Spearman ρ × 100 with replicates that resample the same
    pairs for every model and seed (computed by the unit: pavlick_test_score), as Evidence's ``replicated``."""
    rng = np.random.default_rng(0)
    noise = rng.normal(size=1000)  # the pairs' resampling moves every model alike
    levels = {n: 40.0 + i for i, n in enumerate(VARIANTS)} | {"initial vectors": 30.0}
    ev = Evidence({}, replicated={(n, pc.IN_DOMAIN): (v, v + noise) for n, v in levels.items()})
    assert ev.score("PP", pc.IN_DOMAIN) == 40.0 and (ev.score("PP", pc.IN_DOMAIN, True) == 40.0 + noise).all()
    table = check(pc.in_domain_claims(list(VARIANTS)), ev)
    # spread 46 − 40; the better LSTM (o.g., 46) over the best other (iRNN, 44); the worst (PP, 40) over 30
    assert table.value.tolist() == pytest.approx([6.0, 2.0, 10.0])
    assert outcomes(table) == ["not reproduced", "reproduced", "reproduced"]  # a spread above 5 in every replicate
    assert table["paper's effect"].tolist() == ["+2.9", "+1.0", "+3.1"] and table.threshold.iloc[0] == "≤ 5"
    assert table.numbers.iloc[2].endswith("initial vectors 30.0") and all(p.startswith('"') for p in table.paper)
    noisy = Evidence({}, replicated={**ev.replicated, ("iRNN", pc.IN_DOMAIN): (44.0, 44.0 + 3 * rng.normal(size=1000))})
    lstms = check(pc.in_domain_claims(list(VARIANTS))[1:2], noisy).iloc[0]
    assert lstms.outcome == "inconclusive" and lstms.low < 0 < lstms.high  # the iRNN's own noise


def test_the_length_bin_claim_takes_the_smallest_gap_over_the_bins_with_each_bins_replicates():
    """Table 7's claim: PP minus the better LSTM in each length bin, the smallest over the bins, each bin's scores with
    replicates that resample that bin's pairs alike for every model (length_bin_replicates)."""
    rng = np.random.default_rng(1)
    noise = {b: rng.normal(size=1000) for b in ("≤4", "5")}
    table7 = {"PP": {"≤4": 60.0, "5": 61.0}, "LSTM (no o.g.)": {"≤4": 50.0, "5": 55.0},
              "LSTM (o.g.)": {"≤4": 50.0, "5": 52.0}}
    ev = Evidence({}, replicated={(n, pc.length_key(b)): (v, v + noise[b]) for n, row in table7.items()
                                  for b, v in row.items()})
    row = check([pc.length_bin_claim(["≤4", "5"])], ev).iloc[0]
    assert row.value == pytest.approx(6.0) and row.outcome == "reproduced"  # PP − the better LSTM in bin 5: 61 − 55
    assert row["paper's effect"] == "+9.3" and row.numbers == "PP minus the better LSTM: ≤4 +10.0, 5 +6.0"
    assert row.low == pytest.approx(6.0) and row.high == pytest.approx(6.0)  # every model moves alike in a bin
    noisy = {**ev.replicated, ("LSTM (o.g.)", pc.length_key("5")): (52.0, 52.0 + 8 * rng.normal(size=1000))}
    wide = check([pc.length_bin_claim(["≤4", "5"])], Evidence({}, replicated=noisy)).iloc[0]
    assert wide.low < 0 < wide.high < 9.3  # the LSTM's own noise in bin 5: the interval holds 0, not the paper's 9.3
    assert wide.outcome == "smaller than published"


def test_the_shortest_bin_claim_takes_each_lstms_smallest_lead_of_its_shortest_bin():
    """Table 7's other reading: each LSTM's r in the shortest bin minus its r in every longer bin, the smallest."""
    rng = np.random.default_rng(2)
    noise = {b: 0.1 * rng.normal(size=1000) for b in ("≤4", "5", "6")}  # each bin's pairs resampled
    table7 = {"PP": {"≤4": 60.0, "5": 61.0, "6": 62.0}, "LSTM (no o.g.)": {"≤4": 58.0, "5": 55.0, "6": 54.0},
              "LSTM (o.g.)": {"≤4": 52.0, "5": 50.0, "6": 53.0}}

    def evidence(table):
        return Evidence({}, replicated={(n, pc.length_key(b)): (v, v + noise[b]) for n, row in table.items()
                                        for b, v in row.items()})

    row = check(pc.shortest_bin_claims(["≤4", "5", "6"]), evidence(table7)).iloc[0]
    assert row.value == pytest.approx(-1.0) and row.outcome == "not reproduced"  # the LSTM (o.g.): 52 at ≤4, 53 at 6
    assert row["paper's effect"] == "+3.2" and row.numbers.startswith("LSTM (no o.g.): ≤4 58.0, 5 55.0, 6 54.0; ")
    table7["LSTM (o.g.)"]["6"] = 49.0
    row = check(pc.shortest_bin_claims(["≤4", "5", "6"]), evidence(table7)).iloc[0]
    assert row.value == pytest.approx(2.0) and row.outcome == "reproduced"  # o.g.'s 52 − 50 in bin 5 the smallest
    assert pc.shortest_bin_claims(["≤4"]) == []  # one bin: nothing to compare it with


def test_length_bin_replicates_score_each_bin_and_pair_its_resamples():
    from reproducer.evaluate.length_bins import length_bin_replicates, length_bin_scores

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(40)]
    sentences = [" ".join(rng.choice(words, size=k)) for k in rng.integers(2, 12, size=240)]
    pairs = pd.DataFrame({"a": sentences[:120], "b": sentences[120:], "score": rng.uniform(0, 5, size=120)})
    pairs["length"] = [max(len(a.split()), len(b.split())) for a, b in zip(pairs.a, pairs.b)]
    encoder = Stub("letters")
    out = length_bin_replicates(encoder, pairs)
    table = length_bin_scores(encoder, pairs).set_index("bin")
    for label, row in out.items():
        assert row["n"] == table.loc[label, "n"] and row["pearson"] == pytest.approx(100 * table.loc[label, "pearson"])
        assert len(row["replicates"]) == 1000 and row["replicates"][0] == float(f"{row['replicates'][0]:.4g}")
    assert out == length_bin_replicates(Stub("the same letters"), pairs)  # the same pairs drawn for every encoder


def figure1_evidence(points: dict, initial: float = 36.0, reweighted: float = 43.0, pp: float = 46.0,
                     patterns: dict | None = None) -> Evidence:
    """Figure 1's points ((order, pairs) → mean r) and section 6's suites as a seed's evidence, each a suite of
    :data:`DATASETS` around its mean (``patterns``: a point's dataset-by-dataset deviations)."""
    means = {pc.figure1_name(o, n): m for (o, n), m in points.items()} | {"initial vectors": initial,
                                                                          pc.REWEIGHTED: reweighted, "PP": pp}
    suites = {k: suite(m - 25, pattern=(patterns or {}).get(k, (0.0,) * 4)) for k, m in means.items()}
    return Evidence({}, samples=pc.suite_samples(suites, DATASETS))


def test_figure1_and_section_6_claims_resample_the_datasets_of_every_point():
    points = {("random", 20): 38, ("random", 100): 40, ("random", 200): 50, ("ordered", 20): 30, ("ordered", 100): 35,
              ("ordered", 200): 50}
    table = check(pc.figure1_claims([20, 100, 200]), figure1_evidence(points))
    assert table.value.tolist() == pytest.approx([
        2.0,  # "continually increases": the smallest rise, 20 → 100 pairs
        4.0,  # the smallest subset of at least 92 pairs (100) over the initial vectors' 36
        6.5,  # "usually": the mean gap, 8 at 20 pairs and 5 at 100; the full set (200) is not compared
        0.7])  # section 6: (43 − 36) / (46 − 36)
    assert outcomes(table) == ["reproduced"] * 4  # every dataset moves alike: no noise
    assert table["paper's effect"].tolist() == ["", "+4.0", "", "64.8%"] and table.ours.iloc[-1].startswith("70.0%")
    assert table.threshold.iloc[-1] == "≥ 64.76%" and '"at least 64.76% of the improvement' in table.paper.iloc[-1]
    assert all(p.startswith('"') for p in table.paper)  # every row quotes the paper's sentence
    assert table.numbers.iloc[0] == "random: 20 pairs 38.0, 100 pairs 40.0, 200 pairs 50.0"
    smaller = check(pc.figure1_claims([20, 100, 200])[3:], figure1_evidence(points, reweighted=42.0)).iloc[0]
    assert smaller.value == pytest.approx(0.6) and smaller.outcome == "not reproduced"
    # a dip, no subset of the paper's 92 pairs (that claim left out), and a point whose datasets disagree
    dip = {("random", 10): 40, ("random", 20): 52, ("random", 30): 50, ("ordered", 10): 30, ("ordered", 20): 54,
           ("ordered", 30): 50}
    noisy = {pc.figure1_name("random", 20): (9.0, -9.0, 9.0, -9.0)}
    table = check(pc.figure1_claims([10, 20, 30]), figure1_evidence(dip, patterns=noisy))
    assert len(table) == 3 and table.value.tolist()[:2] == pytest.approx([-2.0, (10 - 2) / 2])
    assert table.low.iloc[0] < -2.0 < table.high.iloc[0] and table.high.iloc[0] > 0  # the datasets' noise


def test_supervised_claims_read_table5_with_each_seeds_replicates_of_the_same_test_records():
    """Table 5's claims: the best LSTM minus PP on SST-2, PP minus the best other model on SICK-R and SICK-E, on each
    seed's test scores with replicates that resample the same records for every model and seed."""
    models = ["PP", "LSTM (o.g.)"]
    table = check(pc.supervised_claims(models), table5_evidence())
    assert table.value.tolist() == pytest.approx([5.0, 10.0, 2.0])
    assert outcomes(table) == ["reproduced"] * 3 and table.threshold.tolist() == ["≥ 0"] * 3
    assert table["paper's effect"].tolist() == ["+6.2", "+0.4", "+0.1"]  # Table 5's gaps
    assert all(p.startswith('"') for p in table.paper) and table.noise.tolist() == ["test items (bootstrap)"] * 3
    assert table.numbers.iloc[0] == "SST2: PP 80.0, LSTM (o.g.) 85.0"
    worse = check(pc.supervised_claims(models), table5_evidence(lstm_sst=75.0))
    assert outcomes(worse) == ["not reproduced", "reproduced", "reproduced"]
    # the records' resampling moves one model and not the other: a 5-point gap inside ±8 of evaluation noise
    rng = np.random.default_rng(0)
    noisy = table5_evidence(noise=np.zeros(1000))
    noisy.replicated["LSTM (o.g.)", "Table 5 SST2"] = (85.0, 85.0 + 4 * rng.normal(size=1000))
    assert check(pc.supervised_claims(models)[:1], noisy).outcome.item() == "inconclusive"
    # three seeds: SST-2 gaps −5, 5, 15; the mean 5 with t(2)·s/√3 around it, the paired records adding nothing
    seeds = [table5_evidence(shift=s) for s in (-10.0, 0.0, 10.0)]
    sst = check(pc.supervised_claims(models)[:1], seeds[1], seeds, budget="default").iloc[0]
    assert sst.outcome == "inconclusive"
    assert sst.noise == "test items (bootstrap) + the mean of 3 training seeds at `default`"
    assert sst.value == pytest.approx(5.0) and sst.high - sst.value == pytest.approx(4.303 * 10 / 3 ** 0.5, rel=1e-3)
    # PP alone (no other model trained on the tasks): nothing to compare; no LSTM: only the SICK claims
    assert pc.supervised_claims(["PP"]) == [] and len(pc.supervised_claims(["PP", "DAN"])) == 2


def test_table5_compares_word_averaging_with_every_architecture_the_paper_trains_on_the_tasks():
    """Issue 68: "word averaging ... outperforms the other architectures" (section 4.4) is read against every model of
    Table 5, proj (85.93 on SICK-R, 84.0 on SICK-E) among them; the quoted cells name the two next best."""
    assert list(pt.SUPERVISED) == ["PP", "proj", "DAN", "RNN", "LSTM (no o.g.)", "LSTM (o.g.)"]
    paper = paper_table("wieting2016", "Table 5", rename={p: n for n, p in pt.SUPERVISED.items()})
    assert set(paper.index) >= set(pt.SUPERVISED)  # every model we train has its published row
    for claim, best_other in zip(pc.supervised_claims(list(pt.SUPERVISED))[1:], ("SICK-R", "SICK-E")):
        others = paper.drop("PP")[best_other].drop(index=[i for i in paper.index if i not in pt.SUPERVISED])
        assert claim.effect == pytest.approx(round(paper.loc["PP", best_other] - others.max(), 2))
        assert "proj" in claim.paper and f"DAN {paper.loc['DAN', best_other]:g}" in claim.paper


# === chapter 01: reproducer.papers.skip_thoughts.chapter ====================================================================

from reproducer.papers.skip_thoughts import chapter as sk  # noqa: E402


def skip_models(run, monkeypatch, tasks=("MR", "SST2"), **options):
    """SkipThoughtModels in ``run`` with training, vocabulary expansion, evaluation, the similarity suite and the
    neighbour searches faked; returns the models and what they were asked."""
    import reproducer.encoders.baselines
    import reproducer.encoders.expansion
    import reproducer.evaluate
    import reproducer.evaluate.similarity
    import reproducer.report.units
    from reproducer.papers.registry import preset

    models = sk.SkipThoughtModels(run, preset("skip-thought", "smoke"), tasks=list(tasks), progress=False, **options)
    asked = {"fit": [], "evaluate": [], "suite": [], "neighbours": [], "expansion": [], "analogy": [], "twins": [],
             "search": []}

    def fit(name):
        def train(checkpoint):
            asked["fit"].append(name)
            log = SimpleNamespace(to_dict=lambda: {"step": 3, "seconds": 2.0, "examples": 30, "losses": [],
                                                   "evals": []})
            return SimpleNamespace(encoder=Stub(f"raw {name}"), log=log)

        return run.model(name, train)

    models.fit = fit
    models.data = SimpleNamespace(vocab=SimpleNamespace(coverage=lambda sentences: 0.75))
    models.held_out_sentences, models.word2vec = ["a held-out sentence"], "our word2vec"
    models.products.neighbours = lambda name: asked["neighbours"].append(name)
    models.products.search = lambda name: asked["search"].append(name)
    models.twins = lambda names=None: asked["twins"].append(list(names)) or {}  # tested in test_untrained_twins.py
    monkeypatch.setattr(reproducer.encoders.expansion, "combined",
                        lambda parts, name, vectors: Stub(name, *[p.name for p in parts], vectors))
    monkeypatch.setattr(reproducer.encoders.expansion, "expansion_report", lambda encoder, vectors, seed=0: asked[
        "expansion"].append((encoder.name, vectors)) or {"r2": 1})
    monkeypatch.setattr(reproducer.encoders.baselines, "load_baseline", lambda name: Stub(name))
    monkeypatch.setattr(reproducer.evaluate, "evaluate", fake_evaluate(asked["evaluate"]))

    def similarity_suite(encoder, seed=0, config="paper"):
        asked["suite"].append((encoder.name, getattr(encoder, "parts", ()), seed))
        return pd.DataFrame(suite(0.0))

    monkeypatch.setattr(reproducer.evaluate.similarity, "similarity_suite", similarity_suite)
    models.corpus = SimpleNamespace(sentences=["the training corpus"])
    monkeypatch.setattr(reproducer.report.units, "mine_questions", lambda sentences, per_category, seed: asked[
        "analogy"].append(("questions", seed)) or {"pairs": 1, "questions": [{"a": "x"}], "seed": seed})
    monkeypatch.setattr(reproducer.report.units, "answer", lambda encoder, study: asked["analogy"].append(
        (encoder.name, getattr(encoder, "parts", ()))) or {"accuracy": 0.5, "hits": "1"})
    return models, asked


def test_skip_thought_models_score_every_model_on_chapter_05s_tasks_too(results_dir):
    from reproducer.papers.registry import preset

    settings, run = preset("skip-thought", "smoke"), NotebookRun("01_skip_thoughts", "smoke")
    assert sk.SkipThoughtModels.EXTRA_TASKS == ("STS14", "SST2", "SICK-E")
    models = sk.SkipThoughtModels(run, settings, tasks=["MR", "SST2"])
    assert models.extra_tasks == ("STS14", "SICK-E") and models.products.tasks == ["MR", "SST2", "STS14", "SICK-E"]
    smoke = sk.SkipThoughtModels(run, settings, tasks=["MR"], extra_tasks=("STS14",))  # as the notebook at smoke
    assert smoke.products.tasks == ["MR", "STS14"]


def test_skip_thought_units_cache_combine_skip_and_its_similarity_suite(results_dir, monkeypatch):
    run = NotebookRun("01_skip_thoughts", "smoke")
    models, asked = skip_models(run, monkeypatch)
    models.unit("uni-skip")
    assert asked["fit"] == ["uni-skip"] and asked["expansion"] == [("raw uni-skip", "our word2vec")]
    assert asked["evaluate"] == [("uni-skip", ["MR", "SST2", "STS14", "SICK-E"], models.settings.eval_config)]
    assert asked["neighbours"] == ["uni-skip"] and asked["suite"] == []
    assert read_json(run.path("uni-skip_training.json"))["vocab_coverage"] == 0.75
    models.unit("bi-skip")
    assert asked["fit"] == ["uni-skip", "bi-skip"]
    assert [e[0] for e in asked["evaluate"][1:]] == ["bi-skip", "combine-skip", "combine-skip (no expansion)"]
    assert asked["suite"] == [("combine-skip", ("raw uni-skip", "raw bi-skip", "our word2vec"), models.seed)]
    assert read_json(run.path("similarity_combine-skip.json")) == suite(0.0)  # read by chapter 03
    assert run.path("eval_combine-skip_no_expansion.json").is_file()
    assert asked["neighbours"] == ["uni-skip", "bi-skip", "combine-skip"] and asked["search"] == ["combine-skip"]
    assert asked["twins"] == [["combine-skip"]]  # issue 44: its untrained twins, once combine-skip is complete
    assert asked["analogy"] == [("questions", 0),  # chapter 02's analogy claim: one question set for every seed
                                ("combine-skip", ("raw uni-skip", "raw bi-skip", "our word2vec"))]
    assert read_json(run.path("analogy_combine-skip.json"))["hits"] == "1"
    models.unit("glove-bow")
    assert asked["fit"] == ["uni-skip", "bi-skip"] and asked["evaluate"][-1][0] == "glove-bow"
    assert asked["neighbours"][-1] == "glove-bow" and not run.path("glove-bow_training.json").exists()
    again, asked_again = skip_models(NotebookRun("01_skip_thoughts", "smoke"), monkeypatch)
    for name in ("uni-skip", "bi-skip", "glove-bow"):
        again.unit(name, neighbours=False)
    assert asked_again == {"fit": [], "evaluate": [], "suite": [], "neighbours": [], "expansion": [],
                           "analogy": [], "twins": [["combine-skip"]], "search": []}  # all cached (the twins' cache: its own test)


def test_skip_thought_units_score_the_twins_after_every_product_that_needs_the_trained_encoders(results_dir,
                                                                                                monkeypatch):
    """A default seed trains for about two hours and its checkpoints do not outlive a session: bi-skip's unit runs
    what needs the trained encoders (evaluations, similarity, analogy, neighbours and search, the half-budget
    products) before combine-skip's untrained twins, which need none (a run cut off there retrains nothing)."""
    models, asked = skip_models(NotebookRun("01_skip_thoughts", "smoke"), monkeypatch)
    order = []
    for method in ("similarity", "analogy", "halfway", "twins"):
        original = getattr(models, method)
        setattr(models, method, lambda *a, _m=method, _f=original, **k: order.append(_m) or _f(*a, **k))
    models.unit("uni-skip")
    assert order == ["halfway"]
    models.unit("bi-skip")
    assert order[:4] == ["halfway", "similarity", "analogy", "halfway"]  # the half-budget analogy (if any) inside it
    assert order.count("twins") == 1 and order[-1] == "twins"
    assert asked["twins"] == [["combine-skip"]]


def test_the_searchable_explorer_is_a_unit_product_of_the_headline_encoders(results_dir, monkeypatch, capsys):
    """Issue 69 item 8: combine-skip's neighbours of every pool sentence are stored by bi-skip's unit in the main run
    (``search_combine-skip.json``, committed: the explorer is drawn again without the models), read back without
    training, and drawn as the chapter's searchable explorer; a seed's run stores none, and one whose models are gone
    notes it instead of training them."""
    pool = [f"sentence {w} number {i}" for i, w in enumerate(["a", "ee", "iii", "oooo", "uu", "sss", "tt", "aeiou"])]

    def chapter(run):
        models, asked = skip_models(run, monkeypatch)
        del models.products.search  # the real search, over a pool of eight
        models.products.pool = (pool, pool[:2])
        return models, asked

    run = NotebookRun("01_skip_thoughts", "smoke")
    models, asked = chapter(run)
    assert models.search_explorer(sk.SEARCH_MODELS) is None  # nothing stored yet: nothing shown
    models.unit("uni-skip")
    assert not any(run.dir.glob("search_*"))
    models.unit("bi-skip")
    found = read_json(run.path("search_combine-skip.json"))
    ids, cosines = np.array(found["ids"]), np.array(found["cosines"])
    assert ids.shape == cosines.shape == (8, 5) and (ids != np.arange(8)[:, None]).all()  # never the sentence itself
    assert (np.diff(cosines, axis=1) <= 0).all()  # best first
    assert list(models.searches(["combine-skip", "uni-skip"])) == ["combine-skip"]
    page = models.search_explorer(sk.SEARCH_MODELS)
    assert page.data_file == results_dir / "explorer" / "explorer_01_skip_thoughts-smoke.json"
    models_named = [m["file"] for m in read_json(page.data_file)["models"]]  # the stored search, named
    assert models_named == ["../01_skip_thoughts/smoke/search_combine-skip.json"]  # 8 sentences: stored plain
    assert "encoders: combine-skip." in page.data
    seed_run = run.sibling(seed=1)
    seed, _ = chapter(seed_run)
    for name in sk.SEED_MODELS:
        seed.unit(name, neighbours=False)
    assert not any(seed_run.dir.glob("search_*"))
    again, asked_again = chapter(NotebookRun("01_skip_thoughts", "smoke"))
    again.unit("bi-skip")
    assert asked_again["fit"] == [] and again.searches(sk.SEARCH_MODELS) == {"combine-skip": found}
    run.path("search_combine-skip.json").unlink()
    third, asked_third = chapter(NotebookRun("01_skip_thoughts", "smoke"))
    assert third.search("combine-skip", sk.PARTS["combine-skip"]) is None and asked_third["fit"] == []
    assert "search_combine-skip: needs uni-skip and bi-skip, not saved in smoke/" in capsys.readouterr().out


def test_chapter_02s_main_units_store_the_search_of_uni_qt_and_mc_qt_only():
    """Issue 69 item 8 in chapter 02: the units of its headline encoders (uni-QT, MC-QT) store their neighbours of
    every pool sentence in the main run; the other models' units and every seed's (``neighbours=False``) do not."""
    from reproducer.papers.quick_thoughts import chapter as qt

    searched = []
    assert qt.QuickThoughtModels.SEARCH == ("uni-QT", "MC-QT")
    fake = SimpleNamespace(SEARCH=qt.QuickThoughtModels.SEARCH, sizes={}, classification=["MR"], curve_tasks=["MR"], record=lambda n: None,
                           evaluated=lambda *a, **k: None, twins=lambda names: None, analogy=lambda *a: None,
                           halfway=lambda *a: None, products=SimpleNamespace(neighbours=lambda n: None),
                           search=lambda name: searched.append(name))
    for name in qt.FAMILY:
        qt.QuickThoughtModels.unit(fake, name)
    assert searched == ["uni-QT", "MC-QT"]
    for name in qt.FAMILY:
        qt.QuickThoughtModels.unit(fake, name, neighbours=False)
    assert searched == ["uni-QT", "MC-QT"]


def test_a_chapter_01_seed_answers_the_main_runs_analogy_questions_only_with_its_models_at_hand(results_dir,
                                                                                                 monkeypatch, capsys):
    """A seed mines the questions with seed 0, as the main run (chapter 02 compares its MC-QT with combine-skip on
    them); a cached unit whose models are gone answers nothing instead of training them again."""
    seed_run = NotebookRun("01_skip_thoughts", "smoke").sibling(seed=2)
    models, asked = skip_models(seed_run, monkeypatch, seed=2)
    assert models.seed == 2 and models.products.question_seed == 0
    for name in sk.SEED_MODELS:
        models.unit(name, neighbours=False)
    assert asked["analogy"][0] == ("questions", 0) and asked["analogy"][1][0] == "combine-skip"
    seed_run.path("analogy_combine-skip.json").unlink()
    again, asked_again = skip_models(NotebookRun("01_skip_thoughts", "smoke").sibling(seed=2), monkeypatch, seed=2)
    assert again.analogy("combine-skip", sk.PARTS["combine-skip"]) is None
    assert asked_again["fit"] == asked_again["analogy"] == []
    assert "analogy_combine-skip: needs uni-skip and bi-skip, not saved in smoke+seed=2/" in capsys.readouterr().out


def test_chapter_03_reads_the_similarity_suite_a_chapter_01_seed_unit_stored(results_dir, monkeypatch, products):
    seed_run = NotebookRun("01_skip_thoughts", "quick").sibling(seed=2)
    models, asked = skip_models(seed_run, monkeypatch)
    for name in sk.SEED_MODELS:
        models.unit(name, neighbours=False)  # as the notebook's seed loop
    assert asked["neighbours"] == [] and len(asked["suite"]) == 1
    paraphrastic = training(NotebookRun("03_paraphrastic", "quick").sibling(seed=2))
    assert paraphrastic.baseline_suites()["skip-thought"] == suite(0.0)


def test_skip_thought_claims_on_constructed_evidence():
    classification, tasks = ["MR", "CR"], ["MR", "CR", "SICK-R"]
    scores = {"uni-skip": {"MR": 70, "CR": 72, "SICK-R": 79.0}, "bi-skip": {"MR": 68, "CR": 70, "SICK-R": 78.0},
              "combine-skip": {"MR": 72, "CR": 73, "SICK-R": 80.0, "MRPC": 74.0},
              "combine-skip (no expansion)": {"MR": 72, "CR": 72, "SICK-R": 80.0},
              "word2vec-bow": {"SICK-R": 82.0, "MRPC": 68.0}}
    claims = sk.skip_thought_claims(classification, tasks)
    assert len(claims) == 7
    table = check(claims, sampled(scores))
    assert outcomes(table) == ["reproduced", "reproduced", "reproduced", "not reproduced", "reproduced",
                               "reproduced", "not reproduced"]
    # combine-skip over the halves: the smaller gap (issue 68: every column); SICK-R's order: the smaller gap
    assert table.value.tolist() == pytest.approx([72.5 - 71, 71 - 69, 1.0, 80 - 82, 74 - 68, 1 / 3, 80 - 84.14])
    assert [c.every_column for c in claims] == [True, False, True, False, False, False, False]
    # issue 68: Table 3's bag-of-words row is stood in for by our word2vec-300d average (same corpus), on SICK-R and
    # MRPC
    assert table.paper.iloc[3] == "Table 3: combine-skip 0.8584 vs bow 0.7823"  # Kiros et al.'s bow row
    assert table.paper.iloc[4] == "Table 3: combine-skip 73.0 vs bow 67.8"
    assert table.numbers.iloc[3] == "combine-skip 0.800, word2vec averaging 0.820"
    # section 3.2: a linear model on skip-thoughts against the SemEval systems' best published r (ECNU, 0.8414)
    assert "ECNU" in claims[6].claim and claims[6].effect == pytest.approx(85.84 - 84.14)
    assert table.paper.iloc[6].startswith('"our models are able to outperform all previous systems')
    # the paper's own effects (issue 42), read from its tables: MR and CR as Quick-Thoughts' Table 1 prints them; the
    # paper states no uni- vs bi-skip comparison, so that row has no effect (issue 68: no "smaller than published")
    assert [c.effect for c in claims[:5]] == pytest.approx(
        [(76.5 + 80.1) / 2 - (75.5 + 79.3) / 2, None, 84.77 - 84.05, 85.84 - 78.23, 73.0 - 67.8], nan_ok=True)
    assert claims[1].effect is None
    expansion = claims[5]
    assert expansion.effect is None and expansion.threshold == -1.0 and "not a claim of the paper" in expansion.claim
    assert expansion.own and table.source.iloc[5] == "the book's own"  # issue 68: labelled as the book's own
    # "uni-skip above bi-skip on every task" is false in the paper (SUBJ 92.1 < 92.5): the row says so
    six = sk.skip_thought_claims(["MR", "CR", "SUBJ", "MPQA", "TREC", "MRPC"], tasks)
    assert "5 of 6 tasks (below on SUBJ)" in six[1].paper and "(tied on MRPC)" in six[0].paper
    # an interval that holds 0 but not the paper's +7.6 SICK-R gap is smaller than published
    close = check(claims, sampled({**scores, "combine-skip": {**scores["combine-skip"], "SICK-R": 83.0}},
                                  own={"combine-skip": 6.0})).iloc[3]
    assert close.low < 0 < close.high < 85.84 - 78.23 and close.outcome == "smaller than published"
    assert table.numbers.iloc[0] == "uni-skip 71.0, bi-skip 69.0, combine-skip 72.5"
    assert table.numbers.iloc[5] == "combine-skip 75.0, combine-skip (no expansion) 74.7"
    noisy = check(claims, sampled(scores, own={"combine-skip (no expansion)": 15.0}))
    assert noisy.outcome.iloc[5] == "inconclusive" and noisy.outcome.iloc[1] == "reproduced"


def test_skip_thought_seeds_keep_the_extra_tasks_the_chapter_chose(results_dir):
    from reproducer.papers.registry import preset

    main = sk.SkipThoughtModels(NotebookRun("01_skip_thoughts", "smoke"), preset("skip-thought", "smoke"),
                                tasks=["MR", "MRPC", "SICK-R"], extra_tasks=("STS14",))  # notebook 01 at smoke
    assert [m.products.tasks for m in main.seeds(2)] == [["MR", "MRPC", "SICK-R", "STS14"]] * 2


def test_chapter_02_forgets_a_seeds_own_questions_and_reads_combine_skips_answers_to_the_same(results_dir, monkeypatch,
                                                                                               capsys):
    """Every seed answers the questions mined with seed 0: a seed's questions mined with its own seed (before, no seed
    recorded) are forgotten with their answers; the analogy claim's evidence pairs chapter 02's MC-QT with chapter
    01's combine-skip of the same seed only where both answered the same questions."""
    import reproducer.report.units
    from reproducer.papers.quick_thoughts import chapter as qt
    from reproducer.report.units import ModelProducts

    questions = [{"a": "a", "b": "b", "c": "c", "d": "d", "category": "family"},
                 {"a": "e", "b": "f", "c": "g", "d": "h", "category": "plural"}]
    run = NotebookRun("02_quick_thoughts", "quick").sibling(seed=1)
    run.json("analogy_questions", lambda: {"pairs": 2, "questions": questions[::-1]})  # mined with seed 1
    run.json("analogy_MC-QT", lambda: {"hits": "01"})
    monkeypatch.setattr(reproducer.report.units, "mine_questions", lambda sentences, per_category, seed: {
        "pairs": 2, "questions": questions, "seed": seed})
    products = ModelProducts(run, lambda name: pytest.fail("no encoder is needed"), tasks=[], eval_config="smoke",
                             seed=1, question_seed=0)
    assert products.questions(lambda: ["a sentence"])["questions"] == questions
    assert not run.path("analogy_MC-QT.json").exists() and products.stored_analogy("MC-QT") is None
    assert "quick+seed=1: the analogy questions of seed 1 are replaced by those of seed 0" in capsys.readouterr().out
    models = SimpleNamespace(run=run, products=products)
    assert qt.analogy_answers(models) == {}  # no answers yet
    # a cached seed unit re-executed: its stale answers are forgotten before asking whether they are cached
    from reproducer.report.units import ChapterModels

    class Seed(ChapterModels):
        QUESTION_SEED = 0

        def trained(self, name):
            pytest.fail("a cached unit trains nothing")

    stale = NotebookRun("02_quick_thoughts", "quick").sibling(seed=2)
    stale.json("analogy_questions", lambda: {"pairs": 2, "questions": questions[::-1]})
    stale.json("analogy_MC-QT", lambda: {"hits": "01"})
    seed = Seed(stale, SimpleNamespace(eval_config="smoke"), tasks=[], seed=2)
    seed.corpus = SimpleNamespace(sentences=["a sentence"])
    assert seed.analogy("MC-QT") is None and not stale.path("analogy_MC-QT.json").exists()
    assert "analogy_MC-QT: needs MC-QT, not saved in quick+seed=2/" in capsys.readouterr().out
    run.json("analogy_MC-QT", lambda: {"hits": "10"})
    chapter01 = NotebookRun("01_skip_thoughts", "quick").sibling(seed=1)
    chapter01.json("analogy_combine-skip", lambda: {"hits": "00"})
    assert qt.analogy_answers(models) == {}  # chapter 01 mined no questions in that folder
    chapter01.json("analogy_questions", lambda: {"pairs": 2, "questions": questions, "seed": 0})
    answers = qt.analogy_answers(models)
    assert answers["MC-QT"] == {"hits": "10", "categories": ["family", "plural"]}
    assert answers["combine-skip"] == {"hits": "00", "categories": ["family", "plural"]}
    chapter01.path("analogy_questions.json").write_text(json.dumps({"pairs": 1, "questions": questions[:1], "seed": 0}))
    assert qt.analogy_answers(models) == {}  # other questions: not paired


def test_units_score_the_encoders_saved_at_half_the_budget_while_they_exist(results_dir, monkeypatch, capsys):
    """Issue 67's half-budget encoders are scored in each model's unit (``eval_<name>_half.json``, the analogy answers
    of combine-skip), from the halfway bundles and never by training; the untrained twins are not scored again; a
    re-execution reads them from the cache when the bundles are gone, and without either it notes what is missing."""
    import reproducer.encoders.bundles
    from reproducer.results_store import model_files

    run = NotebookRun("01_skip_thoughts", "smoke")
    models, asked = skip_models(run, monkeypatch)
    loaded = []
    monkeypatch.setattr(reproducer.encoders.bundles, "load_encoder",
                        lambda path, **options: loaded.append(path.name) or Stub("halfway bundle"))
    for name in sk.TRAINED:
        model_files(run.dir, name)["half"].parent.mkdir(parents=True, exist_ok=True)
        model_files(run.dir, name)["half"].touch()
    models.unit("uni-skip")
    assert [e[0] for e in asked["evaluate"]] == ["uni-skip", "uni-skip"] and loaded == ["uni-skip.half.encoder.pt"]
    assert run.path("eval_uni-skip_half.json").is_file()
    models.unit("bi-skip")
    assert asked["fit"] == ["uni-skip", "bi-skip"]  # the halves trained nothing
    assert [e[0] for e in asked["evaluate"][2:]] == ["bi-skip", "combine-skip", "combine-skip (no expansion)",
                                                     "bi-skip", "combine-skip", "combine-skip (no expansion)"]
    assert asked["analogy"][-1] == ("combine-skip", ("uni-skip", "bi-skip", "our word2vec"))  # the halves, expanded
    assert read_json(run.path("analogy_combine-skip_half.json"))["hits"] == "1"
    assert asked["twins"] == [["combine-skip"]]  # an untrained twin has no budget: scored once
    for name in sk.TRAINED:
        model_files(run.dir, name)["half"].unlink()
    again, asked_again = skip_models(NotebookRun("01_skip_thoughts", "smoke"), monkeypatch)
    for name in sk.TRAINED:
        again.unit(name, neighbours=False)
    assert asked_again["evaluate"] == asked_again["fit"] == []  # every half product read from the cache
    run.path("eval_bi-skip_half.json").unlink()
    third, asked_third = skip_models(NotebookRun("01_skip_thoughts", "smoke"), monkeypatch)
    third.unit("bi-skip", neighbours=False)
    assert asked_third["evaluate"] == asked_third["fit"] == []
    noted = capsys.readouterr().out
    assert "eval_bi-skip_half: needs the half-budget encoders of bi-skip, not saved in smoke/" in noted
    with pytest.raises(ReproducerError, match="half its step budget is not saved"):
        third.at_half().trained("bi-skip")


def test_a_view_at_another_preset_reads_only_what_that_run_stored(results_dir):
    """Issue 70's third budget: ``stored_at("quick")`` reads the quick run's evaluations and twins stored under that
    run's key — nothing where the run is stale or absent — and trains, scores and writes nothing."""
    from reproducer.evaluate.harness import Results
    from reproducer.papers.registry import preset

    main = sk.SkipThoughtModels(NotebookRun("01_skip_thoughts", "default"), preset("skip-thought", "default"),
                                tasks=["MR"], progress=False)
    main.declare()
    settings = preset("skip-thought", "quick")
    assert main.stored_at("quick", settings).evaluations(["uni-skip", "bi-skip"]) == {}  # no quick run yet
    quick = sk.SkipThoughtModels(NotebookRun("01_skip_thoughts", "quick"), preset("skip-thought", "quick"),
                                 tasks=["MR"], progress=False)
    quick.declare()
    quick.run.json("eval_uni-skip", lambda: Results("uni-skip", "smoke", {"MR": {"acc": 61.0}}).to_json())
    files = sorted(p.name for p in quick.run.dir.iterdir())
    view = main.stored_at("quick", settings)
    assert view.stored_only and view.settings.max_steps == preset("skip-thought", "quick").max_steps
    found = view.evaluations(["uni-skip", "bi-skip"])
    assert list(found) == ["uni-skip"] and found["uni-skip"].main_scores()["MR"] == 61.0
    assert view.twins() == {}  # none stored: not computed
    assert sorted(p.name for p in quick.run.dir.iterdir()) == files  # the view wrote nothing

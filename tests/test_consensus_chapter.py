"""The library behind chapter 04 (consensus maximisation): fixed-vector training data, scoring the views
(:mod:`reproducer.evaluate.views`), the chapter's tables, figures and claims (:mod:`reproducer.papers.consensus.chapter`) and
the shared report helpers it added (``tables.beside``, ``plots.versus_bars``)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch

from reproducer.data.batches import TokenizedCorpus
from reproducer.data.fixed_vectors import FixedVectorData
from reproducer.data.vectors import WordVectors
from reproducer.data.vocab import SPECIALS, Vocabulary
from reproducer.encoders.multiview import ViewSet
from reproducer.errors import ReproducerError
from reproducer.evaluate import Results
from reproducer.evaluate import views
from reproducer.results_store import NotebookRun
from reproducer.papers.consensus.objective import VARIANTS, Consensus
from reproducer.papers.consensus import chapter as multiview
from reproducer.papers.consensus import claims as multiview_claims
from reproducer.papers.consensus import tables as multiview_tables
from reproducer.report.plots import versus_bars
from reproducer.report.tables import beside
from reproducer.fit import Fitted


# --- data ---------------------------------------------------------------------------------------------------------

def toy_data(books) -> FixedVectorData:
    """A FixedVectorData whose word2vec vectors and corpus are toys (no training, no corpus build)."""
    corpus = books(sizes=(4, 3))
    words = sorted({w for s in corpus.sentences for w in s.split()} - {"x0"})  # x0 has no vector
    data = FixedVectorData(word2vec_dim=3)
    data.vectors = WordVectors(words, np.arange(3 * len(words), dtype=np.float32).reshape(-1, 3) + 1, name="toy")
    data.corpus = lambda split="train": corpus
    return data


def test_fixed_vector_data_puts_every_word_with_a_vector_in_the_vocabulary(books):
    data = toy_data(books)
    vocab, table = data.vocab, data.table
    assert vocab.itos[:len(SPECIALS)] == list(SPECIALS) and len(vocab) == len(SPECIALS) + len(data.vectors)
    assert table.shape == (len(vocab), 3) and not table[:len(SPECIALS)].any()
    for word in data.vectors.words:
        np.testing.assert_array_equal(table[vocab.stoi[word]], data.vectors[word])
    tokenized = data.tokenized()
    assert isinstance(tokenized, TokenizedCorpus) and len(tokenized) == 7
    first = data.corpus().sentences[0].split()
    assert [vocab.itos[i] if i != vocab.unk_id else "x0" for i in tokenized.sentence(0)] == first
    assert data.tokenized() is tokenized  # built once
    training = data.training_data()
    assert training.tokenized is tokenized and training.vocab is vocab and training.vectors is table
    assert data.counts["x0"] == 4 and sum(data.counts.values()) == sum(len(s.split()) for s in data.corpus().sentences)



def test_fixed_vector_data_loads_each_split_once(books, monkeypatch):
    import reproducer.data.corpus as corpus_module

    loads = []
    monkeypatch.setattr(corpus_module, "load_corpus",
                        lambda split, config, progress=True: loads.append(split) or books())
    data = FixedVectorData(word2vec_dim=3)
    assert data.corpus() is data.corpus("train") is data.corpus(split="train") and loads == ["train"]
    data.corpus("valid")
    assert loads == ["train", "valid"]
    import reproducer.data.vectors as vectors_module

    trained = []
    toy = WordVectors(["a", "b"], np.ones((2, 3)), name="toy")
    monkeypatch.setattr(vectors_module, "train_word2vec",
                        lambda corpus, config, progress=True: trained.append((corpus, config.vector_size)) or toy)
    assert data.vectors is toy and data.vectors is toy and trained == [(data.corpus_config, 3)]  # word2vec of that size
    assert data.vocab.itos[-2:] == ["a", "b"]

# --- scoring the views -----------------------------------------------------------------------------------------------

def fake_evaluate(calls, scores):
    """A stand-in for the harness's evaluate: records (encoder, tasks, config) and returns ``scores`` per task."""
    def evaluate(encoder, tasks, config, progress=True):
        calls.append((encoder, list(tasks), config))
        return Results(getattr(encoder, "name", "?"), config, {t: dict(scores[t]) for t in tasks})
    return evaluate


def test_task_groups_and_u_score(monkeypatch):
    assert views.task_groups()["B"] == ["MR", "CR", "SUBJ", "MPQA", "SST2"]
    assert views.task_groups(smoke=True)["B"] == ["MR", "SST2"] and views.task_groups()["M"] == ["MRPC"]
    calls = []
    scores = {"STS12": {"wmean.pearson": 0.5, "all.pearson": 0.9}, "SICK-cos": {"pearson": 0.7}}
    monkeypatch.setattr(views, "evaluate", fake_evaluate(calls, scores))
    u = views.u_score("encoder", ["STS12", "SICK-cos"])
    assert u == pytest.approx({"U": 60.0, "STS12": 50.0, "SICK-cos": 70.0})
    assert calls == [("encoder", ["STS12", "SICK-cos"], "prototype")]


def tiny_viewset(variant: str, vocab, vectors, seed: int = 0) -> ViewSet:
    torch.manual_seed(seed)
    model = Consensus(VARIANTS[variant], vectors, 4)
    return ViewSet(model.views, vocab, variant)


def small_vocab(books):
    corpus = books(sizes=(6, 5))
    vocab = Vocabulary.build(corpus.sentences, max_size=None)
    vectors = np.random.default_rng(0).normal(size=(len(vocab), 6)).astype(np.float32)
    vectors[0] = 0
    return corpus, vocab, vectors


def test_projection_snapshots_give_g_as_it_was_at_a_step(tmp_path, books):
    corpus, vocab, vectors = small_vocab(books)
    snapshots = views.ProjectionSnapshots(tmp_path / "deep" / "SV-g.snapshots.pt")
    assert snapshots.load() == {}
    sv_g = tiny_viewset("SV-g", vocab, vectors)
    g = sv_g.views["g"]
    snapshots.keep(5, g)
    at5 = sv_g.encoders("unsupervised")["g"].encode(corpus.sentences)
    with torch.no_grad():
        g.proj.weight.mul_(-3).add_(1)  # training moves on
    snapshots.keep(10, g)
    assert sorted(snapshots.load()) == [5, 10]
    again = snapshots.encoder(5, vectors, vocab, 4)
    np.testing.assert_allclose(again.encode(corpus.sentences), at5, atol=1e-6)
    assert not np.allclose(snapshots.encoder(10, vectors, vocab, 4).encode(corpus.sentences), at5, atol=1e-3)


def test_curve_callback_pairs_sv_f_with_sv_g_of_the_same_step(tmp_path, books, monkeypatch):
    corpus, vocab, vectors = small_vocab(books)
    scored = []
    monkeypatch.setattr(views, "u_score", lambda e, tasks=views.U_TASKS: scored.append(e) or {"U": 1.0, "STS12": 2.0})
    snapshots = views.ProjectionSnapshots(tmp_path / "SV-g.snapshots.pt")
    sv_g = tiny_viewset("SV-g", vocab, vectors, seed=1)
    sv_g_model = Consensus(VARIANTS["SV-g"], vectors, 4)
    sv_g_model.views = sv_g.views
    out = views.curve_callback("SV-g", snapshots, vectors, vocab, 4)(Fitted(sv_g, sv_g_model), 7)
    assert out == {"g.U": 1.0, "g.STS12": 2.0, "tau": pytest.approx(0.1)} and list(snapshots.load()) == [7]
    sv_f = tiny_viewset("SV-f", vocab, vectors, seed=2)
    sv_f_model = Consensus(VARIANTS["SV-f"], vectors, 4)
    sv_f_model.views = sv_f.views
    scored.clear()
    out = views.curve_callback("SV-f", snapshots, vectors, vocab, 4)(Fitted(sv_f, sv_f_model), 7)
    assert set(out) == {"f.U", "f.STS12", "ensemble.U", "ensemble.STS12", "tau"}
    ensemble = scored[1]
    expected = (sv_f.encoders("unsupervised")["f"].encode(corpus.sentences)
                + sv_g.encoders("unsupervised")["g"].encode(corpus.sentences)) / 2
    np.testing.assert_allclose(ensemble.encode(corpus.sentences), expected, atol=1e-6)


def test_row_encoders_combine_independent_views_and_evaluate_the_right_tasks(books, monkeypatch):
    corpus, vocab, vectors = small_vocab(books)
    sets = {"MV-ff": tiny_viewset("MV-ff", vocab, vectors, 1), "MV-gg": tiny_viewset("MV-gg", vocab, vectors, 2)}
    asked = []
    rows = views.RowEncoders(lambda v: asked.append(v) or sets[v])
    f1 = rows.encoder("MV-ff f1", "unsupervised").encode(corpus.sentences)
    g1 = rows.encoder("MV-gg g1", "unsupervised").encode(corpus.sentences)
    both = rows.encoder("ens(MV-ff f1, MV-gg g1)", "unsupervised").encode(corpus.sentences)
    np.testing.assert_allclose(both, (f1 + g1) / 2, atol=1e-6)
    sup = rows.encoder("ens(MV-ff f1, MV-gg g1)", "supervised").encode(corpus.sentences)
    assert sup.shape == (len(corpus.sentences), 4 * 4 + 3 * 4)  # [max; avg; min; last] of f1, [max; avg; min] of g1
    assert len(rows.caches["MV-ff"]["f1"]) == len(set(corpus.sentences))  # pooled once for both rules
    rows.clear()
    assert not rows.caches
    calls = []
    groups = views.task_groups(smoke=True)
    transfer = ["SICK-R", "SICK-E", "MRPC", "TREC", "MR", "CR"]
    tasks = groups["U"] + groups["S"] + groups["B"] + groups["M"] + transfer
    monkeypatch.setattr(views, "evaluate", fake_evaluate(calls, {t: {"acc": 1.0} for t in tasks}))
    sets["MV"] = tiny_viewset("MV", vocab, vectors)
    record = rows.evaluate("MV g", groups, "paper")  # no transfer tasks: U and the three supervised groups
    assert set(record) == {"unsupervised", "supervised"} and [c[2] for c in calls] == ["paper", "paper"]
    assert calls[0][1] == groups["U"] and calls[1][1] == ["SICK-R", "STSB-R", "MR", "SST2", "MRPC"]
    del calls[:]
    record = rows.evaluate("MV ensemble", groups, "fast", transfer, "paper")  # Table 3 fast, Table 6 at paper
    assert [c[2] for c in calls] == ["fast", "fast", "paper"] and calls[2][1] == transfer
    assert set(record) == {"unsupervised", "supervised", "transfer"}
    del calls[:]
    record = rows.evaluate("MV ensemble", groups, "paper", transfer)  # one protocol: one supervised evaluation
    assert [c[2] for c in calls] == ["paper", "paper"]
    assert calls[1][1] == ["SICK-R", "STSB-R", "MR", "SST2", "MRPC", "SICK-E", "TREC", "CR"]
    assert record["transfer"] == record["supervised"]


def test_row_summary_and_row_seconds():
    groups = {"U": ["STS12", "SICK-cos"], "S": ["SICK-R"], "B": ["MR", "CR"], "M": ["MRPC"]}
    unsup = {"STS12": {"wmean.pearson": 0.4}, "SICK-cos": {"pearson": 0.6}}
    record = {"unsupervised": Results("x", "c", unsup).to_json(),
              "supervised": Results("x", "c", {"SICK-R": {"pearson": 0.8}, "MR": {"acc": 70.0}, "CR": {"acc": 80.0},
                                               "MRPC": {"acc": 71.0, "f1": 80.5}}).to_json()}
    summary = views.row_summary(record, groups, 120.0)
    assert summary == pytest.approx({"U": 50.0, "S": 80.0, "B": 75.0, "MRPC acc": 71.0, "MRPC F1": 80.5,
                                     "minutes": 2.0})
    seconds = {"SV-f": 60.0, "SV-g": 30.0, "MV": 45.0}
    assert views.row_seconds("ens(SV-f f, SV-g g)", seconds) == 90.0
    assert views.row_seconds("MV ensemble", seconds) == 45.0
    assert views.row_seconds("two views of one", seconds, {"two views of one": [("MV", "f"), ("MV", "g")]}) == 45.0


def test_reading_scores_name_every_view_and_the_sv_ensemble(books, monkeypatch):
    corpus, vocab, vectors = small_vocab(books)
    monkeypatch.setattr(views, "u_score", lambda e, tasks=views.U_TASKS: {"U": float(len(e.name))})
    scores = views.reading_scores(tiny_viewset("MV", vocab, vectors), tiny_viewset("SV-f", vocab, vectors),
                                  tiny_viewset("SV-g", vocab, vectors))
    assert list(scores) == ["MV f", "MV g", "MV ensemble", "SV f", "SV g", "SV ensemble"]
    assert scores["SV ensemble"] == len("SV ensemble") and scores["MV ensemble"] == len("ensemble")


# --- the chapter's tables, figures and claims ---------------------------------------------------------------------

def training_log(seconds, evals, loss=3.0, examples=800, tau=0.12):
    return {"losses": [{"step": 1, "seconds": 0.1, "loss": 5.0}, {"step": 2, "seconds": seconds, "loss": loss}],
            "evals": evals, "step": 2, "seconds": seconds, "examples": examples, "tau": tau}


def toy_training():
    ev = lambda step, seconds, **u: {"step": step, "seconds": seconds, **{f"{k}.U": v for k, v in u.items()}}
    return {"MV": training_log(10.0, [ev(1, 4.0, f=50, g=52, ensemble=54), ev(2, 9.0, f=55, g=56, ensemble=58)]),
            "SV-g": training_log(4.0, [ev(1, 2.0, g=51), ev(2, 3.5, g=53)]),
            "SV-f": training_log(8.0, [ev(1, 3.0, f=49, ensemble=50), ev(2, 7.0, f=54, ensemble=59)])}


def test_training_table_and_figure1():
    training = toy_training()
    table = multiview_tables.training_table(training, 1600, VARIANTS).data
    assert list(table.columns) == ["agreement a_ij", "steps", "training seconds", "sentences / second",
                                   "share of one epoch", "final loss", "learned τ"]
    assert table.loc["SV-g", "sentences / second"] == 200 and table.loc["MV", "share of one epoch"] == 0.5
    assert table.loc["MV", "agreement a_ij"] == VARIANTS["MV"].description and table.loc["MV", "learned τ"] == 0.12
    fig1 = multiview_tables.figure1_frame(training)
    assert sorted(set(fig1.curve)) == ["MV ensemble", "MV f", "MV g", "SV ensemble", "SV f", "SV g"]
    pair = fig1[(fig1.curve == "SV ensemble") & (fig1.step == 2)].iloc[0]
    assert pair.seconds == 7.0 + 3.5 and pair.U == 59  # SV f's seconds plus SV g's up to that step
    assert fig1[(fig1.curve == "SV f") & (fig1.step == 2)].seconds.item() == 7.0
    fig = multiview_tables.plot_figure1(fig1)
    ax = fig.axes[0]
    styles = {line.get_label(): line.get_linestyle() for line in ax.get_lines()}
    assert styles == {"MV ensemble": "-", "MV f": "-", "MV g": "-", "SV ensemble": "--", "SV f": "--", "SV g": "--"}


def test_paper_tables_hold_the_published_numbers():
    paper3 = multiview_tables.paper_table3(["MV f", "not a row"])
    assert paper3.loc["MV f", ["U", "S", "B", "MRPC acc", "MRPC F1"]].tolist() == [67.4, 83.0, 86.6, 75.5, 82.7]
    assert paper3.loc["not a row"].isna().all()
    paper4 = multiview_tables.paper_table4(views.U_TASKS)
    assert list(paper4.index) == views.U_TASKS + ["average"] and "Multi-view D1" in paper4.columns
    assert 1 < paper4.loc["STS14", "Multi-view D1"] < 100 and 1 < paper4.loc["average", "Multi-view D1"] < 100
    paper6 = multiview_tables.paper_transfer_rows(["Multi-view D1", "MC-QT"])
    assert list(paper6) == ["Multi-view D1 (paper)", "MC-QT (paper)"]
    assert set(paper6["MC-QT (paper)"]) == {"training", *multiview_tables.T6, "MRPC F1"}
    assert 50 < paper6["Multi-view D1 (paper)"]["SICK-R"] < 100  # Pearson x 100


def test_beside_and_readings_table():
    ours = pd.DataFrame({"U": [50.0, 60.0], "minutes": [1.0, 2.0]}, index=["MV f", "MV g"])
    paper = pd.DataFrame({"U": [67.0, 69.0], "hours": [8.0, 8.0]}, index=["MV g", "MV f"])
    table = beside(ours, paper)
    assert list(table.columns) == [("ours", "U"), ("ours", "minutes"), ("paper", "U"), ("paper", "hours"),
                                   ("ours − paper", "U")]
    assert table.loc["MV f", ("ours − paper", "U")] == 50 - 69
    ours3 = pd.DataFrame({"U": [1.0, 2.0, 5.0, 3.0, 4.0, 4.5]},
                         index=["MV f", "MV g", "MV ensemble", "SV-f f", "SV-g g", "ens(SV-f f, SV-g g)"])
    readings = multiview_tables.readings_table(ours3, {"MV f": 1, "MV g": 1, "MV ensemble": 2, "SV f": 1, "SV g": 1,
                                                "SV ensemble": 3}, True)
    assert list(readings.columns) == ["self pairs = True (Table 3)", "self pairs = False"]
    assert readings.loc["MV − SV (ensembles)"].tolist() == [0.5, -1.0]


def results_json(scores):
    return Results("x", "prototype", scores).to_json()


def test_tables_4_to_6_and_earlier_chapters(tmp_path, monkeypatch):
    tasks = ["STS14", "SICK-cos"]
    ours = {name: results_json({"STS14": {"wmean.pearson": r}, "SICK-cos": {"pearson": 0.5}})
            for name, r in [("MV f (ours)", 0.4), ("MV g (ours)", 0.5), ("MV ensemble (ours)", 0.6), ("w2v", 0.3)]}
    table4 = multiview_tables.table4(ours, tasks)
    assert table4.loc["average", "MV ensemble (ours)"] == pytest.approx(55.0)
    assert table4.loc["STS14", "MV ensemble − Multi-view D1"] == pytest.approx(
        60 - table4.loc["STS14", "Multi-view D1 (paper)"])
    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path))
    run = NotebookRun("04_consensus", "smoke")
    assert multiview_tables.earlier_sts14(run) == {} and multiview_tables.earlier_transfer_rows(run) == {}
    ch02 = tmp_path / "02_quick_thoughts" / "smoke"
    ch02.mkdir(parents=True)
    (ch02 / "eval_MC-QT.json").write_text(json.dumps(results_json(
        {"STS14": {"wmean.pearson": 0.37}, "SICK-R": {"pearson": 0.8}, "MR": {"acc": 70.0},
         "MRPC": {"acc": 71.0, "f1": 80.0}})))
    (ch02 / "MC-QT_training.json").write_text(json.dumps({"seconds": 120.0}))
    assert multiview_tables.earlier_sts14(run) == {"MC-QT (ours, ch. 02)": pytest.approx(37.0)}
    table5 = multiview_tables.table5(table4, multiview_tables.earlier_sts14(run))
    assert table5.loc["MV g (ours)"].item() == pytest.approx(50.0) and "QT RNN (paper)" in table5.index
    earlier = multiview_tables.earlier_transfer_rows(run)
    assert list(earlier) == ["MC-QT (ours, ch. 02)"]
    row = earlier["MC-QT (ours, ch. 02)"]
    assert row["training"] == 2.0 and row["SICK-R"] == pytest.approx(80.0) and row["MR"] == 70.0
    assert row["MRPC F1"] == 80.0 and np.isnan(row["TREC"])
    mv = {f"MV {v} (ours)": multiview_tables.transfer_row(results_json({"MR": {"acc": a}}), 3.0)
          for v, a in [("f", 70.0), ("g", 71.0), ("ensemble", 75.0)]}
    table6 = multiview_tables.table6({**mv, **earlier})
    assert list(table6.index[:4]) == ["MV f (ours)", "MV g (ours)", "MV ensemble (ours)", "MC-QT (ours, ch. 02)"]
    assert table6.index[-1] == "MV ensemble − Multi-view D1"
    diff = table6.loc["MV ensemble − Multi-view D1"]
    assert np.isnan(diff["training (ours: min; paper: h)"])
    assert diff["MR"] == pytest.approx(75.0 - table6.loc["Multi-view D1 (paper)", "MR"])


def test_claims_follow_the_numbers():
    rows = list(views.ROWS)
    ours3 = pd.DataFrame({m: 50.0 for m in multiview_tables.METRICS}, index=rows)
    for m in multiview_tables.METRICS:
        ours3.loc[["MV f", "MV g", "MV ensemble"], m] = [60.0, 61.0, 62.0]
    fig1 = multiview_tables.figure1_frame(toy_training())
    claims = multiview_claims.consensus_claims(ours3, fig1).set_index("claim").outcome
    assert claims["MV f beats SV f (U, S, B, MRPC)"] == "reproduced"
    assert claims["The MV ensemble beats each of its views on U"] == "reproduced"
    assert claims["Ensembling independently trained views does not help U (below its better view)"] == "not reproduced"
    # toy Figure 1: MV g 52 vs SV g 51, then 56 vs 53; MV ensemble 54 vs 50, then 58 vs 59 (behind at the end)
    assert claims["At every checkpoint of Figure 1, MV ≥ SV for f, g and the ensemble"] == "not reproduced"
    ours3.loc["MV f", "B"] = 40.0
    assert multiview_claims.consensus_claims(ours3, fig1).set_index("claim").outcome[
        "MV f beats SV f (U, S, B, MRPC)"] == "not reproduced"


def test_versus_bars_draw_ours_and_the_paper_per_metric():
    ours = pd.DataFrame({"U": [50.0, 60.0], "S": [70.0, 72.0]}, index=["a", "b"])
    paper = pd.DataFrame({"U": [65.0], "S": [80.0]}, index=["b"])
    fig = versus_bars(ours, paper, ["U", "S"], title="t")
    assert [ax.get_title() for ax in fig.axes] == ["U", "S"]
    widths = [p.get_width() for p in fig.axes[0].patches]
    assert widths[:2] == [50.0, 60.0] and widths[3] == 65.0 and np.isnan(widths[2])  # "a" has no published value
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["a", "b"]


def test_table3_rows_use_senteval_prototyping_where_the_paper_protocol_does_not_fit():
    from reproducer.papers.registry import preset

    for name in ("quick", "default"):
        p = preset("consensus", name)
        assert p.rows_config == "fast" and p.eval_config == "paper"  # Table 6's MV ensemble stays at paper
    assert preset("consensus", "smoke").rows_config == preset("consensus", "smoke").eval_config
    assert preset("consensus", "paper").rows_config == "paper"
    # the protocol of the tables is not part of what a training run is: a checkpoint resumes under either
    assert "rows_eval_config" not in preset("consensus", "default").identity()
    with pytest.raises(ReproducerError, match="rows_eval_config"):
        preset("consensus", "default", rows_eval_config="fastest")


class SeededRows:
    """What ConsensusModels uses of RowEncoders, with per-item outcomes (the claims' bootstrap): a trained row gets
    280 of 400 items right and predicts similarity with noise 0.5; an untrained twin's row (issue 44) 220 + 4 × the
    seed's number, with noise 2 + 0.1 × the seed's number: each seed's twin is its own."""

    def __init__(self, seed: int):
        self.seed, self.evaluated = seed, []

    def record(self, tasks, correct, noise):
        from reproducer.evaluate.items import correct_items, main_score, scored_items
        from reproducer.evaluate.tasks import TASKS

        gold = np.random.default_rng(0).normal(size=300)
        items = {t: (correct_items(np.arange(400) < correct) if TASKS[t].main_metric == "acc" else scored_items(
            gold + np.random.default_rng(len(t)).normal(scale=noise, size=300), gold))["_items"]
            for t in tasks}
        scores = {t: {TASKS[t].main_metric: main_score(TASKS[t].main_metric, i)} for t, i in items.items()}
        return Results("row", "smoke", scores, items=items).to_json()

    def evaluate(self, row, groups, config, transfer=(), transfer_config=None):
        self.evaluated.append(row)
        correct, noise = (220 + 4 * self.seed, 2 + 0.1 * self.seed) if row.endswith("(untrained)") else (280, 0.5)
        return {"unsupervised": self.record(groups["U"], correct, noise),
                "supervised": self.record(groups["S"] + groups["B"] + groups["M"], correct, noise)}

    def clear(self):
        pass


def test_the_books_own_claims_judge_mv_against_each_seeds_own_untrained_twin(tmp_path, monkeypatch):
    """Issue 44: the MV ensemble against its untrained twin (:meth:`ConsensusModels.twin_row`) on the transfer mean
    (Table 3's S, B and MRPC) and on STS (U), the seeds' mean with each seed's evidence holding that seed's twin, in
    :func:`~reproducer.report.claims.twin_claim`'s words and marked as the book's own."""
    from reproducer.papers.registry import preset
    from reproducer.report.claims import BOOK, UNTRAINED_QUESTION, check

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    groups = {"U": ["SICK-cos"], "S": ["SICK-R"], "B": ["MR"], "M": ["MRPC"]}
    main = multiview.ConsensusModels(NotebookRun("04_consensus", "smoke"), preset("consensus", "smoke"), groups=groups,
                                     progress=False)
    seeds = main.seeds(2)
    for m in seeds:
        m.rows = SeededRows(m.seed)
    evidence = [m.evidence(baselines=False, rows=(multiview_tables.TRANSFER_ROW,)) for m in seeds]
    assert [e.score("MV ensemble (untrained) S", "MR") for e in evidence] == pytest.approx([55.0, 56.0])  # its own
    assert [e.score("MV ensemble S", "MR") for e in evidence] == [70.0, 70.0]
    table = check(multiview_claims.twin_row_claims(groups), evidence[0], evidence, budget="smoke")
    assert table.claim.tolist() == [
        "Training the MV ensemble beats the same encoder untrained on the transfer mean (SICK-R, MR, MRPC)",
        "Training the MV ensemble beats the same encoder untrained on STS (SICK-cos)"]
    assert (table.source == BOOK).all() and (table.paper == UNTRAINED_QUESTION).all()
    for (_, row), tasks, group in zip(table.iterrows(), (["SICK-R", "MR", "MRPC"], ["SICK-cos"]), "SU"):
        expected = [e.mean(f"MV ensemble {group}", tasks) - e.mean(f"MV ensemble (untrained) {group}", tasks)
                    for e in evidence]
        assert row["seed values"] == pytest.approx(expected) and row.value == pytest.approx(np.mean(expected))
        assert row.outcome == "reproduced" and row.noise.endswith("2 training seeds at `smoke`")
    assert table["seed values"].iloc[0][0] != pytest.approx(table["seed values"].iloc[0][1])
    assert table.numbers.iloc[0].startswith("trained ") and ", untrained " in table.numbers.iloc[0]
    assert [m.rows.evaluated for m in seeds] == [["MV ensemble", "MV ensemble (untrained)"]] * 2
    seeds[1].evidence(baselines=False, rows=(multiview_tables.TRANSFER_ROW,))
    assert seeds[1].rows.evaluated == ["MV ensemble", "MV ensemble (untrained)"]  # read back from the run's folder

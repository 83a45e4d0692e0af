"""The library side of chapter 03 (Wieting et al. 2016): word neighbours and weights, the paper-vs-ours similarity
tables, the grid and its caching, Table 5's frames, the claims and the two plots it added to report/plots.py."""
from __future__ import annotations

import json
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from reproducer.data.pairs import TrainingPair  # noqa: E402
from reproducer.data.vocab import SPECIALS, Vocabulary  # noqa: E402
from reproducer.errors import ReproducerError  # noqa: E402
from reproducer.evaluate.word_neighbours import (MISSING, nearest_words, neighbour_words, weight_extremes,  # noqa: E402
                                                 word_weights)
from reproducer.results_store import NotebookRun, record_keys, slug  # noqa: E402
from reproducer.papers.paraphrastic import chapter as pt, claims as paraphrase_claims, tables as st  # noqa: E402
from reproducer.report.plots import difference_heatmap, ours_and_paper_lines  # noqa: E402

WORDS = ["cat", "kitten", "dog", "car"]


@pytest.fixture()
def vocab():
    return Vocabulary(list(SPECIALS) + WORDS)


@pytest.fixture()
def table(vocab):
    rows = np.zeros((len(vocab), 2), dtype=np.float32)
    for word, row in {"cat": (1, 0), "kitten": (0.9, 0.1), "dog": (0.5, 0.5), "car": (-1, 3)}.items():
        rows[vocab.stoi[word]] = row
    return rows


# word_neighbours ------------------------------------------------------------------------------------------------


def test_nearest_words_by_cosine_without_the_query(vocab, table):
    assert nearest_words(table, vocab, "cat", WORDS, k=2) == ["kitten", "dog"]
    assert nearest_words(table, vocab, "car", WORDS, k=3)[0] == "dog"
    with pytest.raises(ReproducerError, match="not in the vocabulary"):
        nearest_words(table, vocab, "zebra", WORDS)


def test_neighbour_words_one_column_per_table_and_missing_queries(vocab, table):
    frame = neighbour_words({"trained": table, "flipped": -table[:, ::-1].copy()}, vocab, ["cat", "zebra"], WORDS, k=1)
    assert list(frame.columns) == ["word", "trained", "flipped"]
    assert frame.loc[0, "trained"] == "kitten"
    assert frame.loc[1].tolist() == ["zebra", MISSING, ""]


def test_word_weights_are_l1_norms_and_extremes_are_sorted(vocab, table):
    weights = word_weights(table, vocab)
    assert weights["car"] == pytest.approx(4.0) and weights["kitten"] == pytest.approx(1.0)
    extremes = weight_extremes(weights, WORDS, n=2)
    assert extremes.smallest.tolist() == ["cat", "kitten"] or extremes.smallest.tolist() == ["kitten", "cat"]
    assert extremes.largest.tolist() == ["car", "dog"]
    assert extremes["weight (large)"].tolist() == pytest.approx([4.0, 1.0])
    with pytest.raises(ReproducerError):
        word_weights(table[:3], vocab)


# similarity_tables ----------------------------------------------------------------------------------------------


def suite(offset: float, dev: float = 0.0, test: float = 0.0) -> list[dict]:
    """A suite over a few of Table 2's rows (two STS12 datasets, their average, SICK) and the PPDB halves."""
    rows = [("STS12", "MSRpar", 10), ("STS12", "MSRvid", 20), ("STS12", "average", 15), ("SICK-R", "test (cosine)", 30)]
    out = [{"task": t, "dataset": d, "metric": "pearson", "score": s + offset} for t, d, s in rows]
    return out + [{"task": "PPDB", "dataset": h, "metric": "spearman", "score": v}
                  for h, v in (("dev", dev), ("test", test))]


def test_ppdb_score_and_suite_mean():
    s = suite(0, dev=3, test=4)
    assert st.ppdb_score(s, "dev") == 3 and st.ppdb_score(s, "test") == 4
    with pytest.raises(ReproducerError, match="no PPDB 'all'"):
        st.ppdb_score(s, "all")
    assert st.suite_mean(s, [("STS12", "MSRpar"), ("SICK-R", "test (cosine)")]) == pytest.approx(20)


def test_similarity_table_rows_means_and_difference():
    names = pt.paper_names()
    t2 = st.SimilarityTable.build({"PP": suite(0), "GloVe": suite(5)}, names)
    assert list(t2.ours.columns) == ["PP", "GloVe"]
    assert t2.datasets == [("STS12", "MSRpar"), ("STS12", "MSRvid"), ("SICK-R", "test (cosine)")]
    assert t2.ours.index[2] == ("STS12", "average")  # kept in the paper's row order, but not a dataset
    assert t2.mean()["GloVe"] == pytest.approx(25)
    paper = st.paper_rows("Table 2")
    pp_msrpar = paper[(paper.model == "paragram-phrase") & (paper.dataset == "MSRpar")].value.item()
    assert t2.paper.loc[("STS12", "MSRpar"), "PP"] == pp_msrpar
    diff = t2.difference()
    assert diff.loc[("STS12", "MSRpar"), "PP"] == pytest.approx(10 - pp_msrpar)
    assert diff.index[-1] == ("all", "mean of 3")
    table = t2.table()
    assert list(table.columns) == ["PP", "GloVe", "paper 50%", "paper 75%", "paper Max"]
    assert table.loc[("all", "mean of 3"), "PP"] == pytest.approx(20)


def test_in_domain_table_oracle_is_the_best_test_score():
    runs = {"PP": [{"suite": suite(0, dev=9, test=50)}, {"suite": suite(0, dev=1, test=60)}]}
    table = st.in_domain_table(runs, {"PP": runs["PP"][0]}, {"GloVe": suite(0, test=40)}, pt.paper_names())
    assert table.loc["PP", "oracle"] == 60 and table.loc["PP", "test"] == 50
    assert table.loc["GloVe", "oracle"] == table.loc["GloVe", "test"] == 40
    assert table.loc["PP", "test − paper test"] == pytest.approx(50 - table.loc["PP", "paper test"])


def test_length_tables_from_cached_bins():
    from reproducer.evaluate.length_bins import bin_labels

    labels = bin_labels()
    bins = pd.DataFrame([{"bin": int(b) if b.isdigit() else b, "n": 7, "pearson": 0.5, "spearman": 0.4, "model": m}
                         for m in ("PP", "initial vectors") for b in labels])  # as read back from CSV: "5" -> 5
    names = {"PP": "paragram-phrase", "initial vectors": "paragram-sl999"}
    ours, paper, counts = st.length_tables(bins, names)
    assert list(ours.columns) == labels and ours.loc["PP"].tolist() == pytest.approx([50.0] * len(labels))
    assert list(paper.index) == ["PP", "initial vectors"] and paper.notna().all().all()
    assert counts.tolist() == [7] * len(labels)


def test_reweighting_share():
    datasets = [("STS12", "MSRpar"), ("STS12", "MSRvid")]
    table, share = st.reweighting_table(suite(0), suite(6), suite(10), datasets)
    assert table.loc["initial × PP weight", "ours"] == pytest.approx(21)
    assert share["ours"] == pytest.approx(0.6)
    assert share["paper"] == pytest.approx((62.6 - 54.9) / (66.8 - 54.9), abs=1e-3)


def test_sts_pool_draws_queries_from_the_pool(monkeypatch):
    import reproducer.evaluate.length_bins as lb

    fake = pd.DataFrame({"a": ["s1", "s2", "s3"], "b": ["s2", "s4", "s5"]})
    monkeypatch.setattr(lb, "sts_pairs", lambda years=None: fake)
    pool, queries = st.sts_pool(10, limit=4)
    assert pool == ["s1", "s2", "s3", "s4"] and sorted(queries) == pool
    assert st.sts_pool(2, seed=1)[1] == st.sts_pool(2, seed=1)[1]


# paraphrase_training --------------------------------------------------------------------------------------------


def test_file_keys_match_the_committed_results():
    assert pt.file_key("LSTM (no o.g.)") + "__" + pt.file_key("MIX, lr=0.0005") == "LSTM__no_o.g.___MIX__lr_0.0005"
    assert pt.file_key("MIX, λw=1e-08") == "MIX___w_1e-08"


def test_grid_tunes_the_negatives_per_model_with_pps_first():
    """Section 4.2.2 tunes MIX/MAX for every model: each model's grid has both, PP's choice first (what smoke trains),
    and PP's λ_w."""
    assert len(pt.grid("PP")) == 4
    choice = "MIX, λw=1e-08"
    dan = pt.grid("DAN", choice)
    assert list(dan) == ["MIX, lr=0.05", "MIX, lr=0.005", "MAX, lr=0.05", "MAX, lr=0.005"]
    assert all(o["lambda_w"] == 1e-08 and o["negatives"] == label[:3] for label, o in dan.items())
    assert list(pt.grid("LSTM (o.g.)", "MAX, λw=1e-05")) == ["MAX, lr=0.005", "MAX, lr=0.0005", "MIX, lr=0.005",
                                                             "MIX, lr=0.0005"]
    irnn = pt.grid("iRNN", choice)
    assert {(o["negatives"], o["lambda_c"]) for o in irnn.values()} == {(m, c) for m in ("MAX", "MIX") for c in (1.0, 100.0)}


def test_paper_names_cover_every_model_and_baseline():
    names = pt.paper_names()
    assert names["PP"] == "paragram-phrase" and names["initial vectors"] == "paragram-sl999"
    assert set(pt.VARIANTS) | set(pt.BASELINES) == set(names)


def test_pair_tables():
    pairs = [TrainingPair("a b", "c d e f", 5.0, "ppdb-wiki")] + [TrainingPair("x", "y", math.nan, "twitter")] * 4
    summary, examples = pt.pair_tables(pairs)
    assert summary.loc["ppdb-wiki", "mean_tokens"] == 3 and summary.loc["all", "pairs"] == 5
    assert examples.source.tolist() == ["ppdb-wiki", "twitter", "twitter", "twitter"]


class FakeTraining(pt.ParaphraseModels):
    """Records without training: each configuration's dev score is its learning rate × 100 (PP: MIX beats MAX). The
    products a unit caches after a model's grid (length bins, neighbours, section 6's suite) are recorded, not
    computed (tested in test_chapter_units.py)."""

    def record(self, name, label, overrides):
        self.recorded.append((name, label))
        dev = 100 * overrides.get("lr", 0.0) + (5 if overrides["negatives"] == "MIX" else 0) + overrides["lambda_w"]
        return {"model": name, "config": label, "overrides": overrides, "steps": 2, "seconds": 1.0,
                "pairs_per_second": 3.0, "losses": [{"step": 2, "seconds": 1.0, "loss": 0.5}],
                "suite": suite(0, dev=dev, test=dev / 2)}

    def length_bins(self, name):
        return self.run.frame(f"length_bins_{pt.file_key(name)}", lambda: self.recorded.append(("bins", name))
                              or pd.DataFrame({"model": [name]}))

    def neighbours(self, name):
        return self.run.frame(f"neighbours_{pt.file_key(name)}", lambda: self.recorded.append(("neighbours", name))
                              or pd.DataFrame({"encoder": [name]}))

    def reweighted_suite(self):
        self.recorded.append(("reweighted",))
        return suite(1)

    def transfer(self, name):
        return self.run.json(f"eval_{slug(name)}", lambda: self.recorded.append(("transfer", name)) or {})

    def twin_results(self, name):
        return self.run.json(f"eval_{slug(name)}_untrained", lambda: self.recorded.append(("twin", name)) or {})

    def search(self, name, parts=None):
        return self.run.json(f"search_{slug(name)}", lambda: self.recorded.append(("search", name)) or {})


def fake_training() -> FakeTraining:
    """:class:`FakeTraining` at ``default``, on no pairs."""
    from reproducer.data.training_data import TrainingData
    from reproducer.papers.registry import preset

    return FakeTraining(NotebookRun("03_paraphrastic", "default"), preset("paraphrastic", "default"),
                        data=TrainingData(pairs=[], vectors=None))


def test_train_grid_chooses_on_dev_caches_and_trains_nothing_twice(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path))
    training = fake_training()
    training.recorded = []
    best = training.train_grid()
    assert training.pp_choice == "MIX, λw=1e-05"
    assert best["DAN"]["config"] == "MIX, lr=0.05" and best["RNN"]["config"] == "MIX, lr=0.005"
    grid_records = [r for r in training.recorded if r[0] in pt.VARIANTS]
    assert len(grid_records) == 4 + 4 * 6 and grid_records[:4] == [("PP", label) for label in pt.PP_GRID]
    assert [r for r in training.recorded if r[0] not in pt.VARIANTS] == [
        ("bins", "PP"), ("neighbours", "PP"), ("search", "PP"), ("transfer", "PP"), ("twin", "PP"), ("reweighted",),
        ("bins", "LSTM (no o.g.)"), ("neighbours", "LSTM (no o.g.)"), ("search", "LSTM (no o.g.)"), ("bins", "LSTM (o.g.)"),
        ("transfer", "LSTM (o.g.)"), ("twin", "LSTM (o.g.)")]  # each model's unit, right after its grid; the twins' models scored beside them
    assert (tmp_path / "03_paraphrastic/default/grid/LSTM__no_o.g.___MAX__lr_0.005.json").is_file()
    grid = training.grid_table()
    assert grid.chosen.eq("✓").sum() == 7 and len(grid) == 28
    again = fake_training()
    again.recorded = []
    assert again.train_grid() == best and again.recorded == []  # every record reused
    # no PP encoder at hand and no cached table: a note, no training
    assert again.pp_word_table("table8_neighbours", lambda: pytest.fail("must not compute")) is None
    cached = tmp_path / "03_paraphrastic/default/table8_neighbours.json"
    cached.write_text(json.dumps([{"word": "cat", "PP (trained)": "kitten"}]))
    record_keys(again.run.dir, {cached.name: again.run.key})  # stored by an execution under this run's key
    assert again.pp_word_table("table8_neighbours", lambda: pytest.fail("must not compute")).word.tolist() == ["cat"]


def test_a_new_choice_recomputes_what_was_cached_of_the_old_one(tmp_path, monkeypatch, capsys):
    """Length bins and neighbours are named by model, not configuration: when the grid's choice moves (here the record
    of an older, smaller grid says MAX was chosen), they are computed again; an unchanged choice reuses them."""
    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path))
    training = fake_training()
    training.recorded = []
    training.train_grid()
    choices = training.run.path("choices.json")
    assert json.loads(choices.read_text())["LSTM (no o.g.)"] == "MIX, lr=0.005"
    choices.write_text(json.dumps({**json.loads(choices.read_text()), "LSTM (no o.g.)": "MAX, lr=0.005"}))
    again = fake_training()
    again.recorded = []
    again.train_grid()
    assert again.recorded == [("bins", "LSTM (no o.g.)"), ("neighbours", "LSTM (no o.g.)"), ("search", "LSTM (no o.g.)")]
    assert "now 'MIX, lr=0.005' (was 'MAX, lr=0.005')" in capsys.readouterr().out
    # a twin's model (issue 44): its transfer scores and its untrained twin's are named by model too
    choices.write_text(json.dumps({**json.loads(choices.read_text()), "LSTM (o.g.)": "MAX, lr=0.005"}))
    third = fake_training()
    third.recorded = []
    third.train_grid()
    assert third.recorded == [("bins", "LSTM (o.g.)"), ("transfer", "LSTM (o.g.)"), ("twin", "LSTM (o.g.)")]
    assert json.loads(choices.read_text())["LSTM (no o.g.)"] == "MIX, lr=0.005"


def test_supervised_tables_pivot_ours_and_the_papers():
    records = [{"model": m, "task": t, "test": 10.0 * i + j, "optimiser": "Adam 0.001"}
               for i, m in enumerate(["PP", "LSTM (o.g.)"]) for j, t in enumerate(pt.TASKS)]
    ours, paper, optimisers = pt.supervised_tables(records, ["PP", "LSTM (o.g.)"])
    assert list(ours.columns) == ["SICK-R", "SICK-E", "SST2"] and ours.loc["LSTM (o.g.)", "SST2"] == 12
    assert list(paper.index) == ["PP", "LSTM (o.g.)"] and paper.notna().all().all()
    assert optimisers.loc["PP", "sentiment"] == "Adam 0.001"


# claims ---------------------------------------------------------------------------------------------------------


MEANS = pd.Series({"PP": 60, "proj": 59, "DAN": 57, "iRNN": 58, "RNN": 40, "LSTM (no o.g.)": 55, "LSTM (o.g.)": 50,
                   "initial vectors": 50, "GloVe": 45})


def test_claims_decide_each_claim_from_the_numbers():
    from reproducer.report.claims import Evidence, check

    datasets = [("STS12", "MSRpar"), ("STS12", "MSRvid"), ("SICK-R", "test (cosine)")]
    suites = {n: suite(m - 20) for n, m in MEANS.items()}  # the three datasets average 20 + offset
    evidence = Evidence({}, samples=paraphrase_claims.suite_samples(suites, datasets))
    table2 = check(paraphrase_claims.paraphrase_claims(), evidence)
    # PP or proj best on every dataset; the iRNN next; no o.g. above o.g. (its mean, its share of datasets), above the
    # initial vectors on every dataset; PP above the better LSTM, its initial vectors and GloVe
    assert table2.outcome.tolist() == ["reproduced"] * 8
    assert table2.value.iloc[:2].tolist() == pytest.approx([100.0, 58 - 57])  # datasets won (%); iRNN − DAN
    assert (table2.noise == "datasets (bootstrap)").all()  # issue 68: what the bootstrap draws is the suite's datasets


def test_recurrent_summary_states_the_gaps():
    means = MEANS
    best = {n: {"steps": 200, "losses": [{"loss": 0.7 if n == "RNN" else 0.05}]} for n in ("PP", "RNN")}
    table5 = pd.DataFrame({"SST2": [81.5, 74.2]}, index=["PP", "LSTM (o.g.)"])
    text = paraphrase_claims.recurrent_summary(means, means + 1, 21, best, 0.4, table5, table5 + 1, 1)
    # DAN (57) is the worst averaging model and the iRNN (58) the best recurrent one: the gap has a sign
    assert "the worst averaging model (DAN) trails the best recurrent one (iRNN) by 1.0 points (paper: the worst " \
           "averaging model -1.0)" in text
    assert "training loss is still 0.70" in text and "74.2% against PP's 81.5%" in text


# plots ----------------------------------------------------------------------------------------------------------


def test_ours_and_paper_lines_draw_one_line_per_row_and_source():
    ours = pd.DataFrame([[1, 2, 3], [2, 3, 4]], index=pd.Index(["A", "B"], name="model"),
                        columns=pd.Index(["x", "y", "z"], name="bin"))
    fig, ax = plt.subplots()
    ours_and_paper_lines(ours, ours + 10, ax, value="r", title="t")
    assert len(ax.lines) >= 4 and ax.get_title() == "t"
    assert max(max(line.get_ydata()) for line in ax.lines if len(line.get_ydata())) == 14
    plt.close(fig)


def test_difference_heatmap_labels_rows():
    diff = pd.DataFrame([[1.0, -2.0]], index=pd.MultiIndex.from_tuples([("STS12", "MSRpar")]), columns=["PP", "DAN"])
    fig, ax = plt.subplots()
    difference_heatmap(diff, ax, label="ours − paper", title="T")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["STS12 MSRpar"] and ax.get_title() == "T"
    assert [t.get_text() for t in ax.texts] == ["1", "-2"]
    plt.close(fig)

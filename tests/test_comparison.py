"""Chapter 06's one table: every model's cached scores in one frame, and paper vs ours."""
import json

import numpy as np
import pytest

from reproducer.overview import comparison as cmp


def results(encoder, scores, config="paper"):
    return {"encoder": encoder, "config": config, "results": scores, "seconds": {}, "encode_seconds": {},
            "sentences": {}}


def write(root, chapter, name, obj):
    folder = root / chapter / "default"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(obj))


@pytest.fixture
def book(tmp_path):
    write(tmp_path, "00b_baselines", "glove-bow.json", results("glove-bow", {"MR": {"acc": 70.0},
                                                                            "STS14": {"wmean.pearson": 0.5}}))
    write(tmp_path, "01_skip_thoughts", "eval_combine-skip.json", {**results("combine-skip", {
        "MR": {"acc": 65.0}, "SICK-R": {"pearson": 0.7}}), "dim": 12})
    write(tmp_path, "01_skip_thoughts", "uni-skip_training.json", {"seconds": 100.0, "examples": 1000, "parameters": 7})
    write(tmp_path, "01_skip_thoughts", "bi-skip_training.json", {"seconds": 50.0, "examples": 500, "parameters": 3})
    write(tmp_path, "04_consensus", "eval_MV_ensemble.json", {"unsupervised": results("U", {}, "fast"),
                                                              "transfer": results("MV", {"MR": {"acc": 60.0}})})
    write(tmp_path, "04_consensus", "eval_SV-f_f.json", {"unsupervised": results("U", {"MR": {"acc": 1.0}}, "fast")})
    return tmp_path


def test_one_table_reads_every_scored_model_in_points(book):
    table = cmp.one_table("default", book, tasks=("MR", "SICK-R", "STS14"))
    assert list(table.index) == ["glove-bow", "combine-skip", "MV"]  # the registry's order; SV-f has no transfer row
    assert table.loc["glove-bow", "STS14"] == pytest.approx(50.0) and np.isnan(table.loc["glove-bow", "SICK-R"])
    assert table.loc["combine-skip", "SICK-R"] == pytest.approx(70.0)
    # a combination's training is the sum of its parts'; a baseline has none
    assert table.loc["combine-skip", "training seconds"] == 150.0 and table.loc["combine-skip", "sentences seen"] == 1500
    assert table.loc["combine-skip", "parameters"] == 10
    assert np.isnan(table.loc["glove-bow", "training seconds"])
    assert table.loc["combine-skip", "dimension"] == 12 and np.isnan(table.loc["glove-bow", "dimension"])
    assert table.loc["MV", "protocol"] == "paper" and table.loc["MV", "paper"] == "Tang & de Sa 2019"


def test_paper_vs_ours_matches_the_main_metric_in_points(book):
    pairs = cmp.paper_vs_ours(cmp.one_table("default", book))
    skip = pairs[pairs.model == "combine-skip"].set_index("task")
    assert skip.loc["SICK-R", "paper"] == "Kiros et al. 2015" and skip.loc["SICK-R", "published"] == pytest.approx(85.84)
    assert skip.loc["MR", "diff"] == pytest.approx(65.0 - skip.loc["MR", "published"])
    glove = pairs[pairs.model == "glove-bow"].set_index("task")
    assert glove.loc["STS14", "published"] == pytest.approx(54.0)  # SentEval's wmean Pearson, x 100
    fig = cmp.paper_vs_ours_figure(pairs)
    assert "pairs" in fig.axes[0].get_title()


def test_paper_vs_ours_prefers_the_models_own_paper(book, monkeypatch):
    import importlib

    import pandas as pd

    published = importlib.import_module("reproducer.report.published")
    printed = pd.DataFrame({"paper": ["zhang2018", "kiros2015"], "table": ["T2", "T5"], "model": ["combine-skip"] * 2,
                            "setting": ["", ""], "task": ["MR", "MR"], "metric": ["acc", "acc"], "value": [70.0, 76.5]})
    monkeypatch.setattr(published, "published", lambda paper=None, model=None: printed)
    pairs = cmp.paper_vs_ours(cmp.one_table("default", book)).set_index(["model", "task"])
    assert pairs.loc[("combine-skip", "MR"), "paper"] == "Kiros et al. 2015"  # a reprint in another paper comes second
    assert pairs.loc[("combine-skip", "MR"), "published"] == 76.5


def test_best_neighbours_keep_the_shared_queries_and_label_papers(tmp_path):
    import pandas as pd

    def table(chapter, encoder, queries):
        folder = tmp_path / chapter / "default"
        folder.mkdir(parents=True, exist_ok=True)
        name = encoder.replace(" ", "_")
        pd.DataFrame([{"query": q, "encoder": encoder, "rank": 1, "neighbour": q + "!", "cosine": 0.5}
                      for q in queries]).to_csv(folder / f"neighbours_{name}.csv", index=False)

    table("01_skip_thoughts", "combine-skip", ["b", "a", "c"])
    table("05_mean_max_aae", "mean-max AAE", ["a", "b"])
    # a chapter's one table of all its encoders is read too
    (tmp_path / "05_mean_max_aae/default/neighbours_mean-max_AAE.csv").rename(
        tmp_path / "05_mean_max_aae/default/neighbours.csv")
    frame = cmp.best_neighbours("default", tmp_path)
    assert list(dict.fromkeys(frame["query"])) == ["b", "a"]  # shared, in the first table's order
    assert set(frame["encoder"]) == {"combine-skip (Kiros et al. 2015)", "mean-max AAE (Zhang et al. 2018)"}
    assert cmp.best_neighbours("quick", tmp_path).empty


def test_an_empty_results_folder_gives_an_empty_table(tmp_path):
    table = cmp.one_table("default", tmp_path, tasks=("MR",))
    assert table.empty and list(table.columns)[-1] == "MR"
    assert cmp.paper_vs_ours(table).empty


def test_the_mv_ensemble_is_compared_with_the_papers_closest_setting(book):
    pairs = cmp.paper_vs_ours(cmp.one_table("default", book)).set_index(["model", "task"])
    from reproducer.report.published import published

    d1 = published("tang2019", "Multi-view D1").query("task == 'MR' and metric == 'acc'").value.iloc[0]
    assert pairs.loc[("MV", "MR"), "published"] == d1 and pairs.loc[("MV", "MR"), "paper"] == "Tang & de Sa 2019"

"""Chapter 06's equal-compute study: budgets, the curve callback, the units and the figure."""
import numpy as np
import pytest
import torch

from reproducer.errors import ReproducerError
from reproducer.results_store import NotebookRun
from reproducer.overview import equal_compute as ec


def fake_unit(line, seed, scores, seconds=(10.0, 20.0), flops=1e6):
    points = [{"step": 5 * (i + 1), "calm seconds": s, "seconds": 1.5 * s, "flops": 5 * (i + 1) * flops,
               "transfer": t, "STS": t / 2} for i, (s, t) in enumerate(zip(seconds, scores))]
    return {"line": line, "seed": seed, "seconds": seconds[-1], "steps": points[-1]["step"], "points": points}


def test_budget_preset_trains_steps_only_and_scores_evenly():
    settings = ec.budget_preset("consensus", "smoke", 30, 3)
    assert settings.max_steps == 30 and settings.max_seconds is None and settings.eval_every is None
    assert settings.eval_steps == 10
    assert ec.budget_preset("consensus", "smoke", 31, 3).eval_steps == 11  # points at 11, 22 and the end (31)
    # the sizes are the preset's own
    from reproducer.papers.registry import preset
    assert settings.identity() == preset("consensus", "smoke").identity()
    with pytest.raises(ReproducerError, match="at least one point"):
        ec.budget_preset("consensus", "smoke", 30, 0)


def test_equal_time_is_each_lines_steps_at_its_declared_calm_rate():
    """The same seconds on the calm machine are another number of steps for each line (its declared rate), and the
    clock of the figure reads those steps back as the same seconds."""
    lines = ec.declared_lines()
    for label in ec.all_lines():
        steps = ec.line_steps(label, 480)
        assert steps == round(480 * lines[label].steps_per_second)
        assert ec.calm_seconds(label, steps) == pytest.approx(480, rel=0.01)
    assert ec.line_steps("Quick-Thoughts (uni-QT)", 480) > ec.line_steps("skip-thought (uni-skip)", 480)
    assert ec.line_steps("mean-max AAE", 1e-6) == 1  # at least one step
    with pytest.raises(ReproducerError, match="Unknown line"):
        ec.line_steps("BERT", 60)
    from reproducer.declarations import Line

    with pytest.raises(ValueError, match="steps_per_second must be above 0"):
        Line("x", "consensus", "MV", steps_per_second=0)


def test_every_line_names_a_family_variant():
    from reproducer.papers.registry import family

    for label, (name, variant) in ec.all_lines().items():
        assert variant in family(name).variants, label
    assert ec.pairs_lines() == {"paraphrastic PP (pairs)"} and list(ec.all_lines())[-1] == "paraphrastic PP (pairs)"
    assert ec.line_inputs() == {"skip-thought (uni-skip)": "learned", "Quick-Thoughts (uni-QT)": "learned",
                                "consensus (MV)": "fixed", "mean-max AAE": "fixed", "mean-max RAE": "fixed",
                                "paraphrastic PP (pairs)": "initialised"}
    from reproducer.declarations import Line

    with pytest.raises(ValueError, match="inputs must be one of"):
        Line("x", "consensus", "MV", steps_per_second=1.0, inputs="glove")


def test_ranking_orders_lines_by_their_last_point_mean_over_seeds():
    units = [fake_unit("A", 0, [50, 60]), fake_unit("A", 1, [50, 64]), fake_unit("B", 0, [55, 70]),
             fake_unit("B", 1, [55, 68])]
    table = ec.ranking(units)
    assert list(table.index) == ["B", "A"]
    assert table.loc["A", "transfer"] == pytest.approx(62.0)
    assert table.loc["A", "seed sd"] == pytest.approx(np.std([60, 64], ddof=1))
    assert table.loc["B", "seeds"] == 2
    assert list(ec.ranking(units, "STS").index) == ["B", "A"]
    with pytest.raises(ReproducerError, match="transfer"):
        ec.ranking(units, "MR")
    with pytest.raises(ReproducerError, match="train the units"):
        ec.ranking([{"line": "A", "seed": 0, "seconds": 1, "steps": 1, "points": []}])


def test_curve_frame_and_figure_have_a_line_per_objective():
    units = [fake_unit(label, seed, [40 + seed, 50 + seed]) for label in ec.all_lines() for seed in (0, 1)]
    frame = ec.curve_frame(units)
    assert len(frame) == 2 * 2 * len(ec.all_lines())
    fig = ec.equal_compute_figure(units)
    ax = fig.axes[1]  # the legend sits under the panels, one for the figure
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(ec.all_lines())
    assert ax.get_xscale() == "log" and fig.axes[0].get_xscale() == "linear"  # against FLOPs, against seconds


def test_a_fresh_unsupervised_encoder_sees_weights_that_changed():
    from reproducer.data.vocab import SPECIALS, Vocabulary
    from reproducer.encoders.layers import fixed_embedding
    from reproducer.encoders.multiview import LinearView, ViewSet, recurrent_view

    torch.manual_seed(0)
    vocab = Vocabulary(list(SPECIALS) + ["a", "good", "film"])
    embed = fixed_embedding(np.random.default_rng(0).normal(size=(len(vocab), 6)).astype(np.float32))
    views = ViewSet({"f": recurrent_view(embed, 4), "g": LinearView(embed, 4)}, vocab, "toy", device="cpu")
    before = views.encode(["a good film"])
    with torch.no_grad():
        for p in views.views.parameters():
            p.add_(1.0)
    assert np.allclose(views.encode(["a good film"]), before)  # encode keeps its vectors
    assert not np.allclose(views.unsupervised_encoder().encode(["a good film"]), before)


def test_a_unit_trains_scores_and_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    study = ec.EqualCompute(NotebookRun("06_comparison", "smoke"), "smoke", 4.0, 2, seeds=1, config="prototype",
                            transfer=("MRPC",), sts=("STS14",), progress=False)
    unit = study.unit("mean-max AAE", 0)
    assert len(unit["points"]) >= 2 and unit["steps"] == unit["budget_steps"] == ec.line_steps("mean-max AAE", 4.0)
    assert unit["points"][-1]["calm seconds"] == pytest.approx(4.0, rel=0.05)  # the study's clock
    assert unit["step_flops"] > 0 and unit["points"][-1]["flops"] == unit["points"][-1]["step"] * unit["step_flops"]
    last = unit["points"][-1]
    assert last["transfer"] == pytest.approx(last["MRPC"]) and last["STS"] == pytest.approx(last["STS14"])
    assert 0 < last["MRPC"] <= 100 and -100 <= last["STS14"] <= 100  # in points
    # a second run of the chapter trains nothing: the unit is read back
    again = ec.EqualCompute(NotebookRun("06_comparison", "smoke"), "smoke", 4.0, 2, seeds=1, config="prototype",
                            transfer=("MRPC",), sts=("STS14",), progress=False)
    monkeypatch.setattr(ec, "curve_point", lambda *a, **k: pytest.fail("retrained"))
    assert again.unit("mean-max AAE", 0) == unit
    with pytest.raises(ReproducerError, match="Unknown line"):
        again.unit("BERT", 0)


def test_an_autoencoder_is_trained_with_its_halves_normalised_as_in_chapter_05(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from reproducer.papers import registry as models

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    options = {}

    class Stop(Exception):
        pass

    def fit(self, variant, preset, data, **kwargs):
        options[self.name] = kwargs
        raise Stop

    monkeypatch.setattr(models.Family, "fit", fit)
    monkeypatch.setattr(models.Family, "training_data", lambda self, variant, preset: None)
    study = ec.EqualCompute(NotebookRun("06_comparison", "smoke"), "smoke", 4.0, 2, seeds=1, progress=False)
    for label in ("mean-max RAE", "Quick-Thoughts (uni-QT)"):
        with pytest.raises(Stop):
            study.unit(label, 0)
    assert options["autoencoder"]["normalize_halves"] is True and "normalize_halves" not in options["quick-thought"]
    plain = SimpleNamespace(encoder=SimpleNamespace(encode=None))
    assert ec.test_encoder(plain) is plain.encoder


def test_a_reference_is_scored_like_the_lines_cached_and_drawn_across(tmp_path, monkeypatch):
    from reproducer.encoders import baselines
    from reproducer.encoders.bow import RandomEncoder

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.setitem(baselines.BASELINES, "toy", lambda: RandomEncoder(dim=16, name="toy"))
    study = ec.EqualCompute(NotebookRun("06_comparison", "smoke"), "smoke", 4.0, 2, seeds=1, config="prototype",
                            transfer=("MRPC",), sts=("STS14",), progress=False)
    reference = study.reference("toy")
    assert reference["name"] == "toy" and reference["transfer"] == pytest.approx(reference["MRPC"])
    assert reference["STS"] == pytest.approx(reference["STS14"]) and 0 < reference["MRPC"] <= 100
    monkeypatch.setitem(baselines.BASELINES, "toy", lambda: pytest.fail("scored again"))
    assert study.reference("toy") == reference  # cached
    with pytest.raises(ReproducerError, match="Unknown reference"):
        study.reference("BERT")
    assert "word2vec-bow" in baselines.BASELINES and set(ec.REFERENCES) <= set(baselines.BASELINES)
    books = [label for label in ec.all_lines() if label not in ec.pairs_lines()]
    units = [fake_unit(label, 0, [40, 50]) for label in books]
    fig = ec.equal_compute_figure(units, [reference])
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == [*books, "toy (fixed)"]
    flat = [line for line in fig.axes[2].get_lines() if line.get_label() == "toy (fixed)"]
    assert len(flat) == 1 and set(flat[0].get_ydata()) == {reference["STS"]}  # the STS row


def test_each_lines_start_is_its_untrained_twin_scored_like_its_points(tmp_path, monkeypatch):
    """Issue 44: a line's starting reference is the model its unit trains, with the same seed's initial weights,
    scored before the first step; cached; drawn at 0 seconds, joined to the line's first point."""
    from reproducer.papers.registry import family, paper
    from reproducer.untrained_twins import untrained_twin

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    study = ec.EqualCompute(NotebookRun("06_comparison", "smoke"), "smoke", 4.0, 2, seeds=1, config="prototype",
                            transfer=("MRPC",), sts=("STS14",), progress=False)
    start = study.start("mean-max AAE", 0)
    assert start["line"] == "mean-max AAE" and start["seconds"] == 0.0 and start["STS"] == pytest.approx(start["STS14"])
    settings = study.budget("mean-max AAE")
    twin = untrained_twin("mean-max AAE", settings, family("autoencoder").training_data("mean-max AAE", settings),
                          paper=paper("zhang2018"))
    assert ec.score_encoder(twin, "prototype", ("MRPC",), ("STS14",))["STS14"] == pytest.approx(start["STS14"])
    monkeypatch.setattr(ec, "score_encoder", lambda *a, **k: pytest.fail("scored again"))
    assert study.all_starts(["mean-max AAE"]) == [start]  # cached
    with pytest.raises(ReproducerError, match="Unknown line"):
        study.start("BERT", 0)
    units = [fake_unit(label, 0, [40, 50]) for label in ec.all_lines()]
    fig = ec.equal_compute_figure(units, starts=[{**start, "transfer": 30.0, "STS": 12.0}])
    joined = [line for line in fig.axes[0].get_lines() if list(line.get_xdata()) == [0.0, 10.0]]
    assert len(joined) == 1 and list(joined[0].get_ydata()) == [30.0, 40.0]  # transfer, against seconds
    assert not [line for line in fig.axes[1].get_lines() if 0.0 in list(line.get_xdata())]  # FLOPs: none
    gains = ec.start_gains([fake_unit("mean-max AAE", 0, [40, 50]), fake_unit("mean-max AAE", 1, [40, 60]),
                            fake_unit("mean-max RAE", 0, [40, 45])],
                           [{"line": "mean-max AAE", "seed": s, "transfer": 30.0 + s, "STS": 10.0} for s in (0, 1)])
    assert list(gains.index) == ["mean-max AAE"]  # the RAE has no start: left out
    assert gains.loc["mean-max AAE", ("transfer", "gain")] == pytest.approx(55 - 30.5)
    assert gains.loc["mean-max AAE", ("STS", "at the budget")] == pytest.approx(27.5)


def test_the_ranking_is_read_from_the_numbers():
    """Chapter 06's reading of the study is generated: which line leads, whether the seeds separate, who climbs."""
    qt, st, mv, pp = ("Quick-Thoughts (uni-QT)", "skip-thought (uni-skip)", "consensus (MV)",
                      "paraphrastic PP (pairs)")
    units = [fake_unit(qt, 0, [60, 66]), fake_unit(qt, 1, [60, 67]), fake_unit(st, 0, [55, 61]),
             fake_unit(st, 1, [55, 62]), fake_unit(mv, 0, [80, 80.5]), fake_unit(pp, 0, [79.5, 79.5], flops=1e3)]
    for u in units:
        u["steps"] = u["points"][-1]["step"] * (3 if u["line"] == qt else 1)
        u["points"][-1]["step"] = u["steps"]
    reference = {"name": "word2vec-bow", "transfer": 80.0, "STS": 30.0}
    text = ec.ranking_summary(units, [reference], word2vec_seconds=600)
    assert f"{qt} leads {st} at equal time** on the transfer tasks, by 5.0 points at the end, outside" in text
    assert "3.0 times as many updates" in text
    assert f"{mv} +0.0 → +0.5 (STS +10.0 → +10.2); {pp} -0.5 → -0.5" in text
    assert f"On the transfer tasks {mv} and {pp} stay within 1.5 points" in text
    assert f"On STS {mv} and {pp} are more than 1.5 points above it" in text
    assert "took 10 minutes to train" in text
    assert f"Still climbing at the end of the budget: {qt} and {st}.**" in text  # +6.5 and +6.5; MV +0.5
    assert f"Against FLOPs, {pp} is in a class of its own.** It spends 1,000 times fewer" in text
    # the seeds overlap: the text says so, and the other line leads when its numbers do
    units[2]["points"][-1]["transfer"] = 72.0
    text = ec.ranking_summary(units, [reference])
    assert f"{st} leads {qt} at equal time** on the transfer tasks, by 0.5 points at the end, inside" in text
    assert "word2vec vectors took" not in text
    with pytest.raises(ReproducerError, match="train the units"):
        ec.ranking_summary([{"line": qt, "seed": 0, "seconds": 1, "steps": 1, "points": []}])

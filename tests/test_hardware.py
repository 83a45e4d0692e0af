"""Chapter 06's hardware figures: the papers' timings beside ours, as ratios."""
import json

import numpy as np
import pytest

from reproducer.errors import ReproducerError
from reproducer.papers.consensus.tables import consensus_rows
from reproducer.papers.quick_thoughts.chapter import quick_thought_rows
from reproducer.overview import hardware as hw


def bench_run(softmax, rate):
    return {"objective": "quick_thought" if softmax == "in-batch" else "skip_thought", "batch_size": 400, "steps": 10,
            "sentences_per_second": rate, "peak_memory_bytes": 2**20, "parameters": 1, "softmax": softmax}


def write(root, chapter, name, obj):
    folder = root / chapter / "default"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(obj))


def test_quick_thought_speed_up_is_the_mean_of_the_repeats_over_the_papers():
    repeats = [[bench_run("in-batch", 100), bench_run("exact", 10), bench_run("sampled", 50)],
               [bench_run("in-batch", 120), bench_run("exact", 10), bench_run("sampled", 40)]]
    rows = quick_thought_rows({"runs": repeats[0], "repeats": repeats}, "cpu")
    exact, sampled = rows
    assert exact["ours"] == pytest.approx(11.0) and sampled["ours"] == pytest.approx(2.5)
    assert exact["paper's value"] == pytest.approx(31 / 6.5)
    assert exact["ours / paper"] == pytest.approx(11.0 / (31 / 6.5))


def test_consensus_times_are_relative_to_mv_on_both_sides():
    records = {"MV": {"seconds": 100.0, "step": 500}, "SV-g": {"seconds": 20.0, "step": 500},
               "MV-ff": {"seconds": 400.0, "step": 1000}}
    rows = {r["quantity"].split("'")[0]: r for r in consensus_rows(records, "cpu")}
    assert set(rows) == {"SV-g", "MV-ff"}  # the variants not trained are left out
    assert rows["SV-g"]["ours"] == pytest.approx(0.2) and rows["SV-g"]["paper's value"] == pytest.approx(1.5 / 8)
    assert rows["MV-ff"]["ours"] == pytest.approx(2.0) and rows["MV-ff"]["paper's value"] == pytest.approx(17 / 8)


def test_hardware_table_reads_what_has_run_and_raises_when_nothing_has(tmp_path):
    with pytest.raises(ReproducerError, match="No timing"):
        hw.hardware_table("default", tmp_path)
    write(tmp_path, "05_mean_max_aae", "timing.json", {"settings": {"hidden": 8, "batch_size": 4}, "runs": [
        {"objective": o, "minutes_per_1000_batches": m} for o, m in (("aae", 2.0), ("rae", 3.0), ("skip_thought", 4.0))]})
    table = hw.hardware_table("default", tmp_path)
    assert list(table.columns) == hw.COLUMNS and len(table) == 3
    skip = table[table.quantity.str.contains("skip")].iloc[0]
    assert skip["paper's value"] == pytest.approx(25.9) and skip["ours / paper"] == pytest.approx(4.0 / 25.9)
    aae = table[table.quantity.str.contains("AAE")].iloc[0]
    assert np.isnan(aae["paper's value"]) and "2.00× skip-thought's speed" in aae["note"]


def test_the_skip_thought_row_states_the_size_ratio_only_when_the_record_counts_it(tmp_path):
    """Issue 68: a record whose runs carry their word-embedding counts gives the parameter ratio the paper compares
    (40M over 39M); one that predates the counts (and names no word widths) gives the row without it, not an error."""
    runs = [{"objective": o, "minutes_per_1000_batches": m, "parameters": p, "word_embedding_parameters": w}
            for o, m, p, w in (("aae", 2.0, 500, 100), ("rae", 3.0, 500, 100), ("skip_thought", 4.0, 900, 300))]
    write(tmp_path, "05_mean_max_aae", "timing.json", {"settings": {"hidden": 8, "batch_size": 4}, "runs": runs})
    skip = hw.hardware_table("default", tmp_path).query("quantity.str.contains('skip')").iloc[0]
    assert "a far smaller model (without word embeddings skip-thought has 0.00M parameters" in skip["note"]
    assert "(1.50×; the paper's 40M and 39M, 1.03×)" in skip["note"]
    write(tmp_path, "05_mean_max_aae", "timing.json", {"settings": {"hidden": 8, "batch_size": 4}, "runs": [
        {k: v for k, v in r.items() if k != "word_embedding_parameters"} for r in runs]})
    skip = hw.hardware_table("default", tmp_path).query("quantity.str.contains('skip')").iloc[0]
    assert "a far smaller model; the paper prints no AAE figure" in skip["note"]


def test_the_committed_timings_give_a_table_and_a_figure():
    table = hw.hardware_table("default", "results")
    assert table["paper"].nunique() >= 2
    fig = hw.hardware_figure(table)
    assert fig.axes[0].get_xscale() == "log"


def test_machine_use_puts_each_objectives_cpu_and_gpu_shares_side_by_side(tmp_path):
    """Issue 66: chapter 06 shows how much of each machine every objective uses (CPU at default sizes, the last GPU
    slice at the paper's), read from results/bench/ and results/gpu/."""
    import json

    from reproducer.errors import ReproducerError

    with pytest.raises(ReproducerError, match="No benchmark"):
        hw.machine_use(tmp_path)
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "train_default.json").write_text(json.dumps({"runs": [
        {"objective": "AAE", "percent_of_peak": 68.3, "sentences_per_second": 400.0,
         "profile": {"matmul_share": 0.71}},
        {"objective": "PP", "percent_of_peak": 0.2, "sentences_per_second": 9000.0},
        {"objective": "LSTM", "error": "OutOfMemoryError"}]}))
    cpu_only = hw.machine_use(tmp_path)
    assert list(cpu_only.index) == ["AAE", "PP"] and "GPU % of peak" not in cpu_only
    assert cpu_only.loc["AAE", "CPU step in matrix products"] == pytest.approx(71.0)
    gpu = tmp_path / "gpu" / "2026-11-27"
    gpu.mkdir(parents=True)
    (gpu / "plan.json").write_text(json.dumps({"started": "2026-11-27 10:00:00 UTC",
                                               "environment": {"gpu": "NVIDIA H200"}, "bench": [
        {"objective": "AAE", "preset": "default", "percent_of_peak": 1.0, "sentences_per_second": 1.0},
        {"objective": "AAE", "preset": "paper", "percent_of_peak": 4.7, "sentences_per_second": 12000.0},
        {"objective": "QT", "preset": "paper", "percent_of_peak": 2.6, "sentences_per_second": 50000.0}]}))
    both = hw.machine_use(tmp_path)
    assert both.loc["AAE", "GPU % of peak"] == 4.7 and both.loc["AAE", "CPU % of peak"] == 68.3  # the paper's sizes
    assert both.loc["QT"].isna()["CPU % of peak"] and both.attrs["gpu"] == "NVIDIA H200, 2026-11-27"

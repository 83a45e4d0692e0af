"""The benchmark inventory shown in the data chapter."""
from __future__ import annotations

from reproducer.evaluate import TASKS
from reproducer.overview.task_inventory import benchmark_table, reported_by, sample_records, sentence_lengths, split_sizes


def test_every_task_says_who_reports_it():
    REPORTED_BY = reported_by()
    assert set(REPORTED_BY) == set(TASKS)
    assert "wieting2016" in REPORTED_BY["PPDB"] and REPORTED_BY["STSB-R"] == ("tang2019",)
    assert REPORTED_BY["SICK-cos"] == ("wieting2016", "tang2019")
    from reproducer.papers.registry import PAPERS

    assert {p for papers in REPORTED_BY.values() for p in papers} <= set(PAPERS)  # the keys of published.csv


def test_split_sizes():
    assert split_sizes({"train": [1, 2], "test": [3]}) == {"train": 2, "test": 1}
    assert split_sizes([1, 2, 3]) == {"all": 3}


def test_benchmark_table_has_the_published_sizes():
    table = benchmark_table({n: TASKS[n] for n in ("MR", "TREC", "STS12", "SICK-R")}).set_index("task")
    assert table.loc["MR", "records"] == 10_662
    assert table.loc["TREC", "splits"] == "train 5,452, test 500"
    assert table.loc["STS12", "records"] == 3_108 and table.loc["SICK-R", "metric"] == "pearson"


def test_samples_are_reproducible_and_labelled():
    a, b = sample_records(TASKS["SICK-R"], 4, seed=1), sample_records(TASKS["SICK-R"], 4, seed=1)
    assert a.equals(b) and len(a) == 4 and "|||" in a.text[0]
    assert a.label.between(1, 5).all()
    assert sample_records(TASKS["MR"], 2, seed=1).label.isin([0, 1]).all()
    # a SICK pair holds both labels: SICK-E shows the entailment class, SICK-R the relatedness score
    assert set(sample_records(TASKS["SICK-E"], 4, seed=1).label) <= {"ENTAILMENT", "NEUTRAL", "CONTRADICTION"}
    assert sample_records(TASKS["SICK-R"], 4, seed=1).label.between(1, 5).all()


def test_sentence_lengths_sample():
    lengths = sentence_lengths(TASKS["TREC"], n=300, seed=0)
    assert len(lengths) == 300 and min(lengths) >= 1


def test_the_declarations_give_the_table_the_book_printed_before_them():
    """The papers' ``tasks`` (reproducer/papers/<paper>/__init__.py) invert to the table chapter 00 showed when it
    was written by hand."""
    ST, QT, PP, CM, MM = "kiros2015", "logeswaran2018", "wieting2016", "tang2019", "zhang2018"
    those = {ST, QT, PP, CM, MM}  # a paper added since does not change what these five declare
    assert {task: tuple(k for k in keys if k in those) for task, keys in reported_by().items()} == {
        **{t: (ST, QT, CM, MM) for t in ("MR", "CR", "SUBJ", "MPQA", "TREC", "MRPC")},
        "SST2": (QT, PP, CM, MM), "SICK-E": (PP, CM, MM), "SICK-R": (ST, QT, PP, CM, MM),
        "STS12": (PP, CM), "STS13": (PP, CM), "STS14": (QT, PP, CM, MM), "STS15": (PP, CM), "STS16": (CM,),
        "STSB": (), "STSB-R": (CM,), "SICK-cos": (PP, CM), "PPDB": (PP,), "PPDB-wiki": (), "Twitter": (PP,),
    }

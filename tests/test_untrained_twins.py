"""The untrained twin of each paper's encoder (issue 44): the trained model's own architecture and initial weights,
built by its family's fit stopped before the first step."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import reproducer.fit as fit_module
import reproducer.train as train_module
from reproducer.papers import registry as models
from reproducer.data.vectors import WordVectors
from reproducer.encoders.trained import ConcatEncoder
from reproducer.errors import ReproducerError
from reproducer.papers.registry import preset
from reproducer.untrained_twins import family_inputs, untrained_twin

def twin_of(name: str, *args, **kwargs):
    """:func:`untrained_twin` of model ``name`` with the declaration of the paper that declares it."""
    return untrained_twin(name, *args, paper=models.paper(models.model(name).paper), **kwargs)


SENTENCES = ["the cat sat on the mat .", "a man walks his dog in the park", "she said nothing"]
#: The first trained model of each family (uni-skip, uni-QT, PP, MV, mean-max AAE), from the registry.
ONE_PER_FAMILY = [next(m.name for m in models.models(family=f) if m.variant) for f in models.FAMILIES]


@pytest.fixture(scope="module")
def smoke():
    """Each model's smoke preset and training data, built once."""
    built = {}

    def get(name):
        model = models.model(name)
        if name not in built:
            settings = preset(model.family, "smoke")
            variant = model.variant or models.model(model.parts[0]).variant
            built[name] = settings, models.family(model.family).training_data(variant, settings)
        return built[name]
    return get


def parts_of(encoder) -> list:
    """The single encoders of a (nested) concatenation."""
    return [p for e in encoder.encoders for p in parts_of(e)] if isinstance(encoder, ConcatEncoder) else [encoder]


def state(encoder) -> dict:
    """Every weight of every part (a consensus encoder's are its views')."""
    return {f"{i}.{k}": v.detach().clone() for i, part in enumerate(parts_of(encoder))
            for k, v in getattr(part, "views", getattr(part, "module", None)).state_dict().items()}


@pytest.mark.parametrize("name", ONE_PER_FAMILY)
def test_the_twin_is_the_trained_runs_model_before_its_first_step(name, smoke, monkeypatch):
    """Same architecture and same initial weights as the run ``fit`` trains with that seed: the weights ``train``
    receives are the twin's, name for name and value for value; another seed draws others."""
    settings, data = smoke(name)
    model = models.model(name)
    family = models.family(model.family)
    twin = twin_of(name, settings, data, seed=3)
    received = {}

    def no_steps(module, *args, **kwargs):
        received.update({k: v.detach().clone() for k, v in module.state_dict().items()})
        return train_module.TrainLog()
    monkeypatch.setattr(fit_module, "train", no_steps)  # the trainer fit hands the module to
    trained = family.fit(model.variant, settings, data, seed=3, progress=False, **family.fit_options)
    twin_module = state(twin)
    trained_module = state(trained.encoder)
    assert twin_module.keys() == trained_module.keys()
    assert all(torch.equal(twin_module[k], trained_module[k]) for k in twin_module)
    assert received  # train() was handed the module: its encoder's weights are the ones compared above
    other = twin_of(name, settings, data, seed=4).encode(SENTENCES)
    again = twin_of(name, settings, data, seed=3).encode(SENTENCES)
    ours = twin.encode(SENTENCES)
    assert np.array_equal(ours, again) and not np.allclose(ours, other)
    assert twin.name == f"{name} (untrained)" and np.isfinite(ours).all()


def test_a_twin_takes_no_step_and_writes_nothing(smoke, tmp_path, monkeypatch):
    settings, data = smoke("uni-skip")
    monkeypatch.chdir(tmp_path)
    fitted = models.family("skip-thought").untrained("uni-skip", settings, data, seed=0)
    assert fitted.log.step == 0 and fitted.log.seconds == 0 and fitted.log.parameters > 0
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ReproducerError, match="max_steps must be at least 1"):  # outside the twin, 0 steps is refused
        settings.with_overrides(max_steps=0).train_config(0)


def test_a_combination_is_its_parts_twins_side_by_side(smoke):
    settings, data = smoke("combine-skip")
    both = twin_of("combine-skip", settings, data, seed=1).encode(SENTENCES)
    uni = twin_of("uni-skip", settings, data, seed=1).encode(SENTENCES)
    bi = twin_of("bi-skip", settings, data, seed=1).encode(SENTENCES)
    assert np.array_equal(both, np.concatenate([uni, bi], axis=1))


def test_word2vec_in_place_of_learned_embeddings(smoke):
    """A learned-embedding model's twin with our vectors: the rows of the words they hold are replaced, the others
    keep their draw, the rest of the network is the same initialisation."""
    settings, data = smoke("uni-QT")
    words = [w for w in data.vocab.itos[4:50]]
    vectors = WordVectors(words, np.random.default_rng(0).standard_normal((len(words), settings.word_dim)), "toy")
    random_words = twin_of("uni-QT", settings, data, seed=0)
    with_vectors = twin_of("uni-QT", settings, data, seed=0, word_vectors=vectors)
    assert with_vectors.name == "uni-QT (untrained, toy)"
    for plain, put in zip(parts_of(random_words), parts_of(with_vectors)):
        table, before = put.module.embed.weight.detach(), plain.module.embed.weight.detach()
        held = [put.vocab.stoi[w] for w in words]
        assert np.allclose(table[held].numpy(), vectors.vectors)
        rest = [i for i in range(len(put.vocab)) if i not in set(held)]
        assert torch.equal(table[rest], before[rest])
        others = {k: v for k, v in put.module.state_dict().items() if k != "embed.weight"}
        assert all(torch.equal(v, plain.module.state_dict()[k]) for k, v in others.items())
    assert not np.allclose(random_words.encode(SENTENCES), with_vectors.encode(SENTENCES))


def test_what_a_twin_refuses(smoke):
    settings, data = smoke("uni-skip")
    narrow = WordVectors(["cat"], np.ones((1, settings.word_dim + 1)), "wide")
    with pytest.raises(ReproducerError, match=f"{settings.word_dim}-d but wide are {settings.word_dim + 1}-d"):
        twin_of("uni-skip", settings, data, word_vectors=narrow)
    aae_settings, aae_data = smoke("mean-max AAE")
    with pytest.raises(ReproducerError, match="reads fixed pre-trained word vectors"):
        twin_of("mean-max AAE", aae_settings, aae_data, word_vectors=narrow)
    with pytest.raises(ReproducerError, match="declares no model 'glove-bow'"):  # a baseline has no paper, no twin
        untrained_twin("glove-bow", settings, data, paper=models.paper("kiros2015"))
    declared = {line.family: line.inputs for paper in models.DECLARATIONS.values() for line in paper.lines}
    assert {name: family_inputs(f) for name, f in models.FAMILIES.items()} == declared  # as each paper's lines say too
    assert set(declared.values()) == {"learned", "initialised", "fixed"}



def _chapter_models(family: str, run):
    """A chapter's models at smoke, seed 2, scoring MR (and the chapter's extra tasks)."""
    from reproducer.papers.consensus.chapter import ConsensusModels
    from reproducer.papers.mean_max_aae.chapter import AutoencoderModels
    from reproducer.papers.quick_thoughts.chapter import QuickThoughtModels
    from reproducer.papers.skip_thoughts.chapter import SkipThoughtModels

    settings, options = preset(family, "smoke"), {"seed": 2, "progress": False}
    return {"skip-thought": lambda: SkipThoughtModels(run, settings, tasks=["MR"], extra_tasks=(), **options),
            "quick-thought": lambda: QuickThoughtModels(run, settings, ["MR"], **options),
            "consensus": lambda: ConsensusModels(run, settings, groups={"U": [], "S": [], "B": [], "M": ["MR"]},
                                                 **options),
            "autoencoder": lambda: AutoencoderModels(run, settings, tasks=["MR"], **options)}[family]()


@pytest.mark.parametrize("name", ["combine-skip", "MC-QT", "MV", "mean-max AAE"])
def test_a_chapters_twin_is_scored_once_on_its_tasks_and_cached(name, tmp_path, monkeypatch):
    """A chapter's models give each model's twin from the chapter's own settings and data (``twin_inputs``), with
    this seed's initial weights: scored on the chapter's tasks with per-item outcomes, cached beside the trained
    model's evaluation under its own key, and read back without building the twin again."""
    import reproducer.untrained_twins as twins
    from reproducer.evaluate import evaluate
    from reproducer.files import stored_json
    from reproducer.results_store import NotebookRun, slug

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    model = models.model(name)
    chapter = _chapter_models(model.family, NotebookRun(model.chapter, "smoke"))
    results = chapter.twin_results(name)
    assert "MR" in results.scores and results.items["MR"]  # per-item outcomes: the claims' bootstrap
    assert stored_json(chapter.run.dir / f"eval_{slug(name)}_untrained.json")
    settings, data = chapter.twin_inputs(name)
    twin = twin_of(name, settings, data, seed=2)
    assert evaluate(twin, ["MR"], settings.eval_config, progress=False).scores["MR"] == results.scores["MR"]
    monkeypatch.setattr(twins, "untrained_twin", lambda *a, **k: pytest.fail("the cached twin was built again"))
    assert chapter.twin_results(name).scores == results.scores


def test_a_chapters_twins_are_named_as_the_claims_read_them(tmp_path, monkeypatch):
    """``twins()`` scores the chapter's TWINS, and WORD2VEC_TWINS also with our word2vec in their embeddings, keyed by
    the names the book's own claims read (:func:`~reproducer.report.claims.untrained`); a unit asks for one model's."""
    from reproducer.results_store import NotebookRun
    from reproducer.report.claims import untrained

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    chapter = _chapter_models("quick-thought", NotebookRun("02_quick_thoughts", "smoke"))
    vectors = chapter.word2vec.name
    found = chapter.twins(["uni-QT", "bi-QT"])  # bi-QT has no twin in this chapter
    assert list(found) == [untrained("uni-QT"), untrained("uni-QT", vectors)] == \
        ["uni-QT (untrained)", f"uni-QT (untrained, {vectors})"]
    assert found[untrained("uni-QT", vectors)].encoder == f"uni-QT (untrained, {vectors})"
    assert found[untrained("uni-QT")].scores != found[untrained("uni-QT", vectors)].scores
    assert set(chapter.twins()) == {*found, untrained("MC-QT")}
    assert chapter.word2vec_name == vectors
    again = _chapter_models("quick-thought", NotebookRun("02_quick_thoughts", "smoke"))  # a fresh kernel's
    monkeypatch.setattr(type(again), "word2vec", property(lambda self: pytest.fail("word2vec built for a cached twin")))
    assert again.twins(["uni-QT"])[untrained("uni-QT", vectors)].scores == found[untrained("uni-QT", vectors)].scores


def test_chapter_01s_twin_has_its_vocabulary_expanded_as_the_trained_encoder(tmp_path, monkeypatch):
    """combine-skip is scored with its vocabulary expanded by our word2vec: its twin is expanded the same way (the
    linear map fitted on the twin's own embeddings), ``… (no expansion)``'s is not."""
    from reproducer.results_store import NotebookRun

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    chapter = _chapter_models("skip-thought", NotebookRun("01_skip_thoughts", "smoke"))
    twin = twin_of("combine-skip", *chapter.twin_inputs("combine-skip"), seed=2)
    expanded = chapter.finish_twin("combine-skip", twin)
    assert expanded.name == twin.name == "combine-skip (untrained)"
    for before, after in zip(twin.encoders, expanded.encoders):
        assert len(after.vocab) > len(before.vocab)  # word2vec's words beyond the 2,000 trained ones
        shared = before.vocab.itos[5]
        torch.testing.assert_close(after.module.embed.weight[after.vocab.stoi[shared]],
                                   before.module.embed.weight[before.vocab.stoi[shared]])  # its own words kept
    assert chapter.finish_twin("combine-skip (no expansion)", twin) is twin


def test_chapter_03s_twin_is_its_chosen_configuration_at_initialisation(tmp_path, monkeypatch):
    """A paraphrastic model's twin: its chosen configuration's settings on the chapter's pairs and initial vectors,
    scored on the transfer tasks like the trained model, cached under its own key."""
    from reproducer.evaluate import evaluate
    from reproducer.files import stored_json
    from reproducer.results_store import NotebookRun, slug
    from reproducer.papers.paraphrastic.chapter import ParaphraseModels

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    training = ParaphraseModels.prepare(NotebookRun("03_paraphrastic", "smoke"))
    training.best = {"LSTM (o.g.)": {"overrides": {"lr": 0.005}}}  # as train_grid leaves it
    results = training.twin_results("LSTM (o.g.)")
    assert set(results.scores) == {"MRPC", "STS14"} and results.items["MRPC"]
    twin = twin_of("LSTM (o.g.)", training.config(lr=0.005), training.data(), seed=training.seed)
    assert evaluate(twin, ["MRPC"], "smoke", progress=False).scores["MRPC"] == results.scores["MRPC"]
    assert stored_json(training.run.dir / f"eval_{slug('LSTM (o.g.)')}_untrained.json")


def test_chapter_04s_twin_is_mvs_table3_row_at_initialisation(tmp_path, monkeypatch):
    """Chapter 04 scores MV's twin as it scores MV's main row of Table 3 (issue 44): the MV ensemble of MV's views at
    this seed's initialisation, U with the unsupervised pooling and the supervised tasks with the supervised one, at
    the rows' protocol, with per-item outcomes; cached as ``eval_MV_ensemble_untrained.json`` and read back without
    building the twin again; another seed's twin is that seed's initialisation."""
    import reproducer.untrained_twins as twins
    from reproducer.evaluate.views import RowEncoders
    from reproducer.files import read_json
    from reproducer.results_store import NotebookRun
    from reproducer.papers.consensus.chapter import ConsensusModels
    from reproducer.papers.consensus.tables import TRANSFER_ROW

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    groups = {"U": ["STS14"], "S": [], "B": ["MR"], "M": []}
    settings = preset("consensus", "smoke")

    def chapter():
        return ConsensusModels(NotebookRun("04_consensus", "smoke"), settings, groups=groups, seed=2, progress=False)

    main = chapter()
    record = main.twin_row(TRANSFER_ROW)
    assert TRANSFER_ROW == "MV ensemble" and read_json(main.run.path("eval_MV_ensemble_untrained.json")) == record
    assert record["unsupervised"]["encoder"] == record["supervised"]["encoder"] == "MV (untrained) ensemble"
    assert record["supervised"]["items"]["MR"] and record["unsupervised"]["items"]["STS14"]  # the claims' bootstrap
    views = twin_of("MV", *main.twin_inputs("MV"), seed=2)  # what MV's fit starts from (the tests above)
    expected = RowEncoders(lambda variant: views).evaluate(TRANSFER_ROW, groups, settings.rows_config)
    assert {k: r["results"] for k, r in record.items()} == {k: r["results"] for k, r in expected.items()}
    other = main.seeds(2)[1]  # the claims' next seed, in its own run's folder
    assert other.seed == 3 and other.run.dir != main.run.dir
    other.twin_row()
    mine, theirs = state(main.twin_views("MV")), state(other.twin_views("MV"))  # its own initialisation (the
    assert mine.keys() == theirs.keys() and any(not torch.equal(mine[k], theirs[k]) for k in mine)  # weights, not a
    # score: at smoke sizes two untrained twins may both predict MR's majority class, so their accuracies can agree)
    monkeypatch.setattr(twins, "untrained_twin", lambda *a, **k: pytest.fail("the cached twin was built again"))
    assert chapter().twin_row() == record

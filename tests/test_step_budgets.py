"""Budgets that reproduce (issue 67): every preset trains a number of steps, never a number of seconds, so the same
preset trains the same model on a busy or a calm machine; a run with a checkpoint keeps its encoder at half its steps."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent / "helpers"))
import training_digests  # noqa: E402


def test_no_preset_past_smoke_has_a_seconds_budget_or_schedule():
    from reproducer.papers.registry import FAMILIES, preset

    for name in FAMILIES:
        for scale in ("smoke", "quick", "default", "paper"):
            settings = preset(name, scale)
            assert settings.max_steps, (name, scale)
            assert settings.max_seconds is None and settings.eval_every is None, (name, scale)


def test_every_declared_model_budget_is_a_number_of_steps():
    from reproducer.papers.registry import models, preset

    for model in models():
        for scale, steps in model.budgets.items():
            assert isinstance(steps, int) and steps > 0, (model.name, scale)
            settings = model.budgeted(preset(model.family, scale))
            assert settings.max_steps == steps and settings.max_seconds is None


def _smoke_run(family_name: str, variant: str, checkpoint=None, evaluate=None, **overrides):
    from reproducer.papers.registry import family, preset

    fam = family(family_name)
    settings = preset(fam.name, "smoke", **overrides)
    data = training_digests.seeded_vectors(fam.training_data(variant, settings))
    return fam.fit(variant, settings, data, seed=0, device="cpu", progress=False, checkpoint=checkpoint,
                   evaluate=evaluate, **fam.fit_options)


@pytest.mark.slow
@pytest.mark.parametrize("family_name,variant", [("quick-thought", "uni-QT"), ("skip-thought", "uni-skip")])
def test_a_busy_machine_trains_the_same_model(family_name, variant):
    """The same preset trained twice, once beside two processes that burn both cores: the same number of steps and
    bit-identical weights (a seconds budget would stop the busy run earlier)."""
    calm = _smoke_run(family_name, variant)
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        time.sleep(0.2)
        busy = _smoke_run(family_name, variant)
    finally:
        for p in burners:
            p.kill()
            p.wait()
    assert busy.log.step == calm.log.step and busy.log.examples == calm.log.examples
    assert training_digests.weights_digest(busy.module) == training_digests.weights_digest(calm.module)


@pytest.mark.slow
def test_a_run_keeps_its_encoder_at_half_its_steps(tmp_path):
    """A run with a checkpoint saves ``<name>.half.encoder.pt`` after half its steps: the encoder of a run of half as
    many steps, and saving it changes nothing of the full run."""
    from reproducer.checkpoints import half_budget_bundle
    from reproducer.encoders.bundles import load_encoder

    checkpoint = tmp_path / "uni-QT.train.pt"
    full = _smoke_run("quick-thought", "uni-QT", checkpoint=checkpoint, max_steps=6)
    half_path = half_budget_bundle(checkpoint)
    assert half_path == tmp_path / "uni-QT.half.encoder.pt" and half_path.is_file()
    half = _smoke_run("quick-thought", "uni-QT", max_steps=3)
    plain = _smoke_run("quick-thought", "uni-QT", max_steps=6)
    assert training_digests.weights_digest(full.module) == training_digests.weights_digest(plain.module)
    sentences = training_digests.SENTENCES
    saved = load_encoder(half_path)
    assert torch.equal(torch.as_tensor(saved.encode(sentences)), torch.as_tensor(half.encoder.encode(sentences)))
    assert not torch.equal(torch.as_tensor(saved.encode(sentences)), torch.as_tensor(full.encoder.encode(sentences)))


@pytest.mark.slow
@pytest.mark.parametrize("family_name,variant", [("consensus", "MV"), ("autoencoder", "mean-max AAE")])
def test_a_run_of_half_the_steps_is_the_full_runs_halfway_encoder(tmp_path, family_name, variant):
    """Chapters 04 and 05 at half their budget (issue 70): where a seed's halfway bundle is gone, the variant is
    trained again as a run of its own to half the steps, without the training curve
    (:meth:`~reproducer.report.units.ChapterModels.train_to_half`). That is the same encoder as the full run's
    halfway bundle, saved while the full run evaluated its curve: no schedule depends on the budget, batches (and
    dropout) are drawn by step, and an evaluation changes neither."""
    from reproducer.checkpoints import half_budget_bundle
    from reproducer.encoders.bundles import load_encoder

    checkpoint = tmp_path / f"{variant}.train.pt"
    evaluated = []

    def curve(fitted, step):  # as a chapter's curve: encodes sentences in eval mode
        evaluated.append(step)
        return {"norm": float(torch.as_tensor(fitted.encoder.encode(training_digests.SENTENCES[:2])).norm())}

    full = _smoke_run(family_name, variant, checkpoint=checkpoint, evaluate=curve, max_steps=6, eval_steps=2)
    half = _smoke_run(family_name, variant, max_steps=3)
    assert evaluated == [2, 4, 6]
    sentences = training_digests.SENTENCES
    saved = torch.as_tensor(load_encoder(half_budget_bundle(checkpoint)).encode(sentences))
    assert torch.equal(saved, torch.as_tensor(half.encoder.encode(sentences)))
    assert not torch.equal(saved, torch.as_tensor(full.encoder.encode(sentences)))


def test_a_seconds_budget_on_the_train_command_says_it_is_not_reproducible(monkeypatch, tmp_path):
    import reproducer.declarations
    from reproducer.errors import ReproducerWarning
    from reproducer.train_command import train_model

    def fit(*args, **options):
        raise SystemExit  # stop before training: the warning comes first

    monkeypatch.setattr(reproducer.declarations.Family, "fit", fit)
    monkeypatch.setattr(reproducer.declarations.Family, "training_data", lambda *a: None)
    with pytest.warns(ReproducerWarning, match="not reproducible"), pytest.raises(SystemExit):
        train_model("uni-QT", "smoke", seconds=5, out=tmp_path, progress=False)


def test_training_steps_lists_the_models_whose_seeds_disagree(tmp_path):
    """scripts/training_steps.py's table: every training record of a preset's runs (main run and seeds, plain or
    compressed; other parameters' runs left out), and the models whose seeds reached different steps."""
    from reproducer.files import write_json
    from reproducer.report.training_steps import training_steps, unequal_steps

    def record(folder, model, step, compressed=False):
        path = tmp_path / "02_quick_thoughts" / folder / f"{model}_training.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(path, {"step": step, "seconds": 1.5}, compress_above=0 if compressed else None)

    for seed, folder in enumerate(("default", "default+seed=1", "default+seed=2")):
        record(folder, "uni-QT", 6000, compressed=seed == 1)
        record(folder, "bi-QT", (790, 2600, 2600)[seed])
    record("default+max_steps=10", "bi-QT", 10)  # another run, not a seed of the preset
    (tmp_path / "02_quick_thoughts" / "default" / "eval_uni-QT.json").write_text('{"step": 3}')
    steps = training_steps(tmp_path)
    assert steps[["model", "seed", "steps"]].values.tolist() == [["bi-QT", 0, 790], ["bi-QT", 1, 2600],
                                                                  ["bi-QT", 2, 2600], ["uni-QT", 0, 6000],
                                                                  ["uni-QT", 1, 6000], ["uni-QT", 2, 6000]]
    assert set(steps.preset) == {"default"} and (steps.seconds == 1.5).all()
    assert unequal_steps(steps).model.tolist() == ["bi-QT"] * 3
    assert unequal_steps(steps[steps.model == "uni-QT"]).empty


RESULTS = Path(__file__).resolve().parents[1] / "results"
#: Chapters whose committed seeds still come from runs that stopped on seconds (issue 67: retrained next, in this
#: order); a chapter leaves this set when its records agree, and the strict xfail says so when it does.
RETRAINING: dict[str, str] = {}  # chapter -> why its committed seeds still disagree (empty: every chapter retrained)


@pytest.mark.parametrize("chapter", [
    pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=RETRAINING[c])) if c in RETRAINING else c
    for c in sorted(p.name for p in RESULTS.iterdir() if p.is_dir())])
def test_every_committed_models_seeds_trained_the_same_steps(chapter):
    """The done-criterion of issue 67 over the committed results (scripts/training_steps.py): at each preset, every
    training seed of every model states the same number of steps."""
    from reproducer.report.training_steps import training_steps, unequal_steps

    steps = training_steps(RESULTS)
    disagree = unequal_steps(steps[steps.chapter == chapter])
    assert disagree.empty, disagree.to_string()


@pytest.mark.slow
@pytest.mark.parametrize("name,label", [("PP", "MIX, λw=1e-08"), ("LSTM (o.g.)", "MAX, lr=0.005")])
def test_a_chosen_paraphrase_model_at_half_its_budget_is_its_runs_halfway_encoder(tmp_path, monkeypatch, name, label):
    """Chapter 03 at half its budget (issue 70): a chosen configuration's encoder saved halfway by its grid run, and
    the same configuration trained again as a run of its own to half the steps (what a seed whose checkpoints are gone
    gets), encode alike — AdaGrad at a constant rate, batches and MIX negatives drawn by step — and differ from the
    full run's."""
    import numpy as np

    from reproducer.checkpoints import half_budget_bundle
    from reproducer.data.pairs import TrainingPair
    from reproducer.data.training_data import TrainingData
    from reproducer.data.vectors import WordVectors
    from reproducer.papers.paraphrastic import chapter as pt
    from reproducer.papers.registry import preset
    from reproducer.results_store import NotebookRun

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path))
    rng = np.random.default_rng(0)
    vectors = WordVectors([f"w{i}" for i in range(30)], rng.normal(size=(30, 6)).astype(np.float32))
    pairs = [TrainingPair(f"w{i} w{i + 1} new{i}", f"w{i + 1} w{i}", 4.0, "ppdb-wiki") for i in range(20)]
    data = TrainingData(pairs=pairs, vectors=vectors)
    settings = preset("paraphrastic", "smoke", batch_size=5, max_steps=8)
    overrides = pt.grid(name, "MIX, λw=1e-08")[label] if name != "PP" else pt.PP_GRID[label]

    def models():
        m = pt.ParaphraseModels(NotebookRun("03_paraphrastic", "smoke"), settings, data=data)
        m.best = {name: {"config": label, "overrides": overrides}}
        return m

    first = models()
    full = first.fit(name, label, overrides).encoder  # the grid run: saves its encoder halfway
    saved = half_budget_bundle(first.grid_checkpoint(name, label))
    assert saved.is_file()
    halfway = first.half_chosen(name)
    saved.unlink()  # its checkpoints gone: the configuration is trained again, to half the steps
    again = models()
    trained = again.half_chosen(name)
    assert again.grid_checkpoint(name, label, half=True).is_file() and trained.name == halfway.name == name
    sentences = ["w1 w2 new1", "w9 w3", "w4"]
    np.testing.assert_array_equal(trained.encode(sentences), halfway.encode(sentences))
    assert not np.allclose(trained.encode(sentences), full.encode(sentences))
    assert again.half_chosen(name) is trained  # once per kernel

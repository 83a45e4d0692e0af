"""Consensus maximisation (Tang & de Sa 2019): power iteration, PC removal, the agreement loss and its variants,
the learnable temperature, the views and their pooling, test-time encoders, bundles and a training run."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from reproducer.data.batches import ContiguousSampler, TokenizedCorpus, pad
from reproducer.data.vocab import SPECIALS, Vocabulary
from reproducer.encoders.layers import fixed_embedding, pool, remove_top_component, top_component
from reproducer.encoders.multiview import LinearView, ViewEncoder, recurrent_view
from reproducer.errors import ReproducerError
from reproducer.fit import fit
from reproducer.papers.consensus.objective import (OBJECTIVE, VARIANTS, Consensus, Temperature, Variant, agreement,
                                                   consensus_loss)
from reproducer.objectives.context import context_targets
from reproducer.papers.registry import preset
from reproducer.data.training_data import TrainingData


def known_matrix(seed=0, n=50, d=6):
    """``z = U diag(s) Vᵀ`` with a clear gap between the first two singular values."""
    rng = np.random.default_rng(seed)
    u, _ = np.linalg.qr(rng.normal(size=(n, d)))
    v, _ = np.linalg.qr(rng.normal(size=(d, d)))
    s = np.array([10.0, 4.0, 3.0, 2.0, 1.0, 0.5])
    return torch.tensor(u @ np.diag(s) @ v.T, dtype=torch.float32), torch.tensor(v[:, 0], dtype=torch.float32)


def test_power_iteration_finds_the_top_component():
    z, v1 = known_matrix()
    u = top_component(z)
    assert abs(float(u @ v1)) == pytest.approx(1.0, abs=1e-5)
    assert float(u.norm()) == pytest.approx(1.0, abs=1e-6)
    svd_top = torch.linalg.svd(z, full_matrices=False).Vh[0]
    assert abs(float(u @ svd_top)) == pytest.approx(1.0, abs=1e-5)


def test_removing_the_component_leaves_vectors_orthogonal_to_it():
    z, v1 = known_matrix(seed=3)
    r = remove_top_component(z)
    assert float((r @ v1).abs().max()) < 1e-4
    # what is left is z minus its rank-one part: the other singular values survive
    torch.testing.assert_close(torch.linalg.svdvals(r)[:2], torch.tensor([4.0, 3.0]), atol=1e-4, rtol=0)
    assert float(top_component(torch.zeros(4, 3)).norm()) == pytest.approx(1.0)  # no crash on zeros


def neighbour_views(n):
    """g_j = e_j and f_i = e_{i-1} + e_{i+1} (a spare dimension e_n stands in for the missing neighbour of the
    first and last sentence): every neighbour pair agrees by √2, every other pair by 0."""
    g = torch.eye(n, n + 1)
    f = torch.zeros(n, n + 1)
    for i in range(n):
        for j in (i - 1, i + 1):
            f[i, j if 0 <= j < n else n] = 1.0
    return {"f": f, "g": g}


def test_loss_is_near_zero_when_views_agree_only_on_the_true_context():
    n = 8
    targets = context_targets(torch.arange(n), torch.zeros(n, dtype=torch.long))
    z = neighbour_views(n)
    terms = VARIANTS["MV"].terms
    a = agreement(z, terms)
    assert float(a[3, 4]) == pytest.approx(2 ** 0.5, abs=1e-6) and float(a[3, 5]) == 0.0
    assert consensus_loss(z, terms, targets, 0.01).item() < 1e-3
    shuffled = {"f": z["f"][torch.randperm(n, generator=torch.Generator().manual_seed(0))], "g": z["g"]}
    assert consensus_loss(shuffled, terms, targets, 0.01).item() > 5


def test_with_self_pairs_a_sentence_two_views_must_agree_too():
    n = 7
    targets = context_targets(torch.arange(n), torch.zeros(n, dtype=torch.long), include_self=True)
    assert targets[0].tolist()[:3] == [0.5, 0.5, 0.0] and targets[3].tolist()[2:5] == pytest.approx([1 / 3] * 3)
    g = torch.eye(n, n + 2)
    f = torch.zeros(n, n + 2)
    for i in range(n):
        for j in (i - 1, i, i + 1):
            f[i, j if 0 <= j < n else n + (j > 0)] = 1.0  # spare dimensions for the missing neighbours at the ends
    z = {"f": f, "g": g}
    terms = VARIANTS["MV"].terms
    assert consensus_loss(z, terms, targets, 0.01, self_pairs=True).item() < 1e-3
    # the same views without the self pairs: the diagonal, as good as the neighbours, is now not a candidate
    plain = context_targets(torch.arange(n), torch.zeros(n, dtype=torch.long))
    assert consensus_loss(z, terms, plain, 0.01).item() < 1e-3
    # but views that agree on the neighbours only, not on the sentence itself, lose under self pairs
    assert consensus_loss(neighbour_views(n), terms, targets, 0.01, self_pairs=True).item() > 5


def test_each_variant_is_its_cosine_terms():
    rng = torch.Generator().manual_seed(0)
    z = {name: torch.randn(5, 4, generator=rng) for name in ("f", "g", "f1", "f2", "g1", "g2")}
    cos = {(a, b): F.normalize(z[a], dim=1) @ F.normalize(z[b], dim=1).T for a in z for b in z}
    expected = {
        "MV": cos["f", "g"] + cos["g", "f"], "MV-ff": cos["f1", "f2"] + cos["f2", "f1"],
        "MV-gg": cos["g1", "g2"] + cos["g2", "g1"], "SV-f": cos["f", "f"], "SV-g": cos["g", "g"],
        "MV+SV": cos["f", "g"] + cos["g", "f"] + cos["f", "f"] + cos["g", "g"],
        "skip": F.normalize(z["f"] + z["g"], dim=1) @ F.normalize(z["f"] + z["g"], dim=1).T,
    }
    assert set(expected) == set(VARIANTS)
    for name, variant in VARIANTS.items():
        torch.testing.assert_close(agreement(z, variant.terms), expected[name])
    assert VARIANTS["MV"].views == ("f", "g") and VARIANTS["SV-g"].views == ("g",)
    with pytest.raises(ReproducerError, match="exactly the views"):
        Variant("bad", ("f", "g"), (("f", "f"),))


def test_temperature_is_learnable_and_positive():
    t = Temperature(0.5, minimum=0.05)
    assert float(t.tau.detach()) == pytest.approx(0.5)
    t(torch.ones(2, 2)).sum().backward()
    assert t.log_tau.grad is not None and float(t.log_tau.grad) < 0  # a higher τ lowers these scores
    with torch.no_grad():
        t.log_tau.fill_(-20.0)
    assert float(t.tau.detach()) == pytest.approx(0.05)
    with pytest.raises(ReproducerError, match="exceed"):
        Temperature(0.01, minimum=0.05)


def test_pooling_ignores_padding_and_matches_its_definition():
    h = torch.tensor([[[1.0, -2.0], [3.0, 0.0], [9.0, 9.0]]])  # the third position is padding
    lengths = torch.tensor([2])
    last = torch.tensor([[7.0, 8.0]])
    out = pool(h, lengths, last, ("max", "avg", "min", "last"))
    assert out.tolist() == [[3.0, 0.0, 2.0, -1.0, 1.0, -2.0, 7.0, 8.0]]
    torch.testing.assert_close(pool(h[:, :2], lengths, last, ("max", "avg", "min")), out[:, :6])
    with pytest.raises(ReproducerError, match="recurrent view"):
        pool(h, lengths, None, ("last",))
    with pytest.raises(ReproducerError, match="Unknown pooling"):
        pool(h, lengths, last, ("median",))


def test_views_sizes_parameters_and_fixed_vectors():
    v, w, d = 30, 5, 8
    vectors = np.random.default_rng(0).normal(size=(v, w)).astype(np.float32)
    model = Consensus(VARIANTS["MV"], vectors, d)
    f, g = model.views["f"], model.views["g"]
    assert f.embed is g.embed and not f.embed.weight.requires_grad
    trainable = {n: p.numel() for n, p in model.named_parameters() if p.requires_grad}
    h = d // 2  # per direction; PyTorch's GRU keeps two bias vectors
    assert sum(v for n, v in trainable.items() if n.startswith("views.f.")) == 2 * 3 * h * (w + h + 2)
    assert trainable["views.g.proj.weight"] == d * w and trainable["temperature.log_tau"] == 1
    ids, lengths = pad([np.array([4, 5, 6]), np.array([7])])
    assert f(ids, lengths).shape == (2, d) and g(ids, lengths).shape == (2, d)
    states, last = f.states(ids, lengths)
    torch.testing.assert_close(last, f(ids, lengths))
    torch.testing.assert_close(g(ids, lengths)[1], g.proj(g.embed.weight[7]))
    with pytest.raises(ReproducerError, match="even"):
        recurrent_view(fixed_embedding(vectors), 7)
    assert isinstance(LinearView(fixed_embedding(vectors), 3), LinearView)


def small_setup(books):
    corpus = books(sizes=(9, 7, 11))
    vocab = Vocabulary.build(corpus.sentences, max_size=None)
    vectors = np.random.default_rng(0).normal(size=(len(vocab), 6)).astype(np.float32)
    vectors[0] = 0
    return corpus, vocab, vectors, TokenizedCorpus.from_corpus(corpus, vocab)


def test_context_pairs_never_cross_a_book_boundary(books):
    corpus, vocab, vectors, tokenized = small_setup(books)
    sampler = ContiguousSampler(tokenized, batch_size=8, seed=0)
    book_of = {i: b for b, s, e in corpus.book_spans for i in range(s, e)}
    crossings = 0
    for step in range(sampler.steps_per_epoch):
        batch = sampler.batch(step)
        t = context_targets(batch.positions, batch.book_ids)
        books = [book_of[int(p)] for p in batch.positions]
        crossings += len(set(books)) > 1
        for i, j in zip(*torch.nonzero(t, as_tuple=True)):
            assert books[i] == books[j] and abs(int(i) - int(j)) == 1
    assert crossings > 0  # the check saw batches that straddle two books


def test_training_lowers_the_loss_and_the_encoders_postprocess(tmp_path, books):
    corpus, vocab, vectors, tokenized = small_setup(books)
    settings = preset("consensus", "smoke", dim=8, batch_size=9, max_steps=60, eval_steps=30, lr=1e-2)
    calls = []
    fitted = fit(OBJECTIVE, "MV", settings, TrainingData(tokenized, vocab, vectors), progress=False,
                           evaluate=lambda f, step: calls.append((f.module.training, step))
                           or {"tau": float(f.module.temperature.tau)})
    model, log = fitted.module, fitted.log
    assert log.losses[-1]["loss"] < 0.7 * log.losses[0]["loss"]
    assert [e["step"] for e in log.evals] == [30, 60] and calls == [(False, 30), (False, 60)]
    caches = {}
    unsup = fitted.encoder.encoders("unsupervised", caches=caches)
    sup = fitted.encoder.encoders("supervised", caches=caches)
    sentences = corpus.sentences[:12]
    x = unsup["f"].encode(sentences)
    assert x.shape == (12, 8) and np.allclose(np.linalg.norm(x, axis=1), 1, atol=1e-5)
    assert sup["f"].encode(sentences).shape == (12, 32) and sup["g"].encode(sentences).shape == (12, 24)
    assert sup["ensemble"].encode(sentences).shape == (12, 56)
    np.testing.assert_allclose(unsup["ensemble"].encode(sentences), (x + unsup["g"].encode(sentences)) / 2, atol=1e-6)
    assert len(caches["f"]) == 12  # each sentence was run through f once for both rules
    # the unsupervised f vector is avg(H), without the top component of the set, normalised
    raw = ViewEncoder(model.views["f"], "f", vocab, "raw", postprocess=False).encode(sentences)
    u = top_component(torch.from_numpy(raw))
    expected = F.normalize(torch.from_numpy(raw) - (torch.from_numpy(raw) @ u)[:, None] * u, dim=1).numpy()
    np.testing.assert_allclose(x, expected, atol=1e-5)
    # the bundle: python -m reproducer evaluate --encoder path [--pooling] [--view]
    from reproducer.encoders.bundles import load_encoder

    np.testing.assert_allclose(fitted.encoder.encode(sentences), unsup["ensemble"].encode(sentences), atol=1e-6)
    path = tmp_path / "MV.encoder.pt"
    fitted.encoder.save(path)
    np.testing.assert_allclose(load_encoder(path, view="f").encode(sentences), x, atol=1e-6)
    np.testing.assert_allclose(load_encoder(path, pooling="supervised").encode(sentences),
                               sup["ensemble"].encode(sentences), atol=1e-6)
    with pytest.raises(ReproducerError, match="views"):
        load_encoder(path, view="f2")
    # view="all": the ViewSet itself, what a chapter reads its rows from in a later kernel (no checkpoint needed)
    views = load_encoder(path, view="all")
    assert sorted(views.views) == ["f", "g"]
    np.testing.assert_allclose(views.encoders("unsupervised")["f"].encode(sentences), x, atol=1e-6)


def test_a_later_kernel_reads_a_consensus_row_from_the_saved_views(tmp_path, monkeypatch, books):
    """A notebook executed again (a new kernel, the training checkpoint gone) encodes Table 3's rows from the saved
    bundle: the variant's ViewSet, never retraining it."""
    from reproducer.results_store import NotebookRun
    from reproducer.papers.consensus import chapter as mv

    monkeypatch.setenv("REPRODUCER_RESULTS_DIR", str(tmp_path / "results"))
    corpus, vocab, vectors, tokenized = small_setup(books)
    settings = preset("consensus", "smoke", dim=8, batch_size=9, max_steps=5)
    fitted = fit(OBJECTIVE, "MV", settings, TrainingData(tokenized, vocab, vectors), progress=False)
    run = NotebookRun("04_consensus", "smoke")
    fitted.encoder.save(run.bundle_path("MV"))
    groups = {"U": ["STS14"], "S": [], "B": [], "M": []}
    models = mv.ConsensusModels(NotebookRun("04_consensus", "smoke"), settings, groups=groups, progress=False)
    models.fit = lambda *a, **k: pytest.fail("the saved views must be used, not retrained")
    sentences = corpus.sentences[:6]
    expected = fitted.encoder.encoders("unsupervised")
    np.testing.assert_allclose(models.trained("MV f").encode(sentences), expected["f"].encode(sentences), atol=1e-6)
    np.testing.assert_allclose(models.trained("MV ensemble").encode(sentences),
                               expected["ensemble"].encode(sentences), atol=1e-6)


def test_unknown_variant_and_mismatched_vectors_are_refused(books):
    corpus, vocab, vectors, tokenized = small_setup(books)
    settings = preset("consensus", "smoke", dim=8, batch_size=9, max_steps=1)
    with pytest.raises(ReproducerError, match="Unknown consensus variant"):
        fit(OBJECTIVE, "tri-view", settings, TrainingData(tokenized, vocab, vectors), progress=False)
    with pytest.raises(ReproducerError, match="word vectors for a vocabulary"):
        fit(OBJECTIVE, "MV", settings, TrainingData(tokenized, vocab, vectors[:-1]), progress=False)
    assert Vocabulary(list(SPECIALS)).pad_id == 0


def test_the_command_line_evaluates_a_bundle_with_either_pooling(tmp_path, books, capsys):
    import json

    from reproducer.__main__ import main as cli

    corpus, vocab, vectors, tokenized = small_setup(books)
    fitted = fit(OBJECTIVE, "MV", preset("consensus", "smoke", dim=8, batch_size=9, max_steps=2),
                           TrainingData(tokenized, vocab, vectors), progress=False)
    path = tmp_path / "MV.encoder.pt"
    fitted.encoder.save(path)
    out = tmp_path / "out.json"
    assert cli(["evaluate", "--encoder", str(path), "--pooling", "supervised", "--view", "g", "--tasks", "SICK-cos",
                "--device", "cpu", "--quiet", "--json", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["encoder"] == "MV.g" and set(record["results"]) == {"SICK-cos"}
    assert cli(["evaluate", "--encoder", str(path), "--expand", "word2vec", "--tasks", "SICK-cos", "--quiet"]) == 2
    assert "needs no --expand" in capsys.readouterr().err

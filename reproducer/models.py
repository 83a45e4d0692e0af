"""Every model of the book, as data: the one place to find "all models" and what each one is.

- :data:`PAPERS`: the five papers (key as in ``report/published.csv`` → citation).
- :data:`FAMILIES`: one entry per training objective — its paper, chapter, objective module, preset table and fit
  function; ``training_data(variant, preset)`` builds what it trains on as its chapter does, ``batch_flops`` counts
  a batch's useful FLOPs (``python -m reproducer train`` and ``bench train`` use both). Every family's ``fit(variant, preset, data, *, checkpoint, evaluate, seed, device, progress)`` returns a
  :class:`~reproducer.train.Fitted` (test-time encoder, trained module, log); its presets subclass
  :class:`~reproducer.presets.Preset`.
- :data:`MODELS`: one entry per model a chapter reports — our name, family and variant (or ``"baseline"``), chapter,
  paper, the bundle kind its saved encoder has (:mod:`reproducer.encoders.bundles`), and its row names in the
  published tables (:func:`reproducer.report.published.published`).

A sixth paper adds its objective module (loss, model, ``PRESETS``, ``fit``), one :class:`Family`, its
:class:`Model` rows, its notebook and its published numbers.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from reproducer.errors import ReproducerError

PAPERS: dict[str, str] = {
    "kiros2015": "Kiros et al. 2015", "logeswaran2018": "Logeswaran & Lee 2018", "wieting2016": "Wieting et al. 2016",
    "tang2019": "Tang & de Sa 2019", "zhang2018": "Zhang et al. 2018",
}
#: Short labels of the papers in tables (first author and year).
PAPER_LABELS: dict[str, str] = {"kiros2015": "Kiros 2015", "logeswaran2018": "Logeswaran 2018",
                                "wieting2016": "Wieting 2016", "tang2019": "Tang 2019", "zhang2018": "Zhang 2018"}


@dataclass(frozen=True)
class Family:
    """A training objective: where its code is and what it is called."""

    name: str
    paper: str  # key of PAPERS
    chapter: str  # the notebook that trains it
    module: str  # the objective module: the paper's loss, model, PRESETS and fit
    fit_function: str

    def _module(self):
        return importlib.import_module(self.module)

    @property
    def presets(self) -> dict:
        """Scale name → preset (``smoke``, ``default``, ``paper``)."""
        return self._module().PRESETS

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(self._module().VARIANTS)

    def training_data(self, variant: str, preset):
        """What ``variant`` trains on at ``preset``, built as its chapter builds it: a
        :class:`~reproducer.data.training_data.TrainingData`."""
        return self._module().training_data(variant, preset)

    def held_out_batches(self, variant: str, preset, data, n: int = 16) -> list:
        """``n`` fixed batches of the held-out books, built as ``variant`` trains at ``preset`` on ``data`` (its
        training vocabulary): the held-out loss of a training curve
        (:func:`reproducer.evaluate.training_curve.held_out_loss`). Not for the paraphrastic family (pairs, no books)."""
        module = self._module()
        if not hasattr(module, "held_out_data"):
            raise ReproducerError(f"The {self.name} family has no held-out books; use a downstream dev score.")
        sampler = module.sampler(variant, preset, module.held_out_data(variant, preset, data), seed=0)
        return [sampler.batch(i) for i in range(n)]

    def batch_flops(self, module, batch) -> float:
        """Useful training FLOPs of one batch of the family's ``module`` (formula in the objective module)."""
        return self._module().batch_flops(module, batch)

    def fit(self, variant: str, preset, data, **options):
        """Train ``variant`` under ``preset`` on a :class:`~reproducer.data.training_data.TrainingData`; a
        :class:`~reproducer.train.Fitted`."""
        return getattr(self._module(), self.fit_function)(variant, preset, data, **options)


FAMILIES: dict[str, Family] = {f.name: f for f in [
    Family("skip-thought", "kiros2015", "01_skip_thoughts", "reproducer.objectives.skip_thought", "fit_skip_thought"),
    Family("quick-thought", "logeswaran2018", "02_quick_thoughts", "reproducer.objectives.quick_thought",
           "fit_quick_thought"),
    Family("paraphrastic", "wieting2016", "03_paraphrastic", "reproducer.objectives.paraphrase", "fit_paraphrastic"),
    Family("consensus", "tang2019", "04_consensus", "reproducer.objectives.consensus", "fit_consensus"),
    Family("autoencoder", "zhang2018", "05_mean_max_aae", "reproducer.objectives.autoencoder", "fit_autoencoder"),
]}


@dataclass(frozen=True)
class Model:
    """One model a chapter reports. ``variant``: the family's variant (``None`` for a combination of other models or a
    baseline); ``parts``: the models a combination concatenates; ``bundle``: the encoder kind of its saved bundle;
    ``published``: its row names in the published tables (any paper)."""

    name: str
    family: str  # a key of FAMILIES, or "baseline"
    chapter: str
    variant: str | None = None
    parts: tuple[str, ...] = ()
    bundle: str = "TokenEncoder"
    published: tuple[str, ...] = ()
    overrides: dict = field(default_factory=dict, hash=False)  # preset fields that differ from the chapter's
    description: str = ""

    @property
    def paper(self) -> str | None:
        return FAMILIES[self.family].paper if self.family in FAMILIES else None


def _family_models(family: str, rows: list[tuple]) -> list[Model]:
    chapter = FAMILIES[family].chapter
    return [Model(name, family, chapter, variant, bundle=bundle, published=tuple(published), description=description)
            for name, variant, bundle, published, description in rows]


MODELS: dict[str, Model] = {m.name: m for m in [
    # untrained baselines (chapter 00b); encoders built by reproducer.encoders.baselines
    Model("glove-bow", "baseline", "00b_baselines", published=("GloVe BoW", "GloVe BOW"),
          description="mean of GloVe 6B 50d vectors"),
    Model("sif-glove", "baseline", "00b_baselines", published=("SIF (GloVe + WR)",),
          description="SIF weighting of GloVe 6B 50d, first component removed"),
    Model("word2vec-bow", "baseline", "00b_baselines", published=("word2vec BOW",),
          description="mean of our Gutenberg word2vec 300d vectors"),
    Model("minilm", "baseline", "00b_baselines", description="all-MiniLM-L6-v2 (a modern reference)"),
    Model("random-4800", "baseline", "00b_baselines", description="4,800-d random projection of hashed words"),
    *_family_models("skip-thought", [
        ("uni-skip", "uni-skip", "TokenEncoder", ("uni-skip",), "GRU encoder, two conditional GRU decoders"),
        ("bi-skip", "bi-skip", "TokenEncoder", ("bi-skip",), "bidirectional GRU encoder"),
    ]),
    Model("combine-skip", "skip-thought", "01_skip_thoughts", parts=("uni-skip", "bi-skip"), bundle="ConcatEncoder",
          published=("combine-skip",), description="[uni-skip; bi-skip], vocabulary expanded"),
    *_family_models("quick-thought", [
        ("uni-QT", "uni-QT", "ConcatEncoder", ("uni-QT",), "[f; g], two GRUs (Tang & de Sa's QT RNN is combine-QT)"),
        ("bi-QT", "bi-QT", "ConcatEncoder", ("bi-QT",), "[f; g], two bidirectional GRUs"),
        ("BoW-QT", "BoW-QT", "ConcatEncoder", (), "[f; g], two word averages (the paper: QT (BoW))"),
        ("MC-QT", "MC-QT", "ConcatEncoder", ("MC-QT",), "[f; g], two-channel bidirectional GRUs"),
    ]),
    Model("combine-QT", "quick-thought", "02_quick_thoughts", parts=("uni-QT", "bi-QT"), bundle="ConcatEncoder",
          published=("combine-QT",), description="[uni-QT; bi-QT]"),
    *_family_models("paraphrastic", [
        ("PP", "PP", "TokenEncoder", ("paragram-phrase",), "word averaging (paragram-phrase)"),
        ("proj", "proj", "TokenEncoder", ("projection",), "averaging, then a linear projection"),
        ("DAN", "DAN", "TokenEncoder", ("DAN",), "deep averaging network"),
        ("RNN", "RNN", "TokenEncoder", ("RNN",), "Elman RNN"),
        ("iRNN", "iRNN", "TokenEncoder", ("iRNN",), "identity-initialised RNN"),
        ("LSTM (no o.g.)", "LSTM (no o.g.)", "TokenEncoder", ("LSTM (no o.g.)",), "LSTM without output gate"),
        ("LSTM (o.g.)", "LSTM (o.g.)", "TokenEncoder", ("LSTM (o.g.)",), "LSTM with output gate"),
    ]),
    *_family_models("consensus", [
        (v, v, "ViewSet", tuple(f"{v} {view}" for view in views), description)
        for v, views, description in [
            ("MV", ("f", "g", "ensemble"), "multi-view f-g (Eq. 1)"),
            ("MV-ff", ("f1", "ensemble"), "multi-view f1-f2 (Eq. 3)"),
            ("MV-gg", ("g1", "ensemble"), "multi-view g1-g2 (Eq. 4)"),
            ("SV-f", ("f",), "single-view f (Eq. 5)"),
            ("SV-g", ("g",), "single-view g (Eq. 5)"),
            ("MV+SV", ("f", "g", "ensemble"), "multi-view + single-view (Eq. 7)"),
            ("skip", ("f", "g", "ensemble"), "skip connection f + g (Eq. 6)"),
        ]
    ]),
    *_family_models("autoencoder", [
        (v, v, "TokenEncoder", (v,), description) for v, description in [
            ("mean-max AAE", "self-attention encoder, mean-max pooling and attention"),
            ("mean AAE", "mean pooling only"), ("max AAE", "max pooling only"),
            ("mean-max RAE", "BiLSTM encoder, LSTM decoder, mean-max"), ("mean RAE", "RAE, mean pooling"),
            ("max RAE", "RAE, max pooling"),
        ]
    ]),
]}


def family(name: str) -> Family:
    """The family called ``name``; a clear error naming the known ones otherwise."""
    if name not in FAMILIES:
        raise ReproducerError(f"Unknown model family {name!r}; choose one of {', '.join(FAMILIES)}.")
    return FAMILIES[name]


def model(name: str) -> Model:
    """The model called ``name``; a clear error naming the known ones otherwise."""
    if name not in MODELS:
        raise ReproducerError(f"Unknown model {name!r}; the book's models: {', '.join(MODELS)}.")
    return MODELS[name]


def models(chapter: str | None = None, family: str | None = None) -> list[Model]:
    """The models of a chapter and/or family, in the book's order."""
    return [m for m in MODELS.values() if (chapter is None or m.chapter == chapter)
            and (family is None or m.family == family)]


def published_names(name: str) -> list[str]:
    """The rows of published tables that report the method of our model ``name`` (itself when none is listed)."""
    found = MODELS.get(name)
    return list(found.published) if found and found.published else [name]


def table() -> "pd.DataFrame":  # noqa: F821
    """Every model as a row: name, family, paper, chapter, variant, bundle kind, published names, description."""
    import pandas as pd

    return pd.DataFrame([{"model": m.name, "family": m.family, "paper": PAPERS.get(m.paper, ""), "chapter": m.chapter,
                          "variant": m.variant or " + ".join(m.parts), "bundle": m.bundle,
                          "published as": ", ".join(m.published), "description": m.description}
                         for m in MODELS.values()])

"""What the book's shared code knows of a paper: the shape of its declaration (:class:`Paper`, with its
:class:`Family` objects, :class:`Model` rows and equal-compute :class:`Line` s), written once in each paper's
``reproducer/papers/<paper>/__init__.py`` as ``PAPER = Paper(...)``.

Plain data, low in the library: the reporting and the untrained twins read a declaration handed to them; the
registry that finds every declaration (:mod:`reproducer.papers.registry`) sits with the papers, above them.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable

from reproducer.errors import ReproducerError

if TYPE_CHECKING:  # the declarations are read without torch: the objectives are imported on first use
    from reproducer.fit import Objective


@dataclass(frozen=True)
class Family:
    """A training objective of a paper, registered by its name: ``objective`` returns the paper's
    :class:`~reproducer.fit.Objective` (a function of the declaration that imports it on first use, so that the
    registry is read without importing torch: the command line starts without it). ``paper`` and ``chapter`` are
    filled in by the :class:`Paper` that declares it."""

    name: str
    objective: Callable[[], "Objective"] = field(hash=False, compare=False)
    paper: str = ""  # key of the declaring Paper
    chapter: str = ""  # the notebook that trains it

    @property
    def presets(self) -> dict:
        """Scale name → preset (``smoke``, ``quick``, ``default``, ``paper``)."""
        return self.objective().presets

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(self.objective().variants)

    @property
    def fit_options(self) -> dict:
        """The keyword arguments its chapter trains with beyond the preset (e.g. the autoencoders' test-time
        ``normalize_halves``)."""
        return dict(self.objective().fit_options)

    def training_data(self, variant: str, preset):
        """What ``variant`` trains on at ``preset``, built as its chapter builds it: a
        :class:`~reproducer.data.training_data.TrainingData`."""
        return self.objective().training_data(variant, preset)

    def held_out_batches(self, variant: str, preset, data, n: int = 16) -> list:
        """``n`` fixed batches of the held-out books, built as ``variant`` trains at ``preset`` on ``data`` (its
        training vocabulary): the held-out loss of a training curve
        (:func:`reproducer.evaluate.training_curve.held_out_loss`). Not for the paraphrastic family (pairs, no books)."""
        objective = self.objective()
        sampler = objective.sampler(variant, preset, objective.held_out_data(variant, preset, data), seed=0)
        return [sampler.batch(i) for i in range(n)]

    def batch_flops(self, module, batch) -> float:
        """Useful training FLOPs of one batch of the family's ``module`` (formula in the objective module)."""
        return self.objective().batch_flops(module, batch)

    def fit(self, variant: str, preset, data, **options):
        """Train ``variant`` under ``preset`` on a :class:`~reproducer.data.training_data.TrainingData` through the
        one training route (:func:`reproducer.fit.fit`); a :class:`~reproducer.fit.Fitted`."""
        from reproducer.fit import fit

        return fit(self.objective(), variant, preset, data, **options)

    def untrained(self, variant: str, preset, data, *, seed: int = 0, device=None):
        """``variant`` as :meth:`fit` builds it under ``preset`` on ``data`` with ``seed``, before its first step (the
        same initial weights as the trained run of that seed): a :class:`~reproducer.fit.Fitted` with a 0-step log."""
        from reproducer.fit import at_initialisation

        with at_initialisation():
            return self.fit(variant, preset, data, seed=seed, device=device, progress=False, **self.fit_options)


@dataclass(frozen=True)
class Model:
    """One model a chapter reports. ``variant``: the family's variant (``None`` for a combination of other models or a
    baseline); ``parts``: the models a combination concatenates; ``bundle``: the encoder kind of its saved bundle;
    ``published``: its row names in the published tables (any paper); ``scored_as``: where chapter 06 finds its
    scores on the transfer tasks — ``(result row, part, published row)`` when its chapter stores them under another
    row (chapter 04's MV is scored as its ``MV ensemble`` row's ``transfer`` part), ``None`` for its own
    ``eval_<name>.json``; ``scored=False`` when its chapter does not score it on the tasks."""

    name: str
    family: str  # a family name, or "baseline"
    chapter: str = ""
    variant: str | None = None
    parts: tuple[str, ...] = ()
    bundle: str = "TokenEncoder"
    published: tuple[str, ...] = ()
    #: preset name → the model's number of training steps at that preset, where it is not the preset's ``max_steps``
    #: (chapter 02 trains bi-QT, MC-QT and BoW-QT for other numbers of steps than uni-QT). The one place a model's
    #: budget is declared: its chapter and ``python -m reproducer train`` read it (:meth:`budgeted`).
    budgets: dict = field(default_factory=dict, hash=False)
    description: str = ""
    scored_as: tuple[str, str, str] | None = None
    scored: bool = True
    paper: str | None = None  # key of the declaring Paper (None for a baseline)

    def budgeted(self, settings):
        """``settings`` (a preset of the model's family) with this model's budget at that preset: its own number of
        steps (:attr:`budgets`), else the preset's. What its chapter trains, and ``python -m reproducer train``
        with it."""
        return settings.with_overrides(max_steps=self.budgets.get(settings.name))


@dataclass(frozen=True)
class Line:
    """One line of chapter 06's equal-compute study: ``family``'s ``variant`` under ``label``; ``on_pairs`` for an
    objective that trains on paraphrase pairs rather than the books (drawn dashed, apart); ``inputs``: its word
    vectors, ``"learned"`` from the text, ``"fixed"`` (our word2vec, never updated) or ``"initialised"`` (starting
    from our word2vec); ``steps_per_second``: its training steps per second at ``default`` sizes on a calm 2-core CPU
    (``bench train``, the median of repeated runs): what turns the study's equal time into this line's number of
    steps, the same on every machine."""

    label: str
    family: str
    variant: str
    steps_per_second: float
    on_pairs: bool = False
    inputs: str = "learned"

    def __post_init__(self):
        if self.inputs not in INPUTS:
            raise ValueError(f"Line {self.label!r}: inputs must be one of {', '.join(INPUTS)}, got {self.inputs!r}")
        if not self.steps_per_second > 0:
            raise ValueError(f"Line {self.label!r}: steps_per_second must be above 0, got {self.steps_per_second!r}")


#: What a :class:`Line` does with word vectors.
INPUTS = ("learned", "fixed", "initialised")


@dataclass(frozen=True)
class Paper:
    """A paper of the book, declared once in its package's ``__init__.py`` as ``PAPER = Paper(...)``.

    - ``key``: its key in ``report/published.csv`` (e.g. ``"logeswaran2018"``); ``citation`` (``"Logeswaran & Lee
      2018"``), ``label`` (short, for tables: ``"Logeswaran 2018"``), ``title``; ``chapter``: its notebook's name.
    - ``families``, ``models``: its training objectives and the models its chapter reports, in the chapter's order.
    - ``neighbours``: the encoder chapter 06's explorer shows for it (``None``: none on the shared pool).
    - ``lines``: its lines of the equal-compute study; ``bench``: label → (family, variant) timed by ``bench train``.
    - ``reads``: the earlier chapters whose results its chapter reads (through
      :meth:`~reproducer.results_store.NotebookRun.earlier`, e.g. chapter 01's combine-skip beside its own models): run
      before it, and checked against its code by ``tests/test_papers.py``.
    - ``tasks``: the evaluation tasks it reports; ``timings``: chapter 06's hardware rows, a function
      ``timings(folder, hardware) -> list[dict]`` of its chapter's results ``folder`` at one preset (a function of the
      declaration that imports its chapter on first use, as :attr:`Family.objective` does).
    """

    key: str
    citation: str
    label: str
    title: str
    chapter: str
    families: tuple[Family, ...] = ()
    models: tuple[Model, ...] = ()
    neighbours: str | None = None
    lines: tuple[Line, ...] = ()
    bench: dict = field(default_factory=dict, hash=False, compare=False)
    tasks: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    timings: Callable[..., list[dict]] | None = field(default=None, hash=False, compare=False)

    def __post_init__(self):
        fill = {"paper": self.key, "chapter": self.chapter}
        object.__setattr__(self, "families", tuple(replace(f, **fill) for f in self.families))
        object.__setattr__(self, "models", tuple(replace(m, **fill) for m in self.models))

    def timing_rows(self, folder, hardware: str) -> list[dict]:
        """Chapter 06's hardware rows for this paper from its chapter's results ``folder`` (none without
        ``timings``)."""
        return self.timings(folder, hardware) if self.timings else []

    def model(self, name: str) -> "Model":
        """The model ``name`` this paper declares; a clear error naming its models otherwise."""
        found = {m.name: m for m in self.models}
        if name not in found:
            raise ReproducerError(f"{self.citation} declares no model {name!r}; its models: {', '.join(found)}.")
        return found[name]

    def family(self, name: str) -> "Family":
        """The family ``name`` this paper declares; a clear error naming its families otherwise."""
        found = {f.name: f for f in self.families}
        if name not in found:
            raise ReproducerError(f"{self.citation} declares no family {name!r}; its families: {', '.join(found)}.")
        return found[name]


def family_models(rows: list[tuple], family: str, bundle: str = "TokenEncoder") -> tuple[Model, ...]:
    """Models of ``family`` from ``(name, published names, description)`` rows, each its own variant."""
    return tuple(Model(name, family, variant=name, bundle=bundle, published=tuple(published), description=description)
                 for name, published, description in rows)

"""The models of the multi-view study (Tang & de Sa 2019, chapter 04) as units: :class:`ConsensusModels` trains
each variant (resuming its checkpoint), scores its views' rows of Table 3 (:mod:`reproducer.evaluate.views`), and
caches what the chapter shows of it; the constants name the rows the claims and the explorer read. Its tables are
:mod:`~reproducer.papers.consensus.tables`, its claims :mod:`~reproducer.papers.consensus.claims`.
"""
from __future__ import annotations

import functools


from reproducer.data.fixed_vectors import FixedVectorData
from reproducer.evaluate.harness import Results
from reproducer.evaluate.training_curve import combined, held_out_loss
from reproducer.evaluate.views import ROWS, ProjectionSnapshots, RowEncoders, curve_callback
from reproducer.papers.registry import family
from reproducer.results_store import slug
from reproducer.report.claims import Evidence, untrained
from reproducer.report.units import ChapterModels, again_run, eval_key, half_run
from reproducer.runtime import default_device
from reproducer.papers.consensus.tables import CURVES, PAPER, T6, TRANSFER_ROW

#: The variants in training order (SV-g before SV-f: the SV ensemble's curve borrows SV g at the same step); the three
#: trained again under the other reading of Eq. 1; those trained with several seeds for the claims.
ORDER = ("MV", "SV-g", "SV-f", "MV-ff", "MV-gg", "MV+SV", "skip")
READING = ("MV", "SV-f", "SV-g")
SEED_MODELS = ORDER  # every variant: each is read by a claim
#: The rows of Table 3 the claims compare (the seeds' runs evaluate only these).
CLAIM_ROWS = ("MV f", "MV g", "MV ensemble", "SV-f f", "SV-g g", "ens(SV-f f, SV-g g)", "MV-ff f1", "MV-gg g1",
              "MV-ff ensemble", "MV-gg ensemble", "ens(MV-ff f1, MV-gg g1)", "MV+SV ensemble", "skip f", "skip g",
              "skip ensemble")
#: The neighbour table's encoders: Table 3 rows (unsupervised pooling) and the plain average of the fixed vectors.
NEIGHBOURS = ("MV ensemble", "ens(SV-f f, SV-g g)", "word2vec avg")
#: Table 4's baselines on our vectors: name -> how to build it from the chapter's data.
BASELINE_NAMES = ("word2vec avg (ours)", "word2vec SIF (ours)", "GloVe-50d avg (ours)", "GloVe-50d SIF (ours)")
#: The Table 3 rows whose untrained twins every seed scores (issue 44): MV's main row (Table 6's, chapter 06's MV).
TWIN_ROWS = (TRANSFER_ROW,)
#: Their twins' rows (:func:`~reproducer.report.claims.untrained` of the row: ``"MV ensemble (untrained)"``): the same
#: views of each variant's twin (``"MV (untrained)"``: :meth:`ConsensusModels.twin_views`).
TWINS_OF_ROWS = {untrained(row): [(untrained(v), view) for v, view in ROWS[row]] for row in TWIN_ROWS}


def baseline_key(name: str) -> str:
    """The file name (without ``.json``) of Table 4's baseline ``name`` scored on U (:meth:`ConsensusModels.baselines`)."""
    return f"eval_baseline_{slug(name.split(' (')[0])}"


class ConsensusModels(ChapterModels):
    """Chapter 04's variants by name, as units: each trained (or reloaded) at the preset ``settings`` with its held-out
    loss (and, for Figure 1's runs, U of each view) at the preset's evaluation points; Table 3's rows
    (:data:`~reproducer.evaluate.views.ROWS`) scored on the task ``groups`` as soon as their variants are trained;
    :meth:`unit` trains a variant and caches everything the chapter shows of it."""

    family = "consensus"
    paper = PAPER
    EXTRA_TASKS = ()
    SEARCH = ("MV ensemble",)

    def __init__(self, run, settings, *, groups: dict[str, list[str]], seed: int = 0, progress: bool = True,
                 pool_size: int = 20000, n_queries: int = 8):
        tasks = [t for g in ("U", "S", "B", "M") for t in groups[g]]
        super().__init__(run, settings, tasks=tasks, seed=seed, progress=progress, pool_size=pool_size,
                         n_queries=n_queries)
        self.groups = groups
        self.snapshots = ProjectionSnapshots(run.path("checkpoints/SV-g.snapshots.pt"))
        self.rows = RowEncoders(self.viewset, {**ROWS, **TWINS_OF_ROWS})
        self._twin_views: dict = {}
        self.other = settings.with_overrides(self_pairs=not settings.self_pairs)

    def sibling(self, run, settings, seed: int) -> "ConsensusModels":
        return ConsensusModels(run, settings, groups=self.groups, seed=seed, progress=self.progress,
                               pool_size=self.pool_size, n_queries=self.n_queries)

    @functools.cached_property
    def data(self):
        """The fixed word vectors and the corpus as their ids (a
        :class:`~reproducer.data.fixed_vectors.FixedVectorData`, loaded on first use)."""
        return FixedVectorData(self.corpus_config, self.settings.word2vec_dim)

    def twin_inputs(self, name: str) -> tuple:
        """Every variant trains at the chapter's settings on :attr:`data`'s training data."""
        return self.settings, self.data.training_data()

    def settings_record(self) -> dict:
        return {"consensus": self.settings.to_dict(), "seed": self.seed, "device": str(default_device()),
                **self.groups}

    def fit(self, name: str, variant: str | None = None, config=None):
        """The :class:`~reproducer.fit.Fitted` variant ``name`` (``variant`` and ``config``: another reading's
        runs), trained or reloaded by ``run.model``, with its held-out loss and, for :data:`CURVES`, Figure 1's U."""
        config = config or self.settings
        variant = variant or name

        def train(state):
            data = self.data.training_data()
            curve = (curve_callback(name, self.snapshots, self.data.table, self.data.vocab, config.dim)
                     if name in CURVES else None)
            held = held_out_loss(family(self.family).held_out_batches(variant, config, data))
            return family(self.family).fit(variant, config, data, checkpoint=state, evaluate=combined(curve, held),
                                           seed=self.seed, progress=self.progress)

        return self.run.model(name, train)

    TRAINS_TO_HALF = TRAINS_AGAIN = True

    def train_to_half(self, name: str):
        """Issue 70: variant ``name``'s views trained again for half the step budget, as a run of its own
        (:func:`~reproducer.report.units.half_run`, :meth:`fit` of the variant at :meth:`half_settings`, without
        Figure 1's curve): a seed whose half-budget views were not saved (checkpoints are not committed) is read at
        half its budget all the same."""
        return self.fit(half_run(name), name, self.half_settings()).encoder

    def train_again(self, name: str):
        """Issue 69 item 8: variant ``name``'s views trained again for the whole step budget, as a run of its own
        (:func:`~reproducer.report.units.again_run`, :meth:`fit` without Figure 1's curve): the views of the MV ensemble
        in the searchable explorer where their checkpoints are gone."""
        return self.fit(again_run(name), name, self.settings).encoder

    def record(self, name: str) -> dict:
        """Variant ``name``'s training log and learned τ: ``<name>_training.json`` if cached."""
        return self.run.training_record(name, lambda: {
            **self.fit(name).log.to_dict(), "tau": float(self.fit(name).module.temperature.tau.detach())})

    def viewset(self, name: str):
        """Variant ``name``'s trained views (a :class:`~reproducer.encoders.multiview.ViewSet`): this kernel's, its
        saved bundle, else :meth:`fit`'s; for ``"<variant> (untrained)"``, that variant's views at initialisation
        (:meth:`twin_views`)."""
        twin = next((v for v in ORDER if untrained(v) == name), None)
        if twin:
            return self.twin_views(twin)
        return self.saved(name, self.fit, view="all")

    def twin_views(self, variant: str):
        """Variant ``variant``'s views at initialisation (:func:`~reproducer.untrained_twins.untrained_twin` from this
        chapter's settings and data, :meth:`twin_inputs`, with this seed): what :meth:`fit` starts from, the same
        fixed word2vec inputs; built once per unit."""
        from reproducer.untrained_twins import untrained_twin

        if variant not in self._twin_views:
            self._twin_views[variant] = untrained_twin(variant, *self.twin_inputs(variant), paper=self.paper,
                                                          seed=self.seed)
        return self._twin_views[variant]

    def trained(self, name: str):
        """The unsupervised encoder of a Table 3 row, or the average of the fixed word vectors (``word2vec avg``)."""
        if name == "word2vec avg":
            from reproducer.encoders.bow import word_average_encoder

            return word_average_encoder(self.data.vectors)
        return self.rows.encoder(name, "unsupervised")

    def at_half(self) -> "ConsensusModels":
        """These models at half their step budget (:meth:`~reproducer.report.units.ChapterModels.at_half`), Table 3's
        rows over the variants' half-budget views (their own pooled-vector caches); rows stored as
        ``eval_<row>_half.json``."""
        view = super().at_half()
        view.rows = RowEncoders(view.viewset, {**ROWS, **TWINS_OF_ROWS})
        return view

    def row_file(self, row: str) -> str:
        """The file of row ``row``'s scores (:meth:`row`): ``eval_<row>.json``, ``eval_<row>_half.json`` at half the
        budget."""
        return f"eval_{row.replace(' ', '_')}{self.products.suffix}.json"

    def row(self, row: str) -> dict:
        """Row ``row`` of Table 3 scored on the groups at the preset's ``rows_config``, and for
        :data:`TRANSFER_ROW` on Table 6's tasks at its ``eval_config``
        (:meth:`~reproducer.evaluate.views.RowEncoders.evaluate`, per-item outcomes kept): :meth:`row_file` if
        cached."""
        return self.run.json(self.row_file(row).removesuffix(".json"), lambda: self.rows.evaluate(
            row, self.groups, self.settings.rows_config, T6 if row == TRANSFER_ROW else (),
            self.settings.eval_config))

    def twin_row(self, row: str = TRANSFER_ROW) -> dict:
        """The untrained twin of row ``row`` of :data:`TWIN_ROWS` (issue 44): the same views of the same variant with
        this seed's initial weights (:data:`TWINS_OF_ROWS`), scored as :meth:`row` scores the row on the groups at the
        preset's ``rows_config`` (not on Table 6's tasks: at ``paper`` that is another 9 minutes of a 2,100-d
        encoder): ``eval_<row>_untrained.json`` if cached."""
        return self.run.json(eval_key(untrained(row)), lambda: self.rows.evaluate(
            untrained(row), self.groups, self.settings.rows_config))

    def reading(self) -> dict:
        """U of MV, SV-f and SV-g trained under the other reading of Eq. 1: ``other_reading.json``."""
        from reproducer.evaluate.views import reading_scores

        return self.run.json("other_reading", lambda: reading_scores(
            *(self.fit(f"{name} (other reading)", name, self.other).encoder for name in READING)))

    def baselines(self) -> dict[str, dict]:
        """Table 4's baselines on our vectors scored on U (:data:`BASELINE_NAMES`; in a
        :meth:`~reproducer.report.units.ChapterModels.stored_at` view those stored only)."""
        from reproducer.encoders.baselines import load_baseline
        from reproducer.encoders.bow import sif_encoder, word_average_encoder
        from reproducer.evaluate import evaluate, quick_look

        make = {"word2vec avg (ours)": lambda: word_average_encoder(self.data.vectors),
                "word2vec SIF (ours)": lambda: sif_encoder(self.data.vectors, self.data.counts),
                "GloVe-50d avg (ours)": lambda: load_baseline("glove-bow"),
                "GloVe-50d SIF (ours)": lambda: load_baseline("sif-glove")}
        names = [n for n in BASELINE_NAMES if not self.stored_only or self.run.reusable(f"{baseline_key(n)}.json")]
        return {name: self.run.json(baseline_key(name), lambda m=make[name]: evaluate(
            m(), self.groups["U"], quick_look(self.settings.eval_config), progress=False).to_json())
            for name in names}

    def unit(self, name: str, rows=None, neighbours: bool = True) -> None:
        """Everything the chapter shows of variant ``name`` (a variant of :data:`ORDER`, ``"reading"`` for the three
        runs of the other reading, ``"baselines"`` for Table 4's), computed right after it trains and cached: its
        training record; every row of ``rows`` (by default all of Table 3) whose variants are now all trained, and the
        untrained twin of each of them in :data:`TWIN_ROWS` (:meth:`twin_row`, every seed); with ``neighbours`` the
        neighbour tables it completes (the MV ensemble's also of every pool sentence: :meth:`search`)."""
        if name == "reading":
            self.reading()
            return
        if name == "baselines":
            self.baselines()
            if neighbours:
                self.products.neighbours("word2vec avg")
            return
        self.record(name)
        done = set(ORDER[:ORDER.index(name) + 1])
        for row, parts in ROWS.items():
            variants = {v for v, _ in parts}
            if (rows is None or row in rows) and name in variants and variants <= done:
                self.row(row)
                if row in TWIN_ROWS:
                    self.twin_row(row)
                if neighbours and row in NEIGHBOURS:
                    self.products.neighbours(row)
                if neighbours and row in self.SEARCH:  # the searchable explorer over the whole pool (issue 69)
                    self.search(row, tuple(sorted(variants)))
        self.halfway_rows(name, rows)
        self.rows.clear()
        self._twin_views.clear()

    def halfway_rows(self, name: str, rows=None) -> None:
        """Issue 70: the rows of ``rows`` (by default all of Table 3) that variant ``name`` completes, scored over the
        variants' views at half their step budget (:meth:`at_half`): those their runs saved halfway, or, where those
        are gone (checkpoints are not committed), the variants trained again to half the steps
        (:meth:`train_to_half`)."""
        half = self.at_half()
        done = set(ORDER[:ORDER.index(name) + 1])
        for row, parts in ROWS.items():
            variants = {v for v, _ in parts}
            if not ((rows is None or row in rows) and name in variants and variants <= done):
                continue
            if half.obtainable(half.row_file(row).removesuffix(".json"), sorted(variants),
                               "only training again makes them.", needs="the half-budget views of "):
                half.row(row)
        half.rows.clear()

    def evidence(self, baselines: bool = True, rows: tuple[str, ...] = CLAIM_ROWS, earlier: dict | None = None):
        """This seed's :class:`~reproducer.report.claims.Evidence`: each of ``rows``' unsupervised results as
        ``"<row> U"`` and supervised ones as ``"<row> S"``, those of :data:`TWIN_ROWS`' untrained twins (this seed's
        initialisation) as ``"<row> (untrained) U"`` and ``… S``, Table 4's baselines as ``"<name> U"``, and
        ``earlier``: other chapters' results of this seed by name (Table 5's Quick-Thoughts)."""
        results = dict(earlier or {})
        if self.half or self.stored_only:  # the rows stored at that budget only (claims read where all are)
            rows = tuple(r for r in rows if self.run.reusable(self.row_file(r)))
        twins = [row for row in rows if row in TWIN_ROWS and (
            not self.stored_only or self.run.reusable(f"{eval_key(untrained(row))}.json"))]
        records = {**{row: self.row(row) for row in rows}, **{untrained(row): self.twin_row(row) for row in twins}}
        for row, record in records.items():
            results[f"{row} U"] = Results.from_json(record["unsupervised"])
            results[f"{row} S"] = Results.from_json(record["supervised"])
        if baselines:  # untrained: the same at every budget (another run's view: those it stored)
            results.update({f"{n} U": Results.from_json(r) for n, r in self.baselines().items()})
        return Evidence(results, seed=self.seed)

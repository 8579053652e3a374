"""Cached core calls, keyed by content, never by a file name (safe for a hosted, shared app).

Heavy results (loaded data, draws) are cached with ``st.cache_resource``: the objects are
immutable (``Benchmark`` and ``Draws`` hold read-only arrays), so sharing them between sessions is
safe, and each key contains the data's content hash, so two users' uploads never collide. Cheap
summaries (a leaderboard at a new level) are recomputed from the cached draws on every rerun.

Memory (#19): every cache whose entry grows with the data (R, M, T, items, a grid, upload
bytes) is ``@budgeted``: its results' bytes (``ledger.sizeof``) are recorded in :data:`LEDGER`,
which evicts the least recently used entries of any session over ``BENCHUQ_CACHE_MB``
(``max_entries`` is only a backstop). Only the bundled samples (:func:`loaded_sample`,
:func:`embedding_sample`: a fixed, small set) stay count-bounded. A session keeps its upload's
files (:class:`KeptUpload`), never their parse.

Uncertainty methods are a registry (:data:`METHODS`): another engine (e.g. the Bayesian model)
adds one :class:`UncertaintyMethod` entry and appears in the sidebar and the ``method`` link
parameter.
"""

from __future__ import annotations

import hashlib
import itertools
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

import numpy as np
import pandas as pd
import streamlit as st

from benchuq.core import findings as core_report
from benchuq.core import summaries
from benchuq.core.analyses import power
from benchuq.core.analyses.arena import ArenaResult, Ties, arena
from benchuq.core.analyses.arena import IntervalMethod as ArenaInterval
from benchuq.core.analyses.embeddings import (
    ConsistencyResult,
    EmbeddingTree,
    align,
    binarize,
    check_clusters,
    cluster_labels,
    consistency,
    fit_tree,
    load_embedding_sample,
    parse_prior,
)
from benchuq.core.analyses.epp import EPPResult, epp
from benchuq.core.analyses.subgroups.ebci import FsCorrection, parse_kappa
from benchuq.core.analyses.subgroups.estimates import (
    Grouping,
    SubgroupResult,
    Units,
    UnitWeights,
    analyze,
    units_from_benchmark,
)
from benchuq.core.budget import check_cells, check_pairs
from benchuq.core.data import Benchmark, DataError
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.draws import Draws
from benchuq.core.methods import bootstrap as core_bootstrap
from benchuq.core.methods.bayes import model as bayes
from benchuq.core.methods.bayes.priors import parse_prior_specs
from benchuq.core.reading import loaders
from benchuq.core.reading.battles import Battles, load_battles, read_battle_files
from benchuq.core.reading.merge import Runs
from benchuq.core.reading.meta import Loaded
from benchuq.core.reading.naming import data_name
from benchuq.core.reading.options import Failed
from benchuq.core.summaries.dominance import (
    BestProbabilityMap,
    CategoryMoments,
    best_probability_map,
    map_categories,
    moments_from_benchmark,
    moments_from_draws,
)
from benchuq.core.summaries.rank_sets import RankSets
from benchuq.core.summaries.rank_sets import rank_sets as core_rank_sets
from benchuq.dashboard import (
    ledger,
    session,
    views,
    views_embeddings,
    views_subgroups,
    views_table,
)
from benchuq.dashboard.ledger import ByteLedger
from benchuq.dashboard.views_bayes import BayesSettings

LEDGER = ByteLedger()
budgeted = ledger.budgeted(lambda: LEDGER)
if st.runtime.exists():  # in the server (not in tests or the CLI)
    ledger.trim_every(30.0)


@dataclass(frozen=True)
class UncertaintyMethod:
    """An engine that turns a Benchmark into draws: ``run(bench, reps, seed) -> Draws``."""

    label: str
    run: Callable[..., Draws]
    help: str
    # Session settings that change the draws (e.g. the Bayesian priors), as a canonical string:
    # it joins the cache keys and is passed to ``run(bench, reps, seed, settings)``.
    settings: Callable[[], str] | None = None


def _bootstrap(bench: Benchmark, reps: int, seed: int) -> Draws:
    return core_bootstrap.bootstrap(bench, reps=reps, seed=seed)


METHODS: dict[str, UncertaintyMethod] = {
    "bootstrap": UncertaintyMethod(
        label="Bootstrap",
        run=_bootstrap,
        help=(
            "Resample test items with replacement (paired across models when item-level data "
            "exist; independent binomial draws from task counts otherwise). METHODS 2."
        ),
    ),
}


# ---- Bayesian hierarchical model (METHODS 6): registry entry and cached fits --------------
# The Bayesian page's settings (priors, chains, warm-up, interval kind, sampler) are kept in the
# session (``dashboard.session``); they are part of every cache key, so users with different
# priors never share a fit. Posterior draws R = the sidebar's "Replicates", split over the chains.
def bayes_settings() -> BayesSettings:
    """Return this session's Bayesian settings (defaults until the page or a link sets them)."""
    return session.stored(BayesSettings)


@budgeted
@st.cache_resource(max_entries=8, show_spinner="Sampling the posterior (cached afterwards)…")
def _bayes_fit(
    content_hash: str,
    priors: tuple[str, ...],
    chains: int,
    draws: int,
    warmup: int,
    seed: int,
    sampler: Literal["imh", "gibbs"],
    _bench: Benchmark,
) -> bayes.BayesFit:
    specs = parse_prior_specs(list(priors), _bench.models)
    with LEDGER.reserve(BAYES_WORK * chains * draws * len(_bench.models) * len(_bench.tasks)):
        return bayes.fit(
            _bench,
            priors=specs,
            chains=chains,
            draws=draws,
            warmup=warmup,
            seed=seed,
            sampler=sampler,
        )


def bayes_fit(bench: Benchmark, settings: BayesSettings, reps: int, seed: int) -> bayes.BayesFit:
    """Return the cached posterior fit for ``bench`` (key: content hash, priors, settings, seed)."""
    draws = max(-(-int(reps) // settings.chains), 4)
    args = (bench.content_hash, settings.priors, settings.chains, draws, settings.warmup,
            int(seed), settings.sampler, bench)  # fmt: skip
    return _bayes_fit(*args)


def _bayes(bench: Benchmark, reps: int, seed: int, settings: str) -> Draws:
    s = BayesSettings.from_key(settings)
    return bayes_fit(bench, s, reps, seed).to_draws(kind=s.interval)


METHODS["bayes"] = UncertaintyMethod(
    label="Bayesian",
    run=_bayes,
    help=(
        "Hierarchical beta-binomial model per model (theta ~ Beta(a, b)); MCMC by independence "
        "Metropolis-Hastings on the collapsed posterior (Gibbs as fallback); set "
        "priors and see diagnostics on the Bayesian model page. Needs counts. METHODS 6."
    ),
    settings=lambda: bayes_settings().key(),
)
# ---- end of the Bayesian block -------------------------------------------------------------


@st.cache_resource(max_entries=16, show_spinner="Loading the sample data set…")
def loaded_sample(name: str) -> Loaded:
    """A bundled sample and what its files say (static files, so the name is a safe key)."""
    return loaders.read_sample(name)


def load_sample(name: str) -> Benchmark:
    """A bundled sample (cached)."""
    return loaded_sample(name).bench


def files_digest(files: tuple[tuple[str, bytes], ...], *extra: object) -> str:
    """SHA-256 over file names, bytes and loader options: the cache key of an upload."""
    h = hashlib.sha256()
    for name, data in files:
        h.update(name.encode() + b"\x00" + hashlib.sha256(data).digest())
    h.update(repr(extra).encode())
    return h.hexdigest()


@budgeted
@st.cache_resource(max_entries=32, show_spinner="Reading the uploaded files…")
def _load_upload(
    digest: str,
    _files: tuple[tuple[str, bytes], ...],
    _tasks: tuple[str, bytes] | None,
    _columns: tuple[tuple[str, str], ...],
    _fmt: str,
    _metric: str | None,
    _failed: Failed = "exclude",
    _runs: Runs = "newest",
) -> Loaded:
    loaded = loaders.read_files(
        list(_files),
        format=_fmt,
        tasks=_tasks,
        metric=_metric,
        columns=dict(_columns) or None,
        failed=_failed,
        runs=_runs,
    )
    return Loaded(loaded.bench._replace(name=data_name(loaded)), loaded.meta)


def load_upload(
    files: tuple[tuple[str, bytes], ...],
    *,
    tasks: tuple[str, bytes] | None = None,
    columns: dict[str, str] | None = None,
    fmt: str = "auto",
    metric: str | None = None,
    failed: Failed = "exclude",
    runs: Runs = "newest",
) -> Loaded:
    """Load uploaded files (and what they say), cached by the digest of their content and the
    loader options (``failed``: samples of harness logs that errored or hit a limit; ``runs``:
    two runs of a model, the newest kept or both)."""
    cols = tuple(sorted((columns or {}).items()))
    extra = (failed,) if failed != "exclude" else ()  # digests of earlier uploads unchanged
    digest = files_digest(files + ((tasks,) if tasks else ()), cols, fmt, metric, runs, *extra)
    return _load_upload(digest, files, tasks, cols, fmt, metric, failed, runs)


UPLOAD_DROPPED = (
    "Your uploaded files were dropped from the server's memory to make room for other work "
    "(the server keeps a bounded amount of data for all its users). Upload them again on the "
    "Data page."
)


@dataclass(eq=False)
class KeptUpload:
    """A session's upload: the inputs :func:`load_upload` needs to read it again.

    The parsed data lives only in the shared, budgeted cache (after its eviction the next use
    reads the files again). The bytes kept here are in the ledger too: when it evicts them,
    :func:`read_upload` asks for the files again (:data:`UPLOAD_DROPPED`); when the session
    ends, the entry is forgotten and freed memory is returned to the system.
    """

    files: tuple[tuple[str, bytes], ...] | None
    tasks: tuple[str, bytes] | None
    columns: dict[str, str]
    fmt: str
    metric: str | None
    failed: Failed = "exclude"
    runs: Runs = "newest"
    key: tuple[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.key = ("kept upload", next(_KEPT))
        weakref.finalize(self, _session_ended, self.key)

    def drop(self) -> None:
        """Let go of the bytes (the ledger evicted them)."""
        self.files = self.tasks = None


_KEPT = itertools.count()


def _session_ended(key: tuple[str, int]) -> None:
    LEDGER.forget(key)
    ledger.trim()


def _drop(ref: weakref.ref[KeptUpload]) -> None:
    kept = ref()
    if kept is not None:
        kept.drop()


def read_upload(kept: KeptUpload) -> Loaded:
    """The session's upload as read (from the cache, or read again after an eviction); its
    kept bytes recorded in the ledger (a :class:`DataError` of the files records nothing)."""
    files, tasks = kept.files, kept.tasks
    if files is None:
        raise DataError(UPLOAD_DROPPED)
    loaded = load_upload(
        files,
        tasks=tasks,
        columns=kept.columns,
        fmt=kept.fmt,
        metric=kept.metric,
        failed=kept.failed,
        runs=kept.runs,
    )
    LEDGER.use(kept.key, ledger.sizeof((files, tasks)), partial(_drop, weakref.ref(kept)))
    return loaded


@budgeted
@st.cache_data(max_entries=32, show_spinner="Building the table…")
def wide_table(
    key: str,
    models: tuple[str, ...],
    level: float,
    columns: tuple[views_table.Column, ...],
    _draws: Draws,
    _bench: Benchmark,
) -> views_table.WideTable:
    """``views_table.wide_table`` for the shown models (``key`` names the draws, see
    :func:`draws_key`)."""
    return views_table.wide_table(_draws.select_models(list(models)), level, columns, _bench)


# Draws arrays are R x M x T floats each (2000 x 20 x 57 is 18 MB). Computing them, or a summary
# of them, holds room in the ledger for its peak working memory, in bytes per R x M x T cell,
# measured with tracemalloc (vtab1k, R = 2,000 and 20,000; the peak over the draws' own bytes):
# the bootstrap 5.3, min-max normalizing 3, the Bayesian fit 13, ranking 3.7, the report's
# findings and P(best) maps 2.1, the leaderboard table 0.7.
DRAWS_WORK = 6 * 8
NORMALIZE_WORK = 3 * 8
BAYES_WORK = 14 * 8
RANKS_WORK = 4 * 8
SUMMARY_WORK = 3 * 8


@budgeted
@st.cache_resource(max_entries=64, show_spinner="Computing draws (cached afterwards)…")
def _draws(
    content_hash: str, method: str, reps: int, seed: int, settings: str, _bench: Benchmark
) -> Draws:
    m = METHODS[method]
    with LEDGER.reserve(DRAWS_WORK * reps * len(_bench.models) * len(_bench.tasks)):
        if m.settings is None:
            return m.run(_bench, reps, seed)
        return m.run(_bench, reps, seed, settings)


@budgeted
@st.cache_resource(max_entries=64, show_spinner=False)
def _normalized(
    content_hash: str, method: str, reps: int, seed: int, settings: str, _bench: Benchmark
) -> Draws:
    draws = _draws(content_hash, method, reps, seed, settings, _bench)
    with LEDGER.reserve(NORMALIZE_WORK * draws.values.size):
        return summaries.normalize(draws, mode="minmax", chance=_bench.chance)


def method_settings(method: str) -> str:
    """Return the session settings string of ``method`` ("" when it has none)."""
    m = METHODS[method]
    return "" if m.settings is None else m.settings()


def get_draws(bench: Benchmark, method: str, reps: int, seed: int, metric: str) -> Draws:
    """Draws of every model for ``bench`` (normalized per METHODS 3 when ``metric`` says so).

    Checked against the per-request work budget before computing (``core.budget``); every use
    is recorded in the byte ledger, which evicts the least recently used draws of any session
    over ``BENCHUQ_CACHE_MB``."""
    check_cells(int(reps), len(bench.models), len(bench.tasks), flag="Replicates")
    args = (bench.data_hash, method, int(reps), int(seed), method_settings(method), bench)
    return _normalized(*args) if metric == "normalized" else _draws(*args)


def draws_key(bench: Benchmark, method: str, reps: int, seed: int, metric: str) -> str:
    """Return a string naming one set of cached draws (for caching summaries of them)."""
    return f"{bench.data_hash}:{method}:{reps}:{seed}:{metric}:{method_settings(method)}"


@budgeted
@st.cache_data(max_entries=64, show_spinner="Ranking models in every replicate…")
def rank_aggregations(
    key: str, models: tuple[str, ...], level: float, _draws_all: Draws
) -> pd.DataFrame:
    """``core.summaries.rank_aggregations`` for the shown models (cached: it ranks per draw)."""
    check_pairs(_draws_all.reps, len(models), what="rank comparisons")
    shown = _draws_all.select_models(list(models))
    with LEDGER.reserve(RANKS_WORK * shown.values.size):
        return summaries.rank_aggregations(shown, level=level)


@budgeted
@st.cache_data(max_entries=64, show_spinner=False)
def leaderboard_table(
    key: str, models: tuple[str, ...], level: float, weights: tuple[float, ...], _draws_all: Draws
) -> pd.DataFrame:
    """``views.leaderboard_table`` of the shown models at ``level`` and category ``weights``."""
    shown = _draws_all.select_models(list(models))
    with LEDGER.reserve(SUMMARY_WORK * shown.values.size):
        return views.leaderboard_table(shown, level, np.asarray(weights, dtype=float))


@budgeted
@st.cache_data(max_entries=64, show_spinner=False)
def rank_probabilities(
    key: str, models: tuple[str, ...], weights: tuple[float, ...], _draws_all: Draws
) -> np.ndarray:
    """``core.summaries.rank_probabilities`` at the weighted score ``S(w)``."""
    shown = _draws_all.select_models(list(models))
    return summaries.rank_probabilities(shown, group=np.asarray(weights, dtype=float))


@budgeted
@st.cache_data(max_entries=64, show_spinner=False)
def rank_sets(
    key: str, models: tuple[str, ...], weights: tuple[float, ...], level: float, _draws_all: Draws
) -> RankSets:
    """``core.summaries.rank_sets.rank_sets`` of the weighted score ``S(w)`` (METHODS 4b)."""
    shown = _draws_all.select_models(list(models))
    sc = summaries.group_scores(shown, np.asarray(weights, dtype=float))
    return core_rank_sets(
        sc.values, sc.observed, shown.models, level, sc.higher_is_better, sc.label
    )


# ---- page analyses: each keyed by the content (hash) of its inputs and its settings ---------


@budgeted
@st.cache_resource(max_entries=64, show_spinner=False)
def fit_draws(key: str, kind: Literal["parameter", "predictive"], _fit: bayes.BayesFit) -> Draws:
    """``fit.to_draws(kind)`` (``"parameter"`` or ``"predictive"``), cached per fit (``key``)."""
    return _fit.to_draws(kind=kind)


@budgeted
@st.cache_resource(max_entries=8, show_spinner="P(best) over the weight simplex…")
def best_map(
    key: str, models: tuple[str, ...], cats: tuple[str, ...], _draws: Draws
) -> BestProbabilityMap:
    """P(best) on a 40-step grid of category weightings from ``_draws`` (``key`` names them)."""
    shown = _draws.select_models(list(models))
    with LEDGER.reserve(SUMMARY_WORK * shown.values.size):
        moments = moments_from_draws(shown, mapping=map_categories(cats))
        return best_probability_map(moments, resolution=40)


@budgeted
@st.cache_resource(max_entries=16, show_spinner=False)
def analytic_moments(
    content_hash: str, models: tuple[str, ...], mapping: tuple[tuple[str, str], ...], _b: Benchmark
) -> CategoryMoments:
    """Category means and covariances from the data's counts/SEs (METHODS 5)."""
    return moments_from_benchmark(_b.subset(models=list(models)), mapping=dict(mapping))


@budgeted
@st.cache_resource(max_entries=16, show_spinner=False)
def draw_moments(
    draws_key: str, models: tuple[str, ...], mapping: tuple[tuple[str, str], ...], _d: Draws
) -> CategoryMoments:
    """Category means and covariances from draws (paired: the models' correlation too)."""
    shown = _d.select_models(list(models))
    with LEDGER.reserve(SUMMARY_WORK * shown.values.size):
        return moments_from_draws(shown, mapping=dict(mapping))


@budgeted
@st.cache_resource(max_entries=16, show_spinner="P(best) at every grid point…")
def probability_map(
    draws_key: str,
    models: tuple[str, ...],
    mapping: tuple[tuple[str, str], ...],
    resolution: int,
    _m: CategoryMoments,
) -> BestProbabilityMap:
    """``core.summaries.dominance.best_probability_map`` of :func:`draw_moments`."""
    return best_probability_map(_m, resolution=resolution)


# EPP fits are cached at this level and re-levelled without refitting
EPP_FIT_LEVEL = COMPARISON_LEVEL


@budgeted
@st.cache_resource(max_entries=32, show_spinner="Fitting the EPP model…")
def epp_fit(
    content_hash: str,
    models: tuple[str, ...],
    rounds: Literal["tasks", "items"],
    interval: Literal["rounds", "glm", "bootstrap"],
    reps: int,
    seed: int,
    _bench: Benchmark,
) -> EPPResult:
    """Fit ``core.analyses.epp.epp`` on the shown models at level :data:`EPP_FIT_LEVEL`.

    Other levels come from ``EPPResult.at_level`` without refitting.
    """
    check_pairs(reps, len(models), what="EPP pair counts")
    sub = _bench.subset(models=list(models)) if models != _bench.models else _bench
    return epp(sub, rounds=rounds, level=EPP_FIT_LEVEL, interval=interval, reps=reps, seed=seed)


@budgeted
@st.cache_resource(max_entries=16, show_spinner=False)
def subgroup_units(content_hash: str, group_by: Grouping, _bench: Benchmark) -> Units:
    """``core.analyses.subgroups.units_from_benchmark``."""
    return units_from_benchmark(_bench, group_by=group_by)


@budgeted
@st.cache_resource(max_entries=16, show_spinner=False)
def table_units(digest: str, name: str, _data: bytes) -> Units:
    """Units of an uploaded table (``digest``: SHA-256 of its bytes)."""
    return views_subgroups.read_table(name, _data)


@budgeted
@st.cache_resource(max_entries=32, show_spinner="Estimating (cached afterwards)…")
def subgroup_analysis(
    key: str,
    features: tuple[str, ...],
    level: float,
    fs: FsCorrection,
    kappa: str,
    crossfit: bool,
    weights: UnitWeights,
    seed: int,
    _units: Units,
) -> SubgroupResult:
    """``core.analyses.subgroups.analyze``; ``key`` is the data's content hash plus the grouping."""
    return analyze(
        _units,
        features=features,
        level=level,
        fs_correction=fs,
        kappa=parse_kappa(kappa),
        crossfit=crossfit,
        weights=weights,
        seed=seed,
    )


@budgeted
@st.cache_resource(max_entries=16, show_spinner="Reading embeddings…")
def embedding_inputs(
    digest: str, _files: tuple[tuple[str, bytes], ...], _meta: tuple[str, bytes]
) -> views_embeddings.Inputs:
    """Aligned embeddings and the meta table of an upload (``digest``: of names and bytes)."""
    return views_embeddings.read_inputs(_files, _meta)


@st.cache_resource(max_entries=16, show_spinner="Reading the sample…")
def embedding_sample(name: str) -> views_embeddings.Inputs:
    """Return a bundled embedding sample, aligned."""
    sets, meta = load_embedding_sample(name)
    return align(sets, meta), meta


@budgeted
@st.cache_resource(max_entries=32, show_spinner="Scoring embeddings…")
def embedding_scores(
    digest: str,
    settings: views_embeddings.EmbeddingsSettings,
    _inputs: views_embeddings.Inputs,
) -> tuple[ConsistencyResult, EmbeddingTree | None]:
    """Score the inputs named by ``digest``: clusters and consistency scores (METHODS 9).

    One meta column gives the clusters; several grow an EmbeddingTree whose leaves are the
    clusters.
    """
    embeddings, meta = _inputs
    s = settings
    tree = None
    if len(s.columns) == 1:
        labels = cluster_labels(meta, s.columns[0], bins=s.bins)
        check_clusters(labels, file=meta.attrs.get("file", "meta"), column=s.columns[0])
    else:
        pairs = [p for p in s.prior.split(",") if p.strip()]
        tree = fit_tree(
            embeddings[s.reference],
            binarize(meta, list(s.columns), bins=s.bins),
            reference=s.reference,
            max_depth=s.depth,
            min_leaf=s.min_leaf,
            min_gain=0.0 if s.min_gain else None,
            prior=parse_prior(pairs),
            eps=s.eps,
            seed=s.seed,
        )
        labels = tree.labels
    result = consistency(
        embeddings,
        labels,
        heads=s.heads,
        dims=s.dims,
        clip=s.clip,
        eps=s.eps,
        folds=s.folds,
        reps=None if s.auto_reps else s.reps,
        level=s.level,
        seed=s.seed,
        bootstrap=s.bootstrap,
    )
    return result, tree


# ---- Plan page (METHODS 10): designs read from the data and plans (max-T draws), cached ------
@budgeted
@st.cache_data(max_entries=32, show_spinner=False)
def power_design(
    content_hash: str,
    models: tuple[str, ...],
    group: str | tuple[float, ...],
    rho: float,
    _bench: Benchmark,
) -> power.Design:
    """``core.analyses.power.design_from_benchmark`` for the chosen models and score."""
    g = group if isinstance(group, str) else np.asarray(group, dtype=float)
    return power.design_from_benchmark(_bench, models=list(models), group=g, rho=rho)


def design_key(design: power.Design) -> str:
    """A content key of a design (its numbers and names), for caching plans of it."""
    h = hashlib.sha256(repr((design.name, design.models, design.n, design.group)).encode())
    for a in (design.estimate, design.cov, design.cov_iid):
        h.update(np.ascontiguousarray(a, dtype=float).tobytes())
    return h.hexdigest()


@budgeted
@st.cache_data(max_entries=64, show_spinner="Planning (the max-T critical value)…")
def power_plan(
    key: str,
    pairs: tuple[tuple[str, str], ...],
    level: float,
    power_: float,
    delta: float | tuple[float, ...] | None,
    family: int | None,
    correction: str,
    _design: power.Design,
) -> power.PowerPlan:
    """``core.analyses.power.plan`` of the design named by ``key`` (see :func:`design_key`)."""
    return power.plan(
        _design,
        pairs=list(pairs),
        level=level,
        power=power_,
        delta=delta,
        family=family,
        correction=correction,  # type: ignore[arg-type]
    )


# ---- Report page: the findings of the current view, cached per draws and level --------------
@budgeted
@st.cache_data(max_entries=16, show_spinner="Working out the findings…")
def report_findings(
    key: str,
    models: tuple[str, ...],
    level: float,
    display: tuple[float, str],
    warnings: tuple[str, ...],
    _bench: Benchmark,
    _draws_all: Draws,
    _diagnostics: pd.DataFrame | None = None,
) -> core_report.Findings:
    """``core.findings.findings`` of the shown models (``display``: scale and suffix; a Bayesian
    fit's ``_diagnostics``, part of the draws ``key``)."""
    shown = _draws_all.select_models(list(models))
    scale, suffix = display
    with LEDGER.reserve(SUMMARY_WORK * shown.values.size):
        return core_report.findings(
            _bench, shown, level, scale=scale, suffix=suffix, warnings=warnings,
            diagnostics=_diagnostics,
        )  # fmt: skip


@budgeted
@st.cache_resource(max_entries=8, show_spinner="Reading the battles…")
def battles_of(
    key: str, columns: tuple[tuple[str, str], ...], _files: tuple[tuple[str, bytes], ...]
) -> Battles:
    """Battles (METHODS 8b) of ``sample:alpaca_eval`` or of uploaded files (``key``: their
    digest), with the column mapping."""
    if key.startswith("sample:"):
        return load_battles(key)
    return read_battle_files(list(_files), columns=dict(columns))


@budgeted
@st.cache_resource(max_entries=16, show_spinner="Fitting the arena model…")
def arena_fit(
    key: str,
    anchor: str | None,
    level: float,
    ties: Ties,
    interval: ArenaInterval,
    control: tuple[str, ...],
    reps: int,
    seed: int,
    _battles: Battles,
) -> ArenaResult:
    """``core.analyses.arena.arena`` of the battles ``key`` (their content hash)."""
    return arena(
        _battles,
        anchor=anchor,
        level=level,
        ties=ties,
        interval=interval,
        control=control,
        reps=reps,
        seed=seed,
    )

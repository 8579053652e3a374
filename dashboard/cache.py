"""The shell's cached core calls, keyed by content, never by a file name (safe for a hosted,
shared app): loaded data, uploads, draws and the registry of uncertainty methods. Each page's
own cached calls live in its subpackage (``dashboard/<page>/cached.py``).

Heavy results (loaded data, draws) are cached with ``st.cache_resource``: the objects are
immutable (``Benchmark`` and ``Draws`` hold read-only arrays), so sharing them between sessions is
safe, and each key contains the data's content hash, so two users' uploads never collide. Cheap
summaries (a leaderboard at a new level) are recomputed from the cached draws on every rerun.
The pages' cached calls take draws and data as they are: :data:`HASH_FUNCS` hashes them by
their content key (:func:`draws_key`, :func:`keyed`), never by their bytes.

Memory (#19): every cache whose entry grows with the data (R, M, T, items, a grid, upload
bytes) is ``@budgeted`` (or ``@budgeted_by_content``): its results' bytes (``ledger.sizeof``)
are recorded in :data:`LEDGER`, which evicts the least recently used entries of any session over
``BENCHUQ_CACHE_MB`` (``max_entries`` is only a backstop). Only the bundled samples
(:func:`loaded_sample`, ``embeddings.cached.embedding_sample``: a fixed, small set) stay
count-bounded. A session keeps its upload's files (:class:`KeptUpload`), never their parse.

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
from typing import Any, Literal

import numpy as np
import streamlit as st

from benchuq import api as bq
from benchuq.api import summaries as door
from benchuq.core.budget import check_cells
from benchuq.core.data import Benchmark, DataError
from benchuq.core.draws import Draws
from benchuq.core.reading import loaders
from benchuq.core.reading.merge import Runs
from benchuq.core.reading.meta import Loaded
from benchuq.core.reading.naming import data_name
from benchuq.core.reading.options import Failed
from benchuq.dashboard import ledger, runtime, session
from benchuq.dashboard.bayes.view import BayesSettings
from benchuq.dashboard.ledger import ByteLedger

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
    return door.bootstrap_draws(bench, reps=reps, seed=seed)


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
) -> door.BayesFit:
    runtime.count_work("bayes fit")
    specs = door.parse_prior_specs(list(priors), _bench.models)
    with LEDGER.reserve(BAYES_WORK * chains * draws * len(_bench.models) * len(_bench.tasks)):
        return door.fit_bayes(
            _bench,
            priors=specs,
            chains=chains,
            draws=draws,
            warmup=warmup,
            seed=seed,
            sampler=sampler,
        )


def bayes_fit(bench: Benchmark, settings: BayesSettings, reps: int, seed: int) -> door.BayesFit:
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
    two runs of a model, the newest kept or both). Files are read in name order, as a folder
    is, whatever order the browser sent them in (the same models' order and data hash)."""
    files = tuple(sorted(files, key=lambda f: f[0]))
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
    runtime.count_work("draws")
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
    runtime.count_work("normalize")
    with LEDGER.reserve(NORMALIZE_WORK * draws.values.size):
        return bq.normalize(draws, mode="minmax", chance=_bench.chance)


def method_settings(method: str) -> str:
    """Return the session settings string of ``method`` ("" when it has none)."""
    m = METHODS[method]
    return "" if m.settings is None else m.settings()


def get_draws(bench: Benchmark, method: str, reps: int, seed: int, metric: str) -> Draws:
    """Draws of every model for ``bench`` (normalized per METHODS 3 when ``metric`` says so).

    Checked against the per-request work budget before computing (``core.budget``); every use
    is recorded in the byte ledger, which evicts the least recently used draws of any session
    over ``BENCHUQ_CACHE_MB``."""
    check_cells(int(reps), len(bench.models), len(bench.tasks))
    args = (bench.data_hash, method, int(reps), int(seed), method_settings(method), bench)
    draws = _normalized(*args) if metric == "normalized" else _draws(*args)
    return keyed(draws, draws_key(bench, method, reps, seed, metric))


def draws_key(bench: Benchmark, method: str, reps: int, seed: int, metric: str) -> str:
    """Return a string naming one set of cached draws (for caching summaries of them)."""
    return f"{bench.data_hash}:{method}:{reps}:{seed}:{metric}:{method_settings(method)}"


# ---- content keys: the pages' cached calls take draws and data as they are -----------------
# Streamlit hashes an argument of a type in HASH_FUNCS by its key: a benchmark by its content
# hash, draws by the key of the cached draws they are (:func:`draws_key`, remembered by
# :func:`keyed`), else by their bytes. So a page passes ``ctx.draws_all()`` itself, never a
# (key, draws) pair; the ledger counts the entry under the same key (``budgeted_by_content``).
_KEYS: dict[int, tuple[weakref.ref[Draws], str]] = {}


def keyed(draws: Draws, key: str) -> Draws:
    """Return ``draws``, remembered as the draws named ``key`` (for :data:`HASH_FUNCS`)."""
    ident = id(draws)
    _KEYS[ident] = (weakref.ref(draws, lambda _ref: _KEYS.pop(ident, None)), key)
    return draws


def draws_content_key(draws: Draws) -> str:
    """The key :func:`keyed` gave ``draws``, else a digest of their content."""
    entry = _KEYS.get(id(draws))
    if entry is not None and entry[0]() is draws:
        return entry[1]
    names = (draws.models, draws.tasks, draws.categories, draws.method, draws.seed)
    h = hashlib.sha256(repr((names, draws.values.shape)).encode())
    for a in (draws.values, draws.observed, draws.higher_is_better):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def benchmark_content_key(bench: Benchmark) -> str:
    """A benchmark's content hash (its files' names never enter a key)."""
    return bench.content_hash


HASH_FUNCS: dict[str | type[Any], Callable[[Any], Any]] = {
    Draws: draws_content_key,
    Benchmark: benchmark_content_key,
}
budgeted_by_content = ledger.budgeted(lambda: LEDGER, HASH_FUNCS)

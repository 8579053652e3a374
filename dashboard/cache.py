"""Cached core calls, keyed by content, never by a file name (safe for a hosted, shared app).

Heavy results (loaded data, draws) are cached with ``st.cache_resource``: the objects are
immutable (``Benchmark`` and ``Draws`` hold read-only arrays), so sharing them between sessions is
safe, and each key contains the data's content hash, so two users' uploads never collide. Cheap
summaries (a leaderboard at a new level) are recomputed from the cached draws on every rerun.

Uncertainty methods are a registry (:data:`METHODS`): another engine (e.g. the Bayesian model)
adds one :class:`UncertaintyMethod` entry and appears in the sidebar and the ``method`` link
parameter.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from benchuq.core import bootstrap as core_bootstrap
from benchuq.core import power, summaries
from benchuq.core.bayes import model as bayes
from benchuq.core.bayes.priors import parse_prior_specs
from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws
from benchuq.core.readers import loaders
from benchuq.dashboard import state


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
# The Bayesian page stores its settings (priors, chains, warm-up, interval kind) in the session
# under BAYES_STATE; they are part of every cache key, so users with different priors never
# share a fit. Posterior draws R = the sidebar's "Replicates", split over the chains.
BAYES_STATE = "_bayes_settings"


@dataclass(frozen=True)
class BayesSettings:
    """Run settings of the Bayesian model; ``priors`` are ``core.priors`` spec strings."""

    priors: tuple[str, ...] = ()
    chains: int = int(state.BAYES_DEFAULTS["chains"])
    warmup: int = int(state.BAYES_DEFAULTS["warmup"])
    interval: str = str(state.BAYES_DEFAULTS["interval"])
    sampler: str = str(state.BAYES_DEFAULTS["sampler"])

    def key(self) -> str:
        return json.dumps(
            [list(self.priors), self.chains, self.warmup, self.interval, self.sampler]
        )

    @classmethod
    def from_key(cls, key: str) -> BayesSettings:
        priors, chains, warmup, interval, sampler = json.loads(key)
        return cls(tuple(priors), int(chains), int(warmup), str(interval), str(sampler))


def bayes_settings() -> BayesSettings:
    """This session's Bayesian settings (defaults until the Bayesian page changes them)."""
    return st.session_state.get(BAYES_STATE, BayesSettings())


@st.cache_resource(max_entries=8, show_spinner="Sampling the posterior (cached afterwards)…")
def _bayes_fit(
    content_hash: str,
    priors: tuple[str, ...],
    chains: int,
    draws: int,
    warmup: int,
    seed: int,
    sampler: str,
    _bench: Benchmark,
) -> bayes.BayesFit:
    specs = parse_prior_specs(list(priors), _bench.models)
    return bayes.fit(
        _bench, specs, chains=chains, draws=draws, warmup=warmup, seed=seed, sampler=sampler
    )


def bayes_fit(bench: Benchmark, settings: BayesSettings, reps: int, seed: int) -> bayes.BayesFit:
    """The cached posterior fit for ``bench`` (key: content hash, priors, settings, seed)."""
    draws = max(-(-int(reps) // settings.chains), 4)
    return _bayes_fit(
        bench.content_hash,
        settings.priors,
        settings.chains,
        draws,
        settings.warmup,
        int(seed),
        settings.sampler,
        bench,
    )


def _bayes(bench: Benchmark, reps: int, seed: int, settings: str) -> Draws:
    s = BayesSettings.from_key(settings)
    return bayes_fit(bench, s, reps, seed).to_draws(s.interval)  # type: ignore[arg-type]


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
def load_sample(name: str) -> Benchmark:
    """A bundled sample (static files, so the name is a safe key)."""
    return loaders.load_sample(name)


def files_digest(files: tuple[tuple[str, bytes], ...], *extra: object) -> str:
    """SHA-256 over file names, bytes and loader options: the cache key of an upload."""
    h = hashlib.sha256()
    for name, data in files:
        h.update(name.encode() + b"\x00" + hashlib.sha256(data).digest())
    h.update(repr(extra).encode())
    return h.hexdigest()


@st.cache_resource(max_entries=32, show_spinner="Reading the uploaded files…")
def _load_upload(
    digest: str,
    _files: tuple[tuple[str, bytes], ...],
    _tasks: tuple[str, bytes] | None,
    _columns: tuple[tuple[str, str], ...],
    _fmt: str,
) -> Benchmark:
    return loaders.load_files(
        list(_files), format=_fmt, tasks=_tasks, columns=dict(_columns) or None, name="upload"
    )


def load_upload(
    files: tuple[tuple[str, bytes], ...],
    *,
    tasks: tuple[str, bytes] | None = None,
    columns: dict[str, str] | None = None,
    fmt: str = "auto",
) -> Benchmark:
    """Load uploaded files, cached by the digest of their content and the loader options."""
    cols = tuple(sorted((columns or {}).items()))
    digest = files_digest(files + ((tasks,) if tasks else ()), cols, fmt)
    return _load_upload(digest, files, tasks, cols, fmt)


# At most 8 draws arrays per process (R x M x T floats each; 2000 x 20 x 57 is 18 MB): a hosted
# app's memory stays bounded whatever users upload.
@st.cache_resource(max_entries=8, show_spinner="Computing draws (cached afterwards)…")
def _draws(
    content_hash: str, method: str, reps: int, seed: int, settings: str, _bench: Benchmark
) -> Draws:
    m = METHODS[method]
    if m.settings is None:
        return m.run(_bench, reps, seed)
    return m.run(_bench, reps, seed, settings)


@st.cache_resource(max_entries=8, show_spinner=False)
def _normalized(
    content_hash: str, method: str, reps: int, seed: int, settings: str, _bench: Benchmark
) -> Draws:
    draws = _draws(content_hash, method, reps, seed, settings, _bench)
    return summaries.normalize(draws, mode="minmax", chance=_bench.chance)


def method_settings(method: str) -> str:
    """The session settings string of ``method`` ("" when it has none)."""
    m = METHODS[method]
    return "" if m.settings is None else m.settings()


def get_draws(bench: Benchmark, method: str, reps: int, seed: int, metric: str) -> Draws:
    """Draws of every model for ``bench`` (normalized per METHODS 3 when ``metric`` says so)."""
    make = _normalized if metric == "normalized" else _draws
    return make(bench.content_hash, method, int(reps), int(seed), method_settings(method), bench)


def draws_key(bench: Benchmark, method: str, reps: int, seed: int, metric: str) -> str:
    """A string naming one set of cached draws (for caching summaries of them)."""
    return f"{bench.content_hash}:{method}:{reps}:{seed}:{metric}:{method_settings(method)}"


@st.cache_data(max_entries=64, show_spinner="Ranking models in every replicate…")
def rank_aggregations(
    key: str, models: tuple[str, ...], level: float, _draws_all: Draws
) -> pd.DataFrame:
    """``core.summaries.rank_aggregations`` for the shown models (cached: it ranks per draw)."""
    return summaries.rank_aggregations(_draws_all.select_models(list(models)), level=level)


@st.cache_data(max_entries=64, show_spinner=False)
def rank_probabilities(
    key: str, models: tuple[str, ...], weights: tuple[float, ...], _draws_all: Draws
) -> np.ndarray:
    """``core.summaries.rank_probabilities`` at the weighted score ``S(w)``."""
    shown = _draws_all.select_models(list(models))
    return summaries.rank_probabilities(shown, group=np.asarray(weights, dtype=float))


# ---- Plan page (METHODS 10): designs read from the data and plans (max-T draws), cached ------
@st.cache_data(max_entries=32, show_spinner=False)
def power_design(
    content_hash: str,
    models: tuple[str, ...],
    group: str | tuple[float, ...],
    rho: float,
    _bench: Benchmark,
) -> power.Design:
    """``core.power.design_from_benchmark`` for the chosen models and score."""
    g = group if isinstance(group, str) else np.asarray(group, dtype=float)
    return power.design_from_benchmark(_bench, models=list(models), group=g, rho=rho)


def design_key(design: power.Design) -> str:
    """A content key of a design (its numbers and names), for caching plans of it."""
    h = hashlib.sha256(repr((design.name, design.models, design.n, design.group)).encode())
    for a in (design.estimate, design.cov, design.cov_iid):
        h.update(np.ascontiguousarray(a, dtype=float).tobytes())
    return h.hexdigest()


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
    """``core.power.plan`` of the design named by ``key`` (see :func:`design_key`)."""
    return power.plan(
        _design,
        list(pairs),
        level=level,
        power=power_,
        delta=delta,
        family=family,
        correction=correction,  # type: ignore[arg-type]
    )

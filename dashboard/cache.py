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
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from core import bootstrap as core_bootstrap
from core import loaders, summaries
from core.data import Benchmark
from core.draws import Draws


@dataclass(frozen=True)
class UncertaintyMethod:
    """An engine that turns a Benchmark into draws: ``run(bench, reps, seed) -> Draws``."""

    label: str
    run: Callable[[Benchmark, int, int], Draws]
    help: str


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


@st.cache_resource(max_entries=24, show_spinner="Computing draws (cached afterwards)…")
def _draws(content_hash: str, method: str, reps: int, seed: int, _bench: Benchmark) -> Draws:
    return METHODS[method].run(_bench, reps, seed)


@st.cache_resource(max_entries=24, show_spinner=False)
def _normalized(content_hash: str, method: str, reps: int, seed: int, _bench: Benchmark) -> Draws:
    return summaries.normalize(_draws(content_hash, method, reps, seed, _bench), mode="minmax")


def get_draws(bench: Benchmark, method: str, reps: int, seed: int, metric: str) -> Draws:
    """Draws of every model for ``bench`` (normalized per METHODS 3 when ``metric`` says so)."""
    make = _normalized if metric == "normalized" else _draws
    return make(bench.content_hash, method, int(reps), int(seed), bench)


def draws_key(bench: Benchmark, method: str, reps: int, seed: int, metric: str) -> str:
    """A string naming one set of cached draws (for caching summaries of them)."""
    return f"{bench.content_hash}:{method}:{reps}:{seed}:{metric}"


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

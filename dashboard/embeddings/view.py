"""Embeddings page (METHODS 9, [MHP]): settings, reading uploads, sentences (pure).

The settings are as they travel in the link.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchuq.api.summaries import (
    EMBEDDING_SAMPLES,
    BootstrapMode,
    ConsistencyResult,
    align,
    parse_prior,
    read_embeddings,
    read_meta,
)
from benchuq.core.data import DataError
from benchuq.core.defaults import (
    COMPARISON_LEVEL,
    EMBEDDING_DIMS,
    EMBEDDING_EPS,
    EMBEDDING_HEADS,
)
from benchuq.presentation.state import link
from benchuq.presentation.text import md_escape

Inputs = tuple[dict[str, np.ndarray], pd.DataFrame]
BOOTSTRAP_CHOICES = {
    "auto": "Auto",
    "refit": "Refit Gaussians (includes fitting error)",
    "linear": "Linearised refit (includes fitting error, fast)",
    "scores": "Resample scores (fast)",
}
SCORES = {"alp": "ALP", "accuracy": "Accuracy"}
CHARTS = {"bars": "Bars over models", "line": "Line over layers (file order)"}
SOURCES = {"sample": "Sample", "upload": "Upload"}
CLIPPED_WARNING = 0.05  # warn when clipping leaves out more than this share of posteriors


@dataclass(frozen=True)
class EmbeddingsInputs:
    """Embeddings page: a bundled sample or uploaded files."""

    source: str = link(
        "embeddings_source", "sample", "bundled sample or upload", choices=tuple(SOURCES)
    )
    sample: str = link(
        "embeddings_sample",
        next(iter(EMBEDDING_SAMPLES)),
        "bundled sample",
        choices=tuple(EMBEDDING_SAMPLES),
    )


@dataclass(frozen=True)
class EmbeddingsSettings:
    """Embeddings page: the clusters and the analysis settings (one cached result)."""

    columns: tuple[str, ...] = link(
        "embeddings_columns",
        (),
        "meta features defining the clusters, comma-separated (default: the sample's label)",
        data=True,
    )
    heads: int = link("embeddings_heads", EMBEDDING_HEADS, "random heads", bounds=(1, 64))
    dims: int = link("embeddings_dims", EMBEDDING_DIMS, "dimensions per head", bounds=(1, 4096))
    clip: float = link("embeddings_clip", 1e-6, "clip threshold", bounds=(0.0, 0.5))
    eps: float = link("embeddings_eps", EMBEDDING_EPS, "ridge eps", bounds=(1e-6, 100.0))
    folds: int = link("embeddings_folds", 5, "cross-fitting folds", bounds=(1, 10))
    auto_reps: bool = link("embeddings_auto_reps", True, "default number of replicates")
    reps: int = link(
        "embeddings_reps", 200, "bootstrap replicates when not default", bounds=(50, 5000)
    )
    level: float = link(
        "embeddings_level", COMPARISON_LEVEL, "interval level", bounds=(0.5, 0.99), percent=True
    )
    seed: int = link("embeddings_seed", 0, "random seed", bounds=(0, 2**31 - 1))
    bins: int = link("embeddings_bins", 4, "quantile bins of numeric features", bounds=(2, 10))
    reference: str = link(
        "embeddings_reference", "", "tree grown on this model (default: the first)", data=True
    )
    depth: int = link("embeddings_depth", 3, "tree depth limit", bounds=(1, 6))
    min_leaf: int = link("embeddings_min_leaf", 20, "minimum leaf size", bounds=(2, 10_000))
    prior: str = link(
        "embeddings_prior",
        "",
        "tree prior weights `COLUMN=WEIGHT`, comma-separated (default: none)",
    )
    min_gain: bool = link("embeddings_min_gain", False, "split only where the likelihood rises")
    bootstrap: BootstrapMode = link(
        "embeddings_bootstrap", "auto", "interval method", choices=tuple(BOOTSTRAP_CHOICES)
    )


@dataclass(frozen=True)
class EmbeddingsView:
    """What the Embeddings page shows of one result."""

    score: str = link("embeddings_score", "alp", "score charted", choices=tuple(SCORES))
    chart: str = link("embeddings_chart", "bars", "chart shape", choices=tuple(CHARTS))
    against: str = link(
        "embeddings_against", "", "differences against this model (default: the first)", data=True
    )
    confusion: str = link(
        "embeddings_confusion", "", "model of the confusion heatmap (default: the first)", data=True
    )


def upload_digest(files: Sequence[tuple[str, bytes]]) -> str:
    """SHA-256 over the files' names and bytes (the cache key of an upload)."""
    h = hashlib.sha256()
    for name, data in files:
        h.update(name.encode() + b"\x00" + hashlib.sha256(data).digest())
    return h.hexdigest()


def read_inputs(files: Sequence[tuple[str, bytes]], meta: tuple[str, bytes]) -> Inputs:
    """Aligned embeddings (``{model: (N, D)}``) and the meta table of uploaded files."""
    sets = [s for name, data in files for s in read_embeddings(name, data)]
    table = read_meta(*meta)
    return align(sets, table), table


def inputs_caption(embeddings: dict[str, np.ndarray], meta: pd.DataFrame) -> str:
    """``"N entities; M embeddings: name (D dims), ..."`` (names escaped)."""
    return f"{len(meta)} entities; {len(embeddings)} embeddings: " + ", ".join(
        f"{md_escape(m)} ({x.shape[1]} dims)" for m, x in embeddings.items()
    )


def clipped_warning(table: pd.DataFrame) -> str | None:
    """Return a warning when clipping left out many posteriors of some models, else ``None``."""
    heavy = table[table["clipped"] > CLIPPED_WARNING]
    if not len(heavy):
        return None
    return (
        f"The clip threshold left out more than {CLIPPED_WARNING:.0%} of the posteriors of "
        + ", ".join(md_escape(m) for m in heavy["model"])
        + ": their ALP only averages the entities that were kept and is optimistic. "
        "Raise eps (a larger ridge makes posteriors less extreme) or set clip to 0."
    )


def interval_captions(result: ConsistencyResult, level: float) -> list[str]:
    """Which intervals the table shows (markdown): ALP, and accuracy when it differs."""
    text = [
        f"{100 * level:g}% intervals: {md_escape(result.scores[0].alp.method)} (level and "
        "replicates in Settings — the sidebar's level applies to the benchmark pages). "
        "`clipped`: share of entity-head posteriors left out of the ALP by the clip threshold."
    ]
    if result.scores[0].accuracy.method != result.scores[0].alp.method:
        text.append(f"Accuracy intervals: {md_escape(result.scores[0].accuracy.method)}.")
    return text


def prior_check(text: str) -> str | None:
    """Why a tree prior text cannot be read, or ``None``."""
    try:
        parse_prior([p for p in text.split(",") if p.strip()])
    except DataError as err:
        return f"{err}; using no prior weights."
    return None


BOOTSTRAP_HELP = (
    "Refit: every bootstrap replicate refits the Gaussians, so the interval includes the "
    "error of fitting them; it is for the expected score of this procedure on new entities "
    "(Gaussians fitted on (folds−1)/folds of each cluster), not for the true Gaussians, which "
    "a fitted score misses when clusters are small (for accuracy, hits that flip with the "
    "refit are rescaled by 1/√spread, the reweighted hits by 1/spread). Linearised refit: "
    "the first-order version of Refit (how each entity's weight moves the score, as a "
    "held-out entity and through the Gaussians it helps fit), one pass instead of one refit "
    "per replicate; its accuracy interval leaves out the fitting error. Scores: resample "
    "per-entity scores with the Gaussians held fixed — fast, but too narrow when clusters are "
    "small relative to the dimensions per head. Auto: refit unless that would take more than "
    "about 10 s (refitting thousands of entities with many heads of 64 dimensions can take "
    "minutes), else the linearised refit."
)
SCORES_ONLY_NOTE = (
    "These intervals hold the fitted Gaussians fixed and can be too narrow when clusters "
    "are small relative to the dimensions per head. Choose 'Refit' or 'Linearised "
    "refit' for intervals that include the fitting error (the linearised one stays fast "
    "on large data)."
)

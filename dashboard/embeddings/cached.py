"""The Embeddings page's cached calls: inputs, samples and consistency scores (METHODS 9)."""

from __future__ import annotations

import streamlit as st

from benchuq.api.summaries import (
    ConsistencyResult,
    EmbeddingTree,
    align,
    load_embedding_sample,
    score_embeddings,
)
from benchuq.dashboard import cache
from benchuq.dashboard.embeddings import view

__all__ = ["embedding_inputs", "embedding_sample", "embedding_scores"]


@cache.budgeted
@st.cache_resource(max_entries=16, show_spinner="Reading embeddings…")
def embedding_inputs(
    digest: str, _files: tuple[tuple[str, bytes], ...], _meta: tuple[str, bytes]
) -> view.Inputs:
    """Aligned embeddings and the meta table of an upload (``digest``: of names and bytes)."""
    return view.read_inputs(_files, _meta)


@st.cache_resource(max_entries=16, show_spinner="Reading the sample…")
def embedding_sample(name: str) -> view.Inputs:
    """Return a bundled embedding sample, aligned."""
    sets, meta = load_embedding_sample(name)
    return align(sets, meta), meta


@cache.budgeted
@st.cache_resource(max_entries=32, show_spinner="Scoring embeddings…")
def embedding_scores(
    digest: str,
    settings: view.EmbeddingsSettings,
    _inputs: view.Inputs,
) -> tuple[ConsistencyResult, EmbeddingTree | None]:
    """Score the inputs named by ``digest``: clusters and consistency scores (METHODS 9).

    One meta column gives the clusters; several grow an EmbeddingTree whose leaves are the
    clusters.
    """
    embeddings, meta = _inputs
    s = settings
    analysis = score_embeddings(
        embeddings,
        meta,
        s.columns,
        bins=s.bins,
        reference=s.reference,
        depth=s.depth,
        min_leaf=s.min_leaf,
        prior=s.prior.split(","),
        min_gain=s.min_gain,
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
    return analysis.result, analysis.tree

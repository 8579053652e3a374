"""Embedding consistency: multi-head Gaussian posterior scores and the EmbeddingTree (METHODS 9)."""

from benchuq.core.embeddings.posterior import (
    BOOTSTRAP_MODES,
    ConsistencyResult,
    EmbeddingSet,
    consistency,
    load_embedding_sample,
    read_embeddings,
    read_meta,
)
from benchuq.core.embeddings.tree import EmbeddingTree, fit_tree

__all__ = [
    "BOOTSTRAP_MODES",
    "ConsistencyResult",
    "EmbeddingSet",
    "EmbeddingTree",
    "consistency",
    "fit_tree",
    "load_embedding_sample",
    "read_embeddings",
    "read_meta",
]

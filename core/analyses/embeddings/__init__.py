"""Embedding consistency: multi-head Gaussian posterior scores and the EmbeddingTree (METHODS 9).

:mod:`.io` (embedding and meta files, alignment, cluster labels, samples), :mod:`.posterior`
(the Gaussian model), :mod:`.resample` (the three bootstrap engines), :mod:`.scores`
(``consistency`` -> ``ConsistencyResult``), :mod:`.tree` (``fit_tree`` -> ``EmbeddingTree``) and
:mod:`.synthetic` (the [MHP] synthetic study). No package attribute is named like a submodule.
"""

from benchuq.core.analyses.embeddings.io import (
    EMBEDDING_SAMPLES,
    EMBEDDING_SUFFIXES,
    META_SUFFIXES,
    SAMPLE_LABELS,
    EmbeddingSet,
    align,
    check_clusters,
    cluster_labels,
    load_embedding_sample,
    read_embeddings,
    read_meta,
)
from benchuq.core.analyses.embeddings.posterior import DEFAULT_EPS
from benchuq.core.analyses.embeddings.resample import BOOTSTRAP_MODES, BootstrapMode
from benchuq.core.analyses.embeddings.scores import (
    ConsistencyResult,
    EmbeddingScore,
    ScoreInterval,
    consistency,
)
from benchuq.core.analyses.embeddings.synthetic import SYNTHETIC_CASES, synthetic_clusters
from benchuq.core.analyses.embeddings.tree import EmbeddingTree, binarize, fit_tree, parse_prior

__all__ = [
    "BOOTSTRAP_MODES",
    "DEFAULT_EPS",
    "EMBEDDING_SAMPLES",
    "EMBEDDING_SUFFIXES",
    "META_SUFFIXES",
    "SAMPLE_LABELS",
    "SYNTHETIC_CASES",
    "BootstrapMode",
    "ConsistencyResult",
    "EmbeddingScore",
    "EmbeddingSet",
    "EmbeddingTree",
    "ScoreInterval",
    "align",
    "binarize",
    "check_clusters",
    "cluster_labels",
    "consistency",
    "fit_tree",
    "load_embedding_sample",
    "parse_prior",
    "read_embeddings",
    "read_meta",
    "synthetic_clusters",
]

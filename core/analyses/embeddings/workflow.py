"""The embeddings workflow, written once for the CLI and the app (METHODS 9): clusters from one
meta column, or an EmbeddingTree grown on several (its leaves are the clusters), then the
consistency scores of every model.

Examples
--------
>>> from benchuq.core.analyses.embeddings import load_embedding_sample
>>> from benchuq.core.analyses.embeddings.io import align
>>> sets, meta = load_embedding_sample("synthetic")
>>> out = score_embeddings(
...     align(sets, meta), meta, ["cluster"], heads=2, dims=4, bootstrap="scores", reps=50
... )
>>> out.tree is None, len(out.result.clusters)
(True, 10)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchuq.core.analyses.embeddings.io import check_clusters, cluster_labels
from benchuq.core.analyses.embeddings.posterior import DEFAULT_EPS
from benchuq.core.analyses.embeddings.resample import BootstrapMode
from benchuq.core.analyses.embeddings.scores import ConsistencyResult, consistency
from benchuq.core.analyses.embeddings.tree import EmbeddingTree, binarize, fit_tree, parse_prior
from benchuq.core.data import DataError
from benchuq.core.defaults import COMPARISON_LEVEL, EMBEDDING_DIMS, EMBEDDING_HEADS, SEED

__all__ = ["EmbeddingAnalysis", "score_embeddings"]


@dataclass(frozen=True)
class EmbeddingAnalysis:
    """The consistency scores (``result``) and, with several cluster columns, the tree that
    made the clusters (``tree``, else ``None``)."""

    result: ConsistencyResult
    tree: EmbeddingTree | None

    def __repr__(self) -> str:
        tree = "no tree" if self.tree is None else "a tree"
        return f"EmbeddingAnalysis({len(self.result.scores)} models, {tree})"


def score_embeddings(
    embeddings: Mapping[str, np.ndarray],
    meta: pd.DataFrame,
    columns: Sequence[str],
    *,
    bins: int = 4,
    reference: str = "",
    depth: int = 3,
    min_leaf: int = 20,
    prior: Sequence[str] = (),
    min_gain: bool = False,
    heads: int = EMBEDDING_HEADS,
    dims: int = EMBEDDING_DIMS,
    clip: float = 1e-6,
    eps: float = DEFAULT_EPS,
    folds: int = 5,
    reps: int | None = None,
    level: float = COMPARISON_LEVEL,
    seed: int = SEED,
    bootstrap: BootstrapMode = "auto",
) -> EmbeddingAnalysis:
    """Clusters from ``columns`` of ``meta`` and the consistency scores of ``embeddings``.

    One column gives the clusters (numeric ones in ``bins`` quantile bins); several grow an
    EmbeddingTree on the ``reference`` model's embeddings (default: the first) with ``depth``,
    ``min_leaf``, ``prior`` (``COLUMN=WEIGHT`` texts) and, with ``min_gain``, only splits that
    raise the likelihood. The other options are :func:`~.scores.consistency`'s.
    """
    if not columns:
        raise DataError("no cluster column given.", hint="name one or more meta columns.")
    tree = None
    if len(columns) == 1:
        labels = cluster_labels(meta, columns[0], bins=bins)
        check_clusters(labels, file=meta.attrs.get("file", "meta"), column=columns[0])
    else:
        name = reference or next(iter(embeddings))
        tree = fit_tree(
            embeddings[name],
            binarize(meta, list(columns), bins=bins),
            reference=name,
            max_depth=depth,
            min_leaf=min_leaf,
            min_gain=0.0 if min_gain else None,
            prior=parse_prior([p for p in prior if p.strip()]),
            eps=eps,
            seed=seed,
        )
        labels = tree.labels
    result = consistency(
        embeddings,
        labels,
        heads=heads,
        dims=dims,
        clip=clip,
        eps=eps,
        folds=folds,
        reps=reps,
        level=level,
        seed=seed,
        bootstrap=bootstrap,
    )
    return EmbeddingAnalysis(result, tree)

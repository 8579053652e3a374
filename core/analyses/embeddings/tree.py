"""EmbeddingTree: clusters from several meta features (METHODS 9, [MHP] EmbeddingTree).

Meta features are binarised (a categorical column gives one indicator per level, one for two
levels; a numeric column gives ``value <= q`` at its inner quantiles). Starting from all entities,
each node is split on the binary feature whose hard 2-Gaussian split has the highest MAP score:
the in-sample Gaussian log-likelihood of the two sides (MLE mean and covariance + ridge, mixing
weights ``n_side / n``) plus ``log(prior weight)`` of the feature's column. Splitting stops at
``max_depth`` or when no split leaves ``min_leaf`` entities on both sides. The leaves are the
clusters for :func:`core.analyses.embeddings.consistency`, so every model is scored under the same
clustering (the tree is grown on one reference embedding).

Choices the spec leaves open: the likelihood is averaged over the same kind of random heads as the
score (``heads`` x ``dims``, seeded); at a node of ``n`` entities both sides and the one-Gaussian
baseline get the ridge ``eps * tau * d / (n / 2)`` (``tau``: the root's mean per-dimension
variance; the same rule as :func:`core.analyses.embeddings.consistency` with the mean side size). By
default a split is made whenever one is allowed (``min_gain=None``; the spec's stopping rules
are depth and leaf size only), and the table reports the gain over one Gaussian per entity
(nats) so weak splits are visible. The gain includes the mixing term ``log(n_side / n)``,
so a split that does not separate anything gains about ``-log 2``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchuq.core.analyses.embeddings.posterior import DEFAULT_EPS, choose_heads, single_blas_thread
from benchuq.core.data import DataError
from benchuq.core.defaults import SEED
from benchuq.core.validation import check_columns

__all__ = ["BinaryFeature", "EmbeddingTree", "TreeNode", "binarize", "fit_tree", "parse_prior"]


@dataclass(frozen=True)
class BinaryFeature:
    """An indicator over entities with a readable label for each side."""

    column: str
    yes: str
    no: str
    values: np.ndarray


def binarize(meta: pd.DataFrame, columns: Sequence[str], *, bins: int = 4) -> list[BinaryFeature]:
    """Binary features of ``columns`` (see the module docstring)."""
    file = meta.attrs.get("file", "meta")
    out: list[BinaryFeature] = []
    check_columns(
        meta.columns,
        columns,
        what="meta column",
        file=file,
        hint="pick the tree features among the listed columns.",
    )
    for col in columns:
        v = meta[col]
        if v.isna().any():
            raise DataError(
                "a meta value is missing.",
                file=file,
                row=int(np.argmax(v.isna().to_numpy())) + 1,
                column=col,
                hint="fill it in or drop that entity.",
            )
        if pd.api.types.is_numeric_dtype(v) and v.nunique() > 2:
            x = v.to_numpy(dtype=float)
            qs = np.unique(np.quantile(x, np.arange(1, bins) / bins))
            for t in qs[qs < x.max()]:
                out.append(BinaryFeature(col, f"{col} <= {t:.3g}", f"{col} > {t:.3g}", x <= t))
            continue
        text = v.astype(str).to_numpy()
        levels = sorted(set(text))
        for lev in levels[:1] if len(levels) == 2 else levels:
            out.append(BinaryFeature(col, f"{col} = {lev}", f"{col} ≠ {lev}", text == lev))
    return out


def parse_prior(items: Sequence[str]) -> dict[str, float]:
    """``["genre=2", "year=0.5"]`` -> ``{"genre": 2.0, "year": 0.5}`` (tree prior weights)."""
    out: dict[str, float] = {}
    for item in items:
        col, sep, value = item.rpartition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = math.nan
        if not sep or not col.strip() or not weight > 0:
            raise DataError(
                f"cannot read the prior weight '{item}'.",
                hint="write COLUMN=WEIGHT with a positive weight, e.g. dataset=2.",
            )
        out[col.strip()] = weight
    return out


@dataclass(frozen=True)
class TreeNode:
    """One node in pre-order.

    Attributes
    ----------
    depth
        0 for the root.
    condition
        the test that leads here from the parent (``"all"`` for the root).
    size
        entities in the node.
    split
        label of the binary feature that splits it (``None`` for a leaf).
    gain
        MAP log-likelihood gain of that split over one Gaussian, nats per entity,
        averaged over heads (``None`` for a leaf).
    leaf
        the cluster name for a leaf, else ``None``.
    """

    depth: int
    condition: str
    size: int
    split: str | None
    gain: float | None
    leaf: str | None


@dataclass(frozen=True, eq=False)
class EmbeddingTree:
    """The fitted tree: nodes in pre-order and the leaf (cluster) of every entity."""

    nodes: tuple[TreeNode, ...]
    labels: np.ndarray
    reference: str
    settings: Mapping[str, float | int]

    @property
    def leaves(self) -> tuple[str, ...]:
        """Leaf labels (the clusters), in pre-order."""
        return tuple(n.leaf for n in self.nodes if n.leaf is not None)

    def table(self) -> pd.DataFrame:
        """``depth, condition, size, split, gain, leaf`` per node, pre-order."""
        return pd.DataFrame([n.__dict__ for n in self.nodes])

    def text(self) -> str:
        """The tree as indented lines, e.g. ``  dataset = koala (156) -> leaf``."""
        lines = []
        for n in self.nodes:
            tail = (
                f"split on [{n.split}], gain {n.gain:.3f} nats/entity"
                if n.split
                else "leaf (cluster)"
            )
            lines.append(f"{'    ' * n.depth}{n.condition} ({n.size}): {tail}")
        return "\n".join(lines)


def _side_loglik(xs: np.ndarray, n_total: int, ridge: float) -> float:
    """In-sample log-likelihood of one side: Gaussian (MLE + ridge) and weight n_side / n."""
    n, d = xs.shape
    centred = xs - xs.mean(axis=0)
    cov = centred.T @ centred / n
    reg = cov + ridge * np.eye(d)
    chol = np.linalg.cholesky(reg)
    logdet = 2.0 * np.log(np.diag(chol)).sum()
    trace = float(np.trace(np.linalg.solve(reg, cov)))
    return -0.5 * n * (d * math.log(2 * math.pi) + logdet + trace) + n * math.log(n / n_total)


@single_blas_thread
def fit_tree(
    x: np.ndarray,
    features: Sequence[BinaryFeature],
    *,
    reference: str = "",
    max_depth: int = 3,
    min_leaf: int = 20,
    prior: Mapping[str, float] | None = None,
    min_gain: float | None = None,
    heads: int = 4,
    dims: int = 32,
    eps: float = DEFAULT_EPS,
    seed: int = SEED,
) -> EmbeddingTree:
    """Grow the EmbeddingTree on ``x`` ``(N, D)`` (METHODS 9).

    ``prior`` maps a meta column to a positive weight (default 1): its features' MAP score gets
    ``+ log(weight)``, so a weight above 1 favours splitting on that column. ``min_gain``
    (nats per entity, default ``None`` = no threshold, as in METHODS 9) also stops a node whose
    best split gains less than it over one Gaussian; ``0`` keeps only splits that raise the
    likelihood.
    """
    if not features:
        raise DataError("no tree features given.", hint="name at least one meta column.")
    if max_depth < 0 or min_leaf < 2:
        raise DataError(f"max_depth {max_depth} must be >= 0 and min_leaf {min_leaf} >= 2.")
    prior = dict(prior or {})
    for col, w in prior.items():
        if not w > 0:
            raise DataError(f"prior weight {w} of '{col}' must be positive.", column=col)
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    if any(len(f.values) != n for f in features):
        raise DataError("tree features and embedding rows differ in number of entities.")
    rng = np.random.default_rng(seed)
    head_x = []
    for hd in choose_heads(x.shape[1], heads, dims, rng):
        xh = x[:, hd] - x[:, hd].mean(axis=0)
        tau = float(np.mean(xh * xh))
        head_x.append((xh, eps * (tau if tau > 0 else 1.0) * len(hd)))

    def loglik(idx: np.ndarray, sides: list[np.ndarray]) -> float:
        """Mean over heads; ridge ``eps * tau * d / (n / 2)`` at a node of n entities."""
        return float(
            np.mean(
                [
                    sum(_side_loglik(xh[idx[s]], len(idx), r * 2 / len(idx)) for s in sides)
                    for xh, r in head_x
                ]
            )
        )

    nodes: list[TreeNode] = []
    labels = np.empty(n, dtype=object)

    def grow(idx: np.ndarray, depth: int, conditions: tuple[str, ...]) -> None:
        condition = conditions[-1] if conditions else "all"
        best: tuple[float, float, BinaryFeature, np.ndarray] | None = None
        if depth < max_depth:
            base = None
            for f in features:
                mask = f.values[idx]
                if min(mask.sum(), (~mask).sum()) < min_leaf:
                    continue
                if base is None:
                    base = loglik(idx, [np.ones(len(idx), bool)])
                gain = (loglik(idx, [mask, ~mask]) - base) / len(idx)
                score = gain * len(idx) + math.log(prior.get(f.column, 1.0))
                if best is None or score > best[0]:
                    best = (score, gain, f, mask)
        if best is None or (min_gain is not None and best[1] < min_gain):
            leaf = " & ".join(conditions) or "all"
            nodes.append(TreeNode(depth, condition, len(idx), None, None, leaf))
            labels[idx] = leaf
            return
        _, gain, f, mask = best
        nodes.append(TreeNode(depth, condition, len(idx), f.yes, gain, None))
        grow(idx[mask], depth + 1, (*conditions, f.yes))
        grow(idx[~mask], depth + 1, (*conditions, f.no))

    grow(np.arange(n), 0, ())
    labels.setflags(write=False)
    return EmbeddingTree(
        nodes=tuple(nodes),
        labels=labels,
        reference=reference,
        settings={
            "max_depth": max_depth,
            "min_leaf": min_leaf,
            "min_gain": math.nan if min_gain is None else min_gain,
            "heads": heads,
            "dims": dims,
            "eps": eps,
            "seed": seed,
        },
    )

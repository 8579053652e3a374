"""Embedding consistency with meta features: multi-head posterior score (METHODS 9, [MHP]).

Entities (instructions, users, images ...) have a vector per model or per layer and meta features.
Each cluster (a meta category, or a leaf of :mod:`core.embedding_tree`) gets a Gaussian
(mean, covariance + a ridge) and the prior ``n_c / N``; the posterior ``P(c | x)`` of
each entity's own cluster is summarised as **ALP** (average log posterior) and **accuracy**
(share whose arg-max cluster is the true one), averaged over ``H`` heads of ``d'`` random
dimensions, with bootstrap intervals over entities. Every model is scored under the same
clusters.

Choices the spec leaves open (documented here and in :func:`consistency`):

- ``eps`` is relative: every cluster's covariance gets the ridge ``eps * tau * d' / n_bar``, with
  ``tau`` the pooled within-cluster variance per dimension and ``n_bar`` the mean cluster size
  (both from the entities the Gaussians are fitted on), so one ``eps`` fits embeddings of any
  scale and the shrinkage grows as clusters get small relative to the head's dimension ``d'``.
  The ridge is the same for all clusters: a ridge per cluster size made the Gaussians of small
  clusters broad and pulled entities into large clusters (on the AlpacaEval sample accuracy fell
  from 0.61 to 0.36). Default ``4``: in simulations with known truth (3 clusters of 60-1000
  entities in 8-64 dims) it had the smallest bias of the true-parameter ALP among 0.3-8, and a
  tiny ridge gives overconfident out-of-fold posteriors when clusters are small (on the
  AlpacaEval sample with 64-dim heads ``eps=1e-3`` clips a third of the posteriors).
- ``clip`` (default ``1e-6``): entities whose posterior of the true cluster is below ``clip`` in a
  head are left out of that head's ALP (not out of its accuracy); the share left out is reported
  (``clipped``) so the exclusion is visible. ``clip=0`` keeps everyone.
- Heads: if ``dims >= D`` one head with all ``D`` dimensions is used. Each model draws its own
  dimensions from ``seed`` (models may differ in ``D``).
- ``folds`` (default 5): the posterior of an entity comes from Gaussians fitted on the other
  folds (stratified by cluster), so the score measures consistency on entities the Gaussians did
  not see. In-sample fitting (``folds=1``, as in [MHP]) overfits when clusters are small relative
  to ``d'``: ten clusters of 300 identical-distribution points in 16 dimensions then score well
  above chance.
- Intervals over entities, paired across models (the same replicates for every model, so
  differences between models are valid); two modes (``bootstrap=``):

  ``"refit"`` refits the Gaussians in every replicate, with the same folds, so the interval
  carries the error of fitting the Gaussians as well as which entities were drawn. Its target is
  the **expected out-of-fold score of the procedure**: the ALP (accuracy) on new entities of
  Gaussians fitted with this ridge on ``(folds - 1) / folds`` of each cluster, averaged over
  training samples - the quantity a cross-fitted score estimates without bias (``folds=1``: the
  expectation of the in-sample score). It is not the ALP of the true Gaussians: when clusters are
  small relative to ``d'`` fitted Gaussians are worse than the true ones and every fitted score
  is lower, a bias no bootstrap removes (``benchmarks/bench_embeddings.py --coverage`` prints the
  coverage of both targets). Replicates weight the entities instead of drawing them: weights of
  mean 1 and standard deviation ``refit_spread`` (gamma; default 0.1), rescaled within each
  cluster so every cluster keeps its size; a draw is the estimate plus the replicate's deviation
  from the replicates' mean times ``1 / refit_spread`` (a perturbation bootstrap; as
  ``refit_spread -> 0`` it is the delta-method interval of the whole procedure). The deviations
  are centred because weighting alone lowers every replicate's score by about
  ``refit_spread^2`` times the loss from fitting (the weighted fit has fewer effective
  entities), a shift that is not the estimate's error: at 20,000 entities in 64-dimension heads
  it exceeded the interval's width. Why not draw entities with replacement: a drawn sample holds
  about 63% distinct entities, the Gaussians fitted on it are much worse than those fitted on
  the data, and the refitted scores fall and scatter: at 60 entities per cluster in 16
  dimensions the replicates sat one standard error below the estimate (eps 4) and 18 below
  (eps 1e-3); ``refit_spread=1`` behaves alike (intervals 2.5 times too wide at eps 1e-3).
  Every entity keeps its fold, so no entity is scored by Gaussians fitted on it.

  The refit **accuracy** is split in two, because arg-max hits are not smooth in the weights. A
  replicate's change of accuracy is (i) the held-out hits reweighted, linear in the weights, so
  its deviation scales with the spread and is rescaled by ``1 / refit_spread`` as ALP is; plus
  (ii) the hits that flip because the refitted boundaries moved. Boundaries move by
  ``O(refit_spread)``, so ``O(N refit_spread)`` entities near them flip, and the net count of
  those flips fluctuates like a sum of that many signs: ``O(sqrt(refit_spread))``. Part (ii) is
  therefore rescaled by ``1 / sqrt(refit_spread)`` (both rescalings are 1 at ``refit_spread=1``).
  A heuristic: part (ii) also holds a shift linear in the spread (where the fitted boundary is not
  the most accurate one), which this shrinks by ``sqrt(refit_spread)``; the simulations below
  include that case. Rescaling the whole change by ``1 / refit_spread`` blew part (ii) up by
  ``1 / sqrt(refit_spread)``: intervals 1.5-2.4 times wider than the estimate's spread, coverage
  1.00 in every setting of the coverage benchmark. Split, the width no longer depends on the spread
  (0.175, 0.180 and 0.184 at spreads 0.03, 0.1 and 0.3; 16 dimensions, 60 entities per cluster);
  over the coverage benchmark's five settings (100 simulations each) the width is 0.98-1.14 times
  what the estimate's spread calls for and coverage of the procedure accuracy 0.94-1.00.

  ``"linear"`` is the first-order ("infinitesimal jackknife") version of ``"refit"``: as the
  refit draws are deviations divided by the spread, their ``refit_spread -> 0`` limit is linear
  in the weights, ``sum_j (w_rj - 1) IF_j / refit_spread`` with ``IF_j`` the derivative of the
  weighted out-of-fold ALP with respect to entity ``j``'s weight (as a held-out entity of its
  fold and as a training entity of the other folds, through its cluster's mean, covariance and
  training count and the shared ridge; :func:`_influence_head`). It uses the same weights as
  ``"refit"`` (same seed and replicates: same weights, so the two are directly comparable) and
  the same centring; one pass per head and fold (about ``N (2K + folds) d'^2`` multiply-adds,
  :func:`linear_cost`) instead of one per replicate: at 20,000 entities, 16 heads of 64
  dimensions and 8 clusters about 5 s where refitting takes minutes. Its accuracy interval
  covers the held-out entities only (arg-max hits do not move with the fit to first order), so
  it leaves out the fitting error; the accuracy's ``method`` says so.

  ``"scores"`` resamples entities (multinomial, stratified by cluster) and re-averages their
  per-head scores with the Gaussians held fixed: one matrix product, but the interval ignores the
  fitting error and is too narrow when clusters are small relative to ``d'``.

  ``"auto"`` (default) uses ``"refit"`` unless its cost (about ``reps * N * (K + 1) * d'^2``
  multiply-adds per head, :func:`refit_cost`) exceeds :data:`REFIT_BUDGET` (about 10 s on one
  core), then ``"linear"`` unless :func:`linear_cost` exceeds the same budget, then
  ``"scores"``; the mode used is in each interval's ``method`` and in
  ``settings["bootstrap"]``. Default replicates: 200 for ``"refit"``, 1000 for ``"linear"`` and
  ``"scores"``. Percentile intervals; refit and linear draws are kept in the score's range
  (ALP <= 0, accuracy in [0, 1]).
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.linalg import solve_triangular
from scipy.linalg.lapack import dpotrf, dtrtri
from scipy.special import logsumexp

from benchuq.core.data import DataError
from benchuq.core.threads import blas_policy

EMBEDDING_SUFFIXES: tuple[str, ...] = (".npy", ".npz", ".csv", ".parquet")
META_SUFFIXES: tuple[str, ...] = (".csv", ".parquet")
ID_COLUMN = "id"
DEFAULT_EPS = 4.0
BOOTSTRAP_MODES: tuple[str, ...] = ("auto", "refit", "linear", "scores")
BOOTSTRAP_METHODS: dict[str, str] = {
    "refit": "entity-weight bootstrap refitting the Gaussians (target: expected out-of-fold "
    "score of the procedure)",
    "linear": "linearised refit bootstrap (infinitesimal jackknife through the fitted "
    "Gaussians; target: expected out-of-fold score of the procedure)",
    "scores": "entity bootstrap of per-entity scores, Gaussians held fixed",
}
# The accuracy of "linear" moves only through the held-out entities (arg-max hits do not move
# with the fit almost everywhere), so its method names that.
LINEAR_ACCURACY_METHOD = (
    "linearised entity-weight bootstrap of the held-out hits only (accuracy does not move with "
    "the fit to first order: the interval leaves out the error of fitting the Gaussians)"
)
# The accuracy of "refit": reweighted hits rescaled by 1 / spread, flipped hits by
# 1 / sqrt(spread) (module docstring), so its method names that.
REFIT_ACCURACY_METHOD = (
    "entity-weight bootstrap refitting the Gaussians; the reweighted held-out hits rescaled by "
    "1/spread, the hits that flip with the refit by 1/sqrt(spread) (target: expected out-of-fold "
    "accuracy of the procedure)"
)
REFIT_SPREAD = 0.1
DEFAULT_REPS: dict[str, int] = {"refit": 200, "linear": 1000, "scores": 1000}
# "auto" refits while :func:`refit_cost` stays below this many multiply-adds (about 10 s on one
# core, which does 5-7e9 a second here); larger problems fall back to resampling the scores.
REFIT_BUDGET = 6e10
# Replicates are batched so that one block of projected test points stays near this many floats.
_BLOCK_FLOATS = 1 << 22
_LOOP_DIMS = 24  # from this head size on, whitening matrices are inverted one by one
# The work is many small matrix products: one BLAS thread is faster than several (and does not
# oversubscribe the cores of a shared app server).
single_blas_thread = blas_policy  # the package's one thread policy (core.threads)


# ---- inputs --------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class EmbeddingSet:
    """Vectors of one model or layer: ``vectors[i]`` belongs to entity ``ids[i]``.

    ``ids`` is ``None`` for a bare ``.npy`` array (rows then follow the meta table's row order).
    ``file`` and ``columns`` (the name of each dimension in the file) make error messages precise.
    """

    model: str
    vectors: np.ndarray
    ids: tuple[str, ...] | None
    file: str
    columns: tuple[str, ...] | None = None


def _suffix(name: str) -> str:
    return Path(name).suffix.lower()


def _read_table(name: str, data: bytes) -> pd.DataFrame:
    try:
        if _suffix(name) == ".parquet":
            return pd.read_parquet(io.BytesIO(data))
        return pd.read_csv(io.BytesIO(data))
    except Exception as err:  # pandas raises many types for a malformed file
        raise DataError(
            f"cannot read the table ({err}).",
            file=name,
            hint="save it as CSV with a header row, or as Parquet.",
        ) from err


def _id_column(frame: pd.DataFrame, name: str) -> str:
    if ID_COLUMN in frame.columns:
        return ID_COLUMN
    if len(frame.columns) == 0:
        raise DataError("the table has no columns.", file=name)
    return str(frame.columns[0])


def read_embeddings(name: str, data: bytes) -> list[EmbeddingSet]:
    """Embedding sets in one file (METHODS 9).

    - ``.npy``: one ``(N, D)`` array, model = file stem; rows follow the meta table.
    - ``.npz``: optional ``ids`` (1-D) and one or more ``(N, D)`` arrays; each array is a model
      (or layer) named by its key (by the file stem if there is only one).
    - ``.csv`` / ``.parquet``: an ``id`` column (else the first column) and one numeric column
      per dimension, or a single column holding each vector as a list (Parquet) or as text
      ``[0.1, 0.2, ...]`` (CSV); model = file stem.
    """
    stem, suffix = Path(name).stem, _suffix(name)
    if suffix not in EMBEDDING_SUFFIXES:
        raise DataError(
            f"unsupported embedding file type '{suffix}'.",
            file=name,
            hint=f"use one of {', '.join(EMBEDDING_SUFFIXES)}.",
        )
    if suffix in (".npy", ".npz"):
        try:
            loaded = np.load(io.BytesIO(data), allow_pickle=False)
        except Exception as err:
            raise DataError(f"cannot read the array file ({err}).", file=name) from err
        if suffix == ".npy":
            return [_checked(EmbeddingSet(stem, np.asarray(loaded), None, name))]
        try:
            with loaded:
                arrays = {k: np.asarray(loaded[k]) for k in loaded.files}
        except ValueError as err:
            raise DataError(
                f"cannot read an array of the .npz file ({err}).",
                file=name,
                hint="store ids as a string array (dtype 'U'), not Python objects.",
            ) from err
        ids = arrays.pop("ids", None)
        if not arrays:
            raise DataError("the .npz file holds no embedding array.", file=name)
        id_tuple = None if ids is None else tuple(str(x) for x in ids.ravel())
        sets = [
            EmbeddingSet(stem if len(arrays) == 1 else key, arr, id_tuple, name)
            for key, arr in arrays.items()
        ]
        return [_checked(s) for s in sets]
    frame = _read_table(name, data)
    id_col = _id_column(frame, name)
    value_cols = [c for c in frame.columns if c != id_col]
    ids = tuple(str(x) for x in frame[id_col])
    first = frame[value_cols[0]].iloc[0] if len(value_cols) == 1 and len(frame) else None
    if isinstance(first, list | np.ndarray) or (isinstance(first, str) and first.startswith("[")):
        vectors = _vector_column(frame[value_cols[0]], name, str(value_cols[0]))
        return [_checked(EmbeddingSet(stem, vectors, ids, name))]
    for col in value_cols:
        if not pd.api.types.is_numeric_dtype(frame[col]):
            bad = pd.to_numeric(frame[col], errors="coerce").isna() & frame[col].notna()
            row = int(np.argmax(bad.to_numpy())) + 1 if bad.any() else None
            raise DataError(
                "embedding values must be numbers.",
                file=name,
                row=row,
                column=str(col),
                hint=f"keep only '{id_col}' and one numeric column per dimension.",
            )
    vectors = frame[value_cols].to_numpy(dtype=float)
    return [_checked(EmbeddingSet(stem, vectors, ids, name, tuple(map(str, value_cols))))]


def _vector_column(values: pd.Series, name: str, column: str) -> np.ndarray:
    """One vector per row from a list column (Parquet) or JSON-style ``[0.1, 0.2]`` text (CSV)."""
    rows = []
    for i, v in enumerate(values):
        try:
            vec = np.asarray(json.loads(v) if isinstance(v, str) else v, dtype=float)
        except (TypeError, ValueError) as err:
            raise DataError(
                f"cannot read the vector {str(v)[:40]!r}.",
                file=name,
                row=i + 1,
                column=column,
                hint="store one number per column, or a list of numbers such as [0.1, 0.2].",
            ) from err
        if vec.ndim != 1 or (rows and len(vec) != len(rows[0])):
            raise DataError(
                f"vector of {vec.size} values where the first row has "
                f"{len(rows[0]) if rows else 'a list of'} values.",
                file=name,
                row=i + 1,
                column=column,
                hint="give every entity a vector of the same length.",
            )
        rows.append(vec)
    return np.stack(rows)


def _checked(s: EmbeddingSet) -> EmbeddingSet:
    v = s.vectors
    if v.ndim != 2 or v.shape[0] < 2 or v.shape[1] < 1:
        raise DataError(
            f"embedding '{s.model}' has shape {v.shape}; expected (entities, dimensions).",
            file=s.file,
            hint="store one row per entity and one column per dimension.",
        )
    if not np.issubdtype(v.dtype, np.number):
        raise DataError(f"embedding '{s.model}' is not numeric.", file=s.file)
    v = np.asarray(v, dtype=np.float64)
    finite = np.isfinite(v)
    if not finite.all():
        r, c = np.argwhere(~finite)[0]
        column = s.columns[c] if s.columns else f"dimension {c}"
        raise DataError(
            f"embedding '{s.model}' has a non-finite value ({v[r, c]}) for entity "
            f"{s.ids[r] if s.ids else r}.",
            file=s.file,
            row=int(r) + 1,
            column=column,
            hint="recompute or drop that entity; embeddings must be finite numbers.",
        )
    if s.ids is not None:
        if len(s.ids) != v.shape[0]:
            raise DataError(
                f"{len(s.ids)} ids for {v.shape[0]} embedding rows.", file=s.file, column="ids"
            )
        seen: dict[str, int] = {}
        for i, x in enumerate(s.ids):
            if x in seen:
                raise DataError(
                    f"entity id '{x}' appears twice (rows {seen[x] + 1} and {i + 1}).",
                    file=s.file,
                    row=i + 1,
                    column=ID_COLUMN,
                    hint="give every entity one row.",
                )
            seen[x] = i
    v.setflags(write=False)
    return EmbeddingSet(s.model, v, s.ids, s.file, s.columns)


def read_meta(name: str, data: bytes) -> pd.DataFrame:
    """The meta table: an ``id`` column (else the first column) and feature columns.

    Returns a frame indexed by the id (as text), features as columns, row order kept.
    """
    if _suffix(name) not in META_SUFFIXES:
        raise DataError(
            f"unsupported meta file type '{_suffix(name)}'.", file=name, hint="use CSV or Parquet."
        )
    frame = _read_table(name, data)
    id_col = _id_column(frame, name)
    ids = frame[id_col].astype(str)
    dup = ids.duplicated()
    if dup.any():
        row = int(np.argmax(dup.to_numpy())) + 1
        raise DataError(
            f"entity id '{ids.iloc[row - 1]}' appears twice.",
            file=name,
            row=row,
            column=id_col,
            hint="give every entity one row in the meta table.",
        )
    out = frame.drop(columns=[id_col])
    out.index = pd.Index(ids, name=ID_COLUMN)
    out.attrs["file"] = name
    return out


def align(sets: Sequence[EmbeddingSet], meta: pd.DataFrame) -> dict[str, np.ndarray]:
    """Vectors per model in the meta table's entity order; ids must match exactly.

    A bare array (no ids) must have one row per meta row. Raises :class:`DataError` naming the
    first id that is missing on either side.
    """
    meta_file = meta.attrs.get("file", "meta")
    meta_ids = [str(x) for x in meta.index]
    out: dict[str, np.ndarray] = {}
    for s in sets:
        if s.model in out:
            raise DataError(
                f"two embeddings are named '{s.model}'.",
                file=s.file,
                hint="rename one file (or .npz key) so every model or layer has its own name.",
            )
        if s.ids is None:
            if s.vectors.shape[0] != len(meta_ids):
                raise DataError(
                    f"the array has {s.vectors.shape[0]} rows but the meta table has "
                    f"{len(meta_ids)} entities.",
                    file=s.file,
                    hint="a .npy array must have one row per meta row, in the same order; "
                    "or store ids (an 'ids' array in .npz, or an 'id' column in CSV).",
                )
            out[s.model] = s.vectors
            continue
        pos = {x: i for i, x in enumerate(s.ids)}
        missing = [x for x in meta_ids if x not in pos]
        if missing:
            row = meta_ids.index(missing[0]) + 1
            raise DataError(
                f"{len(missing)} entity id(s) of the meta table have no embedding, e.g. "
                f"'{missing[0]}' (embedding '{s.model}' from '{s.file}').",
                file=meta_file,
                row=row,
                column=ID_COLUMN,
                hint="use the same entity ids in the embedding file and the meta table.",
            )
        extra = sorted(set(s.ids) - set(meta_ids))
        if extra:
            raise DataError(
                f"{len(extra)} entity id(s) have an embedding '{s.model}' but no meta row, "
                f"e.g. '{extra[0]}'.",
                file=s.file,
                row=pos[extra[0]] + 1,
                column=ID_COLUMN,
                hint="add them to the meta table or drop them from the embedding file.",
            )
        out[s.model] = s.vectors[[pos[x] for x in meta_ids]]
    return out


def cluster_labels(meta: pd.DataFrame, column: str, *, bins: int = 4) -> np.ndarray:
    """One cluster label per entity from a meta column (METHODS 9).

    Categorical columns are used as they are; numeric columns with more than ``bins`` distinct
    values are cut into ``bins`` quantile bins labelled ``"column in [low, high]"``.
    """
    file = meta.attrs.get("file", "meta")
    if column not in meta.columns:
        raise DataError(
            f"no meta column '{column}'; columns are {list(map(str, meta.columns))}.",
            file=file,
            column=column,
            hint="pick one of the listed columns.",
        )
    values = meta[column]
    if values.isna().any():
        row = int(np.argmax(values.isna().to_numpy())) + 1
        raise DataError(
            "a meta value is missing.",
            file=file,
            row=row,
            column=column,
            hint="fill it in or drop that entity.",
        )
    if pd.api.types.is_numeric_dtype(values) and values.nunique() > bins:
        cut = pd.qcut(values.astype(float), q=bins, duplicates="drop", precision=3)
        return np.array([f"{column} in [{iv.left:g}, {iv.right:g}]" for iv in cut], dtype=object)
    return values.astype(str).to_numpy(dtype=object)


def check_clusters(labels: np.ndarray, *, file: str = "meta", column: str | None = None) -> None:
    """A cluster needs at least two entities (a Gaussian of one point has no covariance)."""
    names, counts = np.unique(labels.astype(str), return_counts=True)
    if len(names) < 2:
        raise DataError(
            f"all entities are in one cluster ('{names[0]}'); nothing to tell apart.",
            file=file,
            column=column,
            hint="choose a meta column with at least two values.",
        )
    small = names[counts < 2]
    if len(small):
        row = int(np.flatnonzero(labels.astype(str) == small[0])[0]) + 1
        raise DataError(
            f"cluster '{small[0]}' has only one entity"
            + (f" ({len(small)} such clusters)" if len(small) > 1 else "")
            + "; a Gaussian needs at least two.",
            file=file,
            row=row,
            column=column,
            hint="merge rare values into an 'other' category, drop those entities, "
            "or use fewer quantile bins.",
        )


# ---- samples -------------------------------------------------------------------------------
SAMPLE_DIR = Path(str(files("benchuq.sample_data"))) / "embeddings"
EMBEDDING_SAMPLES: dict[str, str] = {
    "alpaca_eval": "805 AlpacaEval instructions: all-MiniLM-L6-v2 layers 1, 2, 4, 6, TF-IDF + SVD, "
    "random; meta: source data set, length",
    "synthetic": "[MHP] synthetic study: 10 Gaussian clusters, separated / partial / overlapping",
}
SAMPLE_LABELS: dict[str, str] = {"alpaca_eval": "dataset", "synthetic": "cluster"}


def load_embedding_sample(name: str) -> tuple[list[EmbeddingSet], pd.DataFrame]:
    """The embedding sets and meta table of a sample in ``sample_data/embeddings``."""
    if name not in EMBEDDING_SAMPLES:
        raise DataError(
            f"unknown embedding sample '{name}'.",
            hint=f"use one of {', '.join(EMBEDDING_SAMPLES)}.",
        )
    emb, meta = SAMPLE_DIR / f"{name}.npz", SAMPLE_DIR / f"{name}_meta.csv"
    return read_embeddings(emb.name, emb.read_bytes()), read_meta(meta.name, meta.read_bytes())


# ---- Gaussian posterior --------------------------------------------------------------------
def gaussian_stats(x: np.ndarray, group: np.ndarray, g: int) -> tuple[np.ndarray, ...]:
    """Sufficient statistics per group: counts ``(g,)``, sums ``(g, d)``, cross products
    ``(g, d, d)``. Fits on any union of groups then cost ``O(g d^2)``, not a pass over data."""
    d = x.shape[1]
    counts = np.bincount(group, minlength=g).astype(np.float64)
    sums = np.zeros((g, d))
    cross = np.zeros((g, d, d))
    for j in range(g):
        xj = x[group == j]
        sums[j] = xj.sum(axis=0)
        cross[j] = xj.T @ xj
    return counts, sums, cross


def log_posterior(
    counts: np.ndarray, sums: np.ndarray, cross: np.ndarray, test: np.ndarray, eps: float
) -> np.ndarray:
    """``(n_test, K)`` log P(c | x) from per-cluster statistics (METHODS 9).

    Gaussian per cluster: MLE mean and covariance plus ``eps * tau * d / n_bar * I`` (``tau``:
    pooled within-cluster variance per dimension; ``n_bar``: mean cluster size; the same ridge
    for every cluster); prior ``n_c / N``; normalised by log-sum-exp."""
    k, d = sums.shape
    n_c = np.maximum(counts, 1.0)
    within = np.einsum("kii->", cross) - float(np.sum(sums * sums / n_c[:, None]))
    tau = within / (n_c.sum() * d)
    tau = tau if tau > 0 else 1.0
    ridge = eps * tau * d * k / n_c.sum()
    ll = np.empty((test.shape[0], k))
    const = 0.5 * d * math.log(2 * math.pi)
    for c in range(k):
        mu = sums[c] / n_c[c]
        cov = cross[c] / n_c[c] - np.outer(mu, mu)
        cov[np.diag_indices(d)] += ridge
        chol = np.linalg.cholesky(cov)
        whiten = solve_triangular(chol, np.eye(d), lower=True, check_finite=False)
        z = (test - mu) @ whiten.T
        ll[:, c] = -0.5 * np.einsum("ij,ij->i", z, z) - np.log(np.diag(chol)).sum() - const
    ll += np.log(n_c / n_c.sum())
    return ll - logsumexp(ll, axis=1, keepdims=True)


def _folds(y: np.ndarray, folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold number per entity, stratified by cluster (each cluster spread over the folds)."""
    out = np.empty(len(y), dtype=np.int64)
    offset = int(rng.integers(folds))
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        out[rng.permutation(idx)] = (np.arange(len(idx)) + offset) % folds
        offset = (offset + len(idx)) % folds
    return out


def head_posteriors(
    xt: np.ndarray, y: np.ndarray, k: int, dims: np.ndarray, eps: float, fold: np.ndarray
) -> np.ndarray:
    """``(N, k)`` log posterior of every entity in one head (out-of-fold where folds > 1).

    ``xt`` is the transposed ``(D, N)`` embedding (rows of dimensions gather fast); the
    Gaussians of each fold come from the statistics of the other folds."""
    xh = np.ascontiguousarray(xt[dims].T)
    xh -= xh.mean(axis=0)
    nfold = int(fold.max()) + 1
    counts, sums, cross = gaussian_stats(xh, y * nfold + fold, k * nfold)
    counts, sums, cross = (a.reshape(k, nfold, *a.shape[1:]) for a in (counts, sums, cross))
    if nfold == 1:
        return log_posterior(counts[:, 0], sums[:, 0], cross[:, 0], xh, eps)
    out = np.empty((len(y), k))
    tot = counts.sum(axis=1), sums.sum(axis=1), cross.sum(axis=1)
    for f in range(nfold):
        test = fold == f
        out[test] = log_posterior(
            tot[0] - counts[:, f], tot[1] - sums[:, f], tot[2] - cross[:, f], xh[test], eps
        )
    return out


def choose_heads(n_dims: int, heads: int, dims: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Dimensions of each head: ``heads`` random subsets of ``dims`` (all, once, if dims >= D)."""
    if dims >= n_dims:
        return [np.arange(n_dims)]
    return [np.sort(rng.choice(n_dims, size=dims, replace=False)) for _ in range(heads)]


# ---- results -------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScoreInterval:
    """A point estimate with a bootstrap percentile interval (units of the score)."""

    estimate: float
    low: float
    high: float
    level: float
    method: str


@dataclass(frozen=True, eq=False)
class EmbeddingScore:
    """Consistency of one model (or layer) with the clusters (METHODS 9).

    Attributes:
        model: name.
        alp: average log posterior of the true cluster (nats, <= 0; 0 = perfectly consistent;
            ``log(1/K)`` is what a prior-only guess gets with K equal clusters).
        accuracy: share of entities whose most probable cluster is the true one (0..1).
        clipped: share of entity-head pairs left out of the ALP by ``clip``.
        confusion: ``(K, K)`` mean posterior ``P(column | x)`` over entities of row's cluster,
            averaged over heads (rows sum to 1).
        heads, dims: heads used and dimensions per head (after the ``dims >= D`` rule).
    """

    model: str
    alp: ScoreInterval
    accuracy: ScoreInterval
    clipped: float
    confusion: np.ndarray
    heads: int
    dims: int


@dataclass(frozen=True, eq=False)
class ConsistencyResult:
    """Scores of every model under the same clusters, with the bootstrap replicates.

    ``alp_draws`` and ``accuracy_draws`` are ``(reps, M)``; replicates are paired across models
    (the same entity weights), so differences between columns are valid. With
    ``settings["bootstrap"] == "refit"`` a draw is the estimate plus the replicate's deviation
    from the replicates' mean divided by ``refit_spread`` (kept within the score's range); for
    accuracy only the reweighted held-out hits are divided so, the flipped hits by
    ``sqrt(refit_spread)`` (module docstring).
    """

    scores: tuple[EmbeddingScore, ...]
    clusters: tuple[str, ...]
    cluster_sizes: np.ndarray
    alp_draws: np.ndarray
    accuracy_draws: np.ndarray
    settings: Mapping[str, float | int | str]

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(s.model for s in self.scores)

    def table(self) -> pd.DataFrame:
        """One row per model: ``model, alp, alp_low, alp_high, accuracy, accuracy_low,
        accuracy_high, clipped, heads, dims``."""
        return pd.DataFrame(
            [
                {
                    "model": s.model,
                    "alp": s.alp.estimate,
                    "alp_low": s.alp.low,
                    "alp_high": s.alp.high,
                    "accuracy": s.accuracy.estimate,
                    "accuracy_low": s.accuracy.low,
                    "accuracy_high": s.accuracy.high,
                    "clipped": s.clipped,
                    "heads": s.heads,
                    "dims": s.dims,
                }
                for s in self.scores
            ]
        )

    def differences(self, reference: str | None = None) -> pd.DataFrame:
        """ALP and accuracy of each model minus ``reference`` (default: the first model), with
        paired percentile intervals at the result's level."""
        ref = self.models.index(reference or self.models[0])
        level = float(self.settings["level"])
        q = [(1 - level) / 2, (1 + level) / 2]
        rows = []
        for i, s in enumerate(self.scores):
            if i == ref:
                continue
            da = self.alp_draws[:, i] - self.alp_draws[:, ref]
            dc = self.accuracy_draws[:, i] - self.accuracy_draws[:, ref]
            lo_a, hi_a = np.quantile(da, q)
            lo_c, hi_c = np.quantile(dc, q)
            rows.append(
                {
                    "model": s.model,
                    "reference": self.models[ref],
                    "alp_diff": s.alp.estimate - self.scores[ref].alp.estimate,
                    "alp_diff_low": lo_a,
                    "alp_diff_high": hi_a,
                    "accuracy_diff": s.accuracy.estimate - self.scores[ref].accuracy.estimate,
                    "accuracy_diff_low": lo_c,
                    "accuracy_diff_high": hi_c,
                }
            )
        return pd.DataFrame(rows)


def _resample_counts(y: np.ndarray, k: int, reps: int, rng: np.random.Generator) -> np.ndarray:
    """``(reps, N)`` bootstrap counts stratified by cluster: each replicate draws ``n_c`` entities
    with replacement from cluster ``c``, so every cluster keeps its size."""
    out = np.zeros((reps, len(y)))
    for c in range(k):
        idx = np.flatnonzero(y == c)
        draws = rng.integers(0, len(idx), size=(reps, len(idx)))
        flat = (draws + np.arange(reps)[:, None] * len(idx)).ravel()
        out[:, idx] = np.bincount(flat, minlength=reps * len(idx)).reshape(reps, len(idx))
    return out


def _perturbation_weights(
    y: np.ndarray, k: int, reps: int, rng: np.random.Generator, spread: float
) -> np.ndarray:
    """``(reps, N)`` positive entity weights of mean 1 and standard deviation ``spread`` (gamma),
    rescaled within each cluster so that every cluster keeps its total weight ``n_c``."""
    w = rng.gamma(1.0 / spread**2, spread**2, size=(reps, len(y)))
    for c in range(k):
        idx = np.flatnonzero(y == c)
        w[:, idx] *= len(idx) / w[:, idx].sum(axis=1, keepdims=True)
    return w


def _weighted_stats(
    xh: np.ndarray, cells: list[np.ndarray], w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted counts ``(G, R)``, sums ``(G, R, d)`` and cross products ``(G, R, d, d)`` of the
    entities of each cell under entity weights ``w`` ``(R, N)``."""
    reps, d = w.shape[0], xh.shape[1]
    counts = np.empty((len(cells), reps))
    sums = np.empty((len(cells), reps, d))
    cross = np.empty((len(cells), reps, d, d))
    for g, idx in enumerate(cells):
        xg, wg = xh[idx], w[:, idx]
        counts[g] = wg.sum(axis=1)
        sums[g] = wg @ xg
        cross[g] = (wg @ (xg[:, :, None] * xg[:, None, :]).reshape(len(idx), -1)).reshape(
            reps, d, d
        )
    return counts, sums, cross


def _whitening(cov: np.ndarray, mu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each ``(d, d)`` covariance of a stack: ``[L^-1, -L^-1 mu]`` ``(..., d, d + 1)`` in
    float32 (``L`` its Cholesky factor, so ``[x, 1] -> L^-1 (x - mu)`` whitens) and
    ``log det L``. Small matrices go through numpy's batched Cholesky and inverse; from
    :data:`_LOOP_DIMS` dimensions on, LAPACK ``potrf`` + ``trtri`` per matrix (the batched
    general inverse then costs about four times as much)."""
    d = cov.shape[-1]
    out = np.empty((*cov.shape[:-1], d + 1), dtype=np.float32)
    if d < _LOOP_DIMS:
        chol = np.linalg.cholesky(cov)
        inv = np.linalg.inv(chol)
        out[..., :d] = inv
        out[..., d] = -np.einsum("...oi,...i->...o", inv, mu)
        return out, np.log(np.diagonal(chol, axis1=-2, axis2=-1)).sum(axis=-1)
    log_det = np.empty(cov.shape[:-2])
    flat_cov, flat_mu = cov.reshape(-1, d, d), mu.reshape(-1, d)
    flat_out, flat_det = out.reshape(-1, d, d + 1), log_det.reshape(-1)
    for i, c in enumerate(flat_cov):
        chol, info = dpotrf(c, lower=1, clean=1)
        if info:
            raise np.linalg.LinAlgError("a refitted covariance is not positive definite")
        inv = dtrtri(chol, lower=1)[0]
        flat_out[i, :, :d] = inv
        flat_out[i, :, d] = -(inv @ flat_mu[i])
        flat_det[i] = np.log(np.diagonal(chol)).sum()
    return out, log_det


def _refit_head(
    xh: np.ndarray,
    y: np.ndarray,
    k: int,
    fold: np.ndarray,
    w: np.ndarray,
    eps: float,
    log_clip: float,
) -> tuple[np.ndarray, np.ndarray]:
    """ALP and accuracy ``(R,)`` of one head in each bootstrap replicate, Gaussians refitted.

    ``xh`` is the centred ``(N, d)`` head; ``w`` ``(R, N)`` the entity weights (all ones
    reproduce the point estimate). In replicate ``r`` the Gaussians of fold ``f`` are fitted (as
    :func:`log_posterior`: weighted MLE + the relative ridge, prior from the training weights)
    on the entities outside fold ``f`` and score the entities inside it. Replicates go in blocks:
    per block and fold one pass of Cholesky factors and triangular inverses, and one matrix
    product projecting the test entities on every replicate's and cluster's whitening at once
    (float32: its rounding, ~1e-6 nats per entity, is far below the replicates' spread)."""
    n, d = xh.shape
    nfold = int(fold.max()) + 1
    cells = [np.flatnonzero((y == c) & (fold == f)) for f in range(nfold) for c in range(k)]
    tests = [np.flatnonzero(fold == f) for f in range(nfold)]
    largest = max(len(t) for t in tests)
    block = max(1, min(w.shape[0], _BLOCK_FLOATS // (largest * k * d)))
    const = 0.5 * d * math.log(2 * math.pi)
    xa = np.hstack([xh, np.ones((n, 1))]).astype(np.float32)
    alp = np.empty(w.shape[0])
    acc = np.empty(w.shape[0])
    for start in range(0, w.shape[0], block):
        wb = w[start : start + block]
        nb = wb.shape[0]
        stats = _weighted_stats(xh, cells, wb)
        counts, sums, cross = (a.reshape(nfold, k, nb, *a.shape[2:]) for a in stats)
        tot = counts.sum(axis=0), sums.sum(axis=0), cross.sum(axis=0)
        num = np.zeros(nb)
        den = np.zeros(nb)
        hits = np.zeros(nb)
        for f, test in enumerate(tests):
            tc, ts, tx = tot
            if nfold > 1:  # train on the other folds
                tc, ts, tx = tc - counts[f], ts - sums[f], tx - cross[f]
            n_c = np.maximum(tc, 1.0)  # (k, nb)
            n_all = n_c.sum(axis=0)
            within = np.einsum("krii->r", tx) - np.sum(ts * ts / n_c[:, :, None], axis=(0, 2))
            tau = within / (n_all * d)
            tau = np.where(tau > 0, tau, 1.0)
            mu = ts / n_c[:, :, None]
            cov = tx / n_c[:, :, None, None] - mu[:, :, :, None] * mu[:, :, None, :]
            cov[:, :, np.arange(d), np.arange(d)] += (eps * tau * d * k / n_all)[:, None]
            white, log_det = _whitening(cov, mu)  # (k, nb, d, d + 1), (k, nb)
            proj = white.reshape(-1, d + 1) @ xa[test].T  # (k nb d, n_f)
            proj *= proj
            dist = proj.reshape(k, nb, d, len(test)).sum(axis=2, dtype=np.float64)
            ll = (np.log(n_c / n_all) - log_det - const)[:, :, None] - 0.5 * dist  # (k, nb, n_f)
            yt = y[test]
            top = ll.max(axis=0)
            norm = top + np.log(np.exp(ll - top).sum(axis=0))  # log-sum-exp over clusters
            lp_true = ll[yt, :, np.arange(len(test))].T - norm  # (nb, n_f)
            wt = wb[:, test]
            keep = wt * (lp_true >= log_clip)
            num += np.einsum("ri,ri->r", keep, np.where(keep > 0, lp_true, 0.0))
            den += keep.sum(axis=1)
            hits += np.einsum("ri,ri->r", wt, np.argmax(ll, axis=0) == yt)
        alp[start : start + nb] = num / np.maximum(den, 1)
        acc[start : start + nb] = hits / wb.sum(axis=1)
    return alp, acc


def _influence_head(
    xh: np.ndarray,
    y: np.ndarray,
    k: int,
    fold: np.ndarray,
    lp: np.ndarray,
    eps: float,
    log_clip: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Derivatives ``(N,)`` of one head's ALP and accuracy with respect to each entity's weight
    at ``w = 1``: the first-order ("infinitesimal jackknife") version of :func:`_refit_head`.

    ``xh`` is the centred ``(N, d)`` head and ``lp`` its ``(N, K)`` out-of-fold log posteriors
    (:func:`head_posteriors`). An entity's weight moves the weighted ALP (a) as a test entity of
    its fold, ``keep_i (lp_i - ALP) / n_kept``, and (b) as a training entity of every other fold
    (of its own fold too when ``folds = 1``), through its cluster's weighted MLE mean
    ``(x_j - mu_c) / n_c`` and covariance ``((x_j - mu_c)(x_j - mu_c)' - Sigma_c) / n_c``, its
    cluster's training count in the prior, and the shared ridge ``eps * tau * d' * K / N_train``
    (through ``tau`` and ``N_train``). Held-out log posteriors enter through
    ``d ll / d mu = S^-1 r``, ``d ll / d S = (S^-1 r r' S^-1 - S^-1) / 2`` weighted by
    ``1[c = y_i] - p_ic``. The clip keeps its role in the test part (entities below it carry no
    weight), its indicator's derivative (zero almost everywhere) is ignored, as are the guards
    ``n_c >= 1`` and ``tau > 0``. Accuracy (arg-max hits) does not move with the fit almost
    everywhere: its derivative is the test part ``(hit_i - accuracy) / N`` only, so its linear
    interval leaves out the fitting noise. Cost per fold about ``N K d'^2`` (two products of
    the held-out entities with each cluster's whitening) plus ``N d'^2`` for the training part.
    """
    n, d = xh.shape
    nfold = int(fold.max()) + 1
    lp_true = lp[np.arange(n), y]
    kept = lp_true >= log_clip
    share = kept / max(int(kept.sum()), 1)  # each entity's weight in the head's ALP
    alp = float(np.sum(share * np.where(kept, lp_true, 0.0)))
    hits = (np.argmax(lp, axis=1) == y).astype(np.float64)
    infl = share * np.where(kept, lp_true - alp, 0.0)  # (a): as a test entity
    # d ALP / d ll_ic of each held-out entity: its share of the ALP times (1[c = y_i] - p_ic)
    grad_ll = -np.exp(lp) * share[:, None]
    grad_ll[np.arange(n), y] += share
    counts, sums, cross = gaussian_stats(xh, y * nfold + fold, k * nfold)
    counts, sums, cross = (a.reshape(k, nfold, *a.shape[1:]) for a in (counts, sums, cross))
    tot = counts.sum(axis=1), sums.sum(axis=1), cross.sum(axis=1)
    eye = np.eye(d)
    for f in range(nfold):
        test = np.flatnonzero(fold == f)
        train = fold != f if nfold > 1 else np.ones(n, dtype=bool)
        tc, ts, tx = tot
        if nfold > 1:  # train on the other folds
            tc, ts, tx = (t - s[:, f] for t, s in zip(tot, (counts, sums, cross), strict=True))
        n_c = np.maximum(tc, 1.0)
        n_all = float(n_c.sum())
        mu = ts / n_c[:, None]
        sigma = tx / n_c[:, None, None] - mu[:, :, None] * mu[:, None, :]
        within = float(np.einsum("kii->", tx) - np.sum(ts * ts / n_c[:, None]))
        tau = within / (n_all * d)
        tau = tau if tau > 0 else 1.0
        ridge = eps * tau * d * k / n_all
        grad_ridge = 0.0
        for c in range(k):
            chol = np.linalg.cholesky(sigma[c] + ridge * eye)
            inv = solve_triangular(chol, eye, lower=True, check_finite=False)
            z = (xh[test] - mu[c]) @ inv.T  # whitened residuals of the held-out entities
            b = grad_ll[test, c]
            zb = z * b[:, None]
            inner = zb.T @ z
            inner[np.diag_indices(d)] -= b.sum()
            grad_cov = 0.5 * (inv.T @ inner @ inv)  # d ALP / d S_c
            grad_mu = inv.T @ zb.sum(axis=0)  # d ALP / d mu_c
            grad_ridge += float(np.trace(grad_cov))
            rows = np.flatnonzero(train & (y == c))
            r = xh[rows] - mu[c]
            quad = np.einsum("ij,ij->i", r @ grad_cov, r)
            # (b): mean, covariance and prior (the prior's 1 / N_train part sums to zero)
            infl[rows] += (quad + r @ grad_mu - np.sum(grad_cov * sigma[c]) + b.sum()) / n_c[c]
        rows = np.flatnonzero(train)
        r = xh[rows] - mu[y[rows]]
        # the ridge eps * K * within / N_train^2: d within / d w_j = |x_j - mu_c|^2
        infl[rows] += grad_ridge * eps * k / n_all**2 * (np.einsum("ij,ij->i", r, r) - 2 * d * tau)
    return infl, (hits - hits.mean()) / n


def refit_cost(n: int, k: int, folds: int, widths: Sequence[int], reps: int) -> float:
    """Multiply-adds of the ``"refit"`` bootstrap: per replicate and head of ``d'`` dimensions
    (``widths``: every head of every model) about ``N (K + 1) d'^2`` for the weighted statistics
    and the projections plus ``K folds d'^3 / 1.5`` for the Cholesky factors and inverses."""
    return float(reps * sum(n * (k + 1) * w * w + k * folds * w**3 / 1.5 for w in widths))


def linear_cost(n: int, k: int, folds: int, widths: Sequence[int], reps: int) -> float:
    """Multiply-adds of the ``"linear"`` bootstrap beyond the point estimate: per head of ``d'``
    dimensions (``widths``: every head of every model) about ``N (2 K + folds) d'^2`` for the
    influence of the entities (:func:`_influence_head`) plus ``2 K folds d'^3`` for the
    whitening and gradient matrices; then ``reps N`` per model for the replicates, counted once
    per head here (an upper bound)."""
    return float(sum(n * (2 * k + folds) * w * w + 2 * k * folds * w**3 + reps * n for w in widths))


@single_blas_thread
def consistency(
    embeddings: Mapping[str, np.ndarray],
    labels: Sequence[str] | np.ndarray,
    *,
    heads: int = 16,
    dims: int = 64,
    clip: float = 1e-6,
    eps: float = DEFAULT_EPS,
    folds: int = 5,
    reps: int | None = None,
    level: float = 0.95,
    seed: int = 0,
    bootstrap: str = "auto",
    refit_spread: float = REFIT_SPREAD,
) -> ConsistencyResult:
    """ALP and cluster accuracy of each model with bootstrap intervals (METHODS 9).

    Args:
        embeddings: model (or layer) name -> ``(N, D_m)`` vectors, rows aligned with ``labels``.
        labels: cluster of each entity (a meta category or a tree leaf).
        heads, dims: ``heads`` random subsets of ``dims`` dimensions per model; one head of all
            dimensions when ``dims >= D_m``.
        clip: entities whose true-cluster posterior is below ``clip`` are left out of that head's
            ALP (default ``1e-6``; ``0`` keeps all).
        eps: covariance ridge ``eps * tau * d' / n_bar`` (``tau``: pooled within-cluster
            variance per dimension, ``n_bar``: mean cluster size; default ``4``).
        folds: cross-fitting folds (``1`` = fit and score on the same entities, as in [MHP]).
        reps, level: bootstrap replicates over entities (default 200 when refitting, 1000 when
            resampling scores) and interval level.
        seed: seeds the heads, the folds and the bootstrap.
        bootstrap: ``"refit"`` (refit the Gaussians in every replicate; the interval targets the
            expected out-of-fold score of the procedure), ``"linear"`` (the first-order version
            of ``"refit"`` on the same entity weights, :func:`_influence_head`; the accuracy
            interval then leaves out the fitting error), ``"scores"`` (resample per-entity
            scores, Gaussians fixed; fast, too narrow when clusters are small relative to
            ``dims``) or ``"auto"`` (refit unless its cost exceeds :data:`REFIT_BUDGET`, else
            linear unless :func:`linear_cost` does, else scores).
        refit_spread: standard deviation of the entity weights of ``"refit"`` and ``"linear"``
            (default 0.1; ``1`` perturbs as much as resampling does, which biases the refit
            replicates downward; the linear draws only depend on it through the weights'
            skewness).
    """
    y_text = np.asarray(labels).astype(str)
    check_clusters(y_text)
    clusters, y = np.unique(y_text, return_inverse=True)
    k, n = len(clusters), len(y)
    if heads < 1 or dims < 1:
        raise DataError(f"heads ({heads}) and dims ({dims}) must be at least 1.")
    if not 0 <= clip < 1:
        raise DataError(f"clip {clip} must be in [0, 1).")
    if eps <= 0:
        raise DataError(f"eps {eps} must be positive.")
    if not 0 < level < 1:
        raise DataError(f"level {level} must be between 0 and 1.")
    if bootstrap not in BOOTSTRAP_MODES:
        raise DataError(
            f"bootstrap {bootstrap!r} is not one of {', '.join(BOOTSTRAP_MODES)}.",
            hint="use 'refit' (honest about fitting the Gaussians), 'linear' (its fast "
            "first-order version) or 'scores' (fast, Gaussians held fixed).",
        )
    if reps is not None and reps < 1:
        raise DataError(f"reps {reps} must be at least 1.")
    sizes = np.bincount(y, minlength=k)
    if folds < 1 or (folds > 1 and sizes.min() < folds):
        raise DataError(
            f"folds {folds} needs every cluster to have at least {folds} entities "
            f"(the smallest has {sizes.min()}).",
            hint="use fewer folds (1 = in-sample) or merge small clusters.",
        )
    if bootstrap == "auto":
        widths = [
            w
            for x in embeddings.values()
            for w in ([np.shape(x)[1]] if dims >= np.shape(x)[1] else [dims] * heads)
        ]
        if refit_cost(n, k, folds, widths, reps or DEFAULT_REPS["refit"]) <= REFIT_BUDGET:
            bootstrap = "refit"
        elif linear_cost(n, k, folds, widths, reps or DEFAULT_REPS["linear"]) <= REFIT_BUDGET:
            bootstrap = "linear"
        else:
            bootstrap = "scores"
    reps = reps or DEFAULT_REPS[bootstrap]
    rng = np.random.default_rng(seed)  # folds and heads
    boot_rng = np.random.default_rng([seed, 1])  # replicates: the estimate ignores the mode
    fold = _folds(y, folds, rng) if folds > 1 else np.zeros(n, dtype=np.int64)
    if bootstrap in ("refit", "linear"):
        if not 0 < refit_spread <= 1:
            raise DataError(f"refit_spread {refit_spread} must be in (0, 1].")
        counts = _perturbation_weights(y, k, reps, boot_rng, refit_spread)
    else:
        counts = _resample_counts(y, k, reps, boot_rng)
    log_clip = math.log(clip) if clip > 0 else -math.inf
    q = [(1 - level) / 2, (1 + level) / 2]
    scores, alp_draws, acc_draws = [], [], []
    for model, x in embeddings.items():
        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 2 or x.shape[0] != n:
            raise DataError(
                f"embedding '{model}' has shape {x.shape}; expected ({n}, dimensions).",
                hint="align the embedding rows with the entities' labels.",
            )
        head_dims = choose_heads(x.shape[1], heads, dims, rng)
        xt = np.ascontiguousarray(x.T)
        lp_true = np.empty((n, len(head_dims)))
        correct = np.empty((n, len(head_dims)))
        confusion = np.zeros((k, k))
        boot_alp, boot_acc = np.zeros(reps), np.zeros(reps)
        infl_alp, infl_acc = np.zeros(n), np.zeros(n)
        for h, hd in enumerate(head_dims):
            lp = head_posteriors(xt, y, k, hd, eps, fold)
            lp_true[:, h] = lp[np.arange(n), y]
            correct[:, h] = np.argmax(lp, axis=1) == y
            confusion += np.stack([np.exp(lp[y == c]).mean(axis=0) for c in range(k)])
            if bootstrap in ("refit", "linear"):
                xh = np.ascontiguousarray(xt[hd].T)
                xh -= xh.mean(axis=0)
            if bootstrap == "refit":
                head_alp, head_acc = _refit_head(xh, y, k, fold, counts, eps, log_clip)
                boot_alp += head_alp / len(head_dims)
                boot_acc += head_acc / len(head_dims)
            elif bootstrap == "linear":
                head_alp, head_acc = _influence_head(xh, y, k, fold, lp, eps, log_clip)
                infl_alp += head_alp / len(head_dims)
                infl_acc += head_acc / len(head_dims)
        keep = (lp_true >= log_clip).astype(np.float64)
        kept_lp = np.where(keep > 0, lp_true, 0.0)
        alp_head = kept_lp.sum(axis=0) / np.maximum(keep.sum(axis=0), 1)
        alp = float(alp_head.mean())
        acc = float(correct.mean())
        if bootstrap == "scores":
            boot_alp = ((counts @ kept_lp) / np.maximum(counts @ keep, 1)).mean(axis=1)
            boot_acc = (counts @ correct).mean(axis=1) / n
        else:
            if bootstrap == "linear":  # first-order replicate deviations from the influences
                boot_alp = counts @ infl_alp - infl_alp.sum()  # sum_j (w_rj - 1) IF_j
                boot_acc = counts @ infl_acc - infl_acc.sum()
                acc_dev = (boot_acc - boot_acc.mean()) / refit_spread
            else:  # refit: reweighted held-out hits / spread, flipped hits / sqrt(spread)
                held = counts @ correct.mean(axis=1) / counts.sum(axis=1)
                flips = boot_acc - held
                acc_dev = (held - held.mean()) / refit_spread + (flips - flips.mean()) / math.sqrt(
                    refit_spread
                )
            # perturbation draws: centred, rescaled to full size, kept in the score's range
            boot_alp = np.minimum(alp + (boot_alp - boot_alp.mean()) / refit_spread, 0.0)
            boot_acc = np.clip(acc + acc_dev, 0.0, 1.0)
        alp_draws.append(boot_alp)
        acc_draws.append(boot_acc)
        heads_text = "1 head" if len(head_dims) == 1 else f"{len(head_dims)} heads"
        method = f"{BOOTSTRAP_METHODS[bootstrap]}, percentile, {reps} reps; {heads_text}"
        acc_method = method
        if bootstrap in ("linear", "refit"):
            how = LINEAR_ACCURACY_METHOD if bootstrap == "linear" else REFIT_ACCURACY_METHOD
            acc_method = f"{how}, percentile, {reps} reps; {heads_text}"
        a_lo, a_hi = np.quantile(boot_alp, q)
        c_lo, c_hi = np.quantile(boot_acc, q)
        scores.append(
            EmbeddingScore(
                model=str(model),
                alp=ScoreInterval(alp, float(a_lo), float(a_hi), level, method),
                accuracy=ScoreInterval(acc, float(c_lo), float(c_hi), level, acc_method),
                clipped=float(1 - keep.mean()),
                confusion=confusion / len(head_dims),
                heads=len(head_dims),
                dims=len(head_dims[0]),
            )
        )
    if not scores:
        raise DataError("no embeddings given.", hint="provide at least one embedding file.")
    for s in scores:
        s.confusion.setflags(write=False)
    alp_all, acc_all = np.column_stack(alp_draws), np.column_stack(acc_draws)
    for a in (sizes, alp_all, acc_all):
        a.setflags(write=False)
    return ConsistencyResult(
        scores=tuple(scores),
        clusters=tuple(str(c) for c in clusters),
        cluster_sizes=sizes,
        alp_draws=alp_all,
        accuracy_draws=acc_all,
        settings={
            "heads": heads,
            "dims": dims,
            "clip": clip,
            "eps": eps,
            "folds": folds,
            "reps": reps,
            "level": level,
            "seed": seed,
            "bootstrap": bootstrap,
            **({"refit_spread": refit_spread} if bootstrap in ("refit", "linear") else {}),
        },
    )


# ---- the synthetic study of [MHP] ------------------------------------------------------------
SYNTHETIC_CASES: tuple[str, ...] = ("separated", "partial", "overlapping")


def synthetic_clusters(
    case: str, *, k: int = 10, n: int = 300, d: int = 16, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``k`` Gaussian clusters of ``n`` points in ``d`` dimensions (unit covariance), [MHP] 5.1.

    Cluster ``c`` has mean ``s * e_(c mod d)`` (``e`` = unit vectors; ``d >= k`` gives distinct
    means). ``separated``: s = 20 (means 28 standard deviations apart); ``partial``: s = 2 (2.8
    apart, the clusters overlap); ``overlapping``: s = 0 (one distribution, labels carry no
    information). Returns vectors ``(k n, d)`` and labels ``"c0" .. "c{k-1}"``.
    """
    scale = {"separated": 20.0, "partial": 2.0, "overlapping": 0.0}
    if case not in scale:
        raise DataError(f"unknown synthetic case {case!r}; expected one of {SYNTHETIC_CASES}.")
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(k), n)
    means = np.zeros((k, d))
    means[np.arange(k), np.arange(k) % d] = scale[case]
    x = means[y] + rng.standard_normal((k * n, d))
    return x, np.array([f"c{c}" for c in y], dtype=object)

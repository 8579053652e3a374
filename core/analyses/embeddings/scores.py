"""Embedding consistency with meta features: the multi-head posterior score (METHODS 9, [MHP]).

Entities (instructions, users, images ...) have a vector per model or per layer and meta
features. The posterior ``P(c | x)`` of each entity's own cluster (:mod:`.posterior`) is
summarised as **ALP** (average log posterior) and **accuracy** (share whose arg-max cluster is
the true one), averaged over ``H`` heads of ``d'`` random dimensions, with bootstrap intervals
over entities (:mod:`.resample`). Every model is scored under the same clusters.

Choice the spec leaves open: ``clip`` (default ``1e-6``): entities whose posterior of the true
cluster is below ``clip`` in a head are left out of that head's ALP (not out of its accuracy);
the share left out is reported (``clipped``) so the exclusion is visible; ``clip=0`` keeps
everyone. Intervals are percentile intervals; refit and linear draws are kept in the score's
range (ALP <= 0, accuracy in [0, 1]).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchuq.core.analyses.embeddings.io import check_clusters
from benchuq.core.analyses.embeddings.posterior import (
    DEFAULT_EPS,
    _folds,
    choose_heads,
    head_posteriors,
    single_blas_thread,
)
from benchuq.core.analyses.embeddings.resample import (
    BOOTSTRAP_METHODS,
    BOOTSTRAP_MODES,
    DEFAULT_REPS,
    LINEAR_ACCURACY_METHOD,
    REFIT_ACCURACY_METHOD,
    REFIT_SPREAD,
    BootstrapMode,
    _influence_head,
    _perturbation_weights,
    _refit_head,
    _resample_counts,
    choose_bootstrap,
)
from benchuq.core.data import DataError
from benchuq.core.defaults import COMPARISON_LEVEL, EMBEDDING_DIMS, EMBEDDING_HEADS, SEED
from benchuq.core.validation import check_choice, check_level

__all__ = ["ConsistencyResult", "EmbeddingScore", "ScoreInterval", "consistency"]


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

    Attributes
    ----------
    model
        name.
    alp
        average log posterior of the true cluster (nats, <= 0; 0 = perfectly consistent;
        ``log(1/K)`` is what a prior-only guess gets with K equal clusters).
    accuracy
        share of entities whose most probable cluster is the true one (0..1).
    clipped
        share of entity-head pairs left out of the ALP by ``clip``.
    confusion
        ``(K, K)`` mean posterior ``P(column | x)`` over entities of row's cluster,
        averaged over heads (rows sum to 1).
    heads, dims
        heads used and dimensions per head (after the ``dims >= D`` rule).
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
    ``sqrt(refit_spread)`` (:mod:`.resample`).
    """

    scores: tuple[EmbeddingScore, ...]
    clusters: tuple[str, ...]
    cluster_sizes: np.ndarray
    alp_draws: np.ndarray
    accuracy_draws: np.ndarray
    settings: Mapping[str, float | int | str]

    @property
    def models(self) -> tuple[str, ...]:
        """Model (or layer) names, in the order of the scores."""
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

    def differences(self, *, reference: str | None = None) -> pd.DataFrame:
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


@single_blas_thread
def consistency(
    embeddings: Mapping[str, np.ndarray],
    labels: Sequence[str] | np.ndarray,
    *,
    heads: int = EMBEDDING_HEADS,
    dims: int = EMBEDDING_DIMS,
    clip: float = 1e-6,
    eps: float = DEFAULT_EPS,
    folds: int = 5,
    reps: int | None = None,
    level: float = COMPARISON_LEVEL,
    seed: int = SEED,
    bootstrap: BootstrapMode = "auto",
    refit_spread: float = REFIT_SPREAD,
) -> ConsistencyResult:
    """ALP and cluster accuracy of each model with bootstrap intervals (METHODS 9).

    Parameters
    ----------
    embeddings
        model (or layer) name -> ``(N, D_m)`` vectors, rows aligned with ``labels``.
    labels
        cluster of each entity (a meta category or a tree leaf).
    heads, dims
        ``heads`` random subsets of ``dims`` dimensions per model; one head of all
        dimensions when ``dims >= D_m``.
    clip
        entities whose true-cluster posterior is below ``clip`` are left out of that head's
        ALP (default ``1e-6``; ``0`` keeps all).
    eps
        covariance ridge ``eps * tau * d' / n_bar`` (``tau``: pooled within-cluster
        variance per dimension, ``n_bar``: mean cluster size; default ``4``).
    folds
        cross-fitting folds (``1`` = fit and score on the same entities, as in [MHP]).
    reps, level
        bootstrap replicates over entities (default 200 when refitting, 1000 when
        resampling scores) and interval level.
    seed
        seeds the heads, the folds and the bootstrap.
    bootstrap
        ``"refit"`` (refit the Gaussians in every replicate; the interval targets the
        expected out-of-fold score of the procedure), ``"linear"`` (the first-order version
        of ``"refit"`` on the same entity weights; the accuracy interval then leaves out the
        fitting error), ``"scores"`` (resample per-entity
        scores, Gaussians fixed; fast, too narrow when clusters are small relative to
        ``dims``) or ``"auto"`` (refit unless its cost exceeds the budget, else linear, else
        scores: :func:`~benchuq.core.analyses.embeddings.resample.choose_bootstrap`).
    refit_spread
        standard deviation of the entity weights of ``"refit"`` and ``"linear"``
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
    check_level(level)
    check_choice(bootstrap, BOOTSTRAP_MODES, name="bootstrap")
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
        bootstrap = choose_bootstrap(n, k, folds, widths, reps)
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

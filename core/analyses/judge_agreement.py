"""How well a judge agrees with people on the labelled items (METHODS 15c).

Raw agreement (and agreement where both are decisive: neither is a tie nor a graded score),
Cohen's kappa (nominal, on the values the scores take), Krippendorff's alpha (interval metric,
two coders, no missing), sensitivity and specificity with Wilson intervals; kappa and alpha with
percentile bootstrap intervals over the labelled items (resampled as a multinomial over the
cells of the judge-by-human table when the scores take few values).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchuq.core.analyses.judge_estimators import wilson

__all__ = [
    "MAX_CATEGORIES",
    "Agreement",
    "AgreementReplicates",
    "agreement",
    "agreement_replicates",
    "alpha_interval",
    "cohen_kappa",
]

#: at most this many distinct values make the scores categories (kappa); more: graded scores
MAX_CATEGORIES = 10
_MAX_RESAMPLED = 20_000_000  # bootstrap over raw items: reps x items at most


@dataclass(frozen=True)
class Agreement:
    """The judge against the human labels of one cell (or overall).

    Attributes
    ----------
    n
        Labelled items.
    agreement
        Share of labelled items where the judge's score equals the label.
    decisive, n_decisive
        Agreement on the items where both are 0 or 1 (pairwise: neither says tie), and how many.
    kappa, kappa_low, kappa_high
        Cohen's kappa with its bootstrap interval (``nan`` for graded scores).
    alpha, alpha_low, alpha_high
        Krippendorff's alpha (interval metric) with its bootstrap interval.
    sensitivity, sensitivity_low, sensitivity_high, n_positive
        Share of items people scored 1 that the judge scored 1, Wilson interval, how many.
    specificity, specificity_low, specificity_high, n_negative
        Share of items people scored 0 that the judge scored 0, Wilson interval, how many.
    level
        The intervals' level.
    """

    n: int
    agreement: float
    decisive: float
    n_decisive: int
    kappa: float
    kappa_low: float
    kappa_high: float
    alpha: float
    alpha_low: float
    alpha_high: float
    sensitivity: float
    sensitivity_low: float
    sensitivity_high: float
    n_positive: int
    specificity: float
    specificity_low: float
    specificity_high: float
    n_negative: int
    level: float


def cohen_kappa(table: np.ndarray) -> np.ndarray:
    """Cohen's kappa of judge-by-human count tables ``(..., K, K)``: ``(p_o - p_e) / (1 - p_e)``
    (``nan`` where ``p_e`` is 1: one category only)."""
    t = np.asarray(table, float)
    n = t.sum(axis=(-2, -1))
    po = np.trace(t, axis1=-2, axis2=-1) / n
    pe = (t.sum(axis=-1) * t.sum(axis=-2)).sum(axis=-1) / n**2
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pe < 1, (po - pe) / (1 - pe), np.nan)


def _alpha_of_table(table: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha (interval metric, two coders) of count tables ``(..., K, K)``:
    ``1 - mean((a - b)^2) / (2 var(pooled values, ddof 1))``."""
    t = np.asarray(table, float)
    n = t.sum(axis=(-2, -1))
    d = (values[:, None] - values[None, :]) ** 2
    d_o = (t * d).sum(axis=(-2, -1)) / n
    pooled = t.sum(axis=-1) + t.sum(axis=-2)  # counts of each value over both coders
    m = 2 * n
    mean = (pooled * values).sum(axis=-1) / m
    var = ((pooled * values**2).sum(axis=-1) - m * mean**2) / (m - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(var > 0, 1 - d_o / (2 * var), np.nan)


def alpha_interval(judge: np.ndarray, human: np.ndarray) -> float:
    """Krippendorff's alpha (interval metric) of two coders on the same items, no missing."""
    pooled = np.concatenate([judge, human])
    var = float(np.var(pooled, ddof=1)) if pooled.size > 1 else 0.0
    if var <= 0:
        return float("nan")
    return float(1 - np.mean((judge - human) ** 2) / (2 * var))


def _percentile(x: np.ndarray, level: float) -> tuple[float, float]:
    x = x[np.isfinite(x)]
    if x.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(x, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


@dataclass(frozen=True, eq=False)
class AgreementReplicates:
    """The level-free part of :func:`agreement`: the point statistics and the bootstrap
    replicates of kappa and alpha, so another level re-summarises them (issue 41: the app's
    level moves redo no bootstrap). :meth:`at` gives the :class:`Agreement` at a level."""

    n: int
    agreement: float
    decisive: float
    n_decisive: int
    kappa: float
    kappa_draws: np.ndarray | None  # None: graded scores (no kappa)
    alpha: float
    alpha_draws: np.ndarray
    hits: float
    rejections: float
    n_positive: int
    n_negative: int

    def at(self, level: float) -> Agreement:
        """Percentile intervals of kappa and alpha and Wilson intervals of sensitivity and
        specificity at ``level``."""
        nan = (float("nan"), float("nan"))
        kappa_ci = nan if self.kappa_draws is None else _percentile(self.kappa_draws, level)
        alpha_ci = _percentile(self.alpha_draws, level)
        m1, m0 = self.n_positive, self.n_negative
        sens_ci = wilson(self.hits, m1, level=level)
        spec_ci = wilson(self.rejections, m0, level=level)
        return Agreement(
            n=self.n,
            agreement=self.agreement,
            decisive=self.decisive,
            n_decisive=self.n_decisive,
            kappa=self.kappa,
            kappa_low=kappa_ci[0],
            kappa_high=kappa_ci[1],
            alpha=self.alpha,
            alpha_low=alpha_ci[0],
            alpha_high=alpha_ci[1],
            sensitivity=self.hits / m1 if m1 else float("nan"),
            sensitivity_low=sens_ci[0],
            sensitivity_high=sens_ci[1],
            n_positive=m1,
            specificity=self.rejections / m0 if m0 else float("nan"),
            specificity_low=spec_ci[0],
            specificity_high=spec_ci[1],
            n_negative=m0,
            level=level,
        )


def agreement_replicates(
    judge: np.ndarray, human: np.ndarray, *, reps: int = 1000, seed: int = 0
) -> AgreementReplicates:
    """The point statistics and bootstrap replicates of :func:`agreement` (no level)."""
    f = np.asarray(judge, float)
    y = np.asarray(human, float)
    n = len(y)
    rng = np.random.default_rng(seed)
    values, codes = np.unique(np.concatenate([f, y]), return_inverse=True)
    kappa_draws: np.ndarray | None
    if values.size <= MAX_CATEGORIES:
        k = values.size
        table = np.bincount(codes[:n] * k + codes[n:], minlength=k * k).reshape(k, k)
        kappa = float(cohen_kappa(table))
        alpha = float(_alpha_of_table(table, values))
        boot = rng.multinomial(n, table.ravel() / n, size=reps).reshape(reps, k, k)
        kappa_draws = cohen_kappa(boot)
        alpha_draws = _alpha_of_table(boot, values)
    else:
        kappa, kappa_draws = float("nan"), None
        alpha = alpha_interval(f, y)
        r = max(100, min(reps, _MAX_RESAMPLED // max(n, 1)))
        alpha_draws = np.empty(r)
        for i in range(r):
            idx = rng.integers(0, n, n)
            alpha_draws[i] = alpha_interval(f[idx], y[idx])
    pos, neg = y == 1, y == 0
    decisive = np.isin(f, (0.0, 1.0)) & np.isin(y, (0.0, 1.0))
    nd = int(decisive.sum())
    return AgreementReplicates(
        n=n,
        agreement=float(np.mean(f == y)) if n else float("nan"),
        decisive=float(np.mean(f[decisive] == y[decisive])) if nd else float("nan"),
        n_decisive=nd,
        kappa=kappa,
        kappa_draws=kappa_draws,
        alpha=alpha,
        alpha_draws=alpha_draws,
        hits=float((f[pos] == 1).sum()),
        rejections=float((f[neg] == 0).sum()),
        n_positive=int(pos.sum()),
        n_negative=int(neg.sum()),
    )


def agreement(
    judge: np.ndarray, human: np.ndarray, *, level: float, reps: int = 1000, seed: int = 0
) -> Agreement:
    """Agreement of ``judge`` with ``human`` on labelled items (both ``(n,)`` in [0, 1])."""
    return agreement_replicates(judge, human, reps=reps, seed=seed).at(level)

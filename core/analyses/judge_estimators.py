"""Estimators of a mean from a judge's scores and a few human labels (METHODS 15).

Arrays in, numbers out (no names, no files): :func:`ppi_mean` (PPI++ with the power-tuned
lambda, as ``ppi_py.ppi_mean_pointestimate`` / ``ppi_mean_ci``), :func:`rogan_gladen` (binary
scores, a calibration set, delta-method interval), :func:`classical_mean` (human labels alone),
:func:`naive_mean` (the judge's mean as if it were right), and the planning numbers
(:class:`Planning`: the half-width a number of labels gives, the labels a half-width needs);
:func:`with_exact_floor` widens an interval from few labels to the labels' own exact one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy import special

from benchuq.core.analyses.paired_tests import betting_interval
from benchuq.core.small_samples import FEW_ITEMS
from benchuq.core.summaries.exact import clopper_pearson

__all__ = [
    "Estimate",
    "Planning",
    "classical_mean",
    "floored",
    "labels_exact_interval",
    "naive_mean",
    "ppi_lambda",
    "ppi_mean",
    "rogan_gladen",
    "wilson",
    "with_exact_floor",
    "within",
    "z_value",
]


@dataclass(frozen=True)
class Estimate:
    """One estimate of the mean human score with its interval.

    Attributes
    ----------
    method
        ``"ppi++"``, ``"rogan-gladen"``, ``"classical"`` or ``"judge"`` (the naive judge mean).
    estimate, se, low, high
        The estimate, its standard error and the interval at ``level``.
    lam
        PPI++'s power-tuning lambda (``None`` for the other methods).
    n_labelled, n_unlabelled
        Items with a human label / without.
    """

    method: str
    estimate: float
    se: float
    low: float
    high: float
    level: float
    lam: float | None
    n_labelled: int
    n_unlabelled: int


def z_value(level: float) -> float:
    """The two-sided normal critical value at ``level``."""
    return float(special.ndtri(0.5 + level / 2))


def ppi_lambda(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray) -> float:
    """PPI++'s power-tuned lambda for the mean, clipped to [0, 1] (METHODS 15a):
    ``cov(Y, f) / ((1 + n/N) var(f))`` with ``cov`` over the labelled items (divided by n) and
    ``var`` over all judged items (divided by n + N - 1), as ``ppi_py._calc_lam_glm``."""
    n, big_n = len(y), len(yhat_unlabelled)
    cov = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    f_all = np.concatenate([yhat, yhat_unlabelled])
    var_f = float(np.var(f_all, ddof=1)) if f_all.size > 1 else 0.0
    if var_f <= 0:
        return 0.0
    return float(np.clip(cov / ((1 + n / big_n) * var_f), 0.0, 1.0))


def ppi_mean(
    y: np.ndarray,
    yhat: np.ndarray,
    yhat_unlabelled: np.ndarray,
    *,
    level: float,
    lam: float | None = None,
) -> Estimate:
    """PPI++ estimate of the mean of ``y`` (METHODS 15a): ``lam * mean(f_unlabelled) +
    mean(y - lam * f)``, standard error ``sqrt(var(lam f_u)/N + var(y - lam f)/n)``."""
    y = np.asarray(y, float)
    yhat = np.asarray(yhat, float)
    fu = np.asarray(yhat_unlabelled, float)
    n, big_n = len(y), len(fu)
    lam = ppi_lambda(y, yhat, fu) if lam is None else float(lam)
    rect = y - lam * yhat
    est = float(lam * fu.mean() + rect.mean())
    se = float(np.sqrt(np.var(lam * fu) / big_n + np.var(rect) / n))
    z = z_value(level)
    return Estimate("ppi++", est, se, est - z * se, est + z * se, level, lam, n, big_n)


def wilson(successes: float, n: float, *, level: float) -> tuple[float, float]:
    """Wilson score interval of a proportion (``nan`` when ``n`` is 0)."""
    if n <= 0:
        return float("nan"), float("nan")
    z = z_value(level)
    p = successes / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(max(0.0, mid - half)), float(min(1.0, mid + half))


def classical_mean(y: np.ndarray, *, level: float, n_unlabelled: int = 0) -> Estimate:
    """The mean of the human labels alone with its normal interval (``ppi_py.classical_mean_ci``:
    ``sd / sqrt(n)``, sd divided by n); when every label is the same 0 or 1, the Wilson
    interval (a zero-width interval would claim certainty the labels do not give)."""
    y = np.asarray(y, float)
    n = len(y)
    est = float(y.mean())
    se = float(np.std(y) / np.sqrt(n))
    if se == 0 and est in (0.0, 1.0):
        low, high = wilson(est * n, n, level=level)
    else:
        z = z_value(level)
        low, high = est - z * se, est + z * se
    return Estimate("classical", est, se, low, high, level, None, n, n_unlabelled)


def labels_exact_interval(y: np.ndarray, *, level: float, low: float = 0.0) -> tuple[float, float]:
    """An interval for the mean of the labels ``y`` in ``[low, 1]`` that holds at any number of
    labels (METHODS 15g): Clopper-Pearson when every label is 0 or 1, else the betting interval
    (:func:`~benchuq.core.analyses.paired_tests.betting_interval`) of the labels in a fixed
    random order (a file sorted by difficulty cannot bias it), rescaled from ``[low, 1]``."""
    y = np.asarray(y, float)
    if low == 0.0 and np.all((y == 0) | (y == 1)):
        k, n = np.array([y.sum()]), np.array([float(len(y))])
        cp_low, cp_high = clopper_pearson(k, n, level=level)
        return float(cp_low[0]), float(cp_high[0])
    span = 1.0 - low
    order = np.random.default_rng(0).permutation(len(y))
    lo, hi = betting_interval((y[order] - low) / span, level=level)
    return low + span * lo, low + span * hi


def with_exact_floor(e: Estimate, y: np.ndarray, *, low: float = 0.0) -> Estimate:
    """``e`` with each end at least as far out as the labels' own exact interval
    (:func:`labels_exact_interval` of ``y`` in ``[low, 1]``, METHODS 15g), and the standard error
    its interval implies when that is wider. For fewer than 30 labels, where the normal interval
    is too narrow (lambda and the variances come from the same few labels)."""
    lo, hi = labels_exact_interval(y, level=e.level, low=low)
    lo, hi = min(e.low, lo), max(e.high, hi)
    se = max(e.se, (hi - lo) / (2 * z_value(e.level)))
    return replace(e, low=lo, high=hi, se=se)


def floored(e: Estimate, y: np.ndarray, *, low: float = 0.0) -> Estimate:
    """``e`` with :func:`with_exact_floor` of the labels ``y`` wherever the normal interval
    cannot be trusted (METHODS 15g): fewer than :data:`FEW_ITEMS` labels, or no spread measured
    (standard error 0: labels all one value, such as 60 labels all 1 or all 0.5, or two models
    whose labelled differences are all 0, whose normal interval had width 0)."""
    return with_exact_floor(e, y, low=low) if len(y) < FEW_ITEMS or e.se == 0 else e


def within(e: Estimate, *, low: float = 0.0, high: float = 1.0) -> Estimate:
    """``e`` with its interval clipped to the values the mean can take, ``[low, high]`` (labels in
    [0, 1]: a score; differences: [-1, 1]); a clipped interval holds the truth whenever the
    unclipped one does (METHODS 15g)."""
    return replace(e, low=min(max(e.low, low), high), high=max(min(e.high, high), low))


def naive_mean(judge: np.ndarray, *, level: float, n_labelled: int) -> Estimate:
    """The judge's mean over every item, its interval as if the judge were right."""
    f = np.asarray(judge, float)
    est = float(f.mean())
    se = float(np.std(f) / np.sqrt(len(f)))
    z = z_value(level)
    return Estimate(
        "judge", est, se, est - z * se, est + z * se, level, None, n_labelled, len(f) - n_labelled
    )


def rogan_gladen(
    y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray, *, level: float
) -> Estimate:
    """Rogan-Gladen prevalence with a calibration set (binary; METHODS 15b).

    ``theta = (p + q0 - 1) / (q0 + q1 - 1)`` with ``p`` the judge's positive rate on the
    unlabelled items and ``q1``, ``q0`` its sensitivity and specificity on the labelled ones. The
    interval is the delta method over the three independent proportions, ``var = (var p +
    (1 - theta)^2 var q0 + theta^2 var q1) / (q0 + q1 - 1)^2``, each variance taken at the
    proportion with one success and one failure added (so a sensitivity of 40/40 still carries
    uncertainty); estimate and interval are clipped to [0, 1]. The caller checks ``q0 + q1 > 1``.
    """
    y = np.asarray(y, float)
    yhat = np.asarray(yhat, float)
    fu = np.asarray(yhat_unlabelled, float)
    pos, neg = y == 1, y == 0
    m1, m0, big_n = int(pos.sum()), int(neg.sum()), len(fu)
    x1, x0, xp = float(yhat[pos].sum()), float((1 - yhat[neg]).sum()), float(fu.sum())
    q1, q0, p = x1 / m1, x0 / m0, xp / big_n
    j = q0 + q1 - 1
    theta = (p + q0 - 1) / j
    # plug-ins for the variances (and the slope 1 / J): one success and one failure added
    a1, a0, ap = (x1 + 1) / (m1 + 2), (x0 + 1) / (m0 + 2), (xp + 1) / (big_n + 2)
    ja = a0 + a1 - 1 if a0 + a1 > 1 else j
    ta = float(np.clip((ap + a0 - 1) / ja, 0.0, 1.0))
    var = (
        ap * (1 - ap) / big_n + (1 - ta) ** 2 * a0 * (1 - a0) / m0 + ta**2 * a1 * (1 - a1) / m1
    ) / ja**2
    se = float(np.sqrt(var))
    z = z_value(level)
    est = float(np.clip(theta, 0.0, 1.0))
    low = float(np.clip(theta - z * se, 0.0, 1.0))
    high = float(np.clip(theta + z * se, 0.0, 1.0))
    return Estimate("rogan-gladen", est, se, low, high, level, None, m1 + m0, big_n)


@dataclass(frozen=True)
class Planning:
    """What more labels would buy (METHODS 15d): the moments behind PPI++'s variance.

    Attributes
    ----------
    var_human, var_judge, cov
        The labels' variance, the judge's variance over every item, their covariance on the
        labelled items.
    n_labelled, n_items
        Labels now, and judged items (labels can go up to ``n_items``).
    """

    var_human: float
    var_judge: float
    cov: float
    n_labelled: int
    n_items: int

    @classmethod
    def of(cls, y: np.ndarray, yhat: np.ndarray, f_all: np.ndarray) -> Planning:
        """The moments of labels ``y``, their judge scores ``yhat``, and every score ``f_all``."""
        return cls(
            float(np.var(y)),
            float(np.var(f_all, ddof=1)) if len(f_all) > 1 else 0.0,
            float(np.mean((y - y.mean()) * (yhat - yhat.mean()))),
            len(y),
            len(f_all),
        )

    def variance(self, n: np.ndarray | float, *, method: str = "ppi++") -> np.ndarray:
        """The estimator's variance with ``n`` labels among the ``n_items`` (PPI++ with its
        lambda tuned for that ``n``; ``"classical"``: labels alone)."""
        n = np.asarray(n, float)
        if method == "classical":
            return self.var_human / n
        big_n = np.maximum(self.n_items - n, 1.0)
        if self.var_judge <= 0:
            return self.var_human / n
        lam = np.clip(self.cov / ((1 + n / big_n) * self.var_judge), 0.0, 1.0)
        rect = self.var_human - 2 * lam * self.cov + lam**2 * self.var_judge
        return np.maximum(rect, 0.0) / n + lam**2 * self.var_judge / big_n

    def half_width(
        self, n: np.ndarray | float, *, level: float, method: str = "ppi++"
    ) -> np.ndarray:
        """The interval's half-width with ``n`` labels."""
        return z_value(level) * np.sqrt(self.variance(n, method=method))

    def labels_needed(self, target: float, *, level: float, method: str = "ppi++") -> int | None:
        """The fewest labels whose interval's half-width is at most ``target``, never fewer than
        :data:`FEW_ITEMS` (or every judged item, when fewer): below it the interval is the labels'
        exact one (METHODS 15g), wider than these moments say; ``None`` when even labelling every
        judged item is not enough."""
        if self.half_width(self.n_items, level=level, method=method) > target:
            return None
        lo, hi = min(FEW_ITEMS, self.n_items), self.n_items
        if self.half_width(lo, level=level, method=method) <= target:
            return lo
        while hi - lo > 1:  # the half-width falls as labels grow
            mid = (lo + hi) // 2
            if self.half_width(mid, level=level, method=method) <= target:
                hi = mid
            else:
                lo = mid
        return hi

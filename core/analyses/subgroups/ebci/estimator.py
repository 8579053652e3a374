"""The robust EBCI estimator (:func:`ebci`): the moments of the prior deviation (EBCI.md section
2) and the intervals, with the critical values of the reference, vectorised or tabulated paths."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import get_args

import numpy as np
from scipy import special

from benchuq.core.analyses.subgroups.ebci.reference import (
    _SQRT2PI,
    FS_CORRECTIONS,
    CvaMethod,
    FsCorrection,
    Kappa,
    _alpha,
    _check_kurtosis,
    _cvb,
    cva,
)
from benchuq.core.analyses.subgroups.ebci.tabulated import cva_table
from benchuq.core.analyses.subgroups.ebci.vectorised import cva_v
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.validation import InvalidArgument, check_choice

__all__ = [
    "EBCIResult",
    "Moments",
    "ebci",
    "moments",
]


# ---- EBCI.md section 2: moments of the prior deviation --------------------------------------
@dataclass(frozen=True)
class Moments:
    """Second moment ``mu2`` (= A) and kurtosis ``kappa`` of ``mu_g - f_g``.

    ``mu2_raw`` and ``kappa_raw`` are the uncorrected weighted-mean estimates (``kappa_raw`` =
    ``mu4_raw / mu2_raw^2``); ``mu2``/``kappa`` carry the finite-sample correction.
    """

    mu2: float
    kappa: float
    mu2_raw: float
    kappa_raw: float
    fs_correction: FsCorrection


def _truncated_mean(m: float, v: float) -> float:
    """Mean of ``N(m, v)`` truncated to ``(0, inf)`` (the FPLIB ``T(m, V)``)."""
    if v <= 0:
        return max(m, 0.0)
    sd = math.sqrt(v)
    z = m / sd
    return m + sd * math.exp(-0.5 * z * z - float(special.log_ndtr(z))) / _SQRT2PI


def moments(
    eps: np.ndarray,
    se: np.ndarray,
    *,
    weights: np.ndarray | None = None,
    fs_correction: FsCorrection = "PMT",
) -> Moments:
    """Estimate ``mu2`` and ``kappa`` from residuals ``eps = Z - f`` and standard errors ``se``.

    Weighted means (not sums) of ``W2 = eps^2 - se^2`` and ``W4 = eps^4 - 6 se^2 eps^2 + 3 se^4``
    with the correction ``PMT`` (default), ``none`` or ``FPLIB`` of EBCI.md section 2. With
    ``none`` and ``mu2 = 0`` the kurtosis is undefined and returned as ``inf``.
    """
    check_choice(fs_correction, FS_CORRECTIONS, name="fs_correction")
    eps = np.asarray(eps, float)
    s2 = np.asarray(se, float) ** 2
    w = np.ones_like(eps) if weights is None else np.asarray(weights, float)
    sw = w.sum()
    w2 = eps**2 - s2
    w4 = eps**4 - 6.0 * s2 * eps**2 + 3.0 * s2**2
    m2t = float(np.sum(w * w2) / sw)
    m4t = float(np.sum(w * w4) / sw)
    kappa_raw = m4t / m2t**2 if m2t != 0 else math.inf
    if fs_correction == "none":
        mu2 = max(m2t, 0.0)
        kappa = max(m4t / mu2**2, 1.0) if mu2 > 0 else math.inf
    elif fs_correction == "PMT":
        mu2 = max(m2t, 2.0 * np.sum(w**2 * s2**2) / (sw * np.sum(w * s2)))
        floor = 1.0 + 32.0 * np.sum(w**2 * s2**4) / (sw * np.sum(w * s2**2) * mu2**2)
        kappa = max(m4t / mu2**2, float(floor))
    else:

        def var(x: np.ndarray) -> float:
            xbar = np.sum(w * x) / sw
            return float(np.sum(w**2 * (x**2 - xbar**2)) / (sw**2 - np.sum(w**2)))

        mu2 = _truncated_mean(m2t, var(w2))
        kappa = 1.0 + _truncated_mean(m4t - m2t**2, var(w4 - 2.0 * mu2 * w2)) / mu2**2
    return Moments(float(mu2), float(kappa), m2t, float(kappa_raw), fs_correction)


# ---- the robust EBCI ---------------------------------------------------------------------------
@dataclass(frozen=True)
class EBCIResult:
    """Robust EB estimates and intervals ``estimate +- half_length`` (scale of ``Z``).

    Arrays are per unit: ``w`` shrinkage weight ``mu2 / (mu2 + se^2)``, ``m2 = se^2 / mu2``,
    ``cva`` critical value. ``level`` is an *average* coverage over units [AKP] (``alpha =
    1 - level``). ``kappa`` is the kurtosis used. ``method`` is ``"table"`` (fast path) or
    ``"exact"`` (how cva was computed).
    """

    estimate: np.ndarray
    half_length: np.ndarray
    low: np.ndarray
    high: np.ndarray
    w: np.ndarray
    m2: np.ndarray
    cva: np.ndarray
    moments: Moments
    kappa: float
    level: float
    method: CvaMethod
    notes: tuple[str, ...]

    @property
    def alpha(self) -> float:
        """``1 - level``, the average non-coverage (EBCI.md's ``alpha``)."""
        return _alpha(self.level)


def ebci(
    z: np.ndarray,
    se: np.ndarray,
    f: np.ndarray,
    *,
    level: float = COMPARISON_LEVEL,
    fs_correction: FsCorrection = "PMT",
    kappa: Kappa = "estimated",
    weights: np.ndarray | None = None,
    method: CvaMethod = "table",
    moment_se: np.ndarray | None = None,
) -> EBCIResult:
    """Robust EBCIs ``mu_hat +- cva_alpha(se^2/mu2, kappa) * w * se`` (METHODS 7, EBCI.md).

    ``level`` is the average coverage ``1 - alpha``. ``kappa="estimated"`` uses the estimated
    kurtosis; a number >= 1 fixes it, ``math.inf`` uses the second moment only.
    ``method="table"`` solves the distinct m2 values with :func:`cva_v` when there are at most 64
    of them (e.g. equal subgroup sizes) and otherwise uses :func:`cva_table` over their range;
    ``"exact"`` runs the reference :func:`cva` per unit.
    ``moment_se``: the standard errors the moments of A are estimated with (default ``se``):
    unbiased ones where ``se`` was raised to a conservative floor (METHODS 7), since a raised
    ``se^2`` in ``eps^2 - se^2`` biases A down and over-shrinks every unit.
    """
    alpha = _alpha(level)
    if kappa != "estimated":
        kappa = _check_kurtosis(kappa)
    check_choice(method, get_args(CvaMethod), name="method")
    z, se, f = (np.asarray(a, float) for a in (z, se, f))
    if not (z.shape == se.shape == f.shape) or z.ndim != 1 or len(z) == 0:
        raise InvalidArgument("z, se and f must be 1-d arrays of the same nonzero length.")
    mse = se if moment_se is None else np.asarray(moment_se, float)
    if mse.shape != se.shape:
        raise InvalidArgument("moment_se must have the shape of se.")
    mom = moments(z - f, mse, weights=weights, fs_correction=fs_correction)
    kap = mom.kappa if kappa == "estimated" else kappa
    notes: list[str] = []
    if mom.mu2 <= 0:
        notes.append(
            "The estimated prior second moment A (mu2) is 0 (fs_correction 'none'): every "
            "estimate equals the regression fit and the robust interval is undefined. Use the "
            "PMT correction for intervals."
        )
        nan = np.full(z.shape, np.nan)
        return EBCIResult(
            f.copy(),
            nan,
            nan,
            nan,
            np.zeros(z.shape),
            np.full(z.shape, np.inf),
            nan,
            mom,
            kap,
            level,
            method,
            tuple(notes),
        )
    s2 = se**2
    w = mom.mu2 / (mom.mu2 + s2)
    m2 = s2 / mom.mu2
    est = f + w * (z - f)
    if method == "exact":
        cv = np.array([cva(float(m), kappa=kap, alpha=alpha) for m in m2])
    else:
        pos = m2[m2 > 0]
        cv = np.full(m2.shape, np.nan)
        cv[m2 == 0] = _cvb(0.0, alpha)
        uniq, inverse = np.unique(pos, return_inverse=True)
        if 0 < len(uniq) <= 64:  # few distinct m2 (e.g. equal n): solve them directly
            cv[m2 > 0] = cva_v(uniq, kappa=kap, alpha=alpha)[inverse]
        elif len(uniq):
            cv[m2 > 0] = cva_table(float(uniq[0]), float(uniq[-1]), kap, alpha)(pos)
    half = cv * w * se
    return EBCIResult(
        est, half, est - half, est + half, w, m2, cv, mom, kap, level, method, tuple(notes)
    )

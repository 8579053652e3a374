"""The fast critical value (:func:`cva_table`): the pieces of :func:`cva` tabulated in ``log m2``
and interpolated by local quintics, checked at every midpoint. See the package docstring."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchuq.core.analyses.subgroups.ebci.reference import _check_levels
from benchuq.core.analyses.subgroups.ebci.vectorised import _cva_parts, _cvb_v, cva_v
from benchuq.core.validation import InvalidArgument

__all__ = [
    "CvaTable",
    "cva_table",
]

# ---- fast critical value: a table in log m2 -------------------------------------------------
_STENCIL = 6  # nodes per local interpolating polynomial (quintic)


def _lagrange_weights(xs: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Local quintic interpolation on the even grid ``xs``: for each ``x``, the first of the 6
    nodes nearest its interval (3 on each side, shifted at the ends) and their weights.

    With ``u = (x - xs[first]) / h`` the basis is ``prod_{k != j} (u - k) / (j - k)``, built
    from prefix and suffix products of ``u - k``.
    """
    h = (xs[-1] - xs[0]) / (len(xs) - 1)
    i = np.clip(np.searchsorted(xs, x, side="right") - 1, 0, len(xs) - 2)
    first = np.clip(i - (_STENCIL // 2 - 1), 0, len(xs) - _STENCIL)
    u = (x - xs[first]) / h
    d = [u - k for k in range(_STENCIL)]
    pre = [np.ones(len(x))]
    for k in range(_STENCIL - 1):
        pre.append(pre[-1] * d[k])
    suf = np.ones(len(x))
    weights = np.empty((len(x), _STENCIL))
    for j in range(_STENCIL - 1, -1, -1):
        denom = math.prod(j - k for k in range(_STENCIL) if k != j)
        weights[:, j] = pre[j] * suf / denom
        suf = suf * d[j]
    return first, weights


def _interpolate(ys: np.ndarray, first: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Apply :func:`_lagrange_weights` to node values ``ys``."""
    return np.sum(weights * ys[first[:, None] + np.arange(_STENCIL)], axis=1)


@dataclass(frozen=True)
class CvaTable:
    """Critical values on an even grid in ``log m2``: the pieces of :func:`_cva_parts`
    (``log cv_inf``, ``gap``, ``log root``) interpolated by local quintics and combined as the
    spec does, ``root where gap < -1e-5, else cv_inf``.

    Every interval was checked at its midpoint against the exact pieces; values in intervals
    where the piece they use missed by more than the tolerance (kinks, and the jump of the
    ``9e-6`` shortcut in ``cv_inf``), values whose interpolated gap is too close to ``-1e-5``
    to tell the side, and values outside the grid are computed by :func:`cva_v` instead.
    ``values`` are the critical values at the nodes; ``flagged`` marks intervals where a piece
    missed; ``check_error`` is the largest midpoint miss of an interpolated piece.
    """

    kappa: float
    alpha: float
    log_m2: np.ndarray
    values: np.ndarray
    log_cv_inf: np.ndarray
    gap: np.ndarray
    log_root: np.ndarray
    miss_inf: np.ndarray
    miss_gap: np.ndarray
    miss_root: np.ndarray
    tol: float

    @property
    def flagged(self) -> np.ndarray:
        """``(n - 1,)`` intervals where an interpolated piece missed by more than ``tol``."""
        return ~((self.miss_inf <= self.tol) & (self.miss_root <= self.tol))

    @property
    def check_error(self) -> float:
        """Largest midpoint miss of an interpolated piece over the intervals not flagged."""
        good = ~self.flagged
        return float(
            max(self.miss_inf[good].max(initial=0.0), self.miss_root[good].max(initial=0.0))
        )

    def __call__(self, m2: np.ndarray) -> np.ndarray:
        """Critical values at ``m2`` (same shape; ``nan`` for ``m2 < 0`` or ``nan``)."""
        m2 = np.asarray(m2, float)
        flat = m2.ravel()
        x = np.log(np.where(flat > 0, flat, np.nan))
        xs = self.log_m2
        inside = np.flatnonzero((x >= xs[0]) & (x <= xs[-1]))
        interval = np.clip(np.searchsorted(xs, x[inside], side="right") - 1, 0, len(xs) - 2)
        first, weights = _lagrange_weights(xs, x[inside])
        value = np.exp(_interpolate(self.log_cv_inf, first, weights))
        bad = ~(self.miss_inf[interval] <= self.tol)
        if np.any(self.gap < -1e-5):
            gap = _interpolate(self.gap, first, weights)
            use_root = gap < -1e-5
            value = np.where(use_root, np.exp(_interpolate(self.log_root, first, weights)), value)
            bad = np.where(use_root, ~(self.miss_root[interval] <= self.tol), bad)
            bad |= ~(np.abs(gap + 1e-5) > 1e-9 + 2.0 * self.miss_gap[interval])
        out = np.full(flat.shape, np.nan)
        out[inside] = value
        slow = ~np.isnan(flat) & (flat >= 0)
        slow[inside[~bad]] = False
        if slow.any():
            out[slow] = cva_v(flat[slow], kappa=self.kappa, alpha=self.alpha)
        return out.reshape(m2.shape)


def cva_table(
    m2_min: float,
    m2_max: float,
    kappa: float,
    alpha: float,
    *,
    points_per_e: int = 16,
    tol: float = 2e-7,
) -> CvaTable:
    """Tabulate cva over ``[m2_min, m2_max]`` (``points_per_e`` nodes per unit of ``log m2``).

    Nodes and interval midpoints are solved together by :func:`_cva_parts` (one vectorised
    call). The spec's cva jumps where ``gap`` crosses ``-1e-5`` (its step-2 shortcut); the
    table interpolates the smooth pieces on either side and the gap itself, so only values
    next to the jump (``|gap + 1e-5|`` below the gap's interpolation error) need a direct
    solve. Kinks (where the least-favourable distribution changes shape) and the step-1 jump
    show as midpoint misses above ``tol``; values in those intervals are solved directly.
    """
    if not (0 < m2_min <= m2_max < math.inf):
        raise InvalidArgument(f"need 0 < m2_min <= m2_max < inf, got {m2_min}, {m2_max}.")
    _check_levels(kappa, alpha)
    lo, hi = math.log(m2_min), math.log(m2_max)
    n = max(_STENCIL + 1, math.ceil((hi - lo) * points_per_e) + 1)
    xs = np.linspace(lo, hi, n) if hi > lo else lo + np.arange(_STENCIL + 1.0) * 1e-9
    mids = 0.5 * (xs[:-1] + xs[1:])
    pts = np.exp(np.concatenate([xs, mids]))
    if kappa == 1.0:
        cv_inf = _cvb_v(np.sqrt(pts), alpha)
        gap, root = np.zeros(pts.shape), cv_inf
    else:
        cv_inf, gap, root = _cva_parts(pts, kappa, alpha, all_roots=True)
    first, weights = _lagrange_weights(xs, mids)
    n = len(xs)

    def miss(ys: np.ndarray, log: bool) -> np.ndarray:
        at_nodes = np.log(ys[:n]) if log else ys[:n]
        fit = _interpolate(at_nodes, first, weights)
        return np.abs((np.exp(fit) if log else fit) - ys[n:])

    values = np.where(gap[:n] < -1e-5, root[:n], cv_inf[:n])
    return CvaTable(
        kappa,
        alpha,
        xs,
        values,
        np.log(cv_inf[:n]),
        gap[:n],
        np.log(root[:n]),
        miss(cv_inf, True),
        miss(gap, False),
        miss(root, True),
        tol,
    )

"""Bootstrap max-T: simultaneous intervals and step-down p-values for a family (METHODS 4b).

Romano & Wolf (2005) [RW]. For K differences with replicate draws ``d[r, k]`` and observed
``d_k``: ``se_k`` is the bootstrap standard deviation of ``d[:, k]``, ``t_k = d_k / se_k`` and the
centred replicate statistics are ``t*[r, k] = (d[r, k] - d_k) / se_k``.

- Single-step max-T p-value: ``p_k = (1 + #{r: max_l |t*[r, l]| se_k >= |d_k|}) / (R + 1)``.
- Simultaneous interval: ``d_k +- c se_k`` with ``c`` the order statistic of ``max_l |t*[r, l]|``
  for which ``p_k <= alpha`` holds exactly when ``|d_k| > c se_k`` (**choice**: so an interval
  excludes 0 exactly when its p-value is at most ``alpha``, with the same floating-point product
  ``c se_k`` on both sides; ``c`` is about the ``1 - alpha`` quantile of the maxima).
- Step-down p-values [RW, algorithm 4.1]: hypotheses in decreasing ``|t_k|``; the j-th is compared
  with the maxima over the hypotheses not yet rejected (itself and those with smaller ``|t|``),
  then made monotone. They are never larger than the single-step ones.
- Resolution: a bootstrap p-value cannot be below ``1 / (R + 1)``; ``below_resolution`` marks the
  differences no replicate maximum reached (their p-value is "< 1/(R+1)").

``nan`` columns (a model without a result in the group) give ``nan`` and are left out of the
maxima. A difference whose draws do not vary (``se = 0``) gets a zero-width interval and p-value 1
if it is 0, else the smallest p-value (``below_resolution``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from benchuq.core.defaults import COMPARISON_LEVEL

__all__ = ["MaxT", "critical_index", "format_p", "max_t"]

# below this a p-value from a normal reference says more about its tail than about the data
P_FLOOR = 1e-10


@dataclass(frozen=True)
class MaxT:
    """Simultaneous max-T inference for K differences (arrays over the family)."""

    estimate: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    critical: float
    p_value: np.ndarray
    p_stepdown: np.ndarray
    below_resolution: np.ndarray
    level: float
    reps: int


def critical_index(reps: int, alpha: float) -> int:
    """0-based index into the sorted ``reps`` maxima of the critical value (``-1``: none exists).

    ``(1 + #{m >= t}) / (R + 1) <= alpha`` iff ``#{m >= t} <= J`` with
    ``J = floor(alpha (R + 1)) - 1``, iff ``t > m_(R - J)`` (1-based order statistic).
    """
    J = int(np.floor(alpha * (reps + 1) + 1e-9)) - 1
    return reps - J - 1 if 0 <= J < reps else -1


def _centred_abs_t(d: np.ndarray, est: np.ndarray, se: np.ndarray) -> np.ndarray:
    """``|t*|`` ``(R, K)``: centred draws over their SE; 0 where the SE is 0 or a draw is nan."""
    safe = np.where(se > 0, se, 1.0)
    t = np.abs(d - est) / safe
    t[:, ~(se > 0)] = 0.0
    return np.nan_to_num(t, nan=0.0)


def max_t(
    draws: np.ndarray,
    estimate: np.ndarray,
    *,
    level: float = COMPARISON_LEVEL,
    p_values: bool = True,
) -> MaxT:
    """Max-T inference for the columns of ``draws`` ``(R, K)`` around ``estimate`` ``(K,)``;
    ``p_values=False`` gives the intervals alone (p-values ``nan``: rank sets need no more)."""
    d = np.asarray(draws, dtype=float)
    est = np.asarray(estimate, dtype=float)
    R, K = d.shape
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(d, axis=0, ddof=1) if R > 1 else np.zeros(K)
    missing = np.isnan(est) | np.isnan(se)
    se = np.where(missing, np.nan, se)
    t_abs = _centred_abs_t(d, est, np.where(missing, 0.0, se))
    maxima = np.sort(t_abs.max(axis=1)) if K else np.zeros(R)
    idx = critical_index(R, 1.0 - level)
    crit = float(maxima[idx]) if idx >= 0 else np.inf
    bound = crit * se
    low, high = est - bound, est + bound
    if p_values:
        p, p_sd, below = _max_t_p_values(est, se, t_abs, maxima, missing)
    else:
        p = p_sd = np.full(K, np.nan)
        below = np.zeros(K, bool)
    return MaxT(
        estimate=est,
        se=se,
        low=np.where(missing, np.nan, low),
        high=np.where(missing, np.nan, high),
        critical=crit,
        p_value=p,
        p_stepdown=p_sd,
        below_resolution=below,
        level=float(level),
        reps=R,
    )


def _max_t_p_values(
    est: np.ndarray, se: np.ndarray, t_abs: np.ndarray, maxima: np.ndarray, missing: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Single-step and step-down max-T p-values, and where no draw reaches ``|estimate|``
    (``below_resolution``), from the sorted maxima of the centred ``|t|`` draws."""
    R = len(maxima)
    size = np.abs(est)
    flat = se == 0
    # #{r: m_r se >= |d|}: the products m_r se are sorted like m_r
    scaled = maxima[None, :] * np.where(flat, 0.0, np.nan_to_num(se))[:, None]
    count = (scaled >= size[:, None]).sum(axis=1)
    count = np.where(flat & (size == 0), R, count)
    p = (1.0 + count) / (R + 1.0)
    t_obs = size / np.where(flat, 1.0, se)  # flat pairs are set apart (no 0-division)
    p_sd = _stepdown(t_abs, np.where(flat, np.where(size == 0, 0.0, np.inf), t_obs), p)
    p = np.where(missing, np.nan, p)
    p_sd = np.where(missing, np.nan, p_sd)
    return p, p_sd, ~missing & (count == 0)


def _stepdown(t_abs: np.ndarray, t_obs: np.ndarray, p_single: np.ndarray) -> np.ndarray:
    """Romano–Wolf step-down p-values (monotone in the order of decreasing ``|t|``)."""
    R, K = t_abs.shape
    if K == 0:
        return np.zeros(0)
    t_obs = np.nan_to_num(t_obs, nan=-np.inf)
    order = np.argsort(-t_obs, kind="stable")
    # maxima over the hypotheses from step j on: reverse cumulative max over sorted columns
    rest = np.maximum.accumulate(t_abs[:, order][:, ::-1], axis=1)[:, ::-1]
    count = (rest >= t_obs[order][None, :]).sum(axis=0)
    p_sorted = np.maximum.accumulate((1.0 + count) / (R + 1.0))
    out = np.empty(K)
    out[order] = np.minimum(p_sorted, p_single[order])
    return out


def format_p(p: float, below_resolution: bool, reps: int) -> str:
    """A p-value for people: ``"p < 0.0005"`` where ``reps`` replicates cannot resolve it, and
    ``"p < 1e-10"`` for smaller normal-reference values."""
    if below_resolution:
        return f"p < {1 / (reps + 1):.2g}"
    if p < P_FLOOR:
        return f"p < {P_FLOOR:g}"
    return f"p = {p:.2g}" if p < 0.01 else f"p = {p:.3f}"

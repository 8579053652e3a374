"""Paired tests of two runs, each with an interval that agrees with its p-value (METHODS 13).

- :func:`mcnemar`: exact McNemar for binary scores with one answer per item;
- :func:`sign_flip`: an exact sign-flip randomization test of a weighted mean difference (small
  runs), its interval from inverting it and Hoeffding's bound;
- :func:`confidence_sequence`: an anytime-valid confidence sequence for the mean of values in
  ``[0, 1]`` (Waudby-Smith & Ramdas 2024), :func:`sequence_test` for paired differences and
  :func:`sequence_sum` for a weighted sum of tasks' differences.

Each returns a :class:`PairedTest`; ``core.analyses.diff`` chooses among them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from benchuq.core.summaries.exact_pairs import EXACT_FLIPS, RANDOM_FLIPS, flip_sums
from benchuq.core.validation import check_level

__all__ = [
    "EXACT_FLIPS",
    "RANDOM_FLIPS",
    "PairedTest",
    "confidence_sequence",
    "mcnemar",
    "sequence_sum",
    "sequence_test",
    "sign_flip",
]


@dataclass(frozen=True)
class PairedTest:
    """One paired test: the estimate, its interval and the p-value that agrees with it, the
    method, and whether no data of this size could reject (``too_few``)."""

    estimate: float
    low: float
    high: float
    p_value: float
    method: str
    too_few: bool
    resolution: float = 0.0  # the smallest p-value the method can give (bootstrap: 1 / (R + 1))


def mcnemar(base: np.ndarray, candidate: np.ndarray, *, level: float = 0.95) -> PairedTest:
    """Exact McNemar for paired binary scores: p-value and an interval that agrees with it.

    With ``b`` items right in the base only, ``c`` right in the candidate only and ``m = b + c``:
    the p-value is the two-sided exact binomial test of ``c ~ Bin(m, 1/2)`` (equal to
    ``scipy.stats.binomtest(c, m)``); the interval for ``d = (c - b) / n`` is the Clopper–Pearson
    interval ``[pi_lo, pi_hi]`` of the discordant split mapped by ``psi (2 pi - 1)``, with the
    discordant share ``psi`` over its own Clopper–Pearson interval (METHODS 13). It excludes 0
    exactly when ``p <= 1 - level``.

    Examples
    --------
    >>> import numpy as np
    >>> base = np.array([1, 1, 1, 1, 1, 1, 1, 0, 0, 1])
    >>> cand = np.array([0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
    >>> t = mcnemar(base, cand)
    >>> round(t.estimate, 2), round(t.p_value, 4), t.high < 0
    (-0.7, 0.0156, True)
    """
    level = check_level(level)
    b_right = np.asarray(base) > 0.5
    c_right = np.asarray(candidate) > 0.5
    n = len(b_right)
    b = int(np.count_nonzero(b_right & ~c_right))
    c = int(np.count_nonzero(c_right & ~b_right))
    m = b + c
    alpha = 1.0 - level
    too_few = 2.0 * 0.5**n > alpha  # all n items discordant one way could not reject
    if n == 0:
        return PairedTest(np.nan, np.nan, np.nan, np.nan, "exact McNemar", True)
    p = float(stats.binomtest(c, m, 0.5).pvalue) if m else 1.0
    lo = 0.0 if c == 0 else float(stats.beta.ppf(alpha / 2, c, m - c + 1))
    hi = 1.0 if c == m else float(stats.beta.ppf(1 - alpha / 2, c + 1, m - c))
    # the interval excludes 1/2 exactly when the central test (= binomtest at 1/2) rejects
    if p <= alpha and lo <= 0.5 <= hi:
        lo, hi = (np.nextafter(0.5, 1.0), hi) if c > b else (lo, np.nextafter(0.5, 0.0))
    elif p > alpha:
        lo, hi = min(lo, 0.5), max(hi, 0.5)
    # the discordant share psi = m / n is itself estimated: the interval holds for every psi of
    # its Clopper-Pearson interval (the sign, and so the verdict's direction, comes from pi)
    psi_lo = 0.0 if m == 0 else float(stats.beta.ppf(alpha / 2, m, n - m + 1))
    psi_hi = 1.0 if m == n else float(stats.beta.ppf(1 - alpha / 2, m + 1, n - m))
    low = (2 * lo - 1) * (psi_hi if lo < 0.5 else psi_lo)
    high = (2 * hi - 1) * (psi_hi if hi > 0.5 else psi_lo)
    return PairedTest((c - b) / n, low, high, p, "exact McNemar", too_few)


def sign_flip(
    values: np.ndarray, weights: np.ndarray, *, level: float, bound: float, seed: int = 0
) -> PairedTest:
    """Randomization test of ``sum_u w_u d_u`` (``sum w = 1``) by flipping the sign of each
    unit's difference, and the interval of the shifts ``theta`` it does not reject.

    Exact (every flip) up to :data:`EXACT_FLIPS` units; with more, random flips with
    ``p = (1 + #) / (F + 1)``. The p-value at 0 is exact under exchangeable runs; the interval
    inverts the test (differences symmetric about their mean), each end at least as far out as
    Hoeffding's bound (the end next to 0 of a rejection excepted), within ``[-bound, bound]``.
    """
    v = np.asarray(values, float)
    w = np.asarray(weights, float)
    k = len(v)
    alpha = 1.0 - level
    if k == 0:
        return PairedTest(np.nan, np.nan, np.nan, np.nan, "sign-flip", True)
    est = float(w @ v)
    sums, exact = flip_sums(k, np.stack([w * v, w], axis=1), np.random.default_rng(seed))
    a, b = sums[:, 0], sums[:, 1]
    A, B = est, float(w.sum())
    tol = 1e-12 * max(1.0, float(np.abs(w * v).sum()))

    def p_at(theta: float) -> float:
        count = np.count_nonzero(np.abs(a - theta * b) >= abs(A - theta * B) - tol)
        return count / len(a)

    best = 2.0 / len(a) if exact else 1.0 / len(a)  # smallest p any data could give
    too_few = best > alpha
    method = "sign-flip (exact)" if exact else f"sign-flip ({RANDOM_FLIPS} random flips)"
    p0 = p_at(0.0)

    def edge(outer: float) -> float:
        inner = est
        if p_at(outer) > alpha:
            return outer
        for _ in range(60):
            mid = 0.5 * (inner + outer)
            if p_at(mid) > alpha:
                inner = mid
            else:
                outer = mid
        return inner

    lo, hi = edge(-bound), edge(bound)
    # the width leans on symmetry (all-equal differences give no width at all): each end is also
    # at least as far out as Hoeffding's bound for a mean of k values in [-bound, bound]; the end
    # next to 0 of a rejection stays the test's, so interval and p-value still agree
    half = bound * np.sqrt(2.0 * np.log(2.0 / alpha) * float(np.sum(w**2)) / float(w.sum()) ** 2)
    wide_lo, wide_hi = max(min(lo, est - half), -bound), min(max(hi, est + half), bound)
    if p0 > alpha:  # agree with the p-value at 0
        lo, hi = min(wide_lo, 0.0), max(wide_hi, 0.0)
    else:
        lo, hi = (max(lo, 0.0), wide_hi) if est > 0 else (wide_lo, min(hi, 0.0))
        if lo <= 0.0 <= hi:
            lo, hi = (np.nextafter(0.0, 1.0), hi) if est > 0 else (lo, np.nextafter(0.0, -1.0))
    return PairedTest(est, float(lo), float(hi), p0, method, too_few, 0.0 if exact else 1 / len(a))


# ---- confidence sequences ---------------------------------------------------------------------
def confidence_sequence(x: np.ndarray, *, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Anytime-valid confidence sequence for the mean of ``x`` in ``[0, 1]``, observed in order.

    The predictable plug-in empirical-Bernstein sequence of Waudby-Smith & Ramdas (2024,
    Theorem 2, two-sided with ``alpha / 2`` per side), with ``lambda_t`` capped at 1/2, as a
    running intersection. Returns ``(low, high)`` after each observation: with probability at
    least ``level`` every one of them holds the mean at once (METHODS 13).
    """
    x = np.asarray(x, float)
    t = np.arange(1, len(x) + 1, dtype=float)
    alpha = 1.0 - level
    log_term = np.log(2.0 / alpha)
    mu_hat = (0.5 + np.cumsum(x)) / (t + 1)  # mu_hat_t uses x_1..x_t
    sigma2 = (0.25 + np.cumsum((x - mu_hat) ** 2)) / (t + 1)
    mu_prev = np.concatenate([[0.5], mu_hat[:-1]])
    sigma2_prev = np.concatenate([[0.25], sigma2[:-1]])
    lam = np.minimum(np.sqrt(2 * log_term / (sigma2_prev * t * np.log1p(t))), 0.5)
    psi = (-np.log1p(-lam) - lam) / 4.0
    v = 4.0 * (x - mu_prev) ** 2
    sum_lam = np.cumsum(lam)
    centre = np.cumsum(lam * x) / sum_lam
    width = (log_term + np.cumsum(v * psi)) / sum_lam
    low = np.maximum.accumulate(np.maximum(centre - width, 0.0))
    high = np.minimum.accumulate(np.minimum(centre + width, 1.0))
    return low, high


def _sequence_ends(d: np.ndarray, level: float) -> tuple[float, float]:
    """The last look of the confidence sequence of differences ``d`` in ``[-1, 1]``."""
    lo, hi = confidence_sequence((d + 1.0) / 2.0, level=level)
    return 2 * float(lo[-1]) - 1, 2 * float(hi[-1]) - 1


def _anytime(
    bounds: Callable[[float], tuple[float, float]], level: float
) -> tuple[float, float, float]:
    """The ends ``bounds(level)`` and the anytime-valid p-value: the smallest ``1 - level`` whose
    sequence excludes 0 (bisection on its log), made to agree with the ends at ``level``."""

    def excludes(a: float) -> bool:
        lo, hi = bounds(1.0 - a)
        return lo > 0 or hi < 0

    lo, hi = bounds(level)
    alpha = 1.0 - level
    if excludes(1e-12):
        p = 1e-12
    elif not excludes(1.0 - 1e-9):
        p = 1.0
    else:
        small, large = np.log(1e-12), np.log(1.0 - 1e-9)
        for _ in range(50):
            mid = 0.5 * (small + large)
            small, large = (small, mid) if excludes(float(np.exp(mid))) else (mid, large)
        p = float(np.exp(large))
    p = min(p, alpha) if (lo > 0 or hi < 0) else max(p, float(np.nextafter(alpha, 1.0)))
    return lo, hi, p


def sequence_test(d: np.ndarray, *, level: float) -> PairedTest:
    """The confidence sequence of the paired differences ``d`` in ``[-1, 1]`` at its last
    look, with the anytime-valid p-value."""
    if len(d) == 0:
        return PairedTest(np.nan, np.nan, np.nan, np.nan, "confidence sequence", True)
    lo, hi, p = _anytime(lambda lev: _sequence_ends(d, lev), level)
    extreme, _ = confidence_sequence(np.ones(len(d)), level=level)
    too_few = not (extreme[-1] > 0.5)
    return PairedTest(
        float(d.mean()), lo, hi, p, "confidence sequence (empirical Bernstein)", too_few
    )


def sequence_sum(
    diffs: list[np.ndarray], weights: np.ndarray, *, level: float
) -> tuple[float, float, float]:
    """Ends and anytime-valid p-value for ``sum_t w_t mean(d_t)``: each task's sequence at the
    Šidák level ``level^(1/T)``, so all hold at once and so does their weighted sum."""

    def bounds(lev: float) -> tuple[float, float]:
        ends = np.array([_sequence_ends(d, lev ** (1.0 / len(diffs))) for d in diffs])
        return float(weights @ ends[:, 0]), float(weights @ ends[:, 1])

    return _anytime(bounds, level)

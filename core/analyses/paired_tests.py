"""Paired tests of two runs, each with an interval that agrees with its p-value (METHODS 13).

- :func:`mcnemar`: exact McNemar for binary scores with one answer per item;
- :func:`sign_flip`: an exact sign-flip randomization test of a weighted mean difference (small
  runs), its interval from inverting it and a distribution-free floor: the betting interval
  :func:`betting_interval` for one sample of equally weighted units, else Hoeffding's bound;
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

from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.summaries.exact_pairs import EXACT_FLIPS, RANDOM_FLIPS, flip_sums
from benchuq.core.validation import check_level

__all__ = [
    "EXACT_FLIPS",
    "RANDOM_FLIPS",
    "PairedTest",
    "betting_interval",
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


def mcnemar(
    base: np.ndarray, candidate: np.ndarray, *, level: float = COMPARISON_LEVEL
) -> PairedTest:
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
    values: np.ndarray,
    weights: np.ndarray,
    *,
    level: float,
    bound: float,
    seed: int = 0,
    one_sample: bool = True,
) -> PairedTest:
    """Randomization test of ``sum_u w_u d_u`` (``sum w = 1``) by flipping the sign of each
    unit's difference, and the interval of the shifts ``theta`` it does not reject.

    Exact (every flip) up to :data:`EXACT_FLIPS` units; with more, random flips with
    ``p = (1 + #) / (F + 1)``. The p-value at 0 is exact under exchangeable runs; the interval
    inverts the test (differences symmetric about their mean), each end at least as far out as a
    distribution-free floor, within ``[-bound, bound]`` and, on a rejection, on the test's side
    of 0 (METHODS 13): the betting interval (:func:`betting_interval`) when the
    units are ``one_sample`` of equally weighted i.i.d. units (one task, items or equal
    clusters), else Hoeffding's bound (unequal weights; several tasks' units).
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
    # at least as far out as a distribution-free interval for a mean of k values in
    # [-bound, bound]; the side of 0 stays the test's, so interval and p-value still agree
    floor_lo, floor_hi = _floor(v, w, level=level, bound=bound, seed=seed, one_sample=one_sample)
    lo, hi = max(min(lo, floor_lo), -bound), min(max(hi, floor_hi), bound)
    if p0 > alpha:  # agree with the p-value at 0
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    elif est > 0:  # a rejection: the end next to 0 goes as far out as the floor, short of 0
        lo = max(lo, float(np.nextafter(0.0, 1.0)))
    else:
        hi = min(hi, float(np.nextafter(0.0, -1.0)))
    return PairedTest(est, float(lo), float(hi), p0, method, too_few, 0.0 if exact else 1 / len(a))


def _floor(
    v: np.ndarray, w: np.ndarray, *, level: float, bound: float, seed: int, one_sample: bool
) -> tuple[float, float]:
    """The distribution-free floor of :func:`sign_flip`'s interval for ``sum w v / sum w``:
    the betting interval for one sample of equally weighted units (taken in a seeded random
    order, so a file sorted by difficulty cannot bias it), else Hoeffding's
    ``est +- bound sqrt(2 log(2 / alpha) sum w^2) / sum w``."""
    est = float(w @ v) / float(w.sum())
    if one_sample and np.ptp(w) <= 1e-12 * float(np.max(w)):
        order = np.random.default_rng([seed, 1]).permutation(len(v))
        lo, hi = betting_interval((v[order] + bound) / (2.0 * bound), level=level)
        return 2.0 * bound * lo - bound, 2.0 * bound * hi - bound
    alpha = 1.0 - level
    half = bound * np.sqrt(2.0 * np.log(2.0 / alpha) * float(np.sum(w**2)) / float(w.sum()) ** 2)
    return est - half, est + half


def betting_interval(x: np.ndarray, *, level: float) -> tuple[float, float]:
    """Fixed-n betting confidence interval for the mean of i.i.d. ``x`` in ``[0, 1]``, valid at
    any n (METHODS 13).

    The hedged capital process of Waudby-Smith & Ramdas (2024, JRSS-B 86(1), Theorem 3) with the
    fixed-n bets ``lambda_t = sqrt(2 log(2 / alpha) / (n sigma_hat^2_{t-1}))`` (their remark on
    a fixed sample size), truncated at ``c / m`` (betting up) and ``c / (1 - m)`` (down) with
    ``c = 1/2``, ``theta = 1/2``: a candidate mean ``m`` is rejected once ``max(theta K^+_t(m),
    (1 - theta) K^-_t(m)) >= 1 / alpha`` at some ``t <= n`` (Ville's inequality).
    ``sigma_hat`` is :func:`confidence_sequence`'s running estimate. Every factor of ``K^+``
    falls as ``m`` grows and every factor of ``K^-`` rises, so the rejected means are ``[0, a]``
    and ``[b, 1]`` and the interval is ``(a, b)``: each end is found on a grid of candidate
    means (all units at once), refined in the grid cell that holds it, and reported as the last
    rejected grid point, so the discretisation never shortens the interval.

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = betting_interval(np.full(20, 0.5), level=0.95)
    >>> 0.2 < lo < 0.5 < hi < 0.8
    True
    """
    x = np.asarray(x, float)
    n = len(x)
    if n == 0:
        return 0.0, 1.0
    log_stop = np.log(2.0 / (1.0 - level))  # theta K >= 1 / alpha with theta = 1/2
    _, sigma2_prev = _running_estimates(x)
    lam = np.sqrt(2.0 * log_stop / (n * sigma2_prev))
    return _betting_end(x, lam, log_stop, up=True), _betting_end(x, lam, log_stop, up=False)


def _betting_end(
    x: np.ndarray, lam: np.ndarray, log_stop: float, *, up: bool, points: int = 65, rounds: int = 3
) -> float:
    """The lower (``up``: ``K^+`` rejects ``[0, a]``) or upper (``K^-`` rejects ``[b, 1]``) end
    of :func:`betting_interval`, to ``1 / (points - 1)^rounds``, on the safe side."""
    edge, inner = (0.0, 1.0) if up else (1.0, 0.0)  # edge: rejected (or the bound); inner: kept
    steps = np.arange(points, dtype=float)[:, None] / (points - 1)
    for _ in range(rounds):
        m = edge + (inner - edge) * steps
        with np.errstate(divide="ignore"):
            bet = np.minimum(lam, 0.5 / m) if up else -np.minimum(lam, 0.5 / (1.0 - m))
        capital = np.cumsum(np.log1p(bet * (x - m)), axis=1).max(axis=1)
        rejected = np.flatnonzero(capital >= log_stop)  # a prefix of the grid, from the edge
        if not len(rejected):
            break
        last = int(rejected[-1])
        if last == points - 1:  # everything rejected up to ``inner``: the end lies beyond it
            edge = float(m[last, 0])
            break
        edge, inner = float(m[last, 0]), float(m[last + 1, 0])
    return edge


# ---- confidence sequences ---------------------------------------------------------------------
def confidence_sequence(
    x: np.ndarray, *, level: float = COMPARISON_LEVEL
) -> tuple[np.ndarray, np.ndarray]:
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
    mu_prev, sigma2_prev = _running_estimates(x)
    lam = np.minimum(np.sqrt(2 * log_term / (sigma2_prev * t * np.log1p(t))), 0.5)
    psi = (-np.log1p(-lam) - lam) / 4.0
    v = 4.0 * (x - mu_prev) ** 2
    sum_lam = np.cumsum(lam)
    centre = np.cumsum(lam * x) / sum_lam
    width = (log_term + np.cumsum(v * psi)) / sum_lam
    low = np.maximum.accumulate(np.maximum(centre - width, 0.0))
    high = np.minimum.accumulate(np.minimum(centre + width, 1.0))
    return low, high


def _running_estimates(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The predictable running mean and variance ``(mu_hat_{t-1}, sigma_hat^2_{t-1})`` of
    Waudby-Smith & Ramdas (2024, as in their Theorem 2): shrunk towards 1/2 and 1/4, known
    before ``x_t``."""
    t = np.arange(1, len(x) + 1, dtype=float)
    mu_hat = (0.5 + np.cumsum(x)) / (t + 1)  # mu_hat_t uses x_1..x_t
    sigma2 = (0.25 + np.cumsum((x - mu_hat) ** 2)) / (t + 1)
    return np.concatenate([[0.5], mu_hat[:-1]]), np.concatenate([[0.25], sigma2[:-1]])


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

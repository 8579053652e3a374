"""Robust empirical-Bayes confidence intervals [AKP] (METHODS 7; the algorithm of EBCI.md).

Units are in the scale of the estimates. ``t`` is the squared normalized bias ``b^2``, ``chi`` a
critical value, ``m2`` the second moment of ``b`` (``sigma^2 / mu2``) and ``kappa`` its kurtosis.

Three ways to the critical value, all the same function:

- :func:`cva` (with :func:`_r` ... :func:`rho`) follows EBCI.md sections 3-5 step by step on
  Python floats (``math.erfc``); it is the reference that reproduces TV1.
- :func:`cva_v` solves many ``m2`` at once with the same steps and shortcuts, vectorised: the
  roots by safeguarded Newton with analytic derivatives in ``chi`` (envelope theorem); ``t0``
  (a function of ``chi`` alone) from a table built once per process; the kurtosis-binding
  ``rho`` on the primal side (a two-point least-favourable distribution; equal to the dual by
  LP duality), maximised by Newton's method warm-started across steps and checked by a search
  at the root. It agrees with :func:`cva` to about 1e-10 (tested to 1e-8 relative over random
  ``kappa``, ``alpha`` and ``m2`` from 1e-5 to 1e5).
- :func:`cva_table` tabulates the pieces of :func:`cva` (``cv_inf``, the step-2 gap and the
  kurtosis-bound root) on an even grid in ``log m2``, interpolates each by local quintics and
  combines them as the spec does, so its step-2 jump needs no direct solve; every interval is
  checked at its midpoint, and values in intervals that miss by more than 2e-7 (kinks, the
  step-1 jump) are computed directly. Measured error against :func:`cva`: <= 2e-7
  (``benchmarks/bench_ebci.py``).

Choices where the spec is open:

- ``CVb(B, alpha)`` for ``B < 10`` is the root of ``_r(B^2, c) = alpha`` (the same quantity as the
  square root of the noncentral chi-square quantile, computed with the normal cdf, which is
  accurate in the far tail); for ``B >= 10`` it is ``B + z_{1-alpha}`` as in the spec.
- Bounded minimizations use Brent's method (as R ``optimize``) with the spec's tolerances
  (1e-9 for the dual, 1e-12 for ``LAM``); root finding uses ``brentq`` with ``xtol = 1e-12``.
- The LP cross-check of the dual (R ``check=TRUE``) is :func:`rho_lp`, run by
  ``rho(..., check=True)`` and ``cva(..., check=True)`` as the spec says (a ``UserWarning`` when
  the LP and the dual differ by >= 1e-4; ``nan`` if the LP fails). It is off by default, as in R;
  the app never needs it, since :func:`cva_v` and the table solve the primal. The tests use it
  as an independent check of both paths.
- :func:`cva` follows the spec's dual and so inherits its failures: at extreme ``m2`` (1e11
  with ``kappa = 50``, ``alpha = 0.001``) the dual value falls below the non-coverage of a
  feasible two-point distribution and cva is 12% too small (4.17e6 vs 4.71e6);
  ``cva(..., check=True)`` warns there. :func:`cva_v` and the table (what :func:`ebci` uses by
  default) solve the primal and are right there (tested, also against the LP).
- With ``fs_correction="none"`` and ``mu2 = 0`` :func:`ebci` returns the regression estimate
  ``f`` and ``nan`` half-lengths (not R's residual ``Y - f``; EBCI.md section 8).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, get_args

import numpy as np
from scipy import optimize, special

from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.validation import InvalidArgument, check_choice, check_level

__all__ = [
    "FS_CORRECTIONS",
    "CvaMethod",
    "CvaTable",
    "EBCIResult",
    "FsCorrection",
    "Kappa",
    "Moments",
    "Rho",
    "cva",
    "cva_table",
    "cva_v",
    "ebci",
    "moments",
    "parse_kappa",
    "rho",
    "rho_lp",
]

FsCorrection = Literal["PMT", "none", "FPLIB"]
FS_CORRECTIONS: tuple[str, ...] = get_args(FsCorrection)
# The kurtosis constraint: "estimated" from the data, or a number >= 1 (``inf``: none).
Kappa = float | Literal["estimated"]
CvaMethod = Literal["table", "exact"]

_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)
_XTOL = 1e-12


def _pdf(x: float) -> float:
    return math.exp(-0.5 * x * x) / _SQRT2PI


def _cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / _SQRT2)


# ---- EBCI.md section 3: non-coverage _r(t, chi) and its derivatives in t ------------------------
def _r(t: float, chi: float) -> float:
    """Non-coverage ``P(|N(0,1) + sqrt(t)| > chi)``; 1 when ``sqrt(t) - chi > 5``."""
    st = math.sqrt(t)
    if st - chi > 5.0:
        return 1.0
    return _cdf(-st - chi) + _cdf(st - chi)


def _r1(t: float, chi: float) -> float:
    """First derivative of :func:`_r` in ``t`` (limit ``chi * phi(chi)`` below 1e-8)."""
    if t < 1e-8:
        return chi * _pdf(chi)
    st = math.sqrt(t)
    return (_pdf(st - chi) - _pdf(st + chi)) / (2.0 * st)


def _r2(t: float, chi: float) -> float:
    """Second derivative of :func:`_r` in ``t`` (small-t limit below 2e-6)."""
    if t < 2e-6:
        return _pdf(chi) * chi * (chi * chi - 3.0) / 6.0
    st = math.sqrt(t)
    num = _pdf(st + chi) * (chi * st + t + 1.0) + _pdf(st - chi) * (chi * st - t - 1.0)
    return num / (4.0 * t**1.5)


def _r3(t: float, chi: float) -> float:
    """Third derivative of :func:`_r` in ``t`` (small-t limit below 2e-4)."""
    if t < 2e-4:
        return _pdf(chi) * (chi**5 - 10.0 * chi**3 + 15.0 * chi) / 60.0
    st = math.sqrt(t)
    c2 = 2.0 + chi * chi
    a = _pdf(chi - st) * (t * t - 2 * chi * t * st + c2 * t - 3 * chi * st + 3)
    b = _pdf(chi + st) * (t * t + 2 * chi * t * st + c2 * t + 3 * chi * st + 3)
    return (a - b) / (8.0 * t**2.5)


@lru_cache(maxsize=4096)
def _rt0(chi: float) -> tuple[float, float]:
    """``(t0, t1)``: tangent point from ``(0, _r(0))`` and inflection point of ``_r(., chi)``."""
    c2 = chi * chi
    if c2 < 3.0:
        return 0.0, 0.0
    if abs(_r2(c2 - 1.5, chi)) < 1e-12 or c2 - 3.0 == c2:
        t1 = c2 - 1.5
    else:
        t1 = optimize.brentq(_r2, c2 - 3.0, c2, args=(chi,), xtol=_XTOL)
    r0 = _r(0.0, chi)

    def h(t: float) -> float:
        return _r(t, chi) - t * _r1(t, chi) - r0

    lo, up = t1, 2.0 * c2
    while h(up) < 0:
        lo, up = up, 2.0 * up
    t0 = optimize.brentq(h, lo, up, xtol=_XTOL) if h(lo) < 0 else lo
    return t0, t1


def _rho0(m2: float, chi: float) -> float:
    """Worst-case non-coverage under ``E t = m2`` only (``kappa = inf``): concave majorant."""
    t0, _ = _rt0(chi)
    if m2 >= t0:
        return _r(m2, chi)
    return _r(t0, chi) + (m2 - t0) * _r1(t0, chi)


def _delta(x: float, x0: float, chi: float) -> float:
    """``_delta(x; x0)``: slope of the quadratic through ``r`` tangent at ``x0``."""
    d = x - x0
    if abs(d) < 1e-4:
        return _r2(x0, chi) / 2.0
    return (_r(x, chi) - _r(x0, chi) - _r1(x0, chi) * d) / (d * d)


def _delta1(x: float, x0: float, chi: float) -> float:
    """Derivative of :func:`_delta` in ``x``."""
    d = x - x0
    if abs(d) < 1e-3:
        return _r3(x0, chi) / 6.0
    return (_r1(x, chi) + _r1(x0, chi) - 2.0 * (_r(x, chi) - _r(x0, chi)) / d) / (d * d)


def _fmin(fun: Callable[[float], float], a: float, b: float, tol: float) -> tuple[float, float]:
    """``(min value, argmin)`` of ``fun`` on ``[a, b]``: Brent's golden-section and parabolic
    search, stopping when the bracket is within ``tol`` (R ``optimize``; scipy ``fminbound``)."""
    gold = 0.5 * (3.0 - math.sqrt(5.0))
    seps = 1.49e-8
    v = w = x = a + gold * (b - a)
    fv = fw = fx = fun(x)
    d = e = 0.0
    for _ in range(500):
        xm = 0.5 * (a + b)
        tol1 = seps * abs(x) + tol / 3.0
        tol2 = 2.0 * tol1
        if abs(x - xm) <= tol2 - 0.5 * (b - a):
            break
        use_golden = True
        if abs(e) > tol1:
            rr = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * rr
            q = 2.0 * (q - rr)
            if q > 0:
                p = -p
            q = abs(q)
            e_old, e = e, d
            if abs(p) < abs(0.5 * q * e_old) and q * (a - x) < p < q * (b - x):
                d = p / q
                u = x + d
                if u - a < tol2 or b - u < tol2:
                    d = tol1 if xm >= x else -tol1
                use_golden = False
        if use_golden:
            e = (a - x) if x >= xm else (b - x)
            d = gold * e
        u = x + (d if abs(d) >= tol1 else (tol1 if d >= 0 else -tol1))
        fu = fun(u)
        if fu <= fx:
            if u >= x:
                a = x
            else:
                b = x
            v, fv, w, fw, x, fx = w, fw, x, fx, u, fu
        else:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v, fv, w, fw = w, fw, u, fu
            elif fu <= fv or v in (x, w):
                v, fv = u, fu
    return fx, x


def _lam(x0: float, chi: float) -> tuple[float, float]:
    """``LAM(x0)``: ``(max_x _delta(x; x0), argmax)`` over ``x`` in ``[0, t0]`` (chi^2 >= 3)."""
    t0, t1 = _rt0(chi)
    grid = [0.0, t1] if x0 >= min(t1, t0) else sorted({0.0, x0, t1, t0})
    d = [_delta(x, x0, chi) for x in grid]
    d1 = [_delta1(x, x0, chi) for x in grid]
    at0 = d[0]
    pos = [v >= 0 for v in d1]
    neg = [i for i, v in enumerate(d1) if v < 0]
    if all(v <= 0 for v in d1) and int(np.argmax(d)) == 0:
        return at0, 0.0
    if all(a >= b for a, b in itertools.pairwise(pos)) and d1[-1] <= 0 and neg[:1] != [0]:
        j = neg[0]
        lo, hi = grid[j - 1], grid[j]
    elif min(abs(v) for v in d1) < 1e-6:
        j = int(np.argmax(d))
        lo, hi = grid[max(j - 1, 0)], grid[min(j + 1, len(grid) - 1)]
    else:
        raise ArithmeticError(f"multiple optima in _delta(x; x0={x0}, chi={chi})")
    rx0, r1x0, half_r2 = _r(x0, chi), _r1(x0, chi), _r2(x0, chi) / 2.0

    def neg_delta(x: float) -> float:
        d = x - x0
        if abs(d) < 1e-4:
            return -half_r2
        return -(_r(x, chi) - rx0 - r1x0 * d) / (d * d)

    val, arg = _fmin(neg_delta, lo, hi, _XTOL)
    val = -val
    if val > at0:
        return val, arg
    return at0, 0.0


@dataclass(frozen=True)
class Rho:
    """Worst-case non-coverage ``size`` and its least-favourable distribution (support ``x``,
    probabilities ``p``) of ``t = b^2``."""

    size: float
    x: tuple[float, ...]
    p: tuple[float, ...]


def rho_lp(m2: float, kappa: float, chi: float, *, extra: Sequence[float] = ()) -> Rho:
    """The primal of EBCI.md section 4 as a linear program on a grid (R ``check=TRUE``).

    Support: ``m2``, the points ``extra`` (the dual's least-favourable points) and 5,000 equally
    spaced points on ``[0, t0]``; maximise ``sum p_i _r(x_i, chi)`` subject to ``sum p_i = 1``,
    ``sum p_i x_i = m2``, ``sum p_i x_i^2 <= kappa m2^2``, ``p >= 0`` (HiGHS). A grid restricts
    the distributions, so the value is a lower bound of rho, tight to the grid's resolution.
    The constraints are scaled by ``m2`` and ``m2^2``. ``size`` is ``nan`` if the LP fails.
    """
    if not m2 > 0.0:
        raise InvalidArgument(f"the LP needs m2 > 0, got {m2}.")
    t0, _ = _rt0(chi)
    x = np.unique(np.concatenate([[m2], np.asarray(extra, float), np.linspace(0.0, t0, 5000)]))
    x = x[x >= 0.0]
    a_ub = (x / m2) ** 2 if math.isfinite(kappa) else None
    res = optimize.linprog(
        -_r_v(x, np.full(x.shape, chi)),
        A_ub=None if a_ub is None else a_ub[None, :],
        b_ub=None if a_ub is None else [kappa],
        A_eq=np.vstack([np.ones_like(x), x / m2]),
        b_eq=[1.0, 1.0],
        bounds=(0.0, None),
        method="highs",
    )
    if res.status != 0:
        return Rho(math.nan, (), ())
    keep = res.x > 1e-12
    return Rho(float(-res.fun), tuple(x[keep]), tuple(res.x[keep]))


def _lf_moments(lf: Rho, chi: float) -> tuple[float, float, float]:
    """Non-coverage, mean and kurtosis (``E t^2 / (E t)^2``) of a least-favourable distribution."""
    x, p = np.asarray(lf.x), np.asarray(lf.p)
    mean = float(p @ x)
    size = float(p @ _r_v(x, np.full(x.shape, chi)))
    return size, mean, float(p @ x**2) / mean**2 if mean > 0 else math.nan


def rho(m2: float, kappa: float, chi: float, *, check: bool = False) -> Rho:
    """``rho(m2, kappa, chi)`` (EBCI.md section 4), with the dual when the kurtosis binds.

    ``check=True`` is R's ``check=TRUE``: where the dual's least-favourable distribution misses
    ``(rho, m2, kappa)`` by more than 1e-4, the primal LP (:func:`rho_lp`) is solved; a
    ``UserWarning`` says when the two differ by >= 1e-4, and ``size`` is ``nan`` if it fails.
    """
    out = _rho(m2, kappa, chi)
    if not check:
        return out
    t0, _ = _rt0(chi)
    if kappa == 1.0 or m2 >= t0 or math.isinf(kappa) or m2 * kappa >= t0:
        return out  # no dual: the check is for section 4, case 4
    size, mean, kurt = _lf_moments(out, chi)
    if max(abs(size - out.size), abs(mean - m2), abs(kurt - kappa)) <= 1e-4:
        return out
    lp = rho_lp(m2, kappa, chi, extra=out.x)
    if math.isnan(lp.size):
        return Rho(math.nan, out.x, out.p)
    if abs(lp.size - out.size) >= 1e-4:
        warnings.warn(
            f"rho(m2={m2:g}, kappa={kappa:g}, chi={chi:g}): the dual gives {out.size:.6g}, "
            f"the primal LP {lp.size:.6g}",
            UserWarning,
            stacklevel=2,
        )
    return out


def _rho(m2: float, kappa: float, chi: float) -> Rho:
    """:func:`rho` without the LP check."""
    t0, _ = _rt0(chi)
    if kappa == 1.0 or m2 >= t0:
        return Rho(_r(m2, chi), (m2,), (1.0,))
    if math.isinf(kappa) or m2 * kappa >= t0:
        return Rho(_rho0(m2, chi), (0.0, t0), (1.0 - m2 / t0, m2 / t0))
    tbar = _lam(0.0, chi)[1]
    k2 = kappa * m2 * m2

    def lambar(x0: float) -> float:
        if x0 >= tbar:
            return _delta(0.0, x0, chi)
        return max(_lam(x0, chi)[0], 0.0)

    def dual(x0: float) -> float:
        return _r(x0, chi) + _r1(x0, chi) * (m2 - x0) + lambar(x0) * (k2 - 2.0 * x0 * m2 + x0 * x0)

    below = _fmin(dual, 0.0, tbar, 1e-9) if tbar > 0 else (dual(0.0), 0.0)
    above = _fmin(dual, tbar, t0, 1e-9)
    size, xstar = below if below[0] < above[0] else above
    a, b = sorted((xstar, _lam(xstar, chi)[1]))
    pa = (m2 - b) / (a - b) if a != b else 1.0
    return Rho(size, (a, b), (pa, 1.0 - pa))


# ---- EBCI.md section 5: the critical value --------------------------------------------------
def _check_levels(kappa: float, alpha: float) -> None:
    """:class:`InvalidArgument` unless ``0 < alpha < 1`` and ``kappa >= 1`` (``inf`` allowed)."""
    check_level(alpha, name="alpha")
    _check_kurtosis(kappa)


def _check_kurtosis(kappa: float) -> float:
    """``kappa`` as a float if it is a kurtosis (``>= 1``, ``inf`` allowed), else raise."""
    if not kappa >= 1.0:
        raise InvalidArgument(
            f"kappa {kappa} must be >= 1 (a kurtosis).",
            hint="use 'estimated', a number >= 1, or inf to drop the kurtosis constraint.",
        )
    return float(kappa)


def parse_kappa(kappa: str | float) -> Kappa:
    """A :data:`Kappa` from a flag or widget: ``"estimated"``, ``"inf"`` or a number >= 1.

    Also accepts ``"infinite"``/``"infinity"`` and numbers as text. Raises
    :class:`InvalidArgument` for anything else.
    """
    if isinstance(kappa, str):
        if kappa == "estimated":
            return "estimated"
        if kappa in ("inf", "infinite", "infinity"):
            return math.inf
        try:
            kappa = float(kappa)
        except ValueError:
            raise InvalidArgument(
                f"kappa {kappa!r} is not 'estimated', 'inf' or a number >= 1."
            ) from None
    return _check_kurtosis(kappa)


def _alpha(level: float) -> float:
    """``1 - level`` rounded to 12 decimals (so level 0.95 gives alpha 0.05 exactly)."""
    return round(1.0 - check_level(level), 12)


def _cvb(b: float, alpha: float) -> float:
    """Critical value under ``kappa = 1``: ``|N(b, 1)|`` exceeds it with probability alpha."""
    if b >= 10.0:
        return b + float(special.ndtri(1.0 - alpha))
    z = float(special.ndtri(1.0 - alpha / 2.0))
    if b == 0.0:
        return z
    t = b * b
    return optimize.brentq(lambda c: _r(t, c) - alpha, z, b + z + 1.0, xtol=_XTOL)


def cva(m2: float, kappa: float = math.inf, alpha: float = 0.05, *, check: bool = False) -> float:
    """Exact robust critical value ``cva_alpha(m2, kappa)``: root of ``rho(m2, kappa, .) = alpha``.

    ``m2 = inf`` gives ``nan`` (no information about the unit beyond the regression).
    ``check=True`` runs the LP check of :func:`rho` at the returned value (off inside the root
    search, as in the spec): a warning where the dual and the LP differ, ``nan`` if the LP fails.
    """
    cv = _cva(m2, kappa, alpha)
    if check and math.isfinite(cv) and math.isnan(rho(m2, kappa, cv, check=True).size):
        return math.nan
    return cv


def _cva(m2: float, kappa: float, alpha: float) -> float:
    """:func:`cva` without the LP check."""
    _check_levels(kappa, alpha)
    if math.isinf(m2) or math.isnan(m2):
        return math.nan
    if m2 == 0.0 or kappa == 1.0:
        return _cvb(math.sqrt(m2), alpha)
    if 1.0 / m2 < 1e-12:
        kappa = math.inf
    lo = _cvb(math.sqrt(m2), alpha) - 0.01
    up = math.sqrt((1.0 + m2) / alpha)
    if abs(_rho0(m2, up) - alpha) >= 9e-6:
        up = optimize.brentq(lambda c: _rho0(m2, c) - alpha, lo, up, xtol=_XTOL)
    if math.isinf(kappa) or rho(m2, kappa, up).size - alpha >= -1e-5:
        return up
    return optimize.brentq(lambda c: rho(m2, kappa, c).size - alpha, lo, up, xtol=_XTOL)


# ---- vectorised critical values (many m2 at once) -------------------------------------------
def _phi_v(x: np.ndarray) -> np.ndarray:
    return np.exp(-0.5 * x * x) / _SQRT2PI


def _r_v(t: np.ndarray, chi: np.ndarray) -> np.ndarray:
    st = np.sqrt(t)
    return np.where(st - chi > 5.0, 1.0, special.ndtr(-st - chi) + special.ndtr(st - chi))


def _r1_v(t: np.ndarray, chi: np.ndarray) -> np.ndarray:
    small = t < 1e-8
    st = np.sqrt(np.where(small, 1.0, t))
    return np.where(small, chi * _phi_v(chi), (_phi_v(st - chi) - _phi_v(st + chi)) / (2.0 * st))


def _r2_v(t: np.ndarray, chi: np.ndarray) -> np.ndarray:
    small = t < 2e-6
    tt = np.where(small, 1.0, t)
    st = np.sqrt(tt)
    num = _phi_v(st + chi) * (chi * st + tt + 1.0) + _phi_v(st - chi) * (chi * st - tt - 1.0)
    return np.where(small, _phi_v(chi) * chi * (chi * chi - 3.0) / 6.0, num / (4.0 * tt**1.5))


def _rc_v(t: np.ndarray, chi: np.ndarray) -> np.ndarray:
    """Derivative of :func:`_r` in ``chi``."""
    st = np.sqrt(t)
    return np.where(st - chi > 5.0, 0.0, -_phi_v(st + chi) - _phi_v(st - chi))


def _newton_v(
    fun: Callable[..., tuple[np.ndarray, np.ndarray]],
    lo: np.ndarray,
    hi: np.ndarray,
    x0: np.ndarray,
    rising: bool,
    *args: np.ndarray,
    ftol: np.ndarray | float = 0.0,
) -> np.ndarray:
    """Elementwise root of ``fun(x, *args)[0]`` in ``[lo, hi]`` by safeguarded Newton.

    ``fun`` returns the value and the derivative; ``rising`` says the value is negative at
    ``lo`` and positive at ``hi`` (else the reverse). Each step keeps the bracket; a Newton step
    leaving it is replaced by bisection. Stops when the step is below ``1e-12 (1 + |x|)``, or
    below ``1e-9 (1 + |x|)`` while ``|fun|`` no longer halves, or ``|fun| <= ftol`` (elementwise;
    the rounding floor of ``fun``).
    """
    a, b = np.array(lo, float), np.array(hi, float)
    x = np.clip(np.array(x0, float), a, b)
    args = tuple(np.asarray(v) for v in args)
    idx = np.arange(len(x))
    f_prev = np.full(len(x), np.inf)
    ftol = np.broadcast_to(np.asarray(ftol, float), x.shape)
    for _ in range(200):
        if len(idx) == 0:
            break
        xi = x[idx]
        f, fp = fun(xi, *(v[idx] for v in args))
        below = (f < 0) if rising else (f > 0)
        ai = np.where(below, xi, a[idx])
        bi = np.where(below, b[idx], xi)
        a[idx], b[idx] = ai, bi
        with np.errstate(divide="ignore", invalid="ignore"):  # fp = 0: bisect instead
            step = np.where(f == 0, 0.0, f / fp)
        new = xi - step
        inside = np.isfinite(new) & (new >= ai) & (new <= bi)
        x[idx] = np.where(inside, new, 0.5 * (ai + bi))
        small = np.abs(step) <= 1e-12 * (1.0 + np.abs(xi))
        stalled = (np.abs(f) >= 0.5 * f_prev[idx]) & (np.abs(step) <= 1e-9 * (1.0 + np.abs(xi)))
        f_prev[idx] = np.abs(f)
        floor = np.abs(f) <= ftol[idx]
        x[idx[floor]] = xi[floor]
        idx = idx[~((inside & (small | stalled)) | floor)]
    return x


def _t0_v(chi: np.ndarray, guess: np.ndarray | None = None) -> np.ndarray:
    """``t0(chi)`` elementwise: root of ``h(t) = _r(t) - t r'(t) - _r(0)`` above ``chi^2 - 3``.

    Up to 6 plain Newton steps (``h'(t) = -t r''(t)``) from ``guess`` (the caller's previous
    ``t0`` for a nearby ``chi``) or else a rough fit of ``t0 / (chi^2 - 3)``, kept where they
    converged above the inflection point; elsewhere safeguarded Newton on a bracket.
    """
    out = np.zeros(chi.shape)
    need = chi * chi >= 3.0
    if not need.any():
        return out
    c = chi[need]

    def h(t: np.ndarray, c: np.ndarray) -> np.ndarray:
        return _r_v(t, c) - t * _r1_v(t, c) - 2.0 * special.ndtr(-c)

    def h_dh(t: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if t.min(initial=1.0) < 2e-6:  # the small-t limits of r' and r''
            return h(t, c), -t * _r2_v(t, c)
        st = np.sqrt(t)
        pm, pp = _phi_v(st - c), _phi_v(st + c)
        rt = np.where(st - c > 5.0, 1.0, special.ndtr(-st - c) + special.ndtr(st - c))
        val = rt - 0.5 * st * (pm - pp) - 2.0 * special.ndtr(-c)
        r2 = (pp * (c * st + t + 1.0) + pm * (c * st - t - 1.0)) / (4.0 * t * st)
        return val, -r2 * t

    t0 = np.full(c.shape, np.nan)
    d = c * c - 3.0  # rough fit of t0 / (chi^2 - 3), within ~10% (a starting point only)
    rough = d * (1.0 + 1.5 / (1.0 + 0.19 * d**0.64))
    if len(c):  # plain Newton from the warm start (or the rough fit); kept where converged
        g = rough if guess is None else np.asarray(guess, float)[need]
        g = np.where(np.isfinite(g) & (g > d), g, rough)
        warm = np.flatnonzero(d > 0)
        t, cw = g[warm], c[warm]
        floor = 2e-15 * special.ndtr(-cw)
        act = np.arange(len(warm))
        with np.errstate(invalid="ignore", divide="ignore"):  # diverging steps are dropped
            for _ in range(6):
                val, der = h_dh(t[act], cw[act])
                step = val / der
                at_floor = np.abs(val) <= floor[act]
                conv = (np.abs(step) <= 1e-12 * (1.0 + t[act])) | at_floor
                t[act] = t[act] - np.where(at_floor, 0.0, step)
                # h' > 0 only above the inflection point t1, where h has its one root t0
                # (h(0) = 0 too)
                good = conv & np.isfinite(t[act]) & (der > 0)
                t0[warm[act[good]]] = t[act[good]]
                act = act[~conv]
                if len(act) == 0:
                    break
    idx = np.flatnonzero(np.isnan(t0))
    if len(idx):
        ct = c[idx]
        lo, up = ct * ct - 3.0, 2.0 * ct * ct
        while (short := h(up, ct) < 0).any():
            lo, up = np.where(short, up, lo), np.where(short, 2.0 * up, up)
        ok = h(lo, ct) < 0
        if ok.any():
            start = rough[idx[ok]]
            floor = 2e-15 * special.ndtr(-ct[ok])  # rounding floor of h (terms of size _r(0))
            t0[idx[ok]] = _newton_v(h_dh, lo[ok], up[ok], start, True, ct[ok], ftol=floor)
        for j in idx[~ok]:  # chi^2 barely above 3, or r underflows: the exact routine
            t0[j] = _rt0(float(c[j]))[0]
    out[need] = t0
    return out


_T0_GRID = (math.sqrt(3.0), 40.0, 0.01)  # the t0 table: first chi, last chi, step


@lru_cache(maxsize=1)
def _t0_nodes() -> np.ndarray:
    """``t0`` on the even ``chi`` grid ``_T0_GRID`` (about 3,800 nodes, a few ms once per
    process; ``t0`` depends on ``chi`` alone, not on ``m2``, ``kappa`` or ``alpha``)."""
    first, last, step = _T0_GRID
    nodes = _t0_v(first + step * np.arange(round((last - first) / step) + 4))
    nodes.setflags(write=False)
    return nodes


def _t0_lookup(chi: np.ndarray, guess: np.ndarray | None = None) -> np.ndarray:
    """``t0(chi)`` by cubic interpolation in :func:`_t0_nodes` (relative error <= 2e-8 above
    ``chi = sqrt(3) + 0.05``, absolute <= 2e-7 below); :func:`_t0_v` beyond the grid.

    ``t0`` enters ``rho`` at a maximum (of ``(_r(t) - _r(0)) / t``), so this error moves ``rho``
    and its ``chi`` derivative only to second order.
    """
    first, last, step = _T0_GRID
    out = np.zeros(chi.shape)
    need = chi * chi >= 3.0
    inside = need & (chi <= last)
    if inside.any():
        nodes = _t0_nodes()
        x = np.maximum(chi[inside] - first, 0.0) / step
        i = np.clip(x.astype(int) - 1, 0, len(nodes) - 4)
        u = x - i
        u1, u2, u3 = u - 1.0, u - 2.0, u - 3.0
        out[inside] = (
            u * u3 * (u2 * nodes[i + 1] - u1 * nodes[i + 2]) * 0.5
            + u1 * u2 * u3 * (-nodes[i] / 6.0)
            + u * u1 * u2 * (nodes[i + 3] / 6.0)
        )
    beyond = need & ~inside
    if beyond.any():
        out[beyond] = _t0_v(chi[beyond], None if guess is None else guess[beyond])
    return out


_ZOOMS = 7  # most zoom passes in the kurtosis-binding maximisation (then a parabolic step)


def _bound_grid(
    m2: np.ndarray, k1: float, chi: np.ndarray, zooms: int = _ZOOMS
) -> tuple[np.ndarray, np.ndarray]:
    """``(max_s g(s), argmax)`` of the two-point non-coverage ``g`` (see :func:`_rho_bound_v`)
    by search, ``k1 = kappa - 1``.

    Maximise over ``s`` on a geometric grid of 24 points, zoom in up to ``zooms`` times (17
    points on the bracket around the best point each time, so the bracket shrinks 8-fold per
    pass; after 3 passes, stop once no row gained more than 1e-13 relative in two passes
    running, unless some ``m2 > 1e4``: there ``g`` is flat to rounding near its maximum and all
    passes are needed to match :func:`cva`), then take the vertex of the parabola through the
    best point and its neighbours.
    """
    b_max = (chi + 7.0) ** 2
    s_min = np.clip(k1 * m2 / np.maximum(b_max - m2, 1e-300), 1e-12, 0.5)
    u = np.linspace(0.0, 1.0, 24)
    pts = s_min[:, None] ** (1.0 - u[None, :])  # from s_min up to 1
    vals = _g(pts, m2[:, None], k1, chi[:, None])
    rows = np.arange(len(m2))
    j = np.argmax(vals, axis=1)
    best, s_best = vals[rows, j], pts[rows, j]
    step = np.linspace(0.0, 1.0, 17)
    small_before, moderate = False, bool(np.all(m2 <= 1e4))
    for k in range(zooms):  # zoom: each pass shrinks the bracket around the best point 8-fold
        lo = pts[rows, np.maximum(j - 1, 0)]
        hi = pts[rows, np.minimum(j + 1, pts.shape[1] - 1)]
        pts = lo[:, None] + (hi - lo)[:, None] * step[None, :]
        vals = _g(pts, m2[:, None], k1, chi[:, None])
        j = np.argmax(vals, axis=1)
        gain = vals[rows, j] - best
        better = gain > 0
        best = np.where(better, vals[rows, j], best)
        s_best = np.where(better, pts[rows, j], s_best)
        small = bool(np.all(gain <= 1e-13 * best))
        if k >= 2 and small and small_before and moderate:  # gains shrink ~64-fold a pass
            break
        small_before = small
    # parabola through the best point and its neighbours on the last (even) grid
    jj = np.clip(j, 1, pts.shape[1] - 2)
    f0, f1, f2 = vals[rows, jj - 1], vals[rows, jj], vals[rows, jj + 1]
    curv = f0 - 2.0 * f1 + f2
    h = pts[rows, 1] - pts[rows, 0]
    shift = np.where(curv < 0, 0.5 * h * (f0 - f2) / np.where(curv < 0, curv, -1.0), 0.0)
    s_par = np.clip(pts[rows, jj] + np.clip(shift, -h, h), pts[rows, 0], pts[rows, -1])
    v_par = _g(s_par, m2, k1, chi)
    better = v_par > best
    best = np.where(better, v_par, best)
    s_best = np.where(better, s_par, s_best)
    return best, s_best


def _g(s: np.ndarray, m2: np.ndarray, k1: float, chi: np.ndarray) -> np.ndarray:
    """Non-coverage of the two-point distribution of ``t`` with mean ``m2``, variance
    ``k1 m2^2`` and lower point ``a = m2 (1 - s)`` (see :func:`_rho_bound_v`)."""
    p = k1 / (k1 + s * s)
    return p * _r_v(m2 * (1.0 - s), chi) + (1.0 - p) * _r_v(m2 * (1.0 + k1 / s), chi)


def _r012_v(t: np.ndarray, chi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_r` and its first two derivatives in ``t`` (one pair of normal densities)."""
    small = t < 2e-6
    tt = np.where(small, 1.0, t)
    st = np.sqrt(tt)
    pm, pp = _phi_v(st - chi), _phi_v(st + chi)
    val = np.where(st - chi > 5.0, 1.0, special.ndtr(-st - chi) + special.ndtr(st - chi))
    d1 = (pm - pp) / (2.0 * st)
    d2 = (pp * (chi * st + tt + 1.0) + pm * (chi * st - tt - 1.0)) / (4.0 * tt * st)
    if small.any():  # the small-t limits of EBCI.md section 3
        pc = _phi_v(chi)
        val = np.where(small, _r_v(t, chi), val)
        d1 = np.where(t < 1e-8, chi * pc, np.where(small, _r1_v(t, chi), d1))
        d2 = np.where(small, pc * chi * (chi * chi - 3.0) / 6.0, d2)
    return val, d1, d2


def _bound_newton(
    m2: np.ndarray, k1: float, chi: np.ndarray, s: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(g(s*), s*, converged)``: Newton's method for the maximiser ``s*`` of ``g`` in
    ``(0, 1]`` from ``s`` (up to 6 steps; ``s* = 1`` when ``g`` still rises there). A row
    counts as converged only if ``g(s*)`` is not below ``g`` at the start (from a start in
    another basin Newton can end in a flat, lower region)."""
    s = np.clip(np.array(s, float), 1e-12, 1.0)
    done = np.zeros(s.shape, bool)
    g_start = np.zeros(s.shape)
    act = np.arange(len(s))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for it in range(6):
            si, mi, ci = s[act], m2[act], chi[act]
            q = k1 + si * si
            p, dp = k1 / q, -2.0 * k1 * si / (q * q)
            d2p = -2.0 * k1 * (k1 - 3.0 * si * si) / (q * q * q)
            db = -mi * k1 / (si * si)
            ra, r1a, r2a = _r012_v(mi * (1.0 - si), ci)
            rb, r1b, r2b = _r012_v(mi * (1.0 + k1 / si), ci)
            diff = ra - rb
            if it == 0:
                g_start = rb + p * diff
            g1 = dp * diff - p * r1a * mi + (1.0 - p) * r1b * db
            g2 = (
                d2p * diff
                - 2.0 * dp * (r1a * mi + r1b * db)
                + p * r2a * mi * mi
                + (1.0 - p) * (r2b * db * db - 2.0 * r1b * db / si)
            )
            step = g1 / g2
            new = si - step
            edge = (new >= 1.0) & (g1 > 0)  # rising at s = 1: the maximum is on the edge
            conv = (g2 < 0) & ((np.abs(step) <= 1e-10 * si) | (edge & (si == 1.0)))
            keep = (g2 < 0) & np.isfinite(new) & (new > 0)
            s[act] = np.where(edge, 1.0, np.where(keep, new, si))
            done[act[conv]] = True
            act = act[~conv & keep]
            if len(act) == 0:
                break
    val = _g(s, m2, k1, chi)
    return val, s, done & (val >= g_start * (1.0 - 1e-12))


def _rho_bound_v(
    m2: np.ndarray,
    kappa: float,
    chi: np.ndarray,
    s_guess: np.ndarray | None = None,
    search: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Worst-case non-coverage when the kurtosis bound binds, from the primal side, its
    derivative in ``chi`` and the maximiser ``s`` (``nan`` where a point mass at ``m2`` is
    worse).

    The least-favourable distribution has two support points ``a < m2 < b`` with mean ``m2`` and
    variance ``(kappa - 1) m2^2``; with ``s = 1 - a / m2`` in ``(0, 1]``,
    ``b = m2 (1 + (kappa - 1) / s)`` and ``P(a) = (kappa - 1) / (kappa - 1 + s^2)``. Rows with
    ``m2 <= 1e4`` are maximised by Newton's method (:func:`_bound_newton`) from ``s_guess``
    (the maximiser at a nearby ``chi``) or else from a coarse search; rows beyond 1e4 (where
    ``g`` is flat to rounding near its maximum) and any that do not converge, by a fine search
    (:func:`_bound_grid`); ``search=True`` searches every row. By duality the maximum equals the
    dual minimum of EBCI.md section 4 (checked in the tests). The derivative is that of the
    objective at the maximiser (envelope theorem).
    """
    k1 = kappa - 1.0
    best, s_best = np.empty(m2.shape), np.empty(m2.shape)
    fine = np.ones(m2.shape, bool)
    warm = np.flatnonzero(m2 <= 1e4) if not search else np.arange(0)
    if len(warm):
        start = np.full(len(warm), np.nan) if s_guess is None else s_guess[warm]
        cold = np.flatnonzero(~np.isfinite(start))
        if len(cold):  # a coarse search (the 24-point grid) to start from
            start[cold] = _bound_grid(m2[warm[cold]], k1, chi[warm[cold]], zooms=0)[1]
        val, s_new, ok = _bound_newton(m2[warm], k1, chi[warm], start)
        best[warm[ok]], s_best[warm[ok]] = val[ok], s_new[ok]
        fine[warm[ok]] = False
    if fine.any():
        best[fine], s_best[fine] = _bound_grid(m2[fine], k1, chi[fine])
    p = k1 / (k1 + s_best * s_best)
    der = p * _rc_v(m2 * (1.0 - s_best), chi) + (1.0 - p) * _rc_v(m2 * (1.0 + k1 / s_best), chi)
    one = _r_v(m2, chi)
    point = one >= best
    return (
        np.where(point, one, best),
        np.where(point, _rc_v(m2, chi), der),
        np.where(point, np.nan, s_best),
    )


def _rho_dv(
    m2: np.ndarray,
    kappa: float,
    chi: np.ndarray,
    t0_guess: np.ndarray | None = None,
    s_guess: np.ndarray | None = None,
    search: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``rho(m2, kappa, chi)`` elementwise (1-d arrays), its derivative in ``chi``, ``t0`` and
    the maximiser ``s`` of :func:`_rho_bound_v` (``nan`` where the kurtosis does not bind).

    On the tangent piece ``rho0 = _r(0) + m2 (_r(t0) - _r(0)) / t0`` with ``t0`` the maximiser of
    ``(_r(t) - _r(0)) / t``, so by the envelope theorem ``d rho0 / d chi = r_chi(0) +
    m2 (r_chi(t0) - r_chi(0)) / t0``. ``t0_guess`` starts the Newton solve of ``t0`` beyond the
    table of :func:`_t0_lookup`; ``s_guess`` that of ``s`` (``search``: see
    :func:`_rho_bound_v`).
    """
    t0 = _t0_lookup(chi, t0_guess)
    direct = (m2 >= t0) | (kappa == 1.0)
    ts = np.where(direct, m2, t0)
    rt, rct = _r_v(ts, chi), _rc_v(ts, chi)
    r0, rc0 = 2.0 * special.ndtr(-chi), -2.0 * _phi_v(chi)
    tt = np.where(direct, 1.0, t0)
    val = np.where(direct, rt, r0 + m2 * (rt - r0) / tt)
    der = np.where(direct, rct, rc0 + m2 * (rct - rc0) / tt)
    s = np.full(m2.shape, np.nan)
    if not math.isinf(kappa):
        bind = ~direct & (m2 * kappa < t0)
        if bind.any():
            guess = None if s_guess is None else s_guess[bind]
            val[bind], der[bind], s[bind] = _rho_bound_v(m2[bind], kappa, chi[bind], guess, search)
    return val, der, t0, s


def _cv_root_v(
    m2: np.ndarray,
    kappa: float,
    alpha: float,
    lo: np.ndarray,
    up: np.ndarray,
    start: np.ndarray,
    s_start: np.ndarray | None = None,
    search: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Root in ``chi`` of ``rho(m2, kappa, chi) = alpha`` between ``lo`` (above) and ``up``
    (below): safeguarded Newton from ``start`` with the derivative of :func:`_rho_dv`, ``t0``
    and ``s`` warm-started from the previous step (``s`` first from ``s_start`` if given;
    ``search``: every step searches for ``s``, see :func:`_rho_bound_v`).
    Returns the roots and the last ``t0`` and ``s`` (warm starts for callers)."""
    t0_prev = np.full(m2.shape, np.nan)
    s_prev = np.full(m2.shape, np.nan) if s_start is None else np.array(s_start, float)

    def f_df(c: np.ndarray, m: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s_guess = None if s_start is None else s_prev[k]
        val, der, t0_prev[k], s = _rho_dv(m, kappa, c, t0_prev[k], s_guess, search)
        s_prev[k] = s
        return val - alpha, der

    root = _newton_v(f_df, lo, up, start, False, m2, np.arange(len(m2)))
    return root, t0_prev, s_prev


def _cvb_v(b: np.ndarray, alpha: float) -> np.ndarray:
    """:func:`_cvb` elementwise."""
    z = float(special.ndtri(1.0 - alpha / 2.0))
    out = b + float(special.ndtri(1.0 - alpha))
    small = b < 10.0
    out[small & (b == 0)] = z
    mid = small & (b > 0)
    if mid.any():
        bm = b[mid]
        start = np.maximum(z, bm + float(special.ndtri(1.0 - alpha)))

        def f_df(c: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return _r_v(t, c) - alpha, _rc_v(t, c)

        out[mid] = _newton_v(f_df, np.full(bm.shape, z), bm + z + 1.0, start, False, bm * bm)
    return out


def _cva_parts(
    m: np.ndarray, kappa: float, alpha: float, all_roots: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pieces of :func:`cva` for positive finite ``m`` (``kappa != 1``):
    ``cv_inf`` (step 1, with its 9e-6 shortcut), ``gap = rho(m, kappa, cv_inf) - alpha`` (step 2;
    0 for ``kappa = inf``) and ``root``, the root of ``rho(m, kappa, .) = alpha`` below
    ``cv_inf``. ``cva = root where gap < -1e-5, else cv_inf``.

    ``root`` is solved where ``gap < -1e-5`` (and ``cv_inf`` elsewhere), or with ``all_roots``
    wherever the kurtosis binds at ``cv_inf`` (``gap < -1e-12``): :func:`cva_table` then
    interpolates it across the spec's jump at ``gap = -1e-5``.
    """
    lo = _cvb_v(np.sqrt(m), alpha) - 0.01
    up = np.sqrt((1.0 + m) / alpha)
    rho_up, _, t0, _ = _rho_dv(m, math.inf, up)
    solve = np.abs(rho_up - alpha) >= 9e-6
    cv_inf = up.copy()
    if solve.any():
        cv_inf[solve], t0[solve], _ = _cv_root_v(
            m[solve], math.inf, alpha, lo[solve], up[solve], lo[solve] + 0.01
        )
    gap, root = np.zeros(m.shape), cv_inf.copy()
    finite = 1.0 / m >= 1e-12
    if math.isinf(kappa) or not finite.any():
        return cv_inf, gap, root
    slope, s_inf = np.zeros(m.shape), np.full(m.shape, np.nan)
    at_inf, slope[finite], _, s_inf[finite] = _rho_dv(m[finite], kappa, cv_inf[finite], t0[finite])
    gap[finite] = at_inf - alpha
    idx = np.flatnonzero(gap < (-1e-12 if all_roots else -1e-5))
    if len(idx):
        with np.errstate(divide="ignore", invalid="ignore"):  # a Newton step from cv_inf
            start = np.where(slope < 0, cv_inf - gap / slope, 0.5 * (lo + cv_inf))[idx]
        root[idx] = _cv_root_v(m[idx], kappa, alpha, lo[idx], cv_inf[idx], start, s_inf[idx])[0]
        # Newton in s follows one local maximum of g as chi moves, and a wrong value moves the
        # bracket for good: check rho at the roots afresh (coarse search, then Newton) and
        # solve again, searching at every step, where it misses alpha
        check = _rho_dv(m[idx], kappa, root[idx])[0]
        redo = ~(np.abs(check - alpha) <= 1e-10)
        if redo.any():
            j = idx[redo]
            root[j] = _cv_root_v(m[j], kappa, alpha, lo[j], cv_inf[j], start[redo], search=True)[0]
    return cv_inf, gap, root


def cva_v(m2: np.ndarray, kappa: float = math.inf, alpha: float = 0.05) -> np.ndarray:
    """:func:`cva` elementwise: the same steps and shortcuts, solved for all ``m2`` at once.

    Root finding is vectorised safeguarded Newton (:func:`_newton_v`, :func:`_cv_root_v`); the
    kurtosis-binding ``rho`` is solved on the primal side (:func:`_rho_bound_v`). Agrees with
    :func:`cva` to about 1e-10.
    """
    _check_levels(kappa, alpha)
    m2 = np.asarray(m2, float)
    flat = m2.ravel()
    out = np.full(flat.shape, np.nan)
    fin = np.isfinite(flat) & (flat >= 0)
    direct = fin & ((flat == 0) | (kappa == 1.0))
    out[direct] = _cvb_v(np.sqrt(flat[direct]), alpha)
    work = fin & ~direct
    if work.any():
        cv_inf, gap, root = _cva_parts(flat[work], kappa, alpha)
        out[work] = np.where(gap < -1e-5, root, cv_inf)
    return out.reshape(m2.shape)


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
            out[slow] = cva_v(flat[slow], self.kappa, self.alpha)
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
) -> EBCIResult:
    """Robust EBCIs ``mu_hat +- cva_alpha(se^2/mu2, kappa) * w * se`` (METHODS 7, EBCI.md).

    ``level`` is the average coverage ``1 - alpha``. ``kappa="estimated"`` uses the estimated
    kurtosis; a number >= 1 fixes it, ``math.inf`` uses the second moment only.
    ``method="table"`` solves the distinct m2 values with :func:`cva_v` when there are at most 64
    of them (e.g. equal subgroup sizes) and otherwise uses :func:`cva_table` over their range;
    ``"exact"`` runs the reference :func:`cva` per unit.
    """
    alpha = _alpha(level)
    if kappa != "estimated":
        kappa = _check_kurtosis(kappa)
    check_choice(method, get_args(CvaMethod), name="method")
    z, se, f = (np.asarray(a, float) for a in (z, se, f))
    if not (z.shape == se.shape == f.shape) or z.ndim != 1 or len(z) == 0:
        raise InvalidArgument("z, se and f must be 1-d arrays of the same nonzero length.")
    mom = moments(z - f, se, weights=weights, fs_correction=fs_correction)
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
        cv = np.array([cva(float(m), kap, alpha) for m in m2])
    else:
        pos = m2[m2 > 0]
        cv = np.full(m2.shape, np.nan)
        cv[m2 == 0] = _cvb(0.0, alpha)
        uniq, inverse = np.unique(pos, return_inverse=True)
        if 0 < len(uniq) <= 64:  # few distinct m2 (e.g. equal n): solve them directly
            cv[m2 > 0] = cva_v(uniq, kap, alpha)[inverse]
        elif len(uniq):
            cv[m2 > 0] = cva_table(float(uniq[0]), float(uniq[-1]), kap, alpha)(pos)
    half = cv * w * se
    return EBCIResult(
        est, half, est - half, est + half, w, m2, cv, mom, kap, level, method, tuple(notes)
    )

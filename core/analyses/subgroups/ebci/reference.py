"""The critical value step by step on floats, as EBCI.md sections 3-5 write it (the reference:
it reproduces TV1), the kurtosis parser and the shared types. See the package docstring."""

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

from benchuq.core.validation import InvalidArgument, check_level

__all__ = [
    "FS_CORRECTIONS",
    "CvaMethod",
    "FsCorrection",
    "Kappa",
    "Rho",
    "cva",
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


def cva(m2: float, *, kappa: float = math.inf, alpha: float = 0.05, check: bool = False) -> float:
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


# ---- the non-coverage on arrays (also used by the vectorised path) ----
def _phi_v(x: np.ndarray) -> np.ndarray:
    return np.exp(-0.5 * x * x) / _SQRT2PI


def _r_v(t: np.ndarray, chi: np.ndarray) -> np.ndarray:
    st = np.sqrt(t)
    return np.where(st - chi > 5.0, 1.0, special.ndtr(-st - chi) + special.ndtr(st - chi))

"""The critical value for many ``m2`` at once (:func:`cva_v`): the reference's steps vectorised,
roots by safeguarded Newton, ``t0`` from a per-process table, the kurtosis-binding ``rho`` on the
primal side. See the package docstring."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import numpy as np
from scipy import special

from benchuq.core.analyses.subgroups.ebci.reference import _check_levels, _phi_v, _r_v, _rt0

__all__ = [
    "cva_v",
]


# ---- vectorised critical values (many m2 at once) -------------------------------------------
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


def cva_v(m2: np.ndarray, *, kappa: float = math.inf, alpha: float = 0.05) -> np.ndarray:
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

"""Robust EBCI (EBCI.md): test vectors TV1, TV3, TV4, the fast table, and coverage by simulation."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from ebci_cases import TV3, TV3_ROWS, TV4

from benchuq.core.analyses.subgroups.ebci import cva, cva_table, cva_v, ebci, moments, rho, rho_lp
from benchuq.core.analyses.subgroups.ebci.reference import _cvb, _lam, _rt0
from benchuq.core.analyses.subgroups.ebci.vectorised import (
    _cva_parts,
    _g,
    _rho_bound_v,
    _t0_lookup,
    _t0_v,
)

INF = math.inf

# TV1: (m2, kappa, alpha, reference cva from the R source run)
TV1 = [
    (0, INF, 0.05, 1.9599639845),
    (4, INF, 0.05, 7.2163510571),
    (4, 3, 0.05, 4.6195127237),
    (25, 3, 0.05, 11.8835836757),
    (1, 3, 0.2, 1.8494683053),
    (100, 3, 0.05, 24.8617221744),
    (7.84, 8, 0.1, 7.0779747158),
    (1, INF, 0.05, 3.2591985203),
    (1, 3, 0.05, 2.8117318294),
    (0.25, 3, 0.1, 1.8399560691),
    (4, 1, 0.05, 3.6448537071),
]


@pytest.mark.parametrize(("m2", "kappa", "alpha", "ref"), TV1)
def test_tv1_exact_cva(m2: float, kappa: float, alpha: float, ref: float) -> None:
    assert cva(m2, kappa=kappa, alpha=alpha) == pytest.approx(ref, abs=1e-6)


def test_tv1_vectorised_cva() -> None:
    for m2, kappa, alpha, ref in TV1:
        assert cva_v(np.array([m2]), kappa=kappa, alpha=alpha)[0] == pytest.approx(ref, abs=1e-6)


def test_intermediate_values() -> None:
    for chi, (t0, t1) in {
        2.0: (2.2589953393, 1.4392288399),
        3.0: (11.1297124383, 6.8541075081),
        5.0: (34.3741873469, 22.9564392374),
        1.0: (0.0, 0.0),
    }.items():
        assert _rt0(chi) == pytest.approx((t0, t1), abs=1e-8)
    assert rho(1, 3, 11.9699639845401).size == pytest.approx(6.021604102e-05, rel=1e-6)
    assert rho(7.84, 8, 7.1324290147839279896).size == pytest.approx(0.09805099, abs=1e-8)
    assert _lam(0.0, 42.2201)[1] == pytest.approx(1932.78377442, rel=1e-8)
    assert _lam(0.000759676644983789, 2.85710241617874)[0] == pytest.approx(0.00827903, abs=1e-8)
    assert _cvb(1.0, 0.05) == pytest.approx(2.6461455482, abs=1e-9)


def test_least_favourable_distributions() -> None:
    lf = rho(4, 3, cva(4, kappa=3, alpha=0.05))
    assert lf.x == pytest.approx((1.7886038, 18.470497), abs=1e-5)
    assert lf.p == pytest.approx((0.86743733, 0.13256267), abs=1e-6)
    lf = rho(4, INF, cva(4, kappa=INF, alpha=0.05))
    assert lf.x == pytest.approx((0, 69.790351), abs=1e-5)
    assert lf.p == pytest.approx((0.94268549, 0.057314513), abs=1e-7)
    lf = rho(1, 3, cva(1, kappa=3, alpha=0.05))
    assert lf.x == pytest.approx((0, 3), abs=1e-5)
    assert lf.p == pytest.approx((2 / 3, 1 / 3), abs=1e-6)


@pytest.mark.parametrize("method", ["exact", "table"])
def test_tv3(method: str) -> None:
    z, se, f = TV3
    assert f[0] == pytest.approx(0.680948983409, abs=1e-11)
    res = ebci(z, se, f, level=0.95, method=method)
    res_inf = ebci(z, se, f, level=0.95, kappa=INF, method=method)
    assert res.moments.mu2 == pytest.approx(0.0227800493885, abs=1e-12)
    assert res.moments.kappa == pytest.approx(11.0606875625, abs=1e-9)
    assert ebci(z, se, f, fs_correction="none", method=method).moments == pytest.approx(
        res.moments.__class__(res.moments.mu2, res.moments.kappa, res.moments.mu2_raw,
                              res.moments.kappa_raw, "none")
    )  # fmt: skip
    for g, m2, w, est, cv, half, cv_inf, half_inf in TV3_ROWS:
        i = g - 1
        assert res.m2[i] == pytest.approx(m2, abs=1e-8)
        assert res.w[i] == pytest.approx(w, abs=1e-9)
        assert res.estimate[i] == pytest.approx(est, abs=1e-9)
        assert res.cva[i] == pytest.approx(cv, abs=1e-6)
        assert res.half_length[i] == pytest.approx(half, abs=1e-6)
        assert res_inf.cva[i] == pytest.approx(cv_inf, abs=1e-6)
        assert res_inf.half_length[i] == pytest.approx(half_inf, abs=1e-6)
    assert res.half_length.mean() == pytest.approx(0.1552718619, abs=1e-7)
    assert res_inf.half_length.mean() == pytest.approx(0.1570861756, abs=1e-7)
    assert np.allclose(res.high - res.low, 2 * res.half_length)


@pytest.mark.parametrize("method", ["exact", "table"])
def test_tv4_truncations(method: str) -> None:
    z, se, f = TV4
    assert f[0] == pytest.approx(0.706322843413, abs=1e-11)
    pmt = ebci(z, se, f, level=0.95, fs_correction="PMT", method=method)
    assert pmt.moments.mu2_raw == pytest.approx(-0.00123678232173, abs=1e-13)
    assert pmt.moments.kappa_raw == pytest.approx(46.5719126716, abs=1e-8)
    assert pmt.moments.mu2 == pytest.approx(0.000766922854989, abs=1e-14)
    assert pmt.moments.kappa == pytest.approx(1099.60398203, abs=1e-6)
    assert pmt.m2[0] == pytest.approx(4.33723922, abs=1e-7)
    assert pmt.w[0] == pytest.approx(0.1873627842, abs=1e-9)
    assert pmt.cva[0] == pytest.approx(7.5620459019, abs=1e-6)
    assert pmt.half_length[0] == pytest.approx(0.0817156367, abs=1e-6)
    fp = ebci(z, se, f, level=0.95, fs_correction="FPLIB", method=method)
    assert fp.moments.mu2 == pytest.approx(0.00101753993597, abs=1e-13)
    assert fp.moments.kappa == pytest.approx(109.361057214, abs=1e-6)
    assert fp.cva[0] == pytest.approx(6.4184955669, abs=1e-6)
    assert fp.half_length[0] == pytest.approx(0.0867142826, abs=1e-6)
    none = ebci(z, se, f, level=0.95, fs_correction="none", method=method)
    assert none.moments.mu2 == 0.0
    assert np.all(np.isnan(none.half_length)) and np.all(np.isnan(none.low))
    assert np.array_equal(none.estimate, f)  # the regression fit, not R's residual
    assert "undefined" in none.notes[0]


def test_vectorised_matches_exact() -> None:
    rng = np.random.default_rng(3)
    for kappa, alpha in [(3.0, 0.05), (20.0, 0.1), (1.5, 0.2), (INF, 0.05)]:
        m2 = np.exp(rng.uniform(np.log(1e-3), np.log(200), 6))
        exact = np.array([cva(float(m), kappa=kappa, alpha=alpha) for m in m2])
        assert np.max(np.abs(cva_v(m2, kappa=kappa, alpha=alpha) - exact)) < 1e-8


@pytest.mark.parametrize(("kappa", "alpha"), [(3.0, 0.1), (20.0, 0.05), (1000.0, 0.01)])
def test_vectorised_newton_across_branches(kappa: float, alpha: float) -> None:
    """The Newton solves (warm-started t0, envelope derivatives) against the reference on a
    dense m2 range where cva crosses chi^2 = 3 and the kurtosis bound starts or stops binding."""
    m2 = np.exp(np.linspace(np.log(1e-3), np.log(3.0), 25))
    exact = np.array([cva(float(m), kappa=kappa, alpha=alpha) for m in m2])
    assert np.max(np.abs(cva_v(m2, kappa=kappa, alpha=alpha) - exact)) < 1e-9


def test_vectorised_matches_exact_at_huge_m2() -> None:
    """Nearly no information about the units (m2 up to 1e11): the maximisation over the
    two-point least-favourable distributions is flat to rounding and must not stop early."""
    m2 = np.array([1e5, 1e8, 1e11])
    for kappa in (1.0001, 3.0):
        exact = np.array([cva(float(m), kappa=kappa, alpha=0.001) for m in m2])
        assert np.max(np.abs(cva_v(m2, kappa=kappa, alpha=0.001) / exact - 1.0)) < 1e-8


def test_reference_dual_undercovers_at_an_extreme_point() -> None:
    """At m2 = 1e11, kappa = 50, alpha = 0.001 the reference's dual returns a rho below the
    non-coverage of a feasible two-point distribution (weak duality fails numerically; the value
    was confirmed with mpmath at 50 digits), so its cva is too small. cva_v solves the primal:
    at its cva the worst case over a dense grid of two-point distributions is alpha."""
    m2, kappa, alpha = 1e11, 50.0, 0.001
    s = np.exp(np.linspace(np.log(1e-14), 0.0, 200_001))
    ref, ours = (
        cva(m2, kappa=kappa, alpha=alpha),
        cva_v(np.array([m2]), kappa=kappa, alpha=alpha)[0],
    )
    feasible = _g(s, np.full(s.shape, m2), kappa - 1.0, np.full(s.shape, ref)).max()
    assert rho(m2, kappa, ref).size == pytest.approx(alpha, abs=1e-9)
    assert feasible == pytest.approx(0.0016426685, rel=1e-6)  # > alpha: ref undercovers
    worst = _g(s, np.full(s.shape, m2), kappa - 1.0, np.full(s.shape, ours)).max()
    assert worst == pytest.approx(alpha, rel=1e-3) and ours > ref * 1.1


def test_lp_check_agrees_with_the_dual_on_tv1() -> None:
    """R's check=TRUE: where the kurtosis binds, the primal LP on a grid reaches the dual's rho
    at the TV1 critical values, and the check neither warns nor changes the value."""
    binding = 0
    for m2, kappa, alpha, ref in TV1:
        t0, _ = _rt0(ref)
        if kappa in (1, INF) or m2 == 0 or m2 * kappa >= t0:
            continue
        binding += 1
        dual = rho(m2, kappa, ref)
        assert rho_lp(m2, kappa, ref, extra=dual.x).size == pytest.approx(dual.size, abs=1e-7)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert cva(m2, kappa=kappa, alpha=alpha, check=True) == pytest.approx(ref, abs=1e-6)
    assert binding >= 5


def test_lp_check_flags_where_the_dual_fails() -> None:
    """The extreme point where the reference's dual undercovers: the check warns (and keeps the
    value, as in R); the LP also confirms cva_v's value there."""
    m2, kappa, alpha = 1e11, 50.0, 0.001
    with pytest.warns(UserWarning, match="the primal LP 0.00164"):
        ref = cva(m2, kappa=kappa, alpha=alpha, check=True)
    assert ref == pytest.approx(4.166038e6, rel=1e-6)
    ours = cva_v(np.array([m2]), kappa=kappa, alpha=alpha)[0]
    assert rho_lp(m2, kappa, ours).size == pytest.approx(alpha, rel=1e-4)
    with pytest.raises(ValueError, match="m2 > 0"):
        rho_lp(0.0, kappa, 2.0)


def test_lp_confirms_the_vectorised_critical_values() -> None:
    """An independent check of the primal path: at cva_v's critical value no distribution on the
    LP's grid has non-coverage above alpha, and the best one reaches it (the grid's value is a
    lower bound of rho, tight to its resolution)."""
    rng = np.random.default_rng(5)
    for kappa in (1.5, 3.0, 8.0, 40.0):
        alpha = float(rng.choice([0.01, 0.05, 0.1, 0.2]))
        m2 = np.exp(rng.uniform(np.log(1e-2), np.log(1e3), 4))
        for m, cv in zip(m2, cva_v(m2, kappa=kappa, alpha=alpha), strict=True):
            value = rho_lp(float(m), kappa, float(cv)).size
            assert alpha - 1e-5 < value < alpha + 1e-8, (kappa, alpha, m)


def test_lp_check_gives_nan_when_the_lp_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchuq.core.analyses.subgroups.ebci import reference as ebci_module

    class Failed:
        status, fun, x = 2, 0.0, None

    monkeypatch.setattr(ebci_module.optimize, "linprog", lambda *a, **k: Failed())
    # the LP runs where the dual's least-favourable distribution misses (rho, m2, kappa)
    assert math.isnan(cva(1e11, kappa=50.0, alpha=0.001, check=True))
    assert cva(1e11, kappa=50.0, alpha=0.001) == pytest.approx(
        4.166038e6, rel=1e-6
    )  # off by default
    assert math.isnan(rho_lp(4.0, 3.0, 4.6195127237).size)


def test_vectorised_matches_exact_random_settings() -> None:
    """cva_v against the reference over random (kappa, alpha) and m2 from 1e-5 to 1e5, and the
    case where Newton in s, warm-started from another basin, once ended on a wrong root."""
    rng = np.random.default_rng(11)
    kappas = [1.05, 2.0, 3.0, 5.42026, 11.06, 50.0, 300.0, 5000.0, INF]
    for kappa in kappas:
        alpha = float(rng.choice([0.001, 0.01, 0.05, 0.1, 0.3])) * rng.uniform(0.8, 1.2)
        m2 = np.exp(rng.uniform(np.log(1e-5), np.log(1e5), 5))
        exact = np.array([cva(float(m), kappa=kappa, alpha=alpha) for m in m2])
        assert np.max(np.abs(cva_v(m2, kappa=kappa, alpha=alpha) / exact - 1.0)) < 1e-8, (
            kappa,
            alpha,
        )
    m2, kappa, alpha = 5572.295975650116, 5.4202612959072365, 0.011719745033728454
    assert cva_v(np.array([m2]), kappa=kappa, alpha=alpha)[0] == pytest.approx(
        cva(m2, kappa=kappa, alpha=alpha), rel=1e-9
    )


def test_t0_table_matches_newton() -> None:
    """The per-process t0(chi) table against the Newton solve, inside and beyond its range."""
    rng = np.random.default_rng(5)
    chi = np.concatenate([math.sqrt(3.0) + rng.uniform(0.0, 0.05, 200), rng.uniform(1.8, 45, 800)])
    exact, table = _t0_v(chi), _t0_lookup(chi)
    near = chi < math.sqrt(3.0) + 0.05
    assert np.max(np.abs(table - exact)[near]) < 3e-7
    assert np.max(np.abs(table / exact - 1.0)[~near]) < 5e-8
    assert np.all(_t0_lookup(np.array([0.5, 1.7])) == 0.0)  # chi^2 < 3: r is concave, t0 = 0


def test_bound_newton_matches_search() -> None:
    """The kurtosis-binding maximum by Newton in s (cold: coarse search first; warm: from a
    nearby maximiser) equals the fine search to rounding."""
    rng = np.random.default_rng(9)
    m2 = np.exp(rng.uniform(np.log(1e-3), np.log(1e3), 400))
    chi = np.sqrt(3.0) + rng.uniform(0.1, 30.0, 400)
    for kappa in (1.5, 3.0, 20.0, 500.0):
        searched, d_searched, _ = _rho_bound_v(m2, kappa, chi, search=True)
        cold, d_cold, s_cold = _rho_bound_v(m2, kappa, chi)
        warm = _rho_bound_v(m2, kappa, chi, s_guess=s_cold * 0.99)[0]
        assert np.max(np.abs(cold - searched)) < 1e-13
        assert np.max(np.abs(warm - searched)) < 1e-13
        assert np.allclose(d_cold, d_searched, rtol=1e-3, atol=1e-12)
        h = 1e-6 * chi  # the envelope derivative against central differences
        up, down = _rho_bound_v(m2, kappa, chi + h)[0], _rho_bound_v(m2, kappa, chi - h)[0]
        assert np.allclose(d_cold, (up - down) / (2 * h), rtol=1e-4, atol=1e-9)


def test_kappa_must_be_a_kurtosis() -> None:
    with pytest.raises(ValueError, match="kurtosis"):
        cva(1.0, kappa=0.9, alpha=0.05)
    with pytest.raises(ValueError, match="kurtosis"):
        cva_v(np.array([1.0]), kappa=0.5, alpha=0.05)
    with pytest.raises(ValueError, match="kurtosis"):
        ebci(np.array([0.1, 0.2]), np.array([0.1, 0.1]), np.zeros(2), kappa=0.0)


def test_table_error_below_1e6_random_settings() -> None:
    """The table against cva_v over random (kappa, alpha) and m2 ranges (up to 8 units of
    log m2), including kappa = 1 (CVb) and the jumps and kinks the midpoint check must catch."""
    rng = np.random.default_rng(21)
    for kappa in (1.0, 1.3, 3.0, 6.5, 40.0, 900.0, INF):
        alpha = float(rng.choice([0.01, 0.05, 0.1, 0.2])) * rng.uniform(0.8, 1.2)
        lo = rng.uniform(np.log(1e-4), np.log(10.0))
        m2 = np.exp(rng.uniform(lo, lo + rng.uniform(1.0, 8.0), 600))
        table = cva_table(m2.min(), m2.max(), kappa, alpha)
        assert np.max(np.abs(table(m2) - cva_v(m2, kappa=kappa, alpha=alpha))) <= 1e-6, (
            kappa,
            alpha,
        )
        assert table.check_error <= 2e-7


def test_table_interpolates_across_the_step2_jump() -> None:
    """The spec's cva jumps where rho(m2, kappa, cv_inf) - alpha crosses -1e-5; the table
    interpolates the pieces on both sides and the gap, so no interval is solved directly and
    values right next to the jump are still exact."""
    kappa, alpha = 3.27, 0.05
    table = cva_table(7e-4, 0.82, kappa, alpha)
    _, gap, _ = _cva_parts(np.exp(table.log_m2), kappa, alpha)
    assert np.any(gap < -1e-5) and np.any(gap > -1e-5)  # the jump is inside the range
    assert not table.flagged.any()
    cross = np.flatnonzero(np.diff(np.sign(gap + 1e-5)))[0]
    m2 = np.exp(np.linspace(table.log_m2[cross - 1], table.log_m2[cross + 2], 400))
    exact = cva_v(m2, kappa=kappa, alpha=alpha)
    assert np.max(np.abs(np.diff(exact))) > 1e-5  # the jump itself
    assert np.max(np.abs(table(m2) - exact)) <= 1e-6


@pytest.mark.parametrize(("kappa", "alpha"), [(3.0, 0.05), (11.06, 0.05), (300.0, 0.1)])
def test_table_error_below_1e6(kappa: float, alpha: float) -> None:
    rng = np.random.default_rng(7)
    m2 = np.exp(rng.uniform(np.log(0.01), np.log(10.0), 400))
    table = cva_table(m2.min(), m2.max(), kappa, alpha)
    assert np.max(np.abs(table(m2) - cva_v(m2, kappa=kappa, alpha=alpha))) <= 1e-6
    few = m2[:5]
    exact = np.array([cva(float(m), kappa=kappa, alpha=alpha) for m in few])
    assert np.max(np.abs(table(few) - exact)) <= 1e-6
    assert table.check_error <= 2e-7


def test_moment_edge_cases() -> None:
    se = np.full(10, 0.1)
    eps = np.zeros(10)
    mom = moments(eps, se, fs_correction="none")
    assert mom.mu2 == 0.0 and mom.kappa == INF
    pmt = moments(eps, se)
    assert pmt.mu2 > 0 and pmt.kappa >= 1
    with pytest.raises(ValueError, match="fs_correction"):
        moments(eps, se, fs_correction="pmt")


def test_average_coverage_by_simulation() -> None:
    """Spike-and-slab prior (kurtosis ~ 20): robust EBCIs keep the 95% average coverage and are
    not narrower than the parametric (Morris) EBCI, which leans on a normal prior."""
    rng = np.random.default_rng(11)
    G, reps, alpha = 150, 10, 0.05
    se = np.sqrt(np.exp(rng.uniform(np.log(0.5), np.log(2.0), G)))
    cover_robust, cover_param = [], []
    for _ in range(reps):
        mu = np.where(rng.random(G) < 0.05, 4.0, 0.0)
        z = mu + se * rng.normal(size=G)
        res = ebci(z, se, np.full(G, z.mean()), level=1 - alpha)
        cover_robust.append(np.mean((res.low <= mu) & (mu <= res.high)))
        half_p = 1.959964 * np.sqrt(res.w) * se
        cover_param.append(np.mean(np.abs(res.estimate - mu) <= half_p))
    assert np.mean(cover_robust) >= 1 - alpha - 0.015
    assert np.mean(cover_robust) >= np.mean(cover_param)

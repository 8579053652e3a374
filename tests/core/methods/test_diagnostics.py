"""core.diagnostics against arviz-stats and against known effective sample sizes."""

from __future__ import annotations

import numpy as np
import pytest

from benchuq.core.methods.bayes import diagnostics

# an optional extra: without it the module is skipped, not a collection error
array_stats = pytest.importorskip("arviz_stats.base").array_stats


def _ar1(rng: np.random.Generator, shape: tuple[int, ...], rho: float) -> np.ndarray:
    e = rng.normal(size=shape)
    x = np.empty(shape)
    x[..., 0] = e[..., 0] / np.sqrt(1 - rho**2)
    for t in range(1, shape[-1]):
        x[..., t] = rho * x[..., t - 1] + e[..., t]
    return x


@pytest.mark.parametrize(
    ("shape", "rho"),
    [((3, 4, 500), 0.0), ((2, 2, 7), 0.5), ((4, 4, 1001), 0.9), ((5, 1, 200), 0.3)],
)
def test_matches_arviz_stats(shape: tuple[int, ...], rho: float) -> None:
    rng = np.random.default_rng(sum(shape))
    x = _ar1(rng, shape, rho)
    x[0, 0] += 0.5  # one chain off, so R-hat is not trivially 1
    rhat, bulk, tail = diagnostics.summary(x)
    np.testing.assert_allclose(bulk, array_stats.ess(x, method="bulk"), rtol=1e-10)
    np.testing.assert_allclose(
        tail, array_stats.ess(x, method="tail", prob=(0.05, 0.95)), rtol=1e-10
    )
    if shape[1] > 1:  # arviz needs two chains before splitting
        np.testing.assert_allclose(rhat, array_stats.rhat(x, method="rank"), rtol=1e-10)
    np.testing.assert_allclose(rhat, diagnostics.rhat(x))
    np.testing.assert_allclose(bulk, diagnostics.ess_bulk(x))
    np.testing.assert_allclose(tail, diagnostics.ess_tail(x))


def test_matches_arviz_with_ties_and_constants() -> None:
    rng = np.random.default_rng(1)
    x = rng.integers(0, 3, (3, 4, 100)).astype(float)
    x[2] = 1.0  # a constant parameter
    np.testing.assert_allclose(
        diagnostics.ess_bulk(x), array_stats.ess(x, method="bulk"), rtol=1e-10
    )
    np.testing.assert_allclose(diagnostics.rhat(x)[:2], array_stats.rhat(x, method="rank")[:2])


def test_ess_of_ar1_matches_theory() -> None:
    """ESS of an AR(1) chain is N (1 - rho) / (1 + rho); iid draws give about N."""
    rng = np.random.default_rng(2)
    for rho in (0.0, 0.8):
        x = _ar1(rng, (20, 4, 2000), rho)
        expected = 4 * 2000 * (1 - rho) / (1 + rho)
        ratio = np.median(diagnostics.ess_bulk(x)) / expected
        assert 0.85 < ratio < 1.15, (rho, ratio)


def test_rhat_flags_a_shifted_chain() -> None:
    rng = np.random.default_rng(3)
    good = rng.normal(size=(50, 4, 1000))
    assert np.all(diagnostics.rhat(good) < diagnostics.RHAT_WARN)
    bad = good.copy()
    bad[:, 0] += 1.0
    assert np.all(diagnostics.rhat(bad) > 1.05)
    wide = good.copy()
    wide[:, 0] *= 3.0  # same centre, different scale: only the folded (tail) R-hat sees it
    assert np.all(diagnostics.rhat(wide) > 1.05)


def test_ranks_average_ties_like_scipy() -> None:
    from scipy import stats

    rng = np.random.default_rng(4)
    for x in (
        rng.integers(0, 5, (7, 30)).astype(float),
        rng.normal(size=(3, 50)),
        np.ones((2, 5)),
        np.array([[1.0, 1, 2, 2, 2, 3]]),
    ):
        np.testing.assert_array_equal(diagnostics._ranks(x), stats.rankdata(x, axis=-1))

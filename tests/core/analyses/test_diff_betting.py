"""The betting floor of ``benchuq diff``'s sign-flip interval on fewer than 30 units (METHODS 13).

Checked against a plain loop over the capital process (independent of the vectorised grid), by
simulation against known truth for skewed, symmetric, all-equal and rare-event differences, and
against Hoeffding's bound, which it replaces for one task of equally weighted units.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from diff_data import bench_of

from benchuq.core.analyses.diff import diff
from benchuq.core.analyses.paired_tests import betting_interval, sign_flip

PAIR = {"base_model": "base", "candidate_model": "candidate"}
LEVEL = 0.95
NS = (1, 2, 5, 10, 20, 29)


def hoeffding_half(n: int, bound: float = 1.0, level: float = LEVEL) -> float:
    return bound * float(np.sqrt(2 * np.log(2 / (1 - level)) / n))


def loop_capital(x: np.ndarray, m: float, level: float) -> tuple[float, float]:
    """The running maxima of ``K^+_t(m)`` and ``K^-_t(m)``, one unit at a time: the running
    mean and variance written out (Waudby-Smith & Ramdas 2024, Theorem 3 with the fixed-n
    bets, c = 1/2)."""
    n = len(x)
    log_term = np.log(2 / (1 - level))
    total, squares = 0.0, 0.0
    mu_hat, sigma2_hat = 0.5, 0.25
    k_up = k_down = best_up = best_down = 1.0
    for t, xt in enumerate(x, start=1):
        lam = np.sqrt(2 * log_term / (n * sigma2_hat))
        up = min(lam, 0.5 / m) if m > 0 else lam
        down = min(lam, 0.5 / (1 - m)) if m < 1 else lam
        k_up *= 1 + up * (xt - m)
        k_down *= 1 - down * (xt - m)
        best_up, best_down = max(best_up, k_up), max(best_down, k_down)
        total += xt
        mu_hat = (0.5 + total) / (t + 1)
        squares += (xt - mu_hat) ** 2
        sigma2_hat = (0.25 + squares) / (t + 1)
    return best_up, best_down


@pytest.mark.parametrize("n", [1, 3, 8, 17, 29])
def test_betting_interval_matches_a_plain_loop(n: int) -> None:
    rng = np.random.default_rng(40 + n)
    alpha = 1 - LEVEL
    for x in (rng.beta(0.5, 3, n), rng.random(n), np.full(n, 0.5), (rng.random(n) < 0.9) * 1.0):
        lo, hi = betting_interval(x, level=LEVEL)
        grid = np.linspace(0, 1, 401)
        caps = np.array([loop_capital(x, m, LEVEL) for m in grid])
        kept = grid[np.maximum(caps[:, 0] / 2, caps[:, 1] / 2) < 1 / alpha]
        assert len(kept)
        # every mean the loop keeps is inside, and the ends are no further out than one cell
        assert lo <= kept[0] and kept[-1] <= hi
        assert lo >= kept[0] - 1 / 400 - 1e-9 and hi <= kept[-1] + 1 / 400 + 1e-9
        # the ends themselves are rejected by the loop (or are the bounds 0 and 1)
        assert lo == 0.0 or loop_capital(x, lo, LEVEL)[0] / 2 >= 1 / alpha * (1 - 1e-9)
        assert hi == 1.0 or loop_capital(x, hi, LEVEL)[1] / 2 >= 1 / alpha * (1 - 1e-9)


# ---- coverage against known truth: differences in [-1, 1] with known mean --------------------
Draw = Callable[[np.random.Generator, int], np.ndarray]
SCENARIOS: dict[str, tuple[Draw, float]] = {
    # a long tail towards +1 from a mass near -1
    "skewed": (lambda rng, n: 2 * rng.beta(0.4, 3.0, n) - 1, 2 * 0.4 / 3.4 - 1),
    # two independent right/wrong answers at 1/2: -1, 0, 1 with 1/4, 1/2, 1/4
    "symmetric": (lambda rng, n: (rng.random(n) < 0.5) - (rng.random(n) < 0.5) * 1.0, 0.0),
    "all equal": (lambda rng, n: np.full(n, 0.3), 0.3),
    # the candidate breaks 1 item in 20: most small runs see no difference at all
    "rare event": (lambda rng, n: -1.0 * (rng.random(n) < 0.05), -0.05),
    # the candidate breaks 19 items in 20: most small runs see -1 on every item, and the test
    # rejects, yet the interval must still reach -0.95
    "rare exception": (lambda rng, n: -1.0 * (rng.random(n) < 0.95), -0.95),
}


def slack(runs: int, level: float = LEVEL) -> float:
    return 3 * float(np.sqrt(level * (1 - level) / runs))


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_betting_floor_covers_the_truth(scenario: str) -> None:
    draw, truth = SCENARIOS[scenario]
    rng = np.random.default_rng(50)
    runs, hits = 120, []
    for n in NS:
        cover = []
        for _ in range(runs):
            lo, hi = betting_interval((draw(rng, n) + 1) / 2, level=LEVEL)
            cover.append(2 * lo - 1 <= truth <= 2 * hi - 1)
        assert np.mean(cover) >= LEVEL - slack(runs), (n, np.mean(cover))
        hits += cover
    assert np.mean(hits) >= LEVEL - slack(len(hits))


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_sign_flip_interval_covers_the_truth(scenario: str) -> None:
    draw, truth = SCENARIOS[scenario]
    rng = np.random.default_rng(60)
    hits = []
    for n in NS:
        runs = 40 if n <= 10 else 12  # random flips above 16 units cost more
        runs = 2 if scenario == "all equal" else runs  # no randomness but the flips
        cover = []
        for k in range(runs):
            t = sign_flip(draw(rng, n), np.full(n, 1 / n), level=LEVEL, bound=1.0, seed=k)
            cover.append(t.low <= truth <= t.high)
        assert np.mean(cover) >= LEVEL - slack(runs), (n, np.mean(cover))
        hits += cover
    assert np.mean(hits) >= LEVEL - slack(len(hits))


# ---- narrower than Hoeffding, and honest ------------------------------------------------------
def test_narrower_than_the_hoeffding_floor_on_typical_data() -> None:
    rng = np.random.default_rng(70)
    for n in (10, 20):
        ratios = []
        for k in range(10):
            d = (rng.random(n) < 0.7) - (rng.random(n) < 0.5) * 1.0
            w = np.full(n, 1 / n)
            bet = sign_flip(d, w, level=LEVEL, bound=1.0, seed=k)
            hoe = sign_flip(d, w, level=LEVEL, bound=1.0, seed=k, one_sample=False)
            ratios.append((bet.high - bet.low) / (hoe.high - hoe.low))
            assert bet.p_value == hoe.p_value  # the exact p-value does not change
        assert np.median(ratios) < 0.8, (n, np.median(ratios))


def test_all_equal_differences_keep_an_honest_width() -> None:
    for value in (0.0, 0.3, -1.0):
        t = sign_flip(np.full(20, value), np.full(20, 1 / 20), level=LEVEL, bound=1.0)
        # the sign flips alone would give [value, value]; a rejection keeps its side of 0
        assert t.low <= value <= t.high and t.high - t.low > 0.2
        assert (t.p_value <= 1 - LEVEL) == (t.low > 0 or t.high < 0)
        assert -1.0 <= t.low and t.high <= 1.0
    # no item differs on 20 items: a candidate that breaks 1 item in 10 is not ruled out
    t = sign_flip(np.zeros(20), np.full(20, 1 / 20), level=LEVEL, bound=1.0)
    assert t.low < -0.1 < 0.1 < t.high and t.p_value == 1.0


def test_unequal_weights_and_several_tasks_keep_hoeffding() -> None:
    rng = np.random.default_rng(80)
    d = rng.uniform(-0.2, 0.4, 12)
    w = np.r_[np.full(6, 1 / 18), np.full(6, 2 / 18)]  # clusters of 1 and 2 items
    t = sign_flip(d, w, level=LEVEL, bound=1.0)
    half = float(np.sqrt(2 * np.log(2 / (1 - LEVEL)) * np.sum(w**2)))
    assert t.high >= min(float(w @ d) + half, 1.0) - 1e-12
    # two tasks of 10 items: the overall row's floor is Hoeffding's over the 20 units
    tasks = [(rng.random(10), rng.random(10)) for _ in range(2)]
    bound = float(np.ptp(np.concatenate([x for pair in tasks for x in pair])))
    ov = diff(bench_of(tasks), **PAIR).overall
    assert ov.high >= min(ov.difference + hoeffding_half(20, bound), bound) - 1e-12
    assert ov.low <= max(ov.difference - hoeffding_half(20, bound), -bound) + 1e-12


def test_diff_on_20_items_is_narrower_and_agrees_with_its_p_value() -> None:
    rng = np.random.default_rng(90)
    for drop in (0.0, 0.5):
        base = rng.uniform(0.3, 0.9, 20)
        cand = np.clip(base - drop + rng.normal(0, 0.1, 20), 0, 1)
        row = diff(bench_of([(base, cand)]), **PAIR).overall
        assert row.method.startswith("sign-flip")
        assert (row.low > 0 or row.high < 0) == (row.p_value <= 1 - LEVEL)
        if row.p_value > 1 - LEVEL:  # both ends are the betting floor's or the test's
            assert row.high - row.low < 2 * hoeffding_half(20)
    assert row.verdict == "worse"

"""pass@k intervals and "beats" claims with 1-100 items, against known truth (METHODS 2e).

Each simulated data set: two models, one task of ``n`` items (and, as a second shape, 10 tasks
of one item each), ``K`` = 10 answers per item and model. Item ``i`` has solve probability
``p_i ~ Beta(a, b)`` for model A; model B has the same ``p_i`` with probability 1/2, else its own
draw from the same Beta law (equal truth, correlated items); each answer is right with
probability ``p_i``. The truth of either model is the population pass@k,
``E[1 - (1 - p)^k] = 1 - B(a, b + k) / B(a, b)`` (checked against numerical integration).

The product's own path, as the CLI (``--statistic pass@k``), the API (``statistic=``) and the
app's Item score control take it: ``bq.bootstrap(bench, statistic="pass@k")``
(``core.item_statistic.per_item``, then the item bootstrap of METHODS 2 with its pseudo-item and
small-task pseudo-unit; default replicates and seed), then ``bq.leaderboard`` and
``bq.compare``. Reported per (setting, k, tasks x items):

- ``cover``: the share of data sets whose overall interval of model A holds its true pass@k, at
  the product's default leaderboard level 83.4% and at 95%;
- ``width``: the mean width of that interval;
- ``≠ldr``: the share in which the equal model B is *not* "≈ leader" (the leaderboard's claim
  that the leader beats it, and the report's "X leads") at 83.4% (a 5% test) and 95% (0.56%);
- ``differ``: the share in which ``bq.compare`` at 95% (max-T, the default) finds the pair
  different (``p_value <= 0.05``), a 5% test;
- ``ok``: coverage >= level - 3 SE and every false-claim rate <= its level + 3 SE (Monte Carlo
  SEs at the nominal rates).

    nice -n 10 python benchmarks/bench_passk_coverage.py [--sims 250] [--seed 0]
      [--items 1 2 3 5 10 20 30 100] [--k 1 5]

250 data sets a cell (the default) take about 3 minutes on a shared 2-core machine.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import integrate, stats
from scipy.special import betaln

import benchuq as bq
from benchuq.core.data import Benchmark, ItemTask
from benchuq.core.defaults import COMPARISON_LEVEL, LEVEL
from benchuq.core.summaries.leader import overlap_test_level

ANSWERS = 10
ITEMS = (1, 2, 3, 5, 10, 20, 30, 100)
KS = (1, 5)
LEVELS = (LEVEL, 0.95)
SETTINGS = {"hard Beta(0.5, 0.8)": (0.5, 0.8), "easy Beta(2, 1)": (2.0, 1.0)}
ONE_ITEM_TASKS = (10,)  # also: a benchmark of 10 one-item tasks (the small-task pseudo-unit's case)
SIMS = 250


def true_pass_at_k(a: float, b: float, k: int) -> float:
    """``E[1 - (1 - p)^k]`` for ``p ~ Beta(a, b)``: ``1 - B(a, b + k) / B(a, b)``."""
    return float(1.0 - np.exp(betaln(a, b + k) - betaln(a, b)))


def true_by_integration(a: float, b: float, k: int) -> float:
    """The same by numerical integration (a check of the closed form)."""
    dist = stats.beta(a, b)
    value, _ = integrate.quad(lambda p: (1.0 - (1.0 - p) ** k) * dist.pdf(p), 0.0, 1.0, limit=200)
    return float(value)


def simulated(n: int, a: float, b: float, rng: np.random.Generator, tasks: int = 1) -> Benchmark:
    """Two models (A, B) x ``tasks`` tasks of ``n`` items x :data:`ANSWERS` answers, as
    item-level data with answers per item (what the loaders give for an item table with an
    epoch column)."""
    item_tasks = []
    for _ in range(tasks):
        p_a = rng.beta(a, b, n)
        p_b = np.where(rng.random(n) < 0.5, p_a, rng.beta(a, b, n))
        mean = rng.binomial(ANSWERS, np.vstack([p_a, p_b])) / ANSWERS
        answers = np.full(mean.shape, ANSWERS)
        item_tasks.append(
            ItemTask([f"q{i}" for i in range(n)], mean, answers=answers, answer_sq=mean)
        )
    return Benchmark(
        "sim", ("A", "B"), tuple(f"t{j}" for j in range(tasks)), ("c",) * tasks, "items",
        np.column_stack([t.means() for t in item_tasks]), item_tasks=tuple(item_tasks),
    )  # fmt: skip


@dataclass(frozen=True)
class Cell:
    """One cell's rates over its simulated data sets (per level in ``levels``)."""

    levels: tuple[float, ...]
    cover: tuple[float, ...]
    width: tuple[float, ...]
    not_tied: tuple[float, ...]
    differ: float  # nan when compare was not run
    sims: int

    def ok(self) -> bool:
        """Coverage >= level - 3 SE, false "≠ leader" <= its test's level + 3 SE and false
        "differ" <= 5% + 3 SE (SEs at the nominal rates)."""
        good = all(
            c >= lev - 3 * mc_se(lev, self.sims)
            for c, lev in zip(self.cover, self.levels, strict=True)
        )
        good &= all(
            r <= t + 3 * mc_se(t, self.sims)
            for r, t in zip(self.not_tied, _false_claim_levels(self.levels), strict=True)
        )
        alpha = 1.0 - COMPARISON_LEVEL
        return good and not self.differ > alpha + 3 * mc_se(alpha, self.sims)


def _false_claim_levels(levels: Sequence[float]) -> tuple[float, ...]:
    """The test level of "≈ leader" at each interval level (5% at 83.4%, METHODS 2)."""
    return tuple(1.0 - overlap_test_level(level) for level in levels)


def mc_se(nominal: float, sims: int) -> float:
    """Monte Carlo SE of a rate of ``sims`` data sets at its nominal value."""
    return float(np.sqrt(nominal * (1.0 - nominal) / sims))


def run_cell(
    n: int,
    k: int,
    a: float,
    b: float,
    sims: int,
    seed: int,
    *,
    tasks: int = 1,
    levels: Sequence[float] = LEVELS,
    compare: bool = True,
) -> Cell:
    """``sims`` data sets of ``tasks`` tasks of ``n`` items, each through the product:
    ``bq.bootstrap(..., statistic="pass@k")`` (default replicates and seed), ``bq.leaderboard``
    at each level and (``compare``) ``bq.compare`` at 95%."""
    rng = np.random.default_rng(seed)
    truth = true_pass_at_k(a, b, k)
    hit = np.zeros((sims, len(levels)), bool)
    width = np.zeros((sims, len(levels)))
    not_tied = np.zeros((sims, len(levels)), bool)
    differ = np.zeros(sims, bool)
    for s in range(sims):
        draws = bq.bootstrap(simulated(n, a, b, rng, tasks), statistic=f"pass@{k}")
        for j, level in enumerate(levels):
            rows = bq.leaderboard(draws, level=level).table
            rows = rows[rows["group"] == "overall"].set_index("model")
            low, high = float(rows.at["A", "low"]), float(rows.at["A", "high"])
            hit[s, j] = low <= truth <= high
            width[s, j] = high - low
            not_tied[s, j] = not bool(rows["tied_with_leader"].all())
        if compare:
            pair = bq.compare(draws, level=COMPARISON_LEVEL).table
            differ[s] = float(pair["p_value"].iloc[0]) <= 1.0 - COMPARISON_LEVEL
    return Cell(
        tuple(float(x) for x in levels),
        tuple(float(x) for x in hit.mean(axis=0)),
        tuple(float(x) for x in width.mean(axis=0)),
        tuple(float(x) for x in not_tied.mean(axis=0)),
        float(differ.mean()) if compare else float("nan"),
        sims,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=SIMS, help=f"data sets per cell ({SIMS})")
    ap.add_argument("--seed", type=int, default=0, help="seed of the simulated data (0)")
    ap.add_argument("--items", type=int, nargs="+", default=list(ITEMS), help="items per task")
    ap.add_argument("--k", type=int, nargs="+", default=list(KS), help="the k of pass@k")
    args = ap.parse_args()
    for a, b in SETTINGS.values():
        for k in args.k:
            exact, quad = true_pass_at_k(a, b, k), true_by_integration(a, b, k)
            assert abs(exact - quad) < 1e-6, (a, b, k, exact, quad)
    claims = _false_claim_levels(LEVELS)
    head = (
        "| setting | k | truth | tasks x items | cover 83.4% | cover 95% | width 83.4% "
        f"| width 95% | ≠ldr 83.4% (≤{claims[0]:.3f}) | ≠ldr 95% (≤{claims[1]:.4f}) "
        f"| differ 95% (≤{1 - COMPARISON_LEVEL:.2f}) | ok |"
    )
    print(f"{args.sims} data sets a cell, K = {ANSWERS} answers per item, seed {args.seed}; "
          "ok: coverage >= level - 3 SE, false claims <= their level + 3 SE")  # fmt: skip
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    t0 = time.perf_counter()
    shapes = [(1, n) for n in args.items] + [(t, 1) for t in ONE_ITEM_TASKS]
    failures = 0
    for c, (name, (a, b)) in enumerate(SETTINGS.items()):
        for k in args.k:
            truth = true_pass_at_k(a, b, k)
            for tasks, n in shapes:
                seed = args.seed + 10_000 * c + 1_000 * k + 100 * tasks + n
                cell = run_cell(n, k, a, b, args.sims, seed, tasks=tasks)
                failures += not cell.ok()
                print(
                    f"| {name} | {k} | {truth:.3f} | {tasks} x {n} | {cell.cover[0]:.3f} | "
                    f"{cell.cover[1]:.3f} | {cell.width[0]:.3f} | {cell.width[1]:.3f} | "
                    f"{cell.not_tied[0]:.3f} | {cell.not_tied[1]:.3f} | {cell.differ:.3f} | "
                    f"{'yes' if cell.ok() else 'NO'} |",
                    flush=True,
                )
    print(f"\n{failures} cell(s) not ok; {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()

"""Coverage of the judge's corrected score with few human labels (METHODS 15g).

A judge that says 1 for 85% of the items people score 1 and for 30% of those they score 0 scores
400 items of a model whose true score is 0.6; a random few are labelled. Prints, per estimator
and number of labels, how often the 83.4% interval holds the true score and its mean width: the
product's (``benchuq judge``: below 30 labels each end at least as far out as the labels' exact
interval) beside the normal interval alone (the estimator's own formula, as ``ppi_py`` gives it),
and how many draws were refused (the labels held one class only, or the judge did not track
them: a message, not an interval).

Run: ``python benchmarks/bench_judge_few_labels.py [--reps 1000]``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from benchuq.core.analyses.judge import judge
from benchuq.core.analyses.judge_estimators import classical_mean, ppi_mean, rogan_gladen
from benchuq.core.data import DataError
from benchuq.core.reading.judge_data import JudgeData

ITEMS, TRUE_SCORE, LEVEL = 400, 0.6, 0.834
SENSITIVITY, FALSE_POSITIVE = 0.85, 0.30
NORMAL = {
    "ppi++": lambda y, f, fu: ppi_mean(y, f, fu, level=LEVEL),
    "classical": lambda y, f, fu: classical_mean(y, level=LEVEL),
    "rogan-gladen": lambda y, f, fu: rogan_gladen(y, f, fu, level=LEVEL),
}


def coverage(method: str, labels: int, reps: int, rng: np.random.Generator) -> dict[str, float]:
    """Coverage and mean width of the product's and the normal interval over ``reps`` draws."""
    held = np.zeros(2)
    width = np.zeros(2)
    done = 0
    for r in range(reps):
        y = (rng.random(ITEMS) < TRUE_SCORE).astype(float)
        f = np.where(y == 1, rng.random(ITEMS) < SENSITIVITY, rng.random(ITEMS) < FALSE_POSITIVE)
        human = np.full(ITEMS, np.nan)
        chosen = rng.choice(ITEMS, labels, replace=False)
        human[chosen] = y[chosen]
        data = JudgeData(
            "simulated", ("m",), ("t",), np.zeros(ITEMS, int), np.zeros(ITEMS, int),
            np.array([f"i{k}" for k in range(ITEMS)]), f.astype(float), human,
        )  # fmt: skip
        try:
            product = judge(data, method=method, level=LEVEL, seed=r).overall.chosen
        except DataError:  # one class of labels, or a judge that does not track them
            continue
        lab = ~np.isnan(human)
        normal = NORMAL[method](human[lab], f[lab].astype(float), f[~lab].astype(float))
        done += 1
        for k, e in enumerate((product, normal)):
            held[k] += e.low <= TRUE_SCORE <= e.high
            width[k] += e.high - e.low
    n = max(done, 1)
    return {
        "coverage": held[0] / n,
        "width": width[0] / n,
        "normal_coverage": held[1] / n,
        "normal_width": width[1] / n,
        "refused": reps - done,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)
    rng = np.random.default_rng(1)
    print(f"{LEVEL:.1%} intervals, {ITEMS} items, true score {TRUE_SCORE}, {args.reps} draws")
    print(f"{'method':13s} {'labels':>6s}  {'benchuq':>16s}  {'normal alone':>16s}  refused")
    for method in NORMAL:
        for labels in (2, 3, 5, 10, 20, 30, 100):
            c = coverage(method, labels, args.reps, rng)
            print(
                f"{method:13s} {labels:6d}  {c['coverage']:.3f} (w {c['width']:.2f})  "
                f"{c['normal_coverage']:.3f} (w {c['normal_width']:.2f})  {c['refused']:4d}"
            )


if __name__ == "__main__":
    main()

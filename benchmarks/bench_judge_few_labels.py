"""Coverage of the judge's corrected score with few human labels (METHODS 15; the "Few labels"
note of ``core.analyses.judge``).

A judge that says 1 for 85% of the items people score 1 and for 30% of those they score 0 scores
400 items of a model whose true score is 0.6; a random few are labelled. Prints, per estimator
and number of labels, how often the 83.4% interval holds the true score (and how many draws were
refused because the labels held one class only).

Run: ``python benchmarks/bench_judge_few_labels.py [--reps 1000]``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from benchuq.core.analyses.judge import judge
from benchuq.core.data import DataError
from benchuq.core.reading.judge_data import JudgeData

ITEMS, TRUE_SCORE, LEVEL = 400, 0.6, 0.834
SENSITIVITY, FALSE_POSITIVE = 0.85, 0.30


def coverage(method: str, labels: int, reps: int, rng: np.random.Generator) -> tuple[float, int]:
    """Share of ``reps`` intervals holding the true score, and the number of draws refused."""
    held = done = 0
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
            e = judge(data, method=method, level=LEVEL, seed=r).overall.chosen
        except DataError:  # one class of labels only: refused with a message
            continue
        done += 1
        held += e.low <= TRUE_SCORE <= e.high
    return held / max(done, 1), reps - done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)
    rng = np.random.default_rng(1)
    print(f"{LEVEL:.1%} intervals, {ITEMS} items, true score {TRUE_SCORE}, {args.reps} draws")
    for method in ("ppi++", "classical"):
        for labels in (2, 3, 5, 10, 30, 100):
            held, refused = coverage(method, labels, args.reps, rng)
            print(f"{method:10s} {labels:4d} labels: coverage {held:.3f} (refused {refused})")


if __name__ == "__main__":
    main()

"""Every default of an analysis setting, written once (issue 25); the CLI's flags, the app's link
parameters and the core functions' keyword defaults all read them from here.

- :data:`LEVEL` 0.834: the leaderboard's interval level. For two independent estimates with
  similar standard errors, 83.4% intervals that do not overlap correspond roughly to a 5% test
  [GH] (Goldstein & Healy 1995; METHODS 2).
- :data:`COMPARISON_LEVEL` 0.95: the level of differences, rank intervals and sets, credible
  intervals, EPP, subgroup and embedding intervals and power plans, and the default of the
  analyses a user runs on their own (arena ratings, judge scores, two runs, the EEE export, the
  paired tests).
- :data:`LEVEL_BOUNDS`: the levels the app offers (a link outside them is a notice).
- :data:`REPS` 2000 bootstrap replicates (or posterior draws); :data:`SEED` 0.
- :data:`BAYES_CHAINS` 4, :data:`BAYES_DRAWS` 2000 kept draws per chain (at least
  :data:`BAYES_MIN_DRAWS` 100: fewer give intervals and diagnostics of no use),
  :data:`BAYES_WARMUP` 1000 warm-up sweeps (METHODS 6).
- :data:`EMBEDDING_HEADS` 16 random heads of :data:`EMBEDDING_DIMS` 64 dimensions, covariance
  ridge :data:`EMBEDDING_EPS` 4 (METHODS 9).
- :data:`POWER` 0.8, the power of a plan, and :data:`POWER_CORRECTIONS`, its family-wise
  corrections with their names (METHODS 10).
"""

from __future__ import annotations

__all__ = [
    "BAYES_CHAINS",
    "BAYES_DRAWS",
    "BAYES_MIN_DRAWS",
    "BAYES_WARMUP",
    "COMPARISON_LEVEL",
    "EMBEDDING_DIMS",
    "EMBEDDING_EPS",
    "EMBEDDING_HEADS",
    "LEVEL",
    "LEVEL_BOUNDS",
    "POWER",
    "POWER_CORRECTIONS",
    "REPS",
    "SEED",
]

LEVEL = 0.834
COMPARISON_LEVEL = 0.95
LEVEL_BOUNDS = (0.5, 0.995)
REPS = 2000
SEED = 0
BAYES_CHAINS = 4
BAYES_DRAWS = 2000
BAYES_MIN_DRAWS = 100
BAYES_WARMUP = 1000
EMBEDDING_HEADS = 16
EMBEDDING_DIMS = 64
EMBEDDING_EPS = 4.0
POWER = 0.8
POWER_CORRECTIONS: dict[str, str] = {
    "maxt": "simultaneous (all pairs together)",
    "bonferroni": "Bonferroni",
    "none": "no correction",
}

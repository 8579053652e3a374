"""Every default of an analysis setting, written once (issue 25); the CLI's flags, the app's link
parameters and the core functions' keyword defaults all read them from here.

- :data:`LEVEL` 0.834: the leaderboard's interval level. For two independent estimates with
  similar standard errors, 83.4% intervals that do not overlap correspond roughly to a 5% test
  [GH] (Goldstein & Healy 1995; METHODS 2).
- :data:`COMPARISON_LEVEL` 0.95: the level of differences, rank intervals and sets, credible
  intervals, EPP, subgroup and embedding intervals and power plans.
- :data:`LEVEL_BOUNDS`: the levels the app offers (a link outside them is a notice).
- :data:`REPS` 2000 bootstrap replicates (or posterior draws); :data:`SEED` 0.
"""

from __future__ import annotations

__all__ = ["COMPARISON_LEVEL", "LEVEL", "LEVEL_BOUNDS", "REPS", "SEED"]

LEVEL = 0.834
COMPARISON_LEVEL = 0.95
LEVEL_BOUNDS = (0.5, 0.995)
REPS = 2000
SEED = 0

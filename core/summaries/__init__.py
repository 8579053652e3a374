"""Summaries of draws (METHODS 0-5): every function takes :class:`~benchuq.core.draws.Draws`.

The modules, one idea each: ``scores`` (group scores, percentile intervals, the leaderboard with
its weighted group, pairwise differences, win and rank probabilities; re-exported here, so
``from benchuq.core.summaries import leaderboard`` works), ``leader`` (the "≈ leader" rule),
``ordering`` (best first, ties by name), ``maxt`` (simultaneous differences), ``ranks`` (rank
aggregations), ``rank_sets``, ``normalization``, ``groups`` (lm-eval group scores) and
``dominance`` (task-weight maps).
"""

from benchuq.core.summaries.scores import *  # noqa: F403
from benchuq.core.summaries.scores import __all__ as __all__

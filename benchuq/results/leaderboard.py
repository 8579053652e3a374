"""The leaderboard: scores with intervals per model and group (``bq.leaderboard``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from benchuq.deprecation import deprecated_names
from benchuq.results.base import Result, _draws_meta, _options, _overall, _subtitled, _unit, clean

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.draws import Draws

__all__ = ["LeaderboardResult"]


@dataclass(frozen=True, repr=False, eq=False)
class LeaderboardResult(Result):
    """Scores with percentile intervals per model and group (``bq.leaderboard``, METHODS 2).

    Attributes
    ----------
    table
        ``model, group, estimate, low, high, mc_error_low, mc_error_high, tied_with_leader, se,
        items, few_items, n_items, n_answers`` (best first within each group).
    level
        The interval level.
    leader_test_level
        The level of the paired test behind ``tied_with_leader`` (``core.summaries.leader``).
    draws
        The draws summarised.
    """

    PERCENT = ("estimate", "low", "high", "mc_error_low", "mc_error_high", "se")

    table: pd.DataFrame
    level: float
    leader_test_level: float
    draws: Draws = field(repr=False)

    def meta(self) -> dict[str, Any]:
        """Method, level, replicates, seed, normalization, unit."""
        d = self.draws
        return {
            **_draws_meta(d),
            "level": self.level,
            "normalized": d.normalization is not None,
            "normalization": d.normalization,
            "leader_test_level": self.leader_test_level,
            "unit": _unit(d.observed, d.normalization),
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq leaderboard --json``."""
        meta = self.meta()
        return clean(
            {
                "method": meta["method"],
                "level": self.level,
                "reps": meta["reps"],
                "seed": meta["seed"],
                "normalized": meta["normalized"],
                "normalization": meta["normalization"],
                "leader_test_level": self.leader_test_level,
                "overall": _overall(self.draws),
                "notes": list(self.draws.notes),
                "rows": self._rows(),
            }
        )

    def _rows(self) -> list[dict[str, Any]]:
        return self.table.to_dict(orient="records")

    def figure(self, *, group: str = "overall") -> go.Figure:
        """The app's forest plot of one group (``"overall"`` or a category)."""
        from benchuq.core.summaries.headline import overall_label
        from benchuq.core.validation import check_known
        from benchuq.presentation.figures.common import forest_figure, group_label

        groups = list(dict.fromkeys(self.table["group"]))
        check_known([group], groups, what="groups")
        part = self.table[self.table["group"] == group].rename(columns={"tied_with_leader": "tied"})
        unit = _unit(self.draws.observed, self.draws.normalization)
        title = group_label(group, overall_label(self.draws))
        fig = forest_figure(part, _options(self.draws.models, unit, title))
        return _subtitled(fig, self.draws, self.level)


if not TYPE_CHECKING:  # the old name, for one release (issue 41)
    __getattr__ = deprecated_names(
        __name__, {"Leaderboard": ("LeaderboardResult", "benchuq.results")}, globals()
    )

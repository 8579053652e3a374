"""Any statistic of the draws with a percentile interval (``bq.statistic``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.deprecation import deprecated_names
from benchuq.results.base import Result, _draws_meta, _subtitled

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.draws import Draws

__all__ = ["StatisticResult"]


@dataclass(frozen=True, repr=False, eq=False)
class StatisticResult(Result):
    """A user statistic of the draws with a percentile interval (``bq.statistic``).

    Attributes
    ----------
    name
        The statistic's name.
    labels
        One label per value (model names when the statistic gives one value per model).
    estimate
        The statistic of the observed scores.
    low, high
        Percentile interval over the draws at ``level``.
    values
        ``(R, K)``: the statistic in every draw.
    level
        The interval level.
    draws
        The draws.
    """

    name: str
    labels: tuple[str, ...]
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    values: np.ndarray = field(repr=False)
    level: float = COMPARISON_LEVEL
    draws: Draws | None = field(default=None, repr=False)

    def meta(self) -> dict[str, Any]:
        """The statistic, level, and the draws' method."""
        base = {} if self.draws is None else _draws_meta(self.draws)
        return {**base, "statistic": self.name, "level": self.level}

    def _rows(self) -> list[dict[str, Any]]:
        return [
            {
                "label": lab,
                "estimate": float(self.estimate[k]),
                "low": float(self.low[k]),
                "high": float(self.high[k]),
            }
            for k, lab in enumerate(self.labels)
        ]

    def figure(self) -> go.Figure:
        """A forest plot of the statistic (the Leaderboard's chart)."""
        from benchuq.presentation.figures.common import FigureOptions, forest_figure

        t = pd.DataFrame(self._rows()).rename(columns={"label": "model"})
        fig = forest_figure(t, FigureOptions(scale=1.0, unit=self.name, title=self.name))
        if self.draws is None:
            return fig
        return _subtitled(fig, self.draws, self.level)


if not TYPE_CHECKING:  # the old name, for one release (issue 41)
    __getattr__ = deprecated_names(
        __name__, {"Statistic": ("StatisticResult", "benchuq.results")}, globals()
    )

"""Pairwise differences with simultaneous intervals (``bq.compare``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from benchuq.deprecation import deprecated_names
from benchuq.results.base import (
    Result,
    _draws_meta,
    _options,
    _overall,
    _subtitled,
    _unit,
    clean,
    zero_note,
)

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.draws import Draws

__all__ = ["CompareResult"]


@dataclass(frozen=True, repr=False, eq=False)
class CompareResult(Result):
    """Pairwise differences ``a - b`` with simultaneous intervals (``bq.compare``, METHODS 4b).

    Attributes
    ----------
    table
        ``a, b, estimate, low, high, p_value, prob_a_better, level, se, p_stepdown,
        p_below_resolution``, the items behind both scores (``items_a, items_b, n_items_a,
        n_items_b, n_answers_a, n_answers_b``), ``few_items``, ``p_floor``, ``too_few_items``.
    level, correction
        The family-wise level and the multiplicity correction.
    draws
        The draws compared.
    """

    PERCENT = ("estimate", "low", "high", "se")

    table: pd.DataFrame
    level: float
    correction: str
    draws: Draws = field(repr=False)

    def p_texts(self) -> list[str]:
        """Each pair's adjusted p-value as a table cell (``< 1/(R+1)`` where no replicate
        reached the observed difference; ``core.summaries.maxt.format_p``)."""
        from benchuq.core.summaries.maxt import format_p

        t, reps = self.table, self.draws.reps
        return [
            format_p(p, b, reps).removeprefix("p = ").removeprefix("p ")
            for p, b in zip(t["p_value"], t["p_below_resolution"], strict=True)
        ]

    def meta(self) -> dict[str, Any]:
        """Method, level, correction, replicates, seed, p-value resolution, unit."""
        d = self.draws
        return {
            **_draws_meta(d),
            "level": self.level,
            "correction": self.correction,
            "simultaneous": self.correction != "none",
            "p_resolution": 1.0 / (d.reps + 1),
            "unit": _unit(d.observed, d.normalization),
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq compare --json``."""
        m = self.meta()
        keys = ("method", "level", "correction", "simultaneous", "reps", "seed", "p_resolution")
        doc = {
            **{k: m[k] for k in keys},
            "overall": _overall(self.draws),
            "normalized": self.draws.normalization is not None,
            "normalization": self.draws.normalization,
            "rows": self._rows(),
            **zero_note(self.draws.notes),
        }
        return clean(doc)

    def _rows(self) -> list[dict[str, Any]]:
        return self.table.to_dict(orient="records")

    def figure(self) -> go.Figure:
        """The Compare page's forest of differences with each pair's p-value."""
        from benchuq.presentation.figures.ranks import simultaneous_difference_figure

        unit = _unit(self.draws.observed, self.draws.normalization)
        opts = _options(self.draws.models, unit, "Pairwise differences a - b")
        fig = simultaneous_difference_figure(
            self.table, self.correction, self.level, self.draws.reps, opts
        )
        return _subtitled(fig, self.draws, self.level)


if not TYPE_CHECKING:  # the old name, for one release (issue 41)
    __getattr__ = deprecated_names(
        __name__, {"Comparison": ("CompareResult", "benchuq.results")}, globals()
    )

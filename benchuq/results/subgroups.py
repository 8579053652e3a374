"""Small subgroups, direct and empirical Bayes (``bq.subgroups``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchuq.deprecation import deprecated_names
from benchuq.results.base import Result

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.analyses.subgroups.estimates import SubgroupResult

__all__ = ["SubgroupsResult"]


@dataclass(frozen=True, repr=False, eq=False)
class SubgroupsResult(Result):
    """Direct and empirical-Bayes estimates of small subgroups (``bq.subgroups``, METHODS 7).

    Attributes
    ----------
    result
        The core result (``core.analyses.subgroups.estimates.SubgroupResult``).
    data_notes
        The notes of the data the units came from (when ``bq.subgroups`` read files).
    """

    result: SubgroupResult
    data_notes: tuple[str, ...] = ()

    def meta(self) -> dict[str, Any]:
        """A (mu2), kappa, level, correction and weights."""
        r = self.result
        return {
            "mu2": r.mu2,
            "kappa": r.kappa,
            "alpha": r.alpha,
            "level": r.level,
            "fs_correction": r.fs_correction,
            "weights": r.weights,
        }

    def _rows(self) -> list[dict[str, Any]]:
        return [
            {
                "unit": r.unit,
                "estimate": r.direct,
                "se": r.se,
                "eb": r.eb,
                "low": r.low,
                "high": r.high,
                "w": r.w,
                "cva": r.cva,
            }
            for r in self.result.rows.itertuples(index=False)
        ]

    def figure(self, *, model: str | None = None) -> go.Figure:
        """The Subgroups page's direct-vs-EB chart (one model's subgroups, or every unit)."""
        from benchuq.presentation.figures.common import FigureOptions, with_subtitle
        from benchuq.presentation.figures.subgroups import eb_vs_direct_figure

        r = self.result
        fig = eb_vs_direct_figure(r, FigureOptions(scale=100.0, unit="score (%)"), model)
        sub = f"{r.source} · robust EB intervals, {100 * r.level:g}% average coverage"
        return with_subtitle(fig, sub)


if not TYPE_CHECKING:  # the old name, for one release (issue 41)
    __getattr__ = deprecated_names(
        __name__, {"Subgroups": ("SubgroupsResult", "benchuq.results")}, globals()
    )

"""The EPP meta-score (``bq.epp``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from benchuq.deprecation import deprecated_names
from benchuq.results.base import Result, _options, clean, zero_note

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.analyses.epp import EPPResult as CoreEPPResult

__all__ = ["EPPResult"]


@dataclass(frozen=True, repr=False, eq=False)
class EPPResult(Result):
    """The EPP meta-score: Bradley-Terry strengths with intervals (``bq.epp``, METHODS 8).

    Attributes
    ----------
    result
        The core result (``core.analyses.epp.EPPResult``: estimate, se, low, high, win
        probabilities, Wald tests, deviance).
    data
        The data set's name.
    """

    result: CoreEPPResult
    data: str = ""

    def meta(self) -> dict[str, Any]:
        """Rounds, interval kind, level, goodness of fit."""
        r = self.result
        return {
            "data": self.data,
            "rounds": r.rounds,
            "interval": r.method,
            "level": r.level,
            "deviance": r.deviance,
            "df": r.df,
            "p_value": r.p_value,
            "unit": "logit",
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq epp --json``."""
        r = self.result
        return clean(
            {
                "rows": self._rows(),
                "win_probability": _nested(r.models, r.win_probability),
                "wald_p": _nested(r.models, r.wald_p),
                "deviance": r.deviance,
                "df": r.df,
                "p_value": r.p_value,
                "standardized_deviance": r.standardized_deviance,
                "separated": list(r.separated),
                **zero_note(r.notes),
            }
        )

    def _rows(self) -> list[dict[str, Any]]:
        r = self.result
        return [
            {
                "model": r.models[i],
                "epp": r.estimate[i],
                "se": r.se[i],
                "low": r.low[i],
                "high": r.high[i],
                "p_beats_average": r.beats_average[i],
            }
            for i in r.order
        ]

    def figure(self) -> go.Figure:
        """The EPP page's forest plot."""
        from benchuq.presentation.figures.common import with_subtitle
        from benchuq.presentation.figures.epp import epp_forest_figure

        r = self.result
        opts = _options(r.models, "score", "EPP (logit units)")
        sub = f"Data: {self.data or 'data'} · EPP, {r.rounds} as rounds · {100 * r.level:g}%"
        return with_subtitle(epp_forest_figure(r, opts), sub)


def _nested(models: tuple[str, ...], mat: np.ndarray) -> dict[str, dict[str, float]]:
    """``{a: {b: mat[a, b]}}`` without the diagonal."""
    return {a: {b: mat[i, j] for j, b in enumerate(models) if j != i} for i, a in enumerate(models)}


if not TYPE_CHECKING:  # the old name, for one release (issue 41)
    __getattr__ = deprecated_names(__name__, {"EPP": ("EPPResult", "benchuq.results")}, globals())

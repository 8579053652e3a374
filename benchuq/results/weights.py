"""Who leads at each category weighting (``bq.weights``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from benchuq.deprecation import deprecated_names
from benchuq.results.base import Result, _options, clean

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.summaries.dominance import DominanceMap

__all__ = ["WeightsResult"]


@dataclass(frozen=True, repr=False, eq=False)
class WeightsResult(Result):
    """Who leads at each task weighting, with the SE rule (``bq.weights``, METHODS 5).

    Attributes
    ----------
    map
        The core map (``core.summaries.dominance.DominanceMap``: weights, leader, runner-up,
        winner, SE).
    data
        The data set's name.
    """

    map: DominanceMap
    data: str = ""

    def meta(self) -> dict[str, Any]:
        """z, its level, rho and where the variances come from."""
        dm = self.map
        paired = dm.rho_source == "paired draws"
        return {
            "data": self.data,
            "categories": ", ".join(dm.categories),
            "z": dm.z,
            "level": dm.level,
            "rho": None if paired else float(dm.rho[0]),
            "rho_source": dm.rho_source,
            "source": dm.source,
            "unit": "proportion",
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq weights --json``."""
        dm = self.map
        m = self.meta()
        out: dict[str, Any] = {
            "data": self.data,
            "categories": list(dm.categories),
            "z": dm.z,
            "rho": m["rho"],
            "rho_source": dm.rho_source,
            "level": dm.level,
            "source": dm.source,
            "shares": [{"model": k, "share": s} for k, s in dm.shares().items()],
            "points": self._rows(),
        }
        if m["rho"] is None:  # paired draws: the correlation each difference implies
            rho = dm.rho[np.isfinite(dm.rho)]
            out["implied_rho"] = {
                "median": float(np.median(rho)) if rho.size else None,
                "min": float(rho.min()) if rho.size else None,
                "max": float(rho.max()) if rho.size else None,
            }
        return clean(out)

    def _rows(self) -> list[dict[str, Any]]:
        dm = self.map
        return [
            {
                "w": [round(float(x), 10) for x in dm.weights[p]],
                "winner": dm.name(dm.winner[p]),
                "leader": dm.name(dm.leader[p]),
                "runner_up": dm.name(dm.runner_up[p]),
                "difference": float(dm.difference[p]),
                "se": float(dm.se[p]),
            }
            for p in range(len(dm.weights))
        ]

    def to_frame(self) -> pd.DataFrame:
        """One row per grid point: a weight column per category, then winner, leader, ..."""
        rows = self._rows()
        frame = pd.DataFrame(rows).drop(columns="w")
        weights = pd.DataFrame(
            [r["w"] for r in rows], columns=[f"w_{c}" for c in self.map.categories]
        )
        out = pd.concat([weights, frame], axis=1)
        out.attrs.update(self.meta())
        return out

    def shares(self) -> dict[str | None, float]:
        """Share of the grid points each model wins (``None``: indeterminate)."""
        return self.map.shares()

    def figure(self) -> go.Figure:
        """The Weights page's map (ternary for three categories, a line for two)."""
        from benchuq.presentation.figures.common import with_subtitle
        from benchuq.presentation.figures.weights import dominance_figure

        opts = _options(self.map.models, "proportion")
        fig = dominance_figure(self.map, opts)
        rho = self.map.rho_source
        return with_subtitle(
            fig, f"Data: {self.data or 'data'} · SE rule z = {self.map.z:g} · rho: {rho}"
        )


if not TYPE_CHECKING:  # the old name, for one release (issue 41)
    __getattr__ = deprecated_names(
        __name__, {"WeightMap": ("WeightsResult", "benchuq.results")}, globals()
    )

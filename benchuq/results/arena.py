"""Arena ratings from pairwise battles (``bq.arena``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchuq.deprecation import deprecated_names
from benchuq.results.base import Result, clean, zero_note

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.analyses.arena import ArenaResult as CoreArenaResult

__all__ = ["ArenaResult"]


@dataclass(frozen=True, repr=False, eq=False)
class ArenaResult(Result):
    """Arena ratings from pairwise battles, Bradley-Terry on the Elo scale (METHODS 8b).

    Attributes
    ----------
    result
        The core result (``core.analyses.arena.ArenaResult``: ratings, intervals, rank sets).
    """

    result: CoreArenaResult

    def meta(self) -> dict[str, Any]:
        """Data, level, interval method, anchor, ties and the unit of the ratings."""
        r = self.result
        return {
            "data": r.name,
            "level": r.level,
            "method": r.method,
            "anchor": r.anchor,
            "ties": r.ties,
            "n_battles": r.n_battles,
            "unit": f"Elo points (scale {r.scale})",
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq arena --json``."""
        r = self.result
        doc: dict[str, Any] = {
            "rows": self._rows(),
            "scale": r.scale,
            "anchor": r.anchor,
            "method": r.method,
            "level": r.level,
            "ties": r.ties,
            "base": r.base,
            "initial": r.initial,
            "cluster": r.cluster,
            "n_battles": r.n_battles,
            "best": list(r.best),
            "sentence": r.sentence(),
            "tie_ratio": r.tie_ratio,
            **zero_note(r.notes),
        }
        if r.controls and r.uncontrolled is not None:
            doc["controls"] = {
                c: {"coefficient": float(v), "se": float(s)}
                for c, v, s in zip(r.controls, r.coefficients, r.coefficient_se, strict=True)
            }
            doc["uncontrolled"] = r.uncontrolled.table().to_dict(orient="records")
        return clean(doc)

    def _rows(self) -> list[dict[str, Any]]:
        return self.result.table().to_dict(orient="records")

    def figure(self) -> go.Figure:
        """The Arena page's forest plot of the ratings."""
        from benchuq.presentation.colors import model_colors
        from benchuq.presentation.figures.arena import arena_forest_figure
        from benchuq.presentation.figures.common import FigureOptions, with_subtitle

        r = self.result
        opts = FigureOptions(model_colors(r.models), 1.0, "rating (Elo)")
        sub = f"Data: {r.name} · {r.method} intervals at {100 * r.level:g}% · {r.n_battles} battles"
        return with_subtitle(arena_forest_figure(r, opts), sub)


if not TYPE_CHECKING:  # the old name, for one release (issue 41)
    __getattr__ = deprecated_names(
        __name__, {"Arena": ("ArenaResult", "benchuq.results")}, globals()
    )

"""What each pair can detect, and the items needed (``bq.power``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from benchuq.results.base import Result, clean

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.analyses.power import Design, PowerPlan

__all__ = ["PowerResult"]


@dataclass(frozen=True, repr=False, eq=False)
class PowerResult(Result):
    """What each pair can detect now, and the items needed (``bq.power``, METHODS 10).

    Attributes
    ----------
    plan
        The core plan (``core.analyses.power.PowerPlan``: MDE, items needed, power per pair).
    design
        The design it was computed from.
    delta
        The difference asked about (``None``: none asked).
    notes
        Caveats for the reader.
    """

    PERCENT = ("estimate", "mde", "se", "delta")

    plan: PowerPlan
    design: Design
    delta: float | None = None
    asked: bool = False
    notes: tuple[str, ...] = ()

    def _in_percent(self) -> bool:
        from benchuq.core.analyses.power import display_scale

        return display_scale(self.design)[0] == 100

    @property
    def unit(self) -> str:
        """The unit differences are shown in (points of a proportion, or the metric's)."""
        from benchuq.core.analyses.power import display_scale

        return display_scale(self.design)[1]

    @property
    def correction_name(self) -> str:
        """The family-wise correction in words (``core.defaults.POWER_CORRECTIONS``)."""
        from benchuq.core.defaults import POWER_CORRECTIONS

        return POWER_CORRECTIONS[self.plan.correction]

    def meta(self) -> dict[str, Any]:
        """Data, source, group, level, power, family, correction, critical value."""
        p, d = self.plan, self.design
        return {
            "data": d.name,
            "source": d.source,
            "group": d.group,
            "level": p.level,
            "power": p.power,
            "pairs": p.family,
            "correction": p.correction,
            "critical_value": p.critical,
            "delta": self.delta,
            "items": d.n,
            "rho_assumed": d.rho,
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq power --json``."""
        return clean({**self.meta(), "rows": self._rows(), "notes": list(self.notes)})

    def _rows(self) -> list[dict[str, Any]]:
        from benchuq.core.analyses import power as pw

        p, d = self.plan, self.design
        scale, unit = pw.display_scale(d)
        rows = []
        for k in range(len(p.a)):
            row: dict[str, Any] = {
                "a": p.a[k],
                "b": p.b[k],
                "n": d.n,
                "mde": p.mde[k],
                "estimate": p.estimate[k],
                "se": p.se[k],
                "deff": p.deff[k],
                "icc": p.icc[k],
                "rho": p.rho[k],
            }
            if self.asked:
                need = p.n_required[k]
                row |= {
                    "delta": p.delta[k],
                    "n_required": int(need) if np.isfinite(need) else None,
                    "factor_required": p.factor_required[k],
                    "power_now": p.power_now[k],
                }
            row["sentence"] = p.sentence(k, scale=scale, unit=unit)
            rows.append(row)
        return rows

    def sentences(self) -> list[str]:
        """One sentence per pair, as the CLI and the Plan page print them."""
        return [r["sentence"] for r in self._rows()]

    def figure(self, *, kind: Literal["mde", "power"] = "mde") -> go.Figure:
        """The Plan page's curves: the MDE (or the power) against the number of items."""
        from benchuq.core.analyses import power as pw
        from benchuq.core.validation import check_choice
        from benchuq.presentation.figures.common import FigureOptions
        from benchuq.presentation.figures.power import (
            item_grid,
            mde_figure,
            plan_subtitle,
            power_figure,
        )

        check_choice(kind, ("mde", "power"), name="kind")
        scale, unit = pw.display_scale(self.design)
        build = mde_figure if kind == "mde" else power_figure
        n, opts = item_grid(self.plan), FigureOptions(scale=scale, unit=unit)
        return build(self.plan, n, self.delta, plan_subtitle(self.plan), opts)

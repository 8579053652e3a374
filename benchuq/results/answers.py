"""More items or more answers per item (``bq.answers_plan``, ``benchuq power --budget``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchuq.results.base import Result

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.analyses.answers_plan import AnswersPlan

__all__ = ["AnswersPlanResult"]


@dataclass(frozen=True, repr=False, eq=False)
class AnswersPlanResult(Result):
    """The trade-off of items against answers per item at a budget (METHODS 10b).

    Attributes
    ----------
    plan
        The core plan: per answers per item the items bought, the within-item variance, the
        standard error and the interval's half-width of a task's score.
    data
        The data set's name.
    """

    plan: AnswersPlan
    data: str = ""

    def meta(self) -> dict[str, Any]:
        """Statistic, level, budget, pool, item cost and the two variances."""
        p = self.plan
        return {
            "data": self.data,
            "statistic": p.statistic,
            "level": p.level,
            "budget": p.budget,
            "pool": p.pool,
            "item_cost": p.item_cost,
            "between": p.between,
            "within_now": p.within_now,
            "answers_now": p.answers_now,
            "best_answers": int(p.best["answers"]),
            "sentence": p.sentence(),
        }

    def _rows(self) -> list[dict[str, Any]]:
        return [
            {k: (int(v) if k in ("answers", "items") else float(v)) for k, v in row.items()}
            for row in self.plan.table.to_dict("records")
        ]

    def figure(self) -> go.Figure:
        """The half-width of a task's interval against answers per item (points)."""
        import plotly.graph_objects as go

        t = self.plan.table
        fig = go.Figure(
            go.Scatter(
                x=t["answers"],
                y=100 * t["half_width"],
                mode="lines+markers",
                text=[f"{i:,} items" for i in t["items"]],
                hovertemplate="%{x} answers x %{text}: +/- %{y:.2f} points<extra></extra>",
            )
        )
        fig.update_layout(
            title=f"{self.plan.statistic}: {self.plan.budget:,} answers per model and task",
            xaxis={"title": "answers per item", "type": "log"},
            yaxis={"title": f"{100 * self.plan.level:g}% interval half-width (points)"},
        )
        return fig

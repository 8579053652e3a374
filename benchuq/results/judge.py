"""Scores from an LLM judge corrected with human labels (``bq.judge``, METHODS 15)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from benchuq.deprecation import deprecated_names
from benchuq.results.base import Result, clean

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

    from benchuq.core.analyses.judge import JudgeResult as CoreJudgeResult
    from benchuq.core.data import Benchmark

__all__ = ["JudgeResult"]


@dataclass(frozen=True, repr=False, eq=False)
class JudgeResult(Result):
    """Scores from an LLM judge corrected with human labels, the agreement and the labels
    needed (``bq.judge``, ``benchuq judge``; METHODS 15).

    Attributes
    ----------
    result
        The core result (``core.analyses.judge.JudgeResult``: per model and task and overall,
        every estimate side by side, the agreement, the planning).
    """

    result: CoreJudgeResult
    PERCENT: ClassVar[tuple[str, ...]] = (
        "estimate", "low", "high", "judge_mean", "human_mean", "sensitivity", "specificity"
    )  # fmt: skip

    def meta(self) -> dict[str, Any]:
        """Data, method, level, target half-width, unit."""
        r = self.result
        return {
            "data": r.name,
            "method": r.method,
            "level": r.level,
            "target": r.target,
            "binary": r.binary,
            "judge_column": r.judge_column,
            "human_column": r.human_column,
            "unit": "proportion",
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq judge --json``: ``rows`` (one per model and task, then ``overall``), every
        estimate side by side, the agreement with intervals, the planning table."""
        r = self.result
        return clean(
            {
                **self.meta(),
                "rows": self._rows(),
                "estimates": r.side_by_side().to_dict(orient="records"),
                "agreement": r.agreement_table().to_dict(orient="records"),
                "planning": r.planning_table().to_dict(orient="records"),
                "sentence": r.sentence(),
                "notes": list(r.notes),
            }
        )

    def _rows(self) -> list[dict[str, Any]]:
        return self.result.rows()

    def to_benchmark(self) -> Benchmark:
        """The corrected scores as a :class:`Benchmark` of estimate and se per model and task
        (``bq.bootstrap`` of it feeds ``bq.leaderboard``, ``bq.compare``, ``bq.ranks``)."""
        return self.result.to_benchmark()

    def difference(self, base: str, candidate: str) -> pd.DataFrame:
        """``candidate - base`` in human score, paired item by item, per task and overall
        (``benchuq judge --base --candidate``; METHODS 15f): the diff of two judged runs."""
        return self.result.difference(base, candidate)

    def figure(
        self, *, kind: Literal["estimates", "agreement", "labels"] = "estimates"
    ) -> go.Figure:
        """The Judge page's figures: the estimates side by side (default), the agreement per
        model, or the labels-needed curve of the overall row."""
        from benchuq.core.validation import check_choice
        from benchuq.presentation.figures.common import FigureOptions, with_subtitle
        from benchuq.presentation.figures.judge import (
            judge_agreement_figure,
            judge_estimates_figure,
            labels_curve_figure,
        )

        check_choice(kind, ("estimates", "agreement", "labels"), name="kind")
        r = self.result
        opts = FigureOptions({}, 100.0, "points" if kind == "labels" else "score (%)")
        builder = {
            "estimates": judge_estimates_figure,
            "agreement": judge_agreement_figure,
            "labels": labels_curve_figure,
        }[kind]
        sub = (
            f"Data: {r.name} · {r.method} at {100 * r.level:g}% · "
            f"{r.overall.chosen.n_labelled:,} human labels"
        )
        return with_subtitle(builder(r, opts), sub)


if not TYPE_CHECKING:  # the old name, for one release (issue 41)
    __getattr__ = deprecated_names(
        __name__, {"Judge": ("JudgeResult", "benchuq.results")}, globals()
    )

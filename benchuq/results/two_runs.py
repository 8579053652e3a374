"""Two runs compared item by item (``bq.diff``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from benchuq.deprecation import deprecated_names
from benchuq.results.base import MARGIN_UNIT, Result, clean

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.analyses.diff import DiffResult as CoreDiffResult

__all__ = ["DiffResult"]


@dataclass(frozen=True, repr=False, eq=False)
class DiffResult(Result):
    """Two runs compared item by item: candidate - base per task and overall, with verdicts
    (``bq.diff``, ``benchuq diff``; METHODS 13).

    Attributes
    ----------
    result
        The core result (``core.analyses.diff.DiffResult``: ``overall``, ``tasks``, the paired
        counts and the standard errors side by side).
    fail_on, per_task
        The CI gate behind :meth:`exit_code` (``benchuq diff --fail-on``, ``--per-task``).
    """

    PERCENT = (
        "base_score",
        "candidate_score",
        "difference",
        "low",
        "high",
        "se_paired",
        "se_unpaired",
        "se_naive",
    )

    result: CoreDiffResult
    fail_on: Literal["worse", "inferior", "difference", "never"] = "never"
    per_task: bool = False

    def meta(self) -> dict[str, Any]:
        """Data, the two runs, level, margin and how the draws were made."""
        r = self.result
        return {
            "data": r.data,
            "base": r.base,
            "candidate": r.candidate,
            "level": r.level,
            "margin": r.margin,
            "margin_unit": MARGIN_UNIT,
            "sequential": r.sequential,
            "reps": r.reps,
            "seed": r.seed,
        }

    def _in_percent(self) -> bool:
        return self.result.points

    def exit_code(self) -> int:
        """1 when the gate ``fail_on`` fails (a CI job's status), else 0."""
        from benchuq.core.analyses.diff import exit_code

        return exit_code(self.result, fail_on=self.fail_on, per_task=self.per_task)

    def payload(self) -> dict[str, Any]:
        """``benchuq diff --json``: ``base``, ``candidate``, ``level``, ``margin``, ``overall``,
        ``tasks``, ``exit_code`` (plus what the comparison used)."""
        r = self.result
        overall = r.overall.to_dict()
        overall.pop("task")
        return clean(
            {
                "base": r.base,
                "candidate": r.candidate,
                "level": r.level,
                "margin": r.margin,
                "margin_unit": MARGIN_UNIT,
                "overall": overall,
                "tasks": [t.to_dict() for t in r.tasks],
                "exit_code": self.exit_code(),
                "data": r.data,
                "sequential": r.sequential,
                "weights": dict(zip([t.task for t in r.tasks], r.weights, strict=True)),
                "tasks_base_only": list(r.tasks_base_only),
                "tasks_candidate_only": list(r.tasks_candidate_only),
                "tasks_unpaired": list(r.tasks_unpaired),
                "reps": r.reps,
                "seed": r.seed,
                "note": r.note(),
            }
        )

    def _rows(self) -> list[dict[str, Any]]:
        return [self.result.overall.to_dict(), *(t.to_dict() for t in self.result.tasks)]

    def figure(self) -> go.Figure:
        """The Two runs page's chart of differences with the margin (it names its data)."""
        from benchuq.presentation.colors import model_colors
        from benchuq.presentation.figures.common import FigureOptions
        from benchuq.presentation.figures.diff import difference_figure

        r = self.result
        scale, axis = (100.0, "difference (points)") if r.points else (1.0, "difference")
        opts = FigureOptions(model_colors([r.base, r.candidate]), scale, axis)
        return difference_figure(r, opts)


if not TYPE_CHECKING:  # the old name, for one release (issue 41)
    __getattr__ = deprecated_names(
        __name__, {"TwoRuns": ("DiffResult", "benchuq.results")}, globals()
    )

"""Rank aggregations, probabilities and rank sets (``bq.ranks``, ``bq.rank_sets``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from benchuq.deprecation import deprecated_names
from benchuq.results.base import (
    Result,
    _draws_meta,
    _options,
    _overall,
    _subtitled,
    clean,
    zero_note,
)

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.draws import Draws
    from benchuq.core.summaries.rank_sets import RankSets

__all__ = ["RankSetsResult", "RanksResult"]


@dataclass(frozen=True, repr=False, eq=False)
class RankSetsResult(Result):
    """Rank confidence sets, marginal and simultaneous (``bq.rank_sets``, METHODS 4b).

    Attributes
    ----------
    sets
        The core result (``core.summaries.rank_sets.RankSets``: ``top_set(k)``, ``table()``).
    draws
        The draws ranked.
    """

    sets: RankSets
    draws: Draws = field(repr=False)

    TOP_K: ClassVar[tuple[int, ...]] = (1, 2, 3)

    def meta(self) -> dict[str, Any]:
        """Level and score of the sets, with the draws' method."""
        return {**_draws_meta(self.draws), "level": self.sets.level, "score": self.sets.label}

    def payload(self) -> dict[str, Any]:
        """The ``rank_sets`` block of ``benchuq ranks --json``."""
        s = self.sets
        top = {str(k): list(s.top_set(k)) for k in self.TOP_K if k <= len(s.models)}
        return clean({"level": s.level, "score": s.label, "rows": self._rows(), "top": top})

    def _rows(self) -> list[dict[str, Any]]:
        return self.sets.table().to_dict(orient="records")

    def top_set(self, *, k: int = 1) -> tuple[str, ...]:
        """The models that can be among the best ``k`` (simultaneous sets)."""
        return self.sets.top_set(k)

    def sentences(self) -> list[str]:
        """The statements in words ("The best model is one of {A, B} with 95% confidence.")."""
        from benchuq.core.summaries.rank_sets import rank_set_sentences

        return rank_set_sentences(self.sets)

    def figure(self) -> go.Figure:
        """The Ranks page's rank-set chart."""
        from benchuq.presentation.figures.ranks import rank_set_figure

        opts = _options(self.draws.models, "proportion", "Rank confidence sets")
        return _subtitled(rank_set_figure(self.sets, opts), self.draws, self.sets.level)


@dataclass(frozen=True, repr=False, eq=False)
class RanksResult(Result):
    """Five rank aggregations, rank probabilities and rank sets (``bq.ranks``, METHODS 4).

    Attributes
    ----------
    table
        ``model, method, mean_rank, low, high, observed_rank, statistic, observed_value,
        position, position_low, position_high`` and the items behind each model's scores
        (``items, few_items, n_items, n_answers``, as the leaderboard's).
    probabilities
        ``(M, M)``: P(rank of model i = r), r = 1..M.
    rank_sets
        The rank confidence sets of the same score.
    weights
        The category weights of the score (``None``: the mean over all tasks).
    level
        The interval level.
    draws
        The draws ranked.
    """

    table: pd.DataFrame
    probabilities: np.ndarray
    rank_sets: RankSetsResult
    weights: tuple[float, ...] | None
    level: float
    draws: Draws = field(repr=False)

    def meta(self) -> dict[str, Any]:
        """Method, level, replicates, seed, normalization, score."""
        return {
            **_draws_meta(self.draws),
            "level": self.level,
            "normalization": self.draws.normalization,
            "score": self.rank_sets.sets.label,
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq ranks --json``."""
        m = self.meta()
        models = self.draws.models
        return clean(
            {
                **{k: m[k] for k in ("method", "level", "reps", "seed", "normalization", "score")},
                "overall": _overall(self.draws),
                "weights": None if self.weights is None else list(self.weights),
                "rows": self._rows(),
                "rank_probabilities": {m: self.probabilities[i] for i, m in enumerate(models)},
                "rank_sets": self.rank_sets.payload(),
                **zero_note(self.draws.notes),
            }
        )

    def _rows(self) -> list[dict[str, Any]]:
        return self.table.to_dict(orient="records")

    def figure(self) -> go.Figure:
        """The Ranks page's chart of the five aggregations."""
        from benchuq.presentation.figures.common import rank_aggregation_figure

        opts = _options(self.draws.models, "proportion")
        return _subtitled(rank_aggregation_figure(self.table, opts), self.draws, self.level)


if not TYPE_CHECKING:  # the old name, for one release (issue 41)
    __getattr__ = deprecated_names(
        __name__, {"Ranks": ("RanksResult", "benchuq.results")}, globals()
    )

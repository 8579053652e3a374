"""Embedding consistency (``bq.consistency``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from benchuq.deprecation import deprecated_names
from benchuq.results.base import Result, clean

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.analyses.embeddings.scores import ConsistencyResult as CoreConsistencyResult
    from benchuq.core.analyses.embeddings.tree import EmbeddingTree

__all__ = ["ConsistencyResult"]


@dataclass(frozen=True, repr=False, eq=False)
class ConsistencyResult(Result):
    """Embedding consistency: ALP and accuracy per model with intervals (METHODS 9).

    Attributes
    ----------
    result
        The core result (``core.analyses.embeddings.scores.ConsistencyResult``).
    tree
        The cluster tree when clusters come from several columns (else ``None``).
    columns
        The meta columns that made the clusters.
    """

    result: CoreConsistencyResult
    tree: EmbeddingTree | None = None
    columns: tuple[str, ...] = ()

    def meta(self) -> dict[str, Any]:
        """Level, the interval method and the unit of ALP."""
        first = self.result.scores[0]
        return {"level": first.alp.level, "method": first.alp.method, "unit": "nats (ALP)"}

    def payload(self) -> dict[str, Any]:
        """``benchuq embeddings --json``."""
        r = self.result
        table = r.table()
        return clean(
            {
                "rows": self._rows(),
                "accuracy_intervals": table[["model", "accuracy_low", "accuracy_high"]]
                .rename(columns={"accuracy_low": "low", "accuracy_high": "high"})
                .to_dict(orient="records"),
                "clipped": dict(zip(table["model"], table["clipped"], strict=True)),
                "clusters": dict(zip(r.clusters, r.cluster_sizes.tolist(), strict=True)),
                "tree": None if self.tree is None else self.tree.table().to_dict(orient="records"),
                "method": {s.model: s.alp.method for s in r.scores},
                "accuracy_method": {s.model: s.accuracy.method for s in r.scores},
                "settings": dict(r.settings),
            }
        )

    def _rows(self) -> list[dict[str, Any]]:
        cols = ["model", "alp", "alp_low", "alp_high", "accuracy"]
        return self.result.table()[cols].to_dict(orient="records")

    def figure(self, *, metric: Literal["alp", "accuracy"] = "alp") -> go.Figure:
        """The Embeddings page's chart of ALP (or accuracy) per model."""
        from benchuq.presentation.figures.common import FigureOptions, with_subtitle
        from benchuq.presentation.figures.embeddings import score_figure

        first = self.result.scores[0]
        fig = score_figure(self.result, metric, FigureOptions(scale=1.0, unit=metric))
        return with_subtitle(fig, f"{first.alp.method} · {100 * first.alp.level:g}% intervals")


if not TYPE_CHECKING:  # the old name, for one release (issue 41)
    __getattr__ = deprecated_names(
        __name__, {"Consistency": ("ConsistencyResult", "benchuq.results")}, globals()
    )

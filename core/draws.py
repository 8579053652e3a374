"""Draws: the one currency of uncertainty (METHODS section 1).

Every uncertainty method (the bootstrap of section 2, the Bayesian model of section 6) returns a
:class:`Draws`: per-task performance of shape ``(R, M, T)`` plus the observed point estimate and
how the draws were made. Every summary, rank, dominance map and chart is a function of draws.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from benchuq.core.summaries.headline import Headline
    from benchuq.core.unit_scores import UnitScores

__all__ = ["Draws", "method_words"]

#: how each engine's :attr:`Draws.method` reads to a user, by its start (the technical name stays
#: in JSON, exports and the report's Methods section; docs/METHODS.md sections 2 and 3)
_METHOD_WORDS: tuple[tuple[str, str], ...] = (
    ("task-level confidence draws", "resampled from each task's count of correct answers"),
    ("bootstrap: task-level binomial", "resampled from each task's count of correct answers"),
    ("bootstrap: item-level paired, clustered", "bootstrap over clusters of items, models paired"),
    ("bootstrap: item-level paired", "bootstrap over the items, models paired"),
    ("normal approximation", "normal approximation from each score's standard error"),
    ("Bayesian hierarchical (parameter)", "Bayesian model of the items"),
    ("Bayesian hierarchical (posterior predictive)", "Bayesian model of the items (new items)"),
)


def method_words(method: str) -> str:
    """``method`` (a :attr:`Draws.method`) in plain words, for human output (METHODS 2).

    Examples
    --------
    >>> method_words("task-level confidence draws (mid-p Clopper–Pearson, pooled)")
    "resampled from each task's count of correct answers"
    >>> method_words("bootstrap: item-level paired, clustered")
    'bootstrap over clusters of items, models paired'
    """
    return next((plain for start, plain in _METHOD_WORDS if method.startswith(start)), method)


@dataclass(frozen=True, eq=False)
class Draws:
    """``values[r, i, j]``: replicate or posterior draw r of model i on task j.

    Attributes
    ----------
    values
        ``(R, M, T)`` float array, same unit as ``observed`` (proportions for accuracy).
    observed
        ``(M, T)`` point estimates (the observed scores; posterior means for Bayes).
    models, tasks, categories
        labels aligned with the axes (``categories`` per task).
    higher_is_better
        ``(T,)``; summaries rank on the negation where False (METHODS 0).
    method
        a human-readable name, e.g. ``"bootstrap: task-level binomial"``.
    paired
        True when between-model correlation is preserved (item-level paired bootstrap,
        joint posterior); False when models were resampled independently.
    seed
        the seed that made the draws (``None`` if not seeded).
    notes
        caveats to show next to results (e.g. "normal approximation").
    items
        ``(M, T)`` items behind each model's task score (0 where it has none), or ``None`` when
        the data carry no item counts (estimates with standard errors); read by
        :mod:`core.small_samples` to flag results resting on few items.
    data
        the data set's name (``Benchmark.name``; ``""`` when unknown), for titles and subtitles.
    normalization
        the normalization applied to the draws (``core.summaries.normalization``: ``"minmax"``,
        ``"paper"``, ``"chance"``), ``None`` for raw scores.
    counts
        ``(items, answers)``: ``(M, T)`` numbers of items and answers behind each observed score
        (``core.reading.answers.answer_counts``), ``None`` when the draws were made without the
        data.
    headline
        the aggregate "overall" stands for (:mod:`core.summaries.headline`; ``None``: the mean
        over all tasks). Attach it with :meth:`with_headline`.
    units
        the unit-level scores of the tasks with fewer than 30 items or clusters
        (:class:`core.unit_scores.UnitScores`, item-level data), for the exact paired test of
        ``compare`` (METHODS 2d); ``None`` otherwise.
    binary
        ``(T,)`` bool: the task is scored right/wrong, one answer per item and no clusters, so
        ``observed * items`` is the number right and a cell's interval can take the exact
        Clopper–Pearson rule (METHODS 2f); ``None`` (no task) for transformed or model draws.
    """

    values: np.ndarray
    observed: np.ndarray
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    categories: tuple[str, ...]
    higher_is_better: np.ndarray
    method: str
    paired: bool
    seed: int | None = None
    notes: tuple[str, ...] = ()
    items: np.ndarray | None = None
    data: str = ""
    normalization: str | None = None
    counts: tuple[np.ndarray, np.ndarray] | None = None
    headline: Headline | None = None
    units: UnitScores | None = None
    binary: np.ndarray | None = None

    def __post_init__(self) -> None:
        _, M, T = self.values.shape
        if self.observed.shape != (M, T):
            raise ValueError(f"observed has shape {self.observed.shape}, expected {(M, T)}")
        if self.items is not None and np.shape(self.items) != (M, T):
            raise ValueError(f"items has shape {np.shape(self.items)}, expected {(M, T)}")
        if len(self.models) != M or len(self.tasks) != T or len(self.categories) != T:
            raise ValueError("labels do not match the draws' shape")
        for a in (self.values, self.observed, self.items):
            if a is not None:
                a.setflags(write=False)

    def __repr__(self) -> str:
        """Short: shape, method and seed (not the arrays)."""
        R, M, T = self.values.shape
        data = f"{self.data!r}, " if self.data else ""
        norm = f", {self.normalization} normalized" if self.normalization else ""
        seed = "" if self.seed is None else f", seed {self.seed}"
        return f"Draws({data}{R} reps x {M} models x {T} tasks, {self.method}{seed}{norm})"

    @property
    def reps(self) -> int:
        """Number of replicates ``R``."""
        return int(self.values.shape[0])

    @property
    def category_names(self) -> tuple[str, ...]:
        """Distinct categories in order of first appearance."""
        return tuple(dict.fromkeys(self.categories))

    @property
    def category_index(self) -> np.ndarray:
        """``(T,)`` index of each task's category in :attr:`category_names`."""
        names = self.category_names
        return np.array([names.index(c) for c in self.categories], dtype=np.int64)

    @property
    def sign(self) -> np.ndarray:
        """``(T,)`` +1 for higher-is-better tasks, -1 otherwise."""
        return np.where(np.asarray(self.higher_is_better, bool), 1.0, -1.0)

    def select_models(self, models: list[str] | tuple[str, ...]) -> Draws:
        """The same draws for a subset of models, in the order given; models that are
        consecutive in :attr:`models` (e.g. all of them) give a view, not a copy (the arrays
        are read-only), so a page showing every model adds no ``R x M x T`` array."""
        idx = [self.models.index(m) for m in models]
        at: slice | list[int] = idx
        if idx and idx == list(range(idx[0], idx[0] + len(idx))):
            at = slice(idx[0], idx[0] + len(idx))
        return replace(
            self,
            values=self.values[:, at, :],
            observed=self.observed[at, :],
            models=tuple(models),
            items=None if self.items is None else self.items[at, :],
            counts=None if self.counts is None else (self.counts[0][at], self.counts[1][at]),
            units=None if self.units is None else self.units.select(at),
        )

    def with_headline(self, headline: Headline | None) -> Draws:
        """The same draws with "overall" standing for ``headline`` (no copy of the arrays)."""
        return replace(self, headline=headline)

    def with_values(self, values: np.ndarray, observed: np.ndarray, note: str) -> Draws:
        """Transformed draws (e.g. normalized), keeping labels and provenance."""
        return replace(
            self, values=values, observed=observed, notes=(*self.notes, note), binary=None
        )

"""Scores of named groups of tasks from draws: size-weighted as lm-eval reports them, or the mean.

METHODS 0 and 2: a group's score is a function of the per-task draws, so its interval comes from
the same replicates as every other summary. Two aggregates, named plainly wherever shown:

- ``"size-weighted"``: lm-eval's group score (``weight_by_size``, the default of its
  ``aggregate_metric_list``): the subtasks' scores weighted by their item counts,
  ``S_i = sum_j n_ij p_ij / sum_j n_ij`` over the group's tasks j that model i has; for accuracy
  this is the share of all the group's items answered correctly. Nested groups (``mmlu`` over
  ``mmlu_stem`` ...) give the same number whether weighted over subgroups or over their tasks.
- ``"mean"``: every task weighs the same (``mean_j p_ij``), as benchuq's categories and "Overall".

**Choice**: a model without some of the group's tasks is scored over the tasks it has (lm-eval
does the same with what it ran); a group whose tasks mix higher- and lower-is-better metrics is
not reoriented.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from benchuq.core.data import Benchmark, DataError
from benchuq.core.draws import Draws
from benchuq.core.summaries.scores import Scores, count_cells

__all__ = ["Aggregate", "group_scores_of_tasks", "task_sizes"]

Aggregate = Literal["size-weighted", "mean"]


def task_sizes(bench: Benchmark) -> np.ndarray:
    """``(M, T)`` items per model and task (``n`` for counts, scored items for item data);
    ``nan`` where unknown (estimate ± se data) or where the model lacks the task."""
    if bench.n is not None:
        n = np.asarray(bench.n, dtype=float)
    elif bench.item_tasks is not None:
        n = np.array([np.sum(~np.isnan(it.scores), axis=1) for it in bench.item_tasks]).T
    else:
        return np.full(bench.estimate.shape, np.nan)
    return np.where(np.isnan(bench.estimate), np.nan, n.astype(float))


def group_scores_of_tasks(
    draws: Draws,
    tasks: Sequence[str],
    *,
    aggregate: Aggregate = "mean",
    sizes: np.ndarray | None = None,
) -> Scores:
    """Per-model score of the group of ``tasks`` (see the module docstring).

    ``sizes`` ``(M, T)`` (from :func:`task_sizes`, models as in ``draws``) is needed for
    ``"size-weighted"``.
    """
    if aggregate not in ("size-weighted", "mean"):
        raise ValueError(f"aggregate must be 'size-weighted' or 'mean', not {aggregate!r}.")
    unknown = [t for t in tasks if t not in draws.tasks]
    if unknown or not tasks:
        raise DataError(
            f"the group's tasks {unknown or list(tasks)} are not in the data.",
            hint=f"use tasks of the data set ({len(draws.tasks)} tasks).",
        )
    idx = np.array([draws.tasks.index(t) for t in tasks])
    obs = draws.observed[:, idx]
    vals = draws.values[:, :, idx]
    if aggregate == "mean":
        w = np.ones(obs.shape)
    else:
        if sizes is None or sizes.shape != draws.observed.shape:
            raise ValueError("size-weighted group scores need sizes of shape (models, tasks).")
        w = np.asarray(sizes, dtype=float)[:, idx]
        if np.any(np.isnan(w) & ~np.isnan(obs)):
            raise DataError(
                "a size-weighted group score needs the item count of every task.",
                hint="use the unweighted mean for estimate ± se data.",
            )
    w = np.where(np.isnan(obs), 0.0, w)
    total = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.where(total > 0, np.nansum(w * obs, axis=1) / total, np.nan)
        values = np.nansum(w[None] * vals, axis=2) / total[None]
    values[:, total == 0] = np.nan
    label = f"{'size-weighted' if aggregate != 'mean' else 'mean'} of {len(tasks)} tasks"
    cells = count_cells(draws, idx)  # the exact rule of METHODS 2f (one task, or at 0% / 100%)
    hib = bool(np.all(draws.higher_is_better[idx]))
    return Scores(observed, values, label, hib, cells, len(idx) == 1)

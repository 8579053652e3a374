"""Items and answers behind each score (issue 26: epochs, repeated answers).

An item can carry several answers (inspect_ai epochs, lm-eval repeats, a table with an ``epoch``
or ``attempt`` column): its score is the mean of its answers and it stays one item
(:class:`~benchuq.core.data.ItemTask` ``answers``). Here: how many items and answers stand behind
each model's score on each task and group of tasks, and a note when a model's number of answers
per item varies on a task or differs from the other models'.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws

__all__ = ["answer_counts", "answer_notes", "group_counts", "model_counts"]


def answer_counts(bench: Benchmark) -> tuple[np.ndarray, np.ndarray]:
    """``(items, answers)``: ``(M, T)`` numbers of items scored and of answers behind them.

    Item-level data counts its items and answers; counts data has one answer per item (``n``);
    estimates with standard errors say neither (``nan``).

    Examples
    --------
    >>> from benchuq.core.reading import load_sample
    >>> items, answers = answer_counts(load_sample("toy"))
    >>> bool((items == answers).all())
    True
    """
    M, T = bench.shape
    if bench.item_tasks is not None:
        items = np.column_stack([it.answered for it in bench.item_tasks]).astype(float)
        answers = np.column_stack([it.n_answers() for it in bench.item_tasks]).astype(float)
    elif bench.n is not None:
        items = answers = np.asarray(bench.n, float)
    else:
        items = answers = np.full((M, T), np.nan)
    missing = np.isnan(bench.estimate)
    return np.where(missing, 0, items), np.where(missing, 0, answers)


def group_counts(source: Benchmark | Draws, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (rows of ``model`` and ``group``: ``"overall"`` or a category) with
    ``n_items`` and ``n_answers``: the sums over the group's tasks (``None`` when unknown, and
    for the weighted group). ``source``: the data, or draws made from it (their ``counts``)."""
    from benchuq.core.summaries.scores import WEIGHTED

    if isinstance(source, Draws):
        M, T = source.observed.shape
        unknown = np.full((M, T), np.nan)
        items, answers = source.counts if source.counts is not None else (unknown, unknown)
    else:
        items, answers = answer_counts(source)
    cats = np.asarray(source.categories)
    index = {m: i for i, m in enumerate(source.models)}
    n_items: list[int | None] = []
    n_answers: list[int | None] = []
    for model, group in zip(table["model"], table["group"], strict=True):
        i = index[model]
        if group == WEIGHTED:  # categories enter by their weights: no one count of items
            n_items.append(None)
            n_answers.append(None)
            continue
        cols = np.ones(len(cats), bool) if group == "overall" else cats == group
        for out, counts in ((n_items, items), (n_answers, answers)):
            total = counts[i, cols].sum()
            out.append(None if np.isnan(total) else int(total))
    return table.assign(n_items=n_items, n_answers=n_answers)


def model_counts(source: Benchmark | Draws, *, group: str = "overall") -> pd.DataFrame:
    """``n_items`` and ``n_answers`` behind each model's score on ``group`` (:func:`group_counts`),
    indexed by model: the columns the ranks, bayes and compare JSON share with the leaderboard's.

    Examples
    --------
    >>> from benchuq.core.reading import load_sample
    >>> int(model_counts(load_sample("toy")).loc["A", "n_items"])
    30200
    """
    rows = pd.DataFrame({"model": list(source.models), "group": group})
    return group_counts(source, rows).set_index("model")[["n_items", "n_answers"]]


def answer_notes(bench: Benchmark) -> list[str]:
    """One note per task where the number of answers per item varies within a model, or
    differs between models (empty when every item has one answer)."""
    notes: list[str] = []
    if bench.item_tasks is None:
        return notes
    for task, it in zip(bench.tasks, bench.item_tasks, strict=True):
        if it.answers is None:
            continue
        per_model = []
        for m, row in zip(bench.models, it.answers, strict=True):
            given = row[row > 0]
            if given.size:
                per_model.append((m, int(given.min()), int(given.max())))
        spans = {(lo, hi) for _, lo, hi in per_model}
        if len(spans) <= 1 and all(lo == hi for _, lo, hi in per_model):
            continue
        shown = ", ".join(
            f"{m} {lo}" if lo == hi else f"{m} {lo} to {hi}" for m, lo, hi in per_model[:6]
        )
        more = f", … ({len(per_model)} models)" if len(per_model) > 6 else ""
        notes.append(
            f"task '{task}': the number of answers (epochs) per item differs ({shown}{more}); "
            "each item's score is the mean of its answers (items with more answers are measured "
            "more precisely) and a model's score is the mean over its items."
        )
    return notes

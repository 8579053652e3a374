"""The wide leaderboard (models x summaries, groups, categories, tasks) as a view model (pure).

Columns, each named plainly (no streamlit here):

- ``Overall``: the draws' headline aggregate (:mod:`benchuq.core.summaries.headline`: the mean over
  benchmarks for lm-eval files with groups, else over all tasks), named in its label;
- ``Average of C categories``: every category weighs the same (the weighted score S(w) at equal
  weights), shown when it differs from Overall;
- per lm-eval group, lm-eval's own score, ``<group> (lm-eval, size-weighted)``, and ``<group>
  (mean of k tasks)`` (:mod:`benchuq.core.summaries.groups`);
- per category with two or more tasks that is not already a group: ``<category> (mean of k
  tasks)``;
- every task.

Each cell is the observed score with a percentile interval at the page's level from the same
draws. Sorting and searching are pure functions of the table; the CSV holds the numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import pandas as pd

from benchuq.core import summaries
from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws
from benchuq.core.reading.meta import Group, TaskRun
from benchuq.core.summaries.groups import Aggregate, group_scores_of_tasks, task_sizes
from benchuq.presentation.state import link
from benchuq.presentation.text import csv_bytes

__all__ = [
    "KIND_CHOICES",
    "Column",
    "TableSettings",
    "WideTable",
    "cell_texts",
    "harness_stderr",
    "select",
    "table_columns",
    "task_headers",
    "to_csv",
    "wide_table",
]

Kind = Literal["overall", "average", "group", "category", "task"]
KIND_LABELS: dict[str, str] = {
    "overall": "Summaries",
    "average": "Summaries",
    "group": "Groups",
    "category": "Categories",
    "task": "Tasks",
}
#: The column kinds a reader can show or hide, in display order.
KIND_CHOICES = tuple(dict.fromkeys(KIND_LABELS.values()))


@dataclass(frozen=True)
class TableSettings:
    """Leaderboard table page: the search, the column kinds shown, the sort column and order."""

    query: str = link("table_query", "", "search text for models or columns (default: none)")
    kinds: tuple[str, ...] = link(
        "table_kinds",
        KIND_CHOICES,
        "column kinds shown, comma-separated: " + ", ".join(KIND_CHOICES),
        choices=KIND_CHOICES,
    )
    sort: str = link(
        "table_sort", "", "the column sorted by (default: the first, Overall)", data=True
    )
    descending: bool = link("table_descending", True, "best first")


@dataclass(frozen=True)
class Column:
    """One column: its label, what it aggregates (``tasks``) and how."""

    label: str
    kind: Kind
    tasks: tuple[str, ...]
    aggregate: Aggregate = "mean"


@dataclass(frozen=True)
class WideTable:
    """``(M, C)`` observed scores and interval ends for ``models`` x ``columns`` at ``level``."""

    models: tuple[str, ...]
    columns: tuple[Column, ...]
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float


def _order(groups: Sequence[Group]) -> list[Group]:
    """Top-level groups first, each followed by its subgroups (depth first)."""
    names = {g.name for g in groups}
    children: dict[str | None, list[Group]] = {}
    for g in groups:
        children.setdefault(g.parent if g.parent in names else None, []).append(g)
    out: list[Group] = []

    def walk(parent: str | None) -> None:
        for g in children.get(parent, []):
            out.append(g)
            walk(g.name)

    walk(None)
    return out


def table_columns(
    bench: Benchmark, groups: Sequence[Group] = (), overall: str | None = None
) -> tuple[Column, ...]:
    """The columns for ``bench`` and its files' ``groups`` (see the module docstring);
    ``overall`` names the aggregate of the draws' overall (default: the mean over tasks)."""
    label = overall or f"mean of {len(bench.tasks)} tasks"
    cols = [Column(f"Overall ({label})", "overall", bench.tasks)]
    cats = bench.category_names
    if 1 < len(cats) < len(bench.tasks):
        cols.append(Column(f"Average of {len(cats)} categories", "average", bench.tasks))
    seen: set[tuple[str, ...]] = set()
    sized = bench.kind != "estimate_se"
    for g in _order(groups):
        tasks = tuple(t for t in g.tasks if t in bench.tasks)
        if len(tasks) < 2:
            continue
        if sized:
            label = f"{g.name} (lm-eval, size-weighted)"
            cols.append(Column(label, "group", tasks, "size-weighted"))
        cols.append(Column(f"{g.name} (mean of {len(tasks)} tasks)", "group", tasks))
        seen.add(tuple(sorted(tasks)))
    for c in cats:
        tasks = tuple(t for t, k in zip(bench.tasks, bench.categories, strict=True) if k == c)
        if len(tasks) >= 2 and tuple(sorted(tasks)) not in seen:
            cols.append(Column(f"{c} (mean of {len(tasks)} tasks)", "category", tasks))
    cols += [Column(t, "task", (t,)) for t in bench.tasks]
    return tuple(cols)


def wide_table(
    draws: Draws, level: float, columns: Sequence[Column], bench: Benchmark
) -> WideTable:
    """Scores and percentile intervals (METHODS 2) of every column for the draws' models."""
    rows = [bench.models.index(m) for m in draws.models]
    sizes = task_sizes(bench)[rows]
    est, low, high = [], [], []
    for col in columns:
        if col.kind == "overall":
            scores = summaries.group_scores(draws, group="overall")
        elif col.kind == "average":
            k = len(draws.category_names)
            scores = summaries.group_scores(draws, group=np.full(k, 1.0 / k))
        else:
            scores = group_scores_of_tasks(draws, col.tasks, aggregate=col.aggregate, sizes=sizes)
        iv = summaries.percentile_interval(scores, level=level)
        est.append(iv.estimate)
        low.append(iv.low)
        high.append(iv.high)
    return WideTable(
        draws.models,
        tuple(columns),
        np.column_stack(est),
        np.column_stack(low),
        np.column_stack(high),
        level,
    )


def select(
    table: WideTable,
    *,
    query: str = "",
    kinds: Sequence[str] = tuple(KIND_LABELS.values()),
    sort_by: str | None = None,
    descending: bool = True,
) -> WideTable:
    """Rows and columns to show: columns of the chosen ``kinds`` (``Summaries``, ``Groups``,
    ``Categories``, ``Tasks``); a ``query`` keeps the models whose name contains it or, if
    none does, the columns whose label contains it (and the summaries); rows sorted by the
    column labelled ``sort_by`` (missing scores last)."""
    keep_cols = [i for i, c in enumerate(table.columns) if KIND_LABELS[c.kind] in kinds]
    keep_rows = list(range(len(table.models)))
    q = query.strip().lower()
    if q:
        hits = [i for i, m in enumerate(table.models) if q in m.lower()]
        if hits:
            keep_rows = hits
        else:
            keep_cols = [
                i
                for i in keep_cols
                if q in table.columns[i].label.lower()
                or table.columns[i].kind in ("overall", "average")
            ]
    if sort_by is not None and sort_by in [c.label for c in table.columns]:
        j = [c.label for c in table.columns].index(sort_by)
        values = table.estimate[keep_rows, j]
        order = np.argsort(np.where(np.isnan(values), np.inf, -values if descending else values),
                           kind="stable")  # fmt: skip
        keep_rows = [keep_rows[i] for i in order]
    r, c = np.array(keep_rows, dtype=int), np.array(keep_cols, dtype=int)
    return replace(
        table,
        models=tuple(table.models[i] for i in keep_rows),
        columns=tuple(table.columns[i] for i in keep_cols),
        estimate=table.estimate[np.ix_(r, c)],
        low=table.low[np.ix_(r, c)],
        high=table.high[np.ix_(r, c)],
    )


def harness_stderr(table: WideTable, runs: Sequence[TaskRun]) -> np.ndarray | None:
    """``(M, C)`` lm-eval's own standard error of each task cell (NaN elsewhere), ``None`` when
    the files give none (issue 41: the harness's number next to benchuq's interval)."""
    se = {(r.model, r.task): r.stderr for r in runs if r.stderr is not None}
    if not se:
        return None
    out = np.full(table.estimate.shape, np.nan)
    for j, c in enumerate(table.columns):
        if c.kind == "task":
            for i, m in enumerate(table.models):
                out[i, j] = se.get((m, c.tasks[0]), np.nan)
    return out


def task_headers(columns: Sequence[Column], runs: Sequence[TaskRun]) -> dict[str, str]:
    """Shown headers of task columns with the files' n-shot and metric (``arc_easy · 0-shot ·
    acc``) where every model's run agrees; other columns keep their label (the label, not the
    header, is what the link's ``table_sort`` names)."""
    by_task: dict[str, set[tuple[str, str]]] = {}
    for r in runs:
        by_task.setdefault(r.task, set()).add((r.n_shot, r.metric))
    headers = {}
    for c in columns:
        seen = by_task.get(c.tasks[0]) if c.kind == "task" else None
        if seen and len(seen) == 1:
            shot, metric = next(iter(seen))
            parts = [c.label, f"{shot}-shot" if shot else "", metric]
            headers[c.label] = " · ".join(p for p in parts if p)
    return headers


def cell_texts(
    table: WideTable,
    scale: float = 100.0,
    digits: int = 1,
    *,
    stderr: np.ndarray | None = None,
    headers: dict[str, str] | None = None,
) -> pd.DataFrame:
    """``estimate [low, high]`` in display units per cell, ``—`` where a model has no score;
    with ``stderr`` (:func:`harness_stderr`), ``(lm-eval se s)`` after the interval; columns
    headed by ``headers`` (:func:`task_headers`) where given."""
    se = np.full(table.estimate.shape, np.nan) if stderr is None else stderr

    def text(e: float, lo: float, hi: float, s: float) -> str:
        if np.isnan(e):
            return "—"
        out = f"{e * scale:.{digits}f} [{lo * scale:.{digits}f}, {hi * scale:.{digits}f}]"
        return out if np.isnan(s) else f"{out} (lm-eval se {s * scale:.{digits}f})"

    heads = headers or {}
    cells = {
        heads.get(c.label, c.label): [
            text(*v)
            for v in zip(table.estimate[:, j], table.low[:, j], table.high[:, j], se[:, j],
                         strict=True)
        ]
        for j, c in enumerate(table.columns)
    }  # fmt: skip
    return pd.DataFrame({"model": list(table.models), **cells})


def to_csv(table: WideTable) -> bytes:
    """The numbers (as loaded, e.g. proportions): per column its estimate, low and high, with the
    interval level in a column of its own."""
    out: dict[str, object] = {"model": list(table.models), "level": table.level}
    for j, c in enumerate(table.columns):
        out[c.label] = table.estimate[:, j]
        out[f"{c.label} low"] = table.low[:, j]
        out[f"{c.label} high"] = table.high[:, j]
    return csv_bytes(pd.DataFrame(out))

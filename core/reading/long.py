"""Task-level tables: long (a row per model and task), wide (a row per model) and the task table.

Long columns: ``model, task, [category], n, correct`` (counts), or ``accuracy`` with ``n`` from a
column or the task table (counts = accuracy * n), or ``estimate, se`` (kind ``"estimate_se"``).
Optional: ``chance``, ``higher_is_better``. Choices the spec leaves open, made here:

- accuracy is read as percent when any value exceeds 1 (a note says so); a task whose values are
  all <= 1 next to percent tasks, or a value below 1 where the task's median is above 10, is
  reported as a mix of percent and proportion;
- accuracy * n must be whole to 1e-6 (on the proportion scale); otherwise it is rounded to the
  nearest count and a note says how many were rounded;
- without any category information every task gets the category ``"all"`` (with a note), unless
  all tasks are MMLU subjects (then the MMLU categories).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from benchuq.core.data import Benchmark, DataError
from benchuq.core.reading.table import (
    ROW_NOTE,
    Table,
    check_models,
    integer_column,
    number_column,
    require_columns,
    text_column,
)
from benchuq.core.resources import mmlu_subject_table

__all__ = [
    "ALIASES",
    "FALSE",
    "TRUE",
    "WHOLE_TOL",
    "TaskInfo",
    "apply_aliases",
    "long_benchmark",
    "read_task_table",
    "wide_to_long",
]

ALIASES: dict[str, tuple[str, ...]] = {
    "task": ("subject", "benchmark"),
    "model": ("model_name",),
    "n": ("n_scored", "n_test", "n_items"),
    "accuracy": ("acc",),
    "se": ("stderr", "std_err", "standard_error"),
    "epoch": ("attempt",),
}
TRUE = {"true", "1", "yes", "y", "t"}
FALSE = {"false", "0", "no", "n", "f"}
WHOLE_TOL = 1e-6
#: |estimate| and se at most this: sums and draws of larger values overflow float64
MAX_ESTIMATE = 1e100


@dataclass(frozen=True)
class TaskInfo:
    """The task table: per task its category, n and chance level (a task absent from a dict, or a
    ``nan`` chance, is unknown); ``source`` is the table's file name for messages."""

    category: dict[str, str]
    n: dict[str, int]
    chance: dict[str, float]
    source: str


def apply_aliases(table: Table) -> Table:
    """Rename common alternative column names (e.g. ``subject`` -> ``task``) when ours is absent."""
    frame = table.frame
    renames = {}
    for ours, alts in ALIASES.items():
        if ours in frame.columns:
            continue
        for alt in alts:
            if alt in frame.columns and alt not in renames:
                renames[alt] = ours
                break
    if not renames:
        return table
    return replace(table, frame=frame.rename(columns=renames))


def read_task_table(table: Table) -> TaskInfo:
    """``task, category, n[, chance]`` (``category`` and ``n`` may be absent, not both)."""
    table = apply_aliases(table)
    if "task" not in table.frame.columns:
        raise DataError(
            "the task table has no 'task' column.",
            file=table.name,
            column="task",
            hint="give the task table the columns task, category, n[, chance].",
        )
    names = text_column(table, "task")
    _check_unique(table, names, lambda i: f"task '{names[i]}' appears", "list each task once.")
    cat = {}
    if "category" in table.frame.columns:
        cat = dict(zip(names, text_column(table, "category"), strict=True))
    n = {}
    if "n" in table.frame.columns:
        counts = integer_column(table, "n")
        _check_positive(table, counts, "n")
        n = dict(zip(names, (int(c) for c in counts), strict=True))
    chance = {}
    if "chance" in table.frame.columns:
        chance = dict(zip(names, number_column(table, "chance", allow_missing=True), strict=True))
    if not cat and not n:
        raise DataError(
            "the task table has neither 'category' nor 'n'.",
            file=table.name,
            column="category",
            hint="add the columns category and n (the number of items of each task).",
        )
    return TaskInfo(cat, n, chance, table.name)


def _check_positive(table: Table, x: np.ndarray, column: str) -> None:
    bad = np.flatnonzero(x <= 0)
    if bad.size:
        raise DataError(
            f"{x[bad[0]]:g} items: n must be a positive whole number {ROW_NOTE}.",
            file=table.name,
            row=table.row(bad[0]),
            column=column,
            hint="give the number of scored items of the task (at least 1).",
        )


def _bool_column(table: Table, column: str) -> np.ndarray:
    out = np.empty(len(table.frame), bool)
    for i, v in enumerate(table.frame[column]):
        s = str(v).strip().lower()
        if s in TRUE:
            out[i] = True
        elif s in FALSE:
            out[i] = False
        else:
            raise DataError(
                f"{str(v)[:40]!r} is not true/false {ROW_NOTE}.",
                file=table.name,
                row=table.row(i),
                column=column,
                hint="write true or false.",
            )
    return out


def _per_task(
    table: Table, tasks: np.ndarray, values: np.ndarray, column: str, order: list[str]
) -> list:
    """One value per task from a per-row column, which must agree within each task."""
    first: dict[str, tuple[object, int]] = {}
    for i, (t, v) in enumerate(zip(tasks, values, strict=True)):
        if t not in first:
            first[t] = (v, i)
        elif not _same(first[t][0], v):
            raise DataError(
                f"task '{t}' has {column} {first[t][0]!r} in row {table.row(first[t][1])} but "
                f"{v!r} here {ROW_NOTE}.",
                file=table.name,
                row=table.row(i),
                column=column,
                hint=f"give each task one {column}.",
            )
    return [first[t][0] for t in order]


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (np.isnan(a) and np.isnan(b)) or a == b
    return a == b


def _is_percent(table: Table, acc: np.ndarray, tasks: np.ndarray) -> bool:
    """Decide percent vs proportion; a mix is an error naming the first suspicious row."""
    if np.any(acc < 0) or np.any(acc > 100):
        i = int(np.flatnonzero((acc < 0) | (acc > 100))[0])
        raise DataError(
            f"accuracy {acc[i]:g} is outside 0..1 (proportion) and 0..100 (percent) {ROW_NOTE}.",
            file=table.name,
            row=table.row(i),
            column="accuracy",
            hint="give accuracy as a proportion (0.82) or a percent (82).",
        )
    if not np.any(acc > 1):
        return False
    frame = pd.DataFrame({"task": tasks, "acc": acc})
    task_max = frame.groupby("task", sort=False)["acc"].transform("max").to_numpy()
    task_med = frame.groupby("task", sort=False)["acc"].transform("median").to_numpy()
    suspicious = (acc > 0) & (acc <= 1) & ((task_max <= 1) | (task_med > 10))
    if np.any(suspicious):
        i = int(np.flatnonzero(suspicious)[0])
        raise DataError(
            f"accuracy {acc[i]:g} looks like a proportion while other values are percent "
            f"(e.g. {acc[acc > 1][0]:g}) {ROW_NOTE}.",
            file=table.name,
            row=table.row(i),
            column="accuracy",
            hint="use one scale for the whole column: all proportions (0..1) or all percent.",
        )
    return True


def long_benchmark(
    table: Table, *, tasks: TaskInfo | None = None, name: str | None = None
) -> Benchmark:
    """A :class:`Benchmark` from a long task-level table (see the module docstring)."""
    table = apply_aliases(table)
    require_columns(
        table,
        ("model", "task"),
        columns_hint="name the columns model, task, n, correct (or accuracy, or estimate and se), "
        "or map your column names to these.",
        rows_hint="add one row per model and task below the header.",
    )
    cols = set(table.frame.columns)
    models = text_column(table, "model")
    task_col = text_column(table, "task")
    mi, model_uniques = pd.factorize(models)
    check_models(len(model_uniques), table.name)
    _check_duplicates(table, models, task_col)
    ti, task_uniques = pd.factorize(task_col)
    model_names = [str(m) for m in model_uniques]
    task_names = [str(t) for t in task_uniques]
    M, T = len(model_names), len(task_names)
    notes: list[str] = []

    n_row = _row_n(table, cols, task_col, tasks)
    estimate = np.full((M, T), np.nan)
    kw: dict[str, object] = {}
    if "correct" in cols or "accuracy" in cols:
        if n_row is None:
            per_item = "item" in cols  # per-item results whose score column is not named score
            score = "correct" if "correct" in cols else "accuracy"
            raise DataError(
                "there is no 'n' column and no task table giving n"
                + (
                    f" (read as one row per model and task: '{score}' is not 'score')."
                    if per_item
                    else "."
                ),
                file=table.name,
                column="n",
                hint=f"for per-item results (one row per model, task and item) rename '{score}' to "
                "'score' (1 right, 0 wrong, or any number); for per-task counts add a column n "
                "(items per task)."
                if per_item
                else "add a column n (items per task) or supply a task table task, category, n.",
            )
        if "correct" in cols:
            correct = integer_column(table, "correct")
        else:
            correct = _counts_from_accuracy(table, task_col, n_row, notes)
        bad = np.flatnonzero((correct < 0) | (correct > n_row))
        if bad.size:
            i = int(bad[0])
            raise DataError(
                f"correct = {correct[i]} is outside 0..n (n = {n_row[i]}) {ROW_NOTE}.",
                file=table.name,
                row=table.row(i),
                column="correct",
                hint="correct counts the items answered correctly; it cannot exceed n.",
            )
        n = np.zeros((M, T), np.int64)
        k = np.zeros((M, T), np.int64)
        n[mi, ti], k[mi, ti] = n_row, correct
        estimate[mi, ti] = correct / n_row
        kw = {"kind": "counts", "n": n, "correct": k}
    elif "estimate" in cols:
        if "se" not in cols:
            raise DataError(
                "an 'estimate' column needs an 'se' column (its standard error).",
                file=table.name,
                column="se",
                hint="add the standard error of each estimate, or give n and correct instead.",
            )
        est = number_column(table, "estimate")
        se_row = number_column(table, "se")
        bad = np.flatnonzero(se_row < 0)
        if bad.size:
            raise DataError(
                f"standard error {se_row[bad[0]]:g} is negative {ROW_NOTE}.",
                file=table.name,
                row=table.row(bad[0]),
                column="se",
                hint="standard errors are >= 0.",
            )
        for col, x in (("estimate", est), ("se", se_row)):
            huge = np.flatnonzero(np.abs(x) > MAX_ESTIMATE)
            if huge.size:  # means and draws of such values overflow to infinity
                raise DataError(
                    f"{col} {x[huge[0]]:g} is beyond ±{MAX_ESTIMATE:g} {ROW_NOTE}.",
                    file=table.name,
                    row=table.row(huge[0]),
                    column=col,
                    hint="rescale the metric (e.g. to thousands or a log scale).",
                )
        se = np.full((M, T), np.nan)
        estimate[mi, ti], se[mi, ti] = est, se_row
        kw = {"kind": "estimate_se", "se": se}
    else:
        raise DataError(
            f"no score column; the file's columns are {sorted(cols)}.",
            file=table.name,
            column="correct",
            hint="give n and correct (counts), accuracy (with n), or estimate and se.",
        )

    categories = _categories(table, cols, task_col, task_names, tasks, notes)
    chance = np.full(T, np.nan)
    if "chance" in cols:
        chance = np.array(
            _per_task(
                table,
                task_col,
                number_column(table, "chance", allow_missing=True),
                "chance",
                task_names,
            ),
            float,
        )
    elif tasks is not None and tasks.chance:
        chance = np.array([tasks.chance.get(t, np.nan) for t in task_names], float)
    hib = None
    if "higher_is_better" in cols:
        hib = np.array(
            _per_task(
                table,
                task_col,
                _bool_column(table, "higher_is_better"),
                "higher_is_better",
                task_names,
            ),
            bool,
        )
    return Benchmark(
        name=name or _stem(table.name),
        models=tuple(model_names),
        tasks=tuple(task_names),
        categories=tuple(categories),
        estimate=estimate,
        chance=chance,
        higher_is_better=hib,
        notes=tuple(notes),
        **kw,  # type: ignore[arg-type]
    )


def _stem(name: str) -> str:
    base = name.rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base else base


def _check_unique(
    table: Table, keys: Iterable[Hashable], named: Callable[[int], str], hint: str
) -> None:
    """A :class:`DataError` at the first key given twice, naming both rows; ``named(i)`` says
    what row ``i`` gives, with its verb (``"task 'x' appears"``)."""
    seen: dict[Hashable, int] = {}
    for i, key in enumerate(keys):
        if key in seen:
            raise DataError(
                f"{named(i)} twice (rows {table.row(seen[key])} and {table.row(i)}) {ROW_NOTE}.",
                file=table.name,
                row=table.row(i),
                column="task",
                hint=hint,
            )
        seen[key] = i


def _check_duplicates(table: Table, models: np.ndarray, task_col: np.ndarray) -> None:
    _check_unique(
        table,
        zip(models, task_col, strict=True),
        lambda i: f"model '{models[i]}' and task '{task_col[i]}' appear",
        "keep one row per model and task (rename a second run, e.g. 'model (2)').",
    )


def _row_n(
    table: Table, cols: set[str], task_col: np.ndarray, tasks: TaskInfo | None
) -> np.ndarray | None:
    if "n" in cols:
        n = integer_column(table, "n")
        _check_positive(table, n, "n")
        return n
    if tasks is None or not tasks.n:
        return None
    out = np.empty(len(task_col), np.int64)
    for i, t in enumerate(task_col):
        if t not in tasks.n:
            raise DataError(
                f"task '{t}' (row {table.row(i)} of '{table.name}') is not in the task table.",
                file=tasks.source,
                column="task",
                hint=f"add a row for '{t}' with its category and n.",
            )
        out[i] = tasks.n[t]
    return out


def _counts_from_accuracy(
    table: Table, task_col: np.ndarray, n_row: np.ndarray, notes: list[str]
) -> np.ndarray:
    acc = number_column(table, "accuracy")
    if _is_percent(table, acc, task_col):
        acc = acc / 100
        notes.append("accuracy was given in percent and converted to proportions.")
    exact = acc * n_row
    correct = np.round(exact).astype(np.int64)
    off = np.abs(acc - correct / n_row) > WHOLE_TOL
    if np.any(off):
        notes.append(
            f"{int(off.sum())} of {len(acc)} accuracies are not whole counts of n; "
            "correct = accuracy x n was rounded to the nearest whole number."
        )
    return correct


def _categories(
    table: Table,
    cols: set[str],
    task_col: np.ndarray,
    task_names: list[str],
    tasks: TaskInfo | None,
    notes: list[str],
) -> list[str]:
    if "category" in cols:
        raw = table.frame["category"]
        blank = [i for i, v in enumerate(raw) if v is None or str(v).strip() in ("", "nan")]
        if blank:
            i = blank[0]
            raise DataError(
                f"task '{task_col[i]}' has no category {ROW_NOTE}.",
                file=table.name,
                row=table.row(i),
                column="category",
                hint="give every task a category (or one category such as 'all' for all tasks).",
            )
        values = np.array([str(v).strip() for v in raw], dtype=object)
        return _per_task(table, task_col, values, "category", task_names)
    if tasks is not None and tasks.category:
        lacking = [t for t in task_names if t not in tasks.category]
        if lacking:
            raise DataError(
                f"task '{lacking[0]}' has no category in the task table.",
                file=tasks.source,
                column="category",
                hint=f"add a row for '{lacking[0]}' with its category.",
            )
        return [tasks.category[t] for t in task_names]
    mmlu = mmlu_subject_table()
    if all(t in mmlu.index for t in task_names):
        notes.append("categories from the MMLU subject table (STEM, humanities, ...).")
        return [str(mmlu.loc[t, "category"]) for t in task_names]
    notes.append("no categories given: all tasks are in one category 'all'.")
    return ["all"] * len(task_names)


def wide_to_long(table: Table) -> Table:
    """A row per model, a column per task -> ``model, task, accuracy`` (blanks dropped)."""
    frame = table.frame
    if frame.shape[1] < 2:
        raise DataError(
            "a wide leaderboard needs a model column and at least one task column.",
            file=table.name,
            hint="put model names in the first column and one column per task.",
        )
    model_col = "model" if "model" in frame.columns else frame.columns[0]
    tasks = [c for c in frame.columns if c != model_col]
    # long order as pandas' melt (task by task), built with numpy: thousands of columns stay fast
    values = pd.Series(frame[tasks].to_numpy(object).T.ravel(), dtype=object)
    task_of = np.repeat(np.asarray(tasks, dtype=object), len(frame))
    # one vectorised pass over every cell; only columns it doubts get the per-column check
    # (whose errors name the task column and row)
    text = values.map(lambda v: v.strip().rstrip("%") if isinstance(v, str) else v)
    blank = values.isna() | (text == "")
    x = pd.to_numeric(text.where(~blank, np.nan), errors="coerce").to_numpy(float)
    for c in dict.fromkeys(task_of[~blank.to_numpy() & ~np.isfinite(x)]):
        number_column(table, c, allow_missing=True)
    long = pd.DataFrame(
        {
            "model": np.tile(frame[model_col].to_numpy(object), len(tasks)),
            "task": task_of,
            "accuracy": values,
        }
    )
    keep = [not (v is None or str(v).strip() == "") for v in long["accuracy"]]
    # rows keep the spreadsheet row of the model they came from
    rows = np.tile(np.arange(len(frame)), len(tasks))[keep]
    return Table(table.name, long[keep].reset_index(drop=True), table.first_row, rows)

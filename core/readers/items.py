"""Item-level tables: ``model, task, item, score, [cluster], [subgroup]`` -> kind ``"items"``.

Per task a dense ``(M, n_j)`` score matrix (``nan`` where a model lacks an item), ``estimate`` =
the per-model nanmean; when every score is 0 or 1, ``n`` and ``correct`` are filled too
(METHODS 0). Choices the spec leaves open: scores must lie in [0, 1] (no automatic percent
reading: a 1-10 judge scale would be misread), anything else is an error asking to rescale; a
model that has no item of a task gets ``nan`` for that task; without a ``category`` column every
task is in category ``"all"``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchuq.core.data import Benchmark, DataError, ItemTask
from benchuq.core.readers.table import ROW_NOTE, Table, number_column, require_columns, text_column

__all__ = ["ITEM_COLUMNS", "item_frame", "items_benchmark"]

ITEM_COLUMNS = ("model", "task", "item", "score")


def item_frame(table: Table) -> pd.DataFrame:
    """Validated columns ``model, task, item, score, [cluster, subgroup], row`` of a table."""
    require_columns(
        table,
        ITEM_COLUMNS,
        columns_hint="item-level files need the columns model, task, item, score "
        "(optional cluster, subgroup), or map your column names to these.",
        rows_hint="add one row per model, task and item below the header.",
    )
    cols = set(table.frame.columns)
    out = pd.DataFrame({c: text_column(table, c) for c in ("model", "task", "item")})
    out["score"] = number_column(table, "score")
    for c in ("cluster", "subgroup", "category"):
        if c in cols:
            out[c] = text_column(table, c)
    out["row"] = table.rows()
    out["file"] = table.name
    return out


def items_benchmark(frame: pd.DataFrame, *, name: str, notes: tuple[str, ...] = ()) -> Benchmark:
    """A kind-``"items"`` :class:`Benchmark` from validated records (see :func:`item_frame`)."""
    notes_l = list(notes)
    score = frame["score"].to_numpy(float)
    if np.any((score < 0) | (score > 1)):
        _range_error(frame, (score < 0) | (score > 1))
    dup = frame.duplicated(["model", "task", "item"], keep=False).to_numpy()
    if dup.any():
        first = frame[dup].iloc[0]
        rows = frame.loc[
            dup
            & (frame["model"] == first["model"]).to_numpy()
            & (frame["task"] == first["task"]).to_numpy()
            & (frame["item"] == first["item"]).to_numpy(),
            "row",
        ].tolist()
        raise DataError(
            f"model '{first['model']}', task '{first['task']}', item '{first['item']}' appears "
            f"more than once (rows {rows[:3]}) {ROW_NOTE}.",
            file=str(first["file"]),
            row=int(rows[1]),
            column="item",
            hint="keep one score per model, task and item (average repeats, or rename a second "
            "run of a model).",
        )
    mi, models = pd.factorize(frame["model"].to_numpy(object))
    tj, tasks = pd.factorize(frame["task"].to_numpy(object))
    M, T = len(models), len(tasks)
    item_col = frame["item"].to_numpy(object)
    estimate = np.full((M, T), np.nan)
    item_tasks = []
    for j, pos in enumerate(_positions(tj, T)):
        li, item_names = pd.factorize(item_col[pos])
        mat = np.full((M, len(item_names)), np.nan)
        mat[mi[pos], li] = score[pos]
        sub = frame.iloc[pos]
        labels = {
            c: _item_labels(sub, c, list(item_names)) if c in sub.columns else None
            for c in ("cluster", "subgroup")
        }
        item_tasks.append(
            ItemTask(tuple(str(x) for x in item_names), mat, labels["cluster"], labels["subgroup"])
        )
        has = ~np.all(np.isnan(mat), axis=1)
        estimate[has, j] = np.nanmean(mat[has], axis=1)
    kw: dict[str, object] = {}
    if np.all((score == 0) | (score == 1)):
        n = np.array([np.sum(~np.isnan(it.scores), axis=1) for it in item_tasks]).T
        k = np.array([np.nansum(it.scores, axis=1) for it in item_tasks]).T
        kw = {"n": n.astype(np.int64), "correct": k.astype(np.int64)}
    return Benchmark(
        name=name,
        models=tuple(str(m) for m in models),
        tasks=tuple(str(t) for t in tasks),
        categories=tuple(_categories(frame, list(tasks))),
        kind="items",
        estimate=estimate,
        item_tasks=tuple(item_tasks),
        notes=tuple(notes_l),
        **kw,  # type: ignore[arg-type]
    )


def _positions(codes: np.ndarray, k: int) -> list[np.ndarray]:
    """Row positions of each code ``0..k-1``, in row order."""
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(k + 1))
    return [order[bounds[j] : bounds[j + 1]] for j in range(k)]


def _categories(frame: pd.DataFrame, tasks: list[str]) -> list[str]:
    if "category" not in frame.columns:
        return ["all"] * len(tasks)
    first = frame.drop_duplicates("task").set_index("task")["category"]
    return [str(first[t]) for t in tasks]


def _range_error(frame: pd.DataFrame, bad: np.ndarray) -> None:
    i = int(np.flatnonzero(bad)[0])
    raise DataError(
        f"score {frame['score'].iloc[i]:g} is outside 0..1 {ROW_NOTE}.",
        file=str(frame["file"].iloc[i]),
        row=int(frame["row"].iloc[i]),
        column="score",
        hint="give item scores on a 0..1 scale (1 = correct, or a proportion such as F1); "
        "rescale other scales (divide percent by 100, a 1-10 judge score by 10).",
    )


def _item_labels(sub: pd.DataFrame, column: str, item_names: list[str]) -> tuple[str, ...]:
    """One label per item; models must agree on an item's cluster/subgroup."""
    pairs = sub.drop_duplicates(["item", column])
    clash = pairs["item"].duplicated(keep=False).to_numpy()
    if clash.any():
        r = pairs[clash].iloc[1]
        raise DataError(
            f"item '{r['item']}' of task '{r['task']}' has two different {column} labels "
            f"{ROW_NOTE}.",
            file=str(r["file"]),
            row=int(r["row"]),
            column=column,
            hint=f"give each item one {column} (the same for every model).",
        )
    label = pairs.set_index("item")[column]
    return tuple(str(label[i]) for i in item_names)

"""The stored form of a data set: Parquet tables plus ``meta.json``, written without an embedded
Arrow schema and read back with every check a fresh load makes (see :mod:`benchuq.store`)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from benchuq.core.data import Benchmark, DataError, ItemTask
from benchuq.core.reading.meta import Group
from benchuq.store.config import DESCRIPTION_LIMIT, FORMAT, META_LIMIT, VERSION, StoreError


def _parquet(columns: dict[str, pa.Array]) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf, store_schema=False)
    return buf.getvalue()


def encode(
    bench: Benchmark,
    provenance: Mapping[str, str],
    groups: Sequence[Group] = (),
    description: str = "",
) -> dict[str, bytes]:
    """The files of one stored data set: ``meta.json``, ``tasks.parquet``, ``results.parquet``
    and, for item-level data, ``items.parquet`` (one row per task, item and model). ``groups``
    (lm-eval's task groups, which decide the overall score) go into ``meta.json``;
    ``description``: the publisher's optional words about the data (``meta.json`` holds it only
    when given, so sets stored before it existed read the same)."""
    M, T = bench.shape
    models = np.array(bench.models, dtype=object)
    tasks = np.array(bench.tasks, dtype=object)
    files = {
        "tasks.parquet": _parquet(
            {
                "task": pa.array(bench.tasks, pa.string()),
                "category": pa.array(bench.categories, pa.string()),
                "chance": pa.array(bench.chance, pa.float64()),
                "higher_is_better": pa.array(bench.higher_is_better, pa.bool_()),
            }
        )
    }
    results = {
        "model": pa.array(np.repeat(models, T), pa.string()),
        "task": pa.array(np.tile(tasks, M), pa.string()),
        "estimate": pa.array(bench.estimate.ravel(), pa.float64()),
    }
    for name in ("n", "correct", "se"):
        value = getattr(bench, name)
        if value is not None:
            results[name] = pa.array(value.ravel(), pa.int64() if name != "se" else pa.float64())
    files["results.parquet"] = _parquet(results)
    if bench.item_tasks is not None:
        files["items.parquet"] = _parquet(_item_columns(bench))
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "name": bench.name,
        "kind": bench.kind,
        "models": list(bench.models),
        "notes": list(bench.notes),
        "provenance": dict(provenance),
    }
    if groups:  # optional: data sets published before groups were kept have none
        meta["groups"] = [
            {"name": g.name, "tasks": list(g.tasks), "parent": g.parent, "aggregate": g.aggregate}
            for g in groups
        ]
    if description.strip():  # optional (issue 30)
        meta["description"] = description.strip()[:DESCRIPTION_LIMIT]
    files["meta.json"] = json.dumps(meta, ensure_ascii=False, indent=1).encode()
    return files


def _item_columns(bench: Benchmark) -> dict[str, pa.Array]:
    M = len(bench.models)
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("task", "item", "model", "score")}
    labels: dict[str, list[np.ndarray]] = {"cluster": [], "subgroup": []}
    for task, it in zip(bench.tasks, bench.item_tasks or (), strict=True):
        n = len(it.items)
        cols["task"].append(np.full(n * M, task, dtype=object))
        cols["item"].append(np.repeat(np.array(it.items, dtype=object), M))
        cols["model"].append(np.tile(np.array(bench.models, dtype=object), n))
        cols["score"].append(np.asarray(it.scores, float).T.ravel())
        for name in labels:
            value = getattr(it, name)
            rows = np.full(n * M, None, object) if value is None else np.repeat(value, M)
            labels[name].append(np.asarray(rows, dtype=object))
    joined = {k: np.concatenate(v) if v else np.array([], object) for k, v in cols.items()}
    out = {k: pa.array(v, pa.float64() if k == "score" else pa.string()) for k, v in joined.items()}
    for name, parts in labels.items():
        out[name] = pa.array(np.concatenate(parts) if parts else [], pa.string())
    if any(it.answers is not None for it in bench.item_tasks or ()):  # repeated answers (#26)
        tasks = bench.item_tasks or ()
        out["answers"] = pa.array(
            np.concatenate([it.answer_counts.T.ravel() for it in tasks]), pa.int64()
        )
        out["answer_sq"] = pa.array(
            np.concatenate(
                [
                    (it.answer_sq if it.answer_sq is not None else it.scores**2).T.ravel()
                    for it in tasks
                ]
            ),
            pa.float64(),
        )
    return out


SCHEMAS: dict[str, dict[str, pa.DataType]] = {
    "tasks.parquet": {
        "task": pa.string(),
        "category": pa.string(),
        "chance": pa.float64(),
        "higher_is_better": pa.bool_(),
    },
    "results.parquet": {
        "model": pa.string(),
        "task": pa.string(),
        "estimate": pa.float64(),
        "n": pa.int64(),
        "correct": pa.int64(),
        "se": pa.float64(),
    },
    "items.parquet": {
        "task": pa.string(),
        "item": pa.string(),
        "model": pa.string(),
        "score": pa.float64(),
        "cluster": pa.string(),
        "subgroup": pa.string(),
        "answers": pa.int64(),  # optional: repeated answers per item (issue 26)
        "answer_sq": pa.float64(),
    },
}
REQUIRED = {
    "tasks.parquet": set(SCHEMAS["tasks.parquet"]),
    "results.parquet": {"model", "task", "estimate"},
    "items.parquet": set(SCHEMAS["items.parquet"]) - {"answers", "answer_sq"},
}


def _damaged(what: str, file: str) -> StoreError:
    return StoreError(
        f"the stored data is damaged or not benchuq's: {what}.",
        file=file,
        hint="ask the publisher to publish the data set again.",
    )


def read_stored_parquet(
    name: str, data: bytes, *, damaged: Callable[[str, str], StoreError] = _damaged
) -> pa.Table:
    """A stored Parquet file's table, after checking its footer: an embedded Arrow schema could
    name extension types, so a file with one is never read. ``damaged(what, name)`` makes the
    error (the data sets' by default; the battles' store passes its own)."""
    try:
        footer = pq.read_metadata(pa.BufferReader(data))
    except (pa.ArrowException, OSError) as err:
        raise damaged(f"not a Parquet file ({err})", name) from None
    if footer.metadata:
        raise damaged("it carries Arrow schema metadata", name)
    try:
        return pq.read_table(pa.BufferReader(data))
    except (pa.ArrowException, OSError) as err:
        raise damaged(f"unreadable Parquet ({err})", name) from None


def _read_parquet(name: str, data: bytes) -> dict[str, np.ndarray]:
    """Columns of a stored Parquet file as numpy arrays, after checking the footer and schema."""
    table = read_stored_parquet(name, data)
    expected = SCHEMAS[name]
    have = {f.name: f.type for f in table.schema}
    wrong = [c for c, t in have.items() if expected.get(c) != t]
    missing = REQUIRED[name] - set(have)
    if wrong or missing or len(have) != table.num_columns:
        raise _damaged(f"columns {sorted(have)} (missing {sorted(missing)})", name)
    out = {}
    for col in have:
        column = table.column(col)
        if expected[col] == pa.string():
            out[col] = np.array(column.to_pylist(), dtype=object)
        elif column.null_count:
            raise _damaged(f"missing values in column '{col}'", name)
        else:
            out[col] = column.to_numpy()
    return out


def _meta(data: bytes) -> dict[str, Any]:
    if len(data) > META_LIMIT:
        raise _damaged("meta.json is too large", "meta.json")
    try:
        meta = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise _damaged(f"meta.json is not JSON ({err})", "meta.json") from None
    types = {
        "format": str,
        "version": int,
        "name": str,
        "kind": str,
        "models": list,
        "notes": list,
        "provenance": dict,
    }
    optional = {"groups", "description"}  # added later; older sets have none
    if not isinstance(meta, dict) or set(meta) - optional != set(types):
        raise _damaged("meta.json has other fields than expected", "meta.json")
    if meta["format"] != FORMAT or meta["version"] != VERSION:
        raise _damaged(f"format {meta['format']!r} version {meta['version']!r}", "meta.json")
    for key, kind in (types | {"description": str}).items():
        if key in meta and not isinstance(meta[key], kind):
            raise _damaged(f"meta.json field '{key}' is not a {kind.__name__}", "meta.json")
    strings = [*meta["models"], *meta["notes"], *meta["provenance"].values()]
    if not all(isinstance(s, str) for s in strings):
        raise _damaged("meta.json lists hold something other than text", "meta.json")
    meta["groups"] = _groups(meta.get("groups", []))
    return meta


def _groups(raw: object) -> tuple[Group, ...]:
    """The stored lm-eval groups, each field checked for its type."""
    fields = {"name", "tasks", "parent", "aggregate"}
    if not isinstance(raw, list) or not all(
        isinstance(g, dict)
        and set(g) == fields
        and isinstance(g["name"], str)
        and isinstance(g["tasks"], list)
        and all(isinstance(t, str) for t in g["tasks"])
        and (g["parent"] is None or isinstance(g["parent"], str))
        and isinstance(g["aggregate"], str)
        for g in raw
    ):
        raise _damaged("meta.json field 'groups' is malformed", "meta.json")
    return tuple(Group(g["name"], tuple(g["tasks"]), g["parent"], g["aggregate"]) for g in raw)


def decode(files: Mapping[str, bytes]) -> Benchmark:
    """The :class:`Benchmark` of stored files (see :func:`encode`), checked as a fresh load is:
    exact schemas, names matching across files, item scores in [0, 1], and every check of
    ``Benchmark`` itself. Never executes anything from the files."""
    meta = _meta(files["meta.json"])
    tasks = _read_parquet("tasks.parquet", files["tasks.parquet"])
    res = _read_parquet("results.parquet", files["results.parquet"])
    models = tuple(meta["models"])
    names = tuple(tasks["task"])
    M, T = len(models), len(names)
    if any(x is None for x in (*names, *tasks["category"], *res["model"], *res["task"])):
        raise _damaged("empty names", "results.parquet")
    grid_models = np.repeat(np.array(models, dtype=object), T)
    grid_tasks = np.tile(np.array(names, dtype=object), M)
    if len(res["model"]) != M * T or not (
        np.array_equal(res["model"], grid_models) and np.array_equal(res["task"], grid_tasks)
    ):
        raise _damaged("the results do not match the models and tasks", "results.parquet")

    def grid(name: str) -> np.ndarray | None:
        return res[name].reshape(M, T) if name in res else None

    estimate = grid("estimate")
    if estimate is None:
        raise _damaged("no estimate column", "results.parquet")
    item_tasks = None
    if meta["kind"] == "items":
        if "items.parquet" not in files:
            raise _damaged("item-level data without items.parquet", "items.parquet")
        item_tasks = _decode_items(files["items.parquet"], models, names)
    try:
        return Benchmark(
            name=meta["name"],
            models=models,
            tasks=names,
            categories=tuple(tasks["category"]),
            kind=meta["kind"],
            estimate=estimate,
            n=grid("n"),
            correct=grid("correct"),
            se=grid("se"),
            item_tasks=item_tasks,
            chance=tasks["chance"],
            higher_is_better=tasks["higher_is_better"],
            notes=tuple(meta["notes"]),
        )
    except DataError as err:
        raise _damaged(err.message, "results.parquet") from None


def _decode_items(
    data: bytes, models: tuple[str, ...], tasks: tuple[str, ...]
) -> tuple[ItemTask, ...]:
    cols = _read_parquet("items.parquet", data)
    M = len(models)
    task_col = cols["task"]
    score = cols["score"]
    if np.any((score < 0) | (score > 1)):
        raise _damaged("item scores outside 0..1", "items.parquet")
    starts: list[int] = (
        np.flatnonzero(np.r_[True, task_col[1:] != task_col[:-1]]).tolist() if len(task_col) else []
    )
    runs = {}
    bounds = [*starts, len(task_col)]
    for a, b in pairwise(bounds):
        if task_col[a] in runs:
            raise _damaged(f"task '{task_col[a]}' is split", "items.parquet")
        runs[task_col[a]] = (a, b)
    if set(runs) - set(tasks):
        raise _damaged("items of unknown tasks", "items.parquet")
    out = []
    for task in tasks:
        a, b = runs.get(task, (0, 0))
        if (b - a) % M:
            raise _damaged(f"task '{task}' has an incomplete item grid", "items.parquet")
        n = (b - a) // M
        items = cols["item"][a:b:M]
        block = {k: cols[k][a:b] for k in ("item", "model", "cluster", "subgroup")}
        ok = np.array_equal(block["model"], np.tile(np.array(models, dtype=object), n))
        ok &= np.array_equal(block["item"], np.repeat(items, M)) and len(set(items)) == n
        labels = {}
        for name in ("cluster", "subgroup"):
            per_item = block[name][::M]
            ok &= np.array_equal(block[name], np.repeat(per_item, M))
            missing = [x is None for x in per_item]
            ok &= all(missing) or not any(missing)
            labels[name] = None if n == 0 or all(missing) else tuple(per_item)
        if not ok or any(x is None for x in items):
            raise _damaged(f"task '{task}' has a malformed item grid", "items.parquet")
        scores = score[a:b].reshape(n, M).T.copy()
        repeated = {}
        if "answers" in cols and "answer_sq" in cols:
            repeated = {k: cols[k][a:b].reshape(n, M).T.copy() for k in ("answers", "answer_sq")}
        try:
            out.append(
                ItemTask(tuple(items), scores, labels["cluster"], labels["subgroup"], **repeated)
            )
        except DataError as err:
            raise _damaged(err.message, "items.parquet") from None
    return tuple(out)

"""Hugging Face lighteval output: per-item details Parquet, and its ``results_*.json``.

``lighteval ... --save-details`` writes ``details/<model>/<date>/details_<task>_<date>.parquet``
(one file per task; ``<task>`` is ``suite|task|few-shot``, e.g. ``lighteval|gsm8k|0``) with one
row per item and struct columns ``doc`` (the item: ``id``, ``query``, ``choices``, ...),
``model_response`` and ``metric`` (metric name -> the item's score); older versions wrote flat
columns (``example``, ``full_prompt``, ...) and a ``metrics`` struct. Next to it
``results/<model>/results_<date>.json`` holds ``config_general`` (``model_name``,
``lighteval_sha``) and ``results`` (per task ``metric`` and ``metric_stderr``).

Details become item scores: model = the folders between ``details`` and the date folder (an
``org/name`` hub id spans two), else the ``config_general.model_name`` of the results file with the
same date stamp, else ``"model"`` with a note; task = the task part of the file name (suite and few-
shot count dropped, few-shot kept in the run details); item = ``doc.id`` when every row has one
(rows of one id are its repeated answers, averaged), else the query text when distinct, else the row
number; score = the metric picked by ``metric`` (default: ``acc``, ``extractive_match``, ``em``,
``exact_match``, ``pass@1``, whichever comes first, else the first metric) with the others named in
a note. Scores must lie in [0, 1].

A results file with no details next to it is read as estimates with standard errors
(``metric_stderr``); with details it only names the model and the lighteval version.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from typing import Any, TypeGuard

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from benchuq.core.data import Benchmark, DataError
from benchuq.core.options import option
from benchuq.core.reading.items import items_benchmark
from benchuq.core.reading.long import TaskInfo
from benchuq.core.reading.meta import Meta, MissingMetric, TaskRun
from benchuq.core.reading.notes import count, listing
from benchuq.core.reading.table import Source, is_parquet, looks_like_json, parse_json

__all__ = ["KIND", "LABEL", "claims", "is_results", "partition", "read"]

KIND = "lighteval"
LABEL = "lighteval details Parquet (details_<task>_<date>.parquet) or results_<date>.json"
#: Metrics tried in this order when none is asked for.
DEFAULT_METRICS = ("acc", "extractive_match", "em", "exact_match", "pass@1", "quasi_exact_match")
#: The date stamp lighteval puts in its file and folder names (ISO time, ':' written as '-').
DATE = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?"
DETAILS_RE = re.compile(rf"^details_(?P<task>.+)_(?P<date>{DATE})\.parquet$")
RESULTS_RE = re.compile(rf"^results_(?P<date>{DATE})\.json$")
SUITES = frozenset(
    "lighteval leaderboard helm bigbench harness original custom community extended lite".split()
)
HARNESS = "lighteval"


def _base(name: str) -> str:
    return name.rsplit("/", 1)[-1]


def _schema(src: Source) -> pa.Schema | None:
    try:
        return pq.read_schema(io.BytesIO(src.data))
    except Exception:  # pyarrow raises several unrelated types for damaged files
        return None


def _metric_column(schema: pa.Schema) -> str | None:
    for name in ("metric", "metrics"):
        i = schema.get_field_index(name)
        if i >= 0 and pa.types.is_struct(schema.field(i).type):
            return name
    return None


def is_results(obj: object) -> TypeGuard[dict[str, Any]]:
    """Whether a parsed JSON value is a lighteval results file (``config_general``, ``results``)."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("config_general"), dict)
        and isinstance(obj.get("results"), dict)
    )


def claims(src: Source) -> bool:
    """A details Parquet (a ``metric``/``metrics`` struct column, named ``details_...`` or with a
    ``doc`` struct) or a results JSON (``config_general`` in its first bytes)."""
    if is_parquet(src):
        schema = _schema(src)
        if schema is None or _metric_column(schema) is None:
            return False
        return bool(DETAILS_RE.match(_base(src.name))) or schema.get_field_index("doc") >= 0
    if looks_like_json(src) and b'"config_general"' in src.data[:4096]:
        try:
            return is_results(parse_json(src))
        except DataError:
            return bool(RESULTS_RE.match(_base(src.name)))
    return False


def partition(sources: Sequence[Source]) -> tuple[list[Source], list[Source]]:
    """(data, partners): with any details file among ``sources``, the results files only name
    models (partners); without, they are the data."""
    details = [s for s in sources if is_parquet(s)]
    results = [s for s in sources if not is_parquet(s)]
    return (details, results) if details else (results, [])


def read(
    src: Source,
    *,
    metric: str | None,
    tasks: TaskInfo | None = None,
    name: str,
    partners: Sequence[Source] = (),
) -> tuple[Benchmark, Meta]:
    """One details Parquet (item scores) or one results JSON (estimates with standard errors)."""
    if is_parquet(src):
        return _details(src, metric=metric, name=name, partners=partners)
    return _results(src, metric=metric, name=name)


# ---- details -------------------------------------------------------------------------------
def _task_parts(src: Source) -> tuple[str, str, str]:
    """(task, few-shot, date) from ``details_<suite|task|k>_<date>.parquet``."""
    m = DETAILS_RE.match(_base(src.name))
    if m is None:
        stem = _base(src.name).rsplit(".", 1)[0].removeprefix("details_")
        return stem, "", ""
    task, shots = _split_key(m.group("task"))
    return task, shots, m.group("date")


def _model_from_path(name: str) -> str | None:
    """The folders between ``details`` and the date folder (``org/model`` spans two)."""
    folders = name.split("/")[:-1]
    dated = [i for i, f in enumerate(folders) if re.fullmatch(DATE, f)]
    if not dated:
        return None
    above = folders[: dated[-1]]
    if "details" in above:
        above = above[len(above) - above[::-1].index("details") :]
    else:
        above = above[-2:]  # a folder given below 'details': org/model, or just model
    return "/".join(above) or None


def _results_of(date: str, partners: Sequence[Source]) -> dict[str, Any] | None:
    """The partner results file with the same date stamp (the one run's general config)."""
    for p in partners:
        m = RESULTS_RE.match(_base(p.name))
        if m and m.group("date") == date:
            obj = parse_json(p)
            return obj if is_results(obj) else None
    return None


def _details(
    src: Source, *, metric: str | None, name: str, partners: Sequence[Source]
) -> tuple[Benchmark, Meta]:
    task, shots, date = _task_parts(src)
    schema = _schema(src)
    column = None if schema is None else _metric_column(schema)
    if schema is None or column is None:
        raise DataError(
            "not a lighteval details file (no 'metric' struct column)."
            if schema is not None
            else "not a readable Parquet file.",
            file=src.name,
            column="metric",
            hint="load the details_<task>_<date>.parquet files lighteval writes with "
            "--save-details, as they are.",
        )
    wanted = [c for c in (column, "doc", "example") if schema.get_field_index(c) >= 0]
    try:
        table = pq.read_table(io.BytesIO(src.data), columns=wanted)
    except Exception as err:  # damaged pages
        raise DataError(
            f"not a readable Parquet file ({type(err).__name__}).",
            file=src.name,
            hint="copy the details file again from lighteval's output folder.",
        ) from None
    if table.num_rows == 0:
        raise DataError("the details file has no rows.", file=src.name, hint="re-run the task.")
    metrics = table.column(column).combine_chunks()
    offered = [metrics.type.field(i).name for i in range(metrics.type.num_fields)]
    notes: list[str] = []
    chosen = _choose(offered, metric, src.name)
    if len(offered) > 1:
        notes.append(
            f"lighteval: metric '{chosen}' read; the details also hold {_others(offered, chosen)}."
        )
    scores = _scores(metrics.field(chosen).to_pylist(), src.name, f"{column}.{chosen}")
    items, how = _items(table)
    if how:
        notes.append(how)
    general = _results_of(date, partners)
    model = _model_from_path(src.name)
    if model is None and general is not None:
        model = str(general["config_general"].get("model_name") or "") or None
    if model is None:
        model = "model"
        notes.append(
            "lighteval: the model is not named by the file's folders (details/<model>/<date>/) "
            "nor by a results_<date>.json of the same run; it is called 'model'."
        )
    frame = pd.DataFrame(
        {
            "model": model,
            "task": task,
            "item": items,
            "score": scores,
            "row": np.arange(1, len(items) + 1),
            "file": src.name,
        }
    )
    frame, repeat_note = _average_repeats(frame)
    if repeat_note:
        notes.append(repeat_note)
    keep = ~frame["score"].isna()
    if not keep.all():
        notes.append(f"lighteval: {count(int((~keep).sum()), 'item')} without a score left out.")
        frame = frame[keep]
    if frame.empty:
        raise DataError(
            f"no item has a value of metric '{chosen}'.",
            file=src.name,
            column=f"{column}.{chosen}",
            hint=f"pick another metric with {option('metric')}.",
        )
    bench = items_benchmark(frame, name=name, notes=tuple(notes))
    run = TaskRun(model, task, src.name, _harness(general), n_shot=shots, metric=chosen)
    return bench, Meta((run,), (), tuple(offered))


def _choose(offered: list[str], metric: str | None, file: str) -> str:
    if metric is not None and metric in offered:
        return metric
    if metric is not None and metric not in DEFAULT_METRICS:
        raise MissingMetric(
            f"no metric '{metric}' in the details (they hold {listing(offered)}).",
            file=file,
            column="metric",
            hint=f"use {option('metric')} with one of {', '.join(offered)}.",
        )
    if not offered:
        raise DataError(
            "the 'metric' column has no fields.",
            file=file,
            column="metric",
            hint="re-run lighteval with a metric on this task.",
        )
    return next((m for m in DEFAULT_METRICS if m in offered), offered[0])


def _others(offered: list[str], chosen: str) -> str:
    return listing([m for m in offered if m != chosen]) + f" (pick one with {option('metric')})"


def _scores(values: list[object], file: str, column: str) -> np.ndarray:
    out = np.empty(len(values))
    for i, v in enumerate(values):
        if v is None:
            out[i] = np.nan
        elif isinstance(v, bool | int | float) and (isinstance(v, bool) or math.isfinite(v)):
            out[i] = float(v)
        elif isinstance(v, float):  # NaN: lighteval writes it for items it could not score
            out[i] = np.nan
        else:
            raise DataError(
                f"the score {str(v)[:40]!r} is not a number.",
                file=file,
                row=i + 1,
                column=column,
                hint=f"pick a metric with one number per item ({option('metric')}).",
            )
    return out


def _items(table: pa.Table) -> tuple[list[str], str]:
    """Item names: ``doc.id``, else the distinct query texts, else the row number (with a note)."""
    doc = table.column("doc").combine_chunks() if "doc" in table.column_names else None
    candidates: list[tuple[str, list[object]]] = []
    if doc is not None and pa.types.is_struct(doc.type):
        fields = {doc.type.field(i).name for i in range(doc.type.num_fields)}
        candidates += [
            (f"doc.{f}", doc.field(f).to_pylist()) for f in ("id", "query") if f in fields
        ]
    if "example" in table.column_names:
        candidates.append(("example", table.column("example").to_pylist()))
    for label, values in candidates:
        names = ["" if v is None else str(v) for v in values]
        if label == "doc.id" and all(names):  # a repeated id is the same item (averaged)
            return names, ""
        if all(names) and len(set(names)) == len(names):
            return names, f"lighteval: items named by {label} (no doc.id)."
    return [str(i) for i in range(1, table.num_rows + 1)], (
        "lighteval: items named by their row (no distinct doc.id or query); files of several "
        "models on one task are matched row by row."
    )


def _average_repeats(frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Rows of one item are its repeated answers (issue 26): numbered in an ``epoch`` column, so
    the item is scored by their mean and resampled with all of them."""
    if not frame["item"].duplicated().any():
        return frame, ""
    frame = frame.assign(epoch=frame.groupby("item", sort=False).cumcount() + 1)
    return frame, (
        "lighteval: several rows of one item are its repeated answers: one item scored by their "
        "mean, resampled with all of them (METHODS 2)."
    )


def _harness(general: dict[str, Any] | None) -> str:
    sha = "" if general is None else str(general["config_general"].get("lighteval_sha") or "")
    return HARNESS + (f", git {sha[:7]}" if sha and sha != "?" else "")


# ---- results --------------------------------------------------------------------------------
def _results(src: Source, *, metric: str | None, name: str) -> tuple[Benchmark, Meta]:
    obj = parse_json(src)
    if not is_results(obj):
        raise DataError(
            "not a lighteval results file (no 'config_general' and 'results').",
            file=src.name,
            hint="load lighteval's results_<date>.json as written, or pick another format.",
        )
    model = str(obj["config_general"].get("model_name") or "model")
    results = {k: v for k, v in obj["results"].items() if k != "all" and isinstance(v, dict)}
    offered = list(
        dict.fromkeys(k for v in results.values() for k in v if not k.endswith("_stderr"))
    )
    tasks: list[str] = []
    est: list[float] = []
    se: list[float] = []
    runs: list[TaskRun] = []
    skipped: list[str] = []
    for key, entry in results.items():
        chosen = (
            metric if metric in entry else next((m for m in DEFAULT_METRICS if m in entry), None)
        )
        value = entry.get(chosen) if chosen else None
        err = entry.get(f"{chosen}_stderr") if chosen else None
        if not _number(value) or not _number(err):
            skipped.append(key)
            continue
        task, shots = _split_key(key)
        tasks.append(task)
        est.append(float(value))
        se.append(float(err))
        runs.append(TaskRun(model, task, src.name, _harness(obj), n_shot=shots, metric=str(chosen)))
    if not tasks:
        raise MissingMetric(
            f"no task has a score of '{metric or DEFAULT_METRICS[0]}' with its standard error "
            f"(metrics: {listing(offered)}).",
            file=src.name,
            column="results",
            hint=f"pick a metric with {option('metric')}, or load the details_*.parquet files of "
            "the run.",
        )
    notes = [
        "lighteval results: estimates with lighteval's standard errors (metric_stderr); load "
        "the details Parquet files for item-level intervals and paired comparisons."
    ]
    if skipped:
        notes.append(
            f"lighteval: {count(len(skipped), 'task')} without the metric and its standard error "
            f"skipped: {listing(skipped)}."
        )
    bench = Benchmark(
        name=name,
        models=(model,),
        tasks=tuple(tasks),
        categories=("all",) * len(tasks),
        kind="estimate_se",
        estimate=np.array([est]),
        se=np.array([se]),
        notes=tuple(notes),
    )
    return bench, Meta(tuple(runs), (), tuple(offered))


def _number(x: object) -> TypeGuard[int | float]:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _split_key(key: str) -> tuple[str, str]:
    """``lighteval|gsm8k|0`` -> (``gsm8k``, ``0``); a key without ``|`` is the task itself."""
    if "|" not in key:
        return key, ""
    parts = key.split("|")
    shots = parts.pop() if parts[-1].isdigit() else ""
    if len(parts) > 1 and parts[0] in SUITES:
        parts = parts[1:]
    return "|".join(parts), shots

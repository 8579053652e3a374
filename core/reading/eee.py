"""Every Eval Ever (schema 0.3.0): aggregate JSON and instance-level ``<uuid>_samples.jsonl``.

An aggregate file (``schema_version``, ``model_info``, ``evaluation_results``) holds one model's
scores: task = ``evaluation_name`` (category: ``source_data.additional_details.category``, as
benchuq writes it, else ``all``), estimate = ``score_details.score``, standard error =
``score_details.uncertainty.standard_error.value``, else backed out of the confidence interval
(``(upper - lower) / (2 z)`` at its ``confidence_level``, 0.95 when not given), else the
conservative ``sqrt(p (1 - p) / n)`` for a score in [0, 1] with a known number of items ``n``
(``uncertainty.num_samples``, ``source_data.samples_number`` or the task table): no metric bounded
by [0, 1] has a larger variance (Bhatia-Davis). A result with none of these is skipped with a
note (an estimate without uncertainty cannot be given an honest interval). The uncertainty
method and level the file states go into the notes. Results benchuq itself added as aggregates
(``metric_config.additional_details.benchuq_aggregate``: overall and category means) are set
aside: benchuq recomputes them. An evaluation reported with several metrics becomes a task per
metric (``name [metric_id]``), or, with ``metric`` naming one, that metric's results alone.

An instance-level file has one record per line: model = ``model_id``, task = ``evaluation_name``
(with the ``evaluation_result_id`` when one evaluation has records of several results, e.g.
metrics), item = ``sample_id``, score = ``evaluation.score`` (``is_correct`` when the score is
missing); ``metadata.subgroup``, ``metadata.cluster`` and ``metadata.category`` (as benchuq writes
them) are kept as labels. Several records of one sample are its repeated answers: one item scored by
their mean and resampled with all of them (issue 26). With instance-level files in the data,
aggregate files of the same ``evaluation_id`` only describe them and are set aside.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any, TypeGuard

import numpy as np
import pandas as pd
from scipy.special import ndtri

from benchuq.core.data import Benchmark, DataError
from benchuq.core.options import option
from benchuq.core.reading.items import items_benchmark
from benchuq.core.reading.long import TaskInfo
from benchuq.core.reading.meta import Meta, TaskRun
from benchuq.core.reading.notes import count, listing
from benchuq.core.reading.table import (
    Source,
    first_line,
    json_objects,
    looks_like_json,
    parse_json,
)

__all__ = ["AGGREGATE_KEY", "KIND", "LABEL", "claims", "is_aggregate", "partition", "read"]

KIND = "eee"
LABEL = "an Every Eval Ever aggregate JSON or instance-level <uuid>_samples.jsonl"
#: ``metric_config.additional_details`` key marking a benchuq group mean (overall, a category).
AGGREGATE_KEY = "benchuq_aggregate"
INSTANCE_KEYS = (b'"schema_version"', b'"sample_id"', b'"evaluation"')


def _dict(x: object) -> dict[str, Any]:
    """``x`` if it is a JSON object, else an empty one (a missing or malformed part)."""
    return x if isinstance(x, dict) else {}


def _head(src: Source, size: int = 8192) -> bytes:
    return src.data[:size]


def is_aggregate(obj: object) -> TypeGuard[dict[str, Any]]:
    """Whether a parsed JSON value is an EEE aggregate (``evaluation_results``, ``model_info``)."""
    return (
        isinstance(obj, dict)
        and "schema_version" in obj
        and isinstance(obj.get("evaluation_results"), list)
        and isinstance(obj.get("model_info"), dict)
    )


def _is_instances(src: Source) -> bool:
    line = first_line(src)
    return line.startswith(b"{") and all(k in line for k in INSTANCE_KEYS)


def claims(src: Source) -> bool:
    """An aggregate (``schema_version`` in the first bytes, and ``evaluation_results``: parsed to
    check both keys) or an instance-level file (its first line has ``schema_version``,
    ``sample_id`` and ``evaluation``)."""
    if _is_instances(src):
        return True
    head = _head(src)
    if not looks_like_json(src) or b'"schema_version"' not in head:
        return False
    if b'"evaluation_results"' not in src.data:
        return False
    try:
        obj = parse_json(src)
    except DataError:
        return False
    return isinstance(obj, dict) and "schema_version" in obj and "evaluation_results" in obj


def _evaluation_id(src: Source) -> str | None:
    if _is_instances(src):
        try:
            return str(json.loads(first_line(src)).get("evaluation_id"))
        except ValueError:
            return None
    obj = parse_json(src)
    return str(obj.get("evaluation_id")) if isinstance(obj, dict) else None


def partition(sources: Sequence[Source]) -> tuple[list[Source], list[Source]]:
    """(data, set aside): aggregates whose ``evaluation_id`` an instance-level file covers are
    set aside (the items are the data)."""
    covered = {_evaluation_id(s) for s in sources if _is_instances(s)}
    aside = [s for s in sources if not _is_instances(s) and _evaluation_id(s) in covered]
    return [s for s in sources if s not in aside], aside


def read(
    src: Source, *, metric: str | None = None, tasks: TaskInfo | None = None, name: str
) -> tuple[Benchmark, Meta]:
    """One EEE file: an aggregate (estimates with standard errors) or instance-level records."""
    if _is_instances(src):
        return _instances(src, name=name)
    return _aggregate(src, metric=metric, tasks=tasks, name=name)


# ---- aggregate -----------------------------------------------------------------------------
def _metric_id(res: object) -> str:
    config = _dict(_dict(res).get("metric_config"))
    return str(config.get("metric_id") or config.get("metric_name") or "")


def _aggregate(
    src: Source, *, metric: str | None, tasks: TaskInfo | None, name: str
) -> tuple[Benchmark, Meta]:
    obj = parse_json(src)
    if not is_aggregate(obj):
        raise DataError(
            "not an Every Eval Ever aggregate (it needs schema_version, a model_info object "
            "and an evaluation_results list).",
            file=src.name,
            column="evaluation_results" if isinstance(obj, dict) else None,
            hint="load the aggregate JSON as the EEE converters write it.",
        )
    info = obj["model_info"]
    model = str(info.get("id") or info.get("name") or "model")
    notes: list[str] = []
    names, est, se, hib, runs, cats = [], [], [], [], [], []
    skipped: list[str] = []
    aggregates: list[str] = []
    methods: dict[str, None] = {}
    library = _dict(obj.get("eval_library"))
    harness = " ".join(str(library.get(k)) for k in ("name", "version") if library.get(k))
    everything = obj["evaluation_results"]
    offered = tuple(dict.fromkeys(m for r in everything if (m := _metric_id(r))))
    picked = metric is not None and metric in offered
    others = [m for m in offered if m != metric]
    if picked and others:
        notes.append(
            f"Every Eval Ever: metric '{metric}' read; the file also has {listing(others)}."
        )
    labels = [
        str(_dict(r).get("evaluation_name") or f"evaluation {i + 1}")
        for i, r in enumerate(everything)
    ]
    kept = [not picked or _metric_id(r) == metric for r in everything]
    repeated = Counter(t for t, k in zip(labels, kept, strict=True) if k)
    for i, res in enumerate(everything):
        where = f"evaluation_results[{i}]"
        if not isinstance(res, dict):
            raise DataError(
                f"{where} is not an object.", file=src.name, column=where,
                hint="each evaluation result is an object with evaluation_name and score_details.",
            )  # fmt: skip
        if not kept[i]:
            continue
        task = labels[i]
        if repeated[task] > 1:  # one evaluation with several metrics: a task per metric
            task = f"{task} [{_metric_id(res) or res.get('evaluation_result_id') or i + 1}]"
        config = _dict(res.get("metric_config"))
        if AGGREGATE_KEY in _dict(config.get("additional_details")):
            aggregates.append(task)
            continue
        details = _dict(res.get("score_details"))
        score = details.get("score")
        if not _finite(score):
            raise DataError(
                f"the score of '{task}' is {str(score)[:40]!r}, not a number.",
                file=src.name,
                column=f"{where}.score_details.score",
                hint="every evaluation result needs score_details.score.",
            )
        unc = _dict(details.get("uncertainty"))
        source = _dict(res.get("source_data"))
        n = unc.get("num_samples") or source.get("samples_number")
        if n is None and tasks is not None:
            n = tasks.n.get(task)
        value, how = _standard_error(float(score), unc, n, config)
        if value is None:
            skipped.append(task)
            continue
        methods[how] = None
        names.append(task)
        est.append(float(score))
        se.append(value)
        hib.append(not bool(config.get("lower_is_better", False)))
        cats.append(str(_dict(source.get("additional_details")).get("category") or "all"))
        metric_name = str(config.get("metric_id") or config.get("metric_name") or "score")
        runs.append(TaskRun(model, task, src.name, harness, metric=metric_name))
    if aggregates:
        notes.append(
            f"Every Eval Ever: benchuq's own group means set aside ({listing(aggregates)}); "
            "they are recomputed from the tasks."
        )
    if skipped:
        notes.append(
            f"Every Eval Ever: {count(len(skipped), 'result')} without a standard error, a "
            f"confidence interval or a number of items skipped: {listing(skipped)} (give the "
            "task sizes in a task table, or load the instance-level _samples.jsonl)."
        )
    if not names:
        raise DataError(
            "no evaluation result states its uncertainty (standard_error, confidence_interval "
            "or num_samples), so no honest interval can be given"
            + (f" ({listing(skipped)})" if skipped else "")
            + ".",
            file=src.name,
            column="evaluation_results[].score_details.uncertainty",
            hint="load the instance-level <uuid>_samples.jsonl with it, or give the number of "
            f"items per task with {option('tasks')} (a table task, category, n).",
        )
    notes += [f"Every Eval Ever: {m}." for m in methods]
    bench = Benchmark(
        name=name,
        models=(model,),
        tasks=tuple(names),
        categories=tuple(cats),
        kind="estimate_se",
        estimate=np.array([est]),
        se=np.array([se]),
        higher_is_better=np.array(hib),
        notes=tuple(notes),
    )
    return bench, Meta(tuple(runs), (), offered)


def _finite(x: object) -> TypeGuard[int | float]:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _standard_error(
    score: float, unc: dict[str, Any], n: object, config: dict[str, Any]
) -> tuple[float | None, str]:
    """(standard error, how it was found) from a result's uncertainty (module docstring)."""
    sem = _dict(unc.get("standard_error"))
    value = sem.get("value")
    ci = _dict(unc.get("confidence_interval"))
    lower, upper, stated = ci.get("lower"), ci.get("upper"), ci.get("confidence_level")
    if _finite(value) and value >= 0:
        method = f" ({sem['method']})" if sem.get("method") else ""
        if _finite(stated):  # the file's own intervals: named, not used (benchuq draws its own)
            how = f" ({ci['method']})" if ci.get("method") else ""
            method += f"; the file's {stated:g} confidence intervals{how} are not used"
        return float(value), f"standard errors as stated{method}"
    if _finite(lower) and _finite(upper):
        good = _finite(stated) and 0 < stated < 1
        level = float(stated) if good and _finite(stated) else 0.95
        z = float(ndtri((1 + level) / 2))
        method = f", {ci['method']}" if ci.get("method") else ""
        return (
            abs(float(upper) - float(lower)) / (2 * z),
            f"standard errors backed out of {level:g} confidence intervals{method}"
            + ("" if good else " (level not stated; 0.95 assumed)")
            + ", as (upper - lower) / (2 z)",
        )
    top = config.get("max_score", 1.0)
    if _finite(n) and float(n) >= 1 and 0 <= score <= 1 and top in (1, 1.0, None):
        return (
            math.sqrt(score * (1 - score) / float(n)),
            "standard errors sqrt(p(1-p)/n) from the number of items (no uncertainty stated; "
            "the largest possible for a score in [0, 1])",
        )
    return None, ""


# ---- instance level ------------------------------------------------------------------------
def _instances(src: Source, *, name: str) -> tuple[Benchmark, Meta]:
    labels = ("subgroup", "cluster", "category")
    records: list[tuple[object, ...]] = []
    for lineno, rec in json_objects(
        src, hint="an instance-level file has one JSON object per line."
    ):
        for key in ("model_id", "evaluation_name", "sample_id"):
            if rec.get(key) in (None, ""):
                raise DataError(
                    f"record {lineno} has no {key}.",
                    file=src.name,
                    row=lineno,
                    column=key,
                    hint="each record needs model_id, evaluation_name, sample_id and evaluation.",
                )
        ev = _dict(rec.get("evaluation"))
        score = ev.get("score")
        if score is None and isinstance(ev.get("is_correct"), bool):
            score = float(ev["is_correct"])
        if not (_finite(score) or isinstance(score, bool)):
            raise DataError(
                f"the score {str(score)[:40]!r} is not a number.",
                file=src.name,
                row=lineno,
                column="evaluation.score",
                hint="each record needs evaluation.score (a number in 0..1) or is_correct.",
            )
        meta = _dict(rec.get("metadata"))
        records.append(
            (
                str(rec["model_id"]),
                str(rec["evaluation_name"]),
                str(rec["sample_id"]),
                float(score),
                lineno,
                str(rec.get("evaluation_result_id") or ""),
                *(None if meta.get(c) is None else str(meta[c]) for c in labels),
            )
        )
    if not records:
        raise DataError(
            "the instance-level file has no records.",
            file=src.name,
            hint="load a non-empty <uuid>_samples.jsonl.",
        )
    columns = ["model", "task", "item", "score", "row", "result", *labels]
    frame = pd.DataFrame(records, columns=columns)
    # one evaluation scored by several metrics (one record per aggregate result): a task each
    several = frame.groupby(["model", "task"])["result"].transform("nunique") > 1
    frame.loc[several, "task"] = frame["task"] + " [" + frame["result"] + "]"
    frame = frame.drop(columns="result")
    frame["file"] = src.name
    for label in labels:
        if frame[label].isna().all():
            frame = frame.drop(columns=label)
        else:
            frame[label] = frame[label].fillna("all" if label == "category" else "(none)")
    notes: list[str] = []
    keys = ["model", "task", "item"]
    if frame.duplicated(keys).any():  # repeated answers (issue 26): an epoch per record
        notes.append(
            "Every Eval Ever: several records of one sample are its repeated answers: one item "
            "scored by their mean, resampled with all of them (METHODS 2)."
        )
        frame["epoch"] = frame.groupby(keys, sort=False).cumcount() + 1
    bench = items_benchmark(frame, name=name, notes=tuple(notes))
    runs = tuple(
        TaskRun(m, t, src.name, "Every Eval Ever instance-level", metric="evaluation.score")
        for m, t in dict.fromkeys(zip(frame["model"], frame["task"], strict=True))
    )
    return bench, Meta(runs, (), ())

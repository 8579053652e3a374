"""OpenAI evals (``oaieval``) logs: JSON Lines written by its local recorder.

The first line is ``{"spec": {...}}`` (``completion_fns``: the model(s), ``eval_name`` such as
``test-match.s1.simple-v0``, ``base_eval``, ``run_id``); then one event per line
(``run_id``, ``event_id``, ``sample_id``, ``type``, ``data``, ``created_by``, ``created_at``); the
last line is ``{"final_report": {...}}`` (e.g. ``accuracy``).

Item scores: model = the spec's ``completion_fns`` (joined by ``+`` when several), task = its
``eval_name``, item = ``sample_id``; score = ``data.correct`` of the ``match`` events (True 1, False
0), or, with ``metric`` naming a key of ``metrics`` events (e.g. ``score`` of model-graded evals),
that number. Several events of one sample are its repeated answers (issue 26): one
item scored by their mean and resampled with all of them (a note says so); samples with only
``error`` events are left out and counted in a note. The final report's accuracy is compared with
the mean of the answers (a note when they differ).
"""

from __future__ import annotations

import json
import math

import pandas as pd

from benchuq.core.data import Benchmark, DataError
from benchuq.core.options import option
from benchuq.core.reading.items import items_benchmark
from benchuq.core.reading.long import TaskInfo
from benchuq.core.reading.meta import Meta, MissingMetric, TaskRun
from benchuq.core.reading.notes import count
from benchuq.core.reading.table import Source, first_line, json_objects

__all__ = ["KIND", "LABEL", "claims", "read"]

KIND = "oaieval"
LABEL = "an OpenAI evals (oaieval) JSONL log"
MATCH = "match"


def claims(src: Source) -> bool:
    """A JSON Lines file whose first line is ``{"spec": {...}}`` with ``run_id`` in it."""
    line = first_line(src)
    if not line.startswith(b"{") or b'"spec"' not in line[:64]:
        return False
    try:
        obj = json.loads(line)
    except ValueError:
        return False
    return isinstance(obj, dict) and isinstance(obj.get("spec"), dict) and "run_id" in obj["spec"]


def read(
    src: Source, *, metric: str | None, tasks: TaskInfo | None = None, name: str
) -> tuple[Benchmark, Meta]:
    """One oaieval log -> item scores of one model on one eval (see the module docstring)."""
    spec: dict | None = None
    report: dict | None = None
    use_metrics = metric not in (None, "correct", "accuracy", "acc")
    scores: dict[str, list[float]] = {}
    rows: dict[str, int] = {}
    errors: set[str] = set()
    metric_keys: dict[str, None] = {}
    for lineno, obj in json_objects(
        src,
        hint="an oaieval log has one JSON object per line.",
        parse_hint="an oaieval log has one JSON object per line; copy the log again (a run "
        "that was cut short can leave a partial last line: delete it).",
    ):
        if "spec" in obj and lineno == 1:
            spec = obj["spec"] if isinstance(obj["spec"], dict) else None
            continue
        if "final_report" in obj:
            report = obj["final_report"] if isinstance(obj["final_report"], dict) else None
            continue
        kind, data, sample = obj.get("type"), obj.get("data"), obj.get("sample_id")
        if kind is None or sample is None:
            continue
        sample = str(sample)
        rows.setdefault(sample, lineno)
        if kind == "error":
            errors.add(sample)
            continue
        if not isinstance(data, dict):
            continue
        if kind == "metrics":
            metric_keys.update(dict.fromkeys(data))
        if use_metrics and kind == "metrics" and metric in data:
            value = _number(data[metric])
            column = f"data.{metric}"
        elif not use_metrics and kind == MATCH:
            value = _number(data.get("correct"))
            column = "data.correct"
        else:
            continue
        if value is None:
            raise DataError(
                f"the score {str(data.get(column[5:]))[:40]!r} is not a number in 0..1.",
                file=src.name,
                row=lineno,
                column=column,
                hint="oaieval match events carry correct: true/false; pick a numeric key of the "
                f"metrics events with {option('metric', 'KEY')}.",
            )
        scores.setdefault(sample, []).append(value)
    if spec is None:
        raise DataError(
            'the first line is not the run\'s {"spec": ...}.',
            file=src.name,
            row=1,
            column="spec",
            hint="load the log oaieval wrote (--record_path), from its first line.",
        )
    if not scores:
        what = f"metrics events with '{metric}'" if use_metrics else "match events"
        offered = f" (metrics events hold {', '.join(metric_keys)})" if metric_keys else ""
        raise MissingMetric(
            f"the log has no {what}{offered}.",
            file=src.name,
            column="type",
            hint=f"use {option('metric', 'KEY')} for an eval that records metrics events (e.g. "
            f"{option('metric', 'score')}), or check the run finished.",
        )
    fns = spec.get("completion_fns")
    model = "+".join(map(str, fns)) if isinstance(fns, list) and fns else str(fns or "model")
    task = str(spec.get("eval_name") or spec.get("base_eval") or "eval")
    notes: list[str] = []
    if any(len(v) > 1 for v in scores.values()):
        notes.append(
            "oaieval: several events of one sample are its repeated answers: one item scored by "
            "their mean, resampled with all of them (METHODS 2)."
        )
    failed = errors - scores.keys()
    if failed:
        notes.append(f"oaieval: {count(len(failed), 'sample')} with only error events left out.")
    items = [s for s, v in scores.items() for _ in v]  # one record per answer (epochs)
    frame = pd.DataFrame(
        {
            "model": model,
            "task": task,
            "item": items,
            "score": [x for v in scores.values() for x in v],
            "epoch": [k + 1 for v in scores.values() for k in range(len(v))],
            "row": [rows[s] for s in items],
            "file": src.name,
        }
    )
    accuracy = _number((report or {}).get("accuracy"))
    if not use_metrics and accuracy is not None:
        mean = float(frame["score"].mean())
        if abs(mean - accuracy) > 1e-9:
            notes.append(
                f"oaieval: the final report's accuracy {accuracy:.4f} differs from the mean of "
                f"the item scores {mean:.4f} (the items are used)."
            )
    elif report is None:
        notes.append("oaieval: the log has no final_report (the run may not have finished).")
    bench = items_benchmark(frame, name=name, notes=tuple(notes))
    run = TaskRun(
        model,
        task,
        src.name,
        "openai/evals",
        version=str(spec.get("base_eval") or ""),
        metric=str(metric) if use_metrics else "correct",
    )
    return bench, Meta((run,), (), ("correct", *metric_keys))


def _number(x: object) -> float | None:
    """A score in 0..1 (booleans as 0/1), else ``None``."""
    if isinstance(x, bool):
        return float(x)
    if isinstance(x, int | float) and math.isfinite(x) and 0 <= x <= 1:
        return float(x)
    return None

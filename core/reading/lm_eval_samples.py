"""lm-eval ``--log_samples`` files: one model's item scores on one task.

``samples_<task>_<timestamp>.jsonl`` (v0.4) or the 2023 ``<model_args>_<task>.jsonl`` (names:
:mod:`.lm_eval_names`): item = ``doc_id``, score = the metric field (the asked metric, else the
first of acc, acc_norm, exact_match, em, pass@1, else one the record lists under ``metrics``; a
note says which); with several filters (e.g. strict-match and flexible-extract) the first
filter's records are read and the others left out with a note. ``resps``/``arguments`` (whose
layout drifted between versions) are not read.
"""

from __future__ import annotations

import json

import pandas as pd

from benchuq.core.data import Benchmark, DataError
from benchuq.core.reading.items import items_benchmark
from benchuq.core.reading.lm_eval import number
from benchuq.core.reading.lm_eval_names import sample_file_names, sample_name_note
from benchuq.core.reading.meta import Meta, TaskRun
from benchuq.core.reading.table import Source, text_lines

__all__ = ["read_samples"]

PREFERRED_SAMPLE_METRICS = ("acc", "acc_norm", "exact_match", "em", "pass@1")


def read_samples(
    src: Source,
    *,
    metric: str = "acc",
    model: str | None = None,
    known_tasks: tuple[str, ...] = (),
) -> tuple[Benchmark, Meta]:
    """One sample file as item scores of one model and task (names: :mod:`.lm_eval_names`;
    ``model`` from a results file next to it wins over the file name)."""
    base = src.name.rsplit("/", 1)[-1]
    from_name, task = sample_file_names(base, known_tasks=known_tasks)
    source = "results" if model else "file" if from_name else "folder" if "/" in src.name else ""
    model = model or from_name or _folder_model(src.name)
    docs, scores, lines, notes = [], [], [], []
    if note := sample_name_note(model, source or "default"):
        notes.append(note)
    used: str | None = None
    metrics_seen: list[str] = []
    other_filters = 0
    filt_first: str | None = None
    for lineno, line in text_lines(src):  # one line at a time (samples files can be large)
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as err:
            raise DataError(
                f"line {lineno} is not valid JSON ({err.msg}).",
                file=src.name,
                row=lineno,
                hint="each line of a samples file must be one JSON object.",
            ) from None
        if not isinstance(rec, dict) or "doc_id" not in rec:
            raise DataError(
                f"line {lineno} is not an lm-eval sample record (no 'doc_id').",
                file=src.name,
                row=lineno,
                column="doc_id",
                hint="choose a samples_<task>_<time>.jsonl file written by lm_eval --log_samples.",
            )
        filt = rec.get("filter")
        if filt is not None:
            filt_first = filt_first or str(filt)
            if str(filt) != filt_first:
                other_filters += 1
                continue
        if used is None:
            metrics_seen = _sample_metrics(rec, metric)
            used = next(iter(metrics_seen), None)
            if used is None:
                raise DataError(
                    f"line {lineno} has no numeric metric field (looked for '{metric}').",
                    file=src.name,
                    row=lineno,
                    column=metric,
                    hint="choose the metric the task logs per item (e.g. acc or exact_match).",
                )
        v = rec.get(used)
        x = number(float(v)) if isinstance(v, str) and _is_number(v) else number(v)
        if isinstance(v, bool):
            x = float(v)
        if x is None:
            raise DataError(
                f"line {lineno}: '{used}' is {str(v)[:40]!r}, not a number.",
                file=src.name,
                row=lineno,
                column=used,
                hint="every sample needs a numeric score for the chosen metric.",
            )
        docs.append(str(rec["doc_id"]))
        scores.append(x)
        lines.append(lineno)
    if not docs or used is None:
        raise DataError(
            "the samples file has no records.",
            file=src.name,
            hint="choose a non-empty samples_<task>_<time>.jsonl file.",
        )
    if other_filters:
        notes.append(
            f"used the records of filter '{filt_first}'; {other_filters} records of other "
            "filters were left out."
        )
    if used != metric:
        notes.append(f"no '{metric}' per sample; used '{used}'.")
    frame = pd.DataFrame(
        {
            "model": model,
            "task": task,
            "item": docs,
            "score": scores,
            "row": lines,
            "file": src.name,
        }
    )
    bench = items_benchmark(frame, name=task, notes=tuple(notes))
    metric_used = used if filt_first in (None, "none") else f"{used},{filt_first}"
    run = TaskRun(model, task, src.name, "lm-eval --log_samples", metric=metric_used)
    return bench, Meta(runs=(run,), metrics=tuple(dict.fromkeys((used, *metrics_seen))))


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def _sample_metrics(rec: dict, metric: str) -> list[str]:
    """Numeric metric fields of a sample record: ``metric``, the usual ones, those it lists."""

    def numeric(k: str) -> bool:
        v = rec.get(k)
        return isinstance(v, int | float) or (isinstance(v, str) and _is_number(v))

    listed = m if isinstance(m := rec.get("metrics"), list) else []
    names = dict.fromkeys(str(k) for k in (metric, *PREFERRED_SAMPLE_METRICS, *listed))
    return [k for k in names if numeric(k)]


def _folder_model(name: str) -> str:
    parts = name.split("/")
    return parts[-2].replace("__", "/") if len(parts) > 1 else "model"

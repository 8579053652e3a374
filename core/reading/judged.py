"""Judged evaluations: AlpacaEval annotations and leaderboards, inspect_ai eval logs.

AlpacaEval (CSV as extracted from annotations.json, or annotations.json itself): one task
``"alpaca_eval"``; item = ``instruction_index`` (CSV) or the instruction text (JSON, whose list
position shifts when a model lacks instructions); score = ``preference - 1`` (the win share against
the baseline ``generator_1``); subgroup = the instruction's source ``dataset``; model =
``generator_2``. Annotations without a preference (failed judgements) are left out with a note.
A leaderboard CSV (``win_rate``, ``standard_error`` in percent) loads as estimates with standard
errors of the one task.

inspect_ai logs (JSON): model = ``eval.model``, task = ``eval.task``, item = sample ``id``; score
values C/I/P/N -> 1/0/0.5/0, numbers and booleans as they are; the first scorer is used (a note
names it when there are several); several epochs of one sample are averaged; a status other than
``success`` is reported in the notes. A log is read a value at a time (:func:`table.pruned_json`):
of each sample only its ``id`` and its scorers' ``value`` are kept; its messages, events and the
rest are skipped without being built.
"""

from __future__ import annotations

from typing import Any, TypeGuard

import numpy as np
import pandas as pd

from benchuq.core.data import Benchmark, DataError
from benchuq.core.reading.items import items_benchmark
from benchuq.core.reading.table import (
    ROW_NOTE,
    Shape,
    Source,
    Table,
    number_column,
    parse_json,
    pruned_json,
    require_columns,
    text_column,
)

__all__ = [
    "ALPACA_COLUMNS",
    "ALPACA_TASK",
    "INSPECT_VALUES",
    "alpaca_benchmark",
    "alpaca_leaderboard_benchmark",
    "inspect_benchmark",
    "is_alpaca",
    "is_alpaca_leaderboard",
    "is_inspect",
    "is_inspect_log",
]

ALPACA_TASK = "alpaca_eval"
ALPACA_COLUMNS = ("generator_2", "preference")
INSPECT_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
#: What inspect_benchmark reads of a log, and what classify reads to recognise one.
INSPECT_LOG: dict[str, Shape] = {
    "eval": {"model": "value", "task": "value"},
    "status": "value",
    "samples": [{"id": "value", "scores": {"*": {"value": "value"}}}],
}
INSPECT_HEAD: dict[str, Shape] = {"eval": {}, "status": "value"}


def is_alpaca(columns: set[str]) -> bool:
    """Whether a table has the columns of AlpacaEval annotations."""
    return set(ALPACA_COLUMNS) <= columns


def is_alpaca_leaderboard(columns: set[str]) -> bool:
    """Whether a table is an AlpacaEval leaderboard (``win_rate``, ``standard_error``)."""
    return {"win_rate", "standard_error"} <= columns


def alpaca_benchmark(table: Table, *, name: str) -> Benchmark:
    """AlpacaEval annotations -> item scores (see the module docstring)."""
    require_columns(
        table,
        ALPACA_COLUMNS,
        columns_hint="AlpacaEval annotations need generator_2 and preference (and dataset, "
        "instruction_index or instruction).",
        rows_hint="add one row per annotation below the header.",
    )
    cols = set(table.frame.columns)
    notes = []
    pref = number_column(table, "preference", allow_missing=True)
    keep = ~np.isnan(pref)
    if not keep.all():
        notes.append(
            f"{table.name}: {int((~keep).sum())} annotations without a preference left out."
        )
    bad = np.flatnonzero(keep & ((pref < 1) | (pref > 2)))
    if bad.size:
        raise DataError(
            f"preference {pref[bad[0]]:g} is outside 1..2 {ROW_NOTE}.",
            file=table.name,
            row=table.row(bad[0]),
            column="preference",
            hint="AlpacaEval preferences are 1 (baseline wins) to 2 (model wins).",
        )
    if "instruction_index" in cols:
        item_col = "instruction_index"
    elif "instruction" in cols:
        item_col = "instruction"
    else:
        raise DataError(
            "no instruction_index or instruction column to identify the items.",
            file=table.name,
            column="instruction_index",
            hint="keep the instruction (or its index) with each annotation.",
        )
    frame = pd.DataFrame(
        {
            "model": text_column(table, "generator_2"),
            "task": ALPACA_TASK,
            "item": text_column(table, item_col),
            "score": pref - 1,
            "row": table.rows(),
            "file": table.name,
        }
    )
    if "dataset" in cols:
        frame["subgroup"] = text_column(table, "dataset")
    frame = frame[keep].reset_index(drop=True)
    if frame.empty:
        raise DataError("no annotation has a preference.", file=table.name, column="preference")
    notes.append("AlpacaEval: score = preference - 1 (win share against the baseline).")
    return items_benchmark(frame, name=name, notes=tuple(notes))


def alpaca_leaderboard_benchmark(table: Table, *, name: str) -> Benchmark:
    """A leaderboard CSV (model names in the first column) -> estimate_se of one task."""
    frame = table.frame
    model_col = "model" if "model" in frame.columns else frame.columns[0]
    t = Table(table.name, frame.rename(columns={model_col: "model"}), table.first_row)
    models = text_column(t, "model")
    win = number_column(t, "win_rate") / 100
    se = number_column(t, "standard_error") / 100
    return Benchmark(
        name=name,
        models=tuple(models),
        tasks=(ALPACA_TASK,),
        categories=("all",),
        kind="estimate_se",
        estimate=win[:, None],
        se=se[:, None],
        notes=("AlpacaEval leaderboard: win_rate and standard_error (percent) / 100.",),
    )


def is_inspect(obj: object) -> TypeGuard[dict[str, Any]]:
    """Whether a parsed JSON value is an inspect_ai eval log (``eval`` and ``status``)."""
    return isinstance(obj, dict) and isinstance(obj.get("eval"), dict) and "status" in obj


def is_inspect_log(src: Source) -> bool:
    """Whether a file is an inspect_ai eval log, read without building its samples (``False``
    for a file :func:`table.pruned_json` cannot read: parsed whole, it words the error)."""
    return is_inspect(pruned_json(src, INSPECT_HEAD))


def inspect_benchmark(src: Source, *, metric: str | None = None) -> Benchmark:
    """An inspect_ai eval log -> item scores of one model and task."""
    obj: object = pruned_json(src, INSPECT_LOG)
    obj = parse_json(src) if obj is None else obj  # not an object, or malformed: worded there
    if not is_inspect(obj):
        raise DataError(
            "not an inspect_ai eval log (no 'eval' and 'status').",
            file=src.name,
            hint="export the log as JSON (inspect log convert --to json) or pick another format.",
        )
    ev = obj["eval"]
    model, task = str(ev.get("model") or "model"), str(ev.get("task") or "task")
    notes = []
    if obj.get("status") != "success":
        notes.append(f"the eval's status is '{obj.get('status')}', not 'success'.")
    samples = obj.get("samples")
    if not isinstance(samples, list) or not samples:
        raise DataError(
            "the log holds no samples.",
            file=src.name,
            column="samples",
            hint="run the eval with log_samples=True (the default).",
        )
    scorer = None
    items, scores, rows = [], [], []
    for i, s in enumerate(samples):
        sc = s.get("scores") if isinstance(s, dict) else None
        if not isinstance(sc, dict) or not sc:
            raise DataError(
                f"sample {i + 1} has no scores.",
                file=src.name,
                row=i + 1,
                column="scores",
                hint="score the eval before loading it (inspect score).",
            )
        if scorer is None:
            scorer = metric if metric in sc else next(iter(sc))
            if len(sc) > 1:
                notes.append(f"used scorer '{scorer}' of {sorted(sc)}.")
        entry = sc.get(scorer)
        value = entry.get("value") if isinstance(entry, dict) else None
        x = _inspect_value(value)
        if x is None:
            raise DataError(
                f"sample {i + 1}: score {str(value)[:40]!r} is not C/I/P/N or a number in 0..1.",
                file=src.name,
                row=i + 1,
                column=f"scores.{scorer}.value",
                hint="use a scorer with accuracy-style values.",
            )
        items.append(str(s.get("id", i + 1)))
        scores.append(x)
        rows.append(i + 1)
    frame = pd.DataFrame(
        {
            "model": model,
            "task": task,
            "item": items,
            "score": scores,
            "row": rows,
            "file": src.name,
        }
    )
    if frame["item"].duplicated().any():
        notes.append("scores of several epochs averaged per sample.")
        frame = frame.groupby("item", sort=False, as_index=False).agg(
            model=("model", "first"),
            task=("task", "first"),
            score=("score", "mean"),
            row=("row", "first"),
            file=("file", "first"),
        )
    return items_benchmark(frame, name=task, notes=tuple(notes))


def _inspect_value(v: object) -> float | None:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, str):
        return INSPECT_VALUES.get(v.strip().upper())
    if isinstance(v, int | float) and 0 <= v <= 1:  # NaN fails the comparison; 10**400 too
        return float(v)
    return None

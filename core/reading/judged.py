"""Judged evaluations: AlpacaEval annotations and leaderboards (inspect_ai: :mod:`.inspect_log`).

AlpacaEval (CSV as extracted from annotations.json, or annotations.json itself): one task
``"alpaca_eval"``; item = ``instruction_index`` (CSV) or the instruction text (JSON, whose list
position shifts when a model lacks instructions); score = ``preference - 1`` (the win share against
the baseline ``generator_1``); subgroup = the instruction's source ``dataset``; model =
``generator_2``. Annotations without a preference (failed judgements) are left out with a note.
A leaderboard CSV (``win_rate``, ``standard_error`` in percent) loads as estimates with standard
errors of the one task.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchuq.core.data import Benchmark, DataError
from benchuq.core.reading.items import items_benchmark
from benchuq.core.reading.table import ROW_NOTE, Table, number_column, require_columns, text_column

__all__ = [
    "ALPACA_COLUMNS",
    "ALPACA_TASK",
    "alpaca_benchmark",
    "alpaca_leaderboard_benchmark",
    "is_alpaca",
    "is_alpaca_leaderboard",
]

ALPACA_TASK = "alpaca_eval"
ALPACA_COLUMNS = ("generator_2", "preference")


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

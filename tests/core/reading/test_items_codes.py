"""Item records as narrow codes (issue 32): int8 codes for a few names, dictionaries as read
merged without counting one-name row groups, unused categories dropped in any layout, columns
equal to the item codes when names come task by task; always the benchmark the pandas path
(JSON records) reads, and the same duplicate errors with more columns than int8 holds."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchuq.core.data import Benchmark, DataError
from benchuq.core.reading import load_files
from benchuq.core.reading.arrow import ArrowTable, ParquetColumns
from benchuq.core.reading.items import code_type, item_records


def _frame(models: int, items: int, tasks: int, seed: int) -> pd.DataFrame:
    """Every model on every item, model by model; item ``k`` in task ``k % tasks`` (names not
    first seen task by task) or ``k * tasks // items`` (task by task)."""
    rng = np.random.default_rng(seed)
    rows = [
        (f"m{m}", f"t{k % tasks}", f"q{k}", float(rng.random() < 0.5))
        for m in range(models)
        for k in range(items)
    ]
    return pd.DataFrame(rows, columns=["model", "task", "item", "score"])


def _json(frame: pd.DataFrame) -> Benchmark:
    return load_files([("x.json", frame.to_json(orient="records").encode())], name="x")


def _parquet(table: pa.Table, rows_per_group: int) -> Benchmark:
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=rows_per_group)
    return load_files([("x.parquet", buf.getvalue())], name="x")


def _same(a: Benchmark, b: Benchmark) -> None:
    assert (a.models, a.tasks, a.categories) == (b.models, b.tasks, b.categories)
    assert a.content_hash == b.content_hash
    for x, y in zip(a.item_tasks, b.item_tasks, strict=True):
        assert list(x.items) == list(y.items)


def test_code_type_is_the_narrowest_signed_type_holding_every_code() -> None:
    assert [code_type(n).name for n in (0, 128, 129, 2**15, 2**15 + 1)] == [
        "int8",
        "int8",
        "int16",
        "int16",
        "int32",
    ]
    names = ["m0", "m1", "m2"]
    table = pa.table(
        {
            "model": pa.array(names * 100).dictionary_encode(),
            "task": ["t"] * 300,
            "item": [f"q{k // 3}" for k in range(300)],
            "score": pa.array(np.arange(300) % 2, pa.int8()),
        }
    )
    rec = item_records(ArrowTable("x.parquet", {c: c for c in table.column_names}, 2, False, table))
    assert (rec.model.codes.dtype, rec.task.codes.dtype, rec.item.codes.dtype) == (
        np.int8,
        np.int8,
        np.int8,
    )
    assert rec.model.codes[:4].tolist() == [0, 1, 2, 0] and rec.model.names.to_pylist() == names


@pytest.mark.parametrize("by_task", [True, False])
def test_parquet_row_groups_of_one_model_read_as_json_records(by_task: bool) -> None:
    """A row group per model and task (each dictionary holds one model and one task name),
    items first seen task by task or not: the columns and their order are the pandas path's."""
    frame = _frame(models=12, items=300, tasks=3, seed=1)
    if by_task:
        frame = frame.sort_values(["model", "task"], kind="stable", ignore_index=True)
    got = _parquet(pa.Table.from_pandas(frame, preserve_index=False), rows_per_group=100)
    _same(got, _json(frame))


def test_unused_categories_are_dropped_in_row_groups_of_several_and_of_one_name() -> None:
    """Categoricals with unused categories (one a stripped duplicate, " m1"): row groups of
    one model and, interleaved, of several models give the pandas path's models and tasks."""
    frame = _frame(models=4, items=40, tasks=2, seed=2)
    for rows in (40, 7):
        for order in (["model"], ["item", "model"]):
            part = frame.sort_values(order, kind="stable", ignore_index=True)
            cats = {
                "model": ["zz", "m0", " m1", "m1", "m2", "yy", "m3"],
                "task": ["t9", "t0", "t1"],
            }
            table = pa.Table.from_pandas(
                part.assign(**{c: pd.Categorical(part[c], categories=v) for c, v in cats.items()}),
                preserve_index=False,
            )
            _same(_parquet(table, rows_per_group=rows), _json(part))


def test_a_duplicate_past_int8_columns_names_its_rows() -> None:
    """100 columns of 10 models in int8 codes (column x models overflows int8): the duplicate's
    error names the model, task, item and both rows, as the pandas path does."""
    frame = _frame(models=10, items=100, tasks=1, seed=3)
    frame = pd.concat([frame, frame.iloc[[999]]], ignore_index=True)
    said = []
    for read in (lambda: _parquet(pa.Table.from_pandas(frame), 300), lambda: _json(frame)):
        with pytest.raises(DataError, match="model 'm9', task 't0', item 'q99'") as err:
            read()
        said.append(str(err.value))
    assert "rows [1001, 1002]" in said[0] and "rows [1000, 1001]" in said[1]  # JSON: no header


def test_records_in_reverse_read_in_the_order_of_first_appearance() -> None:
    """Models and tasks in the order of first appearance, items within a task too."""
    frame = _frame(models=3, items=50, tasks=5, seed=4).iloc[::-1].reset_index(drop=True)
    got = _parquet(pa.Table.from_pandas(frame, preserve_index=False), rows_per_group=16)
    assert got.models == ("m2", "m1", "m0") and got.tasks[0] == "t4"
    assert list(got.item_tasks[0].items)[:2] == ["q49", "q44"]
    _same(got, _json(frame))


def test_parquet_row_groups_stored_alike_are_decoded_once_and_read_the_same() -> None:
    """Per-model row groups listing the same items share one decoded array; a row group of the
    same size and count but another item in the middle (model m2) is decoded on its own. The
    column, and the benchmark, equal a plain read and the pandas path."""
    frame = _frame(models=4, items=60, tasks=2, seed=5)
    frame.loc[(frame.model == "m2") & (frame["item"] == "q30"), "item"] = "q99"
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buf, row_group_size=60)
    data = buf.getvalue()
    columns = ParquetColumns(data, ("model", "task"), pq.read_metadata(pa.BufferReader(data)))
    assert columns._repeats("item") == [0, 0, 2, 0]
    assert columns._repeats("score") is None and columns._repeats("absent") is None
    got = columns.read("item")
    assert got.equals(pq.read_table(pa.BufferReader(data), columns=["item"]).column(0))
    assert len({c.buffers()[2].address for c in got.chunks}) == 2
    _same(load_files([("x.parquet", data)], name="x"), _json(frame))

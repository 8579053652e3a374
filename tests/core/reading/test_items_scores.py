"""Item scores keep the type every shard stores them as (issue 32): the same benchmark as float64
scores, the same errors, for int8, float32, bool and mixed shards (Parquet, CSV)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchuq.core.data import DataError
from benchuq.core.reading import load_path
from benchuq.core.reading.arrow import ArrowTable, ParquetColumns
from benchuq.core.reading.items import item_records


def _table(scores: pa.Array, rng: np.random.Generator) -> pa.Table:
    n = len(scores)
    return pa.table(
        {
            "model": pa.array([f"m{k % 3}" for k in range(n)]),
            "task": pa.array([f"t{k // 30}" for k in range(n)]),
            "item": pa.array([f"q{k // 3}" for k in range(n)]),
            "score": scores,
        }
    )


def _write(table: pa.Table, path: Path) -> Path:
    pq.write_table(table, path, row_group_size=16)
    return path


@pytest.mark.parametrize("kind", [pa.int8(), pa.int64(), pa.bool_(), pa.float32(), pa.float64()])
def test_binary_scores_read_alike_in_every_type(tmp_path: Path, kind: pa.DataType) -> None:
    rng = np.random.default_rng(3)
    bits = rng.random(90) < 0.6
    want = load_path(
        _write(_table(pa.array(bits.astype(float)), rng), tmp_path / "f.parquet"), name="x"
    )
    got = load_path(
        _write(_table(pa.array(bits).cast(kind), rng), tmp_path / "k.parquet"), name="x"
    )
    assert got.content_hash == want.content_hash
    assert np.array_equal(got.correct, want.correct)


def test_continuous_float32_scores_are_exact(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    x = rng.random(90).astype(np.float32)
    want = load_path(
        _write(_table(pa.array(x.astype(np.float64)), rng), tmp_path / "a.parquet"), name="x"
    )
    got = load_path(_write(_table(pa.array(x), rng), tmp_path / "b.parquet"), name="x")
    assert got.content_hash == want.content_hash


def test_records_keep_the_stored_type_and_mixed_shards_become_float64(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    whole = _table(pa.array((rng.random(90) < 0.5).astype(np.int8)), rng)

    def shard(table: pa.Table, name: str) -> ArrowTable:
        data = _write(table, tmp_path / name).read_bytes()
        meta = pq.read_metadata(pa.BufferReader(data))
        columns = {c: c for c in ("model", "task", "item", "score")}
        return ArrowTable(name, columns, 2, False, ParquetColumns(data, ("model",), meta))

    a, b = whole.slice(0, 45), whole.slice(45)
    same = item_records([shard(a, "a.parquet"), shard(b, "b.parquet")])
    assert same.score.dtype == np.int8
    b32 = b.set_column(3, "score", b.column("score").cast(pa.float32()))
    mixed = item_records([shard(a, "a.parquet"), shard(b32, "c.parquet")])
    assert mixed.score.dtype == np.float64
    assert np.array_equal(mixed.score, same.score)
    folder = tmp_path / "shards"
    folder.mkdir()
    _write(a, folder / "a.parquet")
    _write(b32, folder / "b.parquet")
    whole_file = _write(whole, tmp_path / "w.parquet")
    assert load_path(folder, name="x").content_hash == load_path(whole_file, name="x").content_hash


def test_a_null_integer_score_and_a_later_nan_name_the_first_row(tmp_path: Path) -> None:
    """A null in an integer Parquet shard is not a finite number, at its row; when another shard
    holds an earlier NaN, that row is named (records in file order)."""
    rng = np.random.default_rng(6)
    bits = (rng.random(90) < 0.5).astype(np.int8)
    ints = pa.array(bits, mask=np.arange(90) == 70)
    with pytest.raises(DataError, match=r"'nan' is not a finite number") as err:
        load_path(_write(_table(ints, rng), tmp_path / "n.parquet"), name="x")
    assert (err.value.row, err.value.column) == (72, "score")
    folder = tmp_path / "shards"
    folder.mkdir()
    floats = np.where(np.arange(90) == 80, np.inf, bits).astype(np.float64)
    _write(_table(pa.array(floats), rng), folder / "a.parquet")
    _write(
        _table(ints, rng).set_column(0, "model", pa.array([f"x{k % 3}" for k in range(90)])),
        folder / "b.parquet",
    )
    with pytest.raises(DataError, match=r"'inf' is not a finite number") as err:
        load_path(folder)
    assert (err.value.file, err.value.row) == ("a.parquet", 82)

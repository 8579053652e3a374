"""Backends for long binary item tables too large for, or beside, the in-memory path (issue 18).

- ``memory`` (default): :func:`benchuq.core.reading.load_path`, then the paired bootstrap;
- ``duckdb``: embedded DuckDB aggregates Parquet shards on disk to item patterns per task
  (:mod:`.duckdb_backend`), and the bootstrap runs from those counts: the same draws as the
  in-memory path for the same data and seed, in bounded memory;
- ``dask``: a dask.distributed cluster counts the item patterns of fixed hash buckets of items;
  the counts are summed over buckets and the bootstrap runs from them (:mod:`.dask_backend`):
  the in-memory draws, for any number of workers.

:func:`open_data` gives a :class:`Source` (the task-level :class:`Benchmark` and a ``draws``
function); :func:`choose_backend` picks ``duckdb`` when the rows would not fit in memory.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from benchuq.core.data import Benchmark, DataError
from benchuq.core.draws import Draws
from benchuq.core.options import option
from benchuq.core.reading.sources import parse_source

__all__ = [
    "BACKENDS",
    "BYTES_PER_ROW",
    "Backend",
    "DataSource",
    "choose_backend",
    "counts_benchmark",
    "open_data",
    "parquet_files",
]

Backend = Literal["memory", "duckdb", "dask"]
BACKENDS: tuple[str, ...] = ("memory", "duckdb", "dask")
#: Peak bytes per item row of the in-memory path (Arrow read, codes, scores; measured with
#: benchmarks/bench_scale.py: 44 at 10^8 rows); the data "would not fit" above half the free
#: memory.
BYTES_PER_ROW = 60


@dataclass(frozen=True)
class DataSource:
    """Data opened by an out-of-core backend: the per-task counts and how to make draws."""

    bench: Benchmark
    draws: Callable[[int, int], Draws]  # (reps, seed) -> Draws


def parquet_files(data: str | Path) -> list[Path]:
    """The Parquet files of a file, a folder (recursively, hidden files skipped) or a glob."""
    p = Path(data)
    if p.is_dir():
        files = sorted(
            f
            for f in p.rglob("*")
            if f.is_file()
            and f.suffix.lower() in (".parquet", ".pq")
            and not any(x.startswith(".") for x in f.relative_to(p).parts)
        )
    elif p.is_file():
        files = [p]
    else:
        files = sorted(Path(f) for f in glob.glob(str(data), recursive=True) if Path(f).is_file())
    if not files:
        raise DataError("no Parquet files found.", file=str(data), hint="check the path.")
    other = [f for f in files if f.suffix.lower() not in (".parquet", ".pq")]
    if other:
        raise DataError(
            "the out-of-core backends read Parquet shards only.",
            file=other[0].name,
            hint="convert it once, e.g. duckdb -c \"COPY (FROM 'x.csv') TO 'x.parquet'\", or "
            f"use {option('backend', 'memory')}.",
        )
    return files


def _rows(data: str) -> int | None:
    """Rows of a Parquet file/folder/glob from its footers (``None``: not Parquet)."""
    import pyarrow.parquet as pq

    try:
        return sum(pq.ParquetFile(f).metadata.num_rows for f in parquet_files(data))
    except (DataError, OSError, ValueError):
        return None


def _free_memory() -> int:
    """Available memory in bytes (Linux ``MemAvailable``; else total physical memory)."""
    try:
        text = Path("/proc/meminfo").read_text()
        return int(re.search(r"MemAvailable:\s+(\d+) kB", text).group(1)) * 1024  # type: ignore[union-attr]
    except (OSError, AttributeError):
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def choose_backend(data: str, *, backend: str | None = None) -> str:
    """``backend`` if given; else ``duckdb`` when ``data`` (Parquet) holds more rows than half
    the free memory takes at :data:`BYTES_PER_ROW`, else ``memory``."""
    if backend is not None:
        if backend not in BACKENDS:
            raise DataError(f"unknown backend '{backend}'.", hint=f"choose one of {BACKENDS}.")
        return backend
    if parse_source(data).kind == "sample":
        return "memory"
    rows = _rows(data)
    return "duckdb" if rows is not None and rows * BYTES_PER_ROW > _free_memory() / 2 else "memory"


def open_data(
    data: str,
    backend: str,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    memory_limit: str | None = None,
) -> DataSource:
    """Open ``data`` (Parquet item shards) with an out-of-core ``backend``."""
    if backend == "duckdb":
        from benchuq.core.reading.backends.duckdb_backend import open_duckdb

        return open_duckdb(parquet_files(data), memory_limit=memory_limit)
    if backend == "dask":
        from benchuq.core.reading.backends.dask_backend import open_dask

        return open_dask(parquet_files(data), workers=workers, scheduler=scheduler)
    raise DataError(f"backend '{backend}' does not open data itself; use load_path.")


def counts_benchmark(
    files: Sequence[Path],
    models: Sequence[str],
    tasks: Sequence[str],
    categories: Sequence[str],
    n: np.ndarray,
    k: np.ndarray,
    note: str,
) -> Benchmark:
    """The task-level :class:`Benchmark` of aggregated item shards: ``n`` answered and ``k``
    correct ``(M, T)`` (a task a model never answered is missing), named after the shards'
    folder, with the backend's ``note``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = np.where(n > 0, k / np.maximum(n, 1), np.nan)
    return Benchmark(
        name=files[0].parent.name or "data",
        models=tuple(models),
        tasks=tuple(tasks),
        categories=tuple(categories),
        kind="counts",
        estimate=estimate,
        n=np.where(n > 0, n, 1),
        correct=k,
        notes=(note,),
    )

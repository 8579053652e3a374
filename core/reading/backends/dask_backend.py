"""Past one machine: a dask.distributed backend for Parquet item shards (binary scores).

Work runs where the data live, on the cluster's workers (the files must be readable there):

1. per shard file: the number of scores and their sum per (model, task), with the same checks as
   the other backends;
2. per shard file: every record goes to one of :data:`BUCKETS` buckets by a hash of its task and
   item name, and the records of an item are summed into its pattern words (2 bits a model in
   name order: 0 missing, 1 wrong, 2 right);
3. per bucket: the items' patterns (an item split over several shards is put together here) and
   the number of items of each distinct (task, pattern);
4. on the client: the buckets' counts of each (task, pattern) summed (exact whole numbers, in
   no particular order), and the item-level paired draws made from them by
   :func:`~benchuq.core.methods.bootstrap.pattern_bootstrap` (METHODS 2: Dirichlet weights per
   pattern, float64 products through BLAS), as the DuckDB backend does.

The draws depend only on the patterns' counts and the seed, never on the buckets, the workers or
the order results arrive in: bit-identical for any number of workers and equal to the in-memory
path's draws of the same items. The cluster is closed once the counts are in; Dask's own
scheduler does the scheduling.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from benchuq.core.data import MISSING, DataError
from benchuq.core.draws import Draws
from benchuq.core.reading.backends import DataSource, counts_benchmark

if TYPE_CHECKING:  # distributed is imported only when the backend runs
    from distributed import Client, LocalCluster

__all__ = ["BUCKETS", "open_dask"]

BUCKETS = 64  # fixed partition of the items: the same whatever the number of workers
PER_WORD = 32  # models per 64-bit pattern word


def _read(file: Path) -> pd.DataFrame:
    """model, task (trimmed text), item (text), score of one shard."""
    table = pq.read_table(file)
    names = {c.strip().lower(): c for c in table.column_names}
    missing = [c for c in ("model", "task", "item", "score") if c not in names]
    if missing:
        raise DataError(
            f"missing column '{missing[0]}'.",
            file=file.name,
            column=missing[0],
            hint="item shards need the columns model, task, item, score.",
        )
    out = {}
    for c in ("model", "task", "item"):
        col = table.column(names[c]).cast(pa.string())
        out[c] = pc.utf8_trim_whitespace(col).to_pandas() if c != "item" else col.to_pandas()
    out["score"] = table.column(names["score"]).cast(pa.float64()).to_pandas()
    return pd.DataFrame(out)


def shard_stats(file: Path) -> pd.DataFrame:
    """Step 1: per (model, task) the number of scores ``n`` and their sum ``k``; bad values raise
    a :class:`DataError` naming the shard and row."""
    frame = _read(file)
    names = frame[["model", "task", "item"]]
    score = frame["score"].to_numpy()
    for bad, column, message in (
        (
            names.isna().any(axis=1).to_numpy() | (names == "").any(axis=1).to_numpy(),
            "model",
            "a model, task or item name is empty",
        ),
        (~np.isfinite(score), "score", "the score is missing or not a finite number"),
        (
            (score != 0) & (score != 1),
            "score",
            "the out-of-core backends read binary (0/1) scores; this one is not 0 or 1",
        ),
    ):
        if bad.any():
            raise DataError(
                message + ".",
                file=file.name,
                row=int(np.flatnonzero(bad)[0]) + 2,
                column=column,
                hint="fix the value or use --backend memory.",
            )
    return frame.groupby(["model", "task"], sort=False)["score"].agg(n="size", k="sum")


def shard_buckets(
    file: Path, models: Sequence[str], tasks: Sequence[str], buckets: int = BUCKETS
) -> list[pd.DataFrame]:
    """Step 2: the shard's items as (task, item hash, rows, pattern words), one frame a bucket."""
    frame = _read(file)
    p = pd.Index(models).get_indexer(frame["model"])
    t = pd.Index(tasks).get_indexer(frame["task"])
    h = pd.util.hash_array(frame["item"].to_numpy(object)).astype(np.uint64)
    code = frame["score"].to_numpy().astype(np.uint64) + np.uint64(1)  # 1 wrong, 2 right
    W = -(-len(models) // PER_WORD)
    cols = {"task": t, "item": h, "rows": np.ones(len(frame), np.int64)}
    for w in range(W):
        inside = (p // PER_WORD) == w
        shift = (2 * (p % PER_WORD)).astype(np.uint64)
        cols[f"w{w}"] = np.where(inside, code << shift, np.uint64(0))
    items = pd.DataFrame(cols).groupby(["task", "item"], sort=False, as_index=False).sum()
    bucket = (items["item"].to_numpy() + items["task"].to_numpy().astype(np.uint64)) % np.uint64(
        buckets
    )
    return [items[bucket == b] for b in range(buckets)]


def _fields(words: np.ndarray, M: int) -> np.ndarray:
    """``(U, M)`` 2-bit fields (0 missing, 1 wrong, 2 right) of pattern words."""
    p = np.arange(M)
    return ((words[:, p // PER_WORD] >> (2 * (p % PER_WORD)).astype(np.uint64)) & 3).astype(
        np.uint8
    )


def bucket_patterns(pieces: Sequence[pd.DataFrame], M: int) -> pd.DataFrame:
    """Step 3a: the distinct (task, pattern) of one bucket with their item counts, sorted."""
    W = -(-M // PER_WORD)
    keys = [f"w{w}" for w in range(W)]
    items = pd.concat(pieces).groupby(["task", "item"], sort=False).sum()
    fields = _fields(items[keys].to_numpy(np.uint64), M)
    if np.any((fields > 0).sum(axis=1) != items["rows"].to_numpy()) or np.any(fields == 3):
        raise DataError(
            "a model scores an item more than once (or two items share a 64-bit hash).",
            column="item",
            hint="keep one score per model, task and item.",
        )
    patterns = items.groupby(["task", *keys], sort=False).size().rename("count").reset_index()
    order = np.lexsort([patterns[k].to_numpy() for k in keys] + [patterns["task"].to_numpy()])
    return patterns.iloc[order].reset_index(drop=True)


def task_patterns(
    frames: Sequence[pd.DataFrame], M: int, T: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Step 4 (on the client): per task, the ``(U, M)`` states of its distinct item patterns in
    the in-memory key order and their item counts, the buckets' counts of a pattern summed (a
    pattern's items may lie in any bucket): what :func:`pattern_bootstrap` draws from, so the
    draws equal the in-memory path's for the seed whatever the buckets and workers."""
    from benchuq.core.methods.bootstrap import _decode, _pack_words

    W = -(-M // PER_WORD)
    frame = pd.concat(frames) if frames else pd.DataFrame()
    out: list[tuple[np.ndarray, np.ndarray]] = []
    order = np.arange(M)
    for j in range(T):
        part = frame[frame["task"] == j] if len(frame) else frame
        if len(part) == 0:
            out.append((np.zeros((0, M), np.uint8), np.zeros(0, np.int64)))
            continue
        fields = _fields(part[[f"w{w}" for w in range(W)]].to_numpy(np.uint64), M)
        state = np.where(fields == 0, MISSING, fields - 1).astype(np.uint8)  # 0/1, MISSING
        words = _pack_words(state.T, order, 2).astype(np.uint64)
        uniq, inverse = np.unique(words, axis=0, return_inverse=True)
        counts = np.bincount(inverse.ravel(), weights=part["count"].to_numpy(np.float64))
        key = np.lexsort(uniq.T)  # the last word is the most significant
        out.append((_decode(uniq[key], order, 2), np.round(counts[key]).astype(np.int64)))
    return out


class _InProcess:
    """The client calls :func:`open_dask` makes, run here one after another: for data that fit
    in memory when no cluster was asked for (no ``workers``, no ``scheduler``), a LocalCluster's
    start-up and data transfer cost more than the work. Same functions, same counts."""

    def map(self, fn: Callable[..., Any], items: Sequence[Any], **kw: Any) -> list[Any]:
        kw.pop("pure", None)
        return [fn(x, **kw) for x in items]

    def submit(self, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        kw.pop("pure", None)
        return fn(*args, **kw)

    def gather(self, results: Any) -> Any:
        return results

    def close(self) -> None:
        pass


def _fits(files: Sequence[Path]) -> bool:
    """Whether the rows take at most half the free memory (as :func:`choose_backend` decides)."""
    from benchuq.core.reading.backends import BYTES_PER_ROW, _free_memory

    rows = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
    return rows * BYTES_PER_ROW <= _free_memory() / 2


def _client(
    workers: int | None, scheduler: str | None, files: Sequence[Path]
) -> tuple[Client | _InProcess, LocalCluster | None]:
    if scheduler:
        from distributed import Client

        return Client(scheduler), None
    if workers is None and _fits(files):
        return _InProcess(), None
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=workers or 1, threads_per_worker=1, processes=True, dashboard_address=None
    )
    return Client(cluster), cluster


def open_dask(
    files: list[Path],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    buckets: int = BUCKETS,
) -> DataSource:
    """A :class:`DataSource` whose pattern counts are made on a dask.distributed cluster:
    ``scheduler`` (``tcp://host:port``) or a LocalCluster of ``workers`` processes; with
    neither, data that fit in memory are counted in this process (no cluster). ``buckets``
    partitions the items; the draws depend on neither it nor the workers."""
    client, cluster = _client(workers, scheduler, files)
    try:
        stats = pd.concat(client.gather(client.map(shard_stats, files, pure=False)))
        stats = stats.groupby(level=[0, 1]).sum()
        models = sorted(stats.index.get_level_values(0).unique())
        tasks = sorted(stats.index.get_level_values(1).unique())
        M, T = len(models), len(tasks)
        n = np.zeros((M, T), np.int64)
        k = np.zeros((M, T), np.int64)
        mi = pd.Index(models).get_indexer(stats.index.get_level_values(0))
        tj = pd.Index(tasks).get_indexer(stats.index.get_level_values(1))
        n[mi, tj] = stats["n"].to_numpy()
        k[mi, tj] = np.round(stats["k"].to_numpy()).astype(np.int64)
        split = client.map(
            shard_buckets, files, models=models, tasks=tasks, buckets=buckets, pure=False
        )
        pieces = [
            [client.submit(lambda s, b=b: s[b], f, pure=False) for f in split]
            for b in range(buckets)
        ]
        patterns = [
            client.submit(bucket_patterns, pieces[b], M, pure=False) for b in range(buckets)
        ]
        counts = task_patterns(client.gather(patterns), M, T)  # errors surface here
    finally:
        _close(client, cluster)
    bench = counts_benchmark(
        files,
        models,
        tasks,
        ("all",) * T,
        n,
        k,
        f"Dask backend: {int(n.sum()):,} item scores in {len(files)} Parquet file(s), "
        f"{buckets} item buckets.",
    )

    def draws(reps: int, seed: int) -> Draws:
        from benchuq.core.methods.bootstrap import pattern_bootstrap

        return pattern_bootstrap(bench, counts, reps=reps, seed=seed)

    return DataSource(bench, draws)


def _close(client: Client | _InProcess, cluster: LocalCluster | None) -> None:
    client.close()
    if cluster is not None:
        cluster.close()

"""Past one machine: a dask.distributed backend for Parquet item shards (binary scores).

Work runs where the data live, on the cluster's workers (the files must be readable there):

1. per shard file: the number of scores and their sum per (model, task), with the same checks as
   the other backends;
2. per shard file: every record goes to one of :data:`BUCKETS` buckets by a hash of its task and
   item name, and the records of an item are summed into its pattern words (2 bits a model in
   name order: 0 missing, 1 wrong, 2 right);
3. per bucket: the items' patterns (an item split over several shards is put together here) and
   the Poisson-bootstrap sums of its replicates: each pattern with ``c`` items gets weight
   ``X ~ Poisson(c)`` in a replicate (each item ``Poisson(1)``, the Poisson bootstrap), drawn from
   the bucket's own stream ``default_rng([seed, bucket])`` in the order of (task, pattern key);
   the sums of right and answered items per model and task are whole numbers.

The buckets and their streams do not depend on the cluster, and whole-number sums do not depend
on the order they are added in, so the draws are bit-identical for any number of workers.
The Poisson bootstrap differs from the in-memory multinomial one by the random total weight
(METHODS 2); its intervals agree to Monte Carlo error for any task with more than a few dozen
items. Dask's own scheduler does the scheduling.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from benchuq.core.data import DataError
from benchuq.core.draws import Draws
from benchuq.core.reading.backends import DataSource, counts_benchmark

if TYPE_CHECKING:  # distributed is imported only when the backend runs
    from distributed import Client, LocalCluster

__all__ = ["BUCKETS", "open_dask"]

BUCKETS = 64  # fixed partition of the items: the same whatever the number of workers
PER_WORD = 32  # models per 64-bit pattern word
NOTE_POISSON = (
    "Poisson bootstrap (Dask backend): each item gets an independent Poisson(1) weight per "
    "replicate instead of exactly n draws; paired across models, bit-identical for any number "
    "of workers."
)


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


def bucket_sums(
    patterns: pd.DataFrame, bucket: int, M: int, T: int, reps: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Step 3b: ``(reps, M, T)`` Poisson-bootstrap sums of right and of answered items of one
    bucket, from its own stream ``default_rng([seed, bucket])``."""
    rng = np.random.default_rng([seed, bucket])
    right = np.zeros((reps, M, T), np.int64)
    answered = np.zeros((reps, M, T), np.int64)
    if len(patterns) == 0:
        return right, answered
    W = -(-M // PER_WORD)
    fields = _fields(patterns[[f"w{w}" for w in range(W)]].to_numpy(np.uint64), M)
    weights = rng.poisson(patterns["count"].to_numpy(), size=(reps, len(patterns)))
    task = patterns["task"].to_numpy()
    for j in np.unique(task):
        sel = task == j
        right[:, :, j] = weights[:, sel] @ (fields[sel] == 2).astype(np.int64)
        answered[:, :, j] = weights[:, sel] @ (fields[sel] > 0).astype(np.int64)
    return right, answered


def _client(workers: int | None, scheduler: str | None) -> tuple[Client, LocalCluster | None]:
    from distributed import Client, LocalCluster

    if scheduler:
        return Client(scheduler), None
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
    """A :class:`DataSource` whose aggregation and bootstrap sums run on a dask.distributed
    cluster: ``scheduler`` (``tcp://host:port``) or a LocalCluster of ``workers`` processes.
    ``buckets`` fixes the partition of the items (and so, with the seed, the draws)."""
    client, cluster = _client(workers, scheduler)
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
        client.gather(patterns)  # errors surface here
    except BaseException:
        _close(client, cluster)
        raise
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
        from benchuq.core.methods.bootstrap import _check_reps, _draws

        reps = _check_reps(reps)
        try:
            sums = client.gather(
                [
                    client.submit(bucket_sums, patterns[b], b, M, T, reps, seed, pure=False)
                    for b in range(buckets)
                ]
            )
        finally:
            _close(client, cluster)
        right = np.sum([s[0] for s in sums], axis=0)
        answered = np.sum([s[1] for s in sums], axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(answered > 0, right / np.maximum(answered, 1), np.nan)
        return _draws(
            bench, values, "bootstrap: item-level paired, Poisson", True, seed, [NOTE_POISSON]
        )

    return DataSource(bench, draws)


def _close(client: Client, cluster: LocalCluster | None) -> None:
    client.close()
    if cluster is not None:
        cluster.close()

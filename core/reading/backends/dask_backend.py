"""Past one machine: a dask.distributed backend for Parquet item shards (binary scores).

Work runs where the data live, on the cluster's workers (the files must be readable there):

1. per partition (whole row groups of one file, read directly by a worker): the same checks as
   the other backends, then every (task, item) gets a 64-bit key (a hash of its names) and its
   pattern words (2 bits a model in the partition's model-name order: 0 missing, 1 wrong,
   2 right). When a model's run of rows lists the same items as another model's run (per-model
   logs), its scores are added to that run's words in place: each distinct item array is hashed
   once and no per-row grouping is needed. The items are then split into item buckets by key;
2. per bucket: the partitions' pieces put in the global model order and summed per key (an item
   split over several partitions is put together here), checked (one score per model and item),
   and reduced to the number of items of each distinct (task, pattern): a small table;
3. on the client: the buckets' counts of each (task, pattern) summed (exact whole numbers, in no
   particular order); the per-(model, task) counts follow from them, and the item-level paired
   draws are made by :func:`~benchuq.core.methods.bootstrap.pattern_bootstrap` (METHODS 2:
   Dirichlet weights per pattern, float64 products through BLAS), as the DuckDB backend does.

The draws depend only on the patterns' counts and the seed, never on the partitions, the buckets,
the workers or the order results arrive in: bit-identical for any number of workers and equal to
the in-memory path's draws of the same items. On one machine the workers are forked from Python's
fork server (Linux: the libraries imported once, and no fork of a process that runs threads);
the cluster is closed once the counts are in.
"""

from __future__ import annotations

import itertools
import operator
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from benchuq.core.data import MISSING, DataError
from benchuq.core.draws import Draws
from benchuq.core.options import option
from benchuq.core.reading.backends import DataSource, counts_benchmark

if TYPE_CHECKING:  # distributed is imported only when the backend runs
    from distributed import Client, LocalCluster

__all__ = ["BUCKET_ROWS", "FILE_BYTES", "PARTITION_ROWS", "open_dask"]

PER_WORD = 32  # models per 64-bit pattern word
FILE_BYTES = 2**28  # files up to this size are read whole by one worker
PARTITION_ROWS = 2**23  # rows a worker reads at a time of a larger file (whole row groups)
BUCKET_ROWS = 2**24  # item buckets: one per this many rows (at least one), fixed by the data
RUN_ROWS = 256  # mean rows per model run from which runs are matched (else rows are keyed alike)


@dataclass(frozen=True)
class Piece:
    """Items of one partition in one bucket: ``key``, ``task`` (index into ``tasks``),
    ``words`` ``(W, n)`` (2-bit fields in ``models`` order) and ``rows`` (scores summed in)."""

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    key: np.ndarray
    task: np.ndarray
    words: np.ndarray
    rows: np.ndarray


@dataclass(frozen=True)
class Partition:
    """Row groups ``[start, stop)`` of ``file``, the first holding row ``first_row``."""

    file: Path
    start: int
    stop: int
    first_row: int


def partitions(files: Sequence[Path], target: int) -> list[Partition]:
    """Whole files of at most :data:`FILE_BYTES`; larger files in runs of whole row groups of
    about ``target`` rows."""
    out = []
    for f in files:
        meta = pq.ParquetFile(f).metadata
        if f.stat().st_size <= FILE_BYTES or meta.num_row_groups == 0:
            out.append(Partition(f, 0, meta.num_row_groups, 0))
            continue
        start, rows, first = 0, 0, 0
        for g in range(meta.num_row_groups):
            rows += meta.row_group(g).num_rows
            if rows >= target or g == meta.num_row_groups - 1:
                out.append(Partition(f, start, g + 1, first))
                start, first, rows = g + 1, first + rows, 0
    return out


def _columns(file: Path, names: Sequence[str]) -> dict[str, str]:
    """Our column -> the shard's (names trimmed, any case); raises for a missing column."""
    have = {c.strip().lower(): c for c in names}
    for need in ("model", "task", "item", "score"):
        if need not in have:
            raise DataError(
                f"missing column '{need}'.",
                file=file.name,
                column=need,
                hint="item shards need the columns model, task, item, score.",
            )
    if "cluster" in have:
        raise DataError(
            "the out-of-core backends do not resample clusters.",
            file=file.name,
            column="cluster",
            hint=f"use {option('backend', 'memory')} for clustered data.",
        )
    return have


def _names(column: pa.ChunkedArray) -> tuple[np.ndarray, tuple[str, ...], np.ndarray | None]:
    """(per-row index into the sorted distinct trimmed names, those names, per-row empty/null or
    ``None`` when no name is empty),
    from each chunk's dictionary (read as such from Parquet: no per-row text)."""
    chunks = [
        c if pa.types.is_dictionary(c.type) else pc.dictionary_encode(c) for c in column.chunks
    ]
    values = [pc.utf8_trim_whitespace(c.dictionary.cast(pa.string())).to_pylist() for c in chunks]
    names = tuple(sorted({v for vs in values for v in vs if v}))
    lookup = {v: i for i, v in enumerate(names)}
    parts = []
    for c, vs in zip(chunks, values, strict=True):
        code = np.array([lookup.get(v, -1) if v else -1 for v in vs] + [-1], np.int32)
        if len(vs) == 1 and not c.indices.null_count:  # one name (a model's or task's rows)
            parts.append(np.full(len(c), code[0], np.int32))
        else:
            parts.append(code[c.indices.fill_null(len(vs)).to_numpy()])
    rows = np.concatenate(parts) if parts else np.zeros(0, np.int32)
    some_empty = any(
        c.indices.null_count or not all(vs) for c, vs in zip(chunks, values, strict=True)
    )
    return rows, names, (rows < 0) if some_empty else None


def _hash(items: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """64-bit hashes of item names (pandas' ``hash_array``: the same in every process)."""
    from pandas.util import hash_array

    return hash_array(items.to_numpy(zero_copy_only=False), categorize=False)


def _check(
    part: Partition, score: pa.ChunkedArray, item: pa.ChunkedArray, *bad_names: np.ndarray | None
) -> None:
    """Raise a :class:`DataError` naming the file and first row of the first check that fails
    (names present; scores finite, then 0 or 1); the rows are looked at only when one fails."""
    empty_item = item.null_count > 0 or pc.min(pc.binary_length(item)).as_py() == 0
    binary = pc.all(pc.or_(pc.equal(score, 0), pc.equal(score, 1))).as_py() is not False
    if not (empty_item or any(b is not None for b in bad_names) or not binary or score.null_count):
        return
    names = np.zeros(len(item), bool)
    for b in bad_names:
        names |= False if b is None else b
    if empty_item:
        names |= pc.fill_null(pc.equal(pc.binary_length(item), 0), True).to_numpy(
            zero_copy_only=False
        )
    values = score.cast(pa.float64()).to_numpy(zero_copy_only=False)
    for bad, column, message in (
        (names, "model", "a model, task or item name is empty"),
        (~np.isfinite(values), "score", "the score is missing or not a finite number"),
        (
            (values != 0) & (values != 1),
            "score",
            "the out-of-core backends read binary (0/1) scores; this one is not 0 or 1",
        ),
    ):
        if bad.any():
            raise DataError(
                message + ".",
                file=part.file.name,
                row=part.first_row + int(np.flatnonzero(bad)[0]) + 2,
                column=column,
                hint=f"fix the value or use {option('backend', 'memory')}.",
            )


def partition_items(part: Partition, buckets: int) -> list[Piece]:
    """Step 1: the items of one partition with their pattern words, one :class:`Piece` a bucket;
    bad values raise a :class:`DataError` naming the file and row."""
    schema = pq.read_schema(part.file)
    cols = _columns(part.file, schema.names)
    text = [
        cols[c]
        for c in ("model", "task")
        if pa.types.is_string(schema.field(cols[c]).type)
        or pa.types.is_large_string(schema.field(cols[c]).type)
    ]
    wanted = [cols[c] for c in ("model", "task", "item", "score")]
    meta = pq.read_metadata(part.file)
    if part.start == 0 and part.stop == meta.num_row_groups:
        # the whole file: a text column's row group stored byte for byte as an earlier one
        # (per-model logs listing the same items) is decoded once and shared
        from benchuq.core.reading.arrow import ParquetColumns

        whole = ParquetColumns(part.file.read_bytes(), tuple(text), meta)
        columns = [whole.read(c) for c in wanted]
    else:
        table = pq.ParquetFile(part.file, read_dictionary=text).read_row_groups(
            range(part.start, part.stop), columns=wanted, use_threads=False
        )
        columns = table.columns
    model, models, bad_model = _names(columns[0])
    task, tasks, bad_task = _names(columns[1])
    item = columns[2]
    if not pa.types.is_string(item.type) and not pa.types.is_large_string(item.type):
        item = item.cast(pa.string())
    score = columns[3]
    if not pa.types.is_integer(score.type):
        score = score.cast(pa.float64())
    _check(part, score, item, bad_model, bad_task)
    code = score.cast(pa.uint8()).to_numpy()  # 0 wrong, 1 right (checked)
    task_key = _hash(pa.array(tasks, pa.string())) if tasks else np.zeros(0, np.uint64)
    shift = (2 * (np.arange(len(models)) % PER_WORD)).astype(np.uint64)
    word_of = np.arange(len(models)) // PER_WORD
    W = max(1, -(-len(models) // PER_WORD))
    starts = np.concatenate([[0], np.flatnonzero(model[1:] != model[:-1]) + 1, [len(model)]])
    blocks: list[list[Any]] = []  # [items, task, words, rows] a distinct item array
    runs = len(starts) - 1
    if runs > 0 and len(model) / runs >= RUN_ROWS:
        seen: dict[tuple[Any, ...], list[int]] = {}
        for a, b in itertools.pairwise(starts.tolist()):
            items, t, p = item.slice(a, b - a), task[a:b], int(model[a])
            tag = (b - a, items[0].as_py(), items[b - a - 1].as_py())
            found = next(
                (
                    blocks[i]
                    for i in seen.get(tag, [])
                    if np.array_equal(blocks[i][1], t) and blocks[i][0].equals(items)
                ),
                None,
            )
            if found is None:
                found = [items, t, np.zeros((W, b - a), np.uint64), np.zeros(b - a, np.int32)]
                seen.setdefault(tag, []).append(len(blocks))
                blocks.append(found)
            found[2][word_of[p]] += (code[a:b].astype(np.uint64) + np.uint64(1)) << shift[p]
            found[3] += 1
        key = np.concatenate([_hash(bl[0]) ^ task_key[bl[1]] for bl in blocks])
        task = np.concatenate([bl[1] for bl in blocks])
        words = np.concatenate([bl[2] for bl in blocks], axis=1)
        rows = np.concatenate([bl[3] for bl in blocks])
    else:  # rows keyed one by one (models interleaved): merged per item in the buckets
        key = _hash(item) ^ task_key[task] if len(task) else np.zeros(0, np.uint64)
        words = np.zeros((W, len(model)), np.uint64)
        for w in range(W):
            inside = word_of[model] == w
            words[w] = np.where(
                inside, (code.astype(np.uint64) + np.uint64(1)) << shift[model], np.uint64(0)
            )
        rows = np.ones(len(model), np.int32)
    bucket = key % np.uint64(buckets)
    order = np.argsort(bucket, kind="stable")
    cuts = np.searchsorted(bucket[order], np.arange(1, buckets))
    return [
        Piece(models, tasks, key[o], task[o].astype(np.int32), words[:, o], rows[o])
        for o in np.split(order, cuts)
    ]


def _fields(words: np.ndarray, M: int) -> np.ndarray:
    """``(M, n)`` 2-bit fields (0 missing, 1 wrong, 2 right) of ``(W, n)`` pattern words."""
    out = np.empty((M, words.shape[1]), np.uint8)
    for p in range(M):
        out[p] = (words[p // PER_WORD] >> np.uint64(2 * (p % PER_WORD))) & np.uint64(3)
    return out


def _global(piece: Piece, models: tuple[str, ...], tasks: tuple[str, ...]) -> Piece:
    """``piece`` with its words in ``models`` order and its tasks indexing ``tasks``."""
    if piece.models != models:
        fields = _fields(piece.words, len(piece.models))
        words = np.zeros((-(-len(models) // PER_WORD), len(piece.key)), np.uint64)
        for p, g in enumerate(np.searchsorted(models, piece.models)):
            words[g // PER_WORD] |= fields[p].astype(np.uint64) << np.uint64(2 * (g % PER_WORD))
    else:
        words = piece.words
    task = np.searchsorted(tasks, piece.tasks).astype(np.int32)[piece.task]
    return Piece(models, tasks, piece.key, task, words, piece.rows)


def bucket_patterns(pieces: Sequence[Piece]) -> tuple[Piece, np.ndarray]:
    """Step 2: one bucket's distinct (task, pattern) (a :class:`Piece` without keys) and the
    number of items of each; models and tasks are all the partitions' (every bucket gets a piece
    of every partition, so every bucket names the same ones)."""
    from benchuq.core.methods.bootstrap import _distinct_words

    models = tuple(sorted({m for p in pieces for m in p.models}))
    tasks = tuple(sorted({t for p in pieces for t in p.tasks}))
    M, W = len(models), max(1, -(-len(models) // PER_WORD))
    parts: list[Piece] = []
    tagged: dict[tuple[int, ...], list[int]] = {}  # (length, first key, last key) -> parts
    for piece in (_global(p, models, tasks) for p in pieces):
        tag = (len(piece.key), *[int(x) for x in piece.key[[0, -1]]]) if len(piece.key) else (0,)
        same = next(
            (
                i
                for i in tagged.get(tag, [])
                if np.array_equal(parts[i].key, piece.key)
                and np.array_equal(parts[i].task, piece.task)
            ),
            None,
        )
        if same is None:  # the same items in the same order (per-model runs) are added in place
            tagged.setdefault(tag, []).append(len(parts))
            parts.append(piece)
        else:
            q = parts[same]
            parts[same] = Piece(
                models, tasks, q.key, q.task, q.words + piece.words, q.rows + piece.rows
            )
    key = np.concatenate([p.key for p in parts])
    task = np.concatenate([p.task for p in parts])
    words = np.concatenate([p.words for p in parts], axis=1) if parts else np.zeros((W, 0))
    rows = np.concatenate([p.rows for p in parts])
    if len(key):
        import pandas as pd

        ids, uniques = pd.factorize(key)
        if len(uniques) < len(key):  # items split over partitions: their words summed
            order = np.argsort(ids, kind="stable")
            first = np.flatnonzero(np.diff(ids[order], prepend=-1))
            sorted_task = task[order]
            if np.any(
                np.minimum.reduceat(sorted_task, first) != np.maximum.reduceat(sorted_task, first)
            ):
                raise DataError(
                    "two task and item names share a 64-bit hash.",
                    column="item",
                    hint="rename an item (this is about 1 in 10^19 per pair).",
                )
            words = np.add.reduceat(words[:, order], first, axis=1)
            rows = np.add.reduceat(rows[order], first)
            task = sorted_task[first]
    fields = _fields(words.astype(np.uint64), M)
    if np.any((fields > 0).sum(axis=0) != rows) or np.any(fields == 3):
        raise DataError(
            "a model scores an item more than once (or two items share a 64-bit hash).",
            column="item",
            hint="keep one score per model, task and item.",
        )
    empty = np.zeros(0, np.uint64)
    if W == 1 and 2 * M + len(tasks).bit_length() <= 64:  # task and pattern in one word
        shift = np.uint64(2 * M)
        one, counts = _distinct_words((words[0] | (task.astype(np.uint64) << shift))[:, None])
        kinds = (one[:, 0] >> shift).astype(np.int32)
        return Piece(
            models,
            tasks,
            empty,
            kinds,
            one[:, 0][None] & ((np.uint64(1) << shift) - np.uint64(1)),
            empty,
        ), counts
    table = np.vstack([words.astype(np.uint64), task.astype(np.uint64)]).T
    distinct, counts = _distinct_words(np.ascontiguousarray(table))
    return Piece(
        models, tasks, empty, distinct[:, W].astype(np.int32), distinct[:, :W].T, empty
    ), counts


def task_patterns(
    results: Sequence[tuple[Piece, np.ndarray]],
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Step 3 (on the client): per task, the ``(U, M)`` states of its distinct item patterns in
    the in-memory key order and their item counts, the buckets' counts of a pattern summed (a
    pattern's items may lie in any bucket): what :func:`pattern_bootstrap` draws from, so the
    draws equal the in-memory path's for the seed whatever the buckets and workers."""
    from benchuq.core.methods.bootstrap import _decode, _pack_words

    models, tasks = results[0][0].models, results[0][0].tasks
    M = len(models)
    words = np.concatenate([r.words for r, _ in results], axis=1)
    task = np.concatenate([r.task for r, _ in results])
    counts = np.concatenate([c for _, c in results]).astype(np.int64)
    order = np.arange(M)
    out: list[tuple[np.ndarray, np.ndarray]] = []
    for j in range(len(tasks)):
        sel = task == j
        fields = _fields(words[:, sel], M)  # (M, U): 0 missing, 1 wrong, 2 right
        state = np.where(fields == 0, MISSING, fields - 1).astype(np.uint8)
        keyed = _pack_words(state, order, 2).astype(np.uint64)  # in-memory key order
        uniq, inverse = np.unique(keyed, axis=0, return_inverse=True)
        total = np.bincount(inverse.ravel(), weights=counts[sel], minlength=len(uniq))
        key = np.lexsort(uniq.T)  # the last word is the most significant
        out.append((_decode(uniq[key], order, 2), np.round(total[key]).astype(np.int64)))
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


def _rows(files: Sequence[Path]) -> int:
    return sum(pq.ParquetFile(f).metadata.num_rows for f in files)


def _client(
    workers: int | None, scheduler: str | None, rows: int
) -> tuple[Client | _InProcess, LocalCluster | None]:
    """The scheduler's client; a LocalCluster of ``workers`` processes (forked from Python's
    fork server on Linux, which imports the libraries once for all workers); in-process when
    neither was asked for and the rows take at most half the free memory (as
    :func:`choose_backend` decides)."""
    from benchuq.core.reading.backends import BYTES_PER_ROW, _free_memory

    if scheduler:
        from distributed import Client

        return Client(scheduler), None
    if workers is None and rows * BYTES_PER_ROW <= _free_memory() / 2:
        return _InProcess(), None
    import dask
    from distributed import Client, LocalCluster

    # forkserver, not fork: forking a process that runs threads (a notebook kernel, a test
    # runner with a browser driver) can hang a worker; the server preloads the libraries once
    method = "forkserver" if sys.platform.startswith("linux") else "spawn"
    quiet = {  # the workers' own sampling profiler and event-loop ticks cost CPU, not results
        "distributed.worker.multiprocessing-method": method,
        "distributed.worker.profile.enabled": False,
        "distributed.admin.tick.interval": "1s",
    }
    with dask.config.set(quiet):
        cluster = LocalCluster(
            n_workers=workers or 1, threads_per_worker=1, processes=True, dashboard_address=None
        )
    return Client(cluster), cluster


def open_dask(
    files: list[Path],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    buckets: int | None = None,
) -> DataSource:
    """A :class:`DataSource` whose pattern counts are made on a dask.distributed cluster:
    ``scheduler`` (``tcp://host:port``) or a LocalCluster of ``workers`` processes; with
    neither, data that fit in memory are counted in this process (no cluster). ``buckets``
    (default: one per :data:`BUCKET_ROWS` rows) partitions the items; the draws depend on
    neither it nor the workers."""
    rows = _rows(files)
    buckets = buckets or max(1, -(-rows // BUCKET_ROWS))
    client, cluster = _client(workers, scheduler, rows)
    try:
        n_workers = len(client.scheduler_info()["workers"]) if cluster or scheduler else 1  # type: ignore[union-attr]
        target = min(PARTITION_ROWS, max(1, -(-rows // max(1, n_workers))))
        parts = partitions(files, target)
        split = client.map(partition_items, parts, buckets=buckets, pure=False)
        pieces = [
            [client.submit(operator.itemgetter(b), s, pure=False) for s in split]
            for b in range(buckets)
        ]
        results = client.gather([client.submit(bucket_patterns, p, pure=False) for p in pieces])
    finally:
        _close(client, cluster)
    counts = task_patterns(results)  # errors surfaced at the gather
    models, tasks = results[0][0].models, results[0][0].tasks
    n = np.stack([(s != MISSING).T @ c for s, c in counts], axis=1)
    k = np.stack([(s == 1).T @ c for s, c in counts], axis=1)
    bench = counts_benchmark(
        files,
        models,
        tasks,
        ("all",) * len(tasks),
        n.astype(np.int64),
        k.astype(np.int64),
        f"Dask backend: {int(n.sum()):,} item scores in {len(files)} Parquet file(s), "
        f"{len(parts)} partition(s), {buckets} item bucket(s).",
    )

    def draws(reps: int, seed: int) -> Draws:
        from benchuq.core.methods.bootstrap import pattern_bootstrap

        return pattern_bootstrap(bench, counts, reps=reps, seed=seed)

    return DataSource(bench, draws)


def _close(client: Client | _InProcess, cluster: LocalCluster | None) -> None:
    client.close()
    if cluster is not None:
        cluster.close()

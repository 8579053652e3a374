"""Item-level tables: ``model, task, item, score, [cluster], [subgroup]`` -> kind ``"items"``.

Per task a dense ``(M, n_j)`` :class:`~benchuq.core.data.ItemTask` (missing where a model lacks an
item), ``estimate`` = the per-model mean over answered items; when every score is 0 or 1 the
scores are kept as bytes and ``n`` and ``correct`` are filled too (METHODS 0). Choices the spec
leaves open: scores must lie in [0, 1] (no automatic percent reading: a 1-10 judge scale would be
misread), anything else is an error asking to rescale; a model that has no item of a task gets
``nan`` for that task; without a ``category`` column every task is in category ``"all"``.

Records are held as integer codes (:class:`ItemRecords`): every text column is dictionary-encoded
once (by Arrow as it reads, or ``pandas.factorize`` for the frames other readers build), names are
stripped and checked on the dictionary, and the duplicate, label and range checks run on codes.
Several tables (shards of one long table: a folder or a glob) are read as one. Items of a task are
ordered by the first appearance of their name; tasks and models by first appearance.

Long on purpose: the item-table path from Arrow columns to lean item tasks (encoding, duplicate
and type checks, answers per item) is one pipeline, tuned as one for 10^8 rows (issue 18).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from benchuq.core.data import MISSING, Benchmark, DataError, ItemTask, Labels
from benchuq.core.reading.arrow import ArrowTable
from benchuq.core.reading.table import (
    ROW_NOTE,
    Table,
    check_models,
    number_column,
    require_columns,
    text_column,
)

__all__ = ["FEW_NAMES", "ITEM_COLUMNS", "ItemRecords", "item_records", "items_benchmark"]

ITEM_COLUMNS = ("model", "task", "item", "score")
LABEL_COLUMNS = ("cluster", "subgroup", "category", "epoch")
#: Columns with few distinct values, read dictionary-encoded (Parquet's own dictionaries, Arrow's
#: CSV blocks); item and cluster names are read as text and encoded once after reading (per-block
#: dictionaries of a column of many distinct names would hold most names many times; reading
#: Parquet's item dictionaries costs more than encoding the text).
FEW_NAMES = ("model", "task", "subgroup", "category")
RUN_RECORDS = 1000  # text is cut at model runs this long on average (see _runs)
#: Pairs (task, item) are numbered through a table of ``tasks x distinct item names`` entries
#: when it has at most this many entries per record (else by hashing, then sorting the pairs).
DIRECT_PAIRS_PER_ROW = 8
FILL_CHUNK = 2**22  # records handled at a time (bounds numpy's index temporaries)
FEW_KEY = 16  # dictionaries of at most this many names are told apart by their text


@dataclass(frozen=True)
class Codes:
    """A text column as ``codes`` (one per record; as read by Arrow the narrowest signed integer
    type holding them, :func:`code_type`: int8 for 10 models) into distinct ``names``."""

    codes: np.ndarray
    names: pa.Array


@dataclass(frozen=True)
class Rows:
    """Where each record came from: ``files`` with their record ranges ``starts`` and the
    reported row of their first record (Arrow shards), or explicit per-record ``file``/``row``
    arrays (the pandas path); exactly one of the two is given."""

    files: tuple[str, ...]
    starts: np.ndarray | None = None
    first_rows: tuple[int, ...] = ()
    file: np.ndarray | None = None
    row: np.ndarray | None = None

    def locate(self, i: int) -> tuple[str, int]:
        """(file name, reported row) of record ``i``."""
        if self.file is not None and self.row is not None:
            return self.files[int(self.file[i])], int(self.row[i])
        starts = self.starts
        assert starts is not None
        f = int(np.searchsorted(starts, i, side="right")) - 1
        return self.files[f], self.first_rows[f] + int(i - starts[f])


@dataclass(frozen=True)
class ItemRecords:
    """Validated item-level records as codes (see :func:`item_records`)."""

    model: Codes
    task: Codes
    item: Codes
    score: np.ndarray
    labels: dict[str, Codes]
    rows: Rows

    def __len__(self) -> int:
        return len(self.score)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> ItemRecords:
        """Records from a frame with columns ``model, task, item, score, row, file`` and
        optional ``cluster, subgroup, category`` (text already checked)."""

        def codes(column: str) -> Codes:
            c, names = pd.factorize(frame[column].to_numpy(object))
            return Codes(c.astype(np.int32), pa.array(names.astype(str), type=pa.string()))

        file, files = pd.factorize(frame["file"].to_numpy(object))
        rows = Rows(tuple(map(str, files)), file=file, row=frame["row"].to_numpy(np.int64))
        return cls(
            model=codes("model"),
            task=codes("task"),
            item=codes("item"),
            score=frame["score"].to_numpy(float),
            labels={c: codes(c) for c in LABEL_COLUMNS if c in frame.columns},
            rows=rows,
        )


def item_records(tables: Table | ArrowTable | Sequence[ArrowTable]) -> ItemRecords:
    """Validated records of an item table, or of several Arrow-read shards of one table."""
    if isinstance(tables, Table):
        return ItemRecords.from_frame(_pandas_frame(tables))
    shards = [tables] if isinstance(tables, ArrowTable) else list(tables)
    for t in shards:
        _require(t.name, set(t.columns), t.num_rows)
    lengths = [t.num_rows for t in shards]
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    rows = Rows(
        tuple(t.name for t in shards), starts=starts, first_rows=tuple(t.first_row for t in shards)
    )
    for c in LABEL_COLUMNS:  # a label column in some shards only would be dropped silently
        lacking = [t.name for t in shards if c not in t.columns]
        if 0 < len(lacking) < len(shards):
            raise DataError(
                f"this file has no '{c}' column, but other files of the item table do.",
                file=lacking[0],
                column=c,
                hint=f"give every file the same columns (add '{c}', or drop it everywhere).",
            )
    present = [c for c in LABEL_COLUMNS if c in shards[0].columns]
    model = _encode([t.column("model") for t in shards], "model", rows)
    check_models(len(model.names), shards[0].name)
    runs = _runs(model.codes)
    text = {
        "model": model,
        "task": _encode([t.column("task") for t in shards], "task", rows),
        "item": _encode([t.column("item") for t in shards], "item", rows, runs),
    }
    return ItemRecords(
        **text,
        score=_scores(shards, starts, rows),
        labels={c: _encode([t.column(c) for t in shards], c, rows, runs) for c in present},
        rows=rows,
    )


def _require(name: str, columns: set[str], num_rows: int) -> None:
    frame = pd.DataFrame(columns=sorted(columns), index=range(min(num_rows, 1)))
    require_columns(
        Table(name, frame, 2),
        ITEM_COLUMNS,
        columns_hint="item-level files need the columns model, task, item, score "
        "(optional cluster, subgroup), or map your column names to these.",
        rows_hint="add one row per model, task and item below the header.",
    )


def _pandas_frame(table: Table) -> pd.DataFrame:
    """The pandas path (JSON records, odd text files): columns checked one by one."""
    _require(table.name, set(table.frame.columns), len(table.frame))
    out = pd.DataFrame({c: text_column(table, c) for c in ("model", "task", "item")})
    out["score"] = number_column(table, "score")
    for c in LABEL_COLUMNS:
        if c in table.frame.columns:
            out[c] = text_column(table, c)
    out["row"] = table.rows()
    out["file"] = table.name
    return out


def _runs(codes: np.ndarray) -> np.ndarray | None:
    """Record positions where the model changes (with 0 and the end), when the records come in
    long runs of one model (per-model logs concatenated: on average at least
    :data:`RUN_RECORDS` records a run); ``None`` otherwise (models interleaved)."""
    cuts = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    if len(cuts) + 1 > max(1, len(codes) // RUN_RECORDS):
        return None
    return np.concatenate([[0], cuts, [len(codes)]]).astype(np.int64)


def _encode(
    parts: list[pa.ChunkedArray], column: str, rows: Rows, runs: np.ndarray | None = None
) -> Codes:
    """One text column of all shards as codes into its distinct stripped names, in Arrow.
    Dictionary-encoded chunks (as read) keep their dictionaries; text is cut at the model
    ``runs`` (:func:`_runs`; else as read, in chunks) and encoded by :func:`_encode_text`; the
    dictionaries are merged by :func:`_merge` (text alone has one already), names stripped
    and checked on the merged dictionary, never per record."""
    chunks: list[pa.Array | pa.ChunkedArray] = []
    start = 0
    for whole in parts:
        if whole.null_count:
            _empty(column, start + int(np.flatnonzero(whole.is_null().to_numpy())[0]), rows)
        if runs is None or pa.types.is_dictionary(whole.type):
            chunks += [c for c in whole.chunks if len(c)]
        else:  # the runs inside this shard (a run may span shards: cut at the shard's ends)
            cuts = np.unique(np.clip(runs, start, start + len(whole))) - start
            chunks += [whole.slice(a, b - a) for a, b in itertools.pairwise(cuts) if b > a]
        start += len(whole)
    if not chunks:
        return Codes(np.zeros(0, np.int8), pa.array([], pa.large_string()))
    encoded: dict[int, tuple[np.ndarray, pa.Array]] = {}  # text chunks by position, per type
    for kind in {c.type for c in chunks if not pa.types.is_dictionary(c.type)}:
        at = [k for k, c in enumerate(chunks) if c.type == kind]
        encoded.update(zip(at, _encode_text([chunks[k] for k in at]), strict=True))
    text: dict[object, pa.Array] = {}  # each distinct dictionary as text once
    pieces = []
    for k, c in enumerate(chunks):
        idx, d = encoded[k] if k in encoded else (c.indices.to_numpy(), c.dictionary)
        key = _dictionary_key(d)
        if key not in text:
            text[key] = _as_text(d)
        pieces.append(Piece(idx, text[key], read=k not in encoded))
    if len(encoded) == len(chunks) and len(text) == 1:  # one dictionary of distinct names
        names = pieces[0].names
        codes = np.concatenate([p.codes for p in pieces], dtype=code_type(len(names)))
    else:
        codes, names, used = _merge(pieces)
        if not used.all():  # dictionaries as read may hold names no record uses
            keep = np.flatnonzero(used)
            codes = _recode(codes, keep, np.arange(len(keep)))
            names = names.take(pa.array(keep))
    stripped = pc.utf8_trim_whitespace(names)
    if not stripped.equals(names):  # " A" is "A"
        again = stripped.dictionary_encode()
        codes = _recode(codes, np.arange(len(names)), again.indices.to_numpy())
        stripped = again.dictionary
    empty = _first_use(codes, pc.equal(stripped, ""))
    if empty is not None:
        _empty(column, empty, rows)
    nul = _first_use(codes, pc.match_substring(stripped, "\x00"))
    if nul is not None:  # valid UTF-8, but a damaged file (and invisible in a name)
        _refuse(column, nul, rows, f"the {column} name contains a NUL byte", NUL_HINT)
    return Codes(codes, stripped)


def _dictionary_key(d: pa.Array) -> object:
    """What identifies a dictionary: a few names by their text (Parquet gives each batch of
    64K rows its own dictionary object, the same one or few names), others by identity."""
    few = len(d) <= FEW_KEY and (pa.types.is_string(d.type) or pa.types.is_large_string(d.type))
    return tuple(d.to_pylist()) if few else id(d)


def code_type(n: int) -> np.dtype:
    """The narrowest signed integer type holding the codes of ``n`` names (int8 up to 128,
    int16 up to 32,768, else int32): a tenth of int64's memory for model codes at 10^8 rows."""
    return np.dtype(np.int8 if n <= 2**7 else np.int16 if n <= 2**15 else np.int32)


def _recode(codes: np.ndarray, old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``codes`` with each code ``old[k]`` replaced by ``new[k]`` (every code used is in
    ``old``), in the narrowest type holding the new codes; one gather, no index-sized copy."""
    top = int(new.max(initial=0)) + 1
    lookup = np.zeros(int(old.max(initial=0)) + 1, code_type(top))
    lookup[old] = new
    return lookup[codes]


def _counts(codes: np.ndarray, k: int) -> np.ndarray:
    """``np.bincount(codes, minlength=k)`` a chunk at a time (bincount copies its input to
    int64: 0.8 GB at 10^8 records at once)."""
    out = np.zeros(k, np.int64)
    for a in range(0, len(codes), FILL_CHUNK):
        out += np.bincount(codes[a : a + FILL_CHUNK], minlength=k)
    return out


def _first_use(codes: np.ndarray, flagged: pa.Array) -> int | None:
    """The first record whose name is flagged (``None``: none)."""
    bad = np.flatnonzero(flagged.to_numpy(zero_copy_only=False))
    if not bad.size:
        return None
    hits = np.flatnonzero(np.isin(codes, bad))
    return int(hits[0]) if hits.size else None


def _encode_text(chunks: list[pa.Array | pa.ChunkedArray]) -> list[tuple[np.ndarray, pa.Array]]:
    """``(indices, dictionary)`` per chunk (all of one type), one dictionary for all. A chunk
    equal to an earlier one reuses its indices: per-model logs list the same items in the same
    order, so their item names are hashed once, not once per model. Runs of equal names (the
    models' rows of an item together) are hashed once a run (:func:`_run_starts`)."""
    first: list[int] = []  # per chunk, the first chunk equal to it
    seen: dict[tuple[int, object, object], list[int]] = {}
    for k, c in enumerate(chunks):
        key = (len(c), c[0].as_py(), c[-1].as_py())
        same = next((j for j in seen.get(key, []) if chunks[j].equals(c)), None)
        if same is None:
            seen.setdefault(key, []).append(k)
        first.append(k if same is None else same)
    new = sorted(set(first))
    arrays = [a for k in new for a in _arrays(chunks[k])]
    starts = [_run_starts(a) for a in arrays]
    heads = [a if s is None else a.take(pa.array(s)) for a, s in zip(arrays, starts, strict=True)]
    encoded, dictionary = _dictionary_encode(pa.chunked_array(heads, chunks[new[0]].type))
    ends = np.cumsum([0] + [len(h) for h in heads])
    indices = np.concatenate(
        [
            idx if s is None else np.repeat(idx, np.diff(np.append(s, len(a))))
            for a, s, idx in zip(arrays, starts, np.split(encoded, ends[1:-1]), strict=True)
        ]
    )
    bounds = np.cumsum([0] + [len(chunks[k]) for k in new])
    part = {k: indices[bounds[i] : bounds[i + 1]] for i, k in enumerate(new)}
    return [(part[f], dictionary) for f in first]


RUN_PROBE = 1024  # adjacent pairs looked at before comparing a whole chunk (see _run_starts)


def _run_starts(values: pa.Array) -> np.ndarray | None:
    """Where each run of equal values starts, when runs are long enough to pay (on average two
    values or more: the models' rows of each item together); ``None`` otherwise, decided on the
    first :data:`RUN_PROBE` pairs before comparing the whole chunk (no nulls here)."""
    n = len(values)
    probe = min(n, RUN_PROBE + 1)
    if probe < 2 or 2 * _differ(values.slice(0, probe)).size > probe:
        return None
    starts = np.concatenate([[0], _differ(values) + 1])
    return starts if 2 * len(starts) <= n else None


def _differ(values: pa.Array) -> np.ndarray:
    """Positions ``i`` where ``values[i + 1] != values[i]``."""
    later, earlier = values.slice(1), values.slice(0, len(values) - 1)
    return np.flatnonzero(pc.not_equal(later, earlier).to_numpy(zero_copy_only=False))


def _arrays(values: pa.Array | pa.ChunkedArray) -> list[pa.Array]:
    return list(values.chunks) if isinstance(values, pa.ChunkedArray) else [values]


@dataclass(frozen=True)
class Piece:
    """Records of one chunk as ``codes`` into a dictionary ``names``; ``read``: the dictionary
    came with the file (Parquet's, a categorical's) and may hold names no record uses."""

    codes: np.ndarray
    names: pa.Array
    read: bool


def _merge(pieces: list[Piece]) -> tuple[np.ndarray, pa.Array, np.ndarray]:
    """Codes (one per record, in piece order, :func:`code_type`) into the distinct names of the
    pieces' dictionaries (``large_string``), and which names a record uses. Identical
    dictionaries are hashed once (by Arrow): a Parquet file written model by model repeats
    each task's item dictionary for every model; each piece's codes are then mapped through
    its dictionary's slice of the lookup straight into the result. A dictionary as read is
    counted only where it has several names (a row group of one model has one)."""
    distinct: list[pa.Array] = []
    seen: dict[tuple[int, object, object], list[int]] = {}
    which = []
    for d in (p.names for p in pieces):
        key = (len(d), d[0].as_py(), d[-1].as_py()) if len(d) else (0, None, None)
        same = next(
            (u for u in seen.get(key, []) if distinct[u] is d or distinct[u].equals(d)), None
        )
        if same is None:
            same = len(distinct)
            distinct.append(d)
            seen.setdefault(key, []).append(same)
        which.append(same)
    if len(distinct) == 1:  # a dictionary holds distinct names
        lookup, names = np.arange(len(distinct[0])), distinct[0]
    else:
        lookup, names = _dictionary_encode(pa.chunked_array(distinct))
    kind = code_type(len(names))
    lookup = lookup.astype(kind)
    offsets = np.cumsum([0] + [len(d) for d in distinct])
    codes = np.empty(sum(len(p.codes) for p in pieces), kind)
    used = np.zeros(len(names), bool)
    at = 0
    for p, u in zip(pieces, which, strict=True):
        sub = lookup[offsets[u] : offsets[u + 1]]
        np.take(sub, p.codes, out=codes[at : at + len(p.codes)])
        at += len(p.codes)
        several = p.read and len(sub) > 1 and len(p.codes) > 0
        used[sub[_counts(p.codes, len(sub)) > 0] if several else sub] = True
    return codes, names, used


def _dictionary_encode(values: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """``(indices, dictionary)`` of ``values``, in one pass. (Halves on two threads with their
    dictionaries merged after hash mostly-distinct names twice: 10^7 item names took 5.6 s
    that way against 3.5 s in one pass.)"""
    encoded = values.dictionary_encode()
    indices = np.concatenate([c.indices.to_numpy() for c in encoded.chunks])
    return indices.astype(np.int32, copy=False), encoded.chunk(0).dictionary


def _as_text(values: pa.Array) -> pa.Array:
    """Dictionary values as text (numbers as pandas writes them: 1, 2.5)."""
    if pa.types.is_floating(values.type):
        return pa.array(values.to_pandas().astype(str), type=pa.large_string())
    return values.cast(pa.large_string())


def _empty(column: str, i: int, rows: Rows) -> None:
    _refuse(
        column, i, rows, f"the {column} is empty", f"fill in the {column} name or delete the row."
    )


NUL_HINT = "remove the NUL character (the file may be damaged)."


def _refuse(column: str, i: int, rows: Rows, what: str, hint: str) -> None:
    """A :class:`DataError` at record ``i`` (its file and row) of ``column``."""
    file, row = rows.locate(i)
    raise DataError(f"{what} {ROW_NOTE}.", file=file, row=row, column=column, hint=hint)


def _scores(shards: list[ArrowTable], starts: np.ndarray, rows: Rows) -> np.ndarray:
    """The score column (shard ``k`` in records ``starts[k]:starts[k+1]``) in the type every
    shard stores it as (int8 0/1 scores stay int8, float32 stay float32: exact, and a quarter or
    half of float64's memory at 10^8 rows), else float64; text scores (``75%``) and blanks go
    through :func:`number_column` for its parsing and messages. Numbers are written into the
    result a chunk at a time, and only where a value can be NaN or infinite is it checked."""
    kinds = {_column_type(t, "score") for t in shards}
    kind = kinds.pop() if len(kinds) == 1 else pa.float64()
    plain = pa.types.is_integer(kind) or pa.types.is_floating(kind)
    out = np.empty(starts[-1], kind.to_pandas_dtype() if plain else np.float64)
    check = False  # whether a value can be NaN or infinite
    null = len(out)  # the first null number
    for k, t in enumerate(shards):
        col = t.column("score")
        a, b = starts[k], starts[k + 1]
        if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
            if pa.types.is_dictionary(col.type):
                col = col.cast(col.type.value_type)
            if not pa.types.is_boolean(col.type):
                frame = pd.DataFrame({"score": col.to_pandas()})
                out[a:b] = number_column(Table(t.name, frame, t.first_row), "score")
                check = True
                continue
        if col.null_count:
            first = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
            if t.blank_is_missing:
                raise DataError(
                    f"the value is missing {ROW_NOTE}.",
                    file=t.name,
                    row=t.first_row + first,
                    column="score",
                    hint="fill in a number or delete the row.",
                )
            null = min(null, int(a) + first)  # a null number (Parquet) is not finite
        check |= pa.types.is_floating(col.type)
        at = int(a)
        for chunk in col.chunks:
            if pa.types.is_boolean(chunk.type):
                chunk = chunk.cast(pa.int8())
            if chunk.null_count:
                chunk = chunk.fill_null(0)
            out[at : at + len(chunk)] = chunk.to_numpy()
            at += len(chunk)
    bad = np.flatnonzero(~np.isfinite(out)) if check else np.zeros(0, np.int64)
    first_bad = min(int(bad[0]) if bad.size else len(out), null)
    if first_bad < len(out):
        _not_finite(float("nan") if first_bad == null else out[first_bad], first_bad, rows)
    return out


def _column_type(table: ArrowTable, ours: str) -> pa.DataType:
    """The Arrow type of our column ``ours`` as the file stores it (no data read)."""
    theirs = table.columns[ours]
    if isinstance(table.data, pa.Table):
        return table.data.schema.field(theirs).type
    return table.data.metadata.schema.to_arrow_schema().field(theirs).type


def _not_finite(value: float, i: int, rows: Rows) -> None:
    file, row = rows.locate(i)
    raise DataError(
        f"{str(float(value))!r} is not a finite number {ROW_NOTE}.",
        file=file,
        row=row,
        column="score",
        hint="use plain finite numbers with '.' as the decimal mark (no NaN or infinity).",
    )


# ---- records -> Benchmark --------------------------------------------------------------------
def items_benchmark(
    records: ItemRecords | pd.DataFrame, *, name: str, notes: tuple[str, ...] = ()
) -> Benchmark:
    """A kind-``"items"`` :class:`Benchmark` from validated records (see :func:`item_records`;
    a frame as :meth:`ItemRecords.from_frame` takes)."""
    rec = records if isinstance(records, ItemRecords) else ItemRecords.from_frame(records)
    score = rec.score
    if score.dtype.kind in "iu":  # no NaN: the extremes say it (no record-sized masks)
        binary = not len(score) or (score.min() >= 0 and score.max() <= 1)
        out_of_range = not binary
    else:
        out_of_range = bool(np.any((score < 0) | (score > 1)))
        binary = bool(np.all((score == 0) | (score == 1)))
    if out_of_range:
        _range_error(rec, int(np.flatnonzero((score < 0) | (score > 1))[0]))
    M, T = len(rec.model.names), len(rec.task.names)
    col, bounds, item_code = _columns(rec.task.codes, rec.item.codes, T, len(rec.item.names))
    P = len(item_code)
    if "epoch" in rec.labels:  # repeated answers (issue 26): one cell per item, their mean
        repeated = _repeated_cells(rec, col, M, P)
        if repeated is not None:
            return _epochs_benchmark(rec, repeated, bounds, item_code, col, name, notes)
    if binary:
        data = np.full((M, P), MISSING, np.uint8)
        _fill(data, rec.model.codes, col, score)
        filled = P * M - int(np.count_nonzero(data == MISSING))
    else:
        data = np.full((M, P), np.nan)
        _fill(data, rec.model.codes, col, score)
        filled = P * M - int(np.count_nonzero(np.isnan(data)))
    if filled != len(rec):
        _duplicate_error(rec, col)
    # mixed scores: each task stored as ItemTask makes it (bytes if binary, float32 if exact), so
    # the storage, the content hash and the bootstrap do not depend on the other tasks
    make = ItemTask.stored if binary else ItemTask
    items = [
        make(item, data[:, cols], cluster, subgroup)
        for cols, item, cluster, subgroup in _task_columns(rec, col, bounds, item_code)
    ]
    counts = {}
    if binary:
        counts["n"] = np.column_stack([it.answered for it in items])
        counts["correct"] = np.column_stack([it.sums() for it in items]).astype(np.int64)
    return _items_benchmark(rec, items, name, notes, **counts)


def _items_benchmark(
    rec: ItemRecords,
    items: Sequence[ItemTask],
    name: str,
    notes: Sequence[str],
    **counts: np.ndarray,
) -> Benchmark:
    """The kind-``"items"`` :class:`Benchmark` of the tasks ``items`` (``counts``: ``n`` and
    ``correct`` of binary scores)."""
    T = len(items)
    return Benchmark(
        name=name,
        models=tuple(rec.model.names.to_pylist()),
        tasks=tuple(rec.task.names.to_pylist()),
        categories=tuple(_categories(rec, T)),
        kind="items",
        estimate=(
            np.column_stack([it.means() for it in items])
            if T
            else np.zeros((len(rec.model.names), 0))
        ),
        n=counts.get("n"),
        correct=counts.get("correct"),
        item_tasks=tuple(items),
        notes=tuple(notes),
    )


def _task_columns(
    rec: ItemRecords, col: np.ndarray, bounds: np.ndarray, item_code: np.ndarray
) -> Iterator[tuple[slice, Labels, Labels | None, Labels | None]]:
    """Task by task (see :func:`_columns`): its columns of the ``(M, P)`` cells, and the labels
    of its items, clusters and subgroups (``None`` where the records have none)."""
    P = len(item_code)
    labels = {c: _item_labels(rec, c, col, P) for c in ("cluster", "subgroup") if c in rec.labels}
    for j in range(len(bounds) - 1):
        cols = slice(int(bounds[j]), int(bounds[j + 1]))
        cluster, subgroup = (
            Labels(rec.labels[c].names, lab[cols]) if (lab := labels.get(c)) is not None else None
            for c in ("cluster", "subgroup")
        )
        yield cols, Labels(rec.item.names, item_code[cols]), cluster, subgroup


def _repeated_cells(
    rec: ItemRecords, col: np.ndarray, M: int, P: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(counts, means, mean squares)`` of the answers in each ``(M, P)`` cell, when some cell
    holds more than one answer (``None``: one answer each, read as usual). A model, task, item
    and epoch given twice is an error."""
    cell = rec.model.codes.astype(np.int64) * P + col
    counts = np.bincount(cell, minlength=M * P)
    if counts.max(initial=0) <= 1:
        return None
    epoch = rec.labels["epoch"].codes
    key = cell * (int(epoch.max(initial=0)) + 1) + epoch
    if _repeats(key):
        _duplicate_error(rec, key, what="epoch")
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(cell, weights=rec.score, minlength=M * P) / counts
        sq = np.bincount(cell, weights=rec.score**2, minlength=M * P) / counts
    return counts.reshape(M, P), mean.reshape(M, P), sq.reshape(M, P)


def _repeats(key: np.ndarray) -> bool:
    """Whether a key appears twice (counted in a table when it is small, else by sorting)."""
    top = int(key.max(initial=0)) + 1
    if top <= max(8 * len(key), 2**20):
        return bool(np.bincount(key, minlength=top).max(initial=0) > 1)
    return len(np.unique(key)) != len(key)


def _epochs_benchmark(
    rec: ItemRecords,
    cells: tuple[np.ndarray, np.ndarray, np.ndarray],
    bounds: np.ndarray,
    item_code: np.ndarray,
    col: np.ndarray,
    name: str,
    notes: tuple[str, ...],
) -> Benchmark:
    """Items with several answers each: the cell score is the mean of its answers, with the
    number of answers and their mean square kept (:class:`ItemTask` ``answers``)."""
    counts, mean, sq = cells
    items = [
        ItemTask(
            item,
            mean[:, cols],
            cluster,
            subgroup,
            answers=counts[:, cols],
            answer_sq=sq[:, cols],
        )
        for cols, item, cluster, subgroup in _task_columns(rec, col, bounds, item_code)
    ]
    return _items_benchmark(rec, items, name, notes)


def _fill(data: np.ndarray, rows: np.ndarray, cols: np.ndarray, values: np.ndarray) -> None:
    """``data[rows, cols] = values`` in chunks of records."""
    for a in range(0, len(values), FILL_CHUNK):
        data[rows[a : a + FILL_CHUNK], cols[a : a + FILL_CHUNK]] = values[a : a + FILL_CHUNK]


def _columns(
    task: np.ndarray, item: np.ndarray, T: int, D: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Number the (task, item) pairs: (column of each record, first column of each task plus
    the end, item code of each column). Columns run task by task, items by code (= order of
    first appearance of the name); linear time unless pairs are few among many possibilities."""
    owner = np.full(D, -1, np.int32)
    owner[item] = task
    one_task = all(  # compared a chunk at a time: no record-sized copies
        np.array_equal(owner[item[a : a + FILL_CHUNK]], task[a : a + FILL_CHUNK])
        for a in range(0, len(item), FILL_CHUNK)
    )
    item_code: np.ndarray
    col: np.ndarray
    task_of: np.ndarray
    if one_task:  # every item name belongs to one task: pair = item
        key_type = np.int16 if T < 2**15 else np.int32  # 16 bits: numpy's radix sort
        if np.all(owner[1:] >= owner[:-1]):  # names first seen task by task: column = code
            item_code, col, task_of = np.arange(D, dtype=np.int32), item, owner
        else:
            item_code = np.argsort(owner.astype(key_type), kind="stable").astype(np.int32)
            pos = np.empty(D, np.int32 if D < 2**31 else np.int64)
            pos[item_code] = np.arange(D)
            col, task_of = pos[item], owner[item_code]
    else:
        key = task.astype(np.int64) * D + item
        if T * D <= max(DIRECT_PAIRS_PER_ROW * len(key), 2**20):
            used = np.zeros(T * D, bool)
            used[key] = True
            pairs = np.flatnonzero(used)
            slot = np.cumsum(used, dtype=np.int64) - 1
            col = slot[key]
        else:
            ids, uniques = pd.factorize(key)
            order = np.argsort(uniques, kind="stable")
            pairs = uniques[order]
            rank = np.empty(len(order), np.int64)
            rank[order] = np.arange(len(order))
            col = rank[ids]
        item_code = (pairs % D).astype(np.int32)
        task_of = pairs // D
    bounds = np.searchsorted(task_of, np.arange(T + 1), side="left")
    return col, bounds, item_code


def _first_record(codes: np.ndarray, k: int) -> np.ndarray:
    """Index of the first record of each code ``0..k-1``."""
    first = np.full(k, len(codes), np.int64)
    np.minimum.at(first, codes, np.arange(len(codes)))
    return first


def _categories(rec: ItemRecords, T: int) -> list[str]:
    if "category" not in rec.labels:
        return ["all"] * T
    cat = rec.labels["category"]
    return [cat.names[int(c)].as_py() for c in cat.codes[_first_record(rec.task.codes, T)]]


def _range_error(rec: ItemRecords, i: int) -> None:
    file, row = rec.rows.locate(i)
    raise DataError(
        f"score {rec.score[i]:g} is outside 0..1 {ROW_NOTE}.",
        file=file,
        row=row,
        column="score",
        hint="give item scores on a 0..1 scale (1 = correct, or a proportion such as F1); "
        "rescale other scales (divide percent by 100, a 1-10 judge score by 10).",
    )


def _duplicate_error(rec: ItemRecords, col: np.ndarray, *, what: str = "") -> None:
    """The first record whose (model, task, item) appears again, with up to three of its rows
    (``what="epoch"``: ``col`` is a key of model, task, item and epoch)."""
    key = col if what else col.astype(np.int64) * len(rec.model.names) + rec.model.codes
    dup = pd.Series(key).duplicated(keep=False).to_numpy()
    i = int(np.flatnonzero(dup)[0])
    where = [rec.rows.locate(int(r)) for r in np.flatnonzero(key == key[i])[:3]]
    files = {f for f, _ in where}
    shown = (
        f"rows {[r for _, r in where]}"
        if len(files) == 1
        else ", ".join(f"file '{f}' row {r}" for f, r in where)
    )
    m, t, it = (x.names[int(x.codes[i])].as_py() for x in (rec.model, rec.task, rec.item))
    if what:
        epoch = rec.labels["epoch"]
        e = epoch.names[int(epoch.codes[i])].as_py()
        raise DataError(
            f"model '{m}', task '{t}', item '{it}', epoch '{e}' appears more than once "
            f"({shown}) {ROW_NOTE}.",
            file=where[1][0],
            row=where[1][1],
            column="epoch",
            hint="keep one score per model, task, item and epoch (number repeated answers "
            "1, 2, 3 ... in the epoch column).",
        )
    raise DataError(
        f"model '{m}', task '{t}', item '{it}' appears more than once ({shown}) {ROW_NOTE}.",
        file=where[1][0],
        row=where[1][1],
        column="item",
        hint="keep one score per model, task and item (average repeats, or add an 'epoch' "
        "column numbering repeated answers, or rename a second run of a model).",
    )


def _item_labels(rec: ItemRecords, column: str, col: np.ndarray, P: int) -> np.ndarray:
    """One label code per item column; models must agree on an item's cluster/subgroup."""
    codes = rec.labels[column].codes
    label = np.empty(P, np.int32)
    label[col] = codes
    clash = np.flatnonzero(label[col] != codes)
    if clash.size:
        # the first record (in file order) whose label differs from an earlier one of its item
        first = _first_record(col, P)
        differs = np.flatnonzero(codes != codes[first[col]])
        i = int(differs[0])
        file, row = rec.rows.locate(i)
        t = rec.task.names[int(rec.task.codes[i])].as_py()
        item = rec.item.names[int(rec.item.codes[i])].as_py()
        raise DataError(
            f"item '{item}' of task '{t}' has two different {column} labels {ROW_NOTE}.",
            file=file,
            row=row,
            column=column,
            hint=f"give each item one {column} (the same for every model).",
        )
    return label

"""The Arrow path for long item tables (issue 18): ``classify`` reads only the header
(:func:`header_table`); an item table is then read by :func:`read_arrow` into an
:class:`ArrowTable` (Parquet a column at a time, CSV/TSV/JSON Lines at once; few-valued text
columns dictionary-encoded); whatever Arrow cannot read as pandas would goes the pandas way
(``table.read_table``), which words the error."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from benchuq.core.budget import check_read
from benchuq.core.data import DataError
from benchuq.core.reading.table import (
    Source,
    Table,
    _normalise,
    _sniff_delimiter,
    check_width,
    is_parquet,
    looks_like_json,
)

__all__ = []

# ---- the Arrow path (long item tables) ------------------------------------------------------
HEAD_BYTES = 2**16  # bytes read to find the header and delimiter of a text table
TEXT = pa.dictionary(pa.int32(), pa.string())  # a text column with each distinct string once


@dataclass(frozen=True)
class ParquetColumns:
    """A Parquet file held in memory, read one column at a time (as Arrow's dataset reader
    reads it: about twice as fast as a row group at a time); text columns in
    ``read_dictionary`` come dictionary-encoded."""

    buffer: bytes
    read_dictionary: tuple[str, ...]
    metadata: pq.FileMetaData

    def read(self, column: str) -> pa.ChunkedArray:
        """The file's column ``column``, a chunk per row group. A text column's row group
        stored byte for byte as an earlier one (per-model logs listing the same items, a
        model's or a task's name repeated) is decoded once and shared: the same values, for 10
        models a tenth of the decoding and of the memory."""
        repeats = self._repeats(column)
        if repeats is None:
            return pq.read_table(
                pa.BufferReader(self.buffer),
                columns=[column],
                read_dictionary=list(self.read_dictionary),
            ).column(0)
        file = pq.ParquetFile(
            pa.BufferReader(self.buffer), read_dictionary=list(self.read_dictionary)
        )
        decoded: dict[int, list[pa.Array]] = {}
        for g in sorted(set(repeats)):
            decoded[g] = file.read_row_group(g, columns=[column]).column(0).chunks
        kind = file.schema_arrow.field(column).type
        return pa.chunked_array([c for g in repeats for c in decoded[g]], type=kind)

    def _repeats(self, column: str) -> list[int] | None:
        """Per row group, the first row group whose text column ``column`` is stored in the
        same bytes (its own number if none); ``None`` when no row group repeats another or the
        column is not text. Bytes are compared only where sizes and counts agree."""
        schema = self.metadata.schema
        paths = [schema.column(j).path for j in range(len(schema))]
        if column not in paths:
            return None
        j = paths.index(column)
        data = self.buffer
        seen: dict[tuple[int, int, int], list[tuple[int, slice]]] = {}
        firsts = []
        for g in range(self.metadata.num_row_groups):
            c = self.metadata.row_group(g).column(j)
            if c.physical_type != "BYTE_ARRAY":
                return None
            start = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
            span = slice(start, start + c.total_compressed_size)
            known = seen.setdefault(
                (c.total_compressed_size, c.total_uncompressed_size, c.num_values), []
            )
            first = next((h for h, other in known if data[other] == data[span]), None)
            if first is None:
                known.append((g, span))
            firsts.append(g if first is None else first)
        return firsts if len(set(firsts)) < len(firsts) else None


@dataclass(frozen=True)
class ArrowTable:
    """A table read by Arrow: ``columns`` maps our column names to the file's; text columns come
    dictionary-encoded. ``blank_is_missing``: a null cell was an empty field (delimited text)."""

    name: str
    columns: dict[str, str]
    first_row: int
    blank_is_missing: bool
    #: text formats: the needed columns, read at once; Parquet: the file, read a column at a time
    data: pa.Table | ParquetColumns

    @property
    def num_rows(self) -> int:
        """Rows in the table (for Parquet, from its footer)."""
        if isinstance(self.data, pa.Table):
            return int(self.data.num_rows)
        return int(self.data.metadata.num_rows)

    def column(self, ours: str) -> pa.ChunkedArray:
        """Our column ``ours`` (the file's ``columns[ours]``)."""
        theirs = self.columns[ours]
        if isinstance(self.data, pa.Table):
            return self.data.column(theirs)
        return self.data.read(theirs)


def _head_text(src: Source) -> str | None:
    """The first bytes as UTF-8 text (``None`` for UTF-16, binary or undecodable heads)."""
    head = src.data[:HEAD_BYTES]
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in head:
        return None
    try:
        text = head.decode("utf-8-sig", errors="strict")
    except UnicodeDecodeError as err:
        if err.start < len(head) - 4:  # not just a character cut at the end of the head
            return None
        text = head[: err.start].decode("utf-8-sig")
    return text if text.strip() else None


def _blank_lines(data: bytes) -> bool:
    """An empty line before the end (Arrow's JSON reader skips it, shifting the row numbers;
    its CSV reader is told to fail on one instead, so no scan is needed there)."""
    end = len(data)
    while end and data[end - 1] in b"\r\n":
        end -= 1
    return data.find(b"\n\n", 0, end) >= 0 or data.find(b"\n\r\n", 0, end) >= 0


def header_table(src: Source) -> Table | None:
    """The header of a Parquet, JSON Lines or delimited file as a one-row :class:`Table` whose
    only row holds each column's name as written in the file (so renamings can be traced), or
    ``None`` where the Arrow path does not apply."""
    if is_parquet(src):
        try:
            names = pq.read_schema(pa.BufferReader(src.data)).names
        except Exception:  # pyarrow raises several unrelated types for corrupt files
            return None
        first_row = 2
    else:
        text = _head_text(src)
        if text is None:
            return None
        if src.name.lower().endswith(".jsonl"):
            if _blank_lines(src.data):
                return None
            try:
                names = list(json.loads(text.splitlines()[0]))
            except (json.JSONDecodeError, TypeError, IndexError):
                return None
            first_row = 1
        elif looks_like_json(src):
            return None
        else:
            lines = text.splitlines()
            sep = _sniff_delimiter("\n".join(lines[:-1] or lines), src.name)
            names = next(csv.reader(io.StringIO(lines[0]), delimiter=sep), [])
            if len(names) < 2:
                return None
            first_row = 2
    check_width(len(names), src.name)
    try:
        frame = _normalise(pd.DataFrame([names], columns=names, dtype=object), src.name)
    except DataError:
        return None
    return Table(src.name, frame, first_row)


def _is_bytes(kind: pa.DataType) -> bool:
    return pa.types.is_binary(kind) or pa.types.is_large_binary(kind)


def _check_arrow_read(src: Source) -> None:
    """The read budget of the Arrow path: Parquet by its uncompressed size (its footer), text
    by its bytes (:func:`~benchuq.core.budget.check_read`)."""
    if not is_parquet(src):
        check_read(src.name, len(src.data), path="arrow")
        return
    try:
        metadata = pq.read_metadata(pa.BufferReader(src.data))
    except Exception:  # a damaged footer: the reader that follows words it
        return
    groups = range(metadata.num_row_groups)
    size = sum(metadata.row_group(g).total_byte_size for g in groups)
    check_read(src.name, size, path="parquet")


def read_arrow(src: Source, head: Table, few_names: tuple[str, ...]) -> ArrowTable | None:
    """The columns of ``head`` (after renaming: its one row holds the file's names) read with
    Arrow; text columns of ``few_names`` (ours) come dictionary-encoded. ``None`` if Arrow cannot
    read it."""
    columns = {str(ours): str(theirs) for ours, theirs in head.frame.iloc[0].items()}
    theirs = list(columns.values())
    _check_arrow_read(src)
    try:
        if is_parquet(src):
            metadata = pq.read_metadata(pa.BufferReader(src.data))
            schema = pq.read_schema(pa.BufferReader(src.data))  # as written (categoricals)
            if any(_is_bytes(schema.field(c).type) for c in theirs):
                return None  # bytes, maybe not UTF-8: the pandas path names the row
            strings = [
                columns[c]
                for c in few_names
                if c in columns
                and schema.field(columns[c]).type in (pa.string(), pa.large_string())
            ]
            parquet = ParquetColumns(src.data, tuple(strings), metadata)
            return ArrowTable(src.name, columns, 2, False, parquet)
        if src.name.lower().endswith(".jsonl"):
            table = pa_json.read_json(pa.BufferReader(src.data)).select(theirs)
            return ArrowTable(src.name, columns, 1, False, table)
        text = _head_text(src) or ""
        lines = text.splitlines()
        sep = _sniff_delimiter("\n".join(lines[:-1] or lines), src.name)
        types = {columns[c]: TEXT for c in few_names if c in columns}
        table = pa_csv.read_csv(
            pa.BufferReader(src.data),
            parse_options=pa_csv.ParseOptions(delimiter=sep, ignore_empty_lines=False),
            convert_options=pa_csv.ConvertOptions(
                column_types=types,
                include_columns=theirs,
                null_values=[""],
                strings_can_be_null=False,
            ),
        )
    except (pa.ArrowException, ValueError, KeyError):
        return None
    if any(_is_bytes(f.type) for f in table.schema):  # text that is not UTF-8 somewhere
        return None
    first = table.column(columns.get("model", theirs[0]))
    if pa.types.is_dictionary(first.type) and any(
        pc.any(pc.equal(c.dictionary, "")).as_py() for c in first.chunks
    ):  # an empty line (read as a row of empty fields) or an empty name: the pandas way
        return None
    return ArrowTable(src.name, columns, 2, True, table)

"""Reading user tables: text encodings, delimiters, Parquet and JSON records (METHODS 0).

Every table reader returns a :class:`pandas.DataFrame` of strings/numbers plus the file's display
name, so the format modules can report problems as "file 'x.csv', row 7, column 'n'". Rows are
counted as a spreadsheet shows them: the header is row 1, the first data row is row 2 (for JSON
records the first record is row 1).

Long item tables (millions of rows) take the Arrow path instead: :func:`header_table` reads only
the header, and :func:`read_arrow` reads the needed columns with pyarrow (Parquet column by
column, text columns dictionary-encoded as they are read) into an :class:`ArrowTable`. Whatever
Arrow cannot read exactly as the pandas path would (UTF-16, blank lines, a parse error) returns
``None`` and goes the pandas way, which words the error.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from benchuq.core.budget import MAX_COLUMNS, MAX_MODELS, check_read
from benchuq.core.data import DataError

__all__ = [
    "BLANK_LINE",
    "KNOWN_COLUMNS",
    "ROW_NOTE",
    "JsonText",
    "Shape",
    "Source",
    "Table",
    "check_mapping",
    "decode_text",
    "first_line",
    "integer_column",
    "is_parquet",
    "jsonl_table",
    "looks_like_json",
    "number_column",
    "parse_json",
    "pruned_json",
    "read_delimited",
    "read_parquet",
    "read_table",
    "records_table",
    "rename_columns",
    "require_columns",
    "text_column",
]

ROW_NOTE = "(rows counted as in a spreadsheet: header = row 1)"
KNOWN_COLUMNS = frozenset(
    "model task category n correct accuracy estimate se chance higher_is_better item score "
    "cluster subgroup subject benchmark model_name n_scored n_test n_items acc stderr std_err "
    "standard_error epoch attempt model_a model_b winner judge prompt question_id".split()
)


@dataclass(frozen=True)
class Source:
    """One input file: its display name (a file name, never a full path) and its bytes."""

    name: str
    data: bytes


@dataclass(frozen=True)
class Table:
    """A parsed table: ``frame`` with normalised column names; ``first_row`` is the row number of
    ``frame.iloc[0]`` as reported in messages (2 for delimited text, 1 for JSON records);
    ``source_rows`` (optional) maps a frame position to a position in the original file."""

    name: str
    frame: pd.DataFrame
    first_row: int
    source_rows: np.ndarray | None = None

    def row(self, index: int) -> int:
        """Reported row number of positional index ``index``."""
        pos = int(index) if self.source_rows is None else int(self.source_rows[index])
        return self.first_row + pos

    def rows(self) -> np.ndarray:
        """Reported row numbers of all rows."""
        pos = np.arange(len(self.frame)) if self.source_rows is None else self.source_rows
        return self.first_row + np.asarray(pos, dtype=np.int64)


def decode_text(src: Source) -> str:
    """UTF-8 text (a BOM is dropped); anything else is a :class:`DataError` naming the line."""
    data = src.data
    if not data.strip():
        raise DataError(
            "the file is empty.", file=src.name, hint="upload a file with a header row."
        )
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise DataError(
                "the file starts like UTF-16 text but is not valid UTF-16.",
                file=src.name,
                hint="save the file with UTF-8 encoding (in Excel: 'CSV UTF-8').",
            ) from None
    if b"\x00" in data[:4096]:
        raise DataError(
            "the file is binary, not a text table or JSON.",
            file=src.name,
            hint="export the results as CSV, TSV, JSON or Parquet.",
        )
    if (nul := data.find(b"\x00")) >= 0:  # text with a NUL byte further on
        line = data[:nul].count(b"\n") + 1
        raise DataError(
            f"line {line} contains a NUL byte (byte {nul}).",
            file=src.name,
            row=line,
            hint="remove the NUL character (the file may be damaged).",
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise DataError(
            f"line {line} is not valid UTF-8 text (byte {err.start}).",
            file=src.name,
            row=line,
            hint="save the file with UTF-8 encoding (in Excel: 'CSV UTF-8').",
        ) from None
    if not text.strip():  # e.g. a byte-order mark alone
        raise DataError(
            "the file is empty.", file=src.name, hint="upload a file with a header row."
        )
    return text


def text_lines(src: Source) -> Iterator[tuple[int, str]]:
    """(line number, line) of a UTF-8 text file, decoded one line at a time, so a large JSON
    Lines file is never held as text besides its bytes; the same errors as :func:`decode_text`
    (UTF-16 and other odd files are decoded whole by it)."""
    data = src.data
    if not data.strip() or data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:4096]:
        yield from enumerate(decode_text(src).splitlines(), start=1)
        return
    pos = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    lineno = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        lineno += 1
        try:
            line = data[pos:end].decode("utf-8")
        except UnicodeDecodeError as err:
            raise DataError(
                f"line {lineno} is not valid UTF-8 text (byte {pos + err.start}).",
                file=src.name,
                row=lineno,
                hint="save the file with UTF-8 encoding (in Excel: 'CSV UTF-8').",
            ) from None
        yield lineno, line.removesuffix("\r")
        pos = end + 1


def _sniff_delimiter(text: str, name: str) -> str:
    """The first of ``, ; tab |`` (tab first for .tsv) that splits the header into two or more
    fields and every one of the first 50 rows into as many; else the most frequent in the header."""
    order = ["\t", ",", ";", "|"] if name.lower().endswith(".tsv") else [",", ";", "\t", "|"]
    head = "\n".join(text.splitlines()[:51])
    for sep in order:
        try:
            counts = {len(r) for r in csv.reader(io.StringIO(head), delimiter=sep) if any(r)}
        except csv.Error:
            continue
        if len(counts) == 1 and counts.pop() >= 2:
            return sep
    first = text.splitlines()[0] if text.splitlines() else ""
    return max(order, key=first.count)


BLANK_LINE = re.compile(r"\n[ \t\r]*\n[^\n]")


def read_delimited(src: Source) -> Table:
    """CSV/TSV with any of ``, ; tab |`` as delimiter (sniffed); no row may have more fields than
    the header (a short row leaves its last cells empty, reported where a value is needed)."""
    text = decode_text(src)
    sep = _sniff_delimiter(text, src.name)
    check_width(text[: text.find("\n")].count(sep) + 1, src.name)
    if BLANK_LINE.search(text.lstrip()):
        return _read_delimited_slow(src, text, sep)
    try:
        raw = pd.read_csv(
            io.StringIO(text),
            sep=sep,
            header=None,
            dtype=str,
            keep_default_na=False,
            skipinitialspace=True,
        )
    except pd.errors.ParserError as err:
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(err))
        if m is None:
            raise DataError(
                f"the table could not be parsed: {err}",
                file=src.name,
                hint="save it again as plain CSV (UTF-8, one record per line).",
            ) from None
        want, line, saw = (int(x) for x in m.groups())
        raise _field_count_error(src.name, line, saw, want, sep) from None
    header = [c.strip() or f"column {k + 1}" for k, c in enumerate(raw.iloc[0])]
    frame = raw.iloc[1:].reset_index(drop=True)
    frame.columns = header
    return Table(src.name, _normalise(frame, src.name), 2)


def check_models(models: int, name: str) -> None:
    """Refuse more than :data:`~benchuq.core.budget.MAX_MODELS` models in one file, from the
    model column's first pass, before the work per model starts."""
    if models > MAX_MODELS:
        raise DataError(
            f"the table names {models:,} different models; at most {MAX_MODELS:,} are read.",
            file=name,
            column="model",
            hint="check that the model column holds model names (not item ids or scores), or "
            "split the data.",
        )


def check_width(columns: int, name: str) -> None:
    """Refuse a table wider than :data:`~benchuq.core.budget.MAX_COLUMNS` from its header,
    before its rows are parsed."""
    if columns > MAX_COLUMNS:
        raise DataError(
            f"the table has {columns:,} columns; at most {MAX_COLUMNS:,} are read.",
            file=name,
            row=1,
            hint="write results in long form (one row per model and task: model, task, score) "
            "or keep fewer columns.",
        )


def _field_count_error(name: str, row: int, saw: int, want: int, sep: str) -> DataError:
    return DataError(
        f"this row has {saw} fields but the header has {want} {ROW_NOTE}.",
        file=name,
        row=row,
        hint=f"every row needs {want} fields separated by {sep!r}; quote fields that contain "
        "the separator.",
    )


def _read_delimited_slow(src: Source, text: str, sep: str) -> Table:
    """Row by row (when blank lines would shift pandas' row numbers)."""
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), delimiter=sep))
    except csv.Error as err:
        raise DataError(
            f"the table could not be parsed: {err}.",
            file=src.name,
            hint="save it again as plain CSV (UTF-8, one record per line).",
        ) from None
    start = next((k for k, r in enumerate(records) if any(c.strip() for c in r)), None)
    if start is None:  # only separators and blank lines
        raise DataError(
            "the table has no header row (only separators).",
            file=src.name,
            hint="the first line must name the columns (model, task, ...).",
        )
    header = [c.strip() or f"column {k + 1}" for k, c in enumerate(records[start])]
    rows, lines = [], []
    for k in range(start + 1, len(records)):
        rec = records[k]
        if not any(c.strip() for c in rec):
            continue
        if len(rec) != len(header):
            raise _field_count_error(src.name, k + 1, len(rec), len(header), sep)
        rows.append([c.strip() for c in rec])
        lines.append(k + 1)
    frame = pd.DataFrame(rows, columns=header, dtype=object)
    return Table(src.name, _normalise(frame, src.name), 0, np.array(lines, dtype=np.int64))


def read_parquet(src: Source) -> Table:
    """A Parquet file as a :class:`Table` (a DataError naming the file if unreadable)."""
    try:
        frame = pd.read_parquet(io.BytesIO(src.data))
    except Exception as err:  # pyarrow raises several unrelated types for corrupt files
        raise DataError(
            f"not a readable Parquet file ({type(err).__name__}).",
            file=src.name,
            hint="re-export the table, or save it as CSV.",
        ) from None
    return Table(src.name, _normalise(frame, src.name), 2)


def parse_json(src: Source) -> object:
    """The JSON value of a file (a :class:`DataError` with line and column if malformed)."""
    check_read(src.name, len(src.data), path="json")
    text = decode_text(src)
    try:
        return json.loads(text)
    except RecursionError:
        raise DataError(
            "the JSON is nested too deeply to read.",
            file=src.name,
            hint="results files are a few levels deep; check this is the right file.",
        ) from None
    except json.JSONDecodeError as err:
        raise DataError(
            f"invalid JSON at line {err.lineno}, character {err.colno}: {err.msg}.",
            file=src.name,
            row=err.lineno,
            hint="check the file is complete JSON (a list of records or an object).",
        ) from None


def records_table(name: str, records: object) -> Table:
    """A JSON list of flat objects as a table (record 1 = row 1)."""
    if isinstance(records, dict):
        for key in ("data", "records", "rows", "results"):
            if isinstance(records.get(key), list):
                records = records[key]
                break
    if not isinstance(records, list) or not records:
        raise DataError(
            'expected a JSON list of records such as [{"model": ..., "task": ...}, ...].',
            file=name,
            hint="write one object per model and task, or use a CSV file.",
        )
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            raise DataError(
                f"record {i + 1} is a {type(rec).__name__}, not an object.",
                file=name,
                row=i + 1,
                hint="every list element must be an object with named fields.",
            )
    try:
        frame = pd.DataFrame.from_records(records)
    except OverflowError:  # an integer beyond float (older pandas converts): checked as text
        frame = pd.DataFrame(records, dtype=object)
    return Table(name, _normalise(frame, name), 1)


def jsonl_table(src: Source) -> Table:
    """JSON Lines: one flat object per line (line 1 = row 1)."""
    records = []
    for lineno, line in enumerate(decode_text(src).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as err:
            raise DataError(
                f"line {lineno} is not valid JSON ({err.msg}).",
                file=src.name,
                row=lineno,
                hint="each line must be one JSON object.",
            ) from None
    return records_table(src.name, records)


def _normalise(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """Strip column names; our known names match case-insensitively (others keep their case)."""
    cols = [str(c).strip() for c in frame.columns]
    cols = [c.lower() if c.lower() in KNOWN_COLUMNS else c for c in cols]
    dup = sorted(c for c, k in Counter(cols).items() if k > 1)
    if dup:
        raise DataError(
            f"duplicate column names {dup}.", file=name, column=dup[0], hint="rename one of them."
        )
    frame = frame.copy()
    frame.columns = cols
    return frame.reset_index(drop=True)


def is_parquet(src: Source) -> bool:
    """Whether the file starts with Parquet's magic bytes."""
    return src.data[:4] == b"PAR1"


def first_line(src: Source, limit: int = 2**20) -> bytes:
    """The first non-blank line's bytes (at most ``limit``), found without copying the file."""
    head = src.data[:4096]
    start = len(head) - len(head.lstrip(b"\xef\xbb\xbf \t\r\n"))
    end = src.data.find(b"\n", start, start + limit)
    return src.data[start : end if end >= 0 else start + limit].rstrip(b"\r")


def looks_like_json(src: Source) -> bool:
    """Whether the file's first non-blank byte opens a JSON object or array."""
    return src.data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"[")


def read_table(src: Source) -> Table:
    """Any tabular file: Parquet, JSON records, or delimited text (pandas; within the read
    budget, :func:`~benchuq.core.budget.check_read`)."""
    check_read(src.name, len(src.data), path="pandas")
    if is_parquet(src):
        return read_parquet(src)
    if looks_like_json(src):
        return records_table(src.name, parse_json(src))
    return read_delimited(src)


def rename_columns(table: Table, columns: dict[str, str] | None) -> Table:
    """Apply a user mapping ``{their column: our column}`` (names match case-insensitively;
    columns this file does not have are ignored, see :func:`check_mapping`)."""
    if not columns:
        return table
    lower = {c.lower(): c for c in table.frame.columns}
    mapping = {}
    for k, v in columns.items():
        key = str(k).strip()
        found = key if key in table.frame.columns else lower.get(key.lower())
        if found is not None:
            mapping[found] = str(v).strip().lower()
    if not mapping:
        return table
    frame = table.frame.drop(
        columns=[c for c in mapping.values() if c in table.frame.columns and c not in mapping]
    ).rename(columns=mapping)
    return replace(table, frame=_normalise(frame, table.name))


def check_mapping(columns: dict[str, str] | None, seen: set[str], file: str) -> None:
    """Every mapped column must exist in at least one file (``seen``: all files' columns)."""
    lowered = {c.lower() for c in seen}
    missing = [k for k in columns or {} if str(k).strip().lower() not in lowered]
    if missing:
        raise DataError(
            f"the column mapping names columns that are not in the file: {missing}.",
            file=file,
            column=missing[0],
            hint=f"the file's columns are {sorted(seen)}.",
        )


def require_columns(
    table: Table, columns: tuple[str, ...], *, columns_hint: str, rows_hint: str
) -> None:
    """Raise :class:`DataError` if a required column is missing or the table has no rows."""
    present = set(table.frame.columns)
    for c in columns:
        if c not in present:
            raise DataError(
                f"missing column '{c}'; the file's columns are {sorted(present)}.",
                file=table.name,
                column=c,
                hint=columns_hint,
            )
    if len(table.frame) == 0:
        raise DataError("the table has a header but no rows.", file=table.name, hint=rows_hint)


def text_column(table: Table, column: str) -> np.ndarray:
    """A column of non-empty names (stripped); an empty cell is an error naming its row.

    From JSON: an object or list as a name is an error; a number is a name (``1`` -> ``'1'``)
    unless the column also holds that text (``"1"``), which would silently merge the two."""
    raw = table.frame[column]
    if raw.dtype == object:
        _check_json_names(table, column, raw)
        raw = _decoded(table, column, raw)
    values = raw.astype(object).where(raw.notna(), "").astype(str).str.strip().to_numpy(object)
    empty = np.flatnonzero(values == "")
    if empty.size:
        raise DataError(
            f"the {column} is empty {ROW_NOTE}.",
            file=table.name,
            row=table.row(empty[0]),
            column=column,
            hint=f"fill in the {column} name or delete the row.",
        )
    return values


def _decoded(table: Table, column: str, raw: pd.Series) -> pd.Series:
    """Bytes cells (a Parquet binary column) as UTF-8 text; bytes that are not UTF-8 are an
    error naming the row."""
    at = np.flatnonzero(raw.map(lambda v: isinstance(v, bytes)).to_numpy(bool))
    if not at.size:
        return raw
    out = raw.copy()
    for i in at:
        try:
            out.iloc[i] = raw.iloc[i].decode("utf-8")
        except UnicodeDecodeError:
            raise DataError(
                f"the {column} is not UTF-8 text {ROW_NOTE}.",
                file=table.name,
                row=table.row(int(i)),
                column=column,
                hint="store the names as UTF-8 text (a string column, not binary).",
            ) from None
    return out


def _check_json_names(table: Table, column: str, raw: pd.Series) -> None:
    """Names read from JSON: no objects, lists or booleans; no number equal to a text name."""
    kinds = raw.map(type)
    odd = np.flatnonzero(kinds.isin((dict, list, bool)).to_numpy())
    if odd.size:
        i = int(odd[0])
        raise DataError(
            f"the {column} is a JSON {type(raw.iloc[i]).__name__} ({str(raw.iloc[i])[:40]}), "
            f"not a name {ROW_NOTE}.",
            file=table.name,
            row=table.row(i),
            column=column,
            hint=f"write the {column} name as a string.",
        )
    numbers = kinds.isin((int, float)).to_numpy() & raw.notna().to_numpy()
    if numbers.any():
        texts = {v: k for k, v in enumerate(raw) if isinstance(v, str)}
        for i in map(int, np.flatnonzero(numbers)):
            if (k := texts.get(str(raw.iloc[i]))) is not None:
                raise DataError(
                    f"the {column} {raw.iloc[i]!r} (a number) and the {column} "
                    f"'{raw.iloc[k]}' (text, row {table.row(k)}) would read as the same name "
                    f"{ROW_NOTE}.",
                    file=table.name,
                    row=table.row(i),
                    column=column,
                    hint=f"write every {column} name as a string.",
                )


def number_column(table: Table, column: str, *, allow_missing: bool = False) -> np.ndarray:
    """A numeric column; text, blanks (unless allowed), NaN and infinity are errors by row."""
    raw = table.frame[column]
    if not pd.api.types.is_numeric_dtype(raw):
        if raw.dtype == object:
            # built as object (Series.map would infer a dtype: older pandas overflow on ints
            # beyond float)
            raw = pd.Series(
                [float(v) if isinstance(v, bool) else v for v in raw], raw.index, dtype=object
            )
        text = raw.where(raw.notna(), "").astype(str).str.strip().str.rstrip("%")
        blank = (text == "").to_numpy()
        x = pd.to_numeric(text.where(~blank, "nan"), errors="coerce").to_numpy(float)
    else:
        blank = np.zeros(len(raw), bool)
        x = raw.to_numpy(float)
    for i in map(int, np.flatnonzero(blank)):
        if not allow_missing:
            raise DataError(
                f"the value is missing {ROW_NOTE}.",
                file=table.name,
                row=table.row(i),
                column=column,
                hint="fill in a number or delete the row.",
            )
    bad = np.flatnonzero(~np.isfinite(x) & ~blank)
    if bad.size:
        i = int(bad[0])
        v = str(raw.iloc[i])[:40]
        kind = "a finite number" if v.strip().lower() in _NONFINITE else "a number"
        raise DataError(
            f"{v!r} is not {kind} {ROW_NOTE}.",
            file=table.name,
            row=table.row(i),
            column=column,
            hint="use plain finite numbers with '.' as the decimal mark (no NaN or infinity).",
        )
    return x


_NONFINITE = {"nan", "inf", "-inf", "+inf", "infinity", "-infinity", "none", "null", "na", "n/a"}


def _count_error(table: Table, column: str, i: int, what: str) -> DataError:
    return DataError(
        f"{what} for a count {ROW_NOTE}.",
        file=table.name,
        row=table.row(i),
        column=column,
        hint=f"'{column}' counts items; give whole numbers up to {2**53:,}.",
    )


def integer_column(table: Table, column: str) -> np.ndarray:
    """A column of whole numbers (``12`` or ``12.0``); fractions, booleans and counts beyond
    2**53 (not exact as floats) are errors by row."""
    raw = table.frame[column]
    flags = np.flatnonzero(raw.map(lambda v: isinstance(v, bool | np.bool_)).to_numpy(bool))
    if flags.size:
        raise _count_error(
            table, column, int(flags[0]), f"a boolean ({raw.iloc[int(flags[0])]}) is not valid"
        )
    x = number_column(table, column)
    big = np.flatnonzero(np.abs(x) > 2.0**53)
    if big.size:
        raise _count_error(table, column, int(big[0]), f"{x[big[0]]:g} is too large")
    bad = np.flatnonzero(np.abs(x - np.round(x)) > 1e-9)
    if bad.size:
        raise DataError(
            f"{x[bad[0]]:g} is not a whole number {ROW_NOTE}.",
            file=table.name,
            row=table.row(bad[0]),
            column=column,
            hint=f"'{column}' counts items; give whole numbers (or use an 'accuracy' column).",
        )
    return np.round(x).astype(np.int64)


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
        """The file's column ``column``, a chunk per row group."""
        return pq.read_table(
            pa.BufferReader(self.buffer),
            columns=[column],
            read_dictionary=list(self.read_dictionary),
        ).column(0)


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


# ---- JSON read value by value (large inspect_ai logs, issue 18) ------------------------------
#: What :meth:`JsonText.pruned` keeps of a JSON value: ``"value"`` (the value itself), a dict
#: of the keys kept and their shapes (``"*"``: every key), or a one-element list (each element's).
Shape = str | dict[str, "Shape"] | list["Shape"]
UTF8_CHUNK = 2**20  # bytes of a file checked as UTF-8 at a time
_OBJECT = re.compile(rb"(\xef\xbb\xbf)?[ \t\n\r]*\{")  # the start of a JSON object
#: A structural character with JSON's whitespace around it.
_TOKEN = re.compile(r"[ \t\n\r]*([^ \t\n\r])[ \t\n\r]*")
#: Reads a JSON value without keeping its objects (each becomes ``None`` once read; an array
#: holds its elements until it ends): skipped messages and events are never built whole.
_SKIP = json.JSONDecoder(object_pairs_hook=lambda pairs: None)


@dataclass(frozen=True)
class JsonText:
    """A UTF-8 JSON file read value by value, so that what is skipped is never built.

    ``text`` is the file's bytes decoded as Latin-1: a character per byte, so a position in it
    is a byte position and it costs the file's size whatever characters the file holds (decoded
    as UTF-8, non-ASCII text would make it 2 to 4 times larger). The structure is checked here,
    skipped values by json's own scanner, and kept values are decoded from their bytes, so a walk
    accepts exactly what ``json.loads`` accepts. Where the JSON is malformed a walk raises
    ``ValueError`` (unworded: :func:`pruned_json` then returns ``None``)."""

    data: bytes
    text: str
    start: int  # after a UTF-8 byte-order mark

    def skip(self, pos: int) -> int:
        """The end of the JSON value at ``pos`` (checked, not kept)."""
        return int(_SKIP.raw_decode(self.text, pos)[1])

    def value(self, pos: int) -> tuple[object, int]:
        """The JSON value at ``pos`` and its end."""
        end = self.skip(pos)
        return json.loads(self.data[pos:end]), end

    def token(self, pos: int, chars: str) -> tuple[str, int]:
        """The one of ``chars`` next after whitespace at ``pos``, and the position after it and
        the whitespace that follows (a ValueError if another character or the end is there)."""
        match = _TOKEN.match(self.text, pos)
        if match is None or match[1] not in chars:
            raise ValueError(f"expected one of {chars!r} after byte {pos}")
        return match[1], match.end()

    def members(self, pos: int, take: Callable[[str, int], int]) -> int:
        """Walk the object at ``pos``: ``take(key, at)`` reads or skips the value at ``at`` and
        returns its end. Returns the end of the object (and of the whitespace after it)."""
        _, pos = self.token(pos, "{")
        if self.text[pos : pos + 1] == "}":
            return self.token(pos, "}")[1]
        while True:
            if self.text[pos : pos + 1] != '"':
                raise ValueError(f"expected a key at byte {pos}")
            key, end = _SKIP.raw_decode(self.text, pos)
            if not key.isascii():  # the characters of its bytes, not their Latin-1 reading
                key = json.loads(self.data[pos:end])
            char, pos = self.token(take(key, self.token(end, ":")[1]), ",}")
            if char == "}":
                return pos

    def elements(self, pos: int, take: Callable[[int], int]) -> int:
        """Walk the array at ``pos``: ``take(at)`` reads or skips the element at ``at`` and returns
        its end. Returns the end of the array (and of the whitespace after it)."""
        _, pos = self.token(pos, "[")
        if self.text[pos : pos + 1] == "]":
            return self.token(pos, "]")[1]
        while True:
            char, pos = self.token(take(pos), ",]")
            if char == "]":
                return pos

    def pruned(self, pos: int, shape: Shape) -> tuple[object, int]:
        """The JSON value at ``pos`` with only the parts named by ``shape`` (see :data:`Shape`),
        and its end. A value that is not the object or array its shape names is skipped and read
        as ``None``."""
        if isinstance(shape, str):
            return self.value(pos)
        if self.text[pos : pos + 1] != ("[" if isinstance(shape, list) else "{"):
            return None, self.skip(pos)
        if isinstance(shape, list):
            items: list[object] = []

            def element(at: int) -> int:
                item, end = self.pruned(at, shape[0])
                items.append(item)
                return end

            return items, self.elements(pos, element)
        return self.kept(pos, shape)

    def kept(self, pos: int, shape: dict[str, Shape]) -> tuple[dict[str, object], int]:
        """The object at ``pos`` with the keys ``shape`` names (pruned by their shapes) and its
        end; other keys are skipped (a repeated key: the last one, as ``json.loads`` does)."""
        kept: dict[str, object] = {}

        def member(key: str, at: int) -> int:
            inner = shape.get(key, shape.get("*"))
            if inner is None:
                return self.skip(at)
            kept[key], end = self.pruned(at, inner)
            return end

        return kept, self.members(pos, member)


def _json_text(src: Source) -> JsonText | None:
    """The file as :class:`JsonText`, or ``None`` if it is not UTF-8 text (UTF-16, undecodable:
    :func:`decode_text` words it)."""
    data = src.data
    start = 3 if data.startswith(codecs.BOM_UTF8) else 0
    if not data.isascii():
        decoder = codecs.getincrementaldecoder("utf-8")()
        view = memoryview(data)
        try:  # a MB at a time: no decoded copy of the whole file
            for at in range(start, len(data), UTF8_CHUNK):
                decoder.decode(view[at : at + UTF8_CHUNK], final=at + UTF8_CHUNK >= len(data))
        except UnicodeDecodeError:
            return None
    return JsonText(data, data.decode("latin-1"), start)


def pruned_json(src: Source, shape: dict[str, Shape]) -> dict[str, object] | None:
    """The file's JSON object with only the parts ``shape`` names (:meth:`JsonText.kept`), or
    ``None`` where this cannot read it (not UTF-8, not an object, malformed, nested too deeply):
    the caller then reads it with :func:`parse_json`, which words the error."""
    text = _json_text(src) if _OBJECT.match(src.data) else None
    if text is None:
        return None
    try:
        kept, end = text.kept(text.start, shape)
    except (ValueError, RecursionError):
        return None
    return kept if end == len(text.text) else None  # nothing after the object

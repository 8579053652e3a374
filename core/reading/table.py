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

Long on purpose: the pandas reading path of tables with the row and column bookkeeping its
error messages need (the Arrow path and the JSON walker are their own modules).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from benchuq.core.budget import MAX_COLUMNS, MAX_MODELS, check_read
from benchuq.core.data import DataError

__all__ = [
    "BLANK_LINE",
    "KNOWN_COLUMNS",
    "ROW_NOTE",
    "Source",
    "Table",
    "check_mapping",
    "decode_text",
    "first_line",
    "integer_column",
    "is_parquet",
    "json_objects",
    "jsonl_table",
    "looks_like_json",
    "number_column",
    "parse_json",
    "read_delimited",
    "read_mapped_table",
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


def json_objects(
    src: Source, *, hint: str, parse_hint: str | None = None
) -> Iterator[tuple[int, dict]]:
    """(line number, object) of each non-blank line of a JSON Lines file (:func:`text_lines`).

    A line that is not JSON, or not a JSON object, is a :class:`DataError` naming it, with
    ``hint`` (``parse_hint``, when given, for a line that is not JSON)."""
    for lineno, line in text_lines(src):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as err:
            raise DataError(
                f"line {lineno} is not JSON ({err.args[0][:60]}).",
                file=src.name,
                row=lineno,
                hint=hint if parse_hint is None else parse_hint,
            ) from None
        if not isinstance(obj, dict):
            raise DataError(
                f"line {lineno} is not a JSON object.", file=src.name, row=lineno, hint=hint
            )
        yield lineno, obj


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


def first_line(src: Source, *, limit: int = 2**20) -> bytes:
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


def read_mapped_table(src: Source, *, columns: Mapping[str, str] | None = None) -> Table:
    """A table file with the upload's column mapping applied: JSON Lines by name, else Parquet,
    JSON records or delimited text (:func:`read_table`), then ``columns`` (:func:`rename_columns`;
    none: the table as read). The one reader of the battles and judge readers."""
    table = jsonl_table(src) if src.name.lower().endswith(".jsonl") else read_table(src)
    return rename_columns(table, dict(columns) if columns else None)


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

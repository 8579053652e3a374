"""What a file is, judged by its content: a result of some format, an auxiliary file, or neither.

One file given alone is always taken to be a result (a problem with it is reported, as before).
In a collection (a folder, an archive, several files) a file that does not claim to be a result
is kind ``"other"`` with a reason, and the loader skips it with one note. A file claims to be a
result when its content says so:

- a format of the table :data:`.formats.FORMATS` claims it (inspect_ai ``.eval`` and JSON logs,
  lighteval details and results, OpenAI evals logs, Every Eval Ever aggregates and
  instance-level files): asked first, from the file's name and first bytes or header;
- JSON: an lm-eval results object, a HELM run file, or a list of records whose
  columns claim a table (below); a ``.json``/``.jsonl`` file that is not valid JSON claims too
  (it is probably a damaged result) when it is named like one or holds ``doc_id`` records;
- JSON Lines with ``doc_id`` records (lm-eval ``--log_samples``);
- a table (delimited text, Parquet, JSON records) with a ``model`` column, the item or AlpacaEval
  columns, a task table's columns, or a wide leaderboard's shape (a first column of names and
  mostly numbers in the others).

Everything else (README, LICENSE, logs, YAML, config JSON, binary files) is ``"other"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

import numpy as np
import pandas as pd

from benchuq.core.data import DataError
from benchuq.core.reading import battles
from benchuq.core.reading.arrow import ArrowTable, header_table, read_arrow
from benchuq.core.reading.formats import FORMATS, claiming
from benchuq.core.reading.helm import helm_kind
from benchuq.core.reading.inspect_log import is_inspect
from benchuq.core.reading.items import FEW_NAMES, ITEM_COLUMNS
from benchuq.core.reading.judged import is_alpaca, is_alpaca_leaderboard
from benchuq.core.reading.lm_eval import is_results
from benchuq.core.reading.lm_eval_names import SAMPLES_RE
from benchuq.core.reading.long import apply_aliases
from benchuq.core.reading.table import (
    Source,
    Table,
    decode_text,
    is_parquet,
    jsonl_table,
    looks_like_json,
    parse_json,
    read_table,
    records_table,
    rename_columns,
)

__all__ = ["AUX_LABELS", "DATA_KINDS", "File", "classify", "detect_format", "file_columns"]

DATA_KINDS = tuple(
    dict.fromkeys(
        (
            "long",
            "wide",
            "items",
            "lm_eval",
            "lm_eval_samples",
            "alpaca_eval",
            "inspect",
            "helm",
            *(f.KIND for f in FORMATS),
        )
    )
)
AUX_LABELS = {
    "task_table": "a task table (task, category, n)",
    "instructions": "an AlpacaEval instruction list",
    "alpaca_leaderboard": "an AlpacaEval leaderboard summary",
    "helm_spec": "a HELM run_spec.json",
    "helm_stats": "a HELM stats.json",
}
#: With a ``model`` column, any of these marks a long table (so a missing ``task`` is reported).
LONG_SCORE_COLUMNS = frozenset({"n", "correct", "accuracy", "estimate", "se"})
#: Names of files that are documentation or configuration, never results.
TEXT_HEAD = 2**20  # bytes of a collection member checked as text before it is read
TEXT_SUFFIXES = frozenset(
    ".md .rst .yaml .yml .toml .ini .cfg .conf .log .out .err .py .sh .ipynb .html .htm .xml "
    ".lock".split()
)


@dataclass
class File:
    """One input file after classification: its kind, what was parsed, and for ``"other"`` why."""

    src: Source
    kind: str
    table: Table | ArrowTable | list[ArrowTable] | None = None  # Arrow: item tables (issue 18)
    raw_columns: tuple[str, ...] = ()
    reason: str = ""
    obj: object = None  # the parsed JSON of a JSON file (read once)


def classify(src: Source, columns: dict[str, str] | None, *, lenient: bool = False) -> File:
    """Detect one file's kind from its content (``lenient``: a collection member, see above)."""
    if (fmt := claiming(src)) is not None:
        return File(src, fmt.KIND)
    if not lenient:
        return _classify(src, columns)
    base = PurePosixPath(src.name).name
    suffix = PurePosixPath(base).suffix.lower()
    if suffix in TEXT_SUFFIXES:
        return File(src, "other", reason=f"a {suffix} file (documentation or configuration)")
    if not src.data or src.data.isspace():
        return File(src, "other", reason="empty")
    try:
        if not is_parquet(src):
            decode_text(_text_head(src))
    except DataError:
        return File(src, "other", reason="not text (binary)")
    obj = None
    if looks_like_json(src) and suffix != ".jsonl":
        try:
            obj = parse_json(src)
        except DataError:
            if suffix == ".json":
                raise  # a damaged .json file: probably a result
            return File(src, "other", reason="not valid JSON")
        if not (is_results(obj) or is_inspect(obj) or helm_kind(obj) or _records(obj)):
            return File(src, "other", reason="JSON without results")
    try:
        f = _classify(src, columns, obj)
    except DataError:
        if suffix in (".json", ".jsonl", ".parquet", ".pq") or _header_claims(src):
            raise
        return File(src, "other", reason="text that is not a table")
    if f.kind == "wide" and not (isinstance(f.table, Table) and _wide_shaped(f.table)):
        return File(src, "other", reason="a table without a model column")
    return f


def _text_head(src: Source) -> Source:
    """The first whole lines of a large UTF-8 file (up to 1 MB): enough to tell text from binary
    in a collection without decoding a large file whole (its reader checks the rest)."""
    if len(src.data) <= TEXT_HEAD or src.data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return src
    end = src.data.rfind(b"\n", 0, TEXT_HEAD)
    return Source(src.name, src.data[: end + 1 if end > 0 else TEXT_HEAD])


def _header_claims(src: Source) -> bool:
    """A text table whose header names a column of ours (``model``, ``task``, ``item`` ...)."""
    lines = [ln for ln in decode_text(_text_head(src)).splitlines()[:5] if ln.strip()]
    if not lines:
        return False
    names = {t.strip().strip('"').lower() for t in re.split(r"[,;\t|]", lines[0])}
    return bool(names & {"model", "task", "item", "generator_2", "model_name"})


def _records(obj: object) -> bool:
    """A JSON list of records (or an object holding one under data/records/rows/results)."""
    if isinstance(obj, dict):
        obj = next((obj[k] for k in ("data", "records", "rows", "results") if k in obj), None)
    return isinstance(obj, list) and bool(obj) and all(isinstance(r, dict) for r in obj)


def _classify(src: Source, columns: dict[str, str] | None, obj: object = None) -> File:
    base = src.name.rsplit("/", 1)[-1]
    if PurePosixPath(base).suffix.lower() in (".parquet", ".pq") and not is_parquet(src):
        raise DataError(  # read as text it gave a message about a wide table's columns
            "not a Parquet file: it does not begin with Parquet's signature (PAR1), so it is "
            "damaged, incomplete or another format named .parquet.",
            file=src.name,
            hint="write it again (pandas: df.to_parquet(path)) or give the file its real suffix.",
        )
    if SAMPLES_RE.match(base) or (base.endswith(".jsonl") and b'"doc_id"' in src.data[:100000]):
        return File(src, "lm_eval_samples")
    head = header_table(src)  # long item tables: read at Arrow speed (issue 18)
    if head is not None and (f := _table_kind(src, head, columns)).kind == "items":
        arrow = read_arrow(src, apply_aliases(rename_columns(head, columns)), FEW_NAMES)
        if arrow is not None:
            return File(src, "items", arrow, f.raw_columns)
    if base.endswith(".jsonl"):
        return _table_kind(src, jsonl_table(src), columns)
    if is_parquet(src):
        return _table_kind(src, read_table(src), columns)
    if looks_like_json(src):
        obj = parse_json(src) if obj is None else obj
        if is_results(obj):
            return File(src, "lm_eval", obj=obj)
        if is_inspect(obj):  # a log the value-by-value walk could not read, parsed whole
            return File(src, "inspect", obj=obj)
        if kind := helm_kind(obj):
            return File(src, kind, obj=obj)
        return _table_kind(src, records_table(src.name, obj), columns)
    return _table_kind(src, read_table(src), columns)


def _table_kind(src: Source, raw: Table, columns: dict[str, str] | None) -> File:
    table = rename_columns(raw, columns)
    cols = set(apply_aliases(table).frame.columns)
    if battles.is_battles(cols):
        kind = battles.KIND
    elif is_alpaca(cols):
        kind = "alpaca_eval"
    elif is_alpaca_leaderboard(set(table.frame.columns)):
        kind = "alpaca_leaderboard"
    elif set(ITEM_COLUMNS) <= cols:
        kind = "items"
    elif {"item", "judge", "human"} <= cols:
        raise DataError(
            "this is a judge's scores with human labels (columns item, judge, human), not "
            "scores per model and task or item.",
            file=src.name,
            column="judge",
            hint="read it on its own with benchuq judge FILE (bq.judge(FILE), the Judge page); "
            "bq.judge(FILE).to_benchmark() gives the corrected scores for a leaderboard.",
        )
    elif {"model", "task"} <= cols or ("model" in cols and cols & LONG_SCORE_COLUMNS):
        kind = "long"
    elif "task" in cols and cols & {"category", "n"} and "model" not in cols:
        kind = "task_table"
    elif {"instruction", "instruction_index"} <= cols:
        kind = "instructions"
    else:
        kind = "wide"
    return File(src, kind, table, tuple(str(c) for c in raw.frame.columns))


def _wide_shaped(table: Table) -> bool:
    """A ``model`` column, or names in the first column and numbers in most other cells."""
    frame = table.frame
    if "model" in frame.columns:
        return True
    if frame.shape[1] < 2 or frame.shape[0] < 1:
        return False
    cells = frame.iloc[:, 1:].to_numpy(object).ravel()
    cells = np.array([c for c in cells if c is not None and str(c).strip() != ""], dtype=object)
    if cells.size == 0:
        return False
    numbers = pd.to_numeric(pd.Series(cells).astype(str).str.rstrip("%"), errors="coerce")
    return bool(numbers.notna().mean() >= 0.5)


def detect_format(src: Source) -> str:
    """The format ``auto`` picks for one file (``task_table`` etc. for auxiliary files)."""
    return classify(src, None).kind


def file_columns(file: tuple[str, bytes]) -> list[str]:
    """The column names of a table file, for a column mapper (empty for JSON result logs)."""
    f = classify(Source(str(file[0]), bytes(file[1])), None)
    return list(f.raw_columns)

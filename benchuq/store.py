"""Published data sets: a loaded :class:`Benchmark` stored behind an unguessable link.

``publish`` stores the parsed data (Parquet: tasks, per-model results, item scores) with JSON
metadata and provenance notes (never the uploaded files, never a pickle) under a random id of
160 bits, and returns a delete token that only the publisher sees; ``load`` reads it back and
validates it as a fresh load does; ``unpublish`` deletes it with that token.

Where (``BENCHUQ_STORE``): a folder (default ``~/.benchuq/store``: a SQLite index ``index.db``
and the files under ``data/``), or an S3-compatible object store ``s3://bucket/prefix`` through
fsspec/s3fs (``pip install benchuq[s3]``; ``BENCHUQ_STORE_ENDPOINT`` for a non-AWS server,
credentials from the usual ``AWS_*`` variables), where each index record is a small JSON object
under ``index/``. Limits: ``BENCHUQ_STORE_MAX_MB`` (25) per data set, ``BENCHUQ_STORE_DAYS``
(90) until a data set expires, at most ``BENCHUQ_STORE_MAX_DAYS`` (365).

Choices:
- The index and the paths are keyed by SHA-256 of the id, and the token is kept only as its
  SHA-256: the store holds no id and no token, so a leaked copy of it (or a listing of the
  bucket) gives no link and no way to delete. Nothing lists ids.
- Data files sit under ``data/<expiry date>/<key>/``: expired data is removed by deleting whole
  past-date folders (on each publish, and when an expired id is opened). Index records stay, so
  an expired or deleted id gets a message saying so rather than "unknown".
- Parquet files are written without pyarrow's embedded schema and any file that carries one
  (or any other key-value metadata) is refused: Arrow types then come only from Parquet's own
  types, so no extension type (the route of pyarrow's pickle CVE-2023-47248) is ever read.

Long on purpose: the store is one security boundary (ids and tokens, the stored format and its
validation, the index, faults and integrity); everything that writes or reads stored bytes
stays in this one reviewed file.
"""

from __future__ import annotations

import base64
import errno
import functools
import hashlib
import hmac
import io
import json
import logging
import os
import re
import secrets
import shutil
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from benchuq.core.data import Benchmark, DataError, ItemTask
from benchuq.core.reading.meta import Group, Loaded, Meta
from benchuq.core.reading.sources import SHARED

__all__ = [
    "PREFIX",
    "Receipt",
    "Store",
    "StoreConfig",
    "StoreError",
    "decode",
    "encode",
    "load_shared",
    "open_store",
    "parse_shared",
    "read_shared",
]

T = TypeVar("T")
_LOG = logging.getLogger("benchuq.store")
PREFIX = SHARED  # the source-string prefix of a published data set (core.reading.sources)
ID_BYTES = 20  # 160 random bits
ID_RE = re.compile(r"[a-z2-7]{32}")
FORMAT = "benchuq.shared"
VERSION = 1
META_LIMIT = 1 << 20  # bytes of meta.json
DESCRIPTION_LIMIT = 2000  # characters of a published data set's description
STALE_SECONDS = 3600  # a staging folder this old belongs to no publish in progress
DEFAULTS = {"days": 90, "max_days": 365, "max_mb": 25.0}


class StoreError(DataError):
    """A publish, load or delete the store refuses (unknown, expired, deleted, too big...)."""


def _env_number(environ: Mapping[str, str], name: str, default: float, kind: type) -> Any:
    raw = environ.get(name, "").strip()
    if not raw:
        return kind(default)
    try:
        value = kind(raw)
    except ValueError:
        value = 0
    if not value > 0:
        what = "a whole number" if kind is int else "a number"
        raise StoreError(f"{name}={raw!r} must be {what} > 0.", hint=f"unset it for {default}.")
    return value


@dataclass(frozen=True)
class StoreConfig:
    """Where the store is and its limits (see the module docstring for the variables)."""

    location: str = "~/.benchuq/store"
    endpoint: str | None = None
    days: int = int(DEFAULTS["days"])
    max_days: int = int(DEFAULTS["max_days"])
    max_bytes: int = int(DEFAULTS["max_mb"] * 1e6)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> StoreConfig:
        """The settings from ``BENCHUQ_STORE*`` environment variables (defaults where unset)."""
        env = os.environ if environ is None else environ
        days = _env_number(env, "BENCHUQ_STORE_DAYS", DEFAULTS["days"], int)
        max_days = _env_number(env, "BENCHUQ_STORE_MAX_DAYS", DEFAULTS["max_days"], int)
        max_mb = _env_number(env, "BENCHUQ_STORE_MAX_MB", DEFAULTS["max_mb"], float)
        return cls(
            location=env.get("BENCHUQ_STORE", "").strip() or cls.location,
            endpoint=env.get("BENCHUQ_STORE_ENDPOINT", "").strip() or None,
            days=min(days, max_days),
            max_days=max_days,
            max_bytes=int(max_mb * 1e6),
        )

    @property
    def is_s3(self) -> bool:
        """True for an S3-compatible object store (``s3://bucket/prefix``)."""
        return self.location.startswith("s3://")

    def describe(self) -> str:
        """Where the data goes, for anyone who may read it: no credentials and no server path
        (a visitor of the app sees this text)."""
        if self.is_s3:
            return "this server's object store"
        return "this server's store"

    def location_for_operator(self) -> str:
        """Where the data goes, for the person running the server or the CLI (paths shown)."""
        if self.is_s3:
            return f"the object store {self.location}"
        return f"the folder {Path(self.location).expanduser()}"


@dataclass(frozen=True)
class Receipt:
    """What the publisher gets back: the id, the delete token (shown once) and the expiry."""

    id: str
    delete_token: str
    expires: datetime

    @property
    def link(self) -> str:
        """The query string that opens the data set (append it to the app's address)."""
        return f"?data={PREFIX}{self.id}"

    @property
    def delete_link(self) -> str:
        """The Data page's path and query that ask to delete it (append to the app's address)."""
        return f"data?data={PREFIX}{self.id}&delete={self.delete_token}"

    def to_json(self) -> dict[str, str]:
        """The receipt as ``benchuq publish --json`` prints it."""
        return {
            "id": self.id,
            "link": self.link,
            "delete_token": self.delete_token,
            "delete_link": self.delete_link,
            "expires": _iso(self.expires),
        }


def _iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_iso(s: str) -> datetime:
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def new_id() -> str:
    """A fresh id: 160 bits from the operating system's CSPRNG as 32 lowercase base32 letters
    and digits (no '-' that a command line could read as a flag, no case to lose)."""
    return base64.b32encode(secrets.token_bytes(ID_BYTES)).decode().lower()


def parse_shared(data: str) -> str:
    """The id of ``shared:<id>`` (or of a bare id); a malformed one is a :class:`StoreError`."""
    ident = data.removeprefix(PREFIX).strip()
    if not ID_RE.fullmatch(ident):
        raise StoreError(
            f"'{data[:60]}' is not a published data set id.",
            hint="copy the whole link: an id is 32 letters and digits after 'shared:'.",
        )
    return ident


# ---- the stored form: Parquet tables plus meta.json ---------------------------------------------
def _parquet(columns: dict[str, pa.Array]) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf, store_schema=False)
    return buf.getvalue()


def encode(
    bench: Benchmark,
    provenance: Mapping[str, str],
    groups: Sequence[Group] = (),
    description: str = "",
) -> dict[str, bytes]:
    """The files of one stored data set: ``meta.json``, ``tasks.parquet``, ``results.parquet``
    and, for item-level data, ``items.parquet`` (one row per task, item and model). ``groups``
    (lm-eval's task groups, which decide the overall score) go into ``meta.json``;
    ``description``: the publisher's optional words about the data (``meta.json`` holds it only
    when given, so sets stored before it existed read the same)."""
    M, T = bench.shape
    models = np.array(bench.models, dtype=object)
    tasks = np.array(bench.tasks, dtype=object)
    files = {
        "tasks.parquet": _parquet(
            {
                "task": pa.array(bench.tasks, pa.string()),
                "category": pa.array(bench.categories, pa.string()),
                "chance": pa.array(bench.chance, pa.float64()),
                "higher_is_better": pa.array(bench.higher_is_better, pa.bool_()),
            }
        )
    }
    results = {
        "model": pa.array(np.repeat(models, T), pa.string()),
        "task": pa.array(np.tile(tasks, M), pa.string()),
        "estimate": pa.array(bench.estimate.ravel(), pa.float64()),
    }
    for name in ("n", "correct", "se"):
        value = getattr(bench, name)
        if value is not None:
            results[name] = pa.array(value.ravel(), pa.int64() if name != "se" else pa.float64())
    files["results.parquet"] = _parquet(results)
    if bench.item_tasks is not None:
        files["items.parquet"] = _parquet(_item_columns(bench))
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "name": bench.name,
        "kind": bench.kind,
        "models": list(bench.models),
        "notes": list(bench.notes),
        "provenance": dict(provenance),
    }
    if groups:  # optional: data sets published before groups were kept have none
        meta["groups"] = [
            {"name": g.name, "tasks": list(g.tasks), "parent": g.parent, "aggregate": g.aggregate}
            for g in groups
        ]
    if description.strip():  # optional (issue 30)
        meta["description"] = description.strip()[:DESCRIPTION_LIMIT]
    files["meta.json"] = json.dumps(meta, ensure_ascii=False, indent=1).encode()
    return files


def _item_columns(bench: Benchmark) -> dict[str, pa.Array]:
    M = len(bench.models)
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("task", "item", "model", "score")}
    labels: dict[str, list[np.ndarray]] = {"cluster": [], "subgroup": []}
    for task, it in zip(bench.tasks, bench.item_tasks or (), strict=True):
        n = len(it.items)
        cols["task"].append(np.full(n * M, task, dtype=object))
        cols["item"].append(np.repeat(np.array(it.items, dtype=object), M))
        cols["model"].append(np.tile(np.array(bench.models, dtype=object), n))
        cols["score"].append(np.asarray(it.scores, float).T.ravel())
        for name in labels:
            value = getattr(it, name)
            rows = np.full(n * M, None, object) if value is None else np.repeat(value, M)
            labels[name].append(np.asarray(rows, dtype=object))
    joined = {k: np.concatenate(v) if v else np.array([], object) for k, v in cols.items()}
    out = {k: pa.array(v, pa.float64() if k == "score" else pa.string()) for k, v in joined.items()}
    for name, parts in labels.items():
        out[name] = pa.array(np.concatenate(parts) if parts else [], pa.string())
    if any(it.answers is not None for it in bench.item_tasks or ()):  # repeated answers (#26)
        tasks = bench.item_tasks or ()
        out["answers"] = pa.array(
            np.concatenate([it.answer_counts.T.ravel() for it in tasks]), pa.int64()
        )
        out["answer_sq"] = pa.array(
            np.concatenate(
                [
                    (it.answer_sq if it.answer_sq is not None else it.scores**2).T.ravel()
                    for it in tasks
                ]
            ),
            pa.float64(),
        )
    return out


SCHEMAS: dict[str, dict[str, pa.DataType]] = {
    "tasks.parquet": {
        "task": pa.string(),
        "category": pa.string(),
        "chance": pa.float64(),
        "higher_is_better": pa.bool_(),
    },
    "results.parquet": {
        "model": pa.string(),
        "task": pa.string(),
        "estimate": pa.float64(),
        "n": pa.int64(),
        "correct": pa.int64(),
        "se": pa.float64(),
    },
    "items.parquet": {
        "task": pa.string(),
        "item": pa.string(),
        "model": pa.string(),
        "score": pa.float64(),
        "cluster": pa.string(),
        "subgroup": pa.string(),
        "answers": pa.int64(),  # optional: repeated answers per item (issue 26)
        "answer_sq": pa.float64(),
    },
}
REQUIRED = {
    "tasks.parquet": set(SCHEMAS["tasks.parquet"]),
    "results.parquet": {"model", "task", "estimate"},
    "items.parquet": set(SCHEMAS["items.parquet"]) - {"answers", "answer_sq"},
}


def _damaged(what: str, file: str) -> StoreError:
    return StoreError(
        f"the stored data is damaged or not benchuq's: {what}.",
        file=file,
        hint="ask the publisher to publish the data set again.",
    )


def _read_parquet(name: str, data: bytes) -> dict[str, np.ndarray]:
    """Columns of a stored Parquet file as numpy arrays, after checking the footer and schema."""
    try:
        footer = pq.read_metadata(pa.BufferReader(data))
    except (pa.ArrowException, OSError) as err:
        raise _damaged(f"not a Parquet file ({err})", name) from None
    if footer.metadata:  # an embedded Arrow schema could name extension types: never read one
        raise _damaged("it carries Arrow schema metadata", name)
    try:
        table = pq.read_table(pa.BufferReader(data))
    except (pa.ArrowException, OSError) as err:
        raise _damaged(f"unreadable Parquet ({err})", name) from None
    expected = SCHEMAS[name]
    have = {f.name: f.type for f in table.schema}
    wrong = [c for c, t in have.items() if expected.get(c) != t]
    missing = REQUIRED[name] - set(have)
    if wrong or missing or len(have) != table.num_columns:
        raise _damaged(f"columns {sorted(have)} (missing {sorted(missing)})", name)
    out = {}
    for col in have:
        column = table.column(col)
        if expected[col] == pa.string():
            out[col] = np.array(column.to_pylist(), dtype=object)
        elif column.null_count:
            raise _damaged(f"missing values in column '{col}'", name)
        else:
            out[col] = column.to_numpy()
    return out


def _meta(data: bytes) -> dict[str, Any]:
    if len(data) > META_LIMIT:
        raise _damaged("meta.json is too large", "meta.json")
    try:
        meta = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise _damaged(f"meta.json is not JSON ({err})", "meta.json") from None
    types = {
        "format": str,
        "version": int,
        "name": str,
        "kind": str,
        "models": list,
        "notes": list,
        "provenance": dict,
    }
    optional = {"groups", "description"}  # added later; older sets have none
    if not isinstance(meta, dict) or set(meta) - optional != set(types):
        raise _damaged("meta.json has other fields than expected", "meta.json")
    if meta["format"] != FORMAT or meta["version"] != VERSION:
        raise _damaged(f"format {meta['format']!r} version {meta['version']!r}", "meta.json")
    for key, kind in (types | {"description": str}).items():
        if key in meta and not isinstance(meta[key], kind):
            raise _damaged(f"meta.json field '{key}' is not a {kind.__name__}", "meta.json")
    strings = [*meta["models"], *meta["notes"], *meta["provenance"].values()]
    if not all(isinstance(s, str) for s in strings):
        raise _damaged("meta.json lists hold something other than text", "meta.json")
    meta["groups"] = _groups(meta.get("groups", []))
    return meta


def _groups(raw: object) -> tuple[Group, ...]:
    """The stored lm-eval groups, each field checked for its type."""
    fields = {"name", "tasks", "parent", "aggregate"}
    if not isinstance(raw, list) or not all(
        isinstance(g, dict)
        and set(g) == fields
        and isinstance(g["name"], str)
        and isinstance(g["tasks"], list)
        and all(isinstance(t, str) for t in g["tasks"])
        and (g["parent"] is None or isinstance(g["parent"], str))
        and isinstance(g["aggregate"], str)
        for g in raw
    ):
        raise _damaged("meta.json field 'groups' is malformed", "meta.json")
    return tuple(Group(g["name"], tuple(g["tasks"]), g["parent"], g["aggregate"]) for g in raw)


def decode(files: Mapping[str, bytes]) -> Benchmark:
    """The :class:`Benchmark` of stored files (see :func:`encode`), checked as a fresh load is:
    exact schemas, names matching across files, item scores in [0, 1], and every check of
    ``Benchmark`` itself. Never executes anything from the files."""
    meta = _meta(files["meta.json"])
    tasks = _read_parquet("tasks.parquet", files["tasks.parquet"])
    res = _read_parquet("results.parquet", files["results.parquet"])
    models = tuple(meta["models"])
    names = tuple(tasks["task"])
    M, T = len(models), len(names)
    if any(x is None for x in (*names, *tasks["category"], *res["model"], *res["task"])):
        raise _damaged("empty names", "results.parquet")
    grid_models = np.repeat(np.array(models, dtype=object), T)
    grid_tasks = np.tile(np.array(names, dtype=object), M)
    if len(res["model"]) != M * T or not (
        np.array_equal(res["model"], grid_models) and np.array_equal(res["task"], grid_tasks)
    ):
        raise _damaged("the results do not match the models and tasks", "results.parquet")

    def grid(name: str) -> np.ndarray | None:
        return res[name].reshape(M, T) if name in res else None

    estimate = grid("estimate")
    if estimate is None:
        raise _damaged("no estimate column", "results.parquet")
    item_tasks = None
    if meta["kind"] == "items":
        if "items.parquet" not in files:
            raise _damaged("item-level data without items.parquet", "items.parquet")
        item_tasks = _decode_items(files["items.parquet"], models, names)
    try:
        return Benchmark(
            name=meta["name"],
            models=models,
            tasks=names,
            categories=tuple(tasks["category"]),
            kind=meta["kind"],
            estimate=estimate,
            n=grid("n"),
            correct=grid("correct"),
            se=grid("se"),
            item_tasks=item_tasks,
            chance=tasks["chance"],
            higher_is_better=tasks["higher_is_better"],
            notes=tuple(meta["notes"]),
        )
    except DataError as err:
        raise _damaged(err.message, "results.parquet") from None


def _decode_items(
    data: bytes, models: tuple[str, ...], tasks: tuple[str, ...]
) -> tuple[ItemTask, ...]:
    cols = _read_parquet("items.parquet", data)
    M = len(models)
    task_col = cols["task"]
    score = cols["score"]
    if np.any((score < 0) | (score > 1)):
        raise _damaged("item scores outside 0..1", "items.parquet")
    starts: list[int] = (
        np.flatnonzero(np.r_[True, task_col[1:] != task_col[:-1]]).tolist() if len(task_col) else []
    )
    runs = {}
    bounds = [*starts, len(task_col)]
    for a, b in pairwise(bounds):
        if task_col[a] in runs:
            raise _damaged(f"task '{task_col[a]}' is split", "items.parquet")
        runs[task_col[a]] = (a, b)
    if set(runs) - set(tasks):
        raise _damaged("items of unknown tasks", "items.parquet")
    out = []
    for task in tasks:
        a, b = runs.get(task, (0, 0))
        if (b - a) % M:
            raise _damaged(f"task '{task}' has an incomplete item grid", "items.parquet")
        n = (b - a) // M
        items = cols["item"][a:b:M]
        block = {k: cols[k][a:b] for k in ("item", "model", "cluster", "subgroup")}
        ok = np.array_equal(block["model"], np.tile(np.array(models, dtype=object), n))
        ok &= np.array_equal(block["item"], np.repeat(items, M)) and len(set(items)) == n
        labels = {}
        for name in ("cluster", "subgroup"):
            per_item = block[name][::M]
            ok &= np.array_equal(block[name], np.repeat(per_item, M))
            missing = [x is None for x in per_item]
            ok &= all(missing) or not any(missing)
            labels[name] = None if n == 0 or all(missing) else tuple(per_item)
        if not ok or any(x is None for x in items):
            raise _damaged(f"task '{task}' has a malformed item grid", "items.parquet")
        scores = score[a:b].reshape(n, M).T.copy()
        repeated = {}
        if "answers" in cols and "answer_sq" in cols:
            repeated = {k: cols[k][a:b].reshape(n, M).T.copy() for k in ("answers", "answer_sq")}
        try:
            out.append(
                ItemTask(tuple(items), scores, labels["cluster"], labels["subgroup"], **repeated)
            )
        except DataError as err:
            raise _damaged(err.message, "items.parquet") from None
    return tuple(out)


# ---- the index: one record per published data set, keyed by SHA-256 of its id -------------------
@dataclass(frozen=True)
class Record:
    key: str
    token_hash: str
    content_hash: str
    created: datetime
    expires: datetime
    folder: str
    size: int
    deleted: datetime | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "key": self.key,
            "token_hash": self.token_hash,
            "content_hash": self.content_hash,
            "created": _iso(self.created),
            "expires": _iso(self.expires),
            "folder": self.folder,
            "size": self.size,
            "deleted": _iso(self.deleted) if self.deleted else None,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Record:
        return cls(
            key=str(d["key"]),
            token_hash=str(d["token_hash"]),
            content_hash=str(d["content_hash"]),
            created=_parse_iso(d["created"]),
            expires=_parse_iso(d["expires"]),
            folder=str(d["folder"]),
            size=int(d["size"]),
            deleted=_parse_iso(d["deleted"]) if d.get("deleted") else None,
        )


class Index(Protocol):
    def add(self, record: Record) -> None: ...
    def get(self, key: str) -> Record | None: ...
    def put(self, record: Record) -> None: ...


def _index_damaged(err: Exception) -> StoreError:
    _LOG.warning("the store's index cannot be read: %s", err)
    return StoreError(
        "the store's index (index.db) is damaged and cannot be read.",
        hint="the operator moves index.db aside and restores it from a backup; until then "
        "published links cannot be opened and nothing can be published.",
    )


FIELDS = ("key", "token_hash", "content_hash", "created", "expires", "folder", "size", "deleted")


class SqliteIndex:
    """The local store's index: one SQLite table (a connection per call: safe across threads)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._run(
            "CREATE TABLE IF NOT EXISTS published (key TEXT PRIMARY KEY, token_hash TEXT, "
            "content_hash TEXT, created TEXT, expires TEXT, folder TEXT, size INTEGER, "
            "deleted TEXT)"
        )

    def _run(self, sql: str, params: Sequence[object] = ()) -> tuple | None:
        """Execute one statement in its own transaction; the first row it returns, if any.
        A damaged or locked index is a :class:`StoreError` that says which."""
        try:
            with closing(sqlite3.connect(self.path, timeout=30)) as db, db:
                return db.execute(sql, params).fetchone()
        except sqlite3.OperationalError as err:
            if "locked" in str(err) or "busy" in str(err):
                raise StoreError(
                    "the store's index is locked by another process (waited 30 s).",
                    hint="try again in a moment; if it stays locked, the operator checks for a "
                    "stuck process holding index.db.",
                ) from err
            raise _index_damaged(err) from err
        except sqlite3.DatabaseError as err:
            raise _index_damaged(err) from err

    def add(self, record: Record) -> None:
        row = record.to_json()
        self._run(
            f"INSERT INTO published VALUES ({', '.join('?' * len(FIELDS))})",
            [row[f] for f in FIELDS],
        )

    def put(self, record: Record) -> None:
        self._run(
            "UPDATE published SET deleted = ? WHERE key = ?",
            (record.to_json()["deleted"], record.key),
        )

    def get(self, key: str) -> Record | None:
        row = self._run(f"SELECT {', '.join(FIELDS)} FROM published WHERE key = ?", (key,))
        return None if row is None else Record.from_json(dict(zip(FIELDS, row, strict=True)))

    def all(self) -> list[Record]:
        """Every record (the integrity check)."""
        try:
            with closing(sqlite3.connect(self.path, timeout=30)) as db:
                rows = db.execute(f"SELECT {', '.join(FIELDS)} FROM published").fetchall()
        except sqlite3.DatabaseError as err:
            raise _index_damaged(err) from err
        return [Record.from_json(dict(zip(FIELDS, row, strict=True))) for row in rows]


class ObjectIndex:
    """The object store's index: ``index/<key>.json``, one small object per data set."""

    def __init__(self, fs: Any, root: str) -> None:
        self.fs = fs
        self.root = root

    def _path(self, key: str) -> str:
        return f"{self.root}/index/{key}.json"

    def add(self, record: Record) -> None:
        self.put(record)

    def put(self, record: Record) -> None:
        self.fs.pipe_file(self._path(record.key), json.dumps(record.to_json()).encode())

    def get(self, key: str) -> Record | None:
        try:
            return Record.from_json(json.loads(self.fs.cat_file(self._path(key))))
        except FileNotFoundError:
            return None


# ---- the store -----------------------------------------------------------------------------------
def _filesystem(config: StoreConfig) -> tuple[Any, str]:
    """An fsspec filesystem and the root path inside it."""
    import fsspec

    if config.is_s3:
        try:
            fs = fsspec.filesystem(
                "s3",
                endpoint_url=config.endpoint,
                skip_instance_cache=True,
                config_kwargs={"connect_timeout": 5, "retries": {"max_attempts": 2}},
            )
            fs.retries = 3  # s3fs's own retries (5 by default): an unreachable store says so fast
        except ImportError as err:
            raise StoreError(
                f"BENCHUQ_STORE={config.location} needs s3fs ({err}).",
                hint="pip install 'benchuq[s3]'.",
            ) from None
        return fs, config.location.removeprefix("s3://").rstrip("/")
    root = Path(config.location).expanduser()
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    return fsspec.filesystem("file", auto_mkdir=True), str(root)


#: OSError numbers that say what is wrong with the store's disk, worded for a person.
_DISK_ERRORS = {
    errno.ENOSPC: (
        "the store's disk is full",
        "the operator frees space where BENCHUQ_STORE points (or lowers BENCHUQ_STORE_DAYS); "
        "nothing was stored, try again later.",
    ),
    errno.EDQUOT: (
        "the store's disk quota is used up",
        "the operator frees space or raises the quota; nothing was stored.",
    ),
    errno.EACCES: (
        "the server may not write to its store (permission denied)",
        "the operator gives the server's user write access to the BENCHUQ_STORE folder.",
    ),
    errno.EPERM: (
        "the server may not write to its store (operation not permitted)",
        "the operator gives the server's user write access to the BENCHUQ_STORE folder.",
    ),
    errno.EROFS: (
        "the store's disk is read-only",
        "the operator points BENCHUQ_STORE at a writable disk.",
    ),
}


def _unusable(config: StoreConfig, err: Exception) -> StoreError:
    """A failure to use the store as a message that says what it is, without a server path or
    credentials (the full error goes to the server's log)."""
    _LOG.warning("store %s failed: %r", config.location_for_operator(), err)
    if isinstance(err, OSError) and err.errno in _DISK_ERRORS:
        what, hint = _DISK_ERRORS[err.errno]
        return StoreError(f"{config.describe()} cannot be used: {what}.", hint=hint)
    hint = (
        "the operator checks BENCHUQ_STORE_ENDPOINT, the AWS_* credentials and the network "
        "(the server's log has the full error)."
        if config.is_s3
        else "the operator checks the BENCHUQ_STORE folder (the server's log has the full error)."
    )
    return StoreError(f"{config.describe()} cannot be used: {type(err).__name__}.", hint=hint)


def _reaching(method: Callable[..., T]) -> Callable[..., T]:
    """Failures to reach the store (network, credentials, disk) become a :class:`StoreError`
    that names the store, instead of a traceback."""

    @functools.wraps(method)
    def wrapper(self: Store, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except DataError:
            raise
        except Exception as err:
            raise _unusable(self.config, err) from err

    return wrapper


class Store:
    """Publish, load and delete data sets (see the module docstring)."""

    def __init__(self, config: StoreConfig, *, clock: Callable[[], datetime] | None = None) -> None:
        self.config = config
        self.clock = clock or (lambda: datetime.now(UTC))
        try:
            self.fs, self.root = _filesystem(config)
            self.index: Index = (
                ObjectIndex(self.fs, self.root)
                if config.is_s3
                else SqliteIndex(Path(self.root) / "index.db")
            )
            self._clean_leftovers()
        except DataError:
            raise
        except Exception as err:
            raise _unusable(config, err) from err

    @_reaching
    def publish(
        self,
        bench: Benchmark,
        *,
        days: int | None = None,
        source: str = "",
        groups: Sequence[Group] = (),
        description: str = "",
    ) -> Receipt:
        """Store ``bench`` (under its name, with an optional ``description``) for ``days``
        (default: the configured expiry) with its lm-eval ``groups`` (they decide what
        "overall" stands for); returns the receipt."""
        days = self.config.days if days is None else days
        if not 1 <= days <= self.config.max_days:
            raise StoreError(
                f"an expiry of {days} days is not allowed.",
                hint=f"choose 1 to {self.config.max_days} days.",
            )
        now = self.clock().replace(microsecond=0)
        expires = now + timedelta(days=days)
        provenance = {
            "published": _iso(now),
            "expires": _iso(expires),
            "benchuq": _version(),
            "source": source[:500],
            "content_hash": bench.content_hash,
        }
        files = encode(bench, provenance, groups, description)
        size = sum(len(b) for b in files.values())
        if size > self.config.max_bytes:
            raise StoreError(
                f"the data set takes {size / 1e6:.1f} MB stored; this server keeps at most "
                f"{self.config.max_bytes / 1e6:g} MB per data set.",
                hint="publish fewer models or tasks (or task-level counts instead of items), "
                "or raise BENCHUQ_STORE_MAX_MB on the server.",
            )
        self.purge()
        ident = new_id()
        token = secrets.token_hex(32)
        key = _sha(ident)
        folder = f"data/{expires:%Y-%m-%d}/{key}"
        self._write(folder, files)  # data first: an index record always has whole files
        record = Record(key, _sha(token), bench.content_hash, now, expires, folder, size)
        try:
            self.index.add(record)
        except BaseException:
            self._remove(folder)
            raise
        return Receipt(ident, token, expires)

    def _write(self, folder: str, files: Mapping[str, bytes]) -> None:
        """Write a data set's files so that ``folder`` holds all of them or does not exist.

        Local: into a private folder under ``tmp/``, then one rename (atomic on a file system);
        a failure (a full disk) removes the partial folder. S3: each object is written whole by
        the server and the index record, written last, is the commit; a failure removes what
        was written."""
        if self.config.is_s3:
            try:
                for name, data in files.items():
                    self.fs.pipe_file(f"{self.root}/{folder}/{name}", data)
            except BaseException:
                self._remove(folder)
                raise
            return
        root = Path(self.root)
        staging = root / "tmp" / f"{folder.rsplit('/', 1)[-1]}-{secrets.token_hex(8)}"
        try:
            staging.mkdir(parents=True, mode=0o700)
            for name, data in files.items():
                with open(staging / name, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
            target = root / folder
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.rename(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    @_reaching
    def record(self, ident: str) -> Record:
        """The index record of a live data set; unknown, deleted or expired ids are errors."""
        ident = parse_shared(ident)
        rec = self.index.get(_sha(ident))
        label = f"{PREFIX}{ident}"
        if rec is None:
            raise StoreError(
                f"no published data set has the id '{label}' in {self.config.describe()}.",
                hint="check that the whole link was copied; ids are random and cannot be "
                "looked up. Ask the publisher for the link.",
            )
        if rec.deleted is not None:
            raise StoreError(
                f"the published data set '{label}' was deleted by its publisher on "
                f"{rec.deleted:%Y-%m-%d %H:%M} UTC; its data is gone.",
                hint="ask the publisher to publish it again if you still need it.",
            )
        if self.clock() >= rec.expires:
            self._remove(rec.folder)
            raise StoreError(
                f"the published data set '{label}' expired on {rec.expires:%Y-%m-%d %H:%M} UTC "
                "and its data was removed.",
                hint="ask the publisher to publish it again (benchuq publish, or 'Share these "
                "results' on the Data page).",
            )
        return rec

    def load(self, ident: str) -> Benchmark:
        """The published data set ``ident`` (``shared:<id>`` or the bare id)."""
        return self.read(ident).bench

    @_reaching
    def read(self, ident: str) -> Loaded:
        """The published data set ``ident`` with the lm-eval groups stored with it."""
        rec = self.record(ident)
        files = {}
        for name in ("meta.json", "tasks.parquet", "results.parquet", "items.parquet"):
            path = f"{self.root}/{rec.folder}/{name}"
            try:
                size = self.fs.size(path)
                if size > max(self.config.max_bytes, rec.size):
                    raise _damaged(f"{name} is larger than the size cap", name)
                files[name] = self.fs.cat_file(path)
            except FileNotFoundError:
                if name != "items.parquet":
                    raise _damaged(f"{name} is missing", name) from None
        bench = decode(files)
        if bench.content_hash != rec.content_hash:
            raise _damaged("the content does not match what was published", "results.parquet")
        meta = _meta(files["meta.json"])
        prov = meta["provenance"]
        note = (
            f"Published data set {PREFIX}{parse_shared(ident)}: published "
            f"{prov.get('published', '?')[:10]} with benchuq {prov.get('benchuq', '?')}"
            + (f" from {prov['source']}" if prov.get("source") else "")
            + f"; available until {_iso(rec.expires)[:10]}."
            + (f" About the data: {meta['description']}" if meta.get("description") else "")
        )
        return Loaded(bench._replace(notes=(note, *bench.notes)), Meta(groups=meta["groups"]))

    @_reaching
    def unpublish(self, ident: str, token: str) -> None:
        """Delete a data set with the token its publisher got; a wrong token deletes nothing."""
        ident = parse_shared(ident)
        rec = self.index.get(_sha(ident))
        if rec is not None and rec.deleted is not None:
            self.record(ident)  # says when it was deleted
        if rec is None or not hmac.compare_digest(_sha(token.strip()), rec.token_hash):
            raise StoreError(
                f"'{PREFIX}{ident}' cannot be deleted with this token.",
                hint="use the delete token (or delete link) shown when the data set was "
                "published; only its publisher has it.",
            )
        self.index.put(replace(rec, deleted=self.clock().replace(microsecond=0)))
        self._remove(rec.folder)

    @_reaching
    def purge(self) -> int:
        """Remove the data of every data set whose expiry date has passed; returns how many
        date folders were removed (the index records stay, for the "expired" message)."""
        today = f"{self.clock():%Y-%m-%d}"
        try:
            folders = self.fs.ls(f"{self.root}/data", detail=False, refresh=True)
        except FileNotFoundError:
            return 0
        old = [f for f in folders if f.rstrip("/").rsplit("/", 1)[-1] < today]
        removed = 0
        for folder in old:
            removed += self._remove(folder.rstrip("/").removeprefix(f"{self.root}/"))
        return removed

    def _remove(self, folder: str) -> bool:
        """Remove ``folder`` (relative to the root); ``False`` when it was already gone.

        Safe while other threads or server processes remove the same folder: locally the folder
        is first claimed by an atomic rename into ``trash/`` (only one remover wins; the others
        find it gone), then deleted; on S3 deleting an object that is gone is not an error."""
        if self.config.is_s3:
            try:
                self.fs.rm(f"{self.root}/{folder}", recursive=True)
            except FileNotFoundError:
                return False
            return True
        root = Path(self.root)
        claimed = root / "trash" / f"{secrets.token_hex(8)}"
        try:
            claimed.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.rename(root / folder, claimed)
        except FileNotFoundError:
            return False
        shutil.rmtree(claimed, ignore_errors=True)
        return True

    def _clean_leftovers(self) -> None:
        """Remove what interrupted writes and removals left behind (a killed server): staging
        folders under ``tmp/`` older than :data:`STALE_SECONDS` (a younger one may be another
        process's publish in progress) and everything under ``trash/``."""
        if self.config.is_s3:
            return
        now = time.time()
        for name in ("tmp", "trash"):
            try:
                entries = list(os.scandir(Path(self.root) / name))
            except FileNotFoundError:
                continue
            for entry in entries:
                try:
                    stale = name == "trash" or now - entry.stat().st_mtime > STALE_SECONDS
                except FileNotFoundError:
                    continue
                if stale:
                    shutil.rmtree(entry.path, ignore_errors=True)

    @_reaching
    def verify(self) -> list[str]:
        """The store's integrity check: every live data set in the index has all its files and
        they decode to what was published; no partial folder is visible. Returns the problems
        found (empty when the store is whole)."""
        problems = []
        for rec in self._records():
            if rec.deleted is not None or self.clock() >= rec.expires:
                continue
            names = {p.rstrip("/").rsplit("/", 1)[-1] for p in self._listing(rec.folder)}
            if "battles.parquet" in names:  # a published battles table (benchuq.store_battles)
                from benchuq.store_battles import verify_battles

                problems += verify_battles(self, rec, names)
                continue
            missing = {"meta.json", "tasks.parquet", "results.parquet"} - names
            if missing:
                problems.append(f"{rec.folder}: missing {sorted(missing)}")
                continue
            files = {n: self.fs.cat_file(f"{self.root}/{rec.folder}/{n}") for n in names}
            try:
                bench = decode(files)
            except DataError as err:
                problems.append(f"{rec.folder}: {err}")
                continue
            if bench.content_hash != rec.content_hash:
                problems.append(f"{rec.folder}: content differs from what was published")
        return problems

    def _listing(self, folder: str) -> list[str]:
        try:
            return list(self.fs.ls(f"{self.root}/{folder}", detail=False, refresh=True))
        except FileNotFoundError:
            return []

    def _records(self) -> list[Record]:
        """Every index record (for :meth:`verify`; nothing else lists the index)."""
        if isinstance(self.index, SqliteIndex):
            return self.index.all()
        paths = self._listing("index")
        return [Record.from_json(json.loads(self.fs.cat_file(p))) for p in paths]


def _version() -> str:
    from benchuq import __version__

    return __version__


def open_store(environ: Mapping[str, str] | None = None) -> Store:
    """The store the environment names (``BENCHUQ_STORE``...; see the module docstring)."""
    return Store(StoreConfig.from_env(environ))


def load_shared(data: str) -> Benchmark:
    """``shared:<id>`` from the configured store (the CLI's and the app's ``DATA``)."""
    return open_store().load(data)


def read_shared(data: str) -> Loaded:
    """``shared:<id>`` with the lm-eval groups stored with it."""
    return open_store().read(data)

"""The index: one record per published data set, keyed by SHA-256 of its id (SQLite for a
folder, one JSON object per record on an object store; see :mod:`benchuq.store`)."""

from __future__ import annotations

import json
import logging
import os
import secrets
import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from benchuq.store.config import StoreError, _iso, _parse_iso

_LOG = logging.getLogger("benchuq.store")


@dataclass(frozen=True)
class Record:
    """One published data set as the index knows it (no id, no token: their SHA-256 only)."""

    key: str
    token_hash: str
    content_hash: str
    created: datetime
    expires: datetime
    folder: str
    size: int
    deleted: datetime | None = None

    def to_json(self) -> dict[str, object]:
        """The record as stored (JSON types, ISO dates)."""
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
        """The record of its stored form (see :meth:`to_json`)."""
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
    """What the store needs of an index."""

    def add(self, record: Record) -> None:
        """Insert a new record."""

    def get(self, key: str) -> Record | None:
        """The record of ``key``, or ``None``."""

    def put(self, record: Record) -> None:
        """Update a record (its deletion time)."""


def _index_damaged(err: Exception) -> StoreError:
    _LOG.warning("the store's index cannot be read: %s", err)
    return StoreError(
        "the store's index (index.db) is damaged and cannot be read.",
        hint="the operator moves index.db aside and restores it from a backup; until then "
        "published links cannot be opened and nothing can be published.",
    )


def _index_lost(what: str) -> StoreError:
    """The index is gone (emptied, replaced or removed) while its data may remain."""
    _LOG.warning("the store's index %s", what)
    return StoreError(
        f"the store's index (index.db) was lost: it {what}. Earlier links cannot be opened "
        "until it is restored.",
        hint="the operator restores index.db from a backup (benchuq keeps it beside data/ in "
        "the BENCHUQ_STORE folder), then runs the integrity check (Store.verify()); to start "
        "an empty store instead, move the whole BENCHUQ_STORE folder aside (every earlier "
        "link then stays unopenable).",
    )


def _holds_data(data: Path) -> bool:
    """True when ``data/`` holds at least one data set folder."""
    try:
        return any(any(day.iterdir()) for day in data.iterdir() if day.is_dir())
    except FileNotFoundError:
        return False


FIELDS = ("key", "token_hash", "content_hash", "created", "expires", "folder", "size", "deleted")


class SqliteIndex:
    """The local store's index: one SQLite table (a connection per call: safe across threads).

    A new index is built whole in a private file and linked into place (two processes starting
    on a fresh store cannot see each other's half-made file), so an ``index.db`` of zero bytes,
    one without benchuq's table, or none while ``data/`` holds data sets is a lost index, said
    so (:func:`_index_lost`), never silently started afresh: that would turn every earlier link
    into "no published data set has the id"."""

    TABLE = (
        "CREATE TABLE published (key TEXT PRIMARY KEY, token_hash TEXT, content_hash TEXT, "
        "created TEXT, expires TEXT, folder TEXT, size INTEGER, deleted TEXT)"
    )

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.exists():
            if _holds_data(path.parent / "data"):
                raise _index_lost("is missing while the store holds published data")
            self._create()
        self._check()

    def _create(self) -> None:
        """A fresh index, made in a private file and linked into place (no overwrite)."""
        staging = self.path.with_name(f".{self.path.name}-{secrets.token_hex(8)}")
        try:
            with closing(sqlite3.connect(staging)) as db, db:
                db.execute(self.TABLE)
            try:
                os.link(staging, self.path)
            except FileExistsError:  # another process made it first
                pass
        finally:
            staging.unlink(missing_ok=True)

    def _check(self) -> None:
        """Refuse an emptied or foreign ``index.db`` (see the class docstring)."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            raise _index_lost("is missing") from None
        if size == 0:
            raise _index_lost("is empty (0 bytes)")
        tables = self._run("SELECT group_concat(name) FROM sqlite_master WHERE type = 'table'")
        names = set(str((tables or ("",))[0] or "").split(","))
        if "published" not in names:
            raise _index_lost("is not benchuq's index (it has no table of published data sets)")

    def _run(self, sql: str, params: Sequence[object] = ()) -> tuple | None:
        """Execute one statement in its own transaction; the first row it returns, if any.
        A damaged, lost or locked index is a :class:`StoreError` that says which."""
        try:
            with closing(self._connect()) as db, db:
                return db.execute(sql, params).fetchone()
        except sqlite3.OperationalError as err:
            if "locked" in str(err) or "busy" in str(err):
                raise StoreError(
                    "the store's index is locked by another process (waited 30 s).",
                    hint="try again in a moment; if it stays locked, the operator checks for a "
                    "stuck process holding index.db.",
                ) from err
            raise self._failure(err) from err
        except sqlite3.DatabaseError as err:
            raise self._failure(err) from err

    def _connect(self) -> sqlite3.Connection:
        """A connection to the existing file (never creates one: a removed index says so)."""
        return sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=rw", uri=True, timeout=30)

    def _failure(self, err: Exception) -> StoreError:
        """A lost index (gone, emptied, its table missing) or a damaged one."""
        try:
            size: int | None = self.path.stat().st_size
        except FileNotFoundError:
            size = None
        if size is None:
            return _index_lost("is missing")
        if size == 0:
            return _index_lost("is empty (0 bytes)")
        if "no such table" in str(err):
            return _index_lost("is not benchuq's index (it has no table of published data sets)")
        return _index_damaged(err)

    def add(self, record: Record) -> None:
        """Insert a new record."""
        row = record.to_json()
        self._run(
            f"INSERT INTO published VALUES ({', '.join('?' * len(FIELDS))})",
            [row[f] for f in FIELDS],
        )

    def put(self, record: Record) -> None:
        """Record a deletion."""
        self._run(
            "UPDATE published SET deleted = ? WHERE key = ?",
            (record.to_json()["deleted"], record.key),
        )

    def get(self, key: str) -> Record | None:
        """The record of ``key``, or ``None``."""
        row = self._run(f"SELECT {', '.join(FIELDS)} FROM published WHERE key = ?", (key,))
        return None if row is None else Record.from_json(dict(zip(FIELDS, row, strict=True)))

    def all(self) -> list[Record]:
        """Every record (the integrity check)."""
        try:
            with closing(self._connect()) as db:
                rows = db.execute(f"SELECT {', '.join(FIELDS)} FROM published").fetchall()
        except sqlite3.DatabaseError as err:
            raise self._failure(err) from err
        return [Record.from_json(dict(zip(FIELDS, row, strict=True))) for row in rows]


class ObjectIndex:
    """The object store's index: ``index/<key>.json``, one small object per data set."""

    def __init__(self, fs: Any, root: str) -> None:
        self.fs = fs
        self.root = root

    def _path(self, key: str) -> str:
        return f"{self.root}/index/{key}.json"

    def add(self, record: Record) -> None:
        """Write a new record."""
        self.put(record)

    def put(self, record: Record) -> None:
        """Write (or overwrite) a record."""
        self.fs.pipe_file(self._path(record.key), json.dumps(record.to_json()).encode())

    def get(self, key: str) -> Record | None:
        """The record of ``key``, or ``None``."""
        try:
            return Record.from_json(json.loads(self.fs.cat_file(self._path(key))))
        except FileNotFoundError:
            return None

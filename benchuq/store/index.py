"""The index: one record per published data set, keyed by SHA-256 of its id (SQLite for a
folder, one JSON object per record on an object store; see :mod:`benchuq.store`)."""

from __future__ import annotations

import json
import logging
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

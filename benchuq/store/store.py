"""The store: publish, load, delete and verify published data sets (see :mod:`benchuq.store`)."""

from __future__ import annotations

import errno
import functools
import hmac
import json
import logging
import os
import secrets
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from benchuq.core.data import Benchmark, DataError
from benchuq.core.reading.meta import Group, Loaded, Meta
from benchuq.store.codec import _damaged, _meta, decode, encode
from benchuq.store.config import (
    PREFIX,
    STALE_SECONDS,
    Receipt,
    StoreConfig,
    StoreError,
    _iso,
    _sha,
    new_id,
    parse_shared,
)
from benchuq.store.index import Index, ObjectIndex, Record, SqliteIndex

T = TypeVar("T")
_LOG = logging.getLogger("benchuq.store")


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
        they decode to what was published; every data folder has its index record (a publish
        killed between writing the data and the index record leaves one that no link opens);
        no partial folder is visible. Returns the problems found (empty when the store is
        whole)."""
        problems = []
        records = self._records()
        for rec in records:
            if rec.deleted is not None or self.clock() >= rec.expires:
                continue
            names = {p.rstrip("/").rsplit("/", 1)[-1] for p in self._listing(rec.folder)}
            if not names:
                problems.append(f"{rec.folder}: an index record without data (its folder is gone)")
                continue
            if "battles.parquet" in names:  # published battles (benchuq.store.battles)
                from benchuq.store.battles import verify_battles

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
        known = {rec.folder for rec in records}
        for folder in self._data_folders():
            if folder not in known:
                problems.append(
                    f"{folder}: data without an index record (a publish stopped before its "
                    "record was written, or records were lost); no link opens it, and it is "
                    "removed with its date folder when that date has passed"
                )
        return problems

    def _data_folders(self) -> list[str]:
        """Every data set folder ``data/<date>/<key>`` (relative to the root), sorted."""
        out = []
        for day in self._listing("data"):
            date = day.rstrip("/").rsplit("/", 1)[-1]
            for folder in self._listing(f"data/{date}"):
                out.append(f"data/{date}/{folder.rstrip('/').rsplit('/', 1)[-1]}")
        return sorted(out)

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

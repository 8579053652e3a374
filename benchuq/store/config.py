"""The store's settings, limits, ids and receipts (see :mod:`benchuq.store`)."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchuq.core.data import DataError
from benchuq.core.reading.sources import SHARED

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

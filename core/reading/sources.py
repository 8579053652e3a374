"""The data-source string: what ``DATA`` (CLI), ``data=`` (app links) and the loaders name.

One of:

- ``sample:<name>``: a bundled sample (:data:`benchuq.core.reading.loaders.SAMPLES`);
- ``shared:<id>``: a published data set (``benchuq.store``);
- ``upload``: the files uploaded in an app session (links cannot carry them);
- anything else: paths, folders, zip archives or glob patterns, read together.

Every place that reads such a string parses it here (:func:`parse_source`), so the prefixes live
once.

Examples
--------
>>> parse_source("sample:vtab1k")
DataSource(kind='sample', name='vtab1k')
>>> parse_source(["a.csv", "b.csv"]).paths
('a.csv', 'b.csv')
>>> sample_source("toy"), parse_source("shared:abc").linkable
('sample:toy', True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "SAMPLE",
    "SHARED",
    "UPLOAD",
    "DataSource",
    "SourceKind",
    "parse_source",
    "sample_source",
    "shared_source",
]

SAMPLE = "sample:"
SHARED = "shared:"
UPLOAD = "upload"

SourceKind = Literal["sample", "shared", "upload", "paths"]


@dataclass(frozen=True)
class DataSource:
    """A parsed data-source string: its ``kind``, the sample name or published id (``name``)
    and, for ``kind="paths"``, the ``paths`` read together."""

    kind: SourceKind
    name: str = ""
    paths: tuple[str, ...] = ()

    def __repr__(self) -> str:
        if self.kind == "paths":
            return f"DataSource(kind='paths', paths={self.paths!r})"
        return f"DataSource(kind={self.kind!r}, name={self.name!r})"

    @property
    def text(self) -> str:
        """The source as a string (paths joined by spaces)."""
        if self.kind == "sample":
            return sample_source(self.name)
        if self.kind == "shared":
            return shared_source(self.name)
        if self.kind == "upload":
            return UPLOAD
        return " ".join(self.paths)

    @property
    def linkable(self) -> bool:
        """Whether an app link can carry this source (a sample or a published data set)."""
        return self.kind in ("sample", "shared")


def sample_source(name: str) -> str:
    """The source string of the bundled sample ``name``."""
    return f"{SAMPLE}{name}"


def shared_source(ident: str) -> str:
    """The source string of the published data set ``ident``."""
    return f"{SHARED}{ident}"


def parse_source(data: str | Sequence[str]) -> DataSource:
    """Parse ``data`` (one string, or several paths read together).

    A single item starting with ``sample:`` or ``shared:`` is that source (the name after the
    prefix, stripped of white space); ``"upload"`` is an app session's upload; anything else is
    paths. Mixed lists (a sample next to files) are parsed as paths: the loaders say what is
    wrong with them (:func:`benchuq.core.reading.loaders.resolve`).
    """
    items = [data] if isinstance(data, str) else [str(d) for d in data]
    if len(items) == 1:
        one = items[0]
        if one.startswith(SAMPLE):
            return DataSource("sample", one.removeprefix(SAMPLE).strip())
        if one.startswith(SHARED):
            return DataSource("shared", one.removeprefix(SHARED).strip())
        if one == UPLOAD:
            return DataSource("upload")
    return DataSource("paths", paths=tuple(items))

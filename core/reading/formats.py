"""The table of file formats read whole from one file (issue 26).

Each format is a module (or object) with ``KIND`` (its name, as ``format=`` takes it), ``LABEL``
(words for messages: "an inspect_ai eval log"), ``claims(src) -> bool`` (cheap: the name and the
first bytes or header) and ``read(src, *, metric, tasks, name) -> (Benchmark, Meta)``.
:func:`~.classify.classify` asks the formats of :data:`FORMATS` in order before looking at a file
as a table; the loader reads a file of such a kind with its format's ``read`` (also when the user
forces the format: ``read`` then words the error for a file that is not its own). Formats whose
files are read together (lm-eval results with their sample files, HELM run folders, item tables
in shards, tables with a column mapping) stay with the loader. Options only some formats use
reach them through :mod:`.options`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from benchuq.core.reading import eee, inspect_log, lighteval, oaieval

if TYPE_CHECKING:
    from benchuq.core.data import Benchmark
    from benchuq.core.reading.long import TaskInfo
    from benchuq.core.reading.meta import Meta
    from benchuq.core.reading.table import Source

__all__ = ["FORMATS", "Format", "claiming", "format_of"]


class Format(Protocol):
    """One file format: its name, its words, whether a file is its own, and its reader."""

    KIND: str
    LABEL: str

    def claims(self, src: Source) -> bool:
        """Whether the file is of this format (from its name and first bytes or header)."""

    def read(
        self, src: Source, *, metric: str | None, tasks: TaskInfo | None, name: str
    ) -> tuple[Benchmark, Meta]:
        """The file's results and what it says about them."""


#: The formats, in the order they are asked whether a file is theirs.
FORMATS: tuple[Format, ...] = (inspect_log, lighteval, oaieval, eee)


def claiming(src: Source) -> Format | None:
    """The first format that claims the file (``None``: none does)."""
    return next((f for f in FORMATS if f.claims(src)), None)


def format_of(kind: str) -> Format | None:
    """The format named ``kind`` (``None`` for the loader's own kinds)."""
    return next((f for f in FORMATS if f.KIND == kind), None)

"""Options of one read that only some formats use, set by the loader for that read.

``failed``: what the harness-log readers (inspect_ai) do with samples that errored or hit a
limit: ``"exclude"`` (left out of the scores and counted in a note, the default) or ``"wrong"``
(counted as score 0). Kept in a :class:`~contextvars.ContextVar` so that every format's ``read``
keeps the one signature of :class:`~.formats.Format`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal, get_args

from benchuq.core.validation import check_choice

__all__ = ["FAILED", "Failed", "ReadOptions", "current", "reading"]

Failed = Literal["exclude", "wrong"]
FAILED: tuple[str, ...] = get_args(Failed)


@dataclass(frozen=True)
class ReadOptions:
    """``failed``: ``"exclude"`` or ``"wrong"`` (see the module docstring)."""

    failed: Failed = "exclude"


_OPTIONS: ContextVar[ReadOptions | None] = ContextVar("READ_OPTIONS", default=None)


def current() -> ReadOptions:
    """The options of the read under way (the defaults outside :func:`reading`)."""
    return _OPTIONS.get() or ReadOptions()


@contextmanager
def reading(*, failed: Failed) -> Iterator[None]:
    """Set the options for the reads inside the ``with`` block."""
    check_choice(failed, FAILED, name="failed")
    token = _OPTIONS.set(ReadOptions(failed=failed))
    try:
        yield
    finally:
        _OPTIONS.reset(token)

"""Argument checks shared by every public function of ``core`` (and the CLI).

One rule in one place: a bad *argument* (a level of 95, an unknown choice, a model name that is
not in the data) raises :class:`InvalidArgument`, a :class:`ValueError` naming the argument and
what to pass instead; a bad *file or data* (a missing column, an unreadable value) raises
:class:`~benchuq.core.data.DataError` naming file, row and column. ``benchuq`` (``cli/main.py``)
turns both, and nothing else, into a message and exit code 2; any other exception is a bug and
keeps its traceback.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import TypeVar

import numpy as np

from benchuq.core.data import DataError, shorten_words

__all__ = [
    "InvalidArgument",
    "check_choice",
    "check_columns",
    "check_known",
    "check_level",
    "parse_weights",
]

T = TypeVar("T")


class InvalidArgument(ValueError):
    """A bad argument to a public function: ``str(err)`` says which and what to pass instead.

    Parameters
    ----------
    message
        What is wrong, naming the argument (e.g. ``"level 95 must be between 0 and 1"``).
    hint
        What to do instead; appended as ``How to fix: ...`` (as :class:`DataError` does).
    """

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(shorten_words(message + (f" How to fix: {hint}" if hint else "")))


def check_level(level: float, *, name: str = "level") -> float:
    """Return ``level`` as a float if it is a proportion in ``(0, 1)``; else raise.

    Parameters
    ----------
    level
        An interval level or coverage, e.g. ``0.95`` (never a percent).
    name
        How the caller calls it in the message (``"level"``, ``"--level"``, ``"alpha"``).

    Raises
    ------
    InvalidArgument
        Unless ``0 < level < 1`` (``nan`` fails too).
    """
    try:
        value = float(level)
    except (TypeError, ValueError):
        raise InvalidArgument(
            f"{name} {level!r} is not a number.", hint="pass a proportion such as 0.95."
        ) from None
    if not 0.0 < value < 1.0:
        raise InvalidArgument(f"{name} {value} must be between 0 and 1, not a percent.")
    return value


def check_choice(value: T, choices: Collection[T], *, name: str) -> T:
    """Return ``value`` if it is one of ``choices`` (a ``Literal``'s values); else raise.

    Raises
    ------
    InvalidArgument
        Naming ``name``, the value given and the choices.
    """
    if value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise InvalidArgument(f"unknown {name} {value!r}.", hint=f"use one of {listed}.")
    return value


def check_known(names: Iterable[str], known: Sequence[str], *, what: str) -> None:
    """Raise unless every one of ``names`` is in ``known`` (e.g. models picked from the data).

    Parameters
    ----------
    names
        Names the caller asked for.
    known
        The names that exist, listed in the message's hint.
    what
        What the names are, plural (``"models"``, ``"categories"``): the message says
        ``unknown models [...]``.

    Raises
    ------
    InvalidArgument
        Listing the unknown names in their order and the known ones.
    """
    have = set(known)
    unknown = [n for n in names if n not in have]
    if unknown:
        raise InvalidArgument(f"unknown {what} {unknown}.", hint=f"pick from {list(known)}.")


def check_columns(
    columns: Iterable[object],
    required: Iterable[str],
    *,
    what: str = "column",
    file: str | None = None,
    hint: str | None = None,
) -> None:
    """Raise a :class:`DataError` unless a table has every one of ``required`` columns.

    A missing column is a problem of the data, not of an argument, so this raises
    :class:`DataError` naming the file, the first missing column and the columns present.

    Parameters
    ----------
    columns
        The table's column names (compared as strings).
    required
        Names that must be present.
    what
        What a column is called in the message (``"column"``, ``"meta column"``).
    file
        The file the table came from.
    hint
        How to fix it (default: names the columns present).
    """
    present = [str(c) for c in columns]
    missing = [c for c in required if c not in present]
    if missing:
        listed = ", ".join(f"'{c}'" for c in missing)
        raise DataError(
            f"no {what} {listed}; the columns are {present}.",
            file=file,
            column=missing[0],
            hint=hint,
        )


def parse_weights(text: str, n_categories: int) -> np.ndarray:
    """Weights from ``"0.5,0.3,0.2"`` (or percents ``"50,30,20"``), normalised to sum to 1."""
    try:
        w = np.array([float(x) for x in str(text).split(",")], dtype=float)
    except ValueError as err:
        raise InvalidArgument(
            f"weights {text!r} are not numbers.", hint="write them like 0.5,0.3,0.2."
        ) from err
    if w.size != n_categories or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise InvalidArgument(
            f"weights {text!r} need {n_categories} non-negative numbers with a positive sum.",
            hint="write them like " + ",".join(["1"] * n_categories) + " (they are normalised).",
        )
    return w / w.sum()

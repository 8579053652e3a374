"""Argument checks shared by every public function of ``core`` (and the CLI).

One rule in one place: a bad *argument* (a level of 95, an unknown choice, a model name that is
not in the data) raises :class:`InvalidArgument`, a :class:`ValueError` naming the argument and
what to pass instead; a bad *file or data* (a missing column, an unreadable value) raises
:class:`~benchuq.core.data.DataError` naming file, row and column. ``benchuq`` (``cli/main.py``)
turns both, and nothing else, into a message and exit code 2; any other exception is a bug and
keeps its traceback.
"""

from __future__ import annotations

import collections.abc as abc
import functools
import inspect
import numbers
import os
import sys
import types
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import PurePath
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

import numpy as np

from benchuq.core.data import DataError, shorten_words

__all__ = [
    "InvalidArgument",
    "check_choice",
    "check_columns",
    "check_known",
    "check_level",
    "check_power",
    "check_reps",
    "check_seed",
    "check_types",
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


def check_power(power: float, *, name: str = "power") -> float:
    """Return ``power`` if it is from 0.5 to below 1 (METHODS 10); else raise.

    Raises
    ------
    InvalidArgument
        Naming ``name`` (``"power"``, ``"--power"``) and the range.
    """
    if not 0.5 <= power < 1:
        raise InvalidArgument(f"{name} {power} must be from 0.5 to below 1 (e.g. 0.8).")
    return power


def check_reps(reps: int, *, least: int, typical: int, name: str = "reps") -> int:
    """Return ``reps`` if it is at least ``least`` replicates (fewer give percentile intervals of
    little or no width, METHODS 2); else raise.

    Raises
    ------
    InvalidArgument
        Naming ``name`` (``"reps"``, ``"--reps"``), the floor and the ``typical`` count.
    """
    if reps < least:
        raise InvalidArgument(
            f"{name} {reps} is too few; use at least {least} ({typical} is typical)."
        )
    return reps


def check_seed(seed: int, *, name: str = "seed") -> int:
    """Return ``seed`` if numpy's generators take it (a whole number >= 0); else raise
    :class:`InvalidArgument` naming ``name`` (``"seed"``, ``"--seed"``), not numpy's bare
    ``ValueError: expected non-negative integer``."""
    if seed < 0:
        raise InvalidArgument(
            f"{name} {seed} is negative; a seed is a whole number 0 or above.",
            hint=f"use {name} {-seed}." if name.startswith("--") else f"use {name}={-seed}.",
        )
    return seed


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


def _names() -> dict[str, Any]:
    """Names an annotation may use that its module imports only for type checkers."""
    import pandas as pd

    from benchuq.core.data import Benchmark
    from benchuq.core.draws import Draws

    return {"Benchmark": Benchmark, "Draws": Draws, "pd": pd, "np": np, "Any": Any}


@functools.cache
def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """``fn``'s parameter annotations as types; one that cannot be resolved is left out."""
    namespace = {**_names(), **getattr(fn, "__globals__", {})}
    out = {}
    for name, text in getattr(fn, "__annotations__", {}).items():
        if name == "return":
            continue
        try:
            out[name] = eval(text, namespace) if isinstance(text, str) else text
        except Exception:  # a name only a type checker sees: that argument is not checked
            continue
    return out


def _matches(value: object, kind: Any) -> bool:
    """Whether ``value`` is of the annotated type ``kind`` (numbers of any numeric type, a
    path as text, sequences and mappings checked to one level; unknown generics pass)."""
    if kind is Any or kind is object:
        return True
    if kind is None or kind is type(None):
        return value is None
    origin, args = get_origin(kind), get_args(kind)
    if origin in (Union, types.UnionType):
        return any(_matches(value, a) for a in args)
    if origin is Literal:
        return any(isinstance(value, type(a)) and value == a for a in args)
    if kind is bool:
        return isinstance(value, bool | np.bool_)
    if kind is int:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)
    if kind is float:
        return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)
    if isinstance(kind, type) and issubclass(kind, PurePath):
        return isinstance(value, str | os.PathLike)
    if origin is abc.Callable:
        return callable(value)
    if origin in (abc.Mapping, dict):
        return isinstance(value, abc.Mapping) and all(
            _matches(k, args[0]) and _matches(v, args[1]) for k, v in value.items()
        ) if args else isinstance(value, abc.Mapping)  # fmt: skip
    if origin in (abc.Sequence, list, tuple):
        if isinstance(value, str | bytes | abc.Mapping) or not isinstance(value, Iterable):
            return False
        if args and isinstance(value, list | tuple):
            return all(_matches(v, args[0]) for v in value)
        return True
    if isinstance(kind, type):
        return isinstance(value, kind)
    return True


def check_types(arguments: Mapping[str, object], *, fn: Callable[..., Any] | None = None) -> None:
    """Raise :class:`InvalidArgument` naming the first argument whose value is not of the type
    ``fn`` annotates (``bq.diff(margin="0.1")``: "margin must be float, not str '0.1'").

    Called first in each public API function as ``check_types(locals())`` (``fn``: the calling
    module-level function, found from the caller's frame); the checks of values (ranges,
    choices, names in the data) follow it, except a ``seed`` below 0 (:func:`check_seed`), which
    every function with a seed refuses here.
    """
    if fn is None:
        caller = sys._getframe(1)
        fn = caller.f_globals.get(caller.f_code.co_name)
        fn = inspect.unwrap(fn) if callable(fn) else None  # decorated (``benchuq.deprecation``)
        if fn is None or getattr(fn, "__code__", None) is not caller.f_code:
            raise TypeError("check_types(locals()) is for module-level functions; pass fn.")
    annotations = getattr(fn, "__annotations__", {})
    for name, kind in _hints(fn).items():
        if name in arguments and not _matches(arguments[name], kind):
            value = arguments[name]
            shown = repr(value) if len(repr(value)) <= 60 else f"{repr(value)[:57]}..."
            wanted = annotations[name] if isinstance(annotations[name], str) else kind
            raise InvalidArgument(
                f"{name} must be {wanted}, not {type(value).__name__} {shown}.",
                hint=_BETWEEN.get((type(value).__name__, str(wanted)), f"pass {name} as {wanted}."),
            )
    seed = arguments.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool):  # every API function's seed=
        check_seed(seed)


#: the fix when one of the API's two data objects is passed where the other is wanted (a loaded
#: ``Benchmark`` given to ``bq.leaderboard``, which summarises its replicates)
_BETWEEN: dict[tuple[str, str], str] = {
    ("Benchmark", "Draws"): "make its replicates first: bq.bootstrap(bench) (or bq.bayes(bench)), "
    "e.g. bq.leaderboard(bq.bootstrap(bench)).",
    ("Draws", "Benchmark"): "pass the loaded data (bq.load(...)), not the replicates made "
    "from it (bq.report takes those as draws=).",
}


def parse_weights(text: str, n_categories: int) -> np.ndarray:
    """Weights from ``"0.5,0.3,0.2"`` (or percents ``"50,30,20"``), normalised to sum to 1."""
    try:
        w = np.array([float(x) for x in str(text).split(",")], dtype=float)
    except ValueError as err:
        raise InvalidArgument(
            f"weights {text!r} are not numbers.", hint="write them like 0.5,0.3,0.2."
        ) from err
    if w.size != n_categories or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        wanted = (
            "one positive number (the data has one category)"
            if n_categories == 1
            else f"{n_categories} non-negative numbers with a positive sum"
        )
        raise InvalidArgument(
            f"weights {text!r} need {wanted}.",
            hint="write them like " + ",".join(["1"] * n_categories) + " (they are normalised).",
        )
    return w / w.sum()

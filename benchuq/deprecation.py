"""Old spellings of the Python API, kept working for one release with a ``DeprecationWarning``
that names the new spelling (issue 41, "One API grammar"; the table is in CHANGELOG.md).

Every message reads ``"<old> is deprecated in benchuq ...: use <new>"``, so that the test suite
turns benchuq's own deprecations into errors (``pyproject.toml``'s ``filterwarnings``) without
touching other packages' warnings.

Examples
--------
>>> import warnings
>>> @renamed_keywords(weights="group")
... def scored(draws: str, *, group: str = "overall") -> str:
...     return group
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     scored("d", weights="natural")
'natural'
>>> str(caught[0].message)
'bq.scored(weights=...) is deprecated in benchuq 0.1 and goes in the next release: use group=...'
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["MESSAGE", "deprecated_names", "renamed_keywords", "warn_deprecated"]

F = TypeVar("F", bound=Callable[..., Any])

#: The one message of every deprecation (the suite's filter matches "is deprecated in benchuq").
MESSAGE = "{old} is deprecated in benchuq 0.1 and goes in the next release: use {new}"


def warn_deprecated(old: str, new: str, *, stacklevel: int = 2) -> None:
    """Warn that ``old`` is deprecated in favour of ``new``; ``stacklevel`` as
    :func:`warnings.warn`'s, counted from the caller of this function (2: its caller's caller,
    the user's line)."""
    warnings.warn(MESSAGE.format(old=old, new=new), DeprecationWarning, stacklevel=stacklevel + 1)


def renamed_keywords(**old_to_new: str) -> Callable[[F], F]:
    """A decorator: the keyword ``old`` still works as ``new`` (with a deprecation warning);
    giving both is a ``TypeError``, as any repeated argument. The signature, annotations and
    docstring shown are the new function's."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(
                            f"{fn.__name__}() got {new}= and its old spelling {old}=; "
                            f"give {new}= only."
                        )
                    warn_deprecated(f"bq.{fn.__name__}({old}=...)", f"{new}=...")
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        wrapper.__deprecated_keywords__ = dict(old_to_new)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def deprecated_names(
    module: str, names: Mapping[str, tuple[str, str]], namespace: Mapping[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for renamed names: ``names`` maps an old name to
    ``(new name, where the new name is importable)``; the value is ``namespace[new]``."""

    def __getattr__(name: str) -> Any:
        if name in names:
            new, where = names[name]
            warn_deprecated(f"{module}.{name}", f"{where}.{new}")
            return namespace[new]
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__

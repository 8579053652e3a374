"""Options are keyword-only in the whole public API (issue 28): every name of ``bq.__all__``,
every public function of ``benchuq.core`` and every public method of the result objects.

The rule: a parameter with a default is keyword-only, and so is an interval ``level`` unless it
is the value checked (the first parameter); the data (the first parameter) may be optional
(``bq.power(accuracy=..., items=...)`` plans without data). The API's functions also document
themselves with numpydoc Examples (run by ``tests/test_docs.py``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator

import pytest

import benchuq as bq
import benchuq.core
import benchuq.results

#: Data (not options) whose absence means something: ``diff(base, candidate=None)`` compares two
#: models inside ``base`` when no second run is given.
OPTIONAL_DATA = frozenset({"candidate"})


def positional_options(fn: Callable) -> list[str]:
    """Parameters that should be keyword-only but are not."""
    params = [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self"
    ]
    return [
        p.name
        for k, p in enumerate(params)
        if (
            p.default is not p.empty
            and not (k == 0 and p.default is None)
            and p.name not in OPTIONAL_DATA
        )
        or (p.name == "level" and k > 0)
    ]


def core_functions() -> Iterator[tuple[str, Callable]]:
    for info in pkgutil.walk_packages(benchuq.core.__path__, "benchuq.core."):
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isfunction(obj) and obj.__module__ == module.__name__:
                yield f"{info.name}.{name}", obj


def result_methods() -> Iterator[tuple[str, Callable]]:
    for cls_name in benchuq.results.__all__:
        cls = getattr(benchuq.results, cls_name)
        if inspect.isclass(cls) and issubclass(cls, benchuq.results.Result):
            for name, fn in vars(cls).items():
                if inspect.isfunction(fn) and not name.startswith("_"):
                    yield f"{cls_name}.{name}", fn


def test_every_public_core_function_takes_options_by_keyword() -> None:
    found = dict(core_functions())
    assert len(found) > 100  # the walk reaches the whole of core
    bad = {name: opts for name, fn in found.items() if (opts := positional_options(fn))}
    assert not bad, f"positional options: {bad}"


@pytest.mark.parametrize("name", bq.__all__)
def test_every_api_name_is_documented_and_keyword_only(name: str) -> None:
    obj = getattr(bq, name)
    if inspect.isclass(obj):
        assert obj.__doc__
        return
    assert not positional_options(obj), name
    doc = inspect.getdoc(obj) or ""
    assert "Examples\n--------" in doc and ">>> " in doc, f"bq.{name} has no Examples"
    hints = inspect.get_annotations(obj)
    assert "return" in hints and all(p in hints for p in inspect.signature(obj).parameters)


def test_result_methods_take_options_by_keyword() -> None:
    bad = {name: opts for name, fn in result_methods() if (opts := positional_options(fn))}
    assert not bad, f"positional options: {bad}"


def test_the_checker_catches_a_positional_option() -> None:
    def leaderboard(draws: object, level: float = 0.9) -> None: ...

    def ranks(draws: object, level: float, *, seed: int = 0) -> None: ...

    def fine(draws: object, *, level: float = 0.9) -> None: ...

    def optional_data(data: object = None, *, level: float = 0.9) -> None: ...

    assert positional_options(leaderboard) == ["level"]
    assert positional_options(ranks) == ["level"]
    assert positional_options(fine) == positional_options(optional_data) == []

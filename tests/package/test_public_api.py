"""The public API of ``core`` and ``cli`` is declared: ``__all__`` everywhere, and it is honest.

Every module lists its public names in ``__all__`` (each of them exists); no package attribute
has the name of one of its submodules (it would hide the module from ``package.module``
attribute access, e.g. in ``monkeypatch.setattr("benchuq.core.x.y.NAME", ...)``).
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import pytest

import benchuq.api
import benchuq.cli
import benchuq.core


def _modules() -> list[str]:
    names = []
    for pkg in (benchuq.core, benchuq.cli, benchuq.api):
        names.append(pkg.__name__)
        names += [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")]
    return [*names, "benchuq.results"]  # the Python API (issue 28)


@pytest.mark.parametrize("name", _modules())
def test_module_declares_all(name: str) -> None:
    module = importlib.import_module(name)
    declared = getattr(module, "__all__", None)
    assert isinstance(declared, list), f"{name} has no __all__"
    missing = [n for n in declared if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names {missing}, which it does not define"
    assert len(set(declared)) == len(declared)


@pytest.mark.parametrize(
    "name", [n for n in _modules() if hasattr(importlib.import_module(n), "__path__")]
)
def test_no_package_attribute_hides_a_submodule(name: str) -> None:
    package = importlib.import_module(name)
    for sub in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{name}.{sub.name}")
        value = getattr(package, sub.name)
        assert isinstance(value, ModuleType), f"{name}.{sub.name} is {value!r}, not the module"

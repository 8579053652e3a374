"""The package list, found automatically: every folder with an ``__init__.py`` under the
repository's package roots, named under ``benchuq`` (``[tool.setuptools.package-dir]`` in
pyproject.toml maps each root; everything else about the build is there too). A folder added
later ships without touching this file (``tests/package/test_install.py`` checks the wheel)."""

from __future__ import annotations

from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
#: installed name -> repository folder (the same mapping as ``[tool.setuptools.package-dir]``)
ROOTS = {
    "benchuq": "benchuq",
    "benchuq.core": "core",
    "benchuq.cli": "cli",
    "benchuq.dashboard": "dashboard",
    "benchuq.pages": "pages",
    "benchuq.sample_data": "sample_data",
}


def packages() -> list[str]:
    """Every package under :data:`ROOTS` (the root itself and its subpackages)."""
    found = []
    for name, folder in ROOTS.items():
        found += [name, *(f"{name}.{sub}" for sub in find_packages(str(HERE / folder)))]
    return sorted(set(found))


setup(packages=packages())

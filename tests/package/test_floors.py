"""The constraints of the floor check (``tests/floors.py``): one ``name==floor`` per direct
dependency, read from whatever ``pyproject.toml`` declares. The install itself is a step of
``scripts/test.sh``."""

from __future__ import annotations

import tomllib

import pytest
from floors import ROOT, FloorError, applies, declared, floor_constraints, raised_by_extras
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def pyproject(deps: list[str], **extras: list[str]) -> dict:
    return {"project": {"name": "benchuq", "dependencies": deps, "optional-dependencies": extras}}


def test_every_runtime_and_extra_dependency_gets_its_floor() -> None:
    project = pyproject(
        ["numpy>=1.26,<3", "streamlit>=1.55", "fsspec~=2024.2", "pyarrow==14.0.1"],
        test=["pytest>=8", "dask[distributed]>=2024.4.1", "benchuq[s3]"],
        s3=["s3fs>=2024.2.0"],
    )
    assert floor_constraints(declared(project)) == [
        "numpy==1.26",
        "streamlit==1.55",
        "fsspec==2024.2",
        "pyarrow==14.0.1",
        "pytest==8",
        "dask==2024.4.1",  # a constraint names a distribution: the extra is dropped
        "s3fs==2024.2.0",
    ]


def test_markers_stay_and_the_higher_of_two_floors_wins() -> None:
    project = pyproject(
        ["streamlit>=1.55", 'tomli>=2; python_version < "3.11"'], test=["Streamlit>=1.65"]
    )
    lines = floor_constraints(declared(project))
    assert lines == ["streamlit==1.65", 'tomli==2; python_version < "3.11"']
    assert [applies(line) for line in lines] == [True, False]
    assert raised_by_extras(project) == ["streamlit==1.55"]  # the smoke check's runtime floor


@pytest.mark.parametrize("spec", ["duckdb", "duckdb<2", "duckdb>1.0", "duckdb!=1.1"])
def test_a_dependency_without_a_floor_is_refused(spec: str) -> None:
    with pytest.raises(FloorError, match="duckdb"):
        floor_constraints(declared(pyproject([spec])))


def test_the_repository_declares_a_floor_for_every_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    reqs = declared(project)
    lines = floor_constraints(reqs)
    assert {Requirement(line).name for line in lines} == {canonicalize_name(r.name) for r in reqs}

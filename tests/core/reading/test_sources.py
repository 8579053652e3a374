"""core.reading.sources: the one parser of data-source strings (issue 25)."""

from __future__ import annotations

import doctest

import pytest

from benchuq.core.data import DataError
from benchuq.core.reading import sources
from benchuq.core.reading.loaders import resolve
from benchuq.core.reading.sources import DataSource, parse_source, sample_source, shared_source


@pytest.mark.parametrize(
    ("text", "kind", "name"),
    [
        ("sample:vtab1k", "sample", "vtab1k"),
        ("sample: toy ", "sample", "toy"),
        ("shared:abc", "shared", "abc"),
        ("upload", "upload", ""),
        ("results.csv", "paths", ""),
        ("sample.csv", "paths", ""),  # a file named like a prefix is a path
    ],
)
def test_parse_one(text: str, kind: str, name: str) -> None:
    source = parse_source(text)
    assert (source.kind, source.name) == (kind, name)
    assert source.linkable == (kind in ("sample", "shared"))


def test_paths_and_round_trip() -> None:
    assert parse_source(["a.csv", "b.csv"]) == DataSource("paths", paths=("a.csv", "b.csv"))
    assert parse_source(["sample:toy"]).kind == "sample"
    for text in (sample_source("toy"), shared_source("x" * 32), "upload"):
        assert parse_source(text).text == text


def test_loaders_use_it() -> None:
    assert resolve("sample:toy").name == resolve(["sample:toy"]).name
    with pytest.raises(DataError, match="cannot be combined"):
        resolve(["sample:toy", "x.csv"])


def test_examples_run() -> None:
    assert doctest.testmod(sources).failed == 0

"""The shared argument checks (core.validation): what passes, what raises which error and says."""

from __future__ import annotations

import math

import pytest

from benchuq.core.data import DataError
from benchuq.core.validation import (
    InvalidArgument,
    check_choice,
    check_columns,
    check_known,
    check_level,
)


@pytest.mark.parametrize("level", [1e-9, 0.5, 0.834, 0.95, 1 - 1e-9])
def test_level_inside_passes_as_float(level: float) -> None:
    out = check_level(level)
    assert out == level and type(out) is float


@pytest.mark.parametrize("level", [0, 1, 95, -0.1, math.nan, math.inf])
def test_level_outside_raises_naming_the_argument(level: float) -> None:
    with pytest.raises(InvalidArgument, match=r"--level .* must be between 0 and 1"):
        check_level(level, name="--level")


def test_level_not_a_number() -> None:
    with pytest.raises(InvalidArgument, match="not a number"):
        check_level("high")  # type: ignore[arg-type]


def test_invalid_argument_is_a_value_error_but_not_a_data_error() -> None:
    err = InvalidArgument("x 3 is wrong.", hint="use 2.")
    assert isinstance(err, ValueError) and not isinstance(err, DataError)
    assert str(err) == "x 3 is wrong. How to fix: use 2."
    assert (err.message, err.hint) == ("x 3 is wrong.", "use 2.")


def test_choice() -> None:
    assert check_choice("holm", ("holm", "none"), name="correction") == "holm"
    with pytest.raises(InvalidArgument, match=r"unknown correction 'bh'.*'holm', 'none'"):
        check_choice("bh", ("holm", "none"), name="correction")


def test_known_lists_unknown_names_in_order() -> None:
    check_known(["b", "a"], ["a", "b", "c"], what="models")
    with pytest.raises(InvalidArgument, match=r"unknown models \['z', 'y'\].*pick from"):
        check_known(["z", "a", "y"], ["a", "b"], what="models")


def test_columns_missing_is_a_data_error_naming_file_and_column() -> None:
    check_columns(["id", "topic"], ["topic"])
    with pytest.raises(DataError) as err:
        check_columns(["id", "topic"], ["nope", "topic"], what="meta column", file="meta.csv")
    assert err.value.file == "meta.csv" and err.value.column == "nope"
    assert "no meta column 'nope'" in str(err.value) and "'topic'" in str(err.value)

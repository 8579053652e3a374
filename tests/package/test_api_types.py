"""Every public API function checks its argument types (issue 40): a wrong type is an
``InvalidArgument`` naming the argument, never a bare ``TypeError``/``ValueError``; ``from_frame``
with duplicate column names is a ``DataError``."""

from __future__ import annotations

import inspect

import pandas as pd
import pytest

import benchuq as bq
from benchuq import api
from benchuq.core.data import DataError
from benchuq.core.validation import InvalidArgument, check_types

TOY = bq.load("sample:toy")
DRAWS = bq.bootstrap(TOY, reps=100)


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: bq.diff(TOY, base_model="A", candidate_model="B", margin="0.1"), "margin"),
        (lambda: bq.diff(42, TOY), "base"),
        (lambda: bq.diff(TOY, base_model="A", candidate_model="B", reps="abc"), "reps"),
        (lambda: bq.bootstrap(TOY, reps="abc"), "reps"),
        (lambda: bq.bootstrap("sample:toy"), "bench"),
        (lambda: bq.leaderboard(TOY), "draws"),
        (lambda: bq.leaderboard(DRAWS, level="0.9"), "level"),
        (lambda: bq.compare(DRAWS, models="A"), "models"),
        (lambda: bq.ranks(DRAWS, group=3), "group"),
        (lambda: bq.load(3), "source"),
        (lambda: bq.epp(TOY, reps=1.5), "reps"),
        (lambda: bq.power(TOY, power="high"), "power"),
        (lambda: bq.statistic(DRAWS, 3), "fn"),
        (lambda: bq.export(TOY, 7), "path"),
        (lambda: bq.weights(TOY, resolution=True), "resolution"),
        (lambda: bq.from_frame([1], model="m", task="t"), "df"),
    ],
)
def test_a_wrong_type_names_the_argument(call, argument) -> None:
    with pytest.raises(InvalidArgument) as info:
        call()
    assert str(info.value).startswith(f"{argument} must be "), str(info.value)


def test_every_public_function_checks_its_types_first() -> None:
    for name in api.__all__:
        fn = getattr(api, name)
        if not inspect.signature(fn).parameters:
            continue
        source = inspect.getsource(fn)
        assert "check_types(locals())" in source, f"bq.{name} does not check its argument types"


def test_right_types_pass() -> None:
    def f(a: int, b: float | None, c: list[str], d: str = "x") -> None:
        check_types(locals(), fn=f)

    import numpy as np

    f(np.int64(3), np.float32(0.5), ["a"], d="y")
    f(3, 2, ("a",))
    with pytest.raises(InvalidArgument, match="c must be"):
        f(3, 2.0, ["a", 1])
    with pytest.raises(InvalidArgument, match="a must be int, not bool"):
        f(True, None, [])


def test_from_frame_refuses_duplicate_columns() -> None:
    df = pd.DataFrame([["a", "t", 10, 5, 1]], columns=["model", "task", "n", "correct", "n"])
    with pytest.raises(DataError, match=r"duplicate column names \['n'\]"):
        bq.from_frame(df, model="model", task="task", n="n", correct="correct")


@pytest.mark.parametrize(
    ("call", "fix"),
    [
        (lambda: bq.leaderboard(TOY), "bq.leaderboard(bq.bootstrap(bench))"),
        (lambda: bq.ranks(TOY), "make its replicates first: bq.bootstrap(bench)"),
        (lambda: bq.bootstrap(DRAWS), "pass the loaded data (bq.load(...)), not the replicates"),
    ],
)
def test_the_data_for_its_replicates_says_which_step_is_missing(call, fix: str) -> None:
    """A new user's first call, ``bq.leaderboard(bq.load(...))``, said only "pass draws as Draws";
    the fix now names the step that makes them (the audit of 2026-12-08)."""
    with pytest.raises(InvalidArgument) as info:
        call()
    assert fix in str(info.value), str(info.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda: bq.bootstrap(TOY, seed=-1),
        lambda: bq.epp(TOY, seed=-1),
        lambda: bq.subgroups(bq.load("sample:alpaca_eval"), seed=-1),
        lambda: bq.diff(TOY, base_model="A", candidate_model="B", seed=-1),
    ],
)
def test_a_negative_seed_is_refused_by_name(call) -> None:
    """numpy's generators take no seed below 0: the API said "ValueError: expected non-negative
    integer" from deep inside numpy (the audit of 2026-12-08)."""
    with pytest.raises(InvalidArgument, match=r"^seed -1 is negative"):
        call()

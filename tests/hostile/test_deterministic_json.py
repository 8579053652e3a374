"""Every command's JSON is byte-identical for the same seed (no timings by default, #19)."""

from __future__ import annotations

import contextlib
import io

import pytest
from cli_cases import CASES

from benchuq.cli.main import main


def _stdout(argv: list[str]) -> bytes:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(argv) == 0
    return out.getvalue().encode()


# a publish makes a new id and token each time (the contract test masks them)
@pytest.mark.parametrize("name", sorted(n for n in CASES if CASES[n][0] != "publish"))
def test_same_seed_same_bytes(name: str) -> None:
    argv = [*CASES[name], "--json"]
    assert _stdout(argv) == _stdout(argv)


def test_bayes_timings_only_behind_the_flag() -> None:
    argv = ["bayes", "sample:toy", "--draws", "200", "--warmup", "100", "--json"]
    assert b"sampler_seconds" not in _stdout(argv)
    assert b'"sampler_seconds"' in _stdout([*argv, "--timings"])

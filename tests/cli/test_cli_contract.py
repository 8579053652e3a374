"""The CLI's JSON contracts on every bundled sample and every subcommand that prints JSON.

Each case runs one command in-process and compares its JSON with the recorded output in
``tests/fixtures/cli_json/``, so that it passes on any machine and any BLAS thread count:

- keys (object members, in any order) and strings, booleans, ``null`` and integers exactly; list
  lengths and list order exactly (models with estimates equal to 12 significant digits are
  ordered by name: ``core.summaries.ordering.best_first``);
- floats within ``REL_TOL`` relative plus ``ABS_TOL`` absolute (floating-point results differ in
  the last digits between processors and BLAS kernels);
- MCMC diagnostics (keys ``rhat*``, ``ess*``, ``acceptance*``) within ``DIAGNOSTIC_REL_TOL``
  relative: they are computed from ranks of the draws, and draws equal in exact arithmetic rank
  differently when their last digits differ;
- timings and per-run identifiers (``VOLATILE_KEYS``) are left out (their keys still count).

A key added to a command's JSON is re-recorded in the same change (the snapshot is the
contract); re-record deliberately with ``python tests/cli/test_cli_contract.py --write [NAME ...]``.
``benchuq report`` writes HTML/PDF and ``benchuq app`` starts the server: neither prints JSON
(``tests/cli/test_cli_report.py`` and ``tests/smoke.py`` cover them).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_cases import CASES

from benchuq.cli.main import main

REL_TOL = 1e-6
ABS_TOL = 1e-9
DIAGNOSTIC_REL_TOL = 1e-3
DIAGNOSTIC_PREFIXES = ("rhat", "ess", "acceptance")

FIXTURES = Path(__file__).parents[1] / "fixtures" / "cli_json"
# timings and per-run identifiers: present, but their values are not part of a contract
VOLATILE_KEYS = {
    "sampler_seconds",
    "seconds",
    "elapsed",
    "id",
    "delete_token",
    "delete_link",
    "expires",
    "link",
}


def run_case(argv: list[str]) -> Any:
    """The parsed JSON that ``benchuq ARGV --json`` prints."""
    if argv[0] == "publish":
        with tempfile.TemporaryDirectory() as store, _environ(BENCHUQ_STORE=store):
            return _run(argv)
    return _run(argv)


@contextlib.contextmanager
def _environ(**values: str) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _run(argv: list[str]) -> Any:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main([*argv, "--json"])
    assert code == 0, f"benchuq {' '.join(argv)} exited {code}"
    return json.loads(out.getvalue())


def _without_volatile(x: Any) -> Any:
    """``x`` with the values of :data:`VOLATILE_KEYS` replaced by ``"<volatile>"``."""
    if isinstance(x, dict):
        return {
            k: "<volatile>" if k in VOLATILE_KEYS else _without_volatile(v) for k, v in x.items()
        }
    if isinstance(x, list):
        return [_without_volatile(v) for v in x]
    return x


def _same_float(old: float, new: float, key: str) -> bool:
    if math.isnan(old) or math.isnan(new):
        return math.isnan(old) and math.isnan(new)
    rel = DIAGNOSTIC_REL_TOL if key.startswith(DIAGNOSTIC_PREFIXES) else REL_TOL
    return math.isclose(old, new, rel_tol=rel, abs_tol=ABS_TOL)


def contract_differences(old: Any, new: Any, where: str = "$", key: str = "") -> list[str]:
    """Where ``new`` differs from the recorded ``old`` beyond the stated tolerances."""
    if isinstance(old, dict):
        if not isinstance(new, dict):
            return [f"{where}: was an object"]
        out = [f"{where}.{k}: missing" for k in old if k not in new]
        out += [f"{where}.{k}: not recorded (re-record the snapshot)" for k in new if k not in old]
        for k, v in old.items():
            if k in new:
                out += contract_differences(v, new[k], f"{where}.{k}", k)
        return out
    if isinstance(old, list):
        if not isinstance(new, list) or len(new) != len(old):
            return [
                f"{where}: list length {len(old)} -> {len(new) if isinstance(new, list) else new}"
            ]
        return [
            d
            for i, (a, b) in enumerate(zip(old, new, strict=True))
            for d in contract_differences(a, b, f"{where}[{i}]", key)
        ]
    if isinstance(old, float) and isinstance(new, int | float) and not isinstance(new, bool):
        return [] if _same_float(old, float(new), key) else [f"{where}: {old!r} -> {new!r}"]
    if type(old) is not type(new) or old != new:
        return [f"{where}: {old!r} -> {new!r}"]
    return []


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_contract_only_gains_fields(name: str) -> None:
    recorded = json.loads((FIXTURES / f"{name}.json").read_text())
    now = _without_volatile(run_case(CASES[name]))
    diffs = contract_differences(recorded, now)
    assert not diffs, f"{name}: {len(diffs)} difference(s), first: {diffs[:5]}"


def test_tolerances_catch_a_change() -> None:
    old = {"rows": [{"model": "a", "estimate": 0.5, "rhat_a": 1.001}]}
    assert not contract_differences(
        old, {"rows": [{"model": "a", "estimate": 0.5 + 1e-9, "rhat_a": 1.0015}]}
    )
    assert contract_differences(old, {"rows": [{"model": "a", "estimate": 0.5001, "rhat_a": 1.0}]})
    assert contract_differences(old, {"rows": [{"model": "b", "estimate": 0.5, "rhat_a": 1.001}]})
    assert contract_differences(old, {"rows": [{"model": "a", "estimate": 0.5}]})
    assert contract_differences(old, {"rows": [old["rows"][0] | {"new": 1}]})
    assert contract_differences({"n": 1}, {"n": 1.0})
    assert contract_differences({"n": 1}, {"n": True})


if __name__ == "__main__":
    if sys.argv[1:2] != ["--write"]:
        sys.exit("usage: python tests/cli/test_cli_contract.py --write [NAME ...]")
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, argv in CASES.items():
        if sys.argv[2:] and name not in sys.argv[2:]:
            continue
        data = _without_volatile(run_case(argv))
        (FIXTURES / f"{name}.json").write_text(json.dumps(data, indent=1, allow_nan=True) + "\n")
        print(f"wrote {name}")

"""The CLI's JSON contracts on the bundled samples: fields and values only ever get added.

Each case runs one command in-process and compares its JSON with the recorded output in
``tests/fixtures/cli_json/``: every recorded key must still be there with the same value (numbers
to 1e-9 relative), new keys may appear. Timings are not part of a contract and are left out.
Re-record deliberately (after a documented change of meaning) with
``python tests/test_cli_contract.py --write``.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

from benchuq.cli.main import main

FIXTURES = Path(__file__).parent / "fixtures" / "cli_json"
EMB = Path(__file__).parents[1] / "sample_data" / "embeddings"
VTAB3 = ["Sup-Rotation-100%", "Sup-Exemplar-100%", "Sup-100%"]

CASES: dict[str, list[str]] = {
    "leaderboard_vtab1k": ["leaderboard", "sample:vtab1k"],
    "leaderboard_alpaca_eval": ["leaderboard", "sample:alpaca_eval", "--reps", "500"],
    "leaderboard_mmlu_normalized": ["leaderboard", "sample:mmlu", "--normalize", "--reps", "300"],
    "compare_vtab1k": ["compare", "sample:vtab1k", "--models", *VTAB3],
    "compare_alpaca_bonferroni": [
        "compare",
        "sample:alpaca_eval",
        "--models",
        "claude-2",
        "claude-2.1",
        "phi-2",
        "--correction",
        "bonferroni",
        "--reps",
        "500",
    ],
    "ranks_vtab1k": ["ranks", "sample:vtab1k", "--reps", "500"],
    "ranks_vtab1k_normalized_weights": [
        "ranks",
        "sample:vtab1k",
        "--reps",
        "300",
        "--normalize",
        "--weights",
        "0.025,0.025,0.95",
    ],
    "weights_vtab1k": ["weights", "sample:vtab1k", "--resolution", "10"],
    "weights_mmlu": [
        "weights",
        "sample:mmlu",
        "--resolution",
        "10",
        "--categories",
        "STEM,humanities,other",
    ],
    "bayes_vtab1k": ["bayes", "sample:vtab1k", "--draws", "300", "--warmup", "300"],
    "eb_mmlu": ["eb", "sample:mmlu"],
    "epp_vtab1k": ["epp", "sample:vtab1k", "--reps", "200"],
    "arena_alpaca_eval": ["arena", "sample:alpaca_eval", "--anchor", "gpt4_1106_preview"],
    "embeddings_synthetic": [
        "embeddings",
        str(EMB / "synthetic.npz"),
        "--meta",
        str(EMB / "synthetic_meta.csv"),
        "--label",
        "cluster",
        "--heads",
        "4",
        "--dims",
        "8",
        "--bootstrap",
        "scores",
        "--reps",
        "200",
    ],
    "power_alpaca_eval": [
        "power",
        "sample:alpaca_eval",
        "--models",
        "claude-2",
        "claude-2.1",
        "gpt-3.5-turbo-1106",
        "--delta",
        "0.01",
    ],
    "power_mmlu": [
        "power",
        "sample:mmlu",
        "--models",
        "llama-30b",
        "llama-13b",
        "mpt-7b",
        "--correction",
        "bonferroni",
        "--delta",
        "0.01",
    ],
    "power_assumptions": ["power", "--accuracy", "0.7", "0.72", "--corr", "0.5", "--items", "800"],
}

TIMING_KEYS = {"sampler_seconds", "seconds", "elapsed"}


def run_case(argv: list[str]) -> Any:
    """The parsed JSON that ``benchuq ARGV --json`` prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main([*argv, "--json"])
    assert code == 0, f"benchuq {' '.join(argv)} exited {code}"
    return json.loads(out.getvalue())


def _without_timings(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _without_timings(v) for k, v in x.items() if k not in TIMING_KEYS}
    if isinstance(x, list):
        return [_without_timings(v) for v in x]
    return x


def contract_differences(old: Any, new: Any, where: str = "$") -> list[str]:
    """Where ``new`` drops or changes something ``old`` had (added keys are fine)."""
    if isinstance(old, dict):
        if not isinstance(new, dict):
            return [f"{where}: was an object"]
        out = []
        for k, v in old.items():
            if k not in new:
                out.append(f"{where}.{k}: missing")
            else:
                out += contract_differences(v, new[k], f"{where}.{k}")
        return out
    if isinstance(old, list):
        if not isinstance(new, list) or len(new) != len(old):
            return [
                f"{where}: list length {len(old)} -> {len(new) if isinstance(new, list) else new}"
            ]
        return [
            d
            for i, (a, b) in enumerate(zip(old, new, strict=True))
            for d in contract_differences(a, b, f"{where}[{i}]")
        ]
    if isinstance(old, float) and isinstance(new, int | float) and not isinstance(new, bool):
        same = math.isclose(old, new, rel_tol=1e-9, abs_tol=1e-12) or (
            math.isnan(old) and math.isnan(new)
        )
        return [] if same else [f"{where}: {old!r} -> {new!r}"]
    return [] if old == new else [f"{where}: {old!r} -> {new!r}"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_contract_only_gains_fields(name: str) -> None:
    recorded = json.loads((FIXTURES / f"{name}.json").read_text())
    now = _without_timings(run_case(CASES[name]))
    diffs = contract_differences(recorded, now)
    assert not diffs, f"{name}: {len(diffs)} difference(s), first: {diffs[:5]}"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_cli_contract.py --write")
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, argv in CASES.items():
        data = _without_timings(run_case(argv))
        (FIXTURES / f"{name}.json").write_text(json.dumps(data, indent=1, allow_nan=True) + "\n")
        print(f"wrote {name}")

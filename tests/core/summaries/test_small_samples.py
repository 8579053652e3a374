"""Results on few items are flagged and never claim a difference (issue #29, METHODS 2d).

Real harness files: the HELM safety suite (2 instances per task) and inspect_ai logs (1-13
samples a model, several all correct), in ``tests/fixtures``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from browser_utils import levels_stated, page_one_text

from benchuq.cli.main import main
from benchuq.core.data import Benchmark, ItemTask
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.small_samples import few_items_note, min_items_to_tell, p_floor
from benchuq.core.summaries import leaderboard, pairwise_differences

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"
HELM = str(REAL / "helm" / "safety_v3")
INSPECT = str(REAL / "inspect_ai")
# four real inspect_ai JSON logs; claude-sonnet-4 got all 5 arc_easy samples right (the issue's
# "[1.0000, 1.0000]"), the simpleqa log kept no samples (skipped with a note)
INSPECT_JSON = str(REAL.parent / "every_eval_ever" / "inspect_json")


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json", "--reps", "400"]) == 0
    return json.loads(capsys.readouterr().out)


def test_floor_is_the_smallest_n_whose_exact_test_can_reach_the_level() -> None:
    assert [min_items_to_tell(x) for x in (0.95, 0.99, 0.9)] == [6, 8, 5]
    np.testing.assert_allclose(p_floor(np.array([1.0, 2.0, 6.0, np.nan])), [1, 0.5, 1 / 32, 0])


def test_few_items_note_names_one_model_in_the_singular() -> None:
    assert few_items_note(["a", "b"], np.array([3, 40])) == (
        "Few items: a (3) rests on fewer than 30 items; its interval is wide, and with fewer than "
        "6 items no difference can be shown at 95%."
    )
    assert few_items_note(["a", "b"], np.array([3, 4])).startswith(
        "Few items: a (3), b (4) rest on fewer than 30 items; their intervals are wide"
    )
    assert few_items_note(["a"], np.array([30])) is None


@pytest.mark.parametrize("data", [HELM, INSPECT, INSPECT_JSON])
def test_real_files_flag_few_items_and_have_no_zero_width_interval(
    data: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run_json(capsys, "leaderboard", data)
    rows = out["rows"]
    assert all(r["few_items"] and r["items"] < 30 for r in rows)
    assert all(r["high"] - r["low"] > 0.05 for r in rows)
    assert any("Few items" in note for note in out["notes"])
    assert main(["leaderboard", data, "--reps", "400"]) == 0
    text = capsys.readouterr().out
    assert "too few to tell" in text and "items:" in text


def test_helm_pairs_are_too_few_to_tell(capsys: pytest.CaptureFixture[str]) -> None:
    """4 items a model: no pair may differ, p-values are at least 2^(1-4)."""
    models = ["anthropic/claude-3-5-sonnet-20240620", "meta/llama-3-70b"]
    rows = run_json(capsys, "compare", HELM, "--models", *models)["rows"]
    assert rows[0]["too_few_items"] and rows[0]["p_value"] >= 1 / 8
    assert rows[0]["low"] <= 0 <= rows[0]["high"] and -1 <= rows[0]["low"] and rows[0]["high"] <= 1
    assert main(["compare", HELM, "--models", *models, "--reps", "400"]) == 0
    assert "too few items to tell" in capsys.readouterr().out


def test_one_item_a_right_b_wrong_claims_nothing() -> None:
    """Before #29: A - B = 1.0 [1.0, 1.0], p < 0.0005."""
    s = np.array([[1.0], [0.0]])
    bench = Benchmark(
        name="one",
        models=("A", "B"),
        tasks=("t",),
        categories=("c",),
        kind="items",
        estimate=s,
        item_tasks=(ItemTask(("i",), s),),
    )
    d = bootstrap(bench, reps=1000, seed=0)
    row = pairwise_differences(d, ["A", "B"]).iloc[0]
    assert row["low"] < 0 < row["high"] and row["p_value"] == 1.0 and row["too_few_items"]
    lb = leaderboard(d, level=0.95)
    assert lb["tied_with_leader"].all() and (lb["high"] - lb["low"] > 0.5).all()


def test_compare_normalize_matches_the_normalized_leaderboard(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`compare --normalize` (the [LGC] Table 3 normalized column): its differences are those of
    the normalized overall scores."""
    models = ["Sup-Rotation-100%", "Sup-Exemplar-100%", "Sup-100%"]
    cmp = run_json(
        capsys,
        "compare",
        "sample:vtab1k",
        "--models",
        *models,
        "--normalize",
        "--correction",
        "bonferroni",
    )
    assert cmp["normalized"] and cmp["normalization"] == "minmax"
    lb = run_json(capsys, "leaderboard", "sample:vtab1k", "--normalize")["rows"]
    score = {r["model"]: r["estimate"] for r in lb if r["group"] == "overall"}
    for r in cmp["rows"]:
        assert r["estimate"] == pytest.approx(score[r["a"]] - score[r["b"]])


def test_helm_report_says_too_few_items_to_tell(tmp_path: Path) -> None:
    """Before #29 the report said "11 of 15 pairs differ with 95% confidence" on 2 items a task."""
    out = tmp_path / "helm.html"
    assert main(["report", HELM, "-o", str(out), "--reps", "300"]) == 0
    doc = out.read_text(encoding="utf-8")
    assert "Too few items to tell" in doc and "rests on 4 items" in doc
    assert "pairs differ" not in doc and "Few items" in doc
    # the first page's answer in words a manager reads, not "p-value below 2^(1 - n)" (audit
    # of 30); the exact test's floor is in docs/METHODS.md
    assert "2^(1 - n)" not in doc
    assert (
        "even one model right on every item and the other wrong on every item could be chance."
        in doc
        and "differ at about 5%" in doc
    )
    assert levels_stated(page_one_text(doc)) == {"83.4"}  # page 1: one level (issue 41)


def test_inspect_report_flags_few_items_and_names_one_item_in_the_singular(
    tmp_path: Path,
) -> None:
    """The real inspect_ai logs (the JSON log and the `.eval` logs: 6 models, 1-13 items): the
    report leads with "too few items to tell", flags every model, and its header says the counts
    once (the title's content name already holds them)."""
    out = tmp_path / "inspect.html"
    assert main(["report", INSPECT, "-o", str(out), "--reps", "300"]) == 0
    doc = out.read_text(encoding="utf-8")
    assert "<h1>inspect_ai: 6 models x 3 tasks</h1>" in doc
    assert "<p class=sub>Benchmark report · Score = mean of 3 tasks · bootstrap" in doc
    assert "6 models × 3 tasks" not in doc
    assert "Too few items to tell: ollama/gemma3 has the highest score" in doc
    assert "rests on 1 item, and" in doc and "pairs differ" not in doc
    assert "Few items: openai/gpt-4o-mini (13), ollama/llama3.1 (1)" in doc

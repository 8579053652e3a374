"""``benchuq diff``: real runs as written (lm-eval folders, inspect logs with epochs, long CSVs),
exit codes 0/1/2, the JSON contract and the markdown table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from diff_data import binary_pair
from inspect_logs import inspect_log, log_bytes

import benchuq as bq
from benchuq.cli.main import main
from benchuq.core.validation import InvalidArgument

LM_EVAL = (
    Path(__file__).resolve().parents[1]
    / "fixtures/real/lm_eval/samples/pr3936_negotiationtom_qwen3-8b"
)
RESULT_KEYS = {
    "base_score", "candidate_score", "difference", "low", "high", "p_value", "verdict", "method",
    "n_paired", "n_base_only", "n_candidate_only", "se_paired", "se_unpaired", "se_naive",
    "design_effect",
}  # fmt: skip


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def long_csv(path: Path, model: str, scores: dict[str, np.ndarray]) -> str:
    rows = [
        {"model": model, "task": task, "item": f"i{k}", "score": float(s)}
        for task, values in scores.items()
        for k, s in enumerate(values)
        if not np.isnan(s)
    ]
    pd.DataFrame(rows).to_csv(path, index=False)
    return str(path)


def test_two_lm_eval_output_folders_compare_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tmp_path / "base"
    cand = tmp_path / "cand"
    shutil.copytree(LM_EVAL, base)
    shutil.copytree(LM_EVAL, cand)
    flipped = 0
    for f in sorted(cand.glob("samples_*.jsonl")):
        lines = [json.loads(x) for x in f.read_text().splitlines()]
        if "belief" in f.name:
            lines = lines[:-2]  # two items the candidate never ran
        key = "acc" if "acc" in lines[0] else "exact_match"
        for line in lines[:6]:
            flipped += line[key] == 0.0
            line[key] = 1.0
        f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert flipped > 0
    code, out, _ = run(["diff", str(base), str(cand), "--json"], capsys)
    result = json.loads(out)
    assert code == 0
    assert {t["task"] for t in result["tasks"]} == {
        "negotiationtom_belief",
        "negotiationtom_desire",
        "negotiationtom_intention",
    }
    belief = next(t for t in result["tasks"] if t["task"] == "negotiationtom_belief")
    assert (belief["n_paired"], belief["n_base_only"], belief["n_candidate_only"]) == (18, 2, 0)
    assert result["overall"]["n_paired"] == 58
    assert result["overall"]["method"].startswith("sign-flip")  # 18-20 items per task
    assert result["overall"]["difference"] > 0


def test_inspect_logs_with_three_epochs_keep_an_items_answers_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = inspect_log(60, seed=1, epochs=3, turns=1, words=3)
    cand = inspect_log(60, seed=2, epochs=3, turns=1, words=3)
    cand["samples"] = [s for s in cand["samples"] if s["id"] not in ("q0", "q1")]
    (tmp_path / "base.json").write_bytes(log_bytes(base))
    (tmp_path / "cand.json").write_bytes(log_bytes(cand))
    code, out, _ = run(
        ["diff", str(tmp_path / "base.json"), str(tmp_path / "cand.json"), "--json"], capsys
    )
    result = json.loads(out)
    o = result["overall"]
    assert code == 0 and (o["n_paired"], o["n_base_only"], o["n_candidate_only"]) == (58, 2, 0)
    assert o["method"].startswith("paired bootstrap (items as clusters")
    assert RESULT_KEYS <= set(o)


def test_long_csvs_exit_codes_and_json_contract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(0)
    b, c = binary_pair(1500, rng, drop=0.06)
    b2, c2 = binary_pair(1500, rng, drop=0.0)
    base = long_csv(tmp_path / "base.csv", "m", {"a": b, "b": b2})
    cand = long_csv(tmp_path / "cand.csv", "m", {"a": c, "b": c2})
    argv = ["diff", base, cand, "--json"]
    code, out, _ = run([*argv, "--fail-on", "worse", "--per-task"], capsys)
    result = json.loads(out)
    assert code == 1 and result["exit_code"] == 1
    assert {"base", "candidate", "level", "margin", "overall", "tasks", "exit_code"} <= set(result)
    assert all(RESULT_KEYS | {"task"} <= set(t) for t in result["tasks"])
    assert result["tasks"][0]["verdict"] == "worse"
    assert result["base"].startswith("m (base") and result["candidate"].startswith("m (cand")
    code, _, _ = run([*argv, "--fail-on", "never"], capsys)
    assert code == 0
    code, _, err = run(["diff", base, str(tmp_path / "missing.csv")], capsys)
    assert code == 2 and "no such file" in err
    code, _, err = run(["diff", base, cand, "--margin", "-1"], capsys)
    assert code == 2 and "margin" in err
    code, _, err = run(["diff", base], capsys)
    assert code == 2 and "BASE and CANDIDATE" in err


def test_one_data_set_with_base_and_candidate_and_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(1)
    b, c = binary_pair(800, rng, agree=0.95, drop=0.0)
    frame = pd.concat(
        [
            pd.read_csv(long_csv(tmp_path / "x.csv", "old", {"qa": b})),
            pd.read_csv(long_csv(tmp_path / "y.csv", "new", {"qa": c})),
        ]
    )
    frame.to_csv(tmp_path / "both.csv", index=False)
    argv = ["diff", str(tmp_path / "both.csv"), "--base", "old", "--candidate", "new"]
    code, out, _ = run([*argv, "--format", "markdown", "--margin", "3", "--fail-on",
                        "inferior"], capsys)  # fmt: skip
    assert code == 0
    lines = out.splitlines()
    table = [x for x in lines if x.startswith("|")]
    assert table[0].startswith("| task | base | candidate | difference | interval |")
    assert set(table[1].replace("|", "")) <= set("-:")
    assert len(table) == 4 and "equivalent" in table[-1]
    code, out, _ = run(argv, capsys)
    assert "standard errors" in out and "design effect" in out and code == 0
    code, _, err = run([*argv[:2], "--base", "old", "--candidate", "nobody"], capsys)
    assert code == 2 and "nobody" in err


def test_the_readme_ci_recipe_fails_the_job_on_a_regression(tmp_path: Path) -> None:
    import os
    import re
    import subprocess
    import sys

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = re.search(r"- name: Did the change make it worse\?\n  run: \|\n(.*?)```", readme, re.S)
    assert block is not None
    script = "\n".join(line.removeprefix("    ") for line in block.group(1).splitlines())
    rng = np.random.default_rng(3)
    for drop, expected in ((0.08, 1), (-0.02, 0)):
        b, c = binary_pair(3000, rng, agree=0.9, drop=drop)
        for folder, x in (("baseline", b), ("results", c)):
            (tmp_path / folder).mkdir(exist_ok=True)
            long_csv(tmp_path / folder / "run.csv", "m", {"qa": x})
        summary = tmp_path / "summary.md"
        summary.write_text("")
        env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary),
               "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}  # fmt: skip
        done = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == expected, done.stderr
        assert "| task | base | candidate |" in summary.read_text()


def test_counts_data_and_bad_weights_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["diff", "sample:toy", "--base", "A", "--candidate", "B"], capsys)
    assert code == 2 and "item by item" in err and "How to fix" in err
    code, _, err = run(["diff", "sample:alpaca_eval", "--base", "claude-2", "--candidate",
                        "claude-2.1", "--weights", "alpaca_eval"], capsys)  # fmt: skip
    assert code == 2 and "TASK=WEIGHT" in err
    code, _, err = run(["diff", "sample:alpaca_eval", "--base", "claude-2", "--candidate",
                        "claude-2.1", "--weights", "nosuchtask=1"], capsys)  # fmt: skip
    assert code == 2 and "nosuchtask" in err


def test_margin_is_in_points_for_proportions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--margin 5`` on 0-1 scores is 5 points (JSON 0.05 score units, named), not 500: a
    10-point regression is inferior and fails the gate; 500 points is refused (issue #39)."""
    rng = np.random.default_rng(3)
    b = (rng.random(600) < 0.8).astype(float)
    c = np.where(rng.random(600) < 0.12, 0.0, b)  # about 10 points worse
    base = long_csv(tmp_path / "base.csv", "m", {"qa": b})
    cand = long_csv(tmp_path / "cand.csv", "m", {"qa": c})
    argv = ["diff", base, cand, "--margin", "5", "--fail-on", "inferior", "--json"]
    code, out, _ = run(argv, capsys)
    result = json.loads(out)
    assert result["margin"] == pytest.approx(0.05) and "score units" in result["margin_unit"]
    assert result["overall"]["verdict"] != "equivalent" and code == 1 == result["exit_code"]
    assert "margin 5 points" in result["overall"]["sentence"]
    code, _, err = run(["diff", base, cand, "--margin", "500"], capsys)
    assert code == 2 and "margin" in err and "points" in err and "--margin 5" in err
    runs = bq.diff(bq.load(base), bq.load(cand), margin=5, fail_on="inferior")
    assert runs.result.margin == pytest.approx(0.05) and runs.exit_code() == 1
    with pytest.raises(InvalidArgument, match="margin"):
        bq.diff(bq.load(base), bq.load(cand), margin=500)


@pytest.mark.parametrize(("margin", "words"), [("1", "margin 1 point"), ("2", "margin 2 points")])
def test_the_margin_agrees_in_number(margin: str, words: str, capsys) -> None:
    argv = ["diff", "sample:alpaca_eval", "--base", "claude-2", "--candidate", "claude-2.1"]
    code, out, _ = run([*argv, "--margin", margin], capsys)
    assert code == 0
    assert out.splitlines()[0].endswith(words) and f"Inconclusive ({words})" in out
    assert "1 points" not in out


def test_runs_at_0_and_100_percent_name_their_zero_standard_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every item 0 in the base and 1 in the candidate: the standard errors shown are 0, which
    the note names (METHODS 2g); each run holds one model by design, so no "only one model"."""
    base = long_csv(tmp_path / "base.csv", "m", {"a": np.zeros(40)})
    cand = long_csv(tmp_path / "cand.csv", "m", {"a": np.ones(40)})
    code, out, err = run(["diff", base, cand], capsys)
    assert code == 0 and "Standard errors of 0 (a, overall)" in out
    assert "only one model" not in out + err

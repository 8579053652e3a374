"""``benchuq site`` (issue 44): the files, errors as messages, the date rules, and the example
GitHub Actions workflow's build step run as written on a sample."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from benchuq.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "docs" / "examples" / "leaderboard-site.yml"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_site_writes_every_file(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    code, out, _ = run("site", "sample:toy", "-o", str(tmp_path), "--reps", "200",
                       "--title", "Toy board", "--date", "2026-02-03")  # fmt: skip
    assert code == 0 and "toy" in out and "2 badges" in out
    names = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert names == ["badges/A.svg", "badges/B.svg", "every_eval_ever.zip", "index.html",
                     "leaderboard.csv", "leaderboard.json"]  # fmt: skip
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "<h1>Toy board</h1>" in index and "results of 2026-02-03" in index
    assert "benchuq site sample:toy --level 0.834 --by overall --title" in index  # no -o
    board = json.loads((tmp_path / "leaderboard.json").read_text(encoding="utf-8"))
    _, plain, _ = run("leaderboard", "sample:toy", "--reps", "200", "--json")
    expected = json.loads(plain)
    for row in board["rows"]:
        del row["tier"], row["rank_low"], row["rank_high"]
    assert board == expected  # the leaderboard's own JSON, plus three keys per row


def test_source_date_epoch_and_the_data_date(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01 00:00 UTC
    assert run("site", "sample:toy", "-o", str(tmp_path / "a"), "--reps", "200")[0] == 0
    assert "results of 2026-01-01" in (tmp_path / "a" / "index.html").read_text("utf-8")
    assert run("site", "sample:toy", "-o", str(tmp_path / "b"), "--reps", "200",
               "--date", "2025-05-05")[0] == 0  # fmt: skip
    assert "results of 2025-05-05" in (tmp_path / "b" / "index.html").read_text("utf-8")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    code, _, err = run("site", "sample:toy", "-o", str(tmp_path / "c"))
    assert code == 2 and "SOURCE_DATE_EPOCH" in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--date", "2026-02-30"], "is not a date as YYYY-MM-DD"),
        (["--level", "1.5"], "--level"),
    ],
)
def test_bad_input_is_a_message(tmp_path, extra, message) -> None:
    code, _, err = run("site", "sample:toy", "-o", str(tmp_path), *extra)
    assert code == 2 and message in err and "Traceback" not in err


def test_output_that_is_a_file_is_refused(tmp_path) -> None:
    target = tmp_path / "taken"
    target.write_text("x")
    code, _, err = run("site", "sample:toy", "-o", str(target))
    assert code == 2 and "a file of that name exists" in err


def test_the_example_workflow_build_step_runs_on_a_sample(tmp_path) -> None:
    """The workflow's 'Build the site' step, as written, in a git checkout with RESULTS set to a
    sample: twice, byte-identical, dated by the last commit."""
    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps = doc["jobs"]["build"]["steps"]
    build = next(s for s in steps if s.get("name") == "Build the site")["run"]
    assert "benchuq site" in build
    assert doc["jobs"]["deploy"]["steps"][0]["uses"].startswith("actions/deploy-pages")
    env = {
        **os.environ,
        **{k: str(v) for k, v in doc["env"].items()},
        "RESULTS": "sample:vtab1k",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GIT_COMMITTER_DATE": "2026-03-04T12:00:00Z",
        "GIT_AUTHOR_DATE": "2026-03-04T12:00:00Z",
    }
    env.pop("SOURCE_DATE_EPOCH", None)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True, env=env)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "results"], cwd=tmp_path,
                   check=True, env=env)  # fmt: skip
    sites = []
    for _ in range(2):
        subprocess.run(["bash", "-e", "-c", build], cwd=tmp_path, env=env, check=True,
                       capture_output=True)  # fmt: skip
        site = tmp_path / "_site"
        sites.append({str(p.relative_to(site)): p.read_bytes() for p in site.rglob("*.*")})
        subprocess.run(["rm", "-r", str(site)], check=True)
    assert sites[0] == sites[1]
    assert len([p for p in sites[0] if p.startswith("badges/")]) == 16
    index = sites[0]["index.html"].decode()
    assert "<h1>Our leaderboard</h1>" in index and "results of 2026-03-04" in index


def test_the_data_date_and_run_details_from_lm_eval_files(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    runs = ROOT / "tests" / "fixtures" / "real" / "lm_eval" / "results_v04"
    assert run("site", str(runs), "-o", str(tmp_path), "--reps", "200")[0] == 0
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "results of 2025-03-03" in index  # the newest date in the file names
    assert "<h3>Harness and runs</h3><table>" in index and "lm-eval" in index
    assert index.count('data-model="meta-llama/Llama-3.2-1B"') >= 2  # overall and per task

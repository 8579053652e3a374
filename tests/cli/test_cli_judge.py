"""``benchuq judge``: the JSON contract (rows with exactly the issue's keys), the text table, the
methods, labels files, column names and the exit code of bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from benches import judge_few_labels

from benchuq.cli.main import main

KEYS = {
    "model", "task", "estimate", "low", "high", "method", "n_labelled", "n_unlabelled",
    "judge_mean", "human_mean", "lambda", "effective_n", "kappa", "alpha", "sensitivity",
    "specificity",
}  # fmt: skip


def _table(tmp_path: Path, *, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frames = []
    for model, theta in (("A", 0.7), ("B", 0.45)):
        y = (rng.random(500) < theta).astype(float)
        u = rng.random(500)
        f = np.where(y == 1, u < 0.92, u > 0.75).astype(float)
        human = np.where(np.arange(500) < 120, y, np.nan)
        frames.append(pd.DataFrame({"model": model, "task": "qa",
                                    "item": [f"q{k}" for k in range(500)], "judge": f,
                                    "human": human}))  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["judge", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_contract(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    _table(tmp_path).to_csv(path, index=False)
    out = _run(capsys, str(path))
    assert out["method"] == "ppi++" and out["level"] == 0.95
    assert [r["model"] for r in out["rows"]] == ["A", "B", "overall"]
    for row in out["rows"]:
        assert set(row) == KEYS
        assert row["low"] <= row["estimate"] <= row["high"]
        assert row["n_labelled"] == (240 if row["model"] == "overall" else 120)
    assert {"estimates", "agreement", "planning", "sentence", "notes"} <= set(out)
    assert {e["method"] for e in out["estimates"]} == {
        "ppi++",
        "rogan-gladen",
        "classical",
        "judge",
    }
    a = out["agreement"][0]
    assert a["sensitivity_low"] <= a["sensitivity"] <= a["sensitivity_high"]


@pytest.mark.parametrize("method", ["rogan-gladen", "classical"])
def test_methods_and_level(capsys: pytest.CaptureFixture[str], tmp_path: Path, method: str) -> None:
    path = tmp_path / "items.csv"
    _table(tmp_path).to_csv(path, index=False)
    out = _run(capsys, str(path), "--method", method, "--level", "0.9")
    assert out["level"] == 0.9 and {r["method"] for r in out["rows"]} == {method}
    assert all(r["lambda"] is None for r in out["rows"])


def test_labels_file_and_column_names(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    table = _table(tmp_path)
    scores = table.drop(columns="human").rename(columns={"judge": "grade"})
    labels = table.dropna(subset=["human"])[["model", "item", "human"]]
    labels = labels.rename(columns={"human": "gold"})
    scores.to_csv(tmp_path / "scores.csv", index=False)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    joined = _run(capsys, str(tmp_path / "scores.csv"), "--labels", str(tmp_path / "labels.csv"),
                  "--judge", "grade", "--human", "gold")  # fmt: skip
    (tmp_path / "items.csv").write_text(table.to_csv(index=False))
    direct = _run(capsys, str(tmp_path / "items.csv"))
    assert joined["rows"] == direct["rows"]


def test_text_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judge", "sample:mt_bench"]) == 0
    out = capsys.readouterr().out
    assert "1,200 judged items, 240 with a human label" in out
    assert "gpt-4" in out and "overall" in out and "For ± 3 points overall" in out
    assert "where neither is a tie" in out


def test_bad_input_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    table = _table(tmp_path).assign(human=np.nan)
    table.to_csv(tmp_path / "none.csv", index=False)
    assert main(["judge", str(tmp_path / "none.csv")]) == 2
    err = capsys.readouterr().err
    assert "benchuq judge: error:" in err and "no item has a human label" in err
    assert "none.csv" in err
    assert main(["judge", "sample:mt_bench", "--method", "rogan-gladen"]) == 2
    assert "needs binary scores" in capsys.readouterr().err
    assert main(["judge", "sample:mt_bench", "--target", "2"]) == 2


def test_few_labels_where_neither_way_reaches_the_target(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """12 labels among 400 items: neither the judge nor the labels alone reach ± 3 points within
    the judged items; the terminal says so in words (it used to stop with a TypeError)."""
    path = tmp_path / "few.csv"
    judge_few_labels(np.random.default_rng(3), 12).to_csv(path, index=False)
    assert main(["judge", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "more labels than the 400 judged items with the judge" in out
    assert "with 12 labels now (fewer than 30)" in out and "note: Few labels" in err


def test_paired_difference(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    _table(tmp_path).to_csv(path, index=False)
    out = _run(capsys, str(path), "--base", "B", "--candidate", "A")
    d = out["differences"][0]
    assert d["base"] == "B" and d["candidate"] == "A" and d["low"] < d["estimate"] < d["high"]
    assert main(["judge", str(path), "--base", "B"]) == 2
    assert main(["judge", str(path), "--base", "B", "--candidate", "C"]) == 2
    capsys.readouterr()
    args = ["judge", "sample:mt_bench", "--base", "gpt-3.5-turbo", "--candidate", "gpt-4"]
    assert main(args) == 0  # 9 judgments labelled for both: said in words (METHODS 15g)
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("gpt-4 - "))
    assert "9 items labelled for both" in line and "at least as wide as those labels" in line


def test_report_of_judge_data(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "judge.html"
    assert main(["report", "sample:mt_bench", "-o", str(out)]) == 0
    html = out.read_text()
    assert "Judge report: mt_bench" in html and all(f'id="fig-{k}"' in html for k in (1, 2, 3))
    assert "Agreement with the people" in html and "benchuq judge sample:mt_bench" in html
    # the tables in the charts' unit (percent, one decimal), each column saying what it is
    assert '<th title="The judge&#x27;s mean, as if the judge were right (uncorrected).">' in html
    assert re.search(r"<td class=num>74\.4 \[\d+\.\d–\d+\.\d\]</td>", html) and "0.744" not in html
    # each estimate with its interval in one cell: the agreement's 17 columns did not fit a page
    assert "<th>task</th>" not in html and "Agreement with the people (task mt_bench)" in html


def test_judge_table_given_to_a_scores_command_says_use_judge(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A judge table given to ``leaderboard`` (or ``bq.load``) says what it is and which command
    reads it; it said "model 'A' and task 'qa' appear twice (rows 2 and 3)", read as a task-level
    table. ``benchuq judge`` and ``report`` still read it."""
    import benchuq as bq

    path = tmp_path / "judged.csv"
    _table(tmp_path).to_csv(path, index=False)
    assert main(["leaderboard", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "appear twice" not in err
    assert "file 'judged.csv', column 'judge'" in err and "judge's scores with human labels" in err
    assert "How to fix: read it on its own with benchuq judge FILE" in err
    with pytest.raises(bq.DataError, match=r"bq\.judge\(FILE\)"):
        bq.load(str(path))
    assert main(["judge", str(path), "--json"]) == 0


def test_every_column_of_the_text_table_is_said_in_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``lambda``, ``eff. n``, ``kappa``, ``sens`` and ``spec`` had no word on what they are (the
    audit of 2026-12-08); the legend under the table says each column."""
    assert main(["judge", "sample:mt_bench"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.startswith("model "))
    legend = next(line for line in lines if line.startswith("(judge: "))
    columns = header.replace("eff. n", "eff.n").split()[4:]  # after model, estimate, low, high
    for column in columns:
        assert f"{column.replace('eff.n', 'eff. n')}: " in legend, column

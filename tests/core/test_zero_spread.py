"""Zero spread is named, not shown as certainty (issue #39, METHODS 2g): every battle a tie,
identical models in EPP, every given se 0; and no numpy warning reaches the terminal."""

from __future__ import annotations

import contextlib
import io
import json
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

from benchuq.cli.main import main
from benchuq.core.zero_spread import PREFIX


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def se_zero(tmp_path: Path) -> Path:
    path = tmp_path / "se0.csv"
    frame = pd.DataFrame(
        {
            "model": ["a", "b", "c"] * 2,
            "task": ["t1"] * 3 + ["t2"] * 3,
            "estimate": [0.5, 0.6, 0.7, 0.4, 0.5, 0.6],
            "se": [0.0] * 6,
        }
    )
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("command", "extra"),
    [("leaderboard", ()), ("compare", ("--models", "a", "b", "c")), ("ranks", ())],
)
def test_given_se_zero_is_named_in_text_and_json(
    se_zero: Path, command: str, extra: tuple[str, ...]
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy RuntimeWarning (maxt) would fail here
        code, _, err = cli(command, str(se_zero), *extra, "--reps", "200")
        assert code == 0 and PREFIX in err and "standard error the data give is 0" in err
        code, out, _ = cli(command, str(se_zero), *extra, "--reps", "200", "--json")
    doc = json.loads(out)
    said = doc.get("note", "") + " ".join(doc.get("notes", []))
    assert code == 0 and PREFIX in said


def test_some_se_zero_names_only_those_models(tmp_path: Path) -> None:
    path = tmp_path / "some.csv"
    frame = pd.DataFrame(
        {"model": ["a", "b"], "task": ["t", "t"], "estimate": [0.5, 0.6], "se": [0.0, 0.02]}
    )
    frame.to_csv(path, index=False)
    _, _, err = cli("leaderboard", str(path), "--reps", "200")
    assert f"{PREFIX} for a:" in err
    _, _, err = cli("leaderboard", str(se_zero_free(tmp_path)), "--reps", "200")
    assert PREFIX not in err


def se_zero_free(tmp_path: Path) -> Path:
    path = tmp_path / "fine.csv"
    frame = pd.DataFrame(
        {"model": ["a", "b"], "task": ["t", "t"], "estimate": [0.5, 0.6], "se": [0.01, 0.02]}
    )
    frame.to_csv(path, index=False)
    return path


def test_all_ties_arena_says_no_uncertainty_was_measured(tmp_path: Path) -> None:
    path = tmp_path / "ties.csv"
    rows = [("a", "b", "tie")] * 60 + [("b", "c", "tie")] * 60
    pd.DataFrame(rows, columns=["model_a", "model_b", "winner"]).to_csv(path, index=False)
    code, out, err = cli("arena", str(path))
    # the width 0 is still shown (ratings as whole Elo points) ...
    assert code == 0 and re.search(r"\b1000\s+1000\s+1000\b", out)
    assert PREFIX in err and "tie" in err  # ... and named
    code, out, _ = cli("arena", str(path), "--json")
    assert PREFIX in json.loads(out)["note"]


def test_identical_models_in_epp_say_no_uncertainty_was_measured(tmp_path: Path) -> None:
    path = tmp_path / "same.csv"
    rows = [(m, f"t{j}", 100, 50 + j) for m in ("a", "b") for j in range(5)]
    pd.DataFrame(rows, columns=["model", "task", "n", "correct"]).to_csv(path, index=False)
    code, out, err = cli("epp", str(path))
    assert code == 0 and PREFIX in err and "every round is a tie" in err
    code, out, _ = cli("epp", str(path), "--json")
    doc = json.loads(out)
    assert all(r["se"] == 0 for r in doc["rows"]) and PREFIX in doc["note"]


def test_compare_names_the_unit_of_scores_outside_0_1(tmp_path: Path) -> None:
    """Estimates of 50 and 70 (a 0-100 scale, standard errors 0) were titled "proportions"."""
    path = tmp_path / "pct.csv"
    frame = pd.DataFrame(
        {"model": ["a", "b"] * 2, "task": ["t1", "t1", "t2", "t2"], "estimate": [50, 70] * 2,
         "se": [0.0] * 4}
    )  # fmt: skip
    frame.to_csv(path, index=False)
    code, out, err = cli("compare", str(path), "--models", "a", "b", "--reps", "200")
    assert code == 0 and "a - b, score units" in out and "proportions" not in out
    assert PREFIX in err

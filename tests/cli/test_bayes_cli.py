"""CLI: ``benchuq bayes`` and ``--method bayes`` on the other analyses (METHODS 6)."""

from __future__ import annotations

import json

import pytest

from benchuq.cli.main import main

FAST = ("--draws", "150", "--warmup", "100", "--chains", "2")


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_bayes_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "bayes", "sample:toy", *FAST, "--seed", "4")
    assert out["method"] == "Bayesian hierarchical (parameter)"
    assert out["level"] == 0.95 and out["interval"] == "parameter"
    assert out["level_default"] == 0.95  # stated: the leaderboard's default is 0.834
    assert out["settings"] == {
        "chains": 2,
        "draws": 150,
        "warmup": 100,
        "seed": 4,
        "sampler": "imh",
    }
    assert {r["group"] for r in out["rows"]} >= {"overall"}
    for row in out["rows"]:
        assert set(row) == {"model", "group", "estimate", "low", "high", "items", "few_items",
                            "n_items", "n_answers"}  # fmt: skip
        assert 0 <= row["low"] <= row["estimate"] <= row["high"] <= 1
    diag = out["diagnostics"]
    assert {"rhat_max", "ess_bulk_min", "ess_tail_min", "warnings"} <= diag.keys()
    assert 0.3 < diag["acceptance_min"] <= 1.0
    assert diag["rhat_max"] >= 0.99 and diag["ess_bulk_min"] > 0
    assert [h["model"] for h in out["hyperparameters"]] == ["A", "B"]
    assert out["priors"]["A"] == {"a": "exponential(0.0001)", "b": "exponential(0.0001)"}


def test_prior_flags_change_the_fit(capsys: pytest.CaptureFixture[str]) -> None:
    vague = run_json(capsys, "bayes", "sample:toy", *FAST)
    tight = run_json(
        capsys,
        "bayes",
        "sample:toy",
        *FAST,
        "--prior",
        "*:a=normal(900,10),b=normal(100,10)",
        "--prior",
        "B:b=gamma(2,0.01)",
    )
    assert tight["prior_specs"] == [
        "A:a=normal(900,10),b=normal(100,10)",
        "B:a=normal(900,10),b=gamma(2,0.01)",
    ]
    # a Beta(900, 100) prior pulls A's 200-item task (0.5) toward 0.9: the mean moves up
    est = {r["model"]: r["estimate"] for r in vague["rows"] if r["group"] == "overall"}
    est_t = {r["model"]: r["estimate"] for r in tight["rows"] if r["group"] == "overall"}
    assert est_t["A"] - est["A"] > 0.02
    assert tight["priors"]["B"] == {"a": "normal(900,10)", "b": "gamma(2,0.01)"}


def test_predictive_intervals_are_wider(capsys: pytest.CaptureFixture[str]) -> None:
    par = run_json(capsys, "bayes", "sample:toy", *FAST)
    pred = run_json(capsys, "bayes", "sample:toy", *FAST, "--interval", "predictive")
    assert pred["method"] == "Bayesian hierarchical (posterior predictive)"
    width = {
        kind: sum(r["high"] - r["low"] for r in out["rows"])
        for kind, out in (("par", par), ("pred", pred))
    }
    assert width["pred"] > 1.2 * width["par"]


@pytest.mark.parametrize("command", ["leaderboard", "ranks"])
def test_method_bayes_on_other_analyses(capsys: pytest.CaptureFixture[str], command: str) -> None:
    out = run_json(capsys, command, "sample:toy", "--method", "bayes", *FAST)
    assert out["method"] == "Bayesian hierarchical (parameter)"
    assert out["reps"] == 300


def test_compare_with_bayes(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(
        capsys, "compare", "sample:toy", "--models", "A", "B", "--method", "bayes", *FAST
    )
    assert out["method"].startswith("Bayesian hierarchical")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--prior", "A:a=normal(5,0)"], "sd must be > 0"),
        (["--prior", "A:a=exponential(-2)"], "rate must be > 0"),
        (["--prior", "Z:a=gamma(1,1)"], "not in the data"),
        (["--prior", "A:a=beta(1,1)"], "unknown prior family"),
        (["--draws", "10"], "draws >= 100"),
    ],
)
def test_bad_flags_exit_2_with_a_fix(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["bayes", "sample:toy", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("benchuq bayes: error:")


def test_non_binary_data_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: pytest.TempPathFactory
) -> None:
    path = tmp_path / "scores.csv"  # type: ignore[operator]
    path.write_text("model,task,estimate,se\nA,t1,0.5,0.1\nB,t1,0.6,0.1\n")
    assert main(["bayes", str(path), *FAST]) == 2
    assert "needs counts" in capsys.readouterr().err


def test_sampler_flag_picks_gibbs(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "bayes", "sample:toy", *FAST, "--sampler", "gibbs")
    assert out["settings"]["sampler"] == "gibbs"
    assert out["diagnostics"]["acceptance_min"] is None
    imh = run_json(capsys, "bayes", "sample:toy", *FAST)
    # same posterior: overall estimates agree to Monte Carlo error (300 draws each)
    est = {r["model"]: r["estimate"] for r in out["rows"] if r["group"] == "overall"}
    est_i = {r["model"]: r["estimate"] for r in imh["rows"] if r["group"] == "overall"}
    assert all(abs(est[m] - est_i[m]) < 0.03 for m in est)


def test_bayes_states_its_default_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bayes", "sample:toy", *FAST]) == 0
    assert "0.95 credible intervals (this command's default;" in capsys.readouterr().out
    assert main(["bayes", "sample:toy", *FAST, "--level", "0.834"]) == 0
    assert "chosen with --level; this command's default is 0.95" in capsys.readouterr().out

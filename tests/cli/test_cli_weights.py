"""``benchuq weights``: the JSON contract, the single-point view, the table and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchuq.cli.main import main
from benchuq.core.reading.loaders import load_sample
from benchuq.core.summaries.dominance import dominance_map, moments_from_benchmark


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["weights", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_contract_full_grid(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "sample:vtab1k", "--resolution", "10")
    assert {"categories", "z", "rho", "points"} <= out.keys()
    assert out["categories"] == ["natural", "specialized", "structured"]
    assert out["z"] == 2.0 and out["rho"] == 0.0
    assert len(out["points"]) == 66
    for pt in out["points"]:
        assert set(pt) == {"w", "winner", "leader", "runner_up", "difference", "se"}
        assert sum(pt["w"]) == pytest.approx(1.0)
        assert pt["winner"] in (None, pt["leader"])
        assert pt["leader"] != pt["runner_up"]
        won = pt["difference"] > 0 and pt["difference"] >= 2.0 * pt["se"]
        assert (pt["winner"] is not None) == won
    assert any(p["winner"] is None for p in out["points"])
    assert any(p["winner"] is not None for p in out["points"])
    assert sum(s["share"] for s in out["shares"]) == pytest.approx(1.0)


def test_at_returns_the_single_point_of_the_core(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "sample:vtab1k", "--at", "2,3,5", "--z", "1.4", "--rho", "0.3")
    (pt,) = out["points"]
    assert pt["w"] == [0.2, 0.3, 0.5]
    m = moments_from_benchmark(load_sample("vtab1k"))
    d = dominance_map(m, z=1.4, rho=0.3, weights=np.array([[0.2, 0.3, 0.5]]))
    assert pt["leader"] == d.models[d.leader[0]]
    assert pt["se"] == pytest.approx(d.se[0])
    assert pt["difference"] == pytest.approx(d.difference[0])


def test_larger_z_never_adds_winners(capsys: pytest.CaptureFixture[str]) -> None:
    lo = run_json(capsys, "sample:vtab1k", "--resolution", "8", "--z", "1")["points"]
    hi = run_json(capsys, "sample:vtab1k", "--resolution", "8", "--z", "3")["points"]
    assert sum(p["winner"] is None for p in hi) > sum(p["winner"] is None for p in lo)
    assert all(a["winner"] is not None for a, b in zip(lo, hi, strict=True) if b["winner"])


def test_two_categories_and_merge(capsys: pytest.CaptureFixture[str]) -> None:
    two = run_json(
        capsys, "sample:vtab1k", "--categories", "natural,structured", "--resolution", "4"
    )
    assert two["categories"] == ["natural", "structured"] and len(two["points"]) == 5
    merged = run_json(
        capsys,
        "sample:vtab1k",
        "--merge",
        "natural=nat,specialized=rest,structured=rest",
        "--at",
        "0.5,0.5",
    )
    assert merged["categories"] == ["nat", "rest"] and len(merged["points"]) == 1


def test_four_categories_ask_for_a_pick_or_merge(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["weights", "sample:mmlu"]) == 2
    err = capsys.readouterr().err
    assert "--categories" in err and "--merge" in err and "humanities" in err


def test_readable_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["weights", "sample:vtab1k", "--resolution", "20"]) == 0
    text = capsys.readouterr().out
    assert "indeterminate" in text and "Sup-Rotation-100%" in text and "%" in text
    assert main(["weights", "sample:vtab1k", "--at", "0.2,0.3,0.5"]) == 0
    text = capsys.readouterr().out
    assert "runner-up" in text and "SE" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--categories", "natural,nope"], "unknown categories"),
        (["--at", "1,2"], "3 non-negative"),
        (["--rho", "1.5"], "rho"),
        (["--resolution", "0"], "resolution"),
        (["--categories", "natural", "--merge", "natural=a"], "not both"),
        (["--merge", "natural=a"], "2 or 3 categories"),
    ],
)
def test_bad_input_exits_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["weights", "sample:vtab1k", *argv]) == 2
    err = capsys.readouterr().err
    assert "benchuq weights: error:" in err and message in err


def test_item_data_reads_rho_from_paired_draws(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rng = np.random.default_rng(1)
    rows = ["model,task,category,item,score"]
    for j, cat in enumerate(("a", "a", "b", "b", "c", "c")):
        ease = rng.normal(scale=3.0, size=150)  # items differ a lot: strong pairing
        for m, skill in (("m1", 0.3), ("m2", 0.0)):
            won = rng.random(150) < 1 / (1 + np.exp(-(ease + skill)))
            rows += [f"{m},t{j},{cat},i{k},{int(y)}" for k, y in enumerate(won)]
    path = tmp_path / "items.csv"
    path.write_text("\n".join(rows) + "\n")
    out = run_json(capsys, str(path), "--reps", "300", "--resolution", "5")
    assert out["rho"] is None and out["rho_source"] == "paired draws"
    assert 0.3 < out["implied_rho"]["median"] < 1  # shared item difficulty
    assumed = run_json(capsys, str(path), "--reps", "300", "--resolution", "5", "--assume-rho")
    assert assumed["rho"] == 0.0 and assumed["rho_source"] == "assumed"
    se = [p["se"] for p in out["points"]]
    se_assumed = [p["se"] for p in assumed["points"]]
    assert all(a < b for a, b in zip(se, se_assumed, strict=True))


def test_bayes_method_reads_the_posterior_moments(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["weights", "sample:vtab1k", "--at", "0.2,0.3,0.5", "--json", "--seed", "1"]
    assert main([*argv, "--method", "bayes", "--draws", "200", "--warmup", "200"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["source"].startswith("Bayesian model of the items")  # the method in words
    assert out["rho"] is None and out["rho_source"] == "paired draws"

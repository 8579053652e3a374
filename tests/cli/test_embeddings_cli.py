"""``benchuq embeddings``: JSON contract, files and samples, errors with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchuq.cli.main import main
from benchuq.core.analyses.embeddings.synthetic import synthetic_clusters


def _files(tmp_path: Path, *, drop_meta_row: bool = False) -> tuple[Path, Path]:
    x, y = synthetic_clusters("partial", k=3, n=40, d=6, seed=0)
    ids = np.array([f"e{i}" for i in range(len(y))])
    emb = tmp_path / "models.npz"
    np.savez(emb, ids=ids, good=x, worse=x + np.random.default_rng(0).normal(size=x.shape) * 3)
    meta = pd.DataFrame({"id": ids, "topic": y, "size": np.arange(len(y)) % 7})
    if drop_meta_row:
        meta = meta.iloc[1:]
    meta_path = tmp_path / "meta.csv"
    meta.to_csv(meta_path, index=False)
    return emb, meta_path


def test_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    emb, meta = _files(tmp_path)
    argv = ["embeddings", str(emb), "--meta", str(meta), "--label", "topic"]
    assert main([*argv, "--heads", "4", "--dims", "3", "--seed", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["model"] for r in out["rows"]] == ["good", "worse"]
    for row in out["rows"]:
        assert set(row) == {"model", "alp", "alp_low", "alp_high", "accuracy"}
        assert row["alp_low"] <= row["alp"] <= row["alp_high"] <= 0
        assert 0 <= row["accuracy"] <= 1
    good, worse = out["rows"]
    assert good["alp"] > worse["alp"] and good["accuracy"] > worse["accuracy"]
    assert out["settings"]["heads"] == 4 and out["settings"]["seed"] == 2
    assert out["clusters"] == {"c0": 40, "c1": 40, "c2": 40}


def test_bootstrap_flag_chooses_the_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    emb, meta = _files(tmp_path)
    argv = ["embeddings", str(emb), "--meta", str(meta), "--label", "topic", "--json"]
    out = {}
    for mode in ("refit", "linear", "scores"):
        assert main([*argv, "--bootstrap", mode]) == 0
        out[mode] = json.loads(capsys.readouterr().out)
        assert out[mode]["settings"]["bootstrap"] == mode
        assert set(out[mode]["rows"][0]) == {"model", "alp", "alp_low", "alp_high", "accuracy"}
    assert "refitting" in out["refit"]["method"]["good"]
    assert "held fixed" in out["scores"]["method"]["good"]
    assert "linearised refit" in out["linear"]["method"]["good"]
    # the linear accuracy interval says it leaves out the fitting error, the refit one how its
    # flipped hits are rescaled; scores names one method for both
    assert "leaves out the error of fitting" in out["linear"]["accuracy_method"]["good"]
    assert "1/sqrt(spread)" in out["refit"]["accuracy_method"]["good"]
    assert out["scores"]["accuracy_method"] == out["scores"]["method"]
    assert out["refit"]["settings"]["reps"] == 200 and out["scores"]["settings"]["reps"] == 1000
    assert out["linear"]["settings"]["reps"] == 1000
    rows = zip(out["refit"]["rows"], out["linear"]["rows"], out["scores"]["rows"], strict=True)
    for refit, linear, scores in rows:
        assert refit["alp"] == linear["alp"] == scores["alp"]  # same estimate, other intervals
        # the refit and linear intervals also carry the error of fitting the Gaussians
        for fitted in (refit, linear):
            assert fitted["alp_high"] - fitted["alp_low"] > scores["alp_high"] - scores["alp_low"]
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--bootstrap", "exact"])
    assert stop.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_several_labels_grow_a_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    emb, meta = _files(tmp_path)
    argv = ["embeddings", str(emb), "--meta", str(meta), "--label", "topic", "size"]
    assert main([*argv, "--depth", "2", "--min-leaf", "15", "--reps", "100"]) == 0
    text = capsys.readouterr().out
    assert "split on [topic = " in text and "leaf (cluster)" in text
    assert "good" in text and "worse" in text


def test_prior_weight_steers_the_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    emb, meta = _files(tmp_path)
    argv = ["embeddings", str(emb), "--meta", str(meta), "--label", "topic", "size"]
    argv += ["--depth", "1", "--min-leaf", "15", "--reps", "100", "--json"]
    assert main(argv) == 0
    root = json.loads(capsys.readouterr().out)["tree"][0]
    assert root["split"].startswith("topic")
    assert main([*argv, "--prior", "size=1e300"]) == 0
    root = json.loads(capsys.readouterr().out)["tree"][0]
    assert root["split"].startswith("size")
    assert main([*argv, "--prior", "size"]) == 2
    assert "COLUMN=WEIGHT" in capsys.readouterr().err


def test_text_output_names_the_accuracy_interval_where_it_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    emb, meta = _files(tmp_path)
    argv = ["embeddings", str(emb), "--meta", str(meta), "--label", "topic"]
    assert main([*argv, "--bootstrap", "linear", "--reps", "200"]) == 0
    out = capsys.readouterr().out
    assert "linearised refit" in out and "accuracy intervals: linearised" in out
    assert main([*argv, "--bootstrap", "refit", "--reps", "50"]) == 0
    assert "1/sqrt(spread)" in capsys.readouterr().out
    assert main([*argv, "--bootstrap", "scores", "--reps", "50"]) == 0
    assert "accuracy intervals" not in capsys.readouterr().out


def test_sample_runs_without_meta(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["embeddings", "sample:synthetic", "--reps", "100", "--json"]) == 0
    rows = {r["model"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert rows["separated"]["accuracy"] >= 0.99
    assert rows["separated"]["alp"] > rows["partial"]["alp"] > rows["overlapping"]["alp"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--label", "nope"], "no meta column 'nope'"),
        (["--label", "topic", "--level", "95"], "between 0 and 1"),
        (["--label", "topic", "--folds", "50"], "folds 50 needs every cluster"),
    ],
)
def test_bad_flags_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    emb, meta = _files(tmp_path)
    assert main(["embeddings", str(emb), "--meta", str(meta), *extra]) == 2
    assert message in capsys.readouterr().err


def test_mismatched_ids_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    emb, meta = _files(tmp_path, drop_meta_row=True)
    assert main(["embeddings", str(emb), "--meta", str(meta), "--label", "topic"]) == 2
    err = capsys.readouterr().err
    assert "models.npz" in err and "'e0'" in err and "no meta row" in err

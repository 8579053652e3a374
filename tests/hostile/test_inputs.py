"""Inputs outside the file corpus: flags, devices, folders, link parameters, embeddings (#19)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchuq.cli.main import main
from benchuq.core.data import DataError
from benchuq.core.reading.files import read_capped
from benchuq.presentation import state


def _err(argv: list[str], capsys) -> str:
    assert main(argv) == 2
    return capsys.readouterr().err


def test_missing_task_table_is_an_error_also_for_samples(capsys) -> None:
    err = _err(["leaderboard", "sample:toy", "--tasks", "/nope.csv"], capsys)
    assert "'/nope.csv'" in err and "does not exist" in err


def test_task_table_applies_to_a_sample(tmp_path, capsys) -> None:
    tasks = tmp_path / "tasks.csv"
    tasks.write_text("task,category,n\nsmall,tiny,200\nmedium,big,10000\nlarge,big,1000000\n")
    assert (
        main(["leaderboard", "sample:toy", "--tasks", str(tasks), "--reps", "100", "--json"]) == 0
    )
    groups = {r["group"] for r in json.loads(capsys.readouterr().out)["rows"]}
    assert {"tiny", "big"} <= groups


def test_endless_device_is_refused_while_reading(monkeypatch, capsys) -> None:
    monkeypatch.setattr("benchuq.core.reading.files.MAX_FILE_BYTES", 2**20)
    err = _err(["leaderboard", "/dev/zero"], capsys)
    assert "'/dev/zero'" in err and "larger than 1 MB" in err
    with pytest.raises(DataError, match="larger than"):
        read_capped("/dev/zero", limit=1000)


def test_folder_with_license_and_readme_reads_the_data(tmp_path, capsys) -> None:
    (tmp_path / "r.csv").write_text("model,task,n,correct\nA,t,100,60\nB,t,100,50\n")
    (tmp_path / "LICENSE.txt").write_text("MIT License\n\nPermission is hereby granted, free")
    (tmp_path / "README.md").write_text("# results\n")
    assert main(["leaderboard", str(tmp_path), "--reps", "100", "--json"]) == 0
    assert "LICENSE.txt" in capsys.readouterr().err  # named in the skip note


def test_deeply_nested_categories_parameter_is_a_notice() -> None:
    raw = '{"a":' * 100_000 + "1" + "}" * 100_000
    edits, notice = state.parse_categories(raw, ("a",))
    assert edits == {} and notice is not None and notice.param == "categories"


def test_complex_embeddings_are_refused(tmp_path, capsys) -> None:
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "c.npz", ids=np.arange(40), m=rng.normal(size=(40, 4)) * (1 + 1j))
    (tmp_path / "meta.csv").write_text(
        "id,cluster\n" + "".join(f"{i},{i % 2}\n" for i in range(40))
    )
    argv = ["embeddings", str(tmp_path / "c.npz"), "--meta", str(tmp_path / "meta.csv"),
            "--label", "cluster", "--bootstrap", "scores", "--reps", "50"]  # fmt: skip
    assert "is complex" in _err(argv, capsys)


def test_estimates_that_would_overflow_are_refused(tmp_path, capsys) -> None:
    f = tmp_path / "e.csv"
    f.write_text("model,task,estimate,se\nA,t,1e308,1e307\nB,t,0.5,0.1\n")
    err = _err(["leaderboard", str(f), "--reps", "100"], capsys)
    assert "row 2" in err and "'estimate'" in err


def test_cli_text_output_cannot_drive_the_terminal(tmp_path, capsys) -> None:
    f = tmp_path / "esc.csv"
    f.write_text('model,task,n,correct\n"A\x1b[31mRED",t,100,50\n"\u202egnp.exe",t,100,40\n')
    assert main(["leaderboard", str(f), "--reps", "100"]) == 0
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and "\u202e" not in out + err
    assert "A[U+001B][31mRED" in out and "[U+202E]gnp.exe" in out

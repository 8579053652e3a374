"""Folders and multi-file loads as tools write them: stray files skipped by content with one
note, broken results still stopping the load, nested lm-eval output, zips, several paths, globs."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from benchuq.core.data import DataError
from benchuq.core.reading.classify import classify
from benchuq.core.reading.loaders import load_files, load_path, read_paths, resolve
from benchuq.core.reading.notes import group_notes, headline, summarize
from benchuq.core.reading.table import Source

REAL = Path(__file__).parents[2] / "fixtures" / "real"
V04 = REAL / "lm_eval" / "results_v04"
SAMPLES = REAL / "lm_eval" / "samples"
#: What real output folders hold next to results (contents as such files look).
STRAYS: dict[str, bytes] = {
    "README.md": b"# Evaluation runs\n\nlm_eval --model hf --tasks mmlu,arc_easy\n",
    ".DS_Store": b"\x00\x00\x00\x01Bud1\x00\x00\x10\x00\x00\x00\x08\x00",
    "config.yaml": b"model: hf\ntasks:\n  - mmlu\nbatch_size: 8\n",
    "LICENSE.txt": b"MIT License\n\nCopyright (c) 2020 EleutherAI\n\nPermission is hereby "
    b"granted, free of charge, to any person obtaining a copy\n",
    "_provenance.txt": b"Copied from lm-evaluation-harness pull request 2809.\n",
    "eval.log": b"INFO 2025-03-03 00:05:12 Evaluating mmlu\nINFO done\n",
    "model_config.json": b'{"architectures": ["LlamaForCausalLM"], "hidden_size": 2048}',
}


def with_strays(folder: Path) -> Path:
    for name, data in STRAYS.items():
        (folder / name).write_bytes(data)
    return folder


def test_lm_eval_folder_with_stray_files_loads_with_one_note(tmp_path: Path) -> None:
    out = with_strays(Path(shutil.copytree(V04, tmp_path / "out")))
    bench = load_path(out)
    assert bench == load_path(V04, name="out")._replace(notes=bench.notes)
    skipped = [n for n in bench.notes if "not results" in headline(n)]
    assert len(skipped) == 1
    note = skipped[0]
    assert headline(note).startswith("7 files skipped — not results")
    for name in STRAYS:
        assert name in note  # every file named, with why, on the detail lines
    assert "config.yaml: a .yaml file" in note and ".DS_Store: hidden" in note


def test_the_same_folder_uploaded_file_by_file(tmp_path: Path) -> None:
    files = [(p.name, p.read_bytes()) for p in sorted(V04.glob("*.json"))]
    bench = load_files(files + list(STRAYS.items()), name="v04")
    assert bench.shape == (2, 72)
    assert sum("not results" in n for n in bench.notes) == 1


def test_notes_are_grouped_and_counted() -> None:
    bench = load_path(V04)
    heads = [headline(n) for n in bench.notes]
    assert "2 files: task 'cola' skipped — its metric is mcc, not acc." in heads
    assert any(h.startswith("2 files: 5 group aggregates read as groups") for h in heads)
    assert len(bench.notes) == len(set(heads))  # said once each
    one = load_path(next(V04.glob("Qwen*.json")))  # one file: its notes need no file name
    assert "task 'cola' skipped — its metric is mcc, not acc." in one.notes


def test_group_notes_and_summary() -> None:
    pairs = [(f"f{i}.json", "task 'cola' skipped.") for i in range(13)] + [("a", "x\ndetail")]
    notes = group_notes(pairs)
    assert notes[0].startswith("13 files: task 'cola' skipped.\nfiles: f0.json, f1.json")
    assert notes[1] == "a: x\ndetail"
    assert summarize([str(i) for i in range(20)], limit=5)[-1] == "… and 16 more notes"


@pytest.mark.parametrize(
    "name, data, words",
    [
        ("results_2025-01-01T00-00-00.json", b'{"results": {"arc": {"acc,none": 0.5', "JSON"),
        ("scores.csv", b"model,task,n,correct\nA,t1,10,5\nB,t1,10,5,7\n", "fields"),
        ("scores.csv", b"model,task,n,correct\nA,t1,10,50\nB,t1,10,5\n", "correct"),
    ],
)
def test_a_broken_result_in_a_folder_still_stops_the_load(
    tmp_path: Path, name: str, data: bytes, words: str
) -> None:
    out = with_strays(Path(shutil.copytree(V04, tmp_path / "out")))
    (out / name).write_bytes(data)
    with pytest.raises(DataError, match=words) as err:
        load_path(out)
    assert err.value.file == name and err.value.hint


def test_one_file_given_alone_is_read_as_a_result() -> None:
    with pytest.raises(DataError, match="wide leaderboard needs a model column"):
        load_files([("_provenance.txt", b"Copied from somewhere.\n")])
    with pytest.raises(DataError, match="no results among the files"):
        load_files(list(STRAYS.items()))


@pytest.mark.parametrize(
    "name, data, kind",
    [
        ("notes.txt", b"these are notes, not data\nline two\n", "other"),
        ("wide.csv", b"Model Name,arc,hellaswag\nA,0.5,0.6\nB,0.4,0.7\n", "wide"),
        ("table.tsv", b"system\tscore\nA\t0.5\n", "wide"),
        ("meta.csv", b"id,colour\n1,red\n2,blue\n", "other"),
        ("results.json", json.dumps({"results": {}, "versions": {}}).encode(), "lm_eval"),
        ("config.json", b'{"hidden_size": 5}', "other"),
    ],
)
def test_what_claims_to_be_a_result(name: str, data: bytes, kind: str) -> None:
    assert classify(Source(name, data), None, lenient=True).kind == kind


def nested_output(root: Path) -> Path:
    """lm-eval's own layout: <output>/<model_name_sanitized>/results_*.json + samples_*.jsonl."""
    out = root / "output"
    for run in sorted(SAMPLES.iterdir()):
        results = json.loads(next(run.glob("results_*.json")).read_text())
        dst = out / results["model_name_sanitized"]
        shutil.copytree(run, dst)
        with_strays(dst)
    return out


def test_nested_lm_eval_output_is_read_whole(tmp_path: Path) -> None:
    bench = load_path(nested_output(tmp_path))
    assert bench.kind == "items" and bench.shape == (2, 4)
    assert set(bench.models) == {"meta-llama/Meta-Llama-3-8B-Instruct", "Qwen/Qwen3-8B"}
    assert bench.categories[bench.tasks.index("negotiationtom_belief")] == "negotiationtom"
    assert sum("not results" in n for n in bench.notes) == 1
    broken = next(nested_output(tmp_path / "again").rglob("samples_asdiv_*.jsonl"))
    broken.write_text(broken.read_text() + "{oops\n")
    with pytest.raises(DataError, match="line 51 is not valid JSON") as err:
        load_path(tmp_path / "again" / "output")
    assert err.value.file.endswith(broken.name)


def test_results_without_sample_files_for_every_task_are_read_as_counts(tmp_path: Path) -> None:
    out = nested_output(tmp_path)
    shutil.copytree(V04, out / "more")
    bench = load_path(out)
    assert bench.kind == "counts" and len(bench.models) == 4
    assert any("sample files set aside" in n for n in bench.notes)
    items = load_path(out, format="lm_eval_samples")
    assert items.kind == "items" and items.shape == (2, 4)


def test_several_paths_and_globs(tmp_path: Path) -> None:
    a, b = sorted(V04.glob("*.json"))
    both = resolve([str(a), str(b)])
    assert both == load_path(V04)._replace(name="data", notes=both.notes)
    opt = REAL / "lm_eval" / "results_v03" / "opt_0shot"
    globbed = resolve([str(opt / "opt-1*.json"), str(V04)])
    assert len(globbed.models) == 5  # opt-125m, opt-1.3b, opt-13b and the two v0.4 models
    assert globbed.categories[globbed.tasks.index("anatomy")] == "mmlu"  # v0.4 groups win
    with pytest.raises(DataError, match="matches no file"):
        resolve([str(tmp_path / "*.json")])
    with pytest.raises(DataError, match="cannot be combined"):
        resolve(["sample:toy", str(a)])


def test_a_zip_archive_reads_like_the_folder(tmp_path: Path) -> None:
    out = with_strays(Path(shutil.copytree(V04, tmp_path / "out")))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for p in sorted(out.iterdir()):
            z.write(p, f"out/{p.name}")
        z.writestr("__MACOSX/out/._README.md", b"\x00\x05\x16\x07")
    from_zip = load_files([("out.zip", buf.getvalue())], name="out")
    from_folder = load_path(out)
    assert from_zip == from_folder
    assert np.array_equal(from_zip.correct, from_folder.correct)
    assert sum("not results" in n for n in from_zip.notes) == 1


def test_hidden_folders_are_not_entered(tmp_path: Path) -> None:
    out = Path(shutil.copytree(V04, tmp_path / "out"))
    (out / ".git").mkdir()
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    bench = read_paths([out]).bench
    assert not any(".git" in n for n in bench.notes)

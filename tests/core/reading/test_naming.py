"""Named data (issues 30 and 41): a data set's name from the folder or file the user gave, else
its harness, the hash of the parsed data (a folder and its zip alike), the name and description of
a published set, and ``--name``."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from benchuq.cli.main import main
from benchuq.core.reading.loaders import read_paths, read_sample
from benchuq.core.reading.naming import data_name
from benchuq.store import Store, StoreConfig, decode, encode

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"
LM_EVAL = REAL / "lm_eval" / "results_v04"


@pytest.mark.parametrize(
    ("path", "name"),
    [
        (LM_EVAL, "results_v04: 2 models x 16 benchmarks"),
        (REAL / "lm_eval" / "results_v03", "results_v03: 43 models x 65 benchmarks"),
        (REAL / "helm", "helm: 9 models x 2 scenarios"),
        (REAL / "inspect_ai", "inspect_ai: 6 models x 3 tasks"),
        (REAL / "inspect_ai" / "eval_zip", "eval_zip: 6 models x 2 tasks"),
        (REAL / "alpaca_eval", "alpaca_eval: 9 models x 1 task"),
    ],
)
def test_a_folder_names_its_data_with_the_harness_units(path: Path, name: str) -> None:
    """Issue 41: the folder the user gave names the data ('inspect_ai 0.3' was every inspect
    folder's name); the units stay the harness's (benchmarks, scenarios)."""
    assert data_name(read_paths([path])) == name


@pytest.mark.parametrize(
    ("paths", "name"),
    [
        (sorted(LM_EVAL.glob("*.json")), "lm-eval v0.4: 2 models x 16 benchmarks"),
        (
            sorted((REAL / "inspect_ai" / "eval_zip").glob("mmlu*.eval")),
            "inspect_ai 0.3: 2 models x 1 task",
        ),
    ],
)
def test_files_given_loose_are_named_by_their_harness(paths: list[Path], name: str) -> None:
    assert len(paths) > 1
    assert data_name(read_paths(paths)) == name


def test_one_uploaded_zip_is_named_by_its_file(tmp_path: Path) -> None:
    """An upload of one zip (its members are many) is named by the zip, as its folder would be."""
    from benchuq.core.reading.loaders import read_files

    archive = tmp_path / "nightly.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in sorted(LM_EVAL.iterdir()):
            z.write(f, f"results_v04/{f.name}")
    loaded = read_files([("nightly.zip", archive.read_bytes())])
    assert data_name(loaded) == "nightly: 2 models x 16 benchmarks"


def test_helm_names_the_folder_that_holds_the_run_folders(tmp_path: Path) -> None:
    """A folder or zip the user gave names the data by itself (issue 41); run folders given loose
    are named by their harness, HELM with the folder above the run folders (the suite)."""
    suite = REAL / "helm" / "safety_v3"
    assert data_name(read_paths([suite])) == "safety_v3: 9 models x 2 scenarios"
    loose = sorted(str(p) for p in suite.iterdir())
    assert data_name(read_paths(loose)) == "HELM safety_v3: 9 models x 2 scenarios"
    archive = tmp_path / "suite.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in sorted(suite.rglob("*.json")):
            z.write(f, f"runs/v3/{f.relative_to(suite)}")
    assert data_name(read_paths([archive])) == "suite: 9 models x 2 scenarios"


def test_a_sample_keeps_its_name_and_a_generic_name_gives_the_shape() -> None:
    loaded = read_sample("vtab1k")
    assert data_name(loaded) == "vtab1k: 16 models x 19 tasks"
    from benchuq.core.reading.meta import Loaded

    upload = Loaded(loaded.bench._replace(name="upload"), loaded.meta)
    assert data_name(upload) == "16 models x 19 tasks"


def test_a_folder_and_its_zip_have_the_same_data_hash(tmp_path: Path) -> None:
    archive = tmp_path / "runs.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in sorted(LM_EVAL.iterdir()):
            z.write(f, f"results_v04/{f.name}")
    folder, zipped = read_paths([LM_EVAL]).bench, read_paths([archive]).bench
    assert folder.name != zipped.name  # the loader's default names differ (folder vs file)...
    assert folder.data_hash == zipped.data_hash  # ...the parsed data does not
    renamed = folder._replace(name="something else")
    assert renamed.data_hash == folder.data_hash and renamed.content_hash != folder.content_hash
    changed = folder.with_categories({folder.tasks[0]: "other"})
    assert changed.data_hash != folder.data_hash


def test_a_zip_hashes_like_its_folder_whatever_the_order_of_its_members(tmp_path: Path) -> None:
    """``zip -r`` stores a folder's files in the file system's order, not sorted: members are read
    in the folder's sorted order, so the models (and the data hash) come out alike (audit of 30)."""
    archive = tmp_path / "runs.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in sorted(LM_EVAL.iterdir(), reverse=True):
            z.write(f, f"results_v04/{f.name}")
    folder, zipped = read_paths([LM_EVAL]).bench, read_paths([archive]).bench
    assert zipped.models == folder.models
    assert zipped.data_hash == folder.data_hash


def test_cli_reports_name_the_data_and_hash_a_zip_like_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "results_v04.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in sorted(LM_EVAL.iterdir()):
            z.write(f, f.name)
    docs = []
    for data in (LM_EVAL, archive):
        out = tmp_path / f"{Path(data).stem}.html"
        assert main(["report", str(data), "-o", str(out), "--reps", "200"]) == 0
        docs.append(out.read_text(encoding="utf-8"))
    capsys.readouterr()
    name = "results_v04: 2 models x 16 benchmarks"
    for doc in docs:
        assert f"<h1>{name}" in doc
        assert f"Data: {name} ·" in doc  # every chart's subtitle
        assert "Publish them first" in doc and "data=upload" not in doc
        assert "read from disk" in doc  # files read on this machine were never uploaded
    hashes = [doc.split("sha256 ")[1][:64] for doc in docs]
    assert hashes[0] == hashes[1]
    out = tmp_path / "named.html"
    argv = ["report", str(LM_EVAL), "-o", str(out), "--reps", "200", "--name", "Nightly <run>"]
    assert main(argv) == 0
    assert "<h1>Nightly &lt;run&gt;" in out.read_text(encoding="utf-8")


def test_published_sets_keep_name_and_description_and_old_sets_still_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = read_paths([LM_EVAL]).bench._replace(name="lm-eval nightly")
    files = encode(bench, {"source": "x"}, description="base models only")
    assert json.loads(files["meta.json"])["description"] == "base models only"
    assert decode(files).name == "lm-eval nightly"
    old = encode(bench, {"source": "x"})  # the format before issue 30: no description field
    assert "description" not in json.loads(old["meta.json"])
    assert decode(old) == bench
    store = Store(StoreConfig.from_env({"BENCHUQ_STORE": str(tmp_path / "s")}))
    receipt = store.publish(bench, description="base models only")
    back = store.load(receipt.id)
    assert back.name == "lm-eval nightly"
    assert back.notes[0].endswith("About the data: base models only")
    # the CLI: the content's name (or --name) and --description
    monkeypatch.setenv("BENCHUQ_STORE", str(tmp_path / "cli"))
    argv = ["publish", str(LM_EVAL), "--description", "two small models", "--json"]
    assert main(argv) == 0
    ident = json.loads(capsys.readouterr().out)["id"]
    shared = Store(StoreConfig.from_env({"BENCHUQ_STORE": str(tmp_path / "cli")})).load(ident)
    assert shared.name == "results_v04: 2 models x 16 benchmarks"
    assert "About the data: two small models" in shared.notes[0]

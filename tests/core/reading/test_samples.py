"""The bundled sample data sets: contents checked against the reference files they come from."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchuq.core.reading.loaders import SAMPLE_DIR, SAMPLES, load_sample

REAL = Path(__file__).parents[2] / "fixtures" / "real"


def test_sample_names_and_descriptions() -> None:
    assert set(SAMPLES) == {"vtab1k", "mmlu", "alpaca_eval", "toy"}
    assert next(iter(SAMPLES)) == "vtab1k"  # the default comes first
    assert all(d and "\n" not in d for d in SAMPLES.values())


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_samples_load_from_any_working_directory(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    bench = load_sample(name)
    assert bench.name == name and bench.notes is not None


def test_vtab1k_counts_from_published_accuracy() -> None:
    bench = load_sample("vtab1k")
    assert bench.shape == (16, 19) and bench.kind == "counts"
    assert bench.category_names == ("natural", "specialized", "structured")
    assert [bench.categories.count(c) for c in bench.category_names] == [7, 4, 8]
    acc = pd.read_csv(REAL / "vtab1k" / "accuracy.csv")
    tasks = pd.read_csv(REAL / "vtab1k" / "tasks.csv").set_index("task")
    not_whole = set()
    for row in acc.itertuples():
        i, j = bench.models.index(row.model), bench.tasks.index(row.task)
        n = tasks.loc[row.task, "n_scored"]
        assert bench.n[i, j] == n
        assert bench.correct[i, j] == round(row.accuracy / 100 * n)
        if abs(row.accuracy / 100 * n - bench.correct[i, j]) > 0.01:
            not_whole.add(row.model)
    assert not_whole == {"From-Scratch"}
    assert any("From-Scratch" in x and "rounded" in x for x in bench.notes)


def test_mmlu_sample_counts_are_exact() -> None:
    bench = load_sample("mmlu")
    assert bench.shape == (20, 57) and bench.kind == "counts"
    assert sorted(bench.category_names) == ["STEM", "humanities", "other", "social sciences"]
    subjects = pd.read_csv(REAL / "mmlu" / "subjects.csv").set_index("subject")
    assert int(subjects["n_test"].sum()) == 14042
    for j, t in enumerate(bench.tasks):
        assert np.all(bench.n[:, j] == subjects.loc[t, "n_test"])
        assert bench.categories[j] == subjects.loc[t, "category"]
    files = sorted((REAL / "lm_eval" / "results_v03" / "mmlu_5shot").glob("*.json"))
    for i, f in enumerate(files):
        res = json.loads(f.read_text())["results"]
        for j, t in enumerate(bench.tasks):
            acc = res[f"hendrycksTest-{t}"]["acc"]
            assert abs(acc * bench.n[i, j] - bench.correct[i, j]) < 1e-6


def test_alpaca_eval_sample() -> None:
    bench = load_sample("alpaca_eval")
    assert bench.kind == "items" and bench.shape == (9, 1)
    it = bench.item_tasks[0]
    assert len(it.items) == 805
    groups, counts = np.unique(it.subgroup, return_counts=True)
    assert dict(zip(groups, counts, strict=True)) == {
        "helpful_base": 129,
        "koala": 156,
        "oasst": 188,
        "selfinstruct": 252,
        "vicuna": 80,
    }
    lacking = np.isnan(it.scores).sum(axis=1)
    assert lacking[bench.models.index("phi-2")] == 2 and lacking.sum() == 2
    assert bench.n is None  # preferences are not binary


def test_toy_sample() -> None:
    bench = load_sample("toy")
    assert bench.models == ("A", "B") and bench.shape == (2, 3)
    assert bench.n.tolist() == [[200, 10000, 20000]] * 2
    assert bench.correct.tolist() == [[100, 5000, 10000], [115, 5000, 10000]]


def test_build_script_reproduces_the_bundled_files(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("build_samples", SAMPLE_DIR / "build_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.build_all(REAL, tmp_path)
    built = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert built
    for rel in built:
        assert (tmp_path / rel).read_bytes() == (SAMPLE_DIR / rel).read_bytes(), rel

"""HELM run folders (the real safety suite in tests/fixtures/real/helm) as item scores."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from benchuq.core.data import Benchmark, DataError
from benchuq.core.reading.loaders import load_files, load_path, read_paths
from benchuq.core.reading.notes import headline

SUITE = Path(__file__).parents[2] / "fixtures" / "real" / "helm" / "safety_v3"
RUNS = sorted(p for p in SUITE.iterdir() if p.is_dir())
MODELS = {
    "anthropic/claude-3-5-sonnet-20240620",
    "anthropic/claude-3-opus-20240229",
    "google/gemini-1.5-pro-001",
    "meta/llama-3-70b",
    "meta/llama-3-8b",
    "mistralai/mixtral-8x22b",
    "openai/gpt-4-turbo-2024-04-09",
    "openai/gpt-4o-2024-05-13",
    "qwen/qwen2-72b-instruct",
}
BBQ = "bbq:subject=all,method=multiple_choice_joint"


def stats_mean(run: Path, metric: str) -> float:
    for s in json.loads((run / "stats.json").read_text()):
        name = s["name"]
        if name["name"] == metric and name["split"] == "test" and "perturbation" not in name:
            return float(s["mean"])
    raise AssertionError(f"{metric} not in {run}/stats.json")


def test_the_suite_loads_with_its_models_and_tasks() -> None:
    loaded = read_paths([SUITE])
    bench = loaded.bench
    assert bench.kind == "items" and set(bench.models) == MODELS
    assert bench.tasks == (BBQ, "harm_bench") and bench.categories == ("bbq", "harm_bench")
    heads = [headline(n) for n in bench.notes]
    assert "9 files: HELM metric 'exact_match' (test split)." in heads
    assert "9 files: HELM metric 'harm_bench_score' (test split)." in heads
    assert not any("differs from stats.json" in n for n in bench.notes)
    runs = loaded.meta.runs_frame()
    assert set(runs["harness"]) == {"HELM"} and set(runs["n_shot"]) == {"0"}
    assert "harm_bench_gpt_score" in loaded.meta.metrics


@pytest.fixture(scope="module")
def suite() -> Benchmark:
    return load_path(SUITE)


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name[:40])
def test_per_instance_scores_match_the_runs_own_stats(run: Path, suite: Benchmark) -> None:
    bench = suite
    spec = json.loads((run / "run_spec.json").read_text())
    i = bench.models.index(spec["adapter_spec"]["model"])
    task = BBQ if run.name.startswith("bbq") else "harm_bench"
    metric = "exact_match" if task == BBQ else "harm_bench_score"
    j = bench.tasks.index(task)
    it = bench.item_tasks[j]
    assert np.sum(~np.isnan(it.scores[i])) == 2  # two instances per run
    assert bench.estimate[i, j] == pytest.approx(stats_mean(run, metric), abs=1e-12)


def test_an_instance_split_over_entries_is_one_item() -> None:
    run = next(r for r in RUNS if r.name.startswith("harm_bench"))
    entries = json.loads((run / "per_instance_stats.json").read_text())
    assert len(entries) == 4  # each instance twice, with different stats
    bench = load_path(run)
    assert bench.shape == (1, 1) and len(bench.item_tasks[0].items) == 2


def test_a_chosen_metric_and_a_missing_one() -> None:
    bench = load_path(SUITE, metric="quasi_exact_match")
    assert bench.tasks == (BBQ,)  # harm_bench has no such per-instance metric ...
    run = next(r for r in RUNS if r.name.startswith("harm_bench"))
    with pytest.raises(DataError, match="no per-instance metric 'bbq_accuracy'") as err:
        load_path(run, metric="bbq_accuracy")
    assert "harm_bench_score" in err.value.hint


def test_perturbation_variants_are_kept_apart(tmp_path: Path) -> None:
    run = Path(shutil.copytree(next(r for r in RUNS if "llama-3-8b" in r.name), tmp_path / "r"))
    entries = json.loads((run / "per_instance_stats.json").read_text())
    typo = json.loads(json.dumps(entries))
    for e in typo:
        e["perturbation"] = {"name": "typos", "robustness": True, "prob": 0.1}
        for s in e["stats"]:
            if s["name"]["name"] == "exact_match":
                s["mean"] = s["sum"] = 0.0
    (run / "per_instance_stats.json").write_text(json.dumps(entries + typo))
    bench = load_path(run)
    assert bench.tasks == (BBQ, f"{BBQ} [typos(prob=0.1)]")
    assert bench.estimate.tolist() == [[0.5, 0.0]]  # the unperturbed mean is untouched


def test_training_trials_are_repeated_answers_of_an_instance(tmp_path: Path) -> None:
    """Several train_trial_index entries of an instance (issue 26): one item, scored by the mean
    of its trials, with the number of trials kept as its answers."""
    run = Path(shutil.copytree(next(r for r in RUNS if "llama-3-8b" in r.name), tmp_path / "r"))
    entries = json.loads((run / "per_instance_stats.json").read_text())
    second = json.loads(json.dumps(entries))
    for e in second:
        e["train_trial_index"] = 1
        for s in e["stats"]:
            if s["name"]["name"] == "exact_match":
                s["mean"] = s["sum"] = 1.0
    (run / "per_instance_stats.json").write_text(json.dumps(entries + second))
    before = load_path(next(r for r in RUNS if "llama-3-8b" in r.name))
    bench = load_path(run)
    task = bench.tasks.index(BBQ)
    it = bench.item_tasks[task]
    assert (it.answers == 2).all()
    assert bench.estimate[0, task] == pytest.approx((before.estimate[0, task] + 1) / 2)
    assert any("answered in up to 2 trials" in n for n in bench.notes)


def test_a_disagreement_with_stats_json_is_reported(tmp_path: Path) -> None:
    run = Path(shutil.copytree(RUNS[0], tmp_path / "r"))
    stats = json.loads((run / "stats.json").read_text())
    for s in stats:
        if s["name"] == {"name": "exact_match", "split": "test"}:
            s["mean"] = 0.25
    (run / "stats.json").write_text(json.dumps(stats))
    assert any("differs from stats.json (0.25)" in n for n in load_path(run).notes)


def test_the_suite_as_a_zip_upload_and_as_loose_files() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for run in RUNS:
            for f in sorted(run.iterdir()):
                z.write(f, f"runs/v3/{run.name}/{f.name}")
            z.writestr(f"runs/v3/{run.name}/scenario_state.json", b"{}")  # not read
    from_zip = load_files([("suite.zip", buf.getvalue())], name="safety_v3")
    assert from_zip == load_path(SUITE)
    loose = [(f.name, f.read_bytes()) for run in RUNS[:2] for f in sorted(run.iterdir())]
    with pytest.raises(DataError, match=r"2 run_spec\.json files") as err:
        load_files(loose)
    assert ".zip" in err.value.hint

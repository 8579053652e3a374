"""lm-eval output read like lm-eval: names, groups, group scores, n-shot, versions, metrics."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.reading.lm_eval_names import name_from_path, sample_file_names
from benchuq.core.reading.loaders import load_files, load_path, read_paths, read_sample
from benchuq.core.summaries.groups import group_scores_of_tasks, task_sizes

REAL = Path(__file__).parents[2] / "fixtures" / "real" / "lm_eval"
V04 = REAL / "results_v04"
ASDIV = REAL / "samples" / "pr2236_asdiv_llama3-8b-instruct"
TOM = REAL / "samples" / "pr3936_negotiationtom_qwen3-8b"


def reported(folder: Path) -> dict[str, dict]:
    """model_name -> the file's own ``groups`` entries."""
    out = {}
    for f in folder.glob("results_*.json") if folder == TOM else folder.glob("*.json"):
        obj = json.loads(f.read_text())
        out[obj["model_name"]] = obj["groups"]
    return out


@pytest.mark.parametrize("folder, metric", [(V04, "acc"), (TOM, "acc")])
def test_group_scores_equal_lm_evals_size_weighted_aggregation(folder: Path, metric: str) -> None:
    loaded = read_paths([folder], format="lm_eval")
    bench = loaded.bench
    draws = bootstrap(bench, reps=200, seed=0)
    sizes = task_sizes(bench)
    checked = 0
    for group in loaded.meta.groups:
        tasks = [t for t in group.tasks if t in bench.tasks]
        weighted = group_scores_of_tasks(draws, tasks, aggregate="size-weighted", sizes=sizes)
        mean = group_scores_of_tasks(draws, tasks)
        for i, model in enumerate(bench.models):
            value = reported(folder)[model][group.name][f"{metric},none"]
            assert weighted.observed[i] == pytest.approx(value, abs=1e-12)
            checked += 1
        assert weighted.values.shape == (200, len(bench.models))
        if group.name == "mmlu_humanities":  # 13 subjects of very different sizes
            assert abs(mean.observed[0] - weighted.observed[0]) > 0.05
    assert checked == (10 if folder == V04 else 1)


def test_v04_groups_become_categories() -> None:
    loaded = read_paths([V04])
    bench = loaded.bench
    assert "ungrouped" not in bench.categories
    assert bench.categories[bench.tasks.index("anatomy")] == "mmlu"
    assert bench.categories[bench.tasks.index("arc_easy")] == "arc_easy"
    assert len(bench.category_names) == 16  # mmlu + 15 tasks run on their own
    groups = {g.name: g for g in loaded.meta.groups}
    assert set(groups) == {"mmlu", "mmlu_stem", "mmlu_humanities", "mmlu_other",
                           "mmlu_social_sciences"}  # fmt: skip
    assert len(groups["mmlu"].tasks) == 57 and groups["mmlu_stem"].parent == "mmlu"
    assert "abstract_algebra" in groups["mmlu_stem"].tasks


def test_n_shot_versions_and_harness_are_kept() -> None:
    runs = read_paths([V04]).meta.runs_frame()
    row = runs[(runs.model == "Qwen/Qwen2.5-1.5B") & (runs.task == "anatomy")].iloc[0]
    assert (row.n_shot, row.version, row.metric) == ("0", "1.0", "acc")
    git = json.loads(next(V04.glob("Qwen*.json")).read_text())["git_hash"]
    assert row.harness == f"lm-eval, git {git}"
    tom = read_paths([TOM]).meta.runs_frame()
    assert set(tom.harness) == {"lm-eval 0.4.13.dev0, git eb02ba3, --log_samples"}
    mmlu = read_sample("mmlu").meta.runs_frame()
    assert set(mmlu.n_shot) == {"5"} and len(mmlu) == 20 * 57
    assert all("results format before v0.4" in h for h in mmlu.harness)


def test_the_metrics_a_file_offers_and_acc_norm() -> None:
    loaded = read_paths([V04])
    assert loaded.meta.metrics == ("acc", "acc_norm", "mcc", "perplexity", "f1")
    norm = load_path(V04, metric="acc_norm")
    assert "hellaswag" in norm.tasks and "anatomy" not in norm.tasks
    assert any("their metric" in n and "not acc_norm" in n for n in norm.notes)


def test_bundled_mmlu_sample_has_consistent_model_names() -> None:
    models = read_sample("mmlu").bench.models
    assert len(set(models)) == 20
    assert {"llama-7b", "llama-30b", "mpt-7b", "pythia-12b", "pythia-12b-deduped"} <= set(models)
    assert all(m == m.lower() and "/" not in m and "@" not in m for m in models)


@pytest.mark.parametrize(
    "name, known, expected",
    [
        ("pretrained=EleutherAI__pythia-2.8b_winogrande.jsonl", (), ("EleutherAI/pythia-2.8b",
                                                                     "winogrande")),
        ("pretrained=EleutherAI__pythia-2.8b_arc_easy.jsonl", (), ("EleutherAI/pythia-2.8b",
                                                                   "arc_easy")),
        ("pretrained=EleutherAI__pythia-160m,revision=step3000,dtype=float16_hellaswag.jsonl", (),
         ("EleutherAI/pythia-160m@step3000", "hellaswag")),
        ("pretrained=org__my_model_arc_easy.jsonl", ("arc_easy",), ("org/my_model", "arc_easy")),
        ("samples_arc_easy_2024-08-21T03-44-09.494230.jsonl", (), (None, "arc_easy")),
    ],
)  # fmt: skip
def test_sample_file_names(name: str, known: tuple[str, ...], expected: tuple) -> None:
    assert sample_file_names(name, known_tasks=known) == expected


def test_2023_named_sample_files_get_their_model_and_task(tmp_path: Path) -> None:
    """The real asdiv records saved under lm-eval's 2023 file naming."""
    real = next(ASDIV.glob("samples_*.jsonl"))
    old = tmp_path / "pretrained=meta-llama__Meta-Llama-3-8B-Instruct_asdiv.jsonl"
    shutil.copy(real, old)
    bench = load_path(old)
    assert bench.models == ("meta-llama/Meta-Llama-3-8B-Instruct",) and bench.tasks == ("asdiv",)
    same = load_files([(real.name, real.read_bytes())])
    assert np.array_equal(bench.item_tasks[0].scores, same.item_tasks[0].scores)


def test_model_names_from_files_and_folders() -> None:
    assert name_from_path("meta-llama__Llama-3.2-1B/results_2025-03-03T00-05.json") == (
        "meta-llama/Llama-3.2-1B"
    )
    assert name_from_path("meta-llama__Llama-3.2-1B__results_2025-03-03T00-05.json") == (
        "meta-llama/Llama-3.2-1B"
    )
    assert name_from_path("llama-30B_mmlu_5-shot.json") == "llama-30B_mmlu_5-shot"
    obj = json.loads(next(V04.glob("Qwen*.json")).read_text())
    obj["config"]["model_args"] = "pretrained=/scratch/ckpt/final"
    del obj["model_name"]
    bench = load_files([("Qwen__Qwen2.5-1.5B/results_2025-03-03T00-05-12.json",
                         json.dumps(obj).encode())])  # fmt: skip
    assert bench.models == ("Qwen/Qwen2.5-1.5B",)

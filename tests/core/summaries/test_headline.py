"""The headline score (issue 29, item 3): for lm-eval files with groups "overall" is the mean over
benchmarks (each group once, scored as lm-eval scores it), and every output says so."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchuq.cli.main import main
from benchuq.core import summaries
from benchuq.core.findings import findings
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.reading.loaders import read_files, read_paths
from benchuq.core.reading.meta import Group
from benchuq.core.summaries.headline import headline, overall_label
from benchuq.core.validation import InvalidArgument

V04 = Path(__file__).parents[2] / "fixtures" / "real" / "lm_eval" / "results_v04"
LABEL = "mean of 16 benchmarks; mmlu = lm-eval's size-weighted mean of 57 subjects"


def top_level_mean(obj: dict, metric: str = "acc") -> float:
    """lm-eval's own numbers: the mean over the file's top-level tasks and groups (those in no
    group's subtasks) that report ``metric``, groups with the group score the file states."""
    inside = {s for subs in obj["group_subtasks"].values() for s in subs}
    values = [
        entry[f"{metric},none"]
        for task, entry in obj["results"].items()
        if task not in inside and f"{metric},none" in entry
    ]
    return sum(values) / len(values)


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_real_v04_folder_default_overall_is_lm_evals_benchmark_mean() -> None:
    loaded = read_paths([V04])
    (mmlu,) = [g for g in loaded.meta.groups if g.parent is None]
    assert mmlu.name == "mmlu" and mmlu.aggregate == "size-weighted" and len(mmlu.tasks) == 57
    assert {g.aggregate for g in loaded.meta.groups} == {"size-weighted"}
    rule = headline(loaded.bench, groups=loaded.meta.groups)
    assert rule.kind == "benchmarks" and rule.label == LABEL
    assert rule.offered == ("benchmarks", "tasks")
    draws = bootstrap(loaded.bench, reps=200, seed=0).with_headline(rule)
    overall = summaries.group_scores(draws, group="overall")
    for path in sorted(V04.glob("*.json")):
        obj = json.loads(path.read_text())
        i = loaded.bench.models.index(obj["model_name"])
        assert overall.observed[i] == pytest.approx(top_level_mean(obj), abs=1e-9)
    # every replicate is the same aggregate of that replicate's task scores
    w = rule.weights_for(draws.models)
    np.testing.assert_allclose(overall.values, np.einsum("rmt,mt->rm", draws.values, w))
    plain = summaries.group_scores(draws.with_headline(None), group="overall")
    np.testing.assert_allclose(plain.observed, np.nanmean(loaded.bench.estimate, axis=1))
    assert not np.allclose(plain.observed, overall.observed)


def test_tasks_on_request_and_other_formats_keep_the_task_mean() -> None:
    loaded = read_paths([V04])
    rule = headline(loaded.bench, groups=loaded.meta.groups, overall="tasks")
    assert (rule.kind, rule.label, rule.weights) == ("tasks", "mean of 72 tasks", None)
    assert headline(loaded.bench).kind == "tasks"  # no groups (e.g. a long table): tasks
    forced = headline(loaded.bench, groups=(), overall="benchmarks")
    assert forced.kind == "tasks" and "no lm-eval group" in forced.notes[0]
    with pytest.raises(InvalidArgument, match="overall"):
        headline(loaded.bench, groups=loaded.meta.groups, overall="groups")  # type: ignore[arg-type]


def _results(model: str, scores: dict[str, tuple[int, int]], groups: dict, stated: dict) -> dict:
    """An lm-eval v0.4 results file: ``scores`` task -> (correct, n), ``groups`` group ->
    subtasks, ``stated`` group -> the group score lm-eval wrote."""
    results = {t: {"alias": t, "acc,none": k / n, "acc_stderr,none": 0.01} for t, (k, n) in
               scores.items()}  # fmt: skip
    results.update({g: {"alias": g, "acc,none": v, "acc_stderr,none": 0.01} for g, v in
                    stated.items()})  # fmt: skip
    subtasks = {t: [] for t in scores if not any(t in s for s in groups.values())}
    return {
        "results": results,
        "groups": {g: results[g] for g in stated},
        "group_subtasks": {**subtasks, **groups},
        "configs": {},
        "versions": {t: 1 for t in scores},
        "n-samples": {t: {"original": n, "effective": n} for t, (_, n) in scores.items()},
        "config": {"model": "hf", "model_args": f"pretrained={model}"},
        "model_name": model,
    }


def _folder(seed: int, models: int) -> tuple[list[tuple[str, bytes]], dict[str, float]]:
    """Results files of ``models`` models over a nested size-weighted group (``suite`` over
    ``suite_a``, ``suite_b``), a group lm-eval scores as a plain mean (``reason``), and three
    tasks on their own; the last model lacks one ``reason`` task and one task on its own. Returns
    the files and each model's mean over benchmarks computed from the stated group scores."""
    rng = np.random.default_rng(seed)
    sizes = {f"suite_{s}_{j}": int(rng.integers(20, 400)) for s in "ab" for j in range(6)}
    sizes |= {f"reason_{j}": int(rng.integers(50, 300)) for j in range(4)}
    sizes |= {"arc": 1172, "piqa": 1838, "sciq": 1000}
    files, expect = [], {}
    for m in range(models):
        name = f"org/model-{m}"
        have = dict(sizes)
        if m == models - 1:
            del have["reason_3"], have["sciq"]
        scores = {t: (int(rng.binomial(n, rng.uniform(0.3, 0.9))), n) for t, n in have.items()}
        suite = [t for t in have if t.startswith("suite_")]
        reason = [t for t in have if t.startswith("reason_")]

        def weighted(ts: list[str], scores: dict = scores) -> float:
            return sum(scores[t][0] for t in ts) / sum(scores[t][1] for t in ts)

        stated = {
            "suite": weighted(suite),
            "suite_a": weighted([t for t in suite if "_a_" in t]),
            "suite_b": weighted([t for t in suite if "_b_" in t]),
            "reason": float(np.mean([scores[t][0] / scores[t][1] for t in reason])),
        }
        groups = {
            "suite": ["suite_a", "suite_b"],
            "suite_a": [t for t in suite if "_a_" in t],
            "suite_b": [t for t in suite if "_b_" in t],
            "reason": reason,
        }
        obj = _results(name, scores, groups, stated)
        singles = [scores[t][0] / scores[t][1] for t in ("arc", "piqa", "sciq") if t in scores]
        expect[name] = float(np.mean([stated["suite"], stated["reason"], *singles]))
        stamp = f"2025-01-0{1 + m % 9}T00-00-00.000000"
        files.append((f"{name.replace('/', '__')}/results_{stamp}.json", json.dumps(obj).encode()))
    return files, expect


@pytest.mark.parametrize(("seed", "models"), [(1, 3), (2, 12)])
def test_built_folders_overall_equals_the_mean_over_top_level_tasks_and_groups(
    seed: int, models: int
) -> None:
    files, expect = _folder(seed, models)
    loaded = read_files(files)
    aggregates = {g.name: g.aggregate for g in loaded.meta.groups}
    assert aggregates == {
        "suite": "size-weighted",
        "suite_a": "size-weighted",
        "suite_b": "size-weighted",
        "reason": "mean",
    }
    rule = headline(loaded.bench, groups=loaded.meta.groups)
    assert rule.label == (
        "mean of 5 benchmarks; suite = lm-eval's size-weighted mean of 12 tasks; reason = the "
        "mean of 4 tasks"
    )
    draws = bootstrap(loaded.bench, reps=100, seed=seed).with_headline(rule)
    got = summaries.group_scores(draws, group="overall").observed
    want = [expect[m] for m in draws.models]
    np.testing.assert_allclose(got, want, atol=1e-12)
    # the model without sciq and reason_3 is scored over what it ran (4 benchmarks; reason over 3)
    assert np.isfinite(got).all()


def test_a_group_whose_score_matches_no_aggregate_is_size_weighted_with_a_note() -> None:
    files, _ = _folder(3, 2)
    changed = []
    for name, data in files:
        obj = json.loads(data)
        obj["results"]["reason"]["acc,none"] = 0.123456  # neither aggregate of its tasks
        changed.append((name, json.dumps(obj).encode()))
    reason = next(g for g in read_files(changed[:1] + files[1:]).meta.groups if g.name == "reason")
    assert reason.aggregate == "mean"  # one file states it, the other cannot tell: stated
    loaded = read_files(changed)
    reason = next(g for g in loaded.meta.groups if g.name == "reason")
    assert reason.aggregate == ""
    rule = headline(loaded.bench, groups=loaded.meta.groups)
    assert "reason = lm-eval's size-weighted mean of 4 tasks" in rule.label
    assert rule.notes == (
        "1 group (reason) scored size-weighted in the overall: the files do not say how lm-eval "
        "aggregated them (their score of the metric is missing or matches neither aggregate); "
        'use `overall="tasks"` for the plain mean over tasks.',
    )


def test_cli_text_and_json_name_the_aggregate(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "leaderboard", str(V04), "--reps", "200")
    assert out["overall"]["aggregate"] == "benchmarks" and out["overall"]["label"] == LABEL
    assert out["overall"]["offered"] == ["benchmarks", "tasks"]
    assert out["overall"]["benchmarks"][0] == {"name": "mmlu", "aggregate": "size-weighted",
                                               "tasks": 57}  # fmt: skip
    rows = {r["model"]: r["estimate"] for r in out["rows"] if r["group"] == "overall"}
    for path in V04.glob("*.json"):
        obj = json.loads(path.read_text())
        assert rows[obj["model_name"]] == pytest.approx(top_level_mean(obj), abs=1e-9)
    tasks = run_json(capsys, "leaderboard", str(V04), "--reps", "200", "--overall", "tasks")
    assert tasks["overall"]["label"] == "mean of 72 tasks"
    assert main(["leaderboard", str(V04), "--reps", "200"]) == 0
    text = capsys.readouterr().out
    assert f"overall = {LABEL} (also: --overall tasks)" in text
    assert f"[overall] {LABEL}" in text
    toy = run_json(capsys, "leaderboard", "sample:toy", "--reps", "200")
    assert toy["overall"] == {"aggregate": "tasks", "label": "mean of 3 tasks",
                              "offered": ["tasks"], "benchmarks": [], "notes": []}  # fmt: skip


def test_report_names_the_aggregate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    loaded = read_paths([V04])
    rule = headline(loaded.bench, groups=loaded.meta.groups)
    draws = bootstrap(loaded.bench, reps=200, seed=0).with_headline(rule)
    f = findings(loaded.bench, draws, level=0.834)
    assert f.label == LABEL == overall_label(draws)
    assert f"Overall score: {LABEL}." in f.headline
    assert f.leader == "Qwen/Qwen2.5-1.5B"
    out = tmp_path / "r.html"
    assert main(["report", str(V04), "--reps", "200", "-o", str(out)]) == 0
    html = out.read_text()
    assert "Score = mean of 16 benchmarks; mmlu = lm-eval&#x27;s size-weighted mean" in html
    assert "Overall score: mean of 16 benchmarks" in html


def test_leaderboard_page_names_and_offers_the_aggregate(make_app) -> None:
    from conftest import page_path

    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    files = [(p.name, p.read_bytes(), "application/json") for p in sorted(V04.glob("*.json"))]
    at.file_uploader(key="uploader").set_value(files).run()
    at.session_state["leaderboard_table"] = True  # the Leaderboard's table, open
    at.switch_page(page_path("leaderboard.py")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    assert f"Overall = {LABEL}." in captions and "'Overall score': tasks" in captions
    table = at.dataframe[0].value
    cell = "Overall (mean of 16 benchmarks)"  # the first clause: the caption says the rest
    overall = table[table["group"] == cell].set_index("model")["estimate"]
    for path in V04.glob("*.json"):
        obj = json.loads(path.read_text())
        assert overall[obj["model_name"]] == pytest.approx(100 * top_level_mean(obj), abs=1e-7)
    at.session_state["leaderboard_table"] = True  # AppTest at the floor Streamlit drops it
    at.radio(key="overall").set_value("tasks").run()
    assert not at.exception and not at.error
    assert at.query_params["overall"] == "tasks"
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "Overall = mean of 72 tasks." in captions
    table = at.dataframe[0].value
    assert "Overall (mean of 72 tasks)" in set(table["group"])


def test_overall_caption_names_the_choice_and_its_notes() -> None:
    from benchuq.dashboard.leaderboard.view import overall_caption

    loaded = read_paths([V04])
    assert overall_caption(None) == "Overall = the mean over all tasks."
    rule = headline(loaded.bench, groups=loaded.meta.groups)
    text = overall_caption(rule).replace("\\", "")
    assert text == (
        f"Overall = {LABEL}. Also on offer in the sidebar's 'Overall score': tasks (the mean "
        "over all tasks)."
    )
    forced = overall_caption(headline(loaded.bench, groups=(), overall="benchmarks")).replace(
        "\\", ""
    )
    assert forced.startswith("Overall = mean of 72 tasks.") and "no lm-eval group" in forced


def test_group_with_one_task_in_the_data_counts_as_that_task() -> None:
    loaded = read_paths([V04])
    bench = loaded.bench
    rule = headline(bench, groups=[Group("tiny", ("arc_easy",), aggregate="mean")])
    assert rule.kind == "tasks"  # a group must cover two or more tasks to change anything


def test_compare_and_ranks_name_the_aggregate(capsys: pytest.CaptureFixture[str]) -> None:
    models = ["Qwen/Qwen2.5-1.5B", "meta-llama/Llama-3.2-1B"]
    out = run_json(capsys, "compare", str(V04), "--models", *models, "--reps", "200")
    assert out["overall"]["label"] == LABEL
    obs = {m: top_level_mean(json.loads(p.read_text())) for m, p in
           zip(sorted(models), sorted(V04.glob("*.json")), strict=True)}  # fmt: skip
    assert out["rows"][0]["estimate"] == pytest.approx(obs[models[0]] - obs[models[1]], abs=1e-9)
    ranks = run_json(capsys, "ranks", str(V04), "--reps", "200", "--overall", "tasks")
    assert ranks["overall"]["aggregate"] == "tasks"
    assert main(["ranks", str(V04), "--reps", "200"]) == 0
    assert f"score: overall = {LABEL})" in capsys.readouterr().out


def test_report_command_and_link_carry_the_overall(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.html"
    argv = ["report", str(V04), "--reps", "200", "--overall", "tasks", "-o", str(out)]
    assert main(argv) == 0
    html = out.read_text()
    assert "Score = mean of 72 tasks" in html
    assert "--overall tasks" in html and "overall=tasks" in html

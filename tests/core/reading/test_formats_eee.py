"""Every Eval Ever aggregate JSON and instance-level JSONL: real files, built files, notes, errors,
CLI, upload."""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from conftest import page_path

from benchuq.cli.main import main
from benchuq.core.data import DataError
from benchuq.core.reading import detect_format, read_files, read_paths
from benchuq.core.reading.table import Source

EEE = Path(__file__).parents[2] / "fixtures" / "every_eval_ever"
REAL = EEE / "eee_format"
OPEN_LLM = REAL / "98ea850e-7019-4728-a558-8b1819ec47c2.json"  # schema 0.2.0, no uncertainty
DEMO = REAL / "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json"
DEMO_SAMPLES = REAL / "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40_samples.jsonl"
OPEN_LLM_SIZES = {  # test-set sizes of the Open LLM Leaderboard v2 tasks
    "IFEval": 541,
    "BBH": 5761,
    "MATH Level 5": 1324,
    "GPQA": 1192,
    "MUSR": 756,
    "MMLU-PRO": 12032,
}


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def aggregate(model: str, results: list[dict]) -> bytes:
    return json.dumps(
        {
            "schema_version": "0.3.0",
            "evaluation_id": f"suite/{model}/1",
            "retrieved_timestamp": "1",
            "source_metadata": {
                "source_type": "evaluation_run",
                "source_organization_name": "lab",
                "evaluator_relationship": "first_party",
            },
            "eval_library": {"name": "inspect_ai", "version": "0.3.90"},
            "model_info": {
                "name": model.split("/")[-1],
                "id": model,
                "additional_details": {
                    "deployment_type": "unknown",
                    "model_availability": "unknown",
                },
            },
            "evaluation_results": results,
        }
    ).encode()


def result(name: str, score: float, uncertainty: dict | None = None, **config) -> dict:
    details: dict = {"score": score}
    if uncertainty is not None:
        details["uncertainty"] = uncertainty
    return {
        "evaluation_name": name,
        "source_data": {"dataset_name": name, "source_type": "other"},
        "metric_config": {"lower_is_better": False, **config},
        "score_details": details,
    }


def instances(rows: list[tuple[str, str, str, float]], **extra) -> bytes:
    lines = []
    for model, task, sample, score in rows:
        rec = {
            "schema_version": "0.3.0",
            "evaluation_id": "suite/x/1",
            "model_id": model,
            "evaluation_name": task,
            "sample_id": sample,
            "interaction_type": "single_turn",
            "input": {"raw": "q", "reference": ["a"]},
            "output": {"raw": ["a"]},
            "answer_attribution": [],
            "evaluation": {"score": score, "is_correct": score == 1},
            **extra,
        }
        lines.append(json.dumps(rec))
    return ("\n".join(lines) + "\n").encode()


def test_the_real_demo_pair_reads_the_items_and_sets_the_aggregate_aside() -> None:
    loaded = read_paths([DEMO, DEMO_SAMPLES])
    bench = loaded.bench
    assert bench.kind == "items" and bench.models == ("demo-org/demo-model",)
    assert bench.tasks == ("demo-source.demo_bench",)
    assert list(bench.item_tasks[0].items) == ["demo_0001"]
    assert any("1 Every Eval Ever aggregate set aside" in n for n in bench.notes)
    assert detect_format(Source(DEMO.name, DEMO.read_bytes())) == "eee"
    assert detect_format(Source(DEMO_SAMPLES.name, DEMO_SAMPLES.read_bytes())) == "eee"


def test_the_real_files_validate_against_the_schemas() -> None:
    agg = json.loads((EEE / "schemas" / "eval.schema.json").read_text())
    inst = json.loads((EEE / "schemas" / "instance_level_eval.schema.json").read_text())
    jsonschema.validate(json.loads(DEMO.read_text()), agg)
    for line in DEMO_SAMPLES.read_text().splitlines():
        jsonschema.validate(json.loads(line), inst)


def test_an_aggregate_without_uncertainty_needs_the_number_of_items(tmp_path: Path) -> None:
    with pytest.raises(DataError) as err:
        read_paths([OPEN_LLM])
    assert err.value.file == OPEN_LLM.name
    assert err.value.column == "evaluation_results[].score_details.uncertainty"
    assert "`tasks=`" in str(err.value)  # the Python keyword (the CLI says --tasks)
    table = tmp_path / "tasks.csv"
    table.write_text(
        "task,category,n\n" + "".join(f"{t},all,{n}\n" for t, n in OPEN_LLM_SIZES.items())
    )
    bench = read_paths([OPEN_LLM], tasks=table).bench
    assert bench.kind == "estimate_se" and bench.models == ("TencentARC/LLaMA-Pro-8B-Instruct",)
    j = bench.tasks.index("IFEval")
    assert bench.se[0, j] == pytest.approx(math.sqrt(0.4486 * 0.5514 / 541))
    assert any("sqrt(p(1-p)/n)" in n for n in bench.notes)
    code, _, err_text = cli("leaderboard", str(OPEN_LLM))
    assert code == 2 and "uncertainty" in err_text and "Traceback" not in err_text
    code, _, _ = cli("leaderboard", str(OPEN_LLM), "--tasks", str(table), "--reps", "200")
    assert code == 0


def test_standard_errors_stated_or_backed_out_with_the_method_in_the_notes() -> None:
    results = [
        result(
            "a",
            0.8,
            {
                "standard_error": {"value": 0.02, "method": "bootstrap"},
                "confidence_interval": {
                    "lower": 0.76,
                    "upper": 0.84,
                    "confidence_level": 0.95,
                    "method": "percentile",
                },
            },
        ),
        result(
            "b", 0.6, {"confidence_interval": {"lower": 0.5, "upper": 0.7, "confidence_level": 0.9}}
        ),
        result("c", 0.3, {"confidence_interval": {"lower": 0.2, "upper": 0.4}}),
        result("d", 0.5, {"num_samples": 100}),
        result("e", 12.0, None, lower_is_better=True),
        result("f", 3.0, {"standard_error": {"value": 0.5}}, lower_is_better=True),
    ]
    bench = read_files([("m.json", aggregate("org/m", results))]).bench
    assert bench.tasks == ("a", "b", "c", "d", "f")
    z90, z95 = 1.6448536269514722, 1.959963984540054
    np.testing.assert_allclose(bench.se[0], [0.02, 0.1 / z90, 0.1 / z95, 0.05, 0.5])
    assert list(bench.higher_is_better) == [True, True, True, True, False]
    text = " ".join(bench.notes)
    assert "as stated (bootstrap); the file's 0.95 confidence intervals (percentile)" in text
    assert "backed out of 0.9 confidence intervals" in text
    assert "level not stated; 0.95 assumed" in text
    assert "1 result without a standard error" in text and ": e (" in text


def test_instance_level_records_several_models_tasks_labels_and_repeats() -> None:
    rows = [
        ("m1", "t1", "s1", 1.0),
        ("m1", "t1", "s2", 0.0),
        ("m2", "t1", "s1", 0.0),
        ("m2", "t1", "s2", 1.0),
        ("m2", "t1", "s2", 0.0),  # a second answer to s2
        ("m1", "t2", "s1", 0.5),
    ]
    data = instances(rows, metadata={"subgroup": "easy"})
    bench = read_files([("x_samples.jsonl", data)]).bench
    assert bench.models == ("m1", "m2") and bench.tasks == ("t1", "t2")
    np.testing.assert_allclose(bench.item_tasks[0].scores, [[1.0, 0.0], [0.0, 0.5]])
    np.testing.assert_array_equal(bench.item_tasks[0].answers, [[1, 1], [1, 2]])  # epochs (#26)
    assert list(bench.item_tasks[0].subgroup) == ["easy", "easy"]
    assert any("several records of one sample are its repeated answers" in n for n in bench.notes)
    assert np.isnan(bench.estimate[1, 1])


def test_instance_errors_name_file_line_and_field() -> None:
    bad = instances([("m", "t", "s1", 1.0)]).replace(b'"score": 1.0', b'"score": "high"')
    with pytest.raises(DataError) as err:
        read_files([("x_samples.jsonl", bad)])
    assert (err.value.file, err.value.row, err.value.column) == (
        "x_samples.jsonl",
        1,
        "evaluation.score",
    )
    two = instances([("m", "t", "s1", 1.0), ("m", "t", "s2", 1.0)])
    no_id = two.replace(b'"sample_id": "s2"', b'"sample_id": ""')
    with pytest.raises(DataError) as err:
        read_files([("x_samples.jsonl", no_id)])
    assert err.value.row == 2 and err.value.column == "sample_id"
    with pytest.raises(DataError, match=r"0 and 1|outside|range"):
        read_files([("x_samples.jsonl", instances([("m", "t", "s1", 7.0)]))])
    cut = two[: len(two) - 15]
    with pytest.raises(DataError) as err:
        read_files([("x_samples.jsonl", cut)])
    assert err.value.row == 2
    broken = b'{"schema_version": "0.3.0", "model_info": {}, "evaluation_results": {}}'
    with pytest.raises(DataError) as err:
        read_files([("agg.json", broken)])
    assert err.value.column == "evaluation_results" and "Every Eval Ever" in str(err.value)
    agg = aggregate("m", [result("a", 0.5, {"num_samples": 10})]).replace(b"0.5", b'"half"')
    with pytest.raises(DataError) as err:
        read_files([("m.json", agg)])
    assert err.value.column == "evaluation_results[0].score_details.score"


def test_upload_in_the_app(make_app) -> None:
    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    rows = [
        (m, "t", f"s{k}", float((k + i) % 2)) for i, m in enumerate(("a", "b")) for k in range(6)
    ]
    files = [
        (DEMO.name, aggregate("x", [result("t", 0.5)]), "application/json"),
        ("f3a1c0de_samples.jsonl", instances(rows), "application/json"),
    ]
    at.file_uploader(key="uploader").set_value(files).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.metric[0].value == "2"


def test_the_fallback_standard_error_is_never_too_narrow_in_simulation() -> None:
    """sqrt(p(1-p)/n) bounds the standard error of a mean of [0, 1] scores (Bhatia-Davis): 95%
    normal intervals with it cover at least nominally for binary and continuous scores."""
    rng = np.random.default_rng(7)
    n, sims = 40, 4000
    for draw, truth in (
        (lambda: rng.random((sims, n)) < 0.7, 0.7),  # binary: the bound is the exact variance
        (lambda: rng.beta(2.0, 3.0, (sims, n)), 0.4),  # continuous: the bound is conservative
    ):
        x = draw().astype(float)
        p = x.mean(axis=1)
        se = np.sqrt(p * (1 - p) / n)
        coverage = np.mean(np.abs(p - truth) <= 1.959963984540054 * se)
        assert coverage >= 0.93, coverage
        assert np.all(se >= x.std(axis=1, ddof=0) / np.sqrt(n) - 1e-12)


def test_one_evaluation_with_several_metrics() -> None:
    u = {"standard_error": {"value": 0.01}}
    results = [
        result("gsm8k", 0.8, u, metric_id="accuracy"),
        result("gsm8k", 0.7, u, metric_id="f1"),
        result("arc", 0.6, u, metric_id="accuracy"),
    ]
    loaded = read_files([("m.json", aggregate("org/m", results))])
    assert loaded.bench.tasks == ("gsm8k [accuracy]", "gsm8k [f1]", "arc")
    assert loaded.meta.metrics == ("accuracy", "f1")
    picked = read_files([("m.json", aggregate("org/m", results))], metric="f1").bench
    assert picked.tasks == ("gsm8k",) and picked.estimate[0, 0] == 0.7
    assert any("metric 'f1' read; the file also has accuracy" in n for n in picked.notes)
    rows = [("m", "t", "s1", 1.0), ("m", "t", "s1", 0.0)]
    data = instances(rows[:1], evaluation_result_id="t.acc") + instances(
        rows[1:], evaluation_result_id="t.f1"
    )
    bench = read_files([("x_samples.jsonl", data)]).bench
    assert bench.tasks == ("t [t.acc]", "t [t.f1]")

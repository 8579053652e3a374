"""lighteval details Parquet and results JSON: found by content, read, notes, errors, CLI, app."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import page_path
from formats_files import DATE, lighteval_details, lighteval_results

from benchuq.cli.main import main
from benchuq.core.data import DataError
from benchuq.core.reading import detect_format, load_path, read_files, read_paths
from benchuq.core.reading.table import Source
from benchuq.dashboard import cache

A = [1, 0, 1, 1, 0, 1, 1, 1]
B = [0, 0, 1, 0, 0, 1, 1, 0]
G = [1, 1, 0, 1, 0, 0, 1, 1]


def details_name(task: str = "lighteval|gsm8k|0") -> str:
    return f"details_{task}_{DATE}.parquet"


def output_folder(root: Path) -> Path:
    """lighteval --output-dir with --save-details for two models (one an org/name hub id)."""
    for model, gsm, arc in (("org/model-a", A, G), ("model-b", B, A)):
        d = root / "details" / model / DATE
        d.mkdir(parents=True)
        (d / details_name()).write_bytes(lighteval_details({"extractive_match": gsm}))
        (d / details_name("lighteval|arc:easy|25")).write_bytes(
            lighteval_details({"acc": arc, "acc_norm": [1] * len(arc)})
        )
        r = root / "results" / model
        r.mkdir(parents=True)
        res = {"lighteval|gsm8k|0": {"extractive_match": np.mean(gsm)}}
        (r / f"results_{DATE}.json").write_bytes(lighteval_results(model, res, sha="abc1234f"))
    return root


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_details_folder_reads_items_per_model_and_task(tmp_path: Path) -> None:
    loaded = read_paths([output_folder(tmp_path)])
    bench = loaded.bench
    assert bench.kind == "items"
    assert set(bench.models) == {"org/model-a", "model-b"}
    assert set(bench.tasks) == {"gsm8k", "arc:easy"}
    i, j = bench.models.index("org/model-a"), bench.tasks.index("gsm8k")
    np.testing.assert_allclose(bench.item_tasks[j].scores[i], A)
    assert bench.estimate[i, j] == pytest.approx(np.mean(A))
    k = bench.tasks.index("arc:easy")
    np.testing.assert_allclose(bench.item_tasks[k].scores[bench.models.index("model-b")], A)
    text = " ".join(bench.notes)
    assert "lighteval results file" in text and "model names only" in text
    assert "metric 'acc' read; the details also hold acc_norm" in text
    runs = loaded.meta.runs_frame()
    assert set(runs["n_shot"]) == {"0", "25"}
    assert set(runs["metric"]) == {"extractive_match", "acc"}
    assert (runs["harness"] == "lighteval, git abc1234").all()


def test_metric_option_picks_another_metric(tmp_path: Path) -> None:
    folder = output_folder(tmp_path)
    bench = load_path(folder, metric="acc_norm")
    j = bench.tasks.index("arc:easy")
    assert np.all(bench.estimate[:, j] == 1.0)


def test_uploaded_flat_files_take_the_model_from_the_results_of_the_same_run() -> None:
    files = [
        (details_name(), lighteval_details({"extractive_match": A})),
        (f"results_{DATE}.json", lighteval_results("meta-llama/Llama-3.2-1B", {})),
    ]
    bench = read_files(files).bench
    assert bench.models == ("meta-llama/Llama-3.2-1B",)
    alone = read_files(files[:1]).bench
    assert alone.models == ("model",)
    assert any("called 'model'" in n for n in alone.notes)


def test_older_layout_with_a_metrics_struct_and_no_ids() -> None:
    data = lighteval_details({"acc": A}, old_layout=True)
    src = Source(f"details/m/{DATE}/{details_name('leaderboard|mmlu:anatomy|5')}", data)
    assert detect_format(src) == "lighteval"
    loaded = read_files([(src.name, src.data)])
    assert loaded.bench.tasks == ("mmlu:anatomy",) and loaded.bench.models == ("m",)
    assert any("items named by example" in n for n in loaded.bench.notes)


def test_repeated_ids_are_averaged_and_missing_scores_left_out() -> None:
    data = lighteval_details({"acc": [1, 0, None, 1]}, ids=["a", "a", "b", "c"])
    bench = read_files([(details_name(), data)]).bench
    np.testing.assert_allclose(bench.item_tasks[0].scores[0], [0.5, 1.0])
    np.testing.assert_array_equal(bench.item_tasks[0].answers, [[2, 1]])  # epochs (#26)
    text = " ".join(bench.notes)
    assert "repeated answers" in text and "1 item without a score left out" in text


def test_results_file_alone_gives_estimates_with_lighteval_standard_errors() -> None:
    res = {
        "lighteval|gsm8k|5": {"extractive_match": 0.25, "extractive_match_stderr": 0.02},
        "lighteval|arc:easy|0": {"acc": 0.6, "acc_stderr": 0.01},
        "lighteval|ifeval|0": {"prompt_level_strict_acc": 0.4},
    }
    bench = read_files([(f"results_{DATE}.json", lighteval_results("m", res))]).bench
    assert bench.kind == "estimate_se" and bench.tasks == ("gsm8k", "arc:easy")
    np.testing.assert_allclose(bench.se[0], [0.02, 0.01])
    assert any("1 task without the metric" in n for n in bench.notes)


def test_bad_scores_name_the_file_row_and_column() -> None:
    data = lighteval_details({"acc": ["yes", "no"]})
    with pytest.raises(DataError) as err:
        read_files([(details_name(), data)])
    assert err.value.file == details_name() and err.value.row == 1
    assert err.value.column == "metric.acc" and "`metric=`" in str(err.value)
    with pytest.raises(DataError, match=r"outside|0 and 1|range"):
        read_files([(details_name(), lighteval_details({"acc": [1.0, 3.5]}))])
    with pytest.raises(DataError, match="no metric 'bleu'"):
        read_files([(details_name(), lighteval_details({"acc": A}))], metric="bleu")


def test_cli_exit_codes(tmp_path: Path) -> None:
    folder = output_folder(tmp_path / "out")
    code, out, _ = cli("leaderboard", str(folder), "--reps", "200", "--json")
    assert code == 0
    rows = json.loads(out)["rows"]
    assert {r["model"] for r in rows} == {"org/model-a", "model-b"}
    damaged = tmp_path / details_name()
    damaged.write_bytes(lighteval_details({"acc": A})[:300])
    code, _, err = cli("leaderboard", str(damaged))
    assert code == 2 and details_name() in err and "Traceback" not in err


def test_upload_in_the_app(make_app) -> None:
    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    files = [
        (details_name(), lighteval_details({"acc": A, "acc_norm": G}), "application/octet-stream"),
        (f"results_{DATE}.json", lighteval_results("org/m", {}), "application/json"),
    ]
    at.file_uploader(key="uploader").set_value(files).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.query_params["data"] == "upload"
    notes = " ".join(m.value for e in at.expander for m in e.markdown).replace("\\", "")
    assert "lighteval results file used for model names only" in notes
    metric = at.selectbox(key="upload_metric")
    assert {"acc", "acc_norm"} <= set(metric.options)
    metric.set_value("acc_norm").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    bench = cache.read_upload(at.session_state["_upload"]).bench
    assert bench.estimate[0, 0] == pytest.approx(np.mean(G))

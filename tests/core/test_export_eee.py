"""``benchuq export --format eee``: schema-valid Every Eval Ever files whose uncertainty is the
leaderboard's, and a round trip (read, export, read) that keeps every score."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import zipfile
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from conftest import page_path
from scipy import stats

from benchuq.cli.main import main
from benchuq.core.export_eee import export_eee
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.reading import load_sample, read_paths
from benchuq.core.reading.eee import AGGREGATE_KEY
from benchuq.core.validation import InvalidArgument

SCHEMAS = Path(__file__).parents[1] / "fixtures" / "every_eval_ever" / "schemas"
AGGREGATE = jsonschema.Draft7Validator(json.loads((SCHEMAS / "eval.schema.json").read_text()))
INSTANCE = jsonschema.Draft7Validator(
    json.loads((SCHEMAS / "instance_level_eval.schema.json").read_text())
)


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def exported(data: str, folder: Path, *flags: str) -> dict[str, dict]:
    """Export ``data`` with the CLI; the aggregate documents by model id (schema-checked)."""
    code, out, err = cli("export", data, "--format", "eee", "-o", str(folder), "--json", *flags)
    assert code == 0, err
    files = json.loads(out)["files"]
    docs = {}
    for f in files:
        path = Path(f)
        if path.suffix == ".json":
            doc = json.loads(path.read_text())
            errors = [e.message for e in AGGREGATE.iter_errors(doc)]
            assert not errors, (path, errors[:3])
            docs[doc["model_info"]["id"]] = doc
        else:
            for line in path.read_text().splitlines():
                errors = [e.message for e in INSTANCE.iter_errors(json.loads(line))]
                assert not errors, (path, errors[:3])
    return docs


def results_by_name(doc: dict) -> dict[str, dict]:
    return {r["evaluation_name"]: r for r in doc["evaluation_results"]}


def test_counts_standard_errors_and_intervals_are_the_leaderboards(tmp_path: Path) -> None:
    flags = ("--reps", "400", "--seed", "3", "--level", "0.9")
    docs = exported("sample:vtab1k", tmp_path / "out", *flags, "--timestamp", "1764200000")
    _, out, _ = cli("leaderboard", "sample:vtab1k", *flags, "--json")
    board = json.loads(out)
    overall = {r["model"]: r for r in board["rows"] if r["group"] == "overall"}
    bench = load_sample("vtab1k")
    draws = bootstrap(bench, reps=400, seed=3)
    assert set(docs) == set(bench.models)
    for i, model in enumerate(bench.models):
        doc = docs[model]
        assert doc["eval_library"]["name"] == "benchuq"
        assert doc["source_metadata"]["source_organization_name"] == "benchuq"
        res = results_by_name(doc)
        top = res["overall (benchuq mean over tasks)"]
        assert AGGREGATE_KEY in top["metric_config"]["additional_details"]
        unc = top["score_details"]["uncertainty"]
        assert unc["standard_error"]["value"] == pytest.approx(overall[model]["se"], rel=1e-12)
        ci = unc["confidence_interval"]
        assert (ci["lower"], ci["upper"]) == pytest.approx(
            (overall[model]["low"], overall[model]["high"]), rel=1e-12
        )
        assert ci["confidence_level"] == 0.9
        for j, task in enumerate(bench.tasks):
            u = res[task]["score_details"]["uncertainty"]
            x = draws.values[:, i, j]
            assert u["standard_error"]["value"] == pytest.approx(x.std(ddof=1), rel=1e-9)
            # a right/wrong task: the draws' interval joined with Clopper-Pearson (METHODS 2f)
            k, n = bench.correct[i, j], bench.n[i, j]
            q_low, q_high = np.quantile(x, [0.05, 0.95])
            cp = (stats.beta.ppf(0.05, k, n - k + 1), stats.beta.ppf(0.95, k + 1, n - k))
            assert (u["confidence_interval"]["lower"], u["confidence_interval"]["upper"]) == (
                pytest.approx((min(q_low, cp[0]), max(q_high, cp[1])), rel=1e-9)
            )
            assert u["num_samples"] == bench.n[i, j]
            assert res[task]["score_details"]["score"] == bench.estimate[i, j]
        assert set(doc["source_metadata"]["additional_details"]) >= {"uncertainty_method", "seed"}


def test_round_trip_of_counts_keeps_every_score_and_category(tmp_path: Path) -> None:
    out = tmp_path / "out"
    exported("sample:vtab1k", out, "--reps", "200")
    back = read_paths([out]).bench
    bench = load_sample("vtab1k")
    assert back.kind == "estimate_se"
    order = [back.models.index(m) for m in bench.models]
    cols = [back.tasks.index(t) for t in bench.tasks]
    np.testing.assert_array_equal(back.estimate[np.ix_(order, cols)], bench.estimate)
    assert [back.categories[j] for j in cols] == list(bench.categories)
    assert any("group means set aside" in n for n in back.notes)


def test_items_round_trip_with_instance_files_and_checksums(tmp_path: Path) -> None:
    out = tmp_path / "out"
    docs = exported("sample:alpaca_eval", out, "--reps", "200")
    bench = load_sample("alpaca_eval")
    for doc in docs.values():
        detail = doc["detailed_evaluation_results"]
        data = (out / detail["file_path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == detail["checksum"]
        assert detail["total_rows"] == data.count(b"\n")
        unc = results_by_name(doc)["alpaca_eval"]["score_details"]["uncertainty"]
        assert unc["num_bootstrap_samples"] == 200
        assert "item-level paired" in unc["standard_error"]["method"]
    back = read_paths([out]).bench
    assert back.kind == "items"
    old, new = bench.item_tasks[0], back.item_tasks[0]
    for i, model in enumerate(bench.models):
        k = back.models.index(model)
        a = {n: s for n, s in zip(old.items, old.scores[i], strict=True) if not np.isnan(s)}
        b = {n: s for n, s in zip(new.items, new.scores[k], strict=True) if not np.isnan(s)}
        assert a == b
        assert back.estimate[k, 0] == pytest.approx(bench.estimate[i, 0], rel=1e-12)
    assert dict(zip(new.items, new.subgroup, strict=True)) == dict(
        zip(old.items, old.subgroup, strict=True)
    )


def test_estimates_with_standard_errors_round_trip(tmp_path: Path) -> None:
    first = tmp_path / "first"
    exported("sample:vtab1k", first, "--reps", "200")
    second = tmp_path / "second"
    exported(str(first), second, "--reps", "200")
    a, b = read_paths([first]).bench, read_paths([second]).bench
    np.testing.assert_array_equal(b.estimate, a.estimate)


def test_the_same_export_gives_the_same_files() -> None:
    bench = load_sample("toy")
    draws = bootstrap(bench, reps=200, seed=0)
    one = export_eee(bench, draws, retrieved_timestamp="5")
    two = export_eee(bench, draws, retrieved_timestamp="5")
    assert one.files == two.files and one.aggregates == 2 and one.instances == 0
    assert repr(one).startswith("EEEExport(2 aggregate, 0 instance-level files")
    with pytest.raises(InvalidArgument):
        export_eee(bench, draws.select_models(["A"]))
    with pytest.raises(InvalidArgument):
        export_eee(bench, draws, level=1.5)


def test_cli_exit_codes(tmp_path: Path) -> None:
    taken = tmp_path / "file.txt"
    taken.write_text("x")
    assert cli("export", "sample:toy", "-o", str(taken))[0] == 2
    assert cli("export", "sample:toy", "-o", str(tmp_path / "o"), "--level", "1.5")[0] == 2
    code, _, err = cli("export", str(tmp_path / "missing.json"), "-o", str(tmp_path / "o"))
    assert code == 2 and "missing.json" in err and "Traceback" not in err
    code, out, _ = cli("export", "sample:toy", "-o", str(tmp_path / "o"), "--reps", "200")
    assert code == 0 and "2 Every Eval Ever aggregate files" in out


def test_zip_archive_holds_the_files() -> None:
    bench = load_sample("alpaca_eval")
    out = export_eee(bench, bootstrap(bench, reps=100, seed=0), retrieved_timestamp="5")
    with zipfile.ZipFile(io.BytesIO(out.zip_bytes())) as archive:
        assert sorted(archive.namelist()) == sorted(p for p, _ in out.files)
        path, text = out.files[0]
        assert archive.read(path).decode() == text
    assert out.instances == out.aggregates == len(bench.models)


def test_leaderboard_page_offers_the_files(make_app) -> None:
    at = make_app().run()
    at.switch_page(page_path("leaderboard.py")).run()
    assert not at.exception and not at.error
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Every Eval Ever files (.zip)" in labels

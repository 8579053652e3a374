"""Loaders on the real result files (copies in tests/fixtures/real) and on small made-up tables."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchuq.core.data import Benchmark, DataError, ItemTask
from benchuq.core.reading.classify import detect_format, file_columns
from benchuq.core.reading.columns import missing_columns, required_columns
from benchuq.core.reading.loaders import (
    FORMATS,
    load_files,
    load_path,
    load_sample,
    resolve,
)
from benchuq.core.reading.table import Source

REAL = Path(__file__).parents[2] / "fixtures" / "real"
AUX = {"vtab1k/tasks.csv", "mmlu/subjects.csv", "alpaca_eval/alpaca_eval_instructions.csv"}
RESULT_FILES = sorted(
    str(p.relative_to(REAL))
    for p in REAL.rglob("*")
    if p.is_file()
    and p.suffix in (".csv", ".json", ".jsonl")
    and str(p.relative_to(REAL)) not in AUX
    and p.relative_to(REAL).parts[0] != "helm"  # a HELM run is a folder, not one file
    # pairwise human and GPT-4 judgments, the source of sample:mt_bench (judge) and
    # sample:mt_bench_battles (arena): neither scores nor one battles table as they stand
    and p.relative_to(REAL).parts[0] != "mt_bench_judgments"
)


def files_of(folder: Path) -> list[tuple[str, bytes]]:
    return [
        (str(p.relative_to(folder)), p.read_bytes())
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.suffix != ".md"
    ]


@pytest.mark.parametrize("rel", RESULT_FILES)
def test_every_real_file_loads(rel: str) -> None:
    if rel == "vtab1k/accuracy.csv":
        bench = load_path(REAL / rel, tasks=REAL / "vtab1k" / "tasks.csv")
    else:
        bench = load_path(REAL / rel)
    assert bench.shape[0] >= 1 and bench.shape[1] >= 1
    assert np.isfinite(bench.estimate).any()


@pytest.mark.parametrize("rel", sorted(AUX))
def test_auxiliary_files_alone_say_what_they_are(rel: str) -> None:
    with pytest.raises(DataError, match="looks like") as err:
        load_path(REAL / rel)
    assert Path(rel).name in str(err.value)


@pytest.mark.parametrize(
    "folder, kind, shape",
    [
        ("vtab1k", "counts", (16, 19)),
        ("lm_eval/results_v03/mmlu_5shot", "counts", (20, 65)),
        ("lm_eval/results_v03/opt_0shot", "counts", (8, 65)),
        ("lm_eval/results_v03/pythia_12b_checkpoints_5shot", "counts", (15, 65)),
        ("lm_eval/results_v04", "counts", (2, 72)),
        ("lm_eval/samples", "items", (2, 4)),
        ("alpaca_eval", "items", (9, 1)),
        ("inspect_ai", "items", (6, 3)),  # the JSON log and the .eval logs (one unscored)
    ],
)
def test_real_folders_load_as_dropped_in(tmp_path: Path, folder: str, kind: str, shape) -> None:
    dst = tmp_path / Path(folder).name
    shutil.copytree(REAL / folder, dst)
    bench = load_path(dst)
    assert bench.kind == kind and bench.shape == shape
    same = load_files(files_of(dst), name=dst.name)
    assert same == bench  # bytes and path agree (content hash)


def test_vtab_folder_uses_its_task_table_and_matches_the_sample() -> None:
    bench = load_path(REAL / "vtab1k", name="vtab1k")
    sample = load_sample("vtab1k")
    assert bench.models == sample.models and bench.tasks == sample.tasks
    assert np.array_equal(bench.n, sample.n) and np.array_equal(bench.correct, sample.correct)
    assert any("percent" in x for x in bench.notes)
    assert any("task table" in x for x in bench.notes)


def test_mmlu_counts_are_acc_times_n_exactly() -> None:
    subjects = pd.read_csv(REAL / "mmlu" / "subjects.csv").set_index("subject")
    folder = REAL / "lm_eval" / "results_v03" / "mmlu_5shot"
    bench = load_path(folder)
    checked = 0
    for i, f in enumerate(sorted(folder.glob("*.json"))):
        res = json.loads(f.read_text())["results"]
        for key, entry in res.items():
            if not key.startswith("hendrycksTest-"):
                continue
            subject = key.removeprefix("hendrycksTest-")
            j = bench.tasks.index(subject)
            n = int(subjects.loc[subject, "n_test"])
            assert bench.n[i, j] == n
            assert bench.correct[i, j] == round(entry["acc"] * n)
            assert abs(entry["acc"] * n - bench.correct[i, j]) < 1e-6
            assert bench.categories[j] == subjects.loc[subject, "category"]
            checked += 1
    assert checked == 20 * 57


def test_lm_eval_v04_uses_n_samples_and_skips_groups_and_mcc() -> None:
    bench = load_path(REAL / "lm_eval" / "results_v04")
    assert bench.models == ("Qwen/Qwen2.5-1.5B", "meta-llama/Llama-3.2-1B")  # file order
    assert "cola" not in bench.tasks and "mmlu" not in bench.tasks
    assert "mmlu_stem" not in bench.tasks and "abstract_algebra" in bench.tasks
    j = bench.tasks.index("winogrande")
    assert bench.n[0, j] == 1267
    assert any("cola" in x for x in bench.notes) and any("group" in x for x in bench.notes)
    obj = json.loads(next((REAL / "lm_eval" / "results_v04").glob("Qwen*.json")).read_text())
    k = bench.tasks.index("arc_challenge")
    assert bench.estimate[0, k] == pytest.approx(obj["results"]["arc_challenge"]["acc,none"])


def test_lm_eval_acc_norm_metric() -> None:
    f = REAL / "lm_eval" / "results_v04"
    acc = load_path(f)
    norm = load_path(f, metric="acc_norm")
    assert set(norm.tasks) < set(acc.tasks)  # tasks without acc_norm are skipped
    obj = json.loads(next(f.glob("Qwen*.json")).read_text())
    j = norm.tasks.index("hellaswag")
    assert norm.estimate[0, j] == pytest.approx(obj["results"]["hellaswag"]["acc_norm,none"])


def test_opt_item_counts_backed_out_of_stderr() -> None:
    bench = load_path(REAL / "lm_eval" / "results_v03" / "opt_0shot")
    known = {
        "winogrande": 1267,
        "sciq": 1000,
        "piqa": 1838,
        "arc_easy": 2376,
        "arc_challenge": 1172,
        "lambada_openai": 5153,
        "wsc": 104,
        "logiqa": 651,
    }
    for task, n in known.items():
        assert np.all(bench.n[:, bench.tasks.index(task)] == n), task
    assert bench.models[0].startswith("facebook/opt-")


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 50_000), st.floats(0.0, 1.0))
def test_stderr_back_out_recovers_n(n: int, frac: float) -> None:
    """lm-eval's stderr (sample sd / sqrt(n)) of k successes in n items gives back n exactly."""
    from benchuq.core.reading.lm_eval import _task_n

    k = min(n - 1, max(1, round(frac * n)))
    y = np.r_[np.ones(k), np.zeros(n - k)]
    se = float(np.std(y, ddof=1) / np.sqrt(n))
    got, how = _task_n("some_task", "some_task", {}, None, k / n, se)
    assert (got, how) == (n, "stderr")


def test_pythia_checkpoints_are_told_apart_by_revision() -> None:
    bench = load_path(REAL / "lm_eval" / "results_v03" / "pythia_12b_checkpoints_5shot")
    assert len(set(bench.models)) == 15
    assert all(m.startswith("EleutherAI/pythia-v1.1-12b@step") for m in bench.models)


def test_lm_eval_samples_both_formats_and_model_from_results() -> None:
    bench = load_path(REAL / "lm_eval" / "samples")
    assert set(bench.models) == {"meta-llama/Meta-Llama-3-8B-Instruct", "Qwen/Qwen3-8B"}
    assert set(bench.tasks) == {
        "asdiv",
        "negotiationtom_belief",
        "negotiationtom_desire",
        "negotiationtom_intention",
    }
    expected = {
        "asdiv": 0.92,
        "negotiationtom_belief": 0.45,
        "negotiationtom_desire": 0.6,
        "negotiationtom_intention": 0.2,
    }
    for t, v in expected.items():
        j = bench.tasks.index(t)
        assert np.nanmax(bench.estimate[:, j]) == pytest.approx(v)
    j = bench.tasks.index("asdiv")
    assert len(bench.item_tasks[j].items) == 50
    assert any("exact_match" in x for x in bench.notes)


def test_alpaca_eval_reproduces_the_leaderboard() -> None:
    lb = pd.read_csv(
        REAL / "alpaca_eval" / "weighted_alpaca_eval_gpt4_turbo_leaderboard.csv", index_col=0
    )
    bench = load_path(REAL / "alpaca_eval")
    it = bench.item_tasks[0]
    assert len(bench.models) == 9
    for i, m in enumerate(bench.models):
        y = it.scores[i][~np.isnan(it.scores[i])]
        assert abs(y.mean() * 100 - lb.loc[m, "win_rate"]) < 1e-9
        se = np.std(y * 100, ddof=1) / np.sqrt(len(y))
        assert abs(se - lb.loc[m, "standard_error"]) < 1e-9
        assert bench.estimate[i, 0] * 100 == pytest.approx(lb.loc[m, "win_rate"], abs=1e-9)
    phi = bench.models.index("phi-2")
    missing = [it.items[k] for k in np.flatnonzero(np.isnan(it.scores[phi]))]
    assert sorted(missing) == ["131", "209"]
    assert sorted(set(it.subgroup)) == ["helpful_base", "koala", "oasst", "selfinstruct", "vicuna"]


def test_alpaca_annotations_json_list() -> None:
    df = pd.read_csv(REAL / "alpaca_eval" / "phi-2__weighted_alpaca_eval_gpt4_turbo.csv")
    inst = pd.read_csv(REAL / "alpaca_eval" / "alpaca_eval_instructions.csv")
    df = df.merge(inst, on=["instruction_index", "dataset"])
    recs = df[["instruction", "dataset", "generator_1", "generator_2", "preference"]]
    data = json.dumps(recs.to_dict("records")).encode()
    bench = load_files([("annotations.json", data)])
    assert bench.models == ("phi-2",) and len(bench.item_tasks[0].items) == 803
    assert bench.estimate[0, 0] == pytest.approx((df["preference"] - 1).mean())


def test_alpaca_leaderboard_file_loads_as_estimates() -> None:
    bench = load_path(REAL / "alpaca_eval" / "weighted_alpaca_eval_gpt4_turbo_leaderboard.csv")
    assert bench.kind == "estimate_se"
    i = bench.models.index("gpt4_1106_preview")
    assert bench.estimate[i, 0] == pytest.approx(0.5) and bench.se[i, 0] == 0


def test_inspect_log() -> None:
    bench = load_path(next((REAL / "inspect_ai").glob("*.json")))
    assert bench.models == ("openai/gpt-4o-mini",) and bench.tasks == ("security_guide",)
    assert bench.estimate[0, 0] == 1.0 and bench.n[0, 0] == 3
    assert any("one model" in x for x in bench.notes)


def test_inspect_values_and_status(tmp_path: Path) -> None:
    obj = json.loads(next((REAL / "inspect_ai").glob("*.json")).read_text())
    for s, v in zip(obj["samples"], ["C", "P", "I"], strict=True):
        s["scores"]["model_graded_fact"]["value"] = v
    obj["status"] = "error"
    bench = load_files([("log.json", json.dumps(obj).encode())])
    assert bench.estimate[0, 0] == pytest.approx(0.5)
    assert any("status" in x and "error" in x for x in bench.notes)


def test_duplicate_model_across_files_gets_a_suffix(tmp_path: Path) -> None:
    f = REAL / "lm_eval" / "results_v03" / "opt_0shot" / "opt-125m.json"
    files = [("run1/opt-125m.json", f.read_bytes()), ("run2/opt-125m.json", f.read_bytes())]
    bench = load_files(files)
    assert bench.models == ("facebook/opt-125m", "facebook/opt-125m (2)")
    assert any("(2)" in x for x in bench.notes)


def test_one_run_split_over_files_stays_one_model() -> None:
    text = "model,task,n,correct\nA,t1,10,5\nB,t1,10,6\n"
    more = "model,task,n,correct\nA,t2,10,7\n"
    bench = load_files([("a.csv", text.encode()), ("b.csv", more.encode())])
    assert bench.models == ("A", "B") and bench.tasks == ("t1", "t2")
    assert np.isnan(bench.estimate[1, 1])
    assert any("missing" in x for x in bench.notes)


LONG = (
    "model,task,category,n,correct\nA,t1,c1,100,50\nA,t2,c2,200,150\nB,t1,c1,100,60\n"
    "B,t2,c2,200,120\n"
)


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_long_any_delimiter(sep: str) -> None:
    bench = load_files([("x.csv", LONG.replace(",", sep).encode())])
    assert bench.kind == "counts" and bench.shape == (2, 2)
    assert bench.correct.tolist() == [[50, 150], [60, 120]]
    assert bench.category_names == ("c1", "c2")


def test_long_tsv_parquet_json_records_jsonl_agree() -> None:
    df = pd.read_csv(io.StringIO(LONG))
    buf = io.BytesIO()
    df.to_parquet(buf)
    ref = load_files([("x.csv", LONG.encode())], name="x")
    variants = [
        ("x.tsv", df.to_csv(sep="\t", index=False).encode()),
        ("x.parquet", buf.getvalue()),
        ("x.json", df.to_json(orient="records").encode()),
        ("x.jsonl", df.to_json(orient="records", lines=True).encode()),
        ("x.csv", ("\ufeff" + LONG).encode()),
    ]
    for fname, data in variants:
        assert load_files([(fname, data)], name="x") == ref, fname


def test_accuracy_percent_with_task_table_and_notice() -> None:
    data = "model,task,accuracy\nA,t1,50\nA,t2,75\nB,t1,60\nB,t2,60\n"
    tasks = "task,category,n,chance\nt1,c1,100,0.25\nt2,c2,200,0.5\n"
    bench = load_files([("x.csv", data.encode())], tasks=("tasks.csv", tasks.encode()))
    assert bench.correct.tolist() == [[50, 150], [60, 120]]
    assert bench.chance.tolist() == [0.25, 0.5]
    assert any("percent" in x for x in bench.notes)
    prop = data.replace(",50", ",0.5").replace(",75", ",0.75").replace(",60", ",0.6")
    assert not any(
        "percent" in x
        for x in load_files([("x.csv", prop.encode())], tasks=("tasks.csv", tasks.encode())).notes
    )


def test_accuracy_not_whole_is_rounded_with_note() -> None:
    data = "model,task,n,accuracy\nA,t1,3,0.5\nB,t1,3,0.3333333333\n"
    bench = load_files([("x.csv", data.encode())])
    assert bench.correct[:, 0].tolist() == [2, 1]
    assert any("rounded" in x for x in bench.notes)


def test_estimate_se_and_higher_is_better() -> None:
    data = "model,task,estimate,se,higher_is_better\nA,loss,1.5,0.1,false\nB,loss,1.2,0.2,false\n"
    bench = load_files([("x.csv", data.encode())])
    assert bench.kind == "estimate_se" and bench.se[:, 0].tolist() == [0.1, 0.2]
    assert not bench.higher_is_better[0]
    assert any("one category" in x for x in bench.notes)


def test_wide_with_task_table() -> None:
    wide = "Model,CIFAR,Pets\nA,0.5,0.25\nB,0.6,\n"
    tasks = "task,category,n\nCIFAR,natural,10\nPets,natural,4\n"
    bench = load_files([("w.csv", wide.encode())], format="wide", tasks=("t.csv", tasks.encode()))
    assert bench.tasks == ("CIFAR", "Pets") and bench.models == ("A", "B")
    assert bench.correct.tolist() == [[5, 1], [6, 0]] and np.isnan(bench.estimate[1, 1])


def test_items_binary_and_continuous() -> None:
    rows = ["model,task,item,score,cluster,subgroup"]
    for m, s in (("A", [1, 0, 1, 1]), ("B", [0, 0, 1, 0])):
        rows += [f"{m},t,i{k},{v},c{k // 2},g{k % 2}" for k, v in enumerate(s)]
    bench = load_files([("items.csv", "\n".join(rows).encode())])
    assert bench.kind == "items" and bench.n.tolist() == [[4], [4]]
    assert bench.correct.tolist() == [[3], [1]]
    it = bench.item_tasks[0]
    assert it.cluster == ("c0", "c0", "c1", "c1") and it.subgroup == ("g0", "g1", "g0", "g1")
    cont = "model,task,item,score\nA,t,1,0.5\nA,t,2,0.25\nB,t,1,1\n"
    b2 = load_files([("c.csv", cont.encode())])
    assert b2.n is None and b2.estimate[:, 0].tolist() == [0.375, 1.0]
    assert np.isnan(b2.item_tasks[0].scores[1, 1])


def test_column_mapping_and_missing_columns() -> None:
    data = "Model Name;Benchmark;Total;Right\nA;t1;10;5\nB;t1;10;7\n"
    cols = file_columns(("x.csv", data.encode()))
    assert cols == ["Model Name", "benchmark", "Total", "Right"]  # known names lower-cased
    assert missing_columns(cols) == ["model", "correct", "n"]
    mapping = {"Model Name": "model", "Total": "n", "Right": "correct"}
    assert missing_columns([mapping.get(c, c) for c in cols]) == []  # benchmark -> task alias
    bench = load_files([("x.csv", data.encode())], columns=mapping)
    assert bench.correct[:, 0].tolist() == [5, 7]
    assert missing_columns(["model", "task", "accuracy"]) == ["n"]
    assert missing_columns(["model", "task", "accuracy"], task_table=True) == []
    assert missing_columns(["model", "task", "estimate"]) == ["se"]
    assert required_columns("items") == ("model", "task", "item", "score")
    assert missing_columns(["model", "task", "item"], format="items") == ["score"]


def test_explicit_formats_and_detection() -> None:
    assert FORMATS[0] == "auto" and len(FORMATS) == 12
    det = {
        "vtab1k/accuracy.csv": "long",
        "vtab1k/tasks.csv": "task_table",
        "lm_eval/results_v04/Qwen__Qwen2.5-1.5B__results_2025-03-03T00-05-12.300060.json": (
            "lm_eval"
        ),
        "inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json": "inspect",
        "alpaca_eval/phi-2__weighted_alpaca_eval_gpt4_turbo.csv": "alpaca_eval",
    }
    for rel, kind in det.items():
        assert detect_format(Source(rel, (REAL / rel).read_bytes())) == kind
    f = REAL / "inspect_ai"
    assert load_path(f, format="inspect") == load_path(f)
    g = REAL / "lm_eval" / "samples" / "pr2236_asdiv_llama3-8b-instruct"
    assert load_path(g, format="lm_eval_samples") == load_path(g)


def test_resolve_sample_file_folder(tmp_path: Path) -> None:
    assert resolve("sample:toy") == load_sample("toy")
    p = tmp_path / "toy.csv"
    p.write_bytes((Path(__file__).parents[3] / "sample_data" / "toy.csv").read_bytes())
    assert resolve(str(p)).correct.tolist() == load_sample("toy").correct.tolist()
    assert resolve(str(tmp_path)).shape == (2, 3)


def test_samples_older_format_drift() -> None:
    """Older --log_samples files hold floats/lists in ``resps`` and a list in ``arguments``."""
    lines = [
        {
            "doc_id": k,
            "doc": {"question": f"q{k}"},
            "target": "1",
            "arguments": [[f"context {k}", " 1"]],
            "resps": [[[-0.5 * k, k % 2 == 0]]],
            "filtered_resps": [[-0.5 * k, k % 2 == 0]],
            "acc": float(k % 2 == 0),
        }
        for k in range(6)
    ]
    data = "\n".join(json.dumps(x) for x in lines).encode()
    bench = load_files([("samples_old_task_2023-05-01T10-00-00.123.jsonl", data)])
    assert bench.tasks == ("old_task",) and bench.correct.tolist() == [[3]]


def test_task_table_sets_categories_of_item_data() -> None:
    rows = "model,task,item,score\nA,t1,1,1\nA,t2,1,0\nB,t1,1,0\nB,t2,1,1\n"
    tasks = ("tasks.csv", b"task,category,chance\nt1,easy,0.5\nt2,hard,0.25\n")
    bench = load_files([("i.csv", rows.encode())], tasks=tasks)
    assert bench.categories == ("easy", "hard") and bench.chance.tolist() == [0.5, 0.25]


def test_lm_eval_limit_is_noted() -> None:
    f = REAL / "lm_eval" / "samples" / "pr2236_asdiv_llama3-8b-instruct"
    bench = load_path(next(f.glob("results_*.json")))
    assert bench.n.tolist() == [[50]] and bench.correct.tolist() == [[46]]
    assert any("--limit" in x and "50 of 2305" in x for x in bench.notes)


def test_utf16_text_from_spreadsheets() -> None:
    bench = load_files([("x.txt", LONG.replace(",", "\t").encode("utf-16"))], name="x")
    assert bench == load_files([("x.csv", LONG.encode())], name="x")


def test_mmlu_subject_table_works_as_a_task_table() -> None:
    folder = REAL / "lm_eval" / "results_v03" / "mmlu_5shot"
    plain = load_path(folder)
    with_table = load_path(folder, tasks=REAL / "mmlu" / "subjects.csv")
    assert with_table.categories == plain.categories
    assert np.array_equal(with_table.correct, plain.correct)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 500), st.floats(0, 1)), min_size=1, max_size=12),
    st.sampled_from([",", ";", "\t"]),
)
def test_long_table_round_trip(cells: list[tuple[int, float]], sep: str) -> None:
    """Counts written as a table load back unchanged, whatever the delimiter."""
    rows = [
        (f"m{k % 3}", f"task {k // 3}", n, round(frac * n)) for k, (n, frac) in enumerate(cells)
    ]
    text = sep.join(["model", "task", "n", "correct"]) + "\n"
    text += "".join(sep.join(map(str, r)) + "\n" for r in rows)
    bench = load_files([("x.csv", text.encode())])
    for m, t, n, k in rows:
        i, j = bench.models.index(m), bench.tasks.index(t)
        assert (bench.n[i, j], bench.correct[i, j]) == (n, k)


def test_inspect_epochs_are_averaged_and_scorer_named() -> None:
    obj = json.loads(next((REAL / "inspect_ai").glob("*.json")).read_text())
    second = json.loads(json.dumps(obj["samples"]))
    for s in second:
        s["epoch"] = 2
        s["scores"]["model_graded_fact"]["value"] = "I"
    obj["samples"] += second
    for s in obj["samples"]:
        s["scores"]["other"] = {"value": 1.0}
    bench = load_files([("log.json", json.dumps(obj).encode())])
    assert bench.estimate[0, 0] == pytest.approx(0.5) and bench.n is None
    assert len(bench.item_tasks[0].items) == 3
    assert any("epochs" in x for x in bench.notes)
    assert any("model_graded_fact" in x for x in bench.notes)
    other = load_files([("log.json", json.dumps(obj).encode())], metric="other")
    assert other.estimate[0, 0] == 1.0


# ---- item tables at Arrow speed (issue 18) --------------------------------------------------


def _item_frame(rng: np.random.Generator, n: int = 60) -> pd.DataFrame:
    rows = [
        (m, f"t{k % 3}", f"q{k}", float(rng.random() < 0.6), f"c{k // 4}")
        for m in ("A", "B", "C")
        for k in range(n)
        if not (m == "C" and k % 7 == 0)  # C lacks some items
    ]
    return pd.DataFrame(rows, columns=["model", "task", "item", "score", "cluster"])


def _same(a: Benchmark, b: Benchmark) -> None:
    assert (a.models, a.tasks, a.categories) == (b.models, b.tasks, b.categories)
    assert np.array_equal(a.estimate, b.estimate, equal_nan=True)
    for x, y in zip(a.item_tasks, b.item_tasks, strict=True):
        assert list(x.items) == list(y.items) and x.cluster == y.cluster
        assert np.array_equal(x.scores, y.scores, equal_nan=True)


def test_item_formats_and_shards_read_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CSV, TSV, JSON Lines, Parquet, a folder of Parquet shards and a glob of them give one
    benchmark, all on the Arrow path (the pandas path is switched off)."""
    from benchuq.core.reading import items

    frame = _item_frame(np.random.default_rng(0))
    want = load_files([("x.csv", frame.to_csv(index=False).encode())])
    monkeypatch.setattr(items, "_pandas_frame", lambda t: pytest.fail("pandas path used"))
    frame.to_parquet(tmp_path / "x.parquet")
    (tmp_path / "x.tsv").write_text(frame.to_csv(index=False, sep="\t"))
    (tmp_path / "x.jsonl").write_text(frame.to_json(orient="records", lines=True))
    shards = tmp_path / "shards"
    shards.mkdir()
    shuffled = frame.sample(frac=1, random_state=1)
    for k in range(3):
        shuffled.iloc[k::3].to_parquet(shards / f"part-{k}.parquet")
    for path in ("x.parquet", "x.tsv", "x.jsonl"):
        _same(load_path(tmp_path / path), want)
    # default names differ (the folder's name; "data" for a pattern), so both are given one
    by_folder = load_path(shards, name="shards")
    by_glob = load_path(str(shards / "part-*.parquet"), name="shards")
    assert by_folder.models == by_glob.models and by_folder.content_hash == by_glob.content_hash
    for j, t in enumerate(want.tasks):  # shuffled rows: same scores per (model, item)
        a, b = want.item_tasks[j], by_folder.item_tasks[by_folder.tasks.index(t)]
        pos = [list(b.items).index(x) for x in a.items]
        rows = [by_folder.models.index(m) for m in want.models]
        assert np.array_equal(a.scores, b.scores[np.ix_(rows, pos)], equal_nan=True)
    assert want.item_tasks[0].binary and want.n.sum() == len(frame)


def test_each_item_task_is_stored_as_if_alone() -> None:
    """A binary task next to continuous ones is kept as bytes and an exact one as float32, as
    ItemTask stores each alone: storage, content hash and bootstrap ignore the other tasks."""
    rows = [("t", 1, 0), ("u", 0.5, 0.1), ("v", 0.5, 0.25)]
    text = "model,task,item,score\n" + "".join(f"A,{t},1,{a}\nB,{t},1,{b}\n" for t, a, b in rows)
    bench = load_files([("x.csv", text.encode())])
    t, u, v = bench.item_tasks
    assert t.binary and t.state.dtype == np.uint8
    assert u.values.dtype == np.float64 and v.values.dtype == np.float32
    alone = tuple(ItemTask(it.items, it.scores) for it in bench.item_tasks)
    assert bench._replace(item_tasks=alone).content_hash == bench.content_hash


def test_shards_must_agree_on_label_columns() -> None:
    """A cluster column in one shard only is refused (dropping it would ignore the clusters)."""
    one = "model,task,item,score,cluster\nA,t,1,1,c1\nB,t,1,0,c1\n"
    two = "model,task,item,score\nA,t,2,0\nB,t,2,1\n"
    with pytest.raises(DataError, match="no 'cluster' column") as err:
        load_files([("a.csv", one.encode()), ("b.csv", two.encode())])
    assert err.value.file == "b.csv" and err.value.column == "cluster"
    both = load_files([("a.csv", one.encode()), ("b.csv", one.replace(",1,", ",2,").encode())])
    assert both.item_tasks[0].cluster == ("c1", "c1")


def test_item_names_are_stripped_and_checked_once(tmp_path: Path) -> None:
    text = "model,task,item,score\nA ,t,1,1\n A,t,2,0\nB,t,1,1\n"
    bench = load_files([("x.csv", text.encode())])
    assert bench.models == ("A", "B") and bench.n.tolist() == [[2], [1]]
    pd.DataFrame({"model": ["A", None], "task": "t", "item": ["1", "2"], "score": 1.0}).to_parquet(
        tmp_path / "x.parquet"
    )
    with pytest.raises(DataError, match=r"row 3.*the model is empty"):
        load_path(tmp_path / "x.parquet")


def test_a_duplicate_across_shards_names_both_files(tmp_path: Path) -> None:
    frame = pd.DataFrame({"model": "A", "task": "t", "item": ["1", "2"], "score": [1.0, 0.0]})
    frame.to_parquet(tmp_path / "a.parquet")
    frame.iloc[1:].to_parquet(tmp_path / "b.parquet")
    with pytest.raises(DataError, match=r"file 'a\.parquet' row 3, file 'b\.parquet' row 2"):
        load_path(tmp_path)


def test_text_lines_decode_one_line_at_a_time() -> None:
    from benchuq.core.reading.table import text_lines

    data = '\ufeff{"a": "x\u2028y"}\r\n\n{"b": 2}'.encode()
    assert list(text_lines(Source("s.jsonl", data))) == [
        (1, '{"a": "x\u2028y"}'),
        (2, ""),
        (3, '{"b": 2}'),
    ]
    with pytest.raises(DataError, match="line 2 is not valid UTF-8"):
        list(text_lines(Source("s.jsonl", b'{"a": 1}\n{"b": "\xff"}\n')))


def test_per_model_shards_hash_their_items_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder of per-model logs listing the same items in the same order (a row group per
    task), and the same models in one CSV (cut at the model runs): a piece equal to an earlier
    one reuses its codes, so the names are hashed once; one with the same length, first and
    last name but another middle is encoded anew; integer item ids (model B) merge with the
    same names as text. The pandas path (JSON records) reads the same."""
    from benchuq.core.reading import items

    rng = np.random.default_rng(5)
    ids = [str(k) for k in range(80)]
    frame = pd.DataFrame(
        [(m, f"t{k // 40}", ids[k], float(rng.random() < 0.5)) for m in "ABC" for k in range(80)],
        columns=["model", "task", "item", "score"],
    )
    middle = (frame.model == "C") & frame["item"].isin(ids[41:79])
    frame.loc[middle, "item"] = "x" + frame.loc[middle, "item"]  # C's t1: same ends, new middle
    want = load_files([("x.json", frame.to_json(orient="records").encode())])
    for m, part in frame.groupby("model"):
        table = pa.table({c: pa.array(part[c].tolist(), pa.string()) for c in part.columns[:3]})
        table = table.append_column("score", pa.array(part["score"]))
        if m == "B":
            table = table.set_column(2, "item", pa.array(part["item"].astype(int)))
        pq.write_table(table, tmp_path / f"{m}.parquet", row_group_size=40)
    seen: list[tuple[int, pa.DataType]] = []
    encode = items._dictionary_encode

    def spy(values: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
        seen.append((len(values), values.type))
        return encode(values)

    monkeypatch.setattr(items, "_dictionary_encode", spy)
    got = load_path(tmp_path, name="x")
    _same(got, want)
    assert [n for n, t in seen if t == pa.string()] == [40 * 3]  # A's two chunks, C's new one
    assert [len(it.items) for it in got.item_tasks] == [40, 40 + 38]
    text = frame.replace({"model": {"C": "B", "B": "C"}}).to_csv(index=False).encode()
    seen.clear()
    monkeypatch.setattr(items, "RUN_RECORDS", 10)
    csv = load_files([("x.csv", text)])
    assert csv.item_tasks[1].items == got.item_tasks[1].items
    assert [n for n, t in seen if t == pa.string()] == [80 * 2]  # A's run, and C's (as "B")


def test_models_interleaved_item_by_item_hash_each_run_of_an_item_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The models' rows of each item together (runs of equal names, some broken: a model
    without an item, one item's last row at the end): the names are hashed once a run, and
    the table reads as the pandas path (JSON records) reads it."""
    from benchuq.core.reading import items

    rng = np.random.default_rng(8)
    rows = [
        (m, f"t{k % 3}", f"q{k}", float(rng.random() < 0.5))
        for k in range(600)
        for m in "ABCD"
        if not (m == "B" and k % 7 == 0)
    ]
    rows.append(rows.pop(10))  # item q2's row of model C (or D) at the end: a broken run
    frame = pd.DataFrame(rows, columns=["model", "task", "item", "score"])
    want = load_files([("x.json", frame.to_json(orient="records").encode())])
    seen: list[int] = []
    encode = items._dictionary_encode

    def spy(values: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
        if values.type == pa.string() and len(values) > 3:
            seen.append(len(values))
        return encode(values)

    monkeypatch.setattr(items, "_dictionary_encode", spy)
    got = load_files([("x.csv", frame.to_csv(index=False).encode())])
    _same(got, want)
    runs = 1 + int((frame["item"].to_numpy()[1:] != frame["item"].to_numpy()[:-1]).sum())
    assert seen == [runs] and runs < len(frame) / 3


def test_names_that_are_not_utf8_are_refused_with_their_row() -> None:
    """A CSV byte that is not UTF-8 in a name (Arrow reads that column as binary) and a
    Parquet binary column: a DataError naming the row, not an Arrow or Unicode exception."""
    data = bytearray(b"model,task,item,score\nA,t,1,1\nB,t,1,0\n")
    data[34] = 0x80  # B's item
    with pytest.raises(DataError, match="not valid UTF-8") as err:
        load_files([("items.csv", bytes(data))])
    assert err.value.row == 3
    items = pa.array([b"1", b"\x80"], pa.binary())
    table = pa.table({"model": ["A", "B"], "task": ["t", "t"], "item": items, "score": [1, 0]})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    with pytest.raises(DataError, match="not UTF-8 text") as err:
        load_files([("x.parquet", buf.getvalue())])
    assert (err.value.row, err.value.column) == (3, "item")
    buf = io.BytesIO()
    pq.write_table(table.set_column(2, "item", pa.array([b"1", b"2"], pa.binary())), buf)
    assert load_files([("x.parquet", buf.getvalue())]).item_tasks[0].items == ["1", "2"]


def test_a_nul_byte_far_into_a_large_table_is_refused_with_its_row(tmp_path: Path) -> None:
    """The Arrow path reads NUL as valid UTF-8: names are checked on their dictionary. In a
    folder only the first MB is checked as text before reading: the file is refused, not
    skipped, and a large text file is not decoded whole to classify it."""
    rows = [f"A,t{chr(0) if i == 60_000 else ''},{i},1\nB,t,{i},0\n" for i in range(70_000)]
    data = ("model,task,item,score\n" + "".join(rows)).encode()
    assert len(data) > 2**20 and data.index(b"\x00") > 2**20
    with pytest.raises(DataError, match="NUL") as err:
        load_files([("x.csv", data)])
    assert (err.value.row, err.value.column) == (2 * 60_000 + 2, "task")
    (tmp_path / "x.csv").write_bytes(data)
    (tmp_path / "README.md").write_text("notes")
    with pytest.raises(DataError, match="NUL"):
        load_path(tmp_path)
    (tmp_path / "x.csv").write_bytes(data.replace(b"\x00", b""))
    assert load_path(tmp_path).n.sum() == 2 * 70_000


def test_unused_categories_of_a_parquet_categorical_are_not_models() -> None:
    """pandas writes a categorical's every category into the Parquet dictionary; only names
    that some record uses become models (an unused "" is not an empty name)."""
    models = pd.Categorical(["B", "A"], categories=["", "A", "B", "Z"])
    frame = pd.DataFrame({"model": models, "task": "t", "item": "1", "score": [1.0, 0.0]})
    buf = io.BytesIO()
    frame.to_parquet(buf)
    bench = load_files([("x.parquet", buf.getvalue())])
    assert sorted(bench.models) == ["A", "B"]
    assert bench.estimate[bench.models.index("B"), 0] == 1.0

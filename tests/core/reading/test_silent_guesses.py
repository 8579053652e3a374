"""No silent guesses (issue 29, item 4): each guess the loader makes is said in a note that names
what was done, why (the true reason) and how to change it."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchuq.cli.main import main
from benchuq.core import summaries
from benchuq.core.data import DataError
from benchuq.core.findings import findings, gaps_from_leader
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.reading.loaders import read_files, read_paths
from benchuq.core.reading.meta import MissingMetric
from benchuq.core.reading.names import confusable_notes, skeleton
from benchuq.core.summaries.leader import tied_with_leader
from benchuq.core.validation import InvalidArgument

REAL = Path(__file__).parents[2] / "fixtures" / "real" / "lm_eval"
V04 = REAL / "results_v04"
QWEN = next(V04.glob("Qwen*.json"))
ASDIV = next((REAL / "samples" / "pr2236_asdiv_llama3-8b-instruct").glob("samples_*.jsonl"))
TOM = REAL / "samples" / "pr3936_negotiationtom_qwen3-8b"


def notes_with(notes: tuple[str, ...], text: str) -> list[str]:
    return [n for n in notes if text in n]


# ---- a model name taken from a file or folder name -------------------------------------------
def _nameless() -> dict:
    obj = json.loads(QWEN.read_text())
    obj["config"]["model_args"] = "pretrained=/scratch/ckpt/final"
    del obj["model_name"]
    return obj


def test_model_name_from_the_folder_or_file_name_says_so_and_why() -> None:
    data = json.dumps(_nameless()).encode()
    loaded = read_files([("Qwen__Qwen2.5-1.5B/results_2025-03-03T00-05-12.json", data)])
    assert loaded.bench.models == ("Qwen/Qwen2.5-1.5B",)
    assert (
        "model name 'Qwen/Qwen2.5-1.5B' taken from the folder name (its pretrained= is a local "
        "path ('/scratch/ckpt/final'), not a name, and it has no model_name); to change it, add "
        '"model_name": "<name>" to the file or rename the folder.'
    ) in loaded.bench.notes
    obj = _nameless()
    obj["config"]["model_args"] = "dtype=float16"
    bench = read_files([("org__tiny__results_2025-03-03T00-05-12.json", json.dumps(obj).encode())])
    assert bench.bench.models == ("org/tiny",)
    assert notes_with(bench.bench.notes, "model name 'org/tiny' taken from the file name (no "
                      "pretrained= or model= in config.model_args and no model_name)")  # fmt: skip
    named = read_files([(QWEN.name, QWEN.read_bytes())])  # the file names its model: no note
    assert not notes_with(named.bench.notes, "taken from the")


def test_2023_sample_file_name_and_the_default_name_model(tmp_path: Path) -> None:
    old = tmp_path / "pretrained=meta-llama__Meta-Llama-3-8B-Instruct_asdiv.jsonl"
    old.write_bytes(ASDIV.read_bytes())
    bench = read_paths([old]).bench
    assert bench.models == ("meta-llama/Meta-Llama-3-8B-Instruct",)
    said = "model name 'meta-llama/Meta-Llama-3-8B-Instruct' taken from the file name (lm-eval's "
    assert notes_with(bench.notes, said + "2023 naming; the records name no model)")
    alone = read_files([(ASDIV.name, ASDIV.read_bytes())]).bench
    assert alone.models == ("model",)
    assert (
        "no model name in the sample file, its name, its folder or a results file next to it: "
        "the model is called 'model'; to name it, put the file in a folder named after the model "
        "(lm-eval writes <output>/<model>/samples_<task>_<time>.jsonl) or load the sample files "
        "with their results_<time>.json (which names the model)."
    ) in alone.notes


# ---- models that share no task are never "≈ leader" -------------------------------------------
def test_the_default_model_is_not_tied_with_a_leader_it_shares_no_task_with() -> None:
    files = [(ASDIV.name, ASDIV.read_bytes())]
    files += [(f"Qwen__Qwen3-8B/{p.name}", p.read_bytes()) for p in TOM.glob("samples_*.jsonl")]
    loaded = read_files(files)
    bench = loaded.bench
    assert set(bench.models) == {"model", "Qwen/Qwen3-8B"}
    (note,) = notes_with(bench.notes, "share no task")
    assert note.startswith("2 sets of models share no task with each other: [")
    assert "never marked '≈ leader' against each other" in note
    draws = bootstrap(bench, reps=300, seed=0)
    table = summaries.leaderboard(draws)
    overall = table[table.group == "overall"].set_index("model")
    lead = overall.estimate.idxmax()
    other = next(m for m in bench.models if m != lead)
    assert not overall.loc[other, "tied_with_leader"]
    f = findings(bench, draws, level=0.834)
    assert f.tied == ()
    said = (
        f"{other} shares no task with {lead}: their scores average different tasks, so they "
        "are not compared with it (issue 29)."
    )
    assert said in f.headline
    gaps = gaps_from_leader(draws, level=0.834).set_index("model")
    assert not gaps.loc[other, "tied"]


def test_disjoint_models_with_equal_scores_were_tied_and_now_are_not() -> None:
    rows = [("a", "t1", f"i{k}", float(k < 15)) for k in range(20)]
    rows += [("b", "t2", f"i{k}", float(k < 14)) for k in range(20)]
    csv = pd.DataFrame(rows, columns=["model", "task", "item", "score"]).to_csv(index=False)
    bench = read_files([("items.csv", csv.encode())]).bench
    draws = bootstrap(bench, reps=400, seed=1)
    sc = summaries.group_scores(draws, group="overall")
    assert tied_with_leader(sc.values, sc.observed, level=0.834).all()  # the old rule: "≈ leader"
    present = summaries.task_presence(draws, group="overall")
    assert list(tied_with_leader(sc.values, sc.observed, level=0.834, present=present)) == [
        True,
        False,
    ]
    assert notes_with(bench.notes, "2 sets of models share no task with each other: [a]; [b].")


# ---- two runs of one model ---------------------------------------------------------------------
def _two_runs(stamps: tuple[str, str]) -> list[tuple[str, bytes]]:
    old = json.loads(QWEN.read_text())
    old["results"]["arc_easy"]["acc,none"] = 0.5  # the first file's run scored arc_easy apart
    new = json.loads(QWEN.read_text())
    return [
        (f"Qwen__Qwen2.5-1.5B/results_{stamps[0]}.json", json.dumps(old).encode()),
        (f"Qwen__Qwen2.5-1.5B/results_{stamps[1]}.json", json.dumps(new).encode()),
    ]


def test_two_runs_keep_the_newest_and_say_so_or_keep_both_on_request() -> None:
    files = _two_runs(("2025-03-04T10-00-00.000000", "2025-03-01T09-00-00.000000"))
    bench = read_files(files).bench
    assert bench.models == ("Qwen/Qwen2.5-1.5B",)
    assert bench.estimate[0, bench.tasks.index("arc_easy")] == 0.5  # the newer file (March 4)
    assert (
        "model 'Qwen/Qwen2.5-1.5B' has two runs of the same tasks: 'Qwen__Qwen2.5-1.5B/results_"
        "2025-03-01T09-00-00.000000.json' (2025-03-01T09-00-00.000000) and the newer 'Qwen__"
        "Qwen2.5-1.5B/results_2025-03-04T10-00-00.000000.json' (2025-03-04T10-00-00.000000); the "
        "newest is kept. To keep both (the older shown as 'Qwen/Qwen2.5-1.5B (2)'), load with "
        '`runs="all"`.'
    ) in bench.notes
    both = read_files(files, runs="all")
    assert both.bench.models == ("Qwen/Qwen2.5-1.5B", "Qwen/Qwen2.5-1.5B (2)")
    assert notes_with(both.bench.notes, "is shown as 'Qwen/Qwen2.5-1.5B (2)' (runs='all' keeps "
                      "every run)")  # fmt: skip
    assert {r.model for r in both.meta.runs} == set(both.bench.models)
    with pytest.raises(InvalidArgument, match="runs"):
        read_files(files, runs="oldest")  # type: ignore[arg-type]


def test_two_runs_without_run_times_are_both_kept_with_the_true_reason() -> None:
    files = [(n.replace("results_2025", "results-copy-").replace("T", "_"), b) for n, b in
             _two_runs(("2025-03-04T10-00-00.000000", "2025-03-01T09-00-00.000000"))]  # fmt: skip
    bench = read_files(files).bench
    assert len(bench.models) == 2
    assert notes_with(bench.notes, "(the file names carry no run time, so the newer run cannot "
                      "be told; remove one file to keep one run)")  # fmt: skip


def test_cli_runs_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, data in _two_runs(("2025-03-04T10-00-00.000000", "2025-03-01T09-00-00.000000")):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(data)
    assert main(["leaderboard", str(tmp_path), "--reps", "200", "--json"]) == 0
    out = capsys.readouterr()
    models = {r["model"] for r in json.loads(out.out)["rows"]}
    assert models == {"Qwen/Qwen2.5-1.5B"} and "the newest is kept" in out.err
    assert main(["leaderboard", str(tmp_path), "--reps", "200", "--json", "--runs", "all"]) == 0
    models = {r["model"] for r in json.loads(capsys.readouterr().out)["rows"]}
    assert models == {"Qwen/Qwen2.5-1.5B", "Qwen/Qwen2.5-1.5B (2)"}


# ---- names equal after Unicode normalization or confusable -------------------------------------
def _long(model: str, tasks: list[str]) -> bytes:
    rows = [(model, t, "all", 100, 60 + j) for j, t in enumerate(tasks)]
    return (
        pd.DataFrame(rows, columns=["model", "task", "category", "n", "correct"])
        .to_csv(index=False)
        .encode()
    )


def test_nfd_and_nfc_names_are_one_model_with_a_note() -> None:
    nfc = unicodedata.normalize("NFC", "Café-7B")
    nfd = unicodedata.normalize("NFD", "Café-7B")
    assert nfc != nfd
    bench = read_files([("a.csv", _long(nfc, ["t1", "t2"])), ("b.csv", _long(nfd, ["t3"]))]).bench
    assert bench.models == (nfc,) and not np.isnan(bench.estimate).any()
    assert (
        f"model name '{nfc}' is written with combining characters (Unicode NFD) in 'b.csv'; it "
        f"is read in composed form (NFC), so it is the same model as '{nfc}' written composed. To "
        "keep them apart, rename one in its file."
    ) in bench.notes


def test_both_unicode_forms_in_one_file_stay_two_models_labelled_apart() -> None:
    nfc, nfd = "Café-7B", unicodedata.normalize("NFD", "Café-7B")
    csv = _long(nfd, ["t1", "t2"]) + _long(nfc, ["t1", "t2"]).split(b"\n", 1)[1]
    bench = read_files([("both.csv", csv)]).bench
    assert bench.models == (f"{nfc} (NFD)", nfc)
    assert (
        f"model names '{nfc}' and '{nfd}' in 'both.csv' differ only in Unicode form (the second "
        f"is written with combining characters, NFD): kept as two models, the second shown as "
        f"'{nfc} (NFD)'. If they are one model, spell them the same in the file."
    ) in bench.notes


def test_confusable_names_stay_two_models_and_are_named_apart() -> None:
    latin, cyrillic = "gpt-4", "g\u0440t-4"
    assert skeleton(latin) == skeleton(cyrillic) and latin != cyrillic
    bench = read_files([("a.csv", _long(latin, ["t1"])), ("b.csv", _long(cyrillic, ["t1"]))]).bench
    assert set(bench.models) == {latin, cyrillic}
    assert (
        f"2 model names look the same but are different text: '{latin}' (plain ASCII); "
        f"'{cyrillic}' (has 'р' U+0440 CYRILLIC SMALL LETTER ER). They are kept as different "
        "models; if they are one model, correct the name in its file (or the model column) so "
        "both are spelled the same."
    ) in bench.notes
    assert confusable_notes(["gpt-4", "gpt-4o", "Gpt-4"]) == []  # different looks: no note


# ---- a metric value that is not a number -------------------------------------------------------
@pytest.mark.parametrize(("value", "shown"), [(float("nan"), "NaN"), (None, "null"),
                                              ("N/A", '"N/A"')])  # fmt: skip
def test_a_metric_that_is_not_a_number_is_skipped_with_the_true_reason(
    value: object, shown: str
) -> None:
    obj = json.loads(QWEN.read_text())
    obj["results"]["arc_easy"]["acc,none"] = value
    other = next(p for p in V04.glob("*.json") if p != QWEN)
    loaded = read_files([(QWEN.name, json.dumps(obj).encode()), (other.name, other.read_bytes())])
    bench = loaded.bench
    (note,) = notes_with(bench.notes, "is not a number")
    assert note == (
        f"{QWEN.name}: 1 task skipped — acc is not a number: 'arc_easy' (acc = {shown}); left out "
        "of this model's scores, so its overall averages the other tasks. To score them, re-run "
        "the tasks, or choose another metric the file has (`metric=`)."
    )
    assert not notes_with(bench.notes, "its metric is acc_norm")  # the old, wrong reason
    i, j = bench.models.index(obj["model_name"]), bench.tasks.index("arc_easy")
    assert np.isnan(bench.estimate[i, j]) and not np.isnan(bench.estimate[1 - i, j])


def test_a_file_whose_metric_is_never_a_number_says_so() -> None:
    obj = json.loads(QWEN.read_text())
    for entry in obj["results"].values():
        if "acc,none" in entry:
            entry["acc,none"] = float("nan")
    with pytest.raises(MissingMetric, match="no task in this file has a number for 'acc'"):
        read_files([(QWEN.name, json.dumps(obj).encode())])


def test_data_page_keeps_every_run_on_request(make_app) -> None:
    from conftest import page_path

    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    files = [(n, b, "application/json") for n, b in
             _two_runs(("2025-03-04T10-00-00.000000", "2025-03-01T09-00-00.000000"))]  # fmt: skip
    at.file_uploader(key="uploader").set_value(files).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.metric[0].value == "1"  # one model: the newest run
    at.toggle(key="upload_all_runs").set_value(True).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.metric[0].value == "2"  # both runs


def test_sample_files_named_by_a_results_file_that_took_its_name_from_the_folder() -> None:
    folder = REAL / "samples" / "pr2236_asdiv_llama3-8b-instruct"
    results = json.loads(next(folder.glob("results_*.json")).read_text())
    results["config"]["model_args"] = "pretrained=./ckpt"
    results.pop("model_name", None)
    files = [
        (f"my-llama/{p.name}", json.dumps(results).encode() if p.suffix == ".json" else
         p.read_bytes())
        for p in folder.iterdir()
    ]  # fmt: skip
    bench = read_files(files).bench
    assert bench.kind == "items" and bench.models == ("my-llama",)
    assert notes_with(bench.notes, "model name 'my-llama' taken from the folder name (its "
                      "pretrained= is a local path ('./ckpt'), not a name")  # fmt: skip


def test_inspect_logs_without_scores_or_samples_are_skipped_with_the_true_reason() -> None:
    """Real inspect_ai logs in one folder: a JSON log kept without samples (an LLM-judged
    simpleqa run) once failed the whole folder, and an unscored `.eval` log was skipped as having
    "no score of the default metric (lm-eval: acc)"; each is now skipped for what it lacks."""
    eee = Path(__file__).parents[2] / "fixtures" / "every_eval_ever" / "inspect_json"
    unscored = next((REAL.parent / "inspect_ai" / "eval_zip").glob("*_popularity_dPiJ*.eval"))
    loaded = read_paths([eee, unscored])
    assert set(loaded.bench.models) == {"ollama/qwen2.5:0.5b", "anthropic/claude-sonnet-4-0",
                                        "openai/azure/gpt-4o-mini"}  # fmt: skip
    (no_samples,) = notes_with(loaded.bench.notes, "1 file skipped — no samples in them: ")
    assert "data_with_llm_scoring.json.\n" in no_samples
    (no_scores,) = notes_with(loaded.bench.notes, "1 file skipped — no scores on their samples: ")
    assert f"{unscored.name}.\n" in no_scores
    assert not notes_with(loaded.bench.notes, "default metric")
    with pytest.raises(DataError, match="the log holds no samples"):  # alone: an error, as before
        read_paths([eee / "data_with_llm_scoring.json"])

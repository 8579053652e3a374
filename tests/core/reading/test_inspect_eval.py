"""inspect_ai ``.eval`` logs and repeated answers per item (issue 26).

Real logs (tests/fixtures/real/inspect_ai/eval_zip, deflate) and logs written by inspect_ai's
own ``write_eval_log(..., format="eval")`` (Zstandard members, ZIP method 93), checked against
``inspect_ai.log.read_eval_log`` sample by sample and epoch by epoch; epochs resampled with their
item (clustered bootstrap); damaged logs exit 2 naming the file and the member.
"""

from __future__ import annotations

import io
import json
import pickle
import subprocess
import sys
import zipfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from eval_logs import binary_values, repack, write_log

from benchuq.cli.main import main
from benchuq.core.data import DataError
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.reading import eval_zip
from benchuq.core.reading.items import items_benchmark
from benchuq.core.reading.loaders import load_files, load_path, read_files, read_paths
from benchuq.core.summaries import group_scores, percentile_interval

inspect_log = pytest.importorskip("inspect_ai.log")
inspect_scorer = pytest.importorskip("inspect_ai.scorer")

REAL = Path(__file__).parents[2] / "fixtures" / "real" / "inspect_ai"
EVAL_DIR = REAL / "eval_zip"
UNSCORED = EVAL_DIR / "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
SCORED = sorted(p for p in EVAL_DIR.glob("*.eval") if p != UNSCORED)
JSON_LOG = next(REAL.glob("*.json"))
TO_FLOAT = inspect_scorer.value_to_float()


def reference(path: Path, scorer: str | None = None) -> dict[str, list[float]]:
    """Item -> its answers' scores (every epoch), by inspect_ai's own reader and mapping."""
    log = inspect_log.read_eval_log(str(path))
    first = scorer or log.results.scores[0].name
    out: dict[str, list[float]] = defaultdict(list)
    for s in log.samples:
        if s.error is None and s.limit is None:
            out[str(s.id)].append(TO_FLOAT(s.scores[first].value))
    return dict(out)


def per_item(bench, model: str | None = None, task: str | None = None) -> dict:
    """Item -> (score, answers, mean square) of one model on one task."""
    i = bench.models.index(model) if model else 0
    it = bench.item_tasks[bench.tasks.index(task) if task else 0]
    scores, counts = it.scores[i], it.answer_counts[i]
    sq = it.answer_sq[i] if it.answer_sq is not None else scores**2
    return {
        name: (scores[k], int(counts[k]), sq[k])
        for k, name in enumerate(it.items)
        if not np.isnan(scores[k])
    }


def assert_matches(got: dict, want: dict[str, list[float]]) -> None:
    assert set(got) == set(want)
    for item, answers in want.items():
        score, count, sq = got[item]
        assert count == len(answers)
        assert score == pytest.approx(np.mean(answers))
        assert sq == pytest.approx(np.mean(np.square(answers)))


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ---- real logs ---------------------------------------------------------------------------------
@pytest.mark.parametrize("path", [*SCORED, JSON_LOG], ids=lambda p: p.name[-40:])
def test_real_logs_equal_read_eval_log(path: Path) -> None:
    bench = load_path(path)
    log = inspect_log.read_eval_log(str(path), header_only=True)
    assert bench.models == (log.eval.model,) and bench.tasks == (log.eval.task,)
    assert_matches(per_item(bench), reference(path))


def test_the_real_log_without_scores_exits_2_saying_so(capsys) -> None:
    code, out, err = cli(["leaderboard", str(UNSCORED)], capsys)
    assert code == 2 and not out
    assert UNSCORED.name in err and "member 'summaries.json'" in err
    assert "carry no scores" in err and "Traceback" not in err


def test_real_logs_in_a_folder_a_zip_a_glob_and_with_a_json_log(tmp_path, capsys) -> None:
    folder = load_path(EVAL_DIR)
    assert "openai/gpt-4o-mini" in folder.models and "inspect_evals/mmlu_0_shot" in folder.tasks
    assert any(  # the unscored log, with the true reason (was "no score of the default metric")
        n.startswith(f"1 file skipped — no scores on their samples: {UNSCORED.name}.")
        for n in folder.notes
    )
    archive = tmp_path / "logs.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for p in [*SCORED, JSON_LOG]:
            z.write(p, f"logs/{p.name}")
        z.writestr("logs/extra.csv", "model,task,item,score\nother,popularity,1,1\n")
    zipped = load_path(archive)
    assert {"other", "openai/gpt-4o-mini", "ollama/llama3.1"} <= set(zipped.models)
    assert "security_guide" in zipped.tasks
    globbed = read_paths([str(EVAL_DIR / "log_*.eval"), str(JSON_LOG)]).bench
    assert len(globbed.models) == 4
    code, out, _ = cli(["leaderboard", str(EVAL_DIR / "log_streaming.eval"), "--json"], capsys)
    assert code == 0
    (row,) = [r for r in json.loads(out)["rows"] if r["group"] == "overall"]
    assert (row["n_items"], row["n_answers"]) == (2, 4)  # 2 samples x 2 epochs


def test_upload_of_eval_bytes_with_other_files() -> None:
    files = [(p.name, p.read_bytes()) for p in SCORED[:3]] + [("README.md", b"# logs\n")]
    loaded = read_files(files)
    assert len(loaded.bench.models) == 3
    assert any(r.metric == "match" and r.harness.startswith("inspect_ai") for r in loaded.meta.runs)
    assert "match" in loaded.meta.metrics
    one = load_files([(SCORED[0].name, SCORED[0].read_bytes())])
    assert one.models and not any("skipped" in n for n in one.notes)


# ---- logs written by inspect_ai: several models, tasks and epochs -------------------------------
MODELS = ("lab/alpha", "lab/beta", "lab/gamma")
TASKS = {"arith": 40, "trivia": 30}
EPOCHS = 3


@pytest.fixture(scope="module")
def epoch_folder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """3 models x 2 tasks, 3 epochs, within-item correlation 0.6; one log re-packed with
    deflate (the rest as inspect_ai writes them: Zstandard)."""
    root = tmp_path_factory.mktemp("epochs")
    rng = np.random.default_rng(26)
    truth = {}
    for m, model in enumerate(MODELS):
        for task, n in TASKS.items():
            values, x = binary_values(rng, n, EPOCHS, mean=0.5 + 0.1 * m)
            write_log(
                root / f"{model.split('/')[1]}_{task}.eval",
                model=model,
                task=task,
                values={"match": values},
            )
            truth[(model, task)] = x
    first = root / "alpha_arith.eval"
    repack(first, first)  # deflate members
    return root, truth


def test_inspect_writes_zstandard_and_the_repack_deflate(epoch_folder) -> None:
    root, _ = epoch_folder
    methods = {
        p.name: {i.compress_type for i in zipfile.ZipFile(p).infolist()}
        for p in root.glob("*.eval")
    }
    assert methods.pop("alpha_arith.eval") == {zipfile.ZIP_DEFLATED}
    assert all(m == {eval_zip.ZSTD} for m in methods.values())


def test_written_logs_equal_read_eval_log_and_means_are_means_of_items(epoch_folder) -> None:
    root, truth = epoch_folder
    bench = load_path(root)
    assert set(bench.models) == set(MODELS) and set(bench.tasks) == set(TASKS)
    for (model, task), x in truth.items():
        path = root / f"{model.split('/')[1]}_{task}.eval"
        got = per_item(bench, model, task)
        assert_matches(got, reference(path))
        j, i = bench.tasks.index(task), bench.models.index(model)
        assert bench.estimate[i, j] == pytest.approx(x.mean(axis=1).mean())  # mean of item means
        assert bench.item_tasks[j].answers is not None
    assert any("3 epochs: each sample is one item" in n for n in bench.notes)


def test_intervals_follow_the_clustered_not_the_naive_standard_error(epoch_folder) -> None:
    root, truth = epoch_folder
    bench = load_path(root)
    draws = bootstrap(bench, reps=4000, seed=1)
    ratios_clustered, ratios_naive = [], []
    for (model, task), x in truth.items():
        i, j = bench.models.index(model), bench.tasks.index(task)
        sd = draws.values[:, i, j].std()
        means = x.mean(axis=1)
        n = len(means)
        # item = cluster; the Dirichlet draws (METHODS 2, #29) spread as the plug-in SE times
        # sqrt(n / (n - 2)) (concentration nu = n - 3), plus a pseudo-item of weight 1/(T n)
        clustered = means.std() / np.sqrt(n) * np.sqrt(n / (n - 2))
        naive = x.std() / np.sqrt(x.size)  # every answer as an independent item
        ratios_clustered.append(sd / clustered)
        ratios_naive.append(sd / naive)
    # Monte Carlo error of a bootstrap SD with 4000 draws is about 1.1%
    assert np.allclose(ratios_clustered, 1, atol=0.04), ratios_clustered
    assert min(ratios_naive) > 1.2, ratios_naive  # design effect 1 + 2 * 0.6 = 2.2 -> 1.48


def test_coverage_with_three_epochs_and_within_item_correlation() -> None:
    """Seeded simulation: 95% percentile intervals of a model's mean with 3 epochs per item and
    within-item correlation 0.6 cover the true mean >= 93% (96% here; the same answers read as
    independent items cover 89%)."""
    rng = np.random.default_rng(2026)
    n, epochs, sims, truth = 40, 3, 300, 0.6
    covered = 0
    for _ in range(sims):
        _, x = binary_values(rng, n, epochs, mean=truth, icc=0.6)
        frame = {
            "model": ["m"] * x.size,
            "task": ["t"] * x.size,
            "item": np.repeat(np.arange(n), epochs).astype(str),
            "epoch": np.tile(np.arange(1, epochs + 1), n),
            "score": x.ravel(),
            "row": np.arange(x.size) + 1,
            "file": ["sim"] * x.size,
        }
        import pandas as pd

        bench = items_benchmark(pd.DataFrame(frame), name="sim")
        interval = percentile_interval(
            group_scores(bootstrap(bench, reps=400, seed=int(rng.integers(2**31)))), level=0.95
        )
        covered += bool(interval.low[0] <= truth <= interval.high[0])
    assert covered / sims >= 0.93, covered / sims


# ---- Zstandard without inspect_ai, and samples/ never read --------------------------------------
def test_zstandard_members_are_read_without_inspect_ai_patches(epoch_folder) -> None:
    """inspect_ai patches zipfile for Zstandard when imported; a fresh interpreter shows that
    benchuq reads method 93 itself."""
    root, _ = epoch_folder
    code = (
        "import sys; from benchuq.core.reading import load_path; "
        f"b = load_path({str(root / 'beta_trivia.eval')!r}); "
        "assert 'inspect_ai' not in sys.modules and 'zipfile_zstd' not in sys.modules; "
        "print(b.models[0], b.item_tasks[0].answers.max())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["lab/beta", "3"]


def test_samples_are_never_opened_when_summaries_exist(epoch_folder, tmp_path, monkeypatch):
    root, _ = epoch_folder
    src = root / "gamma_arith.eval"
    opened: list[str] = []
    real = eval_zip.member_bytes

    def spy(source, archive, member):
        opened.append(member)
        return real(source, archive, member)

    monkeypatch.setattr(eval_zip, "member_bytes", spy)
    before = load_path(src)
    assert opened == ["header.json", "summaries.json"]
    monkeypatch.undo()
    names = zipfile.ZipFile(io.BytesIO(repack(src, tmp_path / "c.eval").read_bytes())).namelist()
    garbage = {n: b"\x00not json" for n in names if n.startswith("samples/")}
    corrupted = repack(src, tmp_path / "corrupt.eval", replace=garbage)
    assert load_path(corrupted).item_tasks[0].answers is not None
    assert np.array_equal(load_path(corrupted).estimate, before.estimate)


# ---- layouts: journal, sample files, chunked samples, partial logs -----------------------------
def test_journal_samples_and_chunked_layouts_give_the_same_scores(epoch_folder, tmp_path):
    root, _ = epoch_folder
    src = root / "beta_arith.eval"
    want = load_path(src)
    journal = repack(src, tmp_path / "journal.eval", drop=lambda n: n == "summaries.json")
    got = load_path(journal)
    assert np.array_equal(got.estimate, want.estimate)
    assert any("journal of a log still being written" in n for n in got.notes)
    samples = repack(
        src, tmp_path / "samples.eval", drop=lambda n: n == "summaries.json" or "summaries/" in n
    )
    got = load_path(samples)
    assert np.array_equal(got.estimate, want.estimate)
    assert any("scores read from its sample files" in n for n in got.notes)
    chunked = repack(
        samples,
        tmp_path / "chunked.eval",
        rename=lambda n: n[:-5] + "/sample.json" if n.startswith("samples/") else n,
    )
    assert any(n.endswith("_epoch_3/sample.json") for n in zipfile.ZipFile(chunked).namelist())
    assert np.array_equal(load_path(chunked).estimate, want.estimate)
    started = repack(
        journal,
        tmp_path / "started.eval",
        drop=lambda n: n == "header.json",
    )
    got = load_path(started)
    assert any(
        n.startswith("the eval's status is 'started'") and "120 samples" in n for n in got.notes
    )


def test_a_cancelled_log_is_read_with_a_note(tmp_path) -> None:
    path = write_log(
        tmp_path / "c.eval",
        model="m",
        task="t",
        values={"match": [["C"], ["I"], ["C"]]},
        status="cancelled",
    )
    bench = load_path(path)
    assert bench.estimate[0, 0] == pytest.approx(2 / 3)
    assert (
        "the eval's status is 'cancelled', not 'success' (a partial log): it holds 3 samples"
        in (" ".join(bench.notes))
    )


# ---- scores: errors and limits, several scorers, named values ----------------------------------
def test_errored_and_limited_samples_left_out_or_counted_wrong(tmp_path, capsys) -> None:
    path = write_log(
        tmp_path / "e.eval",
        model="m",
        task="t",
        values={"match": [["C", "C"], ["C", "I"], ["I", "C"]]},
        errors=[(0, 1)],
        limits=[(2, 0)],
    )
    bench = load_path(path)
    assert per_item(bench) == {
        "1": (1.0, 1, 1.0),
        "2": (0.5, 2, 0.5),
        "3": (1.0, 1, 1.0),
    }
    assert any("2 samples that errored or hit a limit left out" in n for n in bench.notes)
    assert "task 't': the number of answers (epochs) per item differs (m 1 to 2)" in (
        " ".join(bench.notes)
    )
    assert_matches(per_item(bench), reference(path))
    wrong = load_path(path, failed="wrong")
    assert per_item(wrong)["1"] == (0.5, 2, 0.5) and per_item(wrong)["3"] == (0.5, 2, 0.5)
    code, out, _ = cli(["leaderboard", str(path), "--failed", "wrong", "--json"], capsys)
    assert code == 0
    row = next(r for r in json.loads(out)["rows"] if r["group"] == "overall")
    assert row["estimate"] == pytest.approx(0.5) and row["n_answers"] == 6


def test_several_scorers_and_named_values(tmp_path, capsys) -> None:
    values = {
        "exact": [["I"], ["I"], ["C"]],
        "judge": [
            [{"helpful": 1.0, "safe": 0.0}],
            [{"helpful": 0.5, "safe": 1.0}],
            [{"helpful": 0.0, "safe": 1.0}],
        ],
    }
    path = write_log(tmp_path / "s.eval", model="m", task="t", values=values)
    loaded = read_paths([path])
    assert loaded.bench.estimate[0, 0] == pytest.approx(1 / 3)  # the first of results.scores
    assert any("scorer 'exact' used; the log also has judge" in n for n in loaded.bench.notes)
    assert set(loaded.meta.metrics) >= {"exact", "judge"}
    judge = read_paths([path], metric="judge")
    assert judge.bench.estimate[0, 0] == pytest.approx(0.5)  # first key: helpful
    assert any("'helpful' used of helpful, safe" in n for n in judge.bench.notes)
    assert {"judge/helpful", "judge/safe"} <= set(judge.meta.metrics)
    assert load_path(path, metric="judge/safe").estimate[0, 0] == pytest.approx(2 / 3)
    code, _, err = cli(["leaderboard", str(path), "--metric", "nope"], capsys)
    assert code == 2 and "no scorer 'nope'" in err and "exact, judge" in err


# ---- damaged logs: exit 2 naming the file and the member ---------------------------------------
def _damaged(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    good = SCORED[0].read_bytes()
    out = {}

    def put(name: str, data: bytes, member: str) -> None:
        path = tmp_path / f"{name}.eval"
        path.write_bytes(data)
        out[name] = (path, member)

    put("truncated", good[: len(good) // 2], "header.json")
    put("empty", b"", "header.json")
    put("not a zip", b"hello, this is text\n" * 10, "header.json")
    plain = io.BytesIO()
    with zipfile.ZipFile(plain, "w") as z:
        z.writestr("notes.txt", "a zip, not a log")
    put("a zip that is not a log", plain.getvalue(), "header.json")
    repack(SCORED[0], tmp_path / "bad_header.eval", replace={"header.json": b"{not json"})
    out["header not JSON"] = (tmp_path / "bad_header.eval", "header.json")
    repack(SCORED[0], tmp_path / "bad_summaries.eval", replace={"summaries.json": b"[1, 2"})
    out["summaries not JSON"] = (tmp_path / "bad_summaries.eval", "summaries.json")
    repack(SCORED[0], tmp_path / "crc.eval", compression=zipfile.ZIP_STORED)
    raw = bytearray((tmp_path / "crc.eval").read_bytes())
    at = raw.find(b'"status"')
    raw[at + 1] = ord("S")  # a stored member's bytes changed: the checksum no longer matches
    (tmp_path / "crc.eval").write_bytes(bytes(raw))
    out["bad checksum"] = (tmp_path / "crc.eval", "header.json")
    return out


def test_damaged_logs_exit_2_naming_file_and_member(tmp_path, capsys) -> None:
    for case, (path, member) in _damaged(tmp_path).items():
        code, out, err = cli(["leaderboard", str(path)], capsys)
        assert code == 2 and not out, case
        assert path.name in err and f"'{member}'" in err, (case, err)
        assert "Traceback" not in err and "How to fix" in err, case
        with pytest.raises(DataError):  # the upload path too, and in a folder of good logs
            load_files([(path.name, path.read_bytes()), (SCORED[0].name, SCORED[0].read_bytes())])


# ---- repeated answers in tables and in the data model -------------------------------------------
def test_an_attempt_column_makes_repeated_answers(tmp_path) -> None:
    table = "model,task,item,attempt,score\n" + "".join(
        f"{m},t,{i},{a},{(i + a + k) % 2}\n"
        for k, m in enumerate("ab")
        for i in range(4)
        for a in (1, 2, 3)
    )
    path = tmp_path / "answers.csv"
    path.write_text(table)
    bench = load_path(path)
    it = bench.item_tasks[0]
    assert it.answers is not None and (it.answers == 3).all()
    assert bench.estimate[:, 0] == pytest.approx(it.scores.mean(axis=1))
    again = pickle.loads(pickle.dumps(bench))
    assert again == bench and np.array_equal(again.item_tasks[0].answers, it.answers)
    assert bench.subset(models=["b"]).item_tasks[0].answers.shape == (1, 4)
    single = tmp_path / "single.csv"
    single.write_text(
        "model,task,item,score\n"
        + "".join(f"{m},t,{i},{it.scores[k, i]}\n" for k, m in enumerate("ab") for i in range(4))
    )
    assert load_path(single).content_hash != bench.content_hash  # answers are in the hash
    path.write_text(table + "a,t,0,1,1\n")
    with pytest.raises(DataError, match="epoch '1' appears more than once"):
        load_path(path)


def test_lm_eval_repeats_are_named_in_a_note() -> None:
    """lm-eval reduces a document's repeats to one scored answer (its filter): said in a note."""
    path = REAL.parent / "lm_eval" / "results_v04"
    results = next(path.glob("Qwen*.json"))
    obj = json.loads(results.read_text())
    task = next(iter(obj["configs"]))
    obj["configs"][task]["repeats"] = 8
    bench = load_files([("r.json", json.dumps(obj).encode())])
    assert any(n.startswith(f"1 task ran with repeats: {task} (8).") for n in bench.notes)
    assert not any("repeats" in n for n in load_files([("r.json", results.read_bytes())]).notes)


def test_multi_frame_zstandard_members(tmp_path, monkeypatch) -> None:
    """inspect_ai splits large members into several Zstandard frames (every 200 MiB of input);
    with a small frame size the same writer gives several frames per member here."""
    zipfile_patch = pytest.importorskip("inspect_ai._util.zipfile")
    monkeypatch.setattr(zipfile_patch, "_MAX_INPUT_PER_FRAME", 256)
    rng = np.random.default_rng(5)
    values, x = binary_values(rng, 30, 2)
    path = write_log(tmp_path / "frames.eval", model="m", task="t", values={"match": values})
    source = eval_zip.Source(path.name, path.read_bytes())
    archive = eval_zip.open_archive(source)
    info = archive.getinfo("summaries.json")
    assert info.compress_type == eval_zip.ZSTD
    raw = bytes(eval_zip._raw(source.data, info))
    assert raw.count(b"\x28\xb5\x2f\xfd") > 2  # zstd frame magic: several frames
    bench = load_path(path)
    assert bench.estimate[0, 0] == pytest.approx(x.mean(axis=1).mean())
    assert_matches(per_item(bench), reference(path))


def test_models_with_different_numbers_of_epochs_get_a_note(tmp_path, capsys) -> None:
    rows = [f"a,t,{i},{e},{(i * e) % 2}" for i in range(5) for e in (1, 2, 3)]
    rows += [f"b,t,{i},1,{i % 2}" for i in range(5)]
    path = tmp_path / "mixed.csv"
    path.write_text("model,task,item,epoch,score\n" + "\n".join(rows) + "\n")
    bench = load_path(path)
    assert any(n.startswith("task 't': the number of answers (epochs) per item differs (a 3, b 1)")
               for n in bench.notes)  # fmt: skip
    code, out, _ = cli(["leaderboard", str(path), "--json", "--reps", "200"], capsys)
    rows_json = {r["model"]: r for r in json.loads(out)["rows"] if r["group"] == "overall"}
    assert code == 0
    assert (rows_json["a"]["n_items"], rows_json["a"]["n_answers"]) == (5, 15)
    assert (rows_json["b"]["n_items"], rows_json["b"]["n_answers"]) == (5, 5)

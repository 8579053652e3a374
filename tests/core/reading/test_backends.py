"""Out-of-core backends (issue 18): DuckDB gives the in-memory draws from aggregated patterns;
the Dask backend gives bit-identical draws on 1, 2 and 4 worker processes."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchuq.core.data import Benchmark, DataError
from benchuq.core.draws import Draws
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.reading import backends, load_path
from benchuq.core.reading.backends import choose_backend, open_data, parquet_files
from benchuq.core.reading.backends.dask_backend import open_dask


@pytest.fixture(autouse=True)
def _plain_main(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dask's worker processes start by importing the parent's ``__main__``: an AppTest earlier in
    the session leaves the app script there (streamlit runs it as ``__main__``), and a worker
    would run the app and fail to start. The workers get an empty ``__main__`` instead."""
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))


def write_shards(folder: Path, seed: int = 0, models: int = 5, items: int = 240) -> Path:
    """Binary item scores of correlated models with some missing, shuffled into 3 shards."""
    rng = np.random.default_rng(seed)
    folder.mkdir()
    rows = []
    for k in range(items):
        easy = rng.random()
        for i in range(models):
            if (i + k) % 11 == 0:
                continue  # a missing score
            rows.append((f"m{i}", f"t{k % 3}", f"q{k}", float(rng.random() < 0.3 * easy + 0.1 * i)))
    frame = pd.DataFrame(rows, columns=["model", "task", "item", "score"])
    shuffled = frame.sample(frac=1, random_state=seed)
    for s in range(3):
        shuffled.iloc[s::3].to_parquet(folder / f"part-{s}.parquet")
    return folder


def _by_name(draws: Draws, bench: Benchmark | Draws) -> np.ndarray:
    mi = [draws.models.index(m) for m in bench.models]
    tj = [draws.tasks.index(t) for t in bench.tasks]
    return draws.values[:, mi][:, :, tj]


@pytest.mark.parametrize("passes", [1, 3])
def test_duckdb_draws_equal_the_in_memory_draws(
    tmp_path: Path, passes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In one pass, and in three passes over the items (as when the items outgrow DuckDB's
    memory limit): the in-memory draws."""
    from benchuq.core.reading.backends import duckdb_backend

    folder = write_shards(tmp_path / "shards")
    memory = bootstrap(load_path(folder), reps=300, seed=4)
    monkeypatch.setattr(duckdb_backend, "_passes", lambda con, n: passes)
    source = open_data(str(folder), "duckdb")
    draws = source.draws(300, 4)
    assert source.bench.models == tuple(sorted(memory.models))
    assert np.array_equal(_by_name(memory, source.bench), draws.values)
    mem = load_path(folder)
    mi = [mem.models.index(m) for m in source.bench.models]
    tj = [mem.tasks.index(t) for t in source.bench.tasks]
    assert np.array_equal(mem.estimate[np.ix_(mi, tj)], source.bench.estimate)
    assert np.array_equal(mem.n[np.ix_(mi, tj)], source.bench.n)
    assert f"{passes} item bucket(s)" in source.bench.notes[-1]


def test_out_of_core_under_a_small_memory_budget_gives_the_in_memory_draws(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """10^5 rows (10 models, 10^4 items, some missing, items split over shards) under a memory
    budget forced small: files grouped, a file too large alone read in passes, items put
    together across groups in several buckets; the draws are the in-memory path's."""
    from benchuq.core.reading.backends import duckdb_backend

    rng = np.random.default_rng(3)
    items, models = 10_000, 10
    frame = pd.DataFrame(
        {
            "model": np.repeat([f"m{i}" for i in range(models)], items),
            "task": np.tile([f" t{k % 4}" for k in range(items)], models),  # trimmed alike
            "item": np.tile([f"q{k}" for k in range(items)], models),
            "score": (
                rng.random(models * items) < np.repeat(np.linspace(0.3, 0.8, models), items)
            ).astype(np.int8),
        }
    )
    frame = frame[rng.random(len(frame)) > 0.02]  # missing scores
    folder = tmp_path / "shards"
    folder.mkdir()
    cuts = [0, 50_000, 70_000, 85_000, len(frame)]  # one large shard, then smaller ones
    order = rng.permutation(len(frame))[: len(frame)]  # rows shuffled: items cross shards
    for s in range(4):
        frame.iloc[np.sort(order[cuts[s] : cuts[s + 1]])].to_parquet(folder / f"p{s}.parquet")
    memory = bootstrap(load_path(folder), reps=200, seed=5)
    monkeypatch.setattr(duckdb_backend, "BYTES_PER_ITEM", 40_000)  # 4 buckets at 100 MB
    monkeypatch.setattr(duckdb_backend, "GROUP_ITEMS", 3_000)
    source = open_data(str(folder), "duckdb", memory_limit="100MB")
    note = source.bench.notes[-1]
    assert "(6 read(s) of file groups, 4 item bucket(s))" in note, note  # the first in 3
    assert np.array_equal(_by_name(memory, source.bench), source.draws(200, 5).values)


def test_duckdb_writes_no_progress_bar_to_stdout(tmp_path: Path) -> None:
    """DuckDB's progress bar (queries over 2 s) goes to stdout, where the CLI writes its JSON."""
    from benchuq.core.reading.backends import duckdb_backend

    con = duckdb_backend._connect("100MB", str(tmp_path))
    assert con.execute("SELECT current_setting('enable_progress_bar')").fetchone() == (False,)


def test_duckdb_passes_follow_the_items_and_the_memory_limit() -> None:
    import duckdb

    from benchuq.core.reading.backends import duckdb_backend

    con = duckdb.connect()
    con.execute("SET memory_limit = '1GB'")  # DuckDB reports 953.6 MiB
    n = np.full((10, 4), 2_500_000)  # 10^7 items
    want = -(-(10**7) * duckdb_backend.BYTES_PER_ITEM // duckdb_backend._bytes("953.6 MiB"))
    assert duckdb_backend._passes(con, n) == want > 1
    assert duckdb_backend._passes(con, n[:, :1] // 1000) == 1
    assert duckdb_backend._bytes("4.6 GiB") == int(4.6 * 2**30)
    assert duckdb_backend._bytes("lots") == 0


@pytest.mark.parametrize("backend", ["duckdb", "dask"])
def test_backend_checks_name_the_file_and_row(
    tmp_path: Path, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bad values, an empty (trimmed) name and a score given twice (in two files, or twice in
    one model's run of rows) are refused alike."""
    from benchuq.core.reading.backends import dask_backend

    monkeypatch.setattr(dask_backend, "RUN_ROWS", 1)  # runs of 2 rows matched as model runs
    twice = tmp_path / "twice"
    twice.mkdir()
    pd.DataFrame(
        {"model": ["A", "A", "B", "B"], "task": "t", "item": ["1", "1"] * 2, "score": 1.0}
    ).to_parquet(twice / "a.parquet")
    with pytest.raises(DataError, match="more than once"):
        open_data(str(twice), backend)
    pd.DataFrame({"model": "A", "task": "t", "item": ["1", "2"], "score": [1.0, 0.5]}).to_parquet(
        tmp_path / "a.parquet"
    )
    with pytest.raises(DataError, match=r"a\.parquet.*row 3.*binary"):
        open_data(str(tmp_path), backend)
    dup = tmp_path / "dup"
    dup.mkdir()
    for name in ("a", "b"):
        pd.DataFrame({"model": "A", "task": "t", "item": ["1"], "score": [1.0]}).to_parquet(
            dup / f"{name}.parquet"
        )
    with pytest.raises(DataError, match="more than once"):
        open_data(str(dup), backend)
    pd.DataFrame({"model": "A", "task": " ", "item": ["1"], "score": [1.0]}).to_parquet(
        tmp_path / "a.parquet"
    )
    with pytest.raises(DataError, match=r"a\.parquet.*row 2.*empty"):
        open_data(str(tmp_path), backend)
    (tmp_path / "x.csv").write_text("model,task,item,score\n")
    with pytest.raises(DataError, match="Parquet shards only"):
        parquet_files(tmp_path / "x.csv")


def test_duckdb_is_chosen_when_the_rows_would_not_fit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_shards(tmp_path / "shards")
    assert choose_backend(str(folder)) == "memory"
    assert choose_backend(str(folder), backend="dask") == "dask"
    monkeypatch.setattr(backends, "_free_memory", lambda: 1000)
    assert choose_backend(str(folder)) == "duckdb"
    assert choose_backend("sample:toy") == "memory"


@pytest.mark.slow
def test_dask_draws_are_bit_identical_on_1_2_and_4_workers(tmp_path: Path) -> None:
    """LocalClusters of processes, 8 buckets: the counts of a pattern summed over buckets give
    the in-memory draws themselves (issue 32), whatever the number of workers."""
    folder = write_shards(tmp_path / "shards", models=4, items=300)
    files = parquet_files(folder)
    runs = {w: open_dask(files, workers=w, buckets=8).draws(400, 9) for w in (1, 2, 4)}
    assert np.array_equal(runs[1].values, runs[2].values)
    assert np.array_equal(runs[1].values, runs[4].values)
    memory = bootstrap(load_path(folder), reps=400, seed=9)
    assert np.array_equal(_by_name(memory, runs[1]), runs[1].values, equal_nan=True)
    here = open_dask(files).draws(400, 9)  # fits in memory, no cluster asked for: in-process
    assert np.array_equal(here.values, runs[1].values, equal_nan=True)


@pytest.mark.parametrize("layout", ["shuffled", "by model"])
def test_dask_pattern_counts_are_summed_over_buckets(
    tmp_path: Path, layout: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a cluster: whole files and partitions of 1 to 3 row groups, 1 to 16 buckets give
    the same per-task patterns and counts, which are those of the in-memory items; rows in model
    runs (per-model logs, their words added in place) and shuffled (keyed row by row) alike."""
    from benchuq.core.methods.bootstrap import _patterns
    from benchuq.core.reading.backends import dask_backend
    from benchuq.core.reading.backends.dask_backend import (
        bucket_patterns,
        partition_items,
        partitions,
        task_patterns,
    )

    folder = write_shards(tmp_path / "shards", models=5, items=240)
    if layout == "by model":  # each shard's rows model by model, items in the same order
        monkeypatch.setattr(dask_backend, "RUN_ROWS", 1)
        for f in parquet_files(folder):
            frame = pd.read_parquet(f)
            frame["k"] = frame["item"].str[1:].astype(int)
            frame.sort_values(["model", "k"]).drop(columns="k").to_parquet(
                f, row_group_size=40, index=False
            )
    files = parquet_files(folder)
    got = {}
    for target, buckets in ((10**6, 1), (1, 16), (100, 3)):
        if target < 10**6:  # row groups of a file apart (as for files over FILE_BYTES)
            monkeypatch.setattr(dask_backend, "FILE_BYTES", 0)
        parts = partitions(files, target)
        assert (len(parts) > len(files)) == (layout == "by model" and target < 10**6)
        split = [partition_items(p, buckets) for p in parts]
        got[target] = task_patterns(
            [bucket_patterns([s[b] for s in split]) for b in range(buckets)]
        )
    bench = load_path(folder)
    order = np.argsort(bench.models)
    for j, t in enumerate(sorted(bench.tasks)):
        states, counts = _patterns(bench.item_tasks[bench.tasks.index(t)].state, order)
        for target in got:
            assert np.array_equal(got[target][j][0], states[:, order])  # columns by name
            assert np.array_equal(got[target][j][1], counts)


def test_cli_backend_flag_gives_the_same_leaderboard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from benchuq.cli.main import main

    folder = write_shards(tmp_path / "shards")
    out = {}
    for backend in ("memory", "duckdb"):
        args = ["leaderboard", str(folder), "--backend", backend, "--reps", "200", "--json"]
        assert main(args) == 0
        out[backend] = json.loads(capsys.readouterr().out)
    assert out["memory"]["rows"] == out["duckdb"]["rows"]  # same models, same numbers
    assert main(["ranks", str(folder), "--backend", "dask", "--workers", "0"]) == 2
    assert "--workers 0" in capsys.readouterr().err
    # a task table or another format would be ignored out of core: refused, not dropped
    assert main(["ranks", str(folder), "--backend", "duckdb", "--tasks", "t.csv"]) == 2
    assert "without --tasks" in capsys.readouterr().err
    assert main(["ranks", str(folder), "--backend", "duckdb", "--format", "long"]) == 2


@pytest.mark.slow
def test_the_readme_cluster_recipe_gives_the_local_cluster_draws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's recipe as written (``dask scheduler``, ``dask worker ... --nworkers N
    --nthreads 1``, ``--backend dask --scheduler tcp://HOST:PORT``) on this machine: the same
    leaderboard as a LocalCluster of one worker."""
    import json
    import socket
    import subprocess

    from benchuq.cli.main import main

    readme = (Path(__file__).parents[3] / "README.md").read_text()
    assert "dask scheduler --port 8786" in readme
    assert "dask worker tcp://SCHEDULER:8786 --nworkers 4 --nthreads 1" in readme
    dask = [sys.executable, "-m", "dask"]  # the `dask` command of this interpreter (a venv
    # created with --system-site-packages has no `dask` script next to its python)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    folder = write_shards(tmp_path / "shards")
    common = ["leaderboard", str(folder), "--backend", "dask", "--reps", "200", "--json"]
    procs = [
        subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port)]),
        subprocess.Popen([*dask, "worker", address, "--nworkers", "2", "--nthreads", "1"]),
    ]
    try:
        from distributed import Client

        with Client(address, timeout=120) as client:
            client.wait_for_workers(2, timeout=120)
        assert main([*common, "--scheduler", address]) == 0
        remote = json.loads(capsys.readouterr().out)
    finally:
        for p in reversed(procs):
            p.terminate()
            p.wait(timeout=60)
    assert main([*common, "--workers", "1"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert remote["rows"] == local["rows"]

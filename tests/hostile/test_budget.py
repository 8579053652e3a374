"""Budgets (core/budget.py, dashboard/ledger.py): caps, per-request work, samplers that end,
caches bounded in bytes; in the CLI and the app."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import page_path

from benchuq.cli.main import main
from benchuq.core.budget import BudgetExceeded, Deadline, check_cells, check_pairs
from benchuq.core.methods.bayes import model as bayes
from benchuq.dashboard.ledger import ByteLedger, sizeof


@pytest.mark.parametrize(
    ("argv", "nearest"),
    [
        (["leaderboard", "sample:toy", "--reps", "100000000"], "--reps 20000"),
        (["bayes", "sample:toy", "--chains", "100000"], "--chains 16"),
        (["bayes", "sample:toy", "--draws", "100000000"], "--draws 20000"),
        (["bayes", "sample:toy", "--warmup", "100000000"], "--warmup 20000"),
        (["embeddings", "sample:toy", "--reps", "1"], "at least 50"),
    ],
)
def test_cli_caps_name_the_nearest_setting(argv, nearest, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert nearest in err and "Traceback" not in err


def test_work_budget_refuses_then_the_named_setting_runs(monkeypatch, capsys) -> None:
    monkeypatch.setenv("BENCHUQ_WORK_MB", "1")
    assert main(["leaderboard", "sample:vtab1k", "--reps", "2000", "--json"]) == 2
    err = capsys.readouterr().err
    assert "BENCHUQ_WORK_MB" in err
    most = int(err.split("use --reps ")[1].split()[0])
    assert 100 <= most < 2000
    assert main(["leaderboard", "sample:vtab1k", "--reps", str(most), "--json"]) == 0
    assert main(["leaderboard", "sample:vtab1k", "--reps", str(most + 1), "--json"]) == 2


def test_check_pairs_and_cells_messages() -> None:
    with pytest.raises(BudgetExceeded, match="select at most"):
        check_pairs(2000, 10_000)
    with pytest.raises(BudgetExceeded, match="fewer models or tasks"):
        check_cells(20_000, 100_000, 700)
    check_cells(2000, 20, 57)  # the MMLU sample fits


def test_slice_step_ends_with_a_message_when_no_point_is_found() -> None:
    rng = np.random.default_rng(0)
    x0 = np.zeros(3)

    def logf(x: np.ndarray) -> np.ndarray:
        return np.where(x == 0.0, 0.0, -np.inf)  # a slice of width zero: never hit

    with pytest.raises(BudgetExceeded, match="shrinkage steps"):
        bayes.slice_step(x0, logf(x0), logf, np.ones(3), rng, max_rounds=50)


def test_gibbs_stops_at_its_deadline() -> None:
    k, n = np.array([[5, 7]]), np.array([[10, 10]])
    with pytest.raises(BudgetExceeded, match="stopped after 0 s"):
        bayes.gibbs(
            k, n, n > 0, (bayes.ModelPrior(),), chains=2, draws=100, warmup=10, thin=1,
            rng=np.random.default_rng(0), deadline=Deadline("The sampler", 0.0),
        )  # fmt: skip


@pytest.mark.slow
def test_bayes_on_counts_of_1e15_ends_with_a_message(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("BENCHUQ_SAMPLER_SECONDS", "30")
    f = tmp_path / "big.csv"
    f.write_text(
        "model,task,n,correct\nA,t,1000000000000000,500000000000000\n"
        "B,t,1000000000000000,400000000000000\nC,t,10,5\n"
    )
    assert main(["bayes", str(f), "--draws", "200", "--warmup", "100", "--chains", "2"]) == 2
    assert "How to fix" in capsys.readouterr().err


def test_ledger_evicts_least_recently_used_over_budget() -> None:
    ledger, gone = ByteLedger(budget=100), []
    for key in "abc":
        ledger.use(key, 40, lambda k=key: gone.append(k))
    assert gone == ["a"] and ledger.total == 80
    ledger.use("b", 40, lambda: gone.append("b"))  # b is now the most recent
    ledger.use("d", 40, lambda: gone.append("d"))
    assert gone == ["a", "c"] and ledger.total == 80
    ledger.use("huge", 1000, lambda: None)  # the newest stays even over the budget
    assert len(ledger) == 1 and gone == ["a", "c", "b", "d"]


def test_sizeof_of_draws() -> None:
    from benchuq.core.methods.bootstrap import bootstrap
    from benchuq.core.reading.loaders import load_sample

    draws = bootstrap(load_sample("toy"), reps=200, seed=0)
    assert sizeof(draws) >= draws.values.nbytes > 0


def test_app_refuses_one_request_and_keeps_working(make_app, monkeypatch) -> None:
    """A request over the work budget is a message; the Data page and other sessions work."""
    from benchuq.dashboard import cache

    monkeypatch.setenv("BENCHUQ_WORK_MB", "0.5")
    big = make_app({"data": "sample:vtab1k", "reps": "20000"}).run()
    big.switch_page(page_path("leaderboard.py")).run()
    assert not big.exception
    assert any("BENCHUQ\\_WORK\\_MB" in e.value for e in big.error), [e.value for e in big.error]
    big.switch_page(page_path("data.py")).run()
    assert not big.exception and not big.error
    small = make_app({"data": "sample:vtab1k", "reps": "200"}).run()
    small.switch_page(page_path("leaderboard.py")).run()
    assert not small.exception and not small.error and small.get("plotly_chart")
    monkeypatch.setenv("BENCHUQ_WORK_MB", "1024")
    monkeypatch.setattr(cache.LEDGER, "budget", 1)  # every older entry goes
    for seed in ("1", "2"):
        at = make_app({"data": "sample:vtab1k", "reps": "200", "seed": seed}).run()
        assert not at.exception
    assert len(cache.LEDGER) == 1


def test_ledger_eviction_clears_streamlit_cache_entries(monkeypatch) -> None:
    """Evicted draws are really gone from st.cache_resource: asking again recomputes them."""
    from benchuq.core.reading.loaders import load_sample
    from benchuq.dashboard import cache

    bench, calls = load_sample("toy"), []
    method = cache.METHODS["bootstrap"]

    def counting(b, reps, seed):
        calls.append(seed)
        return method.run(b, reps, seed)

    monkeypatch.setitem(
        cache.METHODS, "bootstrap", cache.UncertaintyMethod(method.label, counting, method.help)
    )
    monkeypatch.setattr(cache, "LEDGER", ByteLedger(budget=10**9))
    cache.get_draws(bench, "bootstrap", 200, 101, "raw")
    cache.get_draws(bench, "bootstrap", 200, 101, "raw")
    assert calls == [101]  # cached
    cache.LEDGER.budget = 1  # only the newest entry fits from now on
    cache.get_draws(bench, "bootstrap", 200, 102, "raw")
    cache.get_draws(bench, "bootstrap", 200, 101, "raw")
    assert calls == [101, 102, 101]  # 101 was evicted and computed again


def test_stop_when_ends_this_threads_sampler_and_no_other() -> None:
    """A closed tab's work stops at the sampler's next sweep (dashboard/runtime.py); the stop
    condition belongs to the thread that set it."""
    import threading

    from benchuq.core import budget
    from benchuq.core.methods.bayes.model import fit
    from benchuq.core.reading.loaders import load_sample

    bench = load_sample("toy")
    calls = []

    def gone() -> bool:
        calls.append(1)
        return len(calls) > 3  # the session ends after three sweeps

    with budget.stop_when(gone, "its browser session ended"):
        with pytest.raises(budget.Stopped, match="session ended"):
            fit(bench, chains=2, draws=50, warmup=50, sampler="gibbs", seed=0)
        other: list[BaseException | None] = []
        t = threading.Thread(target=lambda: other.append(budget.checkpoint("x")))
        t.start()
        t.join()
        assert other == [None]  # another thread (another session) is not stopped
    budget.checkpoint("after")  # the condition ends with its block


def test_stop_when_ends_the_vectorised_imh_sampler() -> None:
    """The imh sampler checks once a batch of target calls: a closed tab's fit ends there."""
    from benchuq.core.budget import Stopped, stop_when
    from benchuq.core.methods.bayes.model import fit
    from benchuq.core.reading.loaders import load_sample

    bench = load_sample("toy")
    with stop_when(lambda: True, "the tab was closed"), pytest.raises(Stopped, match="closed"):
        fit(bench, chains=2, draws=50, warmup=50, sampler="imh", seed=0)
    done = fit(bench, chains=2, draws=50, warmup=50, sampler="imh", seed=0)
    assert done.theta.shape[:2] == (2, 50)


def test_stop_when_ends_the_subgroup_analysis() -> None:
    """The EB analysis checks before each cross-fitting fold and before its intervals."""
    from benchuq.core.analyses.subgroups.estimates import analyze, units_from_benchmark
    from benchuq.core.budget import Stopped, stop_when
    from benchuq.core.reading.loaders import load_sample

    units = units_from_benchmark(load_sample("vtab1k"))
    with stop_when(lambda: True, "the tab was closed"), pytest.raises(Stopped, match="subgroup"):
        analyze(units, seed=0)
    assert len(analyze(units, seed=0).rows) == len(units)


def test_stop_when_ends_a_bootstrap_at_its_next_chunk() -> None:
    """The item bootstrap checks once a chunk of replicates: a closed session's run ends there
    (another thread's condition does not reach it)."""
    from benchuq.core.budget import Stopped, stop_when
    from benchuq.core.methods.bootstrap import bootstrap
    from benchuq.core.reading import load_files

    rows = "".join(f"{m},t,{i},{(i * 7 + len(m)) % 3 // 2}\n" for m in "AB" for i in range(50))
    bench = load_files([("x.csv", ("model,task,item,score\n" + rows).encode())])
    with stop_when(lambda: True, "the tab was closed"), pytest.raises(Stopped, match="closed"):
        bootstrap(bench, reps=200, seed=0)
    assert bootstrap(bench, reps=20, seed=0).values.shape[0] == 20


def test_stop_when_ends_the_epp_round_bootstrap() -> None:
    from benchuq.core.analyses.epp import epp
    from benchuq.core.budget import Stopped, stop_when
    from benchuq.core.reading import load_sample

    bench = load_sample("vtab1k")
    with stop_when(lambda: True, "the tab was closed"), pytest.raises(Stopped, match="EPP"):
        epp(bench, interval="bootstrap", reps=200, seed=0)
    assert epp(bench, interval="bootstrap", reps=200, seed=0).reps == 200


def _items(rows: int, start: int = 0) -> bytes:
    body = "".join(f"a,t,q{k},1\nb,t,q{k},0\n" for k in range(start, start + rows))
    return ("model,task,item,score\n" + body).encode()


def test_the_read_budget_counts_every_file_held_together(monkeypatch) -> None:
    """Each member of a zip within the limit is not enough: all are in memory while each is
    parsed, and the ones parsed keep their columns (issue 40: an 80 MB zip of items in diff
    used 583 MB against 512)."""
    import io
    import zipfile

    from benchuq.core.budget import KEEP_FACTOR, READ_FACTORS, read_need
    from benchuq.core.data import DataError
    from benchuq.core.reading.loaders import load_files

    members = [_items(4000, 4000 * i) for i in range(8)]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for i, data in enumerate(members):
            z.writestr(f"part{i}.csv", data)
    size = len(members[-1])
    one_file = size * READ_FACTORS["arrow"]
    together = one_file + sum(map(len, members)) - size + len(buf.getvalue())
    together += KEEP_FACTOR * sum(map(len, members[:-1]))
    assert read_need("x", size, path="arrow") == one_file  # outside a request: the file alone
    # a limit every member fits alone (and the archive, at most half the limit expanded), but
    # not all of them together
    expanded = sum(map(len, members))
    assert max(2 * expanded, one_file) < together
    monkeypatch.setenv("BENCHUQ_WORK_MB", str((2 * expanded + together) / 2 / 2**20))
    with pytest.raises(DataError, match="of files read together"):
        load_files([("parts.zip", buf.getvalue())])
    monkeypatch.setenv("BENCHUQ_WORK_MB", str(1.01 * together / 2**20))
    bench = load_files([("parts.zip", buf.getvalue())])
    assert bench.models == ("a", "b") and len(bench.item_tasks[0].items) == 32_000


def test_an_export_of_too_many_instance_records_is_refused(monkeypatch, tmp_path, capsys) -> None:
    """An item-level export holds every record's JSON line (issue 40: 3.6 million records of a
    10 MB zip took 2.8 GB and 15 minutes); over the budget it says so before the work."""
    from benchuq.cli.main import main
    from benchuq.core.budget import INSTANCE_BYTES

    path = tmp_path / "items.csv"
    path.write_bytes(_items(2000))
    monkeypatch.setenv("BENCHUQ_WORK_MB", str(3000 * INSTANCE_BYTES / 2**20))  # 3000 records
    argv = ["export", str(path), "--format", "eee", "-o", str(tmp_path / "out"), "--reps", "100"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "4,000 instance-level records" in err and "BENCHUQ_WORK_MB" in err
    monkeypatch.setenv("BENCHUQ_WORK_MB", str(5000 * INSTANCE_BYTES / 2**20))
    assert main(argv) == 0

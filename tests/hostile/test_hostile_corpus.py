"""The hostile corpus (hostile_corpus.py) through the upload path and every CLI command, in process.

Every input gets an answer: the upload path (``loaders.read_files`` as the Data page calls it,
then draws, the leaderboard, its chart and CSV) either loads the right models with sane
intervals or raises a ``DataError`` naming the file; every CLI command exits 0 with sane JSON or
2 with ``benchuq CMD: error: ...`` saying where and how to fix it. Never another exception, never
longer than :data:`TIMEOUT` seconds a case, never more than :data:`RSS_GROWTH` bytes of resident
memory above the start (the per-request budget is lowered to 256 MB for the run).
Print the outcome counts: ``python tests/hostile/test_hostile_corpus.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hostile_corpus import WORK_IDS, Case, answered, corpus, work_case

from benchuq.cli.main import main
from benchuq.core.data import DataError

TIMEOUT = 30.0
RSS_GROWTH = 1536 * 2**20
COMMANDS = ("leaderboard", "compare", "ranks", "epp", "weights", "bayes", "eb", "power",
            "embeddings", "diff")  # fmt: skip


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@contextlib.contextmanager
def _deadline(seconds: float, what: str) -> Iterator[None]:
    def fail(*_: object) -> None:
        raise TimeoutError(f"{what} took more than {seconds:g} s")

    old = signal.signal(signal.SIGALRM, fail)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class PeakRss:
    """The highest resident memory of this process while inside (sampled every 2 ms by a thread;
    allocations by numpy, Arrow and the C library all count, unlike tracemalloc's)."""

    def __enter__(self) -> PeakRss:
        self.start = self.peak = _rss()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, _rss())
            time.sleep(0.002)

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())

    @property
    def growth(self) -> int:
        return self.peak - self.start


def _sane_rows(rows: list[dict], where: str) -> None:
    for r in rows:
        if not {"estimate", "low", "high"} <= r.keys():  # e.g. rank rows: no estimate
            continue
        est, low, high = (r[k] for k in ("estimate", "low", "high"))
        if (est, low, high) == (None, None, None):  # a missing result
            continue
        assert all(isinstance(v, int | float) and math.isfinite(v) for v in (est, low, high)), (
            where,
            r,
        )
        assert low - 1e-9 <= est <= high + 1e-9, (where, r)


def upload(case: Case) -> str:
    """The Data page's path; returns "ok" or "refused" (asserting what each must satisfy)."""
    from benchuq.core.methods.bootstrap import bootstrap
    from benchuq.core.reading.loaders import read_files
    from benchuq.core.summaries import leaderboard
    from benchuq.presentation.figures.common import FigureOptions, forest_figure
    from benchuq.presentation.text import csv_bytes

    try:
        bench = read_files([(case.name, case.data)], name="upload").bench
    except DataError as err:
        assert err.file == case.name or case.name in str(err) or ".zip/" in str(err), str(err)
        assert "How to fix" in str(err) or err.hint is None, str(err)
        return "refused"
    if case.expect is not None:
        assert bench.models == case.expect, (bench.models, case.expect)
    draws = bootstrap(bench, reps=100, seed=0)
    assert np.isfinite(draws.values[~np.isnan(draws.values)]).all()
    table = leaderboard(draws, level=0.9)
    _sane_rows(table.to_dict(orient="records"), case.id)
    forest_figure(table[table["group"] == table["group"].iloc[0]], FigureOptions()).to_json()
    text = csv_bytes(table).decode()
    assert not any(line.startswith(("=", "+", "@", "\t", "\r")) for line in text.splitlines())
    return "ok"


def _argv(command: str, path: str, models: tuple[str, ...]) -> list[str]:
    pair = list(models[:2]) if len(models) >= 2 else ["A", "B"]
    extra = {
        "leaderboard": ["--reps", "100"],
        "compare": ["--models", *pair, "--reps", "100"],
        "ranks": ["--reps", "100"],
        "epp": ["--reps", "100"],
        "weights": ["--resolution", "5"],
        "bayes": ["--draws", "100", "--warmup", "20", "--chains", "1"],
        "eb": [],
        "power": ["--models", *pair, "--delta", "0.05"],
        "embeddings": ["--bootstrap", "scores", "--reps", "50"],
        "diff": ["--base", pair[0], "--candidate", pair[1], "--reps", "100"],
    }[command]
    return [command, path, *extra, "--json"]


def cli(case: Case, command: str, path: str, models: tuple[str, ...]) -> str:
    """One command on the case's file; returns "ok" or "refused"."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(_argv(command, path, models))
        except SystemExit as stop:  # argparse (e.g. a model name starting with '-')
            code = stop.code
    text = err.getvalue()
    assert "Traceback" not in text, text
    if code == 2:
        assert f"benchuq {command}: error:" in text or "usage:" in text, text
        return "refused"
    assert code == 0, (code, text)
    payload = json.loads(out.getvalue())
    rows = payload.get("rows") if isinstance(payload, dict) else None
    if isinstance(rows, list):
        _sane_rows([r for r in rows if isinstance(r, dict)], f"{case.id} {command}")
    return "ok"


def run_case(case: Case, tmp: Path) -> Counter:
    """Every path for ``case``; outcome counts by path."""
    counts: Counter = Counter()
    with _deadline(TIMEOUT, f"{case.id} upload"):
        counts[f"upload {upload(case)}"] += 1
    path = tmp / case.name.replace("/", "_")
    path.write_bytes(case.data)
    models = case.expect or ("A", "B")
    for command in COMMANDS:
        with _deadline(TIMEOUT, f"{case.id} {command}"):
            counts[f"cli {cli(case, command, str(path), models)}"] += 1
    path.unlink()
    return counts


#: The corpus without issue 31's "work" cases (:data:`WORK_IDS`): those run every path (the
#: upload and every CLI command, with the same assertions) under a tighter memory budget in
#: :func:`test_small_files_of_large_work_stay_within_the_work_budget`.
ANSWERED = answered()
#: This worker's resident memory when it ran its first corpus case (each case is its own test,
#: spread over the pytest-xdist workers; the growth check spans all the cases a worker ran).
_FIRST_RSS: list[int] = []


@pytest.mark.slow
@pytest.mark.parametrize("case", ANSWERED, ids=lambda c: c.id)
def test_every_hostile_input_gets_an_answer(case: Case, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BENCHUQ_WORK_MB", "256")
    monkeypatch.setenv("BENCHUQ_SAMPLER_SECONDS", "20")
    if not _FIRST_RSS:
        _FIRST_RSS.append(_rss())
    run_case(case, tmp_path)
    assert _rss() - _FIRST_RSS[0] < RSS_GROWTH, "resident memory grew too much"


def test_the_corpus_is_large_and_mixed(monkeypatch) -> None:
    """At least 150 inputs, and the upload path both loads (at least 40) and refuses (at least
    80) some: ``upload`` refuses exactly when ``read_files`` raises a ``DataError``, so reading
    alone counts them (the per-case tests above check what each answer holds)."""
    from benchuq.core.reading.loaders import read_files

    monkeypatch.setenv("BENCHUQ_WORK_MB", "256")
    assert len(ANSWERED) + len(WORK_IDS) >= 150
    counts: Counter = Counter()
    for case in ANSWERED:
        try:
            read_files([(case.name, case.data)], name="upload")
            counts["upload ok"] += 1
        except DataError:
            counts["upload refused"] += 1
    assert counts["upload ok"] >= 40 and counts["upload refused"] >= 80, counts


WORK_MB = 256


@pytest.mark.slow
@pytest.mark.parametrize("case_id", WORK_IDS)
def test_small_files_of_large_work_stay_within_the_work_budget(
    case_id: str, tmp_path: Path, monkeypatch
) -> None:
    """Issue 31's "work" inputs (200,000 columns, 20,000 zip entries, 10^6 models, a 2 MB zip of
    500 MB of valid rows) through the upload path and every CLI command: each answer within
    :data:`TIMEOUT` (the deadline), no traceback (``cli`` asserts it), and the peak resident
    memory of the process within ``BENCHUQ_WORK_MB`` above the base it had before the call."""
    case = work_case(case_id)
    monkeypatch.setenv("BENCHUQ_WORK_MB", str(WORK_MB))
    monkeypatch.setenv("BENCHUQ_SAMPLER_SECONDS", "20")
    path = tmp_path / case.name
    path.write_bytes(case.data)
    for command in ("upload", *COMMANDS):
        with _deadline(TIMEOUT, f"{case.id} {command}"), PeakRss() as rss:
            if command == "upload":
                upload(case)
            else:
                cli(case, command, str(path), case.expect or ("A", "B"))
        assert rss.growth < WORK_MB * 2**20, (
            f"{case.id} {command}: peak {rss.peak / 2**20:,.0f} MB, "
            f"{rss.growth / 2**20:,.0f} MB above the base {rss.start / 2**20:,.0f} MB"
        )


if __name__ == "__main__":  # the numbers for the report
    import tempfile
    import time

    os.environ.setdefault("BENCHUQ_WORK_MB", "256")
    os.environ.setdefault("BENCHUQ_SAMPLER_SECONDS", "20")
    t0, rss0, total = time.perf_counter(), _rss(), Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for case in (cases := corpus()):
            total += run_case(case, Path(tmp))
    print(f"{len(cases)} inputs, {len(COMMANDS)} CLI commands + the upload path: {dict(total)}")
    print(f"{time.perf_counter() - t0:.1f} s; resident memory {rss0 / 2**20:.0f} MB before, "
          f"{_rss() / 2**20:.0f} MB after")  # fmt: skip
    sys.exit(0)

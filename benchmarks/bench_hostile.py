"""Hostile inputs through the real command line: wall time and peak resident memory per input.

Each input of the hostile corpus (``tests/hostile/hostile_corpus.py``, written by its generator)
is given to ``benchuq leaderboard`` in a fresh process with a work budget (``BENCHUQ_WORK_MB``,
default 512 here); the script prints the exit code, wall seconds and peak RSS of each, and the
ones over the limits the issue sets (30 s; the budget plus the interpreter's base). A traceback
on stderr counts as a failure.

    python benchmarks/bench_hostile.py                 # every input
    python benchmarks/bench_hostile.py --only work     # the "large work from small files" ones
    python benchmarks/bench_hostile.py --only budget   # the budget's estimate against the
                                                       # measured peak, per reader and command
                                                       # (benchmarks/bench_budget.py)

It ends with the counts of tracebacks and hangs (over :data:`LIMIT_SECONDS`), both 0 when every
input gets an answer.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "hostile"), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from hostile_corpus import Case, _work, corpus  # noqa: E402

LIMIT_SECONDS = 30.0


def run(case: Case, folder: Path, work_mb: int) -> tuple[int, float, float, bool]:
    """Exit code, wall seconds, peak RSS in MB, and whether stderr held a traceback (a process
    still running after 10 times :data:`LIMIT_SECONDS` is killed: a hang)."""
    path = folder / case.name.replace("/", "_")
    path.write_bytes(case.data)
    env = {**os.environ, "BENCHUQ_WORK_MB": str(work_mb)}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchuq", "leaderboard", str(path), "--reps", "200"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stderr is not None
    timer = threading.Timer(10 * LIMIT_SECONDS, proc.kill)
    timer.start()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    path.unlink()
    return proc.returncode, wall, usage.ru_maxrss / 1024, b"Traceback" in err


def base_rss() -> float:
    """Peak RSS of the interpreter with benchuq's CLI imported and nothing read (MB)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "import benchuq.cli.main as m; m.build_parser()"],
    )
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("all", "work", "budget"), default="all")
    parser.add_argument("--work-mb", type=int, default=512)
    args = parser.parse_args()
    if args.only == "budget":
        import bench_budget

        sys.argv = [sys.argv[0], "--work-mb", str(args.work_mb)]
        bench_budget.main()
        return
    cases = _work() if args.only == "work" else corpus()
    base = base_rss()
    over, tracebacks, hangs = [], 0, 0
    print(f"base RSS {base:.0f} MB, budget {args.work_mb} MB, {len(cases)} inputs")
    print(f"{'input':34} {'exit':>4} {'wall s':>7} {'peak MB':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            code, wall, peak, traceback = run(case, Path(tmp), args.work_mb)
            flag = ""
            tracebacks += traceback
            hangs += wall > LIMIT_SECONDS
            if traceback or wall > LIMIT_SECONDS or peak > base + args.work_mb:
                flag = "  <-- over" + (" (traceback)" if traceback else "")
                over.append(case.id)
            print(f"{case.id:34} {code:>4} {wall:7.2f} {peak:8.0f}{flag}")
    print(f"{len(over)} of {len(cases)} over a limit: {over}")
    print(f"{tracebacks} tracebacks, {hangs} hangs (over {LIMIT_SECONDS:g} s)")


if __name__ == "__main__":
    main()

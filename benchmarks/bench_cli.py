"""Start-up cost of the ``benchuq`` command: ``--help`` and ``leaderboard sample:toy``.

Each command runs in a fresh subprocess (as a user's shell would start it), several times; the
script prints the median CPU time (user + system of the child) and wall time, and their ratio to
``python -c pass`` (the interpreter's own start-up), measured interleaved in the same process.

Targets (issue 32): ``benchuq --help`` <= 0.3 s and ``benchuq leaderboard sample:toy`` <= 1 s CPU.

    python benchmarks/bench_cli.py            # 7 runs each
    python benchmarks/bench_cli.py --quick    # 3 runs each
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "benchuq --help": [sys.executable, "-m", "benchuq", "--help"],
    "benchuq leaderboard sample:toy": [
        *(sys.executable, "-m", "benchuq"),
        *("leaderboard", "sample:toy"),
    ],
}


def run_once(cmd: list[str]) -> tuple[float, float]:
    """CPU seconds (user + system of the child) and wall seconds of one run of ``cmd``."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited with {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per command (default 7)")
    parser.add_argument("--quick", action="store_true", help="3 runs per command")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    cpu: dict[str, list[float]] = {name: [] for name in COMMANDS}
    wall: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for cmd in COMMANDS.values():  # warm the file cache once
        run_once(cmd)
    for _ in range(runs):  # interleaved, so a busy moment hits every command alike
        for name, cmd in COMMANDS.items():
            c, w = run_once(cmd)
            cpu[name].append(c)
            wall[name].append(w)
    base_cpu = statistics.median(cpu["python -c pass"])
    base_wall = statistics.median(wall["python -c pass"])
    print(f"median of {runs} runs, each in a new process\n")
    print(f"{'command':34s} {'CPU s':>7s} {'wall s':>7s} {'CPU/pass':>9s} {'wall/pass':>9s}")
    for name in COMMANDS:
        c, w = statistics.median(cpu[name]), statistics.median(wall[name])
        print(f"{name:34s} {c:7.3f} {w:7.3f} {c / base_cpu:8.1f}x {w / base_wall:8.1f}x")
    print("\ntargets: benchuq --help <= 0.3 s; benchuq leaderboard sample:toy <= 1 s CPU")


if __name__ == "__main__":
    main()

"""The work budget's estimate against the measured peak, per reader and command (issue 40).

For each reading path of :data:`benchuq.core.budget.READ_FACTORS` (Arrow for CSV, a zip of CSV,
Parquet, a JSON document, pandas for what Arrow does not read) an item-level file is made whose
read estimate is about 90% of ``BENCHUQ_WORK_MB``, and each command runs on it in a fresh
process. The budget's estimate is what its checks computed in that run (every ``check_read``,
``check_cells`` and ``check_pairs``: logged by a wrapper); the measured work is the peak resident
memory (``ru_maxrss``) above the same command's peak on a tiny file of the same kind (imports
and fixed costs are not work of the data). Printed per command: estimate, measured, their
ratio; a ratio over 1.05 means the estimate runs low.

    python benchmarks/bench_budget.py                      # 256 MB budget, every reader
    python benchmarks/bench_budget.py --work-mb 512 --only zip --commands diff
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

COMMANDS = ("leaderboard", "compare", "ranks", "epp", "weights", "diff", "power", "bayes",
            "export")  # fmt: skip

WRAPPER = r"""
import json, resource, sys
from benchuq.core import budget
log = []
def logged(check, key):
    def inner(*args, **kwargs):
        if key == "read":
            log.append(["read:" + kwargs["path"], budget.read_need(*args, **kwargs)])
        try:
            return check(*args, **kwargs)
        finally:
            if key == "read":
                pass
            elif key == "cells":
                reps, m, t = args[:3]
                log.append(["cells", reps * max(m * t, 1) * 8])
            else:
                reps, m = args[:2]
                log.append(["pairs", reps * m * m * 8])
    return inner
budget.check_read = logged(budget.check_read, "read")
budget.check_cells = logged(budget.check_cells, "cells")
budget.check_pairs = logged(budget.check_pairs, "pairs")
import benchuq.core.reading.arrow as ra, benchuq.core.reading.table as rt
import benchuq.core.methods.bayes.model as bm, benchuq.core.analyses.arena as aa
import benchuq.cli.common as cc, benchuq.api.draws as ad
for mod in (ra, rt):
    mod.check_read = budget.check_read
bm.check_cells = budget.check_cells
aa.check_pairs = budget.check_pairs
from benchuq.cli.main import main
code = main(sys.argv[1:])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"code": code, "peak": peak, "log": log}), file=sys.stderr)
"""


def _items_csv(megabytes: float, sep: str = ",", *, short: bool = False) -> bytes:
    """Item-level scores of two models (``base``, ``cand``) on four tasks, ``megabytes`` long;
    ``short``: the shortest rows (eight models ``base``, ``cand``, ``m2``..., numbered items),
    the most rows per byte."""
    models = ("base", "cand", *(f"m{i}" for i in range(2, 8))) if short else ("base", "cand")
    rows, size, k = [f"model{sep}task{sep}item{sep}score\n"], 0, 0
    target = megabytes * 2**20
    while size < target:
        item = str(k) if short else f"item-{k:09d}"
        for j, model in enumerate(models):
            line = f"{model}{sep}t{k % 4}{sep}{item}{sep}{(k * 7 + j) % 3 % 2}\n"
            rows.append(line)
            size += len(line)
        k += 1
    return "".join(rows).encode()


def _zip(data: bytes, members: int = 1) -> bytes:
    """``data`` deflated in a zip, split by lines into ``members`` files of one header each."""
    lines = data.split(b"\n")
    head, body = lines[0] + b"\n", lines[1:]
    step = -(-len(body) // members)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(members):
            part = b"\n".join(body[i * step : (i + 1) * step]).strip(b"\n")
            z.writestr(f"items{i}.csv", head + part + b"\n")
    return buf.getvalue()


def _parquet(data: bytes) -> bytes:
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pcsv.read_csv(io.BytesIO(data)), buf)
    return buf.getvalue()


def _json(data: bytes) -> bytes:
    lines = data.decode().splitlines()
    keys = lines[0].split(",")
    records = [dict(zip(keys, line.split(","), strict=True)) for line in lines[1:]]
    for r in records:
        r["score"] = int(r["score"])
    return json.dumps(records).encode()


#: reader -> (file name, MB of working memory per MB of rows by the budget's rules, bytes of a
#: file of about ``mb`` MB of item rows); a zip of eight members holds them all while each is
#: read, and keeps each one read (core.budget.read_need: 6 + 1 + 7/8 of the rows' MB)
READERS: dict[str, tuple[str, float, Callable[[float], bytes]]] = {
    "arrow": ("items.csv", 6, lambda mb: _items_csv(mb)),
    "zip": ("items.zip", 6.2, lambda mb: _zip(_items_csv(mb))),
    "zip8": ("items8.zip", 2.6, lambda mb: _zip(_items_csv(mb), members=8)),
    "parquet": ("items.parquet", 3 * 1.5, lambda mb: _parquet(_items_csv(mb))),
    "json": ("items.json", 12, lambda mb: _json(_items_csv(mb / 1.9))),
    "pandas": ("items.csv", 20, lambda mb: _items_csv(mb, sep=";")),
    "arrow_short": ("items.csv", 6, lambda mb: _items_csv(mb, short=True)),
    "zip8_short": ("items8.zip", 2.6, lambda mb: _zip(_items_csv(mb, short=True), members=8)),
}


def _argv(command: str, path: str) -> list[str]:
    extra = {
        "leaderboard": ["--reps", "500"],
        "compare": ["--models", "base", "cand", "--reps", "500"],
        "ranks": ["--reps", "500"],
        "epp": ["--reps", "200"],
        "weights": ["--resolution", "5"],
        "diff": ["--base", "base", "--candidate", "cand", "--reps", "500"],
        "power": ["--models", "base", "cand", "--delta", "0.05"],
        "bayes": ["--draws", "200", "--warmup", "50", "--chains", "1"],
        "export": ["--format", "eee", "--reps", "500"],
    }[command]
    if command == "export":
        return [command, path, "-o", path + ".out", *extra]
    return [command, path, *extra, "--json"]


def run(command: str, path: Path, work_mb: int) -> dict:
    """One command in a fresh process: exit code, peak RSS, the budget's logged estimates."""
    env = {**os.environ, "BENCHUQ_WORK_MB": str(work_mb), "BENCHUQ_SAMPLER_SECONDS": "60"}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, *_argv(command, str(path))],
        capture_output=True, env=env, timeout=900, check=False,
    )  # fmt: skip
    lines = [x for x in proc.stderr.decode(errors="replace").splitlines() if x.startswith("{")]
    out = json.loads(lines[-1]) if lines else {"code": proc.returncode, "peak": 0, "log": []}
    out["wall"] = time.perf_counter() - start
    out["traceback"] = b"Traceback" in proc.stderr
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work-mb", type=int, default=256)
    parser.add_argument("--only", nargs="*", choices=list(READERS), default=list(READERS))
    parser.add_argument("--commands", nargs="*", choices=COMMANDS, default=list(COMMANDS))
    parser.add_argument("--fill", type=float, default=0.9, help="read estimate / budget")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchuq.core.budget import READ_FACTORS

    print(f"budget {args.work_mb} MB; factors {READ_FACTORS}")
    print(f"{'reader':8} {'command':12} {'exit':>4} {'file MB':>8} {'estimate':>9} "
          f"{'measured':>9} {'ratio':>6} {'wall s':>7}")  # fmt: skip
    worst: dict[str, float] = {}
    tracebacks = hangs = 0
    with tempfile.TemporaryDirectory() as tmp:
        for reader in args.only:
            name, per_mb, make = READERS[reader]
            mb = args.fill * args.work_mb / per_mb
            big, tiny = Path(tmp) / f"big-{name}", Path(tmp) / f"tiny-{name}"
            big.write_bytes(make(mb))
            tiny.write_bytes(make(0.05))
            for command in args.commands:
                try:
                    small, large = run(command, tiny, args.work_mb), run(command, big, args.work_mb)
                except subprocess.TimeoutExpired:
                    hangs += 1
                    print(f"{reader:8} {command:12} hang (over 900 s)")
                    continue
                tracebacks += small["traceback"] + large["traceback"]
                reads = [v for k, v in large["log"] if k.startswith("read")]
                work = sum(v for k, v in large["log"] if not k.startswith("read"))
                estimate = (max(reads, default=0) + work) / 2**20
                measured = max(large["peak"] - small["peak"], 0) / 2**20
                ratio = measured / estimate if estimate else float("nan")
                if large["code"] == 0:
                    worst[reader] = max(worst.get(reader, 0.0), ratio)
                size = big.stat().st_size / 2**20
                print(f"{reader:8} {command:12} {large['code']:>4} {size:8.1f} "
                      f"{estimate:9.0f} {measured:9.0f} {ratio:6.2f} {large['wall']:7.1f}",
                      flush=True)  # fmt: skip
    print(
        f"{tracebacks} tracebacks, {hangs} hangs; worst measured/estimate per reader: "
        + ", ".join(f"{k} {v:.2f}" for k, v in worst.items())
    )


if __name__ == "__main__":
    main()

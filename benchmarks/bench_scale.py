"""Scale: long item tables from 10^6 to 10^8 rows in memory, 10^9 out of core (issue 18).

Generates seeded item tables (10 models x 10 tasks, binary or continuous scores, item names as
text; Parquet, and CSV up to 10^7 rows) in a scratch folder, then runs each step in a fresh
process and prints rows, wall and CPU time, peak RSS and the ratio to pyarrow and DuckDB reading
the same file:

- ``read``: pyarrow.parquet.read_table / pyarrow.csv.read_csv, DuckDB's read of the file into
  Arrow, DuckDB's ``GROUP BY model, task`` (counts and sums) over the file, and
  ``benchuq.core.reading.load_path``, with its wall, CPU and RSS ratios to each;
- ``pipeline``: load + 1,000 paired bootstrap replicates + leaderboard (binary: the issue's
  "10^8 rows in <= 90 s and <= 6 GB");
- ``--backend dask --workers 2`` (or ``duckdb``): the pipeline on that backend beside the
  in-memory one, on each binary Parquet file: CPU (the worker processes' included: the CPU of
  the processes the step started, ended and waited for), peak RSS (this process and all it
  started, summed, sampled every 20 ms), the ratios to the in-memory pipeline, and whether the
  intervals are equal;
- ``--out-of-core ROWS``: Parquet shards (items split by shard) aggregated by the DuckDB backend
  + 1,000 replicates + leaderboard, and the equality of its intervals with the in-memory path on
  a subset of about 10^7 rows. Writing the shards is not timed (with ``--dir D --keep`` they are
  kept and reused by the next run); the timed step is the DuckDB backend's aggregation of the
  shards, the replicates and the leaderboard.

Times start after each step's imports, which are printed apart (pyarrow about 0.1 s; benchuq's
readers, bootstrap and backends about 1.3 s), so the ratios compare the reads themselves.
Machine load changes wall times: the script prints the load average with every row; the ratios
are measured in the same run. Generated files are deleted at the end (``--keep`` keeps them);
check ``df -h`` first for 10^9 rows (about 5 GB of shards).

    python benchmarks/bench_scale.py --rows 1e6 1e7 1e8
    python benchmarks/bench_scale.py --rows 1e7 --kinds binary continuous --csv
    python benchmarks/bench_scale.py --rows 1e7 --csv --interleaved   # no model runs
    python benchmarks/bench_scale.py --rows 1e6 1e7 --backend dask --workers 2
    python benchmarks/bench_scale.py --rows --out-of-core 1e9 --dir /tmp/scale --keep
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

MODELS, TASKS = 10, 10
ROWS_PER_SHARD = 10**7
REPS = 1000
#: The work budget of each step (BENCHUQ_WORK_MB): scale runs read gigabytes, far over the
#: 512 MB a shared server allows one request; set the variable to measure another budget.
WORK_MB = 20_000

# Each step runs in a fresh interpreter; it prints one JSON line with its own measurements.
CHILD = r"""
import json, os, resource, sys, threading, time
import psutil
step, path = sys.argv[1], sys.argv[2]
i0 = time.perf_counter()
if step == "pyarrow":
    import pyarrow.parquet as pq, pyarrow.csv as pc
elif step in ("duckdb", "duckdb-group"):
    import duckdb
else:
    from benchuq.core.summaries import leaderboard
    from benchuq.core.methods.bootstrap import bootstrap
    from benchuq.core.reading import load_path
    from benchuq.core.reading.backends import open_data
    if step == "backend-pipeline" and sys.argv[5] == "dask":
        import distributed
imports = time.perf_counter() - i0
me, peak_tree, done = psutil.Process(), [0], threading.Event()


def sample():
    # the peak of the summed RSS of this process and every process it started (Dask's workers)
    while not done.wait(0.02):
        total = me.memory_info().rss
        for child in me.children(recursive=True):
            try:
                total += child.memory_info().rss
            except psutil.Error:
                pass
        peak_tree[0] = max(peak_tree[0], total)


sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t0, c0 = time.perf_counter(), time.process_time()
if step == "pyarrow":
    out = pq.read_table(path) if path.endswith(".parquet") else pc.read_csv(path)
    rows = out.num_rows
elif step == "duckdb":
    out = duckdb.sql(f"SELECT * FROM '{path}'").to_arrow_table()
    rows = out.num_rows
elif step == "duckdb-group":  # the counts per (model, task) the DuckDB backend starts from
    out = duckdb.sql(
        f"SELECT model, task, count(*) AS n, sum(score) AS k FROM '{path}' GROUP BY model, task"
    ).fetchall()
    rows = sum(n for _, _, n, _ in out)
elif step == "load":
    bench = load_path(path)
    rows = sum(int(it.answered.sum()) for it in bench.item_tasks)
elif step in ("pipeline", "backend-pipeline"):
    if step == "pipeline":
        bench = load_path(path)
        draws = bootstrap(bench, reps=int(sys.argv[3]), seed=0)
        rows = sum(int(it.answered.sum()) for it in bench.item_tasks)
    else:
        workers = int(sys.argv[6]) if sys.argv[6] != "0" else None
        source = open_data(path, sys.argv[5], workers=workers)
        draws = source.draws(int(sys.argv[3]), 0)
        rows = int(source.bench.n.sum())
        print(source.bench.notes[-1])
    table = leaderboard(draws, level=0.95)
    if sys.argv[4] != "-":
        table.to_json(sys.argv[4], orient="records")
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)  # started processes, ended and waited for
done.set()
sampler.join()
alive = 0.0  # started processes still running (none expected: clusters are closed)
for child in me.children(recursive=True):
    try:
        alive += sum(child.cpu_times()[:2])
    except psutil.Error:
        pass
children = kids1.ru_utime + kids1.ru_stime - kids0.ru_utime - kids0.ru_stime + alive
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, peak_tree[0])
print(json.dumps({"rows": rows, "wall": wall, "cpu": cpu + children, "children": children,
                  "peak": peak, "imports": imports}))
"""


def _items(n_items: int, start: int) -> pa.Array:
    return pc.binary_join_element_wise(
        "q", pc.cast(pa.array(np.arange(start, start + n_items)), pa.string()), ""
    )


def write_table(
    path: Path, rows: int, kind: str, seed: int, *, csv: bool, interleaved: bool = False
) -> None:
    """``rows`` item rows: every model on every item, items split evenly over the tasks,
    written model by model (as per-model logs are concatenated) in row groups of 2**20, or
    ``interleaved``: item by item, the models' rows of an item together (no long model runs: the
    reader hashes every row's item name)."""
    rng = np.random.default_rng(seed)
    n = rows // (MODELS * TASKS)  # items per task
    skill = np.linspace(0.35, 0.8, MODELS)
    easy = rng.normal(0, 1.0, (TASKS, n))
    schema = pa.schema(
        [
            ("model", pa.string()),
            ("task", pa.string()),
            ("item", pa.string()),
            ("score", pa.int8() if kind == "binary" else pa.float32()),
        ]
    )
    writer = pq.ParquetWriter(path.with_suffix(".parquet"), schema)
    text = open(path.with_suffix(".csv"), "wb") if csv else None

    def part(i: int, j: int) -> pa.Table:
        p = 1 / (1 + np.exp(-(np.log(skill[i] / (1 - skill[i])) + easy[j])))
        score = (rng.random(n) < p).astype(np.int8) if kind == "binary" else p.astype(np.float32)
        return pa.table(
            {
                "model": pa.array([f"model_{i}"] * n),
                "task": pa.array([f"task_{j}"] * n),
                "item": _items(n, j * n),
                "score": pa.array(score),
            },
            schema=schema,
        )

    def write(table: pa.Table, first: bool) -> None:
        writer.write_table(table, row_group_size=2**20)
        if text is not None:
            pa_csv.write_csv(table, text, pa_csv.WriteOptions(include_header=first))

    if interleaved:
        for j in range(TASKS):
            task = pa.concat_tables([part(i, j) for i in range(MODELS)])
            write(task.take(np.arange(n * MODELS).reshape(MODELS, n).T.ravel()), j == 0)
    else:
        for i in range(MODELS):
            for j in range(TASKS):
                write(part(i, j), i == 0 and j == 0)
    writer.close()
    if text is not None:
        text.close()


def write_shards(folder: Path, rows: int, seed: int) -> None:
    """Binary item shards of ROWS_PER_SHARD rows, each holding every model's rows of its items."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    skill = np.linspace(0.35, 0.8, MODELS)
    n = ROWS_PER_SHARD // MODELS  # items per shard
    for s in range(max(1, rows // ROWS_PER_SHARD)):
        task = (np.arange(n) * TASKS // n).astype(np.int32)
        easy = rng.normal(0, 1.0, n)
        parts = []
        for i in range(MODELS):
            p = 1 / (1 + np.exp(-(np.log(skill[i] / (1 - skill[i])) + easy)))
            parts.append(
                pa.table(
                    {
                        "model": pa.array([f"model_{i}"] * n),
                        "task": pa.DictionaryArray.from_arrays(
                            pa.array(task), pa.array([f"task_{j}" for j in range(TASKS)])
                        ).cast(pa.string()),
                        "item": _items(n, s * n),
                        "score": pa.array((rng.random(n) < p).astype(np.int8)),
                    }
                )
            )
        pq.write_table(pa.concat_tables(parts), folder / f"part-{s:05d}.parquet")


def run(step: str, path: Path, *extra: str) -> dict[str, Any]:
    """The step's measurements (its JSON line) and ``said``: what it printed before."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, step, str(path), *extra],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "BENCHUQ_WORK_MB": os.environ.get("BENCHUQ_WORK_MB", str(WORK_MB))},
    )
    if out.returncode != 0:
        raise RuntimeError(f"{step} {path} failed:\n{out.stderr[-3000:]}")
    *said, last = out.stdout.strip().splitlines()
    return {**json.loads(last), "said": " ".join(said)}


def pipeline(
    path: Path, reps: int, backend: str = "memory", workers: int = 0, out: Path | None = None
) -> dict[str, Any]:
    """Load (or open with ``backend``) + ``reps`` replicates + leaderboard, written to ``out``."""
    step = "pipeline" if backend == "memory" else "backend-pipeline"
    return run(step, path, str(reps), str(out or "-"), backend, str(workers))


def same_intervals(a: Path, b: Path) -> bool:
    """Whether two leaderboards written by :func:`pipeline` hold the same rows and numbers."""
    rows = (
        sorted(json.loads(p.read_text()), key=lambda r: (r["group"], r["model"])) for p in (a, b)
    )
    return next(rows) == next(rows)


def show(label: str, r: dict[str, Any], base: dict[str, dict[str, Any]]) -> None:
    ratios = "  ".join(
        f"x{k}: {r['wall'] / b['wall']:.2f} wall, {r['cpu'] / b['cpu']:.2f} cpu, "
        f"{r['peak'] / b['peak']:.2f} RSS"
        for k, b in base.items()
    )
    load = os.getloadavg()[0]
    workers = f" (started processes {r['children']:.2f} s)" if r.get("children") else ""
    print(
        f"  {label:<22} rows {r['rows']:>13,}  wall {r['wall']:7.2f} s  cpu {r['cpu']:7.2f} s"
        f"{workers}  peak {r['peak'] / 2**30:5.2f} GB  load {load:4.1f}  "
        f"imports {r['imports']:4.2f} s  {ratios}",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=float, nargs="*", default=[1e6, 1e7])
    ap.add_argument("--kinds", nargs="+", default=["binary"], choices=("binary", "continuous"))
    ap.add_argument("--csv", action="store_true", help="also CSV (files up to 10^7 rows)")
    ap.add_argument(
        "--interleaved",
        action="store_true",
        help="rows item by item (models interleaved), the readers' worst case",
    )
    ap.add_argument(
        "--backend",
        choices=("memory", "duckdb", "dask"),
        default="memory",
        help="also run the pipeline with this backend on each binary Parquet file and print its "
        "CPU (its worker processes' included) and peak memory (all processes) against memory's",
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=0,
        help="dask: a LocalCluster of N worker processes (0: the backend's default, in-process "
        "for data that fit in memory)",
    )
    ap.add_argument("--out-of-core", type=float, default=None, metavar="ROWS")
    ap.add_argument("--reps", type=int, default=REPS)
    ap.add_argument("--dir", default=None, help="scratch folder (default: a temporary one)")
    ap.add_argument(
        "--keep",
        action="store_true",
        help="keep the generated files (with --dir, --out-of-core reuses shards kept there)",
    )
    args = ap.parse_args()
    scratch = Path(args.dir or tempfile.mkdtemp(prefix="bench_scale_"))
    scratch.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()}; scratch {scratch}")
    try:
        for rows in (int(r) for r in args.rows):
            for kind in args.kinds:
                base = scratch / f"items_{kind}_{rows}"
                write_table(
                    base,
                    rows,
                    kind,
                    seed=rows % 1000,
                    csv=args.csv and rows <= 10**7,
                    interleaved=args.interleaved,
                )
                for suffix in (".parquet", ".csv"):
                    path = base.with_suffix(suffix)
                    if not path.exists():
                        continue
                    mb = path.stat().st_size / 2**20
                    print(f"{kind}, {rows:,} rows, {suffix[1:]} ({mb:,.0f} MB)")
                    refs = {
                        "pyarrow": run("pyarrow", path),
                        "duckdb": run("duckdb", path),
                        "duckdb group by": run("duckdb-group", path),
                    }
                    for name, r in refs.items():
                        show(name if " " in name else f"{name} read", r, {})
                    show("benchuq load_path", run("load", path), refs)
                    if suffix == ".parquet" and kind == "binary":
                        mem = scratch / "memory.json"
                        memory = pipeline(path, args.reps, out=mem)
                        show(f"load+{args.reps} reps+table", memory, refs)
                        if args.backend != "memory":
                            backend(path, args.reps, args.backend, args.workers, memory, mem)
                    path.unlink()
        if args.out_of_core:
            out_of_core(scratch, int(args.out_of_core), args.reps)
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


def backend(
    path: Path, reps: int, name: str, workers: int, memory: dict[str, Any], mem: Path
) -> None:
    """The pipeline with backend ``name`` against the in-memory one (``memory``, written to
    ``mem``): CPU and peak memory ratios, and whether the intervals are the same."""
    out = mem.with_name(f"{name}.json")
    r = pipeline(path, reps, name, workers, out)
    label = f"{name}{f' {workers} workers' if workers else ''}+table"
    show(label, r, {"memory": memory})
    same = same_intervals(mem, out)
    print(f"    {r['said'].rstrip('.')}; intervals equal the in-memory path's: {same}")


def out_of_core(scratch: Path, rows: int, reps: int) -> None:
    """DuckDB backend on shards (generated first, untimed; kept ones are reused); its
    intervals against the in-memory path on one shard."""
    folder = scratch / f"shards_{rows}"
    if not (folder / "done").exists():
        shutil.rmtree(folder, ignore_errors=True)
        write_shards(folder, rows, seed=1)
        (folder / "done").touch()
    size = sum(f.stat().st_size for f in folder.glob("*.parquet"))
    print(
        f"out of core: {rows:,} binary rows in {len(list(folder.glob('*.parquet')))} shards "
        f"({size / 2**30:.1f} GB); load average {os.getloadavg()}"
    )
    result = pipeline(folder, reps, "duckdb")
    show(f"duckdb+{reps} reps+table", result, {})
    print(f"  {result['said']}")
    subset = scratch / "subset"
    shutil.rmtree(subset, ignore_errors=True)
    subset.mkdir()
    first = sorted(folder.glob("*.parquet"))[0]
    shutil.copy(first, subset / first.name)
    mem, ooc = scratch / "memory.json", scratch / "duckdb.json"
    pipeline(subset / first.name, reps, out=mem)
    pipeline(subset, reps, "duckdb", out=ooc)
    same = same_intervals(mem, ooc)
    print(f"  intervals on the {ROWS_PER_SHARD:,}-row subset equal the in-memory path: {same}")


if __name__ == "__main__":
    main()

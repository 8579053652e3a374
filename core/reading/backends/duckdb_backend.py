"""Out of core on one machine: embedded DuckDB aggregates Parquet item shards to patterns.

Queries over the shards (no copy of the data, spilling to a temporary folder beyond
``memory_limit``): per (model, task) the number of scores and their sum (checks: names present,
scores 0 or 1); then per (task, item) its pattern over the models (in name order, 2 bits a model:
0 wrong, 1 right, 2 missing, packed into 64-bit words exactly as the in-memory path packs them)
and per (task, pattern) the number of items, in as many passes over the shards as DuckDB's
memory limit needs for the items (:func:`_passes`: each pass takes the items whose name hashes
to it; in one pass DuckDB 2.0 ran out of memory grouping 10^8 items under a 4.7 GB limit). The
bootstrap then runs from those counts (:func:`benchuq.core.methods.bootstrap.pattern_bootstrap`), so
draws equal the in-memory path's for the same data and seed; memory holds the distinct patterns
only (at most ``3**M`` per task, usually far fewer). Binary scores only; clustered data needs
the in-memory path.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from benchuq.core.data import Benchmark, DataError
from benchuq.core.methods.bootstrap import _decode, pattern_bootstrap
from benchuq.core.reading.backends import DataSource, _free_memory, counts_benchmark

__all__ = ["aggregate", "open_duckdb"]

PER_WORD = 32  # models per 64-bit pattern word (2 bits each)
MEMORY_SHARE = 0.4  # default memory_limit: this share of the free memory, at most MEMORY_CAP
MEMORY_CAP = 5 * 2**30
BYTES_PER_ITEM = 300  # of DuckDB's memory limit per (task, item) group in one pass


def _quote(x: str) -> str:
    return "'" + x.replace("'", "''") + "'"


def _connect(memory_limit: str | None, spill: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    limit = memory_limit or f"{int(min(MEMORY_CAP, MEMORY_SHARE * _free_memory())) >> 20}MB"
    con.execute(f"SET memory_limit = {_quote(limit)}")
    con.execute(f"SET temp_directory = {_quote(spill)}")
    con.execute("SET preserve_insertion_order = false")
    con.execute("SET enable_progress_bar = false")  # it writes to stdout (the CLI's JSON)
    return con


def _source(con: duckdb.DuckDBPyConnection, files: list[Path]) -> dict[str, str]:
    """View ``src`` (model, task, item, score; names trimmed) over the shards; returns our
    column -> its type."""
    listed = "[" + ", ".join(_quote(str(f)) for f in files) + "]"
    cols = con.execute(f"DESCRIBE SELECT * FROM read_parquet({listed})").fetchall()
    names = {str(c[0]).strip().lower(): (str(c[0]), str(c[1])) for c in cols}
    for need in ("model", "task", "item", "score"):
        if need not in names:
            raise DataError(
                f"missing column '{need}'; the shards' columns are {sorted(names)}.",
                file=files[0].name,
                column=need,
                hint="item shards need the columns model, task, item, score.",
            )
    if "cluster" in names:
        raise DataError(
            "the out-of-core backends do not resample clusters.",
            file=files[0].name,
            column="cluster",
            hint="use --backend memory for clustered data.",
        )

    def col(c: str, trim: bool) -> str:
        ident = '"' + names[c][0].replace('"', '""') + '"'
        return f"trim({ident}::VARCHAR) AS {c}" if trim else f"{ident} AS {c}"

    item_text = names["item"][1].upper() in ("VARCHAR", "STRING", "TEXT")
    parts = [col("model", True), col("task", True), col("item", item_text), col("score", False)]
    if "category" in names:
        parts.append(col("category", True))
    parts += ["filename", "file_row_number"]
    con.execute(
        f"CREATE VIEW src AS SELECT {', '.join(parts)} FROM read_parquet({listed}, "
        "filename = true, file_row_number = true)"
    )
    return {c: t for c, (_, t) in names.items()}


def _first_bad(con: duckdb.DuckDBPyConnection, where: str) -> tuple[str, int] | None:
    row = con.execute(
        f"SELECT filename, file_row_number FROM src WHERE {where} "
        "ORDER BY filename, file_row_number LIMIT 1"
    ).fetchone()
    return None if row is None else (Path(row[0]).name, int(row[1]) + 2)


# (condition, column, message, hint): each counted in the first pass, located only if it occurs
CHECKS = (
    (
        "model IS NULL OR model = '' OR task IS NULL OR task = '' OR item IS NULL",
        "model",
        "a model, task or item name is empty",
        "fill in the names or delete the row.",
    ),
    (
        "score IS NULL OR NOT isfinite(score::DOUBLE)",
        "score",
        "the score is missing or not a finite number",
        "use plain finite numbers.",
    ),
    ("score < 0 OR score > 1", "score", "the score is outside 0..1", "use a 0..1 scale."),
    (
        "score <> 0 AND score <> 1",
        "score",
        "the out-of-core backends read binary (0/1) scores; this one is neither",
        "use --backend memory for continuous scores.",
    ),
)


def _check(con: duckdb.DuckDBPyConnection, bad: np.ndarray) -> None:
    """Raise for the first check that failed (``bad``: its count), naming file and row."""
    for (where, column, message, hint), count in zip(CHECKS, bad, strict=True):
        if count:
            place = _first_bad(con, where)
            file, row = place if place is not None else (None, None)
            raise DataError(message + ".", file=file, row=row, column=column, hint=hint)


def aggregate(
    files: list[Path], *, memory_limit: str | None = None
) -> tuple[Benchmark, list[tuple[np.ndarray, np.ndarray]]]:
    """(the per-task counts as a kind-``"counts"`` :class:`Benchmark`, per task the distinct
    item patterns ``(states (U, M), counts)`` in key order). Models and tasks in name order."""
    with tempfile.TemporaryDirectory(prefix="benchuq-duckdb-") as spill:
        con = _connect(memory_limit, spill)
        try:
            types = _source(con, files)
            return _aggregate(con, files, "category" in types)
        finally:
            con.close()


def _aggregate(
    con: duckdb.DuckDBPyConnection, files: list[Path], has_category: bool
) -> tuple[Benchmark, list[tuple[np.ndarray, np.ndarray]]]:
    flags = ", ".join(f"count(*) FILTER (WHERE {c[0]}) AS bad{i}" for i, c in enumerate(CHECKS))
    cells = con.execute(
        f"SELECT model, task, count(*) AS n, sum(score::DOUBLE) AS k, {flags} FROM src GROUP BY ALL"
    ).fetchnumpy()
    _check(con, np.array([int(cells[f"bad{i}"].sum()) for i in range(len(CHECKS))]))
    models = sorted(set(cells["model"].tolist()))
    tasks = sorted(set(cells["task"].tolist()))
    M, T = len(models), len(tasks)
    mi = np.searchsorted(models, cells["model"])
    tj = np.searchsorted(tasks, cells["task"])
    n = np.zeros((M, T), np.int64)
    k = np.zeros((M, T), np.int64)
    n[mi, tj] = cells["n"]
    k[mi, tj] = np.round(cells["k"]).astype(np.int64)
    categories = ["all"] * T
    if has_category:
        cat = con.execute(
            "SELECT task, min(category), count(DISTINCT category) FROM src GROUP BY task"
        ).fetchall()
        for task, first, distinct in cat:
            if distinct > 1:
                raise DataError(
                    f"task '{task}' has {distinct} categories.",
                    file=files[0].name,
                    column="category",
                    hint="give each task one category.",
                )
            categories[tasks.index(task)] = first
    con.register("pos", pa.table({"model": models, "p": np.arange(M, dtype=np.int64)}))
    W = -(-M // PER_WORD)
    words = []
    for w in range(W):
        members = range(w * PER_WORD, min(M, (w + 1) * PER_WORD))
        all_missing = sum(2 << (2 * (p % PER_WORD)) for p in members)
        words.append(
            f"({all_missing}::UBIGINT - coalesce(sum((2 - score::UTINYINT)::UBIGINT "
            f"<< (2 * (p % {PER_WORD}))) FILTER (WHERE p // {PER_WORD} = {w}), 0))::UBIGINT AS w{w}"
        )
    seen = " + ".join(
        f"coalesce(bit_count(bit_or(1::UBIGINT << (p % 64)) FILTER (WHERE p // 64 = {v})), 0)"
        for v in range(-(-M // 64))
    )
    keys = ", ".join(f"w{w}" for w in range(W))
    passes = _passes(con, n)
    parts = [
        con.sql(
            f"SELECT task, {keys}, count(*) AS c, bool_or(dup) AS dup FROM ("
            f"SELECT task, {', '.join(words)}, count(*) <> ({seen}) AS dup "
            f"FROM src JOIN pos USING (model) WHERE hash(item) % {passes} = {k} "
            "GROUP BY task, item) GROUP BY task, " + keys
        ).to_arrow_table()
        for k in range(passes)
    ]
    con.register("parts", pa.concat_tables(parts))
    table = con.sql(
        f"SELECT task, {keys}, sum(c)::BIGINT AS c, bool_or(dup) AS dup FROM parts "
        "GROUP BY task, " + keys
    ).to_arrow_table()
    if any(table.column("dup").to_pylist()):
        dup = con.execute(
            "SELECT model, task, item FROM src GROUP BY ALL HAVING count(*) > 1 LIMIT 1"
        ).fetchone()
        assert dup is not None  # a flagged group has a repeated (model, task, item)
        raise DataError(
            f"model '{dup[0]}', task '{dup[1]}', item '{dup[2]}' appears more than once.",
            file=files[0].name,
            column="item",
            hint="keep one score per model, task and item.",
        )
    task_of = np.searchsorted(tasks, table.column("task").to_numpy(zero_copy_only=False))
    all_words = np.column_stack([table.column(f"w{w}").to_numpy() for w in range(W)])
    counts = table.column("c").to_numpy()
    patterns = []
    for j in range(T):
        sel = task_of == j
        wj, cj = all_words[sel], counts[sel]
        order = np.lexsort(wj.T)  # the last word is the most significant, as in memory
        patterns.append((_decode(wj[order], np.arange(M), 2), cj[order].astype(np.int64)))
    bench = counts_benchmark(
        files,
        models,
        tasks,
        categories,
        n,
        k,
        f"Out of core (DuckDB): {int(n.sum()):,} item scores in {len(files)} Parquet "
        f"file(s) aggregated to {sum(len(c) for _, c in patterns):,} item patterns in "
        f"{passes} pass(es) over the files; the bootstrap is the item-level paired one.",
    )
    return bench, patterns


def _passes(con: duckdb.DuckDBPyConnection, n: np.ndarray) -> int:
    """Passes over the shards for the per-item aggregation, each on the items whose name hashes
    to it: DuckDB's grouping of ``(task, item)`` needs about :data:`BYTES_PER_ITEM` of its
    memory limit per item (measured: 10^7 items fit in 1.5 GB, 10^8 did not fit in 4.7 GB;
    :data:`BYTES_PER_ITEM` is twice the 150 bytes that fitted),
    and an item's rows all fall in one pass. Items are counted as the most any model has per
    task (fewer passes than needed only when models answered different items)."""
    limit = con.execute("SELECT current_setting('memory_limit')").fetchall()
    items = int(n.max(axis=0).sum()) if n.size else 0
    budget = _bytes(str(limit[0][0]) if limit else "") or MEMORY_CAP
    return max(1, -(-items * BYTES_PER_ITEM // budget))


def _bytes(setting: str) -> int:
    """DuckDB's memory setting (``"4.6 GiB"``, ``"500.0 MiB"``) in bytes; 0 if unreadable."""
    number, _, unit = setting.strip().partition(" ")
    scale = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "KB": 10**3, "MB": 10**6}
    scale |= {"GB": 10**9, "TB": 10**12, "bytes": 1}
    try:
        return int(float(number) * scale[unit])
    except (ValueError, KeyError):
        return 0


def open_duckdb(files: list[Path], *, memory_limit: str | None = None) -> DataSource:
    """A :class:`DataSource` over Parquet item shards (aggregated once, bootstrapped on call)."""
    bench, patterns = aggregate(files, memory_limit=memory_limit)
    return DataSource(
        bench, lambda reps, seed: pattern_bootstrap(bench, patterns, reps=reps, seed=seed)
    )

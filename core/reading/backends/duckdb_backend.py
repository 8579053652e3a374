"""Out of core on one machine: embedded DuckDB aggregates Parquet item shards to patterns.

Queries over the shards (no copy of the data, spilling to a temporary folder beyond
``memory_limit``): per (model, task) the number of scores and their sum (checks: names present,
scores 0 or 1); then, in one read of the files, per group of files (at most
:data:`GROUP_ITEMS` items: a small hash table) and per (task, item) its part of the pattern
over the models (in name order, 2 bits a model: 0 wrong, 1 right, 2 missing, packed into 64-bit
words exactly as the in-memory path packs them), written to Parquet in the spill folder with
the name's 128-bit MD5 in place of the name, split into item buckets; per bucket, the parts of
an item (its rows may lie in several files) are summed and the items of each (task, pattern)
counted. There are as many buckets as DuckDB's memory limit needs for the items (:func:`_passes`;
DuckDB 2.0 ran out of memory grouping 10^8 items under a 4.7 GB limit); names are trimmed after
grouping (once a distinct name, not once a row). The bootstrap then runs from those counts
(:func:`benchuq.core.methods.bootstrap.pattern_bootstrap`), so draws equal the in-memory path's
for the same data and seed; memory holds the distinct patterns only (at most ``3**M`` per task,
usually far fewer). Binary scores only; clustered data needs the in-memory path.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from benchuq.core.data import Benchmark, DataError
from benchuq.core.methods.bootstrap import _decode, pattern_bootstrap
from benchuq.core.options import option
from benchuq.core.reading.backends import DataSource, _free_memory, counts_benchmark

__all__ = ["aggregate", "open_duckdb"]

PER_WORD = 32  # models per 64-bit pattern word (2 bits each)
MEMORY_SHARE = 0.4  # default memory_limit: this share of the free memory, at most MEMORY_CAP
MEMORY_CAP = 5 * 2**30
BYTES_PER_ITEM = 300  # of DuckDB's memory limit per (task, item) group in one pass
GROUP_ITEMS = 2**20  # items of the files grouped at a time in the first stage (a small table)


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


def _source(con: duckdb.DuckDBPyConnection, files: list[Path]) -> tuple[dict[str, str], str]:
    """View ``src`` (model, task, item, score; names trimmed) over the shards; returns our
    column -> its type, and a select list of model, task, item and score untrimmed (names are
    trimmed after grouping, once a distinct name rather than once a row)."""
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
            hint=f"use {option('backend', 'memory')} for clustered data.",
        )

    def col(c: str, trim: bool) -> str:
        ident = '"' + names[c][0].replace('"', '""') + '"'
        return f"trim({ident}::VARCHAR) AS {c}" if trim else f"{ident} AS {c}"

    item_text = names["item"][1].upper() in ("VARCHAR", "STRING", "TEXT")
    parts = [col("model", True), col("task", True), col("item", item_text), col("score", False)]
    if "category" in names:
        parts.append(col("category", True))
    con.execute(
        f"CREATE VIEW src AS SELECT {', '.join(parts)}, filename, file_row_number "
        f"FROM read_parquet({listed}, filename = true, file_row_number = true)"
    )
    raw = [col(c, False).replace(" AS", "::VARCHAR AS") for c in ("model", "task")]
    raw += [col("item", False), col("score", False)]
    return {c: t for c, (_, t) in names.items()}, ", ".join(raw)


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
        f"use {option('backend', 'memory')} for continuous scores.",
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
            types, select = _source(con, files)
            return _aggregate(con, files, types, select, Path(spill))
        finally:
            con.close()


def _aggregate(
    con: duckdb.DuckDBPyConnection,
    files: list[Path],
    types: dict[str, str],
    select: str,
    spill: Path,
) -> tuple[Benchmark, list[tuple[np.ndarray, np.ndarray]]]:
    listed = "[" + ", ".join(_quote(str(f)) for f in files) + "]"
    flags = ", ".join(
        f"count(*) FILTER (WHERE {c[0]}) AS bad{i}" for i, c in enumerate(CHECKS) if i
    )
    con.execute(
        "CREATE TEMP TABLE cells AS SELECT model, task, count(*) AS n, sum(score::DOUBLE) AS k, "
        f"count(*) - count(item) AS bad0, {flags} FROM (SELECT {select} FROM "
        f"read_parquet({listed})) GROUP BY ALL"
    )
    empty = "model IS NULL OR trim(model) = '' OR task IS NULL OR trim(task) = ''"
    sums = ", ".join(f"sum(bad{i})" for i in range(1, len(CHECKS)))
    bad = con.execute(
        f"SELECT sum(bad0) + coalesce(sum(n) FILTER (WHERE {empty}), 0), {sums} FROM cells"
    ).fetchone()
    _check(con, np.array([int(b or 0) for b in bad] if bad else [0] * len(CHECKS)))
    cells = con.execute(
        "SELECT trim(model) AS model, trim(task) AS task, sum(n) AS n, sum(k) AS k FROM cells "
        "GROUP BY ALL"
    ).fetchnumpy()
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
    if "category" in types:
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
    raw = con.execute("SELECT DISTINCT model, trim(model) FROM cells").fetchall()
    con.register(
        "pos",
        pa.table({"model": [r for r, _ in raw], "p": np.searchsorted(models, [t for _, t in raw])}),
    )
    W, V = -(-M // PER_WORD), -(-M // 64)
    items = int(n.max(axis=0).sum()) if n.size else 0
    buckets = _passes(con, n)
    reads = 0
    # 1. per group of files (at most GROUP_ITEMS items): per (task, item name) the subtracted
    #    codes (2 - score, 2 bits a model), the models seen and the rows, written to Parquet in
    #    the spill folder with the name's 128-bit MD5 in place of the name, split into item
    #    buckets by it (one read of the files; a file with more items than the memory limit
    #    holds is read in several passes, each taking the items whose name hashes to it)
    codes = ", ".join(
        f"coalesce(sum((2 - score::UTINYINT)::UBIGINT << (2 * (p % {PER_WORD}))) "
        f"FILTER (WHERE p // {PER_WORD} = {w}), 0) AS d{w}"
        for w in range(W)
    )
    seen = ", ".join(
        f"coalesce(bit_or(1::UBIGINT << (p % 64)) FILTER (WHERE p // 64 = {v}), 0)::UBIGINT AS s{v}"
        for v in range(V)
    )
    ones = " + ".join(f"bit_count(s{v})" for v in range(V))
    keep = ", ".join(
        f"CASE WHEN r = {ones} THEN d{w}::UBIGINT ELSE 0::UBIGINT END AS d{w}" for w in range(W)
    )  # a repeated score may carry past 64 bits: it is flagged by r, not summed
    item_text = types["item"].upper() in ("VARCHAR", "STRING", "TEXT")
    name = "trim(item)" if item_text else "item::VARCHAR"  # as src reads the name
    # the 128-bit MD5 of the name as two UBIGINTs (high, low; md5_number's own type differs
    # between DuckDB versions: HUGEINT in 1.1, UHUGEINT later), its bucket the number mod buckets
    bucket = f"(((h1 % {buckets}) * {2**64 % buckets} + h0 % {buckets}) % {buckets})::UBIGINT"
    for u, (group, passes) in enumerate(_groups(con, files, items)):
        listed = "[" + ", ".join(_quote(str(f)) for f in group) + "]"
        for pass_ in range(passes):
            only = f"WHERE hash(item) % {passes} = {pass_}" if passes > 1 else ""
            con.execute(
                f"COPY (SELECT {bucket} AS b, trim(task) AS task, h1, h0, {keep}, "
                f"{', '.join(f's{v}' for v in range(V))}, r FROM (SELECT task, "
                f"md5_number_lower({name}) AS h1, md5_number_upper({name}) AS h0, "
                f"{codes}, {seen}, count(*) AS r "
                f"FROM (SELECT {select} FROM read_parquet({listed})) "
                f"JOIN pos USING (model) {only} GROUP BY task, item)) "
                f"TO {_quote(str(spill / f'items-{u}-{pass_}'))} "
                "(FORMAT parquet, PARTITION_BY (b))"
            )
            reads += 1
    # 2. per bucket: an item's parts (its rows may lie in several file groups) summed by
    #    (task, MD5 of the name), then the number of items of each (task, pattern); a repeated
    #    (model, task, item) is flagged
    words = ", ".join(
        f"greatest({_all_missing(M, w)} - sum(d{w}), 0)::UBIGINT AS w{w}" for w in range(W)
    )
    ones = " + ".join(f"bit_count(bit_or(s{v}))" for v in range(V))
    keys = ", ".join(f"w{w}" for w in range(W))
    parts = []
    for b in range(buckets):
        shards = sorted(str(f) for f in spill.glob(f"items-*/b={b}/*.parquet"))
        if not shards:
            continue
        listed = "[" + ", ".join(_quote(f) for f in shards) + "]"
        parts.append(
            con.sql(
                f"SELECT task, {keys}, count(*) AS c, bool_or(dup) AS dup FROM ("
                f"SELECT task, {words}, sum(r) <> ({ones}) AS dup "
                f"FROM read_parquet({listed}, hive_partitioning = false) GROUP BY task, h1, h0) "
                "GROUP BY task, " + keys
            ).to_arrow_table()
        )
    fields = {"task": pa.string(), **{f"w{w}": pa.uint64() for w in range(W)}}
    fields |= {"c": pa.int64(), "dup": pa.bool_()}
    con.register("parts", pa.concat_tables(parts) if parts else pa.schema(fields).empty_table())
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
        f"file(s) aggregated to {sum(len(c) for _, c in patterns):,} item patterns "
        f"({reads} read(s) of file groups, {buckets} item bucket(s)); the bootstrap is the "
        "item-level paired one.",
    )
    return bench, patterns


def _budget(con: duckdb.DuckDBPyConnection) -> int:
    """DuckDB's memory limit in bytes."""
    limit = con.execute("SELECT current_setting('memory_limit')").fetchall()
    return _bytes(str(limit[0][0]) if limit else "") or MEMORY_CAP


def _passes(con: duckdb.DuckDBPyConnection, n: np.ndarray) -> int:
    """Item buckets, each grouped on its own: DuckDB's grouping of ``(task, item)`` needs about
    :data:`BYTES_PER_ITEM` of its memory limit per item (measured: 10^7 items fit in 1.5 GB,
    10^8 did not fit in 4.7 GB; :data:`BYTES_PER_ITEM` is twice the 150 bytes that fitted),
    and an item's rows all fall in one bucket. Items are counted as the most any model has per
    task (fewer buckets than needed only when models answered different items)."""
    items = int(n.max(axis=0).sum()) if n.size else 0
    return max(1, -(-items * BYTES_PER_ITEM // _budget(con)))


def _groups(
    con: duckdb.DuckDBPyConnection, files: list[Path], items: int
) -> list[tuple[list[Path], int]]:
    """Consecutive files whose items (their share of the rows times ``items``) fit the memory
    limit in one grouping, and the passes each group needs (more than one only for a file too
    large alone)."""
    import pyarrow.parquet as pq

    rows = [pq.ParquetFile(f).metadata.num_rows for f in files]
    per_row = items / max(1, sum(rows))
    fit = min(GROUP_ITEMS, _budget(con) / BYTES_PER_ITEM)  # items one grouping holds
    out: list[tuple[list[Path], int]] = []
    group: list[Path] = []
    held = 0.0
    for f, r in zip(files, rows, strict=True):
        if group and held + r * per_row > fit:
            out.append((group, max(1, -int(-held // fit))))
            group, held = [], 0.0
        group.append(f)
        held += r * per_row
    if group:
        out.append((group, max(1, -int(-held // fit))))
    return out


def _all_missing(M: int, w: int) -> int:
    """Pattern word ``w`` of an item no model answered (2, missing, in every field)."""
    return sum(2 << (2 * (p % PER_WORD)) for p in range(w * PER_WORD, min(M, (w + 1) * PER_WORD)))


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

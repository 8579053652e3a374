"""Loading results into a :class:`core.data.Benchmark` (METHODS 0): files, folders, samples.

Entry points: :func:`load_path` (a file or a folder), :func:`load_files` (uploaded bytes, what the
dashboard gets), :func:`load_sample` and :func:`resolve` (``sample:<name>``, a file or a folder).
Formats (``format=``): ``long``, ``wide``, ``items``, ``lm_eval``, ``lm_eval_samples``,
``alpaca_eval``, ``inspect``, or ``auto`` (detected from each file's content). Every failure is a
:class:`DataError` naming the file, row and column and saying how to fix it.
"""

from __future__ import annotations

import glob
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

import numpy as np

from benchuq.core.data import Benchmark, DataError
from benchuq.core.readers.items import FEW_NAMES, ITEM_COLUMNS, item_records, items_benchmark
from benchuq.core.readers.judged import (
    alpaca_benchmark,
    alpaca_leaderboard_benchmark,
    inspect_benchmark,
    is_alpaca,
    is_alpaca_leaderboard,
    is_inspect,
)
from benchuq.core.readers.lm_eval import (
    SAMPLES_RE,
    is_results,
    model_name,
    results_benchmark,
    samples_benchmark,
)
from benchuq.core.readers.long import (
    ALIASES,
    TaskInfo,
    apply_aliases,
    long_benchmark,
    read_task_table,
    wide_to_long,
)
from benchuq.core.readers.merge import merge
from benchuq.core.readers.table import (
    ArrowTable,
    Source,
    Table,
    check_mapping,
    header_table,
    is_parquet,
    jsonl_table,
    looks_like_json,
    parse_json,
    read_arrow,
    read_table,
    records_table,
    rename_columns,
)

SAMPLE_DIR = Path(str(files("benchuq.sample_data")))
FORMATS: tuple[str, ...] = (
    "auto",
    "long",
    "wide",
    "items",
    "lm_eval",
    "lm_eval_samples",
    "alpaca_eval",
    "inspect",
)
#: Files a folder load reads (others, such as README.md, are ignored).
DATA_SUFFIXES = frozenset({".csv", ".tsv", ".txt", ".json", ".jsonl", ".parquet", ".pq"})
SAMPLES: dict[str, str] = {
    "vtab1k": "VTAB-1k: 16 vision models x 19 tasks in 3 categories, integer counts (2019).",
    "mmlu": "MMLU 5-shot: 20 language models x 57 subjects in 4 categories, counts (lm-eval).",
    "alpaca_eval": "AlpacaEval 2.0: 9 models x 805 instructions judged by GPT-4 Turbo, 5 sources.",
    "toy": "Toy: two models, three tasks of 200, 10,000 and 20,000 items; they differ on one.",
}
_SAMPLE_FILES: dict[str, tuple[str, str]] = {
    "vtab1k": ("vtab1k.csv", "long"),
    "mmlu": ("mmlu", "lm_eval"),
    "alpaca_eval": ("alpaca_eval.csv", "alpaca_eval"),
    "toy": ("toy.csv", "long"),
}
_SAMPLE_NOTES: dict[str, tuple[str, ...]] = {
    "vtab1k": (
        "VTAB-1k (google-research/task_adaptation): correct = round(accuracy x n_scored); "
        "From-Scratch's published accuracies are not whole counts and were rounded.",
    ),
    "mmlu": (
        "MMLU 5-shot (lm-evaluation-harness results of LLaMA, MPT-7B and Pythia): "
        "correct = acc x n_test, exact for every subject.",
    ),
    "alpaca_eval": (
        "AlpacaEval 2.0 (tatsu-lab/alpaca_eval): per-instruction preference of GPT-4 Turbo "
        "against gpt4_1106_preview; subgroups = instruction source.",
    ),
}


def load_sample(name: str) -> Benchmark:
    """A bundled sample data set by name (see :data:`SAMPLES`)."""
    if name not in _SAMPLE_FILES:
        raise DataError(
            f"unknown sample '{name}'.",
            hint=f"choose one of {sorted(SAMPLES)} (e.g. sample:vtab1k).",
        )
    file, fmt = _SAMPLE_FILES[name]
    bench = load_path(SAMPLE_DIR / file, format=fmt, name=name)
    extra = _SAMPLE_NOTES.get(name, ())
    return bench._replace(notes=extra + bench.notes) if extra else bench


def resolve(
    data: str,
    *,
    format: str = "auto",
    tasks: str | None = None,
    metric: str = "acc",
    name: str | None = None,
) -> Benchmark:
    """``sample:<name>``, a file or a folder (the CLI's ``DATA`` argument)."""
    if data.startswith("sample:"):
        return load_sample(data.split(":", 1)[1])
    return load_path(data, format=format, tasks=tasks, metric=metric, name=name)


def load_path(
    path: str | Path,
    *,
    format: str = "auto",
    tasks: str | Path | None = None,
    metric: str = "acc",
    name: str | None = None,
) -> Benchmark:
    """Load a file, every file of a folder (recursively; hidden files skipped) or the files a
    glob pattern such as ``runs/part-*.parquet`` matches (shards of one item table are read as
    one table)."""
    p = Path(path)
    if not p.exists() and any(ch in str(path) for ch in "*?["):  # a glob of shards
        root = Path(re.split(r"[*?\[]", str(path), maxsplit=1)[0] + "x").parent
        matches = sorted(Path(f) for f in glob.glob(str(path), recursive=True))
        matches = [f for f in matches if f.is_file()]
        if not matches:
            raise DataError("no file matches the pattern.", file=str(path), hint="check it.")
        sources = [(str(f.relative_to(root)), f.read_bytes()) for f in matches]
        default_name = root.name or "data"
    elif not p.exists():
        raise DataError("no such file or folder.", file=str(path), hint="check the path.")
    elif p.is_dir():
        files = sorted(
            f
            for f in p.rglob("*")
            if f.is_file() and not _hidden(f, p) and f.suffix.lower() in DATA_SUFFIXES
        )
        if not files:
            raise DataError(
                f"the folder contains no data files ({', '.join(sorted(DATA_SUFFIXES))}).",
                file=str(path),
                hint="put result files in it.",
            )
        sources = [(str(f.relative_to(p)), f.read_bytes()) for f in files]
        default_name = p.name
    else:
        sources = [(p.name, p.read_bytes())]
        default_name = p.stem
    task_src = None
    if tasks is not None:
        tp = Path(tasks)
        if not tp.is_file():
            raise DataError("the task table file does not exist.", file=str(tasks))
        task_src = (tp.name, tp.read_bytes())
    return load_files(
        sources, format=format, tasks=task_src, metric=metric, name=name or default_name
    )


def _hidden(f: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in f.relative_to(root).parts)


@dataclass
class _File:
    """One input file after classification: its kind and what was parsed from it."""

    src: Source
    kind: str
    table: Table | ArrowTable | list[ArrowTable] | None = None
    raw_columns: tuple[str, ...] = ()


DATA_KINDS = ("long", "wide", "items", "lm_eval", "lm_eval_samples", "alpaca_eval", "inspect")
AUX_LABELS = {
    "task_table": "a task table (task, category, n)",
    "instructions": "an AlpacaEval instruction list",
    "alpaca_leaderboard": "an AlpacaEval leaderboard summary",
}
AUX_KINDS = tuple(AUX_LABELS)
#: With a ``model`` column, any of these marks a long table (so a missing ``task`` is reported).
LONG_SCORE_COLUMNS = frozenset({"n", "correct", "accuracy", "estimate", "se"})


def load_files(
    files: list[tuple[str, bytes]],
    *,
    format: str = "auto",
    tasks: tuple[str, bytes] | None = None,
    metric: str = "acc",
    columns: dict[str, str] | None = None,
    name: str | None = None,
) -> Benchmark:
    """Load uploaded files ``[(file name, bytes), ...]`` into one :class:`Benchmark`.

    In a folder or a multi-file upload, a task table (``task, category, n``), AlpacaEval's
    instruction list and, next to annotations, its leaderboard file are recognised and used or
    set aside (with a note); lm-eval results files next to sample files name the model.
    """
    if format not in FORMATS:
        raise DataError(f"unknown format '{format}'.", hint=f"choose one of {', '.join(FORMATS)}.")
    if not files:
        raise DataError("no files were given.", hint="upload at least one results file.")
    sources = [Source(str(n), bytes(b)) for n, b in files]
    classified = [_classify(src, columns) for src in sources]
    if columns:
        check_mapping(columns, {c for f in classified for c in f.raw_columns}, sources[0].name)
    notes: list[str] = []
    task_info = None
    if tasks is not None:
        task_info = read_task_table(read_table(Source(*tasks)))
    task_tables = [f for f in classified if f.kind == "task_table"]
    data = [f for f in classified if f.kind not in AUX_KINDS]
    if not data and len(classified) == 1 and classified[0].kind == "alpaca_leaderboard":
        data = classified
    if not data:
        raise DataError(
            "no results in the file(s): "
            + ", ".join(f"'{f.src.name}' looks like {AUX_LABELS[f.kind]}" for f in classified)
            + ".",
            file=classified[0].src.name,
            hint="load the results files (with model names and scores); a task table goes with "
            "them (in the same folder, or as the task table).",
        )
    if task_tables:
        if task_info is not None or len(task_tables) > 1:
            raise DataError(
                "more than one task table.",
                file=task_tables[-1].src.name,
                hint="give one task table (task, category, n).",
            )
        task_info = read_task_table(task_tables[0].table)
        notes.append(f"task table: '{task_tables[0].src.name}'.")
    for f in classified:
        if f.kind in ("instructions", "alpaca_leaderboard") and f not in data:
            notes.append(f"'{f.src.name}' ({AUX_LABELS[f.kind]}) was set aside.")
    if format != "auto":
        # with sample files, lm-eval results files stay what they are: they name the model
        keep = ("lm_eval",) if format == "lm_eval_samples" else ()
        data = [f if f.kind in keep else _File(f.src, format, f.table) for f in data]
    shards = [f for f in data if f.kind == "items" and isinstance(f.table, ArrowTable)]
    if 1 < len(shards) == len(data):  # shards of one item table: read as one
        data = [_File(shards[0].src, "items", [f.table for f in shards])]
    samples_present = any(f.kind == "lm_eval_samples" for f in data)
    if samples_present:
        results = [f for f in data if f.kind == "lm_eval"]
        data = [f for f in data if f.kind != "lm_eval"]
        models = _sample_models(results)
    else:
        models = {}
    default = name or (_stem(sources[0].name) if len(sources) == 1 else "data")
    parts = [
        (
            f.src.name,
            _with_file(lambda f=f: _one(f, task_info, metric, models, default), f.src.name),
        )
        for f in data
    ]
    bench = _with_file(lambda: merge(parts, name=default), sources[0].name)
    if task_info is not None:
        bench = _apply_task_info(bench, task_info)
    absent = int(np.isnan(bench.estimate).sum())
    if absent:
        notes.append(f"{absent} model-task results are missing (shown as blanks).")
    lacking = sum(
        int((it.shape[1] - it.answered)[~np.isnan(bench.estimate[:, j])].sum())
        for j, it in enumerate(bench.item_tasks or ())
    )
    if lacking:
        notes.append(
            f"{lacking} item scores are missing for models that have the task (left out of "
            "that model's mean)."
        )
    if len(bench.models) == 1:
        notes.append("only one model: intervals work; comparisons need two or more models.")
    return bench._replace(notes=tuple(notes) + bench.notes) if notes else bench


def _apply_task_info(bench: Benchmark, info: TaskInfo) -> Benchmark:
    """Categories and chance levels from the task table override the files' own."""
    chance = np.array(
        [info.chance.get(t, c) for t, c in zip(bench.tasks, bench.chance, strict=True)]
    )
    return bench.with_categories(info.category)._replace(chance=chance)


def _stem(name: str) -> str:
    base = name.rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base else base


def _classify(src: Source, columns: dict[str, str] | None) -> _File:
    """Detect one file's kind from its content."""
    base = src.name.rsplit("/", 1)[-1]
    if SAMPLES_RE.match(base) or (base.endswith(".jsonl") and b'"doc_id"' in src.data[:100000]):
        return _File(src, "lm_eval_samples")
    head = header_table(src)  # long item tables: read at Arrow speed (issue 18)
    if head is not None and (f := _table_kind(src, head, columns)).kind == "items":
        arrow = read_arrow(src, apply_aliases(f.table), FEW_NAMES)
        if arrow is not None:
            return _File(src, "items", arrow, f.raw_columns)
    if base.endswith(".jsonl"):
        return _table_kind(src, jsonl_table(src), columns)
    if is_parquet(src):
        return _table_kind(src, read_table(src), columns)
    if looks_like_json(src):
        obj = parse_json(src)
        if is_results(obj):
            return _File(src, "lm_eval")
        if is_inspect(obj):
            return _File(src, "inspect")
        return _table_kind(src, records_table(src.name, obj), columns)
    return _table_kind(src, read_table(src), columns)


def _table_kind(src: Source, raw: Table, columns: dict[str, str] | None) -> _File:
    table = rename_columns(raw, columns)
    cols = set(apply_aliases(table).frame.columns)
    if is_alpaca(cols):
        kind = "alpaca_eval"
    elif is_alpaca_leaderboard(set(table.frame.columns)):
        kind = "alpaca_leaderboard"
    elif set(ITEM_COLUMNS) <= cols:
        kind = "items"
    elif {"model", "task"} <= cols or ("model" in cols and cols & LONG_SCORE_COLUMNS):
        kind = "long"
    elif "task" in cols and cols & {"category", "n"} and "model" not in cols:
        kind = "task_table"
    elif {"instruction", "instruction_index"} <= cols:
        kind = "instructions"
    else:
        kind = "wide"
    return _File(src, kind, table, tuple(str(c) for c in raw.frame.columns))


def detect_format(src: Source) -> str:
    """The format ``auto`` picks for one file (``task_table`` etc. for auxiliary files)."""
    return _classify(src, None).kind


def _sample_models(results: list[_File]) -> dict[str, str]:
    """Folder (and results timestamp) -> model name, from lm-eval results files."""
    out: dict[str, str] = {}
    for f in results:
        model = model_name(parse_json(f.src), f.src.name)
        folder = f.src.name.rsplit("/", 1)[0] if "/" in f.src.name else ""
        out.setdefault(folder, model)
        ts = f.src.name.rsplit("results_", 1)[-1].removesuffix(".json")
        out[f"{folder}|{ts}"] = model
    return out


def _one(
    f: _File, tasks: TaskInfo | None, metric: str, models: dict[str, str], name: str
) -> Benchmark:
    """The benchmark of one data file in its format."""
    src, kind = f.src, f.kind
    table = f.table if kind == "items" or isinstance(f.table, Table) else None
    if kind in ("long", "wide", "items", "alpaca_eval") and table is None:
        table = read_table(src)
    if kind == "long":
        return long_benchmark(table, tasks=tasks, name=name)
    if kind == "wide":
        return long_benchmark(wide_to_long(table), tasks=tasks, name=name)
    if kind == "items":
        return items_benchmark(item_records(table), name=name)
    if kind == "alpaca_eval":
        return alpaca_benchmark(table, name=name)
    if kind == "alpaca_leaderboard":
        return alpaca_leaderboard_benchmark(table, name=name)
    if kind in ("lm_eval", "inspect") and not looks_like_json(src):
        raise DataError(
            f"this is not a JSON file; format '{kind}' reads "
            + ("lm-evaluation-harness results JSON." if kind == "lm_eval" else "inspect_ai logs."),
            file=src.name,
            hint="choose the format that matches the file, or 'auto'.",
        )
    if kind == "lm_eval":
        return results_benchmark(src, metric=metric, tasks=tasks)
    if kind == "inspect":
        return inspect_benchmark(src, metric=metric)
    folder = src.name.rsplit("/", 1)[0] if "/" in src.name else ""
    m = SAMPLES_RE.match(src.name.rsplit("/", 1)[-1])
    model = models.get(f"{folder}|{m.group('ts')}" if m else "") or models.get(folder)
    return samples_benchmark(src, metric=metric, model=model)


def required_columns(format: str) -> tuple[str, ...]:
    """The columns a table of ``format`` needs (the long format also accepts ``accuracy`` with
    n, or ``estimate, se``, in place of ``n, correct``; see :func:`missing_columns`)."""
    return REQUIRED.get(format, ())


REQUIRED: dict[str, tuple[str, ...]] = {
    "long": ("model", "task", "n", "correct"),
    "wide": ("model",),
    "items": ITEM_COLUMNS,
    "alpaca_eval": ("generator_2", "preference", "instruction_index"),
}
OPTIONAL: dict[str, tuple[str, ...]] = {
    "long": ("category", "accuracy", "estimate", "se", "chance", "higher_is_better"),
    "items": ("cluster", "subgroup", "category"),
    "alpaca_eval": ("dataset", "instruction"),
}


def missing_columns(
    columns: list[str], format: str = "long", *, task_table: bool = False
) -> list[str]:
    """Which of our columns a table with ``columns`` still lacks for ``format`` (for a column
    mapper). For ``long``: ``n, correct``, or ``accuracy`` with ``n`` (``n`` may come from a task
    table), or ``estimate, se``."""
    have = {c.strip().lower() for c in columns}
    for ours, alts in ALIASES.items():
        if have & set(alts):
            have.add(ours)
    if format == "long":
        need = ["model", "task"]
        if "correct" in have or "accuracy" in have:
            need += [] if task_table else ["n"]
            need += ["correct"] if "accuracy" not in have else []
        elif "estimate" in have:
            need += ["se"]
        else:
            need += ["correct"] + ([] if task_table else ["n"])
        return [c for c in need if c not in have]
    if format == "alpaca_eval" and "instruction" in have:
        have.add("instruction_index")
    return [c for c in required_columns(format) if c not in have]


def file_columns(file: tuple[str, bytes]) -> list[str]:
    """The column names of a table file, for a column mapper (empty for JSON result logs)."""
    f = _classify(Source(str(file[0]), bytes(file[1])), None)
    return list(f.raw_columns)


def _with_file(make: Callable[[], Benchmark], file: str) -> Benchmark:
    """Run ``make()``; a DataError without a file name gets ``file``."""
    try:
        return make()
    except DataError as err:
        if err.file is None:
            raise DataError(
                err.message, file=file, row=err.row, column=err.column, hint=err.hint
            ) from None
        raise

"""Loading results into a :class:`core.data.Benchmark` (METHODS 0): files, folders, uploads, samples.

Entry points: :func:`load_path` (a file or a folder), :func:`load_files` (uploaded bytes, what the
dashboard gets), :func:`load_sample` and :func:`resolve` (``sample:<name>``, a file or a folder).
Formats (``format=``): ``long``, ``wide``, ``items``, ``lm_eval``, ``lm_eval_samples``,
``alpaca_eval``, ``inspect``, or ``auto`` (detected from each file's content). Every failure is a
:class:`DataError` naming the file, row and column and saying how to fix it.
"""

from __future__ import annotations

from pathlib import Path

from core.data import Benchmark, DataError
from core.formats_long import long_benchmark, read_task_table, wide_to_long
from core.formats_table import Source, read_table, rename_columns

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"
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
SAMPLES: dict[str, str] = {
    "vtab1k": "VTAB-1k: 16 vision models x 19 tasks in 3 categories, integer counts (2019).",
    "toy": "Toy: two models, three tasks of 200, 10,000 and 20,000 items; they differ on one.",
}
_SAMPLE_FILES: dict[str, tuple[str, str]] = {
    "vtab1k": ("vtab1k.csv", "long"),
    "toy": ("toy.csv", "long"),
}
_SAMPLE_NOTES: dict[str, tuple[str, ...]] = {
    "vtab1k": (
        "VTAB-1k (google-research/task_adaptation): correct = round(accuracy x n_scored); "
        "From-Scratch's published accuracies are not whole counts and were rounded.",
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
    """Load a file or every file of a folder (recursively; hidden files skipped)."""
    p = Path(path)
    if not p.exists():
        raise DataError("no such file or folder.", file=str(path), hint="check the path.")
    if p.is_dir():
        files = sorted(f for f in p.rglob("*") if f.is_file() and not _hidden(f, p))
        if not files:
            raise DataError(
                "the folder contains no files.", file=str(path), hint="put result files in it."
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


def load_files(
    files: list[tuple[str, bytes]],
    *,
    format: str = "auto",
    tasks: tuple[str, bytes] | None = None,
    metric: str = "acc",
    columns: dict[str, str] | None = None,
    name: str | None = None,
) -> Benchmark:
    """Load uploaded files ``[(file name, bytes), ...]`` into one :class:`Benchmark`."""
    if format not in FORMATS:
        raise DataError(f"unknown format '{format}'.", hint=f"choose one of {', '.join(FORMATS)}.")
    if not files:
        raise DataError("no files were given.", hint="upload at least one results file.")
    sources = [Source(str(n), bytes(b)) for n, b in files]
    task_info = read_task_table(read_table(Source(*tasks))) if tasks is not None else None
    fmt = format
    if fmt == "auto":
        fmt = detect_format(sources[0])
    if fmt in ("long", "wide"):
        if len(sources) != 1:
            raise DataError(
                f"{len(sources)} files given; a {fmt} table is one file.",
                file=sources[1].name,
                hint="combine the tables into one file, or load them one at a time.",
            )
        table = rename_columns(read_table(sources[0]), columns)
        if fmt == "wide":
            table = wide_to_long(table)
        return _with_file(
            lambda: long_benchmark(table, tasks=task_info, name=name), sources[0].name
        )
    raise DataError(f"format '{fmt}' is not supported here.", file=sources[0].name)


def detect_format(src: Source) -> str:
    """Guess a file's format from its content (column names, JSON keys)."""
    table = read_table(src)
    cols = set(table.frame.columns)
    if {"model", "task"} <= cols:
        return "long"
    return "wide"


def _with_file(make, file: str) -> Benchmark:
    """Run ``make()``; a DataError without a file name gets ``file``."""
    try:
        return make()
    except DataError as err:
        if err.file is None:
            raise DataError(
                err.message, file=file, row=err.row, column=err.column, hint=err.hint
            ) from None
        raise

"""Work budgets for a shared server: hard caps on settings and a per-request work limit.

Every check runs before anything is allocated and raises :class:`BudgetExceeded` (an
:class:`~benchuq.core.validation.InvalidArgument`: the CLI exits with code 2, the app shows the
message) naming the setting and the nearest allowed value.

- :data:`CAPS`: upper limits of replicates, chains, draws and warm-up sweeps;
- :func:`check_cells`: a draws array ``R x M x T`` (8 bytes a cell) within
  :func:`work_bytes` (``BENCHUQ_WORK_MB``, default 512);
- :func:`check_pairs`: pairwise work ``R x M x M`` within the same limit;
- :func:`check_design`: a least-squares design matrix within the limit and :data:`MAX_FLOPS`;
- :func:`check_read`: reading a file within the same limit, from its size before it is parsed
  (:data:`READ_FACTORS`: working memory per byte of each reading path, measured) plus, inside
  :func:`reading`, every other file of the request held in memory meanwhile and what the files
  parsed before it keep (:data:`KEEP_FACTOR`), and
  :data:`MAX_COLUMNS`, :data:`MAX_ENTRIES`, :data:`MAX_MODELS`: shape limits checked from a
  header, a directory or a first pass, before the work they would cause;
- :class:`Deadline`: a wall-clock budget for iterative samplers (``BENCHUQ_SAMPLER_SECONDS``,
  default 300), checked once a sweep;
- :func:`stop_when` / :func:`checkpoint`: a cooperative stop of this thread's work from outside
  (the app stops the work of a closed browser tab), checked wherever a deadline is and by
  :func:`checkpoint` in other long loops.

The choice of defaults: a small server (2 cores, 4 GB) serving a few users at once. The work
limit equals the cache budget (``BENCHUQ_CACHE_MB``, 512), so the server holds at most the
cache plus one request in flight; a deployment raises both with the environment variables.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from benchuq.core.data import DataError
from benchuq.core.options import option
from benchuq.core.validation import InvalidArgument

__all__ = [
    "CAPS",
    "BudgetExceeded",
    "Deadline",
    "Stopped",
    "check_cap",
    "check_cells",
    "check_design",
    "check_instances",
    "check_pairs",
    "check_read",
    "checkpoint",
    "hold",
    "read_need",
    "reading_files",
    "stop_when",
    "work_bytes",
]

#: Hard upper limits of run settings (the CLI's flags and the app's link parameters).
CAPS = {"reps": 20_000, "chains": 16, "draws": 20_000, "warmup": 20_000}
_CELL = 8  # bytes of one float64 cell
#: Peak working memory per byte read, by reading path (measured with ``ru_maxrss`` on long CSV
#: tables of 17-120 MB, README "Hosted use"): pandas' parse of text columns 17x, Arrow's CSV and
#: JSON Lines reader 4-6x, a Parquet file 3x its uncompressed size, a JSON document 8-12x.
READ_FACTORS = {"pandas": 20, "arrow": 6, "parquet": 3, "json": 12}
#: Memory an already parsed file keeps per byte of it while the request's next files are read
#: (its columns and labels; measured with ``benchmarks/bench_budget.py``, a zip of eight members).
KEEP_FACTOR = 1.0
#: Memory per instance-level record of an Every Eval Ever export: its JSON line, the list that
#: joins it and the file's text, all models' files held until written (measured 836 bytes a
#: record with short names, ``benchmarks/bench_budget.py``: 3.6 million records took 2.8 GB).
INSTANCE_BYTES = 1000
#: Columns of a table, entries of an archive or folder, models of a data set: more is refused
#: from the header, the directory or the first pass over the model column.
MAX_COLUMNS = 20_000
MAX_ENTRIES = 10_000
MAX_MODELS = 10_000
#: floating-point operations one least-squares fit may take (about a minute on one core)
MAX_FLOPS = 2e10


class BudgetExceeded(InvalidArgument):
    """A request over its budget; the message names the setting and the nearest allowed value."""


def work_bytes() -> int:
    """The per-request work limit in bytes (``BENCHUQ_WORK_MB``, default 512 MB)."""
    return int(float(os.environ.get("BENCHUQ_WORK_MB", "512")) * 2**20)


def sampler_seconds() -> float:
    """The wall-clock budget of one sampler run (``BENCHUQ_SAMPLER_SECONDS``, default 300)."""
    return float(os.environ.get("BENCHUQ_SAMPLER_SECONDS", "300"))


def check_cap(name: str, value: int, *, flag: str | None = None) -> int:
    """``value`` if it is at most ``CAPS[name]``, else :class:`BudgetExceeded`."""
    cap = CAPS[name]
    if value > cap:
        raise BudgetExceeded(
            f"{flag or name} {value:,} is above the limit of {cap:,}.",
            hint=f"use {flag or name} {cap} or less.",
        )
    return value


def _mb(cells: float) -> str:
    return f"{cells * _CELL / 2**20:,.0f} MB"


def check_cells(reps: int, models: int, tasks: int, *, flag: str | None = None) -> None:
    """Refuse draws ``reps x models x tasks`` larger than :func:`work_bytes` (the fix names
    ``flag``, default the ``reps`` option in each surface's words, ``core.options``)."""
    per_rep = max(models * tasks, 1)
    limit = work_bytes() // _CELL
    if reps * per_rep > limit:
        most = limit // per_rep
        fix = (
            f"use {option('reps', most) if flag is None else f'{flag} {most}'} or less, or fewer "
            "models or tasks"
            if most >= 100
            else "select fewer models or tasks (or split the data)"
        )
        raise BudgetExceeded(
            f"{reps:,} replicates x {models:,} models x {tasks:,} tasks need "
            f"{_mb(reps * per_rep)}, "
            f"over the per-request limit of {_mb(limit)} (BENCHUQ_WORK_MB).",
            hint=fix + ".",
        )


_reads = threading.local()  # the request's files in memory: :func:`reading`


@contextmanager
def reading_files() -> Iterator[None]:
    """While inside, :func:`check_read` counts the bytes :func:`hold` declares (every file and
    archive member of the request, all in memory while each is parsed) and what the files
    parsed before keep (:data:`KEEP_FACTOR`): one file within the limit is not enough when
    twenty members of a zip are held and parsed one after another (an 80 MB zip of items in
    ``diff`` used 583 MB against a limit of 512)."""
    outer = getattr(_reads, "state", None)
    _reads.state = [0, {}]
    try:
        yield
    finally:
        _reads.state = outer


def hold(held: int) -> None:
    """Declare the bytes of the request's files held in memory (inside :func:`reading_files`;
    elsewhere nothing)."""
    state = getattr(_reads, "state", None)
    if state is not None:
        state[0] = held


def read_need(file: str, size: int, *, path: str) -> int:
    """The working memory :func:`check_read` expects for reading ``size`` bytes of ``file``
    along ``path``: its parse, the request's other bytes held (inside :func:`reading`) and what
    the files parsed before it keep."""
    held, parsed = getattr(_reads, "state", None) or (size, {})
    held = max(held, size)
    earlier = sum(v for k, v in parsed.items() if k != file)
    return int(size * READ_FACTORS[path] + max(held - size, 0) + KEEP_FACTOR * earlier)


def check_read(file: str, size: int, *, path: str) -> None:
    """Refuse to read ``size`` bytes of ``file`` along reading ``path`` (a key of
    :data:`READ_FACTORS`) when its working memory (:func:`read_need`) would exceed
    :func:`work_bytes`; checked before anything is parsed. A
    :class:`~benchuq.core.data.DataError` (the file is too large for this server), shown where
    a bad file is."""
    need = read_need(file, size, path=path)
    limit = work_bytes()
    state = getattr(_reads, "state", None)
    if need > limit:
        held = max(state[0], size) if state else size
        together = (
            f" (with the {held / 2**20:,.1f} MB of files read together)" if held > size else ""
        )
        raise DataError(
            f"reading {size / 2**20:,.1f} MB of data this way{together} needs about "
            f"{need / 2**20:,.0f} MB of working memory, over the per-request limit of "
            f"{limit / 2**20:,.0f} MB (BENCHUQ_WORK_MB).",
            file=file,
            hint="split the file, keep only the result columns (long tables with model, task, "
            "item and score read leanest, Parquet best), or raise BENCHUQ_WORK_MB where you "
            "run benchuq.",
        )
    if state:
        state[1][file] = size


def check_pairs(reps: int, models: int, *, what: str = "pairwise comparisons") -> None:
    """Refuse pairwise work ``reps x models x models`` larger than :func:`work_bytes`."""
    limit = work_bytes() // _CELL
    if reps * models * models > limit:
        most = int((limit / max(reps, 1)) ** 0.5)
        raise BudgetExceeded(
            f"{what} of {models:,} models over {reps:,} replicates need "
            f"{_mb(reps * models * models)}, over the per-request limit of {_mb(limit)} "
            "(BENCHUQ_WORK_MB).",
            hint=f"select at most {most:,} models, or use fewer replicates.",
        )


def check_instances(records: int) -> None:
    """Refuse an Every Eval Ever export of ``records`` instance-level records (items x models)
    whose files would take more than :func:`work_bytes` (:data:`INSTANCE_BYTES` a record)."""
    need = records * INSTANCE_BYTES
    limit = work_bytes()
    if need > limit:
        raise BudgetExceeded(
            f"an Every Eval Ever export of {records:,} instance-level records (items x models) "
            f"needs about {need / 2**20:,.0f} MB, over the per-request limit of "
            f"{limit / 2**20:,.0f} MB (BENCHUQ_WORK_MB).",
            hint=f"export at most {limit // INSTANCE_BYTES:,} records: fewer models or tasks "
            "(split the data), or raise BENCHUQ_WORK_MB where you run benchuq.",
        )


def check_design(rows: int, columns: int, *, what: str) -> None:
    """Refuse a least-squares fit of ``rows x columns`` over :func:`work_bytes` or over
    :data:`MAX_FLOPS` (``rows x columns**2``: minutes of CPU on a small server)."""
    limit = work_bytes() // _CELL
    if rows * columns > limit or rows * columns**2 > MAX_FLOPS:
        raise BudgetExceeded(
            f"{what}: a design of {rows:,} rows x {columns:,} columns is over the per-request "
            f"limit ({_mb(limit)}, {MAX_FLOPS:.0e} operations).",
            hint="use features with fewer levels (e.g. category instead of model).",
        )


class Stopped(BudgetExceeded):
    """Work ended from outside by :func:`stop_when` (e.g. the browser tab that asked is closed)."""


_stop = threading.local()  # this thread's stop condition, set by :func:`stop_when`


@contextmanager
def stop_when(stopped: Callable[[], bool], why: str) -> Iterator[None]:
    """While inside, :func:`checkpoint` in this thread raises :class:`Stopped` once ``stopped()``
    is true (``why`` ends its message). The condition is per thread: sessions of an app server run
    in their own threads and stop only their own work. Nested use keeps the outer condition too."""
    outer = getattr(_stop, "conditions", ())
    _stop.conditions = (*outer, (stopped, why))
    try:
        yield
    finally:
        _stop.conditions = outer


def checkpoint(what: str) -> None:
    """Raise :class:`Stopped` if a :func:`stop_when` condition of this thread holds; cheap enough
    to call once a sweep or chunk."""
    for stopped, why in getattr(_stop, "conditions", ()):
        if stopped():
            raise Stopped(f"{what} was stopped: {why}.", hint="run it again when needed.")


class Deadline:
    """A wall-clock budget: :meth:`check` raises :class:`BudgetExceeded` once it has passed."""

    def __init__(self, what: str, seconds: float | None = None) -> None:
        self.what = what
        self.seconds = sampler_seconds() if seconds is None else seconds
        self.start = time.perf_counter()

    def check(self, hint: str) -> None:
        """Raise if more than the budget has elapsed since construction, or if this thread's
        work was stopped (:func:`checkpoint`)."""
        checkpoint(self.what)
        if time.perf_counter() - self.start > self.seconds:
            raise BudgetExceeded(
                f"{self.what} was stopped after {self.seconds:g} s (BENCHUQ_SAMPLER_SECONDS).",
                hint=hint,
            )

"""Data in: :func:`load` (files, samples, published sets), :func:`from_frame`, :func:`samples`.

The loaded :class:`~benchuq.core.data.Benchmark` carries its context
(:class:`~benchuq.core.data.Context`: source, run details, lm-eval groups) on itself, so every
function that takes it knows what "overall" stands for and what a report's link opens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from benchuq.core.data import Context
from benchuq.core.item_statistic import parse_statistic, per_item
from benchuq.core.reading.sources import parse_source
from benchuq.core.validation import InvalidArgument, check_choice, check_known, check_types

if TYPE_CHECKING:
    import pandas as pd

    from benchuq.core.data import Benchmark
    from benchuq.core.reading.battles import Battles

__all__ = ["from_frame", "load", "load_battles", "samples"]


def load(
    source: str | Path | Sequence[str | Path],
    *,
    format: str = "auto",
    tasks: str | Path | None = None,
    metric: str | None = None,
    name: str | None = None,
    failed: Literal["exclude", "wrong"] = "exclude",
    runs: Literal["newest", "all"] = "newest",
    statistic: str = "mean",
) -> Benchmark:
    """Read a benchmark: anything ``DATA`` takes on the command line.

    Parameters
    ----------
    source
        ``sample:<name>`` (see :func:`samples`), ``shared:<id>`` (a published data set), or one
        or more files, folders, zip archives or glob patterns read together (lm-eval output
        folders, HELM runs, inspect_ai logs, item or long tables, ...).
    format
        The input format (``"auto"`` detects it from the content).
    tasks
        A task table (``task, category, n[, chance]``).
    metric
        The metric read from lm-eval and HELM files (default: each format's own).
    name
        The data set's name in titles (default: a sample's name, or one from the files'
        content, e.g. ``"lm-eval v0.4: 2 models x 16 benchmarks"``, as the CLI and the app say).
    failed
        Samples that failed (errors, limits): left out (``"exclude"``) or scored 0 (``"wrong"``).
    runs
        Two runs of one model on the same tasks: the newest kept, or ``"all"``.
    statistic
        What each item scores when it holds several answers (``--statistic``, METHODS 2e):
        ``"mean"`` (every answer), ``"pass@K"`` (right in at least one of K tries, the unbiased
        estimator) or ``"pass^K"`` (right in all K tries).

    Returns
    -------
    Benchmark
        The immutable, content-hashed data set; its ``notes`` say what was read and skipped,
        its ``context`` what the files said (run details, lm-eval groups) and, for a sample or
        a published set, the value a report's link opens.

    Raises
    ------
    DataError
        A file that cannot be read, naming file, row, column and a fix.

    Examples
    --------
    >>> import benchuq as bq
    >>> bench = bq.load("sample:vtab1k")
    >>> bench.name, len(bench.models), len(bench.tasks)
    ('vtab1k', 16, 19)
    """
    check_types(locals())
    stat = parse_statistic(statistic)
    sources = [str(source)] if isinstance(source, str | Path) else [str(s) for s in source]
    if not sources:
        raise InvalidArgument("no data given.", hint="pass a path or 'sample:vtab1k'.")
    shared = [s for s in sources if s.startswith("shared:")]
    if shared:
        if len(sources) > 1:
            raise InvalidArgument(f"{shared[0]} cannot be combined with other data.")
        from benchuq.store import read_shared
        from benchuq.store.battles import refuse_battles

        refuse_battles(shared[0])
        loaded = read_shared(shared[0])
        context = Context(source=parse_source(shared[0]).text, meta=loaded.meta)
        return per_item(replace(loaded.bench, context=context), stat)
    from benchuq.core.reading.loaders import FORMATS, read_data

    check_choice(format, FORMATS, name="format")
    tasks_path = None if tasks is None else str(tasks)
    loaded = read_data(
        sources, format=format, tasks=tasks_path, metric=metric, name=name, failed=failed, runs=runs
    )
    one = parse_source(sources)
    named = name if name is not None else loaded.bench.name
    if name is None and one.kind != "sample":
        from benchuq.core.reading.naming import data_name

        named = data_name(loaded)  # as the CLI and the app name it
    # the groups choose the headline of its draws (bootstrap); a sample's value is its link
    context = Context(source=one.text if one.kind == "sample" else "", meta=loaded.meta)
    return per_item(replace(loaded.bench, name=named, context=context), stat)


def samples() -> dict[str, str]:
    """The bundled sample data sets: ``{name: one-line description}`` (``load("sample:NAME")``).

    Examples
    --------
    >>> import benchuq as bq
    >>> sorted(bq.samples())
    ['alpaca_eval', 'mmlu', 'toy', 'vtab1k']
    """
    from benchuq.core.reading.loaders import SAMPLES

    return dict(SAMPLES)


def from_frame(
    df: pd.DataFrame,
    *,
    model: str = "model",
    task: str = "task",
    item: str | None = None,
    score: str | None = None,
    category: str | None = None,
    epoch: str | None = None,
    n: str | None = None,
    correct: str | None = None,
    estimate: str | None = None,
    se: str | None = None,
    name: str = "data frame",
) -> Benchmark:
    """A benchmark from a pandas DataFrame in long form, read exactly as the same table in a file.

    Three forms, by the columns named:

    - items: ``item`` and ``score`` (one row per model, task and item; binary or continuous
      scores; with ``epoch``, one row per answer: an item's score is the mean of its answers
      and it stays one item, the unit of resampling);
    - counts: ``n`` and ``correct`` (one row per model and task);
    - estimate/se: ``estimate`` and ``se`` (one row per model and task).

    Parameters
    ----------
    df
        The table.
    model, task, item, score, category, epoch, n, correct, estimate, se
        The names of the columns holding each field (``category`` optional).
    name
        The data set's name in titles and messages.

    Returns
    -------
    Benchmark
        The same benchmark as writing ``df`` (with these columns) to a CSV file and loading it.

    Raises
    ------
    InvalidArgument
        A column name that is not in ``df``, or no complete form named.
    DataError
        Bad values (missing scores, duplicates, ...), naming the row and column.

    Examples
    --------
    >>> import pandas as pd
    >>> import benchuq as bq
    >>> df = pd.DataFrame({
    ...     "system": ["a", "a", "b", "b"] * 2,
    ...     "benchmark": ["t"] * 8,
    ...     "question": [1, 2, 1, 2, 3, 4, 3, 4],
    ...     "correct": [1, 0, 1, 1, 0, 1, 1, 1],
    ... })
    >>> bench = bq.from_frame(df, model="system", task="benchmark", item="question",
    ...                       score="correct")
    >>> bench.kind, bench.models
    ('items', ('a', 'b'))
    """
    check_types(locals())
    from benchuq.core.data import DataError

    repeated = list(dict.fromkeys(str(c) for c in df.columns[df.columns.duplicated()]))
    if repeated:
        raise DataError(
            f"df has duplicate column names {repeated}: each column needs a name of its own.",
            column=repeated[0],
            hint="rename or drop the repeats (df.loc[:, ~df.columns.duplicated()] keeps the "
            "first of each).",
        )
    named = {"model": model, "task": task, "category": category}
    if item is not None or score is not None:
        named |= {"item": item, "score": score}
        form = "items"
    elif n is not None or correct is not None:
        named |= {"n": n, "correct": correct}
        form = "long"
    elif estimate is not None or se is not None:
        named |= {"estimate": estimate, "se": se}
        form = "long"
    else:
        raise InvalidArgument(
            "name the columns of one form.",
            hint="item= and score= (item level), n= and correct= (counts), or estimate= and se=.",
        )
    missing = [ours for ours, theirs in named.items() if theirs is None and ours != "category"]
    if missing:
        raise InvalidArgument(f"from_frame needs the column names {missing} for this form.")
    columns = {ours: theirs for ours, theirs in named.items() if theirs is not None}
    if epoch is not None:
        if form != "items":
            raise InvalidArgument("epoch= needs item-level scores (item= and score=).")
        columns["epoch"] = epoch
    check_known(list(columns.values()), [str(c) for c in df.columns], what="columns of df")
    table = df[list(columns.values())].set_axis(list(columns), axis=1)
    from benchuq.core.reading.loaders import load_files

    text = table.to_csv(index=False).encode()
    try:
        bench = load_files([(f"{name}.csv", text)], format=form, name=name)
    except DataError as err:  # name the DataFrame's own columns and rows
        at = ""
        if err.row is not None:
            at = f" Row {err.row} is df.iloc[{err.row - 2}]."
        raise DataError(
            err.message + at,
            file=name,
            row=err.row,
            column=columns.get(err.column or "", err.column),
            hint=err.hint,
        ) from None
    return bench


def load_battles(
    source: str | Path | Sequence[str | Path],
    *,
    columns: dict[str, str] | None = None,
    name: str | None = None,
) -> Battles:
    """Read pairwise battles (``model_a, model_b, winner``) for :func:`arena`, as ``benchuq
    arena``'s ``DATA``: CSV, JSONL or Parquet battles tables, AlpacaEval annotations, folders,
    zips, globs, ``sample:mt_bench_battles``, ``sample:alpaca_eval`` or published battles
    (``shared:<id>``, see :mod:`benchuq.store.battles`).

    Parameters
    ----------
    columns
        ``{our name: your column}`` where the table names them otherwise.
    name
        The data set's name in titles.

    Raises
    ------
    DataError
        A file that is not a battles table, naming file, row, column and a fix.

    Examples
    --------
    >>> import benchuq as bq
    >>> bq.load_battles("sample:alpaca_eval")
    Battles('alpaca_eval': 7243 battles, 10 models, prompt)
    """
    check_types(locals())
    from benchuq.core.reading.battles import load_battles as _load_battles

    sources = [source] if isinstance(source, str | Path) else list(source)
    if not sources:
        raise InvalidArgument("no data given.", hint="pass a path or 'sample:mt_bench_battles'.")
    if any(str(s).startswith("shared:") for s in sources):
        if len(sources) > 1:
            raise InvalidArgument(f"{sources[0]} cannot be combined with other data.")
        from benchuq.store.battles import read_battles

        got = read_battles(str(sources[0]))
        return got if name is None else replace(got, name=name)
    return _load_battles([str(s) for s in sources], columns=columns, name=name)

"""inspect_ai eval logs, ``.eval`` (a ZIP, inspect_ai's default) and JSON: one format.

Both give one model (``eval.model``) on one task (``eval.task``); item = sample ``id``; one answer
per sample and epoch. Score values: ``C`` = 1, ``I`` = 0, ``P`` = 0.5, ``N`` = 0 (inspect's own
``value_to_float``), numbers in 0..1 and booleans as they are, and dicts of named values (pick
one with ``metric="scorer/key"``, else the first key, with a note). ``metric="SCORER"`` picks a
scorer; the default is the first of ``results.scores`` (else the first a sample has), and a note
names the others. Samples that errored or hit a limit are left out and counted in a note, or
counted as wrong (score 0) with ``failed="wrong"`` (:mod:`.options`). A status
other than ``success`` (``started``, ``cancelled``, ``error``) is said in a note with the number
of samples the log holds. Several epochs of a sample are one item with several answers
(:class:`~benchuq.core.data.ItemTask` ``answers``).

``.eval`` (:mod:`.eval_zip` reads its members): ``header.json`` (or, for a log still being
written, ``_journal/start.json``), then the per-sample scores of ``summaries.json``; without it
``_journal/summaries/<n>.json`` (a log still being written); without either, the sample files
(``samples/<id>_epoch_<n>.json`` or the chunked ``samples/<id>_epoch_<n>/sample.json``).
``samples/`` is never opened when summaries exist. The last row of a sample and epoch wins (as
inspect_ai's own reader).

JSON: read a value at a time (:func:`json_stream.pruned_json`): of each sample only its ``id``,
``epoch``, ``error``, ``limit`` and its scorers' ``value`` are built.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeGuard

import numpy as np

from benchuq.core.data import Benchmark, DataError
from benchuq.core.options import option
from benchuq.core.reading import eval_zip, options
from benchuq.core.reading.items import ItemRecords, items_benchmark
from benchuq.core.reading.json_stream import Shape, pruned_json
from benchuq.core.reading.long import TaskInfo
from benchuq.core.reading.meta import NO_SAMPLES, Meta, MissingMetric, TaskRun
from benchuq.core.reading.notes import count, listing
from benchuq.core.reading.table import Source, looks_like_json, parse_json

__all__ = [
    "INSPECT_VALUES",
    "KIND",
    "LABEL",
    "claims",
    "is_inspect",
    "is_inspect_log",
    "read",
]

KIND = "inspect"
LABEL = "an inspect_ai eval log (.eval or JSON)"
INSPECT_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
#: What the JSON reader keeps of a log, and what recognising one reads.
INSPECT_LOG: dict[str, Shape] = {
    "eval": {"model": "value", "task": "value", "task_version": "value", "packages": "value"},
    "status": "value",
    "results": {"scores": [{"name": "value"}]},
    "samples": [
        {
            "id": "value",
            "epoch": "value",
            "error": "value",
            "limit": "value",
            "scores": {"*": {"value": "value"}},
        }
    ],
}
INSPECT_HEAD: dict[str, Shape] = {"eval": {}, "status": "value"}


def is_inspect(obj: object) -> TypeGuard[dict[str, Any]]:
    """Whether a parsed JSON value is an inspect_ai eval log (``eval`` and ``status``)."""
    return isinstance(obj, dict) and isinstance(obj.get("eval"), dict) and "status" in obj


def is_inspect_log(src: Source) -> bool:
    """Whether a JSON file is an inspect_ai eval log, read without building its samples."""
    return is_inspect(pruned_json(src, INSPECT_HEAD))


def claims(src: Source) -> bool:
    """A ``.eval`` log (by name, or a ZIP holding ``header.json``), or a JSON eval log."""
    if eval_zip.is_eval_archive(src):
        return True
    return looks_like_json(src) and not src.name.lower().endswith(".jsonl") and is_inspect_log(src)


def read(
    src: Source, *, metric: str | None, tasks: TaskInfo | None, name: str
) -> tuple[Benchmark, Meta]:
    """A log's per-sample scores as items of one model and task (see the module docstring)."""
    del tasks, name  # the task is the log's own; categories come from a task table later
    if not (eval_zip.is_eval_archive(src) or looks_like_json(src)):
        raise DataError(
            "this is not a JSON file or a .eval log; format 'inspect' reads inspect_ai logs.",
            file=src.name,
            hint="choose the format that matches the file, or 'auto'.",
        )
    with _no_gc():  # 10^5 summaries are 10^6 objects: each collection would walk them all
        log = eval_zip.read_log(src) if eval_zip.is_eval_archive(src) else _json_log(src)
        return _benchmark(log, src.name, metric)


@contextmanager
def _no_gc() -> Iterator[None]:
    """The cyclic garbage collector paused (parsed JSON holds no cycles; counts still free)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@dataclass(frozen=True)
class Log:
    """What the readers take from a log: header fields and one summary per sample and epoch."""

    eval: Mapping[str, Any]
    status: str
    scorers: tuple[str, ...]  # results.scores names, in order
    summaries: list[Any]
    source: str  # where the summaries came from (a member name, or "samples")


def header_fields(
    header: object, file: str, member: str
) -> tuple[Mapping[str, Any], str, tuple[str, ...]]:
    """``eval``, ``status`` and the scorer names of a log header (``member`` names where)."""
    if not is_inspect(header):
        raise DataError(
            f"member '{member}' is not an inspect_ai log header (no 'eval' and 'status').",
            file=file,
            hint="load the .eval log as inspect_ai wrote it (or convert it again with "
            "inspect log convert).",
        )
    results = header.get("results")
    scores = results.get("scores") if isinstance(results, dict) else None
    names = tuple(
        str(s["name"]) for s in scores or () if isinstance(s, dict) and s.get("name") is not None
    )
    return header["eval"], str(header.get("status")), names


def _json_log(src: Source) -> Log:
    obj: object = pruned_json(src, INSPECT_LOG)
    obj = parse_json(src) if obj is None else obj  # not an object, or malformed: worded there
    if not is_inspect(obj):
        raise DataError(
            "not an inspect_ai eval log (no 'eval' and 'status').",
            file=src.name,
            hint="export the log as JSON (inspect log convert --to json) or pick another format.",
        )
    ev, status, scorers = header_fields(obj, src.name, "(the JSON log)")
    samples = obj.get("samples")
    if not isinstance(samples, list) or not samples:
        raise MissingMetric(
            "the log holds no samples.",
            reason=NO_SAMPLES,
            file=src.name,
            column="samples",
            hint="run the eval with log_samples=True (the default).",
        )
    return Log(ev, status, scorers, samples, "samples")


def _benchmark(log: Log, file: str, metric: str | None) -> tuple[Benchmark, Meta]:
    """Item records of one log -> (Benchmark, Meta)."""
    model = str(log.eval.get("model") or "model")
    task = str(log.eval.get("task") or "task")
    rows = _deduplicated(log.summaries)
    offered, carried = _scorer_names(log.scorers, rows)
    if not offered:  # in a folder with scored files: skipped with a note (MissingMetric)
        raise MissingMetric(
            f"{_where(log)}: the log's samples carry no scores ({count(len(rows), 'sample')}, "
            "none scored).",
            reason="no scores on their samples",
            file=file,
            hint="score the log first (inspect score LOG), then load it.",
        )
    scorer, key = _choose(metric, offered, carried, file)
    failed = options.current().failed
    ids, epochs, scores = [], [], []
    n_failed = 0
    dict_keys: tuple[str, ...] = ()
    for i, s in rows:
        if s.get("error") or s.get("limit"):
            n_failed += 1
            if failed == "exclude":
                continue
            x: float | None = 0.0
        else:
            sc = s.get("scores")
            if not isinstance(sc, dict) or not sc:
                raise DataError(
                    f"{_where(log, s, i)} has no scores.",
                    file=file,
                    **_place(log, i, "scores"),
                    hint="score the eval before loading it (inspect score).",
                )
            if scorer not in sc:
                raise DataError(
                    f"{_where(log, s, i)} has no score of scorer '{scorer}' (it carries "
                    f"{listing([repr(str(k)) for k in sc])}).",
                    file=file,
                    **_place(log, i, f"scores.{scorer}"),
                    hint=f"pick a scorer every sample carries with {option('metric', 'SCORER')}.",
                )
            entry = sc[scorer]
            value = entry.get("value") if isinstance(entry, dict) else None
            if isinstance(value, dict):
                if key is None:
                    dict_keys = dict_keys or tuple(map(str, value))
                    key = dict_keys[0] if dict_keys else None
                value = value.get(key) if key is not None else None
            x = _value(value)
            if x is None:
                raise DataError(
                    f"{_where(log, s, i)}: score {str(value)[:40]!r} is not C/I/P/N or a number "
                    "in 0..1.",
                    file=file,
                    **_place(log, i, f"scores.{scorer}.value"),
                    hint="use a scorer with accuracy-style values"
                    + ("." if log.source == "samples" else f" ({_PICK_SCORER} or SCORER/KEY)."),
                )
        ids.append(str(s.get("id", i + 1)))
        epochs.append(s.get("epoch", 1))
        scores.append(x)
    chosen = f"{scorer}/{key}" if key else scorer
    notes = _notes(log, rows, offered, carried, scorer, chosen, dict_keys, n_failed, failed)
    if not scores:
        raise DataError(
            f"{_where(log)}: no sample of the log has a score of '{chosen}' "
            f"({count(n_failed, 'sample')} errored or hit a limit).",
            file=file,
            hint=f"count failed samples as wrong ({option('failed', 'wrong')}), or load a log with "
            "scored samples.",
        )
    n = len(scores)
    records = ItemRecords.from_frame(
        _frame(model, task, ids, np.asarray(epochs), np.asarray(scores, float), n, file)
    )
    bench = items_benchmark(records, name=task, notes=tuple(notes))
    harness = "inspect_ai"
    packages = log.eval.get("packages")
    if isinstance(packages, dict) and packages.get("inspect_ai"):
        harness += f" {packages['inspect_ai']}"
    run = TaskRun(
        model, task, file, harness, version=str(log.eval.get("task_version") or ""), metric=chosen
    )
    return bench, Meta(runs=(run,), metrics=_metrics(carried or offered, scorer, dict_keys))


def _frame(
    model: str,
    task: str,
    ids: list[str],
    epochs: np.ndarray,
    scores: np.ndarray,
    n: int,
    file: str,
) -> Any:
    import pandas as pd

    return pd.DataFrame(
        {
            "model": np.full(n, model, dtype=object),
            "task": np.full(n, task, dtype=object),
            "item": np.asarray(ids, dtype=object),
            "score": scores,
            "epoch": epochs,
            "row": np.arange(1, n + 1),
            "file": np.full(n, file, dtype=object),
        }
    )


def _where(log: Log, sample: dict | None = None, i: int = 0) -> str:
    """Where in the log: ``sample 2`` (a JSON log, by position), or the member of a ``.eval``
    log and the sample's id and epoch."""
    if log.source == "samples":
        return "the samples" if sample is None else f"sample {i + 1}"
    where = f"member '{log.source}'"
    if sample is not None:
        where += f", sample '{sample.get('id')}' epoch {sample.get('epoch', 1)}"
    return where


def _place(log: Log, i: int, column: str) -> dict[str, Any]:
    """Row and column of a sample of a JSON log (a ``.eval`` log names its member instead)."""
    return {"row": i + 1, "column": column} if log.source == "samples" else {}


def _deduplicated(summaries: list[Any]) -> list[tuple[int, dict]]:
    """``(position, summary)`` with the last row of each sample id and epoch kept (an entry that
    is not an object is kept as an empty one: it has no scores)."""
    rows = [(i, s if type(s) is dict else {}) for i, s in enumerate(summaries)]
    keys = [(str(s.get("id", i + 1)), s.get("epoch", 1)) for i, s in rows]
    if len(set(keys)) == len(keys):
        return rows
    return list(dict(zip(keys, rows, strict=True)).values())


def _scorer_names(
    header: tuple[str, ...], rows: Iterable[tuple[int, dict]]
) -> tuple[list[str], list[str]]:
    """The scorers on offer (the header's ``results.scores``, then any other a sample has) and
    those the samples carry, in the same order (a re-scored log's header may name a scorer its
    samples no longer carry)."""
    names = dict.fromkeys(header)
    seen: set[tuple[str, ...]] = set()
    carried: dict[str, None] = {}
    for _, s in rows:
        sc = s.get("scores")
        if type(sc) is dict and (keys := tuple(sc)) not in seen:  # the same few sets of keys
            seen.add(keys)
            carried.update(dict.fromkeys(map(str, keys)))
    names.update(carried)
    return list(names), [n for n in names if n in carried]


def _choose(
    metric: str | None, offered: list[str], carried: list[str], file: str
) -> tuple[str, str | None]:
    """(scorer, dict key or None) asked by ``metric``; by default the first scorer on offer that
    the samples carry; not offered: :class:`MissingMetric`."""
    if metric is None:
        return (carried or offered)[0], None
    if metric in offered:
        return metric, None
    scorer, _, key = metric.rpartition("/")
    if scorer in offered:
        return scorer, key
    raise MissingMetric(
        f"the log has no scorer '{metric}' (its samples carry: {', '.join(carried or offered)}).",
        file=file,
        hint=f"pick one of its scorers with {option('metric', 'SCORER')} (or SCORER/KEY for a "
        f"scorer with named values), or leave {option('metric')} out for the first its samples "
        "carry.",
    )


def _value(v: object) -> float | None:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, str):
        return INSPECT_VALUES.get(v.strip().upper())
    if isinstance(v, int | float) and 0 <= v <= 1:  # NaN fails the comparison; 10**400 too
        return float(v)
    return None


_PICK_SCORER = option("metric", "SCORER")


def _notes(
    log: Log,
    rows: list[tuple[int, dict]],
    offered: list[str],
    carried: list[str],
    scorer: str,
    chosen: str,
    dict_keys: tuple[str, ...],
    n_failed: int,
    failed: str,
) -> list[str]:
    notes = []
    absent = [s for s in log.scorers if s not in carried]
    if absent and carried:
        notes.append(
            f"the log's header names scorer {listing([repr(s) for s in absent])}, which its "
            f"samples do not carry (a re-scored log); its samples carry "
            f"{listing([repr(s) for s in carried])}."
        )
    if log.status != "success":
        notes.append(
            f"the eval's status is '{log.status}', not 'success' (a partial log): it holds "
            f"{count(len(rows), 'sample')} (sample and epoch)."
        )
    if log.source.startswith("_journal"):
        notes.append("read from the journal of a log still being written (no summaries.json).")
    elif log.source == "samples/":
        notes.append("the log has no summaries: scores read from its sample files.")
    if len(carried) > 1:
        others = [s for s in carried if s != scorer]
        notes.append(
            f"scorer '{scorer}' used; the log also has {listing(others)} "
            f"(pick one with {option('metric', 'SCORER')})."
        )
    if dict_keys and len(dict_keys) > 1 and chosen == f"{scorer}/{dict_keys[0]}":
        notes.append(
            f"scorer '{scorer}' gives named values; '{dict_keys[0]}' used of "
            f"{listing(list(dict_keys))} (pick one with {option('metric', f'{scorer}/KEY')})."
        )
    if n_failed:
        if failed == "exclude":
            notes.append(
                f"{count(n_failed, 'sample')} that errored or hit a limit left out of the "
                f"scores (count them as wrong with {option('failed', 'wrong')})."
            )
        else:
            notes.append(
                f"{count(n_failed, 'sample')} that errored or hit a limit counted as wrong."
            )
    epochs = {e for _, s in rows for e in [s.get("epoch", 1)]}
    if len(epochs) > 1:
        notes.append(
            f"{len(epochs)} epochs: each sample is one item scored by the mean of its answers; "
            "intervals resample items with all their answers (METHODS 2)."
        )
    return notes


def _metrics(offered: list[str], scorer: str, dict_keys: tuple[str, ...]) -> tuple[str, ...]:
    """The metric choices the log offers: its scorers, and ``scorer/key`` for named values."""
    out = list(offered)
    if len(dict_keys) > 1:
        out += [f"{scorer}/{k}" for k in dict_keys]
    return tuple(out)


def load_json(data: bytes, file: str, member: str) -> Any:
    """``json.loads`` of a member; not JSON is a :class:`DataError` naming file and member."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as err:
        raise DataError(
            f"member '{member}' is not valid JSON ({str(err)[:80]}).",
            file=file,
            hint="the log is damaged: write it again (or convert it with inspect log convert).",
        ) from None

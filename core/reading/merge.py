"""Combining the benchmarks of several files into one (a folder, or several uploads).

Models are matched by name (in Unicode NFC form, :mod:`.names`) and tasks by name. A model name
that appears in two files whose task sets overlap is a second run of that model. With
``runs="newest"`` (the default) the newest run is kept when the files' names carry their run
times (lm-eval's ``results_<time>.json``, inspect's ``<time>_<task>_<id>.eval``), with a note
naming both; otherwise, and with ``runs="all"``, the second run is kept apart as ``"name (2)"``
with a note. If the task sets do not overlap, the files are parts of one run and are joined into
one row. The parts' own notes are the loader's business (it groups them over files); merge adds
only its own.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

import numpy as np

from benchuq.core.data import Benchmark, DataError, ItemTask
from benchuq.core.options import option
from benchuq.core.reading.names import nfc

__all__ = ["RUNS", "Runs", "merge", "run_time"]

Runs = Literal["newest", "all"]
#: What to do with two runs of one model on the same tasks (``runs=``, CLI ``--runs``).
RUNS: tuple[str, ...] = get_args(Runs)
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}[-:]\d{2}(?:\.\d+)?")


def run_time(file: str) -> str | None:
    """The run time in a file's name (``2025-03-03T00-05-19.750676``), else ``None``."""
    m = _TIME.search(file.rsplit("/", 1)[-1])
    return m.group(0).replace(":", "-") if m else None


def merge(
    parts: list[tuple[str, Benchmark]], *, name: str, runs: Runs = "newest"
) -> tuple[Benchmark, dict[tuple[str, str], str]]:
    """One :class:`Benchmark` from ``[(file name, benchmark), ...]`` of the same kind, and the
    label each ``(file, model)`` got (``"name (2)"`` for a second run kept, ``""`` for an older
    run left out)."""
    if len(parts) == 1 and all(nfc(m) == m for m in parts[0][1].models):
        file, b = parts[0]
        return b._replace(name=name, notes=()), {(file, m): m for m in b.models}
    kind = parts[0][1].kind
    for file, b in parts[1:]:
        if b.kind != kind:
            raise DataError(
                f"this file holds {_kind_label(b.kind)} but '{parts[0][0]}' holds "
                f"{_kind_label(kind)}.",
                file=file,
                hint="load files of one kind together (e.g. all item-level or all task-level).",
            )
    notes: list[str] = []
    tasks: dict[str, str] = {}
    chance: dict[str, float] = {}
    hib: dict[str, bool] = {}
    rows: list[tuple[str, str, Benchmark, int]] = []  # (model label, file, bench, row index)
    seen_tasks: dict[str, set[str]] = {}
    older, why, kept_both = _older_runs(parts) if runs == "newest" else (set(), [], {})
    notes += why
    for file, b in parts:
        chances, hibs = np.asarray(b.chance), np.asarray(b.higher_is_better)
        for t, c, ch, h in zip(b.tasks, b.categories, chances, hibs, strict=True):
            if t in tasks and tasks[t] != c:
                raise DataError(
                    f"task '{t}' has category '{c}' here but '{tasks[t]}' in another file.",
                    file=file,
                    column="category",
                    hint="give each task one category in all files (or use a task table).",
                )
            tasks.setdefault(t, c)
            chance.setdefault(t, float(ch))
            hib.setdefault(t, bool(h))
        composed = {m for m in b.models if nfc(m) == m}
        for i, raw in enumerate(b.models):
            if (file, raw) in older:
                continue
            m = nfc(raw)
            if m != raw and m in composed:  # both spellings in one file: two models
                m = f"{m} (NFD)"
                notes.append(
                    f"model names '{nfc(raw)}' and '{raw}' in '{file}' differ only in Unicode "
                    f"form (the second is written with combining characters, NFD): kept as two "
                    f"models, the second shown as '{m}'. If they are one model, spell them the "
                    "same in the file."
                )
            elif m != raw:
                notes.append(
                    f"model name '{m}' is written with combining characters (Unicode NFD) in "
                    f"'{file}'; it is read in composed form (NFC), so it is the same model as "
                    f"'{m}' written composed. To keep them apart, rename one in its file."
                )
            done = set(np.array(b.tasks)[~np.isnan(b.estimate[i])])
            label, copy = m, 1
            while label in seen_tasks and seen_tasks[label] & done:
                copy += 1
                label = f"{m} ({copy})"
            if copy > 1:
                reason = (
                    "runs='all' keeps every run"
                    if runs == "all"
                    else kept_both.get(
                        (file, raw),
                        "the file names carry no run time, so the newer run cannot be told; "
                        "remove one file to keep one run",
                    )
                )
                notes.append(
                    f"model '{m}' appears in more than one file with the same tasks; the run in "
                    f"'{file}' is shown as '{label}' ({reason})."
                )
            seen_tasks.setdefault(label, set()).update(done)
            rows.append((label, file, b, i))
    models = list(dict.fromkeys(r[0] for r in rows))
    task_names = list(tasks)
    M, T = len(models), len(task_names)
    est = np.full((M, T), np.nan)
    se = np.full((M, T), np.nan)
    n = np.zeros((M, T), np.int64)
    k = np.zeros((M, T), np.int64)
    for label, _file, b, i in rows:
        mi = models.index(label)
        tj = [task_names.index(t) for t in b.tasks]
        have = ~np.isnan(b.estimate[i])
        cols = np.array(tj)[have]
        est[mi, cols] = b.estimate[i, have]
        if b.se is not None:
            se[mi, cols] = b.se[i, have]
        if b.n is not None:
            n[mi, cols] = b.n[i, have]
            k[mi, cols] = np.asarray(b.correct)[i, have]
    kw: dict[str, object] = {}
    if kind == "estimate_se":
        kw["se"] = se
    if all(b.n is not None for _, b in parts):
        kw.update(n=n, correct=k)
    if kind == "items":
        kw["item_tasks"] = tuple(_merge_items(t, models, rows) for t in task_names)
    labels = {(file, b.models[i]): label for label, file, b, i in rows}
    labels.update(dict.fromkeys(older, ""))
    bench = Benchmark(
        name=name,
        models=tuple(models),
        tasks=tuple(task_names),
        categories=tuple(tasks[t] for t in task_names),
        kind=kind,
        estimate=est,
        chance=np.array([chance[t] for t in task_names]),
        higher_is_better=np.array([hib[t] for t in task_names]),
        notes=tuple(notes),
        **kw,  # type: ignore[arg-type]
    )
    return bench, labels


def _older_runs(
    parts: list[tuple[str, Benchmark]],
) -> tuple[set[tuple[str, str]], list[str], dict[tuple[str, str], str]]:
    """``(file, model)`` runs that newer runs of the same model on the same tasks replace (the
    files' names carry their run times, the newer runs cover every task of the older), one note
    per run left out, and why a dated older run with tasks of its own was kept."""
    entries: dict[str, list[tuple[str | None, str, str, set[str]]]] = {}
    for file, b in parts:
        for i, m in enumerate(b.models):
            done = set(np.array(b.tasks)[~np.isnan(b.estimate[i])])
            entries.setdefault(nfc(m), []).append((run_time(file), file, m, done))
    older: set[tuple[str, str]] = set()
    notes = []
    kept_both: dict[tuple[str, str], str] = {}
    for model, runs in entries.items():
        if len(runs) < 2:
            continue
        kept: list[tuple[str | None, str, str, set[str]]] = []
        for when, file, raw, done in sorted(runs, key=lambda r: r[0] or "", reverse=True):
            newer = [k for k in kept if k[3] & done]
            dated = when is not None and all(k[0] is not None and k[0] > when for k in newer)
            covered = done <= set().union(*(k[3] for k in newer))
            if newer and dated and not covered:
                kept_both[(file, raw)] = (
                    "the older run has tasks the newer one lacks, so both are kept; remove one "
                    "file to keep one run"
                )
            if newer and dated and covered:
                older.add((file, raw))
                notes.append(
                    f"model '{model}' has two runs of the same tasks: '{file}' ({when}) and the "
                    f"newer '{newer[0][1]}' ({newer[0][0]}); the newest is kept. To keep both "
                    f"(the older shown as '{model} (2)'), load with {option('runs', 'all')}."
                )
            else:
                kept.append((when, file, raw, done))
    return older, notes, kept_both


def _kind_label(kind: str) -> str:
    return {
        "counts": "task-level counts",
        "estimate_se": "task-level estimates with standard errors",
        "items": "item-level scores",
    }[kind]


def _merge_items(task: str, models: list[str], rows: list) -> ItemTask:
    items: dict[str, int] = {}
    cluster: dict[str, str] = {}
    subgroup: dict[str, str] = {}
    for _label, _file, b, _i in rows:
        if task not in b.tasks:
            continue
        it = b.item_tasks[b.tasks.index(task)]
        for pos, name in enumerate(it.items):
            items.setdefault(name, len(items))
            if it.cluster is not None:
                cluster.setdefault(name, it.cluster[pos])
            if it.subgroup is not None:
                subgroup.setdefault(name, it.subgroup[pos])
    mat = np.full((len(models), len(items)), np.nan)
    answers = np.zeros(mat.shape, np.int64)
    answer_sq = np.full(mat.shape, np.nan)
    for label, _file, b, i in rows:
        if task not in b.tasks:
            continue
        it = b.item_tasks[b.tasks.index(task)]
        idx = np.array([items[x] for x in it.items], dtype=np.intp)
        scores = it.scores[i]
        have = ~np.isnan(scores)
        row, cols = models.index(label), idx[have]
        mat[row, cols] = scores[have]
        answers[row, cols] = it.answer_counts[i, have]
        if it.answers is None:  # one answer per cell: the mean square is the square
            answer_sq[row, cols] = scores[have] ** 2
        elif it.answer_sq is not None:
            answer_sq[row, cols] = it.answer_sq[i, have]
    names = tuple(items)
    several = answers.size > 0 and answers.max() > 1
    return ItemTask(
        names,
        mat,
        tuple(cluster.get(x, "") for x in names) if cluster else None,
        tuple(subgroup.get(x, "") for x in names) if subgroup else None,
        answers=answers if several else None,
        answer_sq=answer_sq if several and not np.isnan(answer_sq[answers > 0]).any() else None,
    )

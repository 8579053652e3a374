"""EleutherAI lm-evaluation-harness output: results JSON (old and v0.4) and ``--log_samples``.

Results files (one model each) become task-level counts. For the chosen ``metric`` (``acc``,
``acc_norm`` ...; old keys ``acc``/``acc_stderr``, v0.4 keys ``"acc,none"``) the number of items n
comes from, in order: ``n-samples`` (``effective``), the task table, the bundled MMLU table
(``hendrycksTest-<subject>`` and ``mmlu_<subject>``), or is backed out of the standard error with
lm-eval's convention ``se^2 = p(1-p)/(n-1)`` (the sample standard deviation over sqrt(n), which
reproduces whole counts on the bundled files). ``correct = metric * n`` must be whole to 1e-6 on
the proportion scale: with a stated n a mismatch is an error; with a backed-out n the task is
skipped with a note. Tasks without the metric (e.g. only ``mcc``) are skipped with a note saying
which metric they have. MMLU tasks are named by subject.

Groups (``groups``, ``group_subtasks``) are read as groups, not as tasks: each task's category is
its top-level group (``mmlu`` for every MMLU subject of a v0.4 run), a task outside any group is a
category of its own, and without group information MMLU subjects get the MMLU authors' categories
(STEM, humanities, social sciences, other). The group tree goes into :class:`Meta` (group scores
are recomputed from the subtasks, :mod:`benchuq.core.summaries.groups`), with per task the harness
version, the task version, n-shot and the metric read, and the metrics the file offers.

Sample files: :mod:`.lm_eval_samples`; both together: :mod:`.lm_eval_output`; names:
:mod:`.lm_eval_names`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, TypeGuard

import numpy as np

from benchuq.core.data import Benchmark, DataError
from benchuq.core.options import option
from benchuq.core.reading.lm_eval_groups import with_aggregates
from benchuq.core.reading.lm_eval_names import model_name, name_note
from benchuq.core.reading.long import WHOLE_TOL, TaskInfo
from benchuq.core.reading.meta import Group, Meta, MissingMetric, TaskRun
from benchuq.core.reading.notes import count, listing
from benchuq.core.reading.table import Source, parse_json
from benchuq.core.resources import mmlu_subject_table

__all__ = [
    "Outline",
    "file_metrics",
    "is_results",
    "read_results",
    "repeats_notes",
    "results_categories",
    "results_outline",
]

MMLU_PREFIXES = ("hendrycksTest-", "mmlu_")
MMLU_GROUPS = frozenset(
    {"mmlu", "mmlu_stem", "mmlu_humanities", "mmlu_other", "mmlu_social_sciences"}
)
NOT_METRICS = frozenset({"alias", "name", "sample_len", "sample_count", "samples"})


def is_results(obj: object) -> TypeGuard[dict[str, Any]]:
    """Whether a parsed JSON value is an lm-evaluation-harness results file."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("results"), dict)
        and any(k in obj for k in ("versions", "config", "n-samples", "configs"))
    )


def _metric(entry: dict, metric: str) -> tuple[float | None, float | None, str | None]:
    """The metric value and its stderr from a results entry (either key style)."""
    if metric in entry:
        return number(entry[metric]), number(entry.get(f"{metric}_stderr")), None
    keys = sorted(k for k in entry if k.startswith(metric + ","))
    if not keys:
        return None, None, None
    key = f"{metric},none" if f"{metric},none" in keys else keys[0]
    filt = key.split(",", 1)[1]
    return number(entry[key]), number(entry.get(f"{metric}_stderr,{filt}")), filt


def number(v: object) -> float | None:
    """A finite number (not a bool) as float, else ``None`` (an integer beyond the float range,
    such as 10**400 in JSON, too)."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    try:
        x = float(v)
    except OverflowError:
        return None
    return x if math.isfinite(x) else None


def entry_metrics(entry: object) -> list[str]:
    """The metrics of a results entry (``"acc,none"`` -> ``acc``; stderr and labels left out)."""
    if not isinstance(entry, dict):
        return []
    names = (k.split(",", 1)[0] for k, v in entry.items() if number(v) is not None)
    return list(dict.fromkeys(n for n in names if n not in NOT_METRICS and "_stderr" not in n))


def file_metrics(obj: dict) -> tuple[str, ...]:
    """Every metric any task of a results file reports (for a metric selector)."""
    out: dict[str, None] = {}
    for entry in obj["results"].values():
        out.update(dict.fromkeys(entry_metrics(entry)))
    return tuple(out)


def _dict(obj: dict, key: str) -> dict:
    """``obj[key]`` when it is an object, else ``{}`` (files differ in which parts they have)."""
    return v if isinstance(v := obj.get(key), dict) else {}


def mmlu_subject(task: str) -> str | None:
    """The MMLU subject a task name stands for (prefix removed), else ``None``."""
    table = mmlu_subject_table()
    for p in MMLU_PREFIXES:
        if task.startswith(p) and task[len(p) :] in table.index:
            return task[len(p) :]
    return None


def _structure(obj: dict) -> tuple[set[str], dict[str, str], dict[str, list[str]]]:
    """Group names, member -> parent group, group -> members (from groups/group_subtasks)."""
    subtasks = _dict(obj, "group_subtasks")
    tree = {g: [str(x) for x in s] for g, s in subtasks.items() if isinstance(s, list) and s}
    groups = set(obj.get("groups") or {}) | set(tree)
    parent = {s: g for g, subs in tree.items() for s in subs}
    return groups, parent, tree


def _top(task: str, parent: dict[str, str]) -> str | None:
    g, seen = parent.get(task), set()
    while g is not None and g in parent and g not in seen:
        seen.add(g)
        g = parent[g]
    return g


def results_categories(obj: dict) -> dict[str, str]:
    """Task (our name) -> category from a results file's group structure (see the docstring)."""
    _, parent, _ = _structure(obj)
    out = {}
    for task in obj["results"]:
        name = mmlu_subject(task) or task
        top = _top(task, parent)
        out[name] = top if top is not None else _ungrouped_category(task, name)
    return out


def _ungrouped_category(task: str, name: str) -> str:
    subject = mmlu_subject(task)
    if subject is not None:
        return str(mmlu_subject_table().loc[subject, "category"])
    return name


def _groups(obj: dict) -> tuple[Group, ...]:
    groups, parent, tree = _structure(obj)

    def leaves(g: str, seen: frozenset[str]) -> list[str]:
        out: list[str] = []
        for m in tree.get(g, []):
            if m in tree and m not in seen:
                out += leaves(m, seen | {m})
            elif m not in groups:
                out.append(mmlu_subject(m) or m)
        return out

    return tuple(
        Group(g, tuple(dict.fromkeys(leaves(g, frozenset({g})))), parent.get(g))
        for g in tree
        if g in groups
    )


def harness_label(obj: dict) -> str:
    """The harness and its version as the file states them."""
    version = obj.get("lm_eval_version")
    git = obj.get("git_hash")
    parts = [f"lm-eval {version}" if version else "lm-eval"]
    if git:
        parts.append(f"git {str(git)[:7]}")
    if "n-samples" not in obj and "configs" not in obj:
        parts.append("results format before v0.4")
    return ", ".join(parts)


@dataclass
class _Row:
    task: str
    category: str
    n: int
    correct: int
    hib: bool
    metric: str
    stderr: float | None = None  # lm-eval's own standard error of the task's score


def stated_value(entry: dict, metric: str) -> str | None:
    """How the file writes ``metric`` when it is there but not a finite number (``NaN``,
    ``null``, ``"N/A"``, ``Infinity``), else ``None``."""
    keys = [metric] if metric in entry else sorted(k for k in entry if k.startswith(metric + ","))
    if not keys:
        return None
    key = f"{metric},none" if f"{metric},none" in keys else keys[0]
    v = entry[key]
    if number(v) is not None:
        return None
    return "null" if v is None else json.dumps(v)


def not_number_note(tasks: dict[str, str], metric: str) -> str:
    """The note for tasks whose ``metric`` is written but is not a number."""
    what = ", ".join(f"'{t}' ({metric} = {v})" for t, v in list(tasks.items())[:5])
    more = f", … ({len(tasks)})" if len(tasks) > 5 else ""
    head = f"{count(len(tasks), 'task')} skipped — {metric} is not a number: {what}{more}"
    return (
        f"{head}; left out of this model's scores, so its overall averages the other tasks. To "
        f"score them, re-run the tasks, or choose another metric the file has ({option('metric')})."
    )


def _skipped_metric_notes(missing: dict[str, list[str]], metric: str) -> list[str]:
    """One note per set of metrics the skipped tasks have instead of ``metric``."""
    by_have: dict[tuple[str, ...], list[str]] = {}
    for task, have in missing.items():
        by_have.setdefault(tuple(have), []).append(task)
    notes = []
    for metrics, tasks in by_have.items():
        what = ", ".join(metrics) if metrics else "none"
        if len(tasks) == 1:
            verb = "its metric is" if len(metrics) == 1 else "its metrics are"
            notes.append(f"task '{tasks[0]}' skipped — {verb} {what}, not {metric}.")
            continue
        verb = "their metric is" if len(metrics) == 1 else "their metrics are"
        note = f"{len(tasks)} tasks skipped — {verb} {what}, not {metric}: {listing(tasks)}."
        notes.append(note + ("\ntasks: " + ", ".join(tasks) if len(tasks) > 5 else ""))
    return notes


def read_results(
    src: Source, *, metric: str = "acc", tasks: TaskInfo | None = None, obj: object = None
) -> tuple[Benchmark, Meta]:
    """One model's results file as a counts :class:`Benchmark` and its :class:`Meta` (``obj``:
    the file's JSON if already parsed)."""
    obj = parse_json(src) if obj is None else obj
    if not is_results(obj):
        raise DataError(
            "not an lm-evaluation-harness results file (no 'results' object with 'versions' or "
            "'config').",
            file=src.name,
            hint="choose the results_*.json file written by lm_eval, or pick another format.",
        )
    results = obj["results"]
    groups, _, _ = _structure(obj)
    categories = results_categories(obj)
    n_samples = _dict(obj, "n-samples")
    hib_table = _dict(obj, "higher_is_better")
    rows: list[_Row] = []
    missing: dict[str, list[str]] = {}
    not_numbers: dict[str, str] = {}
    skipped_group, skipped_n, filters = [], [], set()
    limited: list[str] = []
    for task, entry in results.items():
        if task in groups or task in MMLU_GROUPS:
            skipped_group.append(task)
            continue
        if not isinstance(entry, dict):
            raise DataError(
                f"results entry '{task}' is a {type(entry).__name__}, not an object.",
                file=src.name,
                column=task,
                hint="the file looks damaged; re-export it from lm_eval.",
            )
        value, se, filt = _metric(entry, metric)
        if value is None:
            if (raw := stated_value(entry, metric)) is not None:
                not_numbers[task] = raw  # the metric is there, its value is not a number
            else:
                missing[task] = entry_metrics(entry)
            continue
        if filt and filt != "none":
            filters.add(filt)
        if not 0 <= value <= 1:
            raise DataError(
                f"task '{task}': {metric} = {value:g} is not a proportion in 0..1.",
                file=src.name,
                column=metric,
                hint="choose a per-item metric such as acc or acc_norm.",
            )
        name = mmlu_subject(task) or task
        n, how = _task_n(task, name, n_samples, tasks, value, se)
        if n is None:
            skipped_n.append(task)
            continue
        total = value * n
        if abs(value - round(total) / n) > WHOLE_TOL:
            if how == "stderr":
                skipped_n.append(task)
                continue
            raise DataError(
                f"task '{task}': {metric} x n = {value:.6g} x {n} = {total:.4f} is not a whole "
                f"number of items (n from {how}).",
                file=src.name,
                column=metric,
                hint="give the right n for this task in a task table (task, category, n), or "
                "check the run used the full test set.",
            )
        if tasks is not None and name in tasks.category:
            category = tasks.category[name]
        else:
            category = categories[name]
        hib = (
            hib_table.get(task, {}).get(metric, True)
            if isinstance(hib_table.get(task), dict)
            else True
        )
        used = metric if not filt or filt == "none" else f"{metric},{filt}"
        rows.append(_Row(name, category, int(n), round(total), bool(hib), used, se))
        ns = n_samples.get(task)
        if isinstance(ns, dict) and isinstance(ns.get("original"), int) and ns["original"] > n:
            limited.append(f"{name} ({n} of {ns['original']})")
    if not rows and not_numbers:
        raise MissingMetric(
            f"no task in this file has a number for '{metric}' ("
            + listing([f"{t}: {v}" for t, v in not_numbers.items()])
            + ").",
            file=src.name,
            column=metric,
            hint=f"re-run the tasks, or choose another metric the file has ({option('metric')}).",
        )
    if not rows:
        have = sorted({m for ms in missing.values() for m in ms})
        raise (MissingMetric if missing else DataError)(
            f"no task in this file has the metric '{metric}'.",
            file=src.name,
            column=metric,
            hint=f"choose one of the metrics it has ({', '.join(have) or 'none'}), or a file "
            "with accuracy results.",
        )
    notes = _skipped_metric_notes(missing, metric)
    if not_numbers:
        notes.append(not_number_note(not_numbers, metric))
    if name_note_text := name_note(obj, src.name):
        notes.append(name_note_text)
    if skipped_group:
        notes.append(
            f"{count(len(skipped_group), 'group aggregate')} read as groups, not tasks: "
            f"{listing(sorted(skipped_group))}."
        )
    if skipped_n:
        notes.append(
            f"{count(len(skipped_n), 'task')} skipped — item count unknown: "
            f"{listing(sorted(skipped_n))} (give n in a task table)."
        )
    if limited:
        notes.append(
            f"{count(len(limited), 'task')} scored on part of the items (lm_eval --limit): "
            f"{listing(limited)}."
        )
    if filters:
        notes.append(f"used the lm-eval filter(s) {sorted(filters)}.")
    if any(mmlu_subject(t) for t in results):
        notes.append("MMLU tasks are named by subject (hendrycksTest-/mmlu_ prefix removed).")
    notes += repeats_notes(obj)
    model = model_name(obj, src.name)
    n_items = np.array([[r.n for r in rows]], dtype=np.int64)
    k = np.array([[r.correct for r in rows]], dtype=np.int64)
    bench = Benchmark(
        name=model,
        models=(model,),
        tasks=tuple(r.task for r in rows),
        categories=tuple(r.category for r in rows),
        kind="counts",
        estimate=k / n_items,
        n=n_items,
        correct=k,
        higher_is_better=np.array([r.hib for r in rows]),
        notes=tuple(notes),
    )
    return bench, _meta(obj, src.name, model, [(r.task, r.metric, r.stderr) for r in rows], metric)


def repeats_notes(obj: dict) -> list[str]:
    """A note naming tasks run with ``repeats`` > 1 (issue 26): lm-eval's filter reduces the
    repeated answers of a document to one scored answer, so each item carries one score."""
    configs = _dict(obj, "configs")
    repeated = {
        str(t): c["repeats"]
        for t, c in configs.items()
        if isinstance(c, dict) and isinstance(c.get("repeats"), int) and c["repeats"] > 1
    }
    if not repeated:
        return []
    shown = listing([f"{t} ({k})" for t, k in sorted(repeated.items())])
    return [
        f"{count(len(repeated), 'task')} ran with repeats: {shown}. lm-eval's filter reduces a "
        "document's repeated answers to one scored answer (take_first, majority vote ...), so "
        "each item counts once with that score; to keep every answer, give them as an item "
        "table with an epoch column."
    ]


def _meta(
    obj: dict, file: str, model: str, read: list[tuple[str, str, float | None]], metric: str
) -> Meta:
    """Provenance of the tasks read, the group tree (with how lm-eval scored each group on
    ``metric``) and the file's metrics."""
    harness = harness_label(obj)
    versions, shots, config = _dict(obj, "versions"), _dict(obj, "n-shot"), _dict(obj, "config")
    default_shots = config.get("num_fewshot")
    raw = {mmlu_subject(t) or t: t for t in obj["results"]}
    runs = []
    for task, used, stderr in read:
        key = raw.get(task, task)
        shot = shots.get(key, default_shots)
        version = versions.get(key, "")
        runs.append(
            TaskRun(
                model,
                task,
                file,
                harness,
                "" if version is None else str(version),
                "" if shot is None else str(shot),
                used,
                stderr,
            )
        )
    groups = with_aggregates(obj, _groups(obj), metric)
    return Meta(runs=tuple(runs), groups=groups, metrics=file_metrics(obj))


@dataclass(frozen=True)
class Outline:
    """What a results file says without reading its counts (for sample files next to it)."""

    model: str
    with_metric: tuple[str, ...]
    tasks: tuple[str, ...]
    categories: dict[str, str]
    meta: Meta
    name_note: str | None = None


def results_outline(src: Source, metric: str, *, obj: object = None) -> Outline:
    """Model, tasks (our names; those with ``metric``), categories and :class:`Meta` of a
    results file, without checking its counts."""
    obj = parse_json(src) if obj is None else obj
    if not is_results(obj):
        raise DataError("not an lm-evaluation-harness results file.", file=src.name)
    groups, _, _ = _structure(obj)
    entries = {t: e for t, e in obj["results"].items() if t not in groups and t not in MMLU_GROUPS}
    tasks = tuple(mmlu_subject(t) or t for t in entries)
    with_metric = tuple(
        mmlu_subject(t) or t
        for t, e in entries.items()
        if isinstance(e, dict) and _metric(e, metric)[0] is not None
    )
    model = model_name(obj, src.name)
    meta = _meta(obj, src.name, model, [(t, "", None) for t in tasks], metric)
    categories = results_categories(obj)
    return Outline(model, with_metric, tasks, categories, meta, name_note(obj, src.name))


def _task_n(
    task: str,
    name: str,
    n_samples: dict,
    tasks: TaskInfo | None,
    value: float,
    se: float | None,
) -> tuple[int | None, str]:
    ns = n_samples.get(task)
    if isinstance(ns, dict):
        n = ns.get("effective", ns.get("original"))
        if isinstance(n, bool) or (isinstance(n, int) and n > 2**53):
            raise DataError(
                f"task '{task}': n-samples {str(n)[:20]} is not a count of items.",
                column="n-samples",
                hint="give the number of evaluated items as a whole number.",
            )
        if isinstance(n, int) and n > 0:
            return n, "n-samples"
    if tasks is not None:
        for key in (task, name):
            if key in tasks.n:
                return tasks.n[key], f"task table '{tasks.source}'"
    table = mmlu_subject_table()
    if name in table.index:
        return int(table.loc[name, "n_test"]), "the MMLU subject table"
    if se is not None and se > 0 and 0 < value < 1:
        return round(value * (1 - value) / se**2 + 1), "stderr"
    return None, ""

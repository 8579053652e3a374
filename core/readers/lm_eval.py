"""EleutherAI lm-evaluation-harness output: results JSON (old and v0.4) and ``--log_samples``.

Results files (one model each) become task-level counts. For the chosen ``metric`` (``acc``,
``acc_norm`` ...; old keys ``acc``/``acc_stderr``, v0.4 keys ``"acc,none"``) the number of items n
comes from, in order: ``n-samples`` (``effective``), the task table, the bundled MMLU table
(``hendrycksTest-<subject>`` and ``mmlu_<subject>``), or is backed out of the standard error with
lm-eval's convention ``se^2 = p(1-p)/(n-1)`` (the sample standard deviation over sqrt(n), which
reproduces whole counts on the bundled files). ``correct = metric * n`` must be whole to 1e-6 on
the proportion scale: with a stated n a mismatch is an error; with a backed-out n the task is
skipped with a note. Tasks without the metric (e.g. only ``mcc``) and groups/aggregates (``mmlu``,
``mmlu_stem`` ...) are skipped with a note. MMLU tasks are named by subject and get the MMLU
category; other tasks get their parent group as category, else ``"ungrouped"``.

Sample files (``samples_<task>_<timestamp>.jsonl``) become item scores: item = ``doc_id``, score =
the metric field; ``resps``/``arguments`` (whose layout drifted between versions) are not read.
The model name comes from a results file in the same folder, else the folder or file name.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchuq.core.data import Benchmark, DataError
from benchuq.core.readers.items import items_benchmark
from benchuq.core.readers.long import WHOLE_TOL, TaskInfo
from benchuq.core.readers.table import Source, parse_json, text_lines
from benchuq.core.resources import mmlu_subject_table

SAMPLES_RE = re.compile(r"^samples_(?P<task>.+?)_(?P<ts>\d{4}-\d{2}-\d{2}T[\d\-:.]+)\.jsonl$")
MMLU_PREFIXES = ("hendrycksTest-", "mmlu_")
MMLU_GROUPS = frozenset(
    {"mmlu", "mmlu_stem", "mmlu_humanities", "mmlu_other", "mmlu_social_sciences"}
)
PREFERRED_SAMPLE_METRICS = ("acc", "acc_norm", "exact_match", "em", "pass@1")


def is_results(obj: object) -> bool:
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("results"), dict)
        and any(k in obj for k in ("versions", "config", "n-samples", "configs"))
    )


def model_name(obj: dict, file: str) -> str:
    """``pretrained=`` (with ``@revision``) from the config, else ``model_name``, else the file."""
    config = obj.get("config") if isinstance(obj.get("config"), dict) else {}
    args = config.get("model_args")
    if isinstance(args, str):
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    pretrained = args.get("pretrained") if isinstance(args, dict) else None
    if isinstance(pretrained, str) and pretrained and not pretrained.startswith(("/", ".", "~")):
        rev = args.get("revision") or config.get("model_revision")
        return f"{pretrained}@{rev}" if rev and rev != "main" else pretrained
    if isinstance(obj.get("model_name"), str) and obj["model_name"]:
        return obj["model_name"]
    return file.rsplit("/", 1)[-1].removesuffix(".json")


def _metric(entry: dict, metric: str) -> tuple[float | None, float | None, str | None]:
    """The metric value and its stderr from a results entry (either key style)."""
    if metric in entry:
        return _num(entry[metric]), _num(entry.get(f"{metric}_stderr")), None
    keys = sorted(k for k in entry if k.startswith(metric + ","))
    if not keys:
        return None, None, None
    key = f"{metric},none" if f"{metric},none" in keys else keys[0]
    filt = key.split(",", 1)[1]
    return _num(entry[key]), _num(entry.get(f"{metric}_stderr,{filt}")), filt


def _num(v: object) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return float(v) if np.isfinite(v) else None


def mmlu_subject(task: str) -> str | None:
    table = mmlu_subject_table()
    for p in MMLU_PREFIXES:
        if task.startswith(p) and task[len(p) :] in table.index:
            return task[len(p) :]
    return None


@dataclass
class _Row:
    task: str
    category: str
    n: int
    correct: int
    hib: bool


def results_benchmark(
    src: Source, *, metric: str = "acc", tasks: TaskInfo | None = None
) -> Benchmark:
    """One model's results file as a counts :class:`Benchmark` (see the module docstring)."""
    obj = parse_json(src)
    if not is_results(obj):
        raise DataError(
            "not an lm-evaluation-harness results file (no 'results' object with 'versions' or "
            "'config').",
            file=src.name,
            hint="choose the results_*.json file written by lm_eval, or pick another format.",
        )
    results = obj["results"]
    group_subtasks = (
        obj.get("group_subtasks") if isinstance(obj.get("group_subtasks"), dict) else {}
    )
    groups = set(obj.get("groups") or {}) | {g for g, s in group_subtasks.items() if s}
    parent = {s: g for g, subs in group_subtasks.items() if isinstance(subs, list) for s in subs}
    n_samples = obj.get("n-samples") if isinstance(obj.get("n-samples"), dict) else {}
    hib_table = obj.get("higher_is_better") if isinstance(obj.get("higher_is_better"), dict) else {}
    mmlu = mmlu_subject_table()
    rows: list[_Row] = []
    skipped_metric, skipped_group, skipped_n, filters = [], [], [], set()
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
            skipped_metric.append(task)
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
        subject = mmlu_subject(task)
        name = subject or task
        n, how = _task_n(task, name, n_samples, tasks, value, se)
        if n is None:
            skipped_n.append(task)
            continue
        count = value * n
        if abs(value - round(count) / n) > WHOLE_TOL:
            if how == "stderr":
                skipped_n.append(task)
                continue
            raise DataError(
                f"task '{task}': {metric} x n = {value:.6g} x {n} = {count:.4f} is not a whole "
                f"number of items (n from {how}).",
                file=src.name,
                column=metric,
                hint="give the right n for this task in a task table (task, category, n), or "
                "check the run used the full test set.",
            )
        if tasks is not None and name in tasks.category:
            category = tasks.category[name]
        elif subject is not None:
            category = str(mmlu.loc[subject, "category"])
        else:
            category = _top_group(task, parent)
        hib = (
            hib_table.get(task, {}).get(metric, True)
            if isinstance(hib_table.get(task), dict)
            else True
        )
        rows.append(_Row(name, category, int(n), round(count), bool(hib)))
        ns = n_samples.get(task)
        if isinstance(ns, dict) and isinstance(ns.get("original"), int) and ns["original"] > n:
            limited.append(f"{name} ({n} of {ns['original']})")
    if not rows:
        raise DataError(
            f"no task in this file has the metric '{metric}'.",
            file=src.name,
            column=metric,
            hint="choose another metric (e.g. acc_norm) or a file with accuracy results.",
        )
    notes = []
    if skipped_metric:
        notes.append(
            f"{src.name}: skipped {len(skipped_metric)} task(s) without '{metric}': "
            f"{', '.join(sorted(skipped_metric)[:8])}."
        )
    if skipped_group:
        notes.append(
            f"{src.name}: skipped {len(skipped_group)} group aggregate(s): "
            f"{', '.join(sorted(skipped_group)[:8])}."
        )
    if skipped_n:
        notes.append(
            f"{src.name}: skipped {len(skipped_n)} task(s) whose item count is unknown: "
            f"{', '.join(sorted(skipped_n)[:8])} (give n in a task table)."
        )
    if limited:
        notes.append(
            f"{src.name}: {len(limited)} task(s) were scored on part of their items (lm_eval "
            f"--limit): {', '.join(limited[:5])}."
        )
    if filters:
        notes.append(f"{src.name}: used the lm-eval filter(s) {sorted(filters)}.")
    if any(mmlu_subject(t) for t in results):
        notes.append("MMLU tasks are named by subject (hendrycksTest-/mmlu_ prefix removed).")
    model = model_name(obj, src.name)
    n = np.array([[r.n for r in rows]], dtype=np.int64)
    k = np.array([[r.correct for r in rows]], dtype=np.int64)
    return Benchmark(
        name=model,
        models=(model,),
        tasks=tuple(r.task for r in rows),
        categories=tuple(r.category for r in rows),
        kind="counts",
        estimate=k / n,
        n=n,
        correct=k,
        higher_is_better=np.array([r.hib for r in rows]),
        notes=tuple(notes),
    )


def _top_group(task: str, parent: dict[str, str]) -> str:
    g, seen = parent.get(task), set()
    while g is not None and g in parent and g not in seen:
        seen.add(g)
        g = parent[g]
    return g or "ungrouped"


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


def samples_benchmark(src: Source, *, metric: str = "acc", model: str | None = None) -> Benchmark:
    """One ``samples_<task>_<timestamp>.jsonl`` file as item scores of one model and task."""
    base = src.name.rsplit("/", 1)[-1]
    m = SAMPLES_RE.match(base)
    task = m.group("task") if m else base.removesuffix(".jsonl").removeprefix("samples_")
    docs, scores, lines, notes = [], [], [], []
    used: str | None = None
    other_filters = 0
    filt_first: str | None = None
    for lineno, line in text_lines(src):  # one line at a time (samples files can be large)
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as err:
            raise DataError(
                f"line {lineno} is not valid JSON ({err.msg}).",
                file=src.name,
                row=lineno,
                hint="each line of a samples file must be one JSON object.",
            ) from None
        if not isinstance(rec, dict) or "doc_id" not in rec:
            raise DataError(
                f"line {lineno} is not an lm-eval sample record (no 'doc_id').",
                file=src.name,
                row=lineno,
                column="doc_id",
                hint="choose a samples_<task>_<time>.jsonl file written by lm_eval --log_samples.",
            )
        filt = rec.get("filter")
        if filt is not None:
            filt_first = filt_first or str(filt)
            if str(filt) != filt_first:
                other_filters += 1
                continue
        if used is None:
            used = _pick_metric(rec, metric)
            if used is None:
                raise DataError(
                    f"line {lineno} has no numeric metric field (looked for '{metric}').",
                    file=src.name,
                    row=lineno,
                    column=metric,
                    hint="choose the metric the task logs per item (e.g. acc or exact_match).",
                )
        v = rec.get(used)
        x = _num(float(v)) if isinstance(v, str) and _is_number(v) else _num(v)
        if isinstance(v, bool):
            x = float(v)
        if x is None:
            raise DataError(
                f"line {lineno}: '{used}' is {str(v)[:40]!r}, not a number.",
                file=src.name,
                row=lineno,
                column=used,
                hint="every sample needs a numeric score for the chosen metric.",
            )
        docs.append(str(rec["doc_id"]))
        scores.append(x)
        lines.append(lineno)
    if not docs:
        raise DataError(
            "the samples file has no records.",
            file=src.name,
            hint="choose a non-empty samples_<task>_<time>.jsonl file.",
        )
    if other_filters:
        notes.append(
            f"{src.name}: used the records of filter '{filt_first}'; {other_filters} records of "
            "other filters were left out."
        )
    if used != metric:
        notes.append(f"{src.name}: no '{metric}' per sample; used '{used}'.")
    frame = pd.DataFrame(
        {
            "model": model or _folder_model(src.name),
            "task": task,
            "item": docs,
            "score": scores,
            "row": lines,
            "file": src.name,
        }
    )
    return items_benchmark(frame, name=task, notes=tuple(notes))


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def _pick_metric(rec: dict, metric: str) -> str | None:
    def numeric(k: str) -> bool:
        v = rec.get(k)
        return isinstance(v, int | float) or (isinstance(v, str) and _is_number(v))

    if numeric(metric):
        return metric
    listed = rec.get("metrics") if isinstance(rec.get("metrics"), list) else []
    for k in (*PREFERRED_SAMPLE_METRICS, *listed):
        if numeric(k):
            return k
    return None


def _folder_model(name: str) -> str:
    parts = name.split("/")
    return parts[-2] if len(parts) > 1 else "model"

"""Every Eval Ever (schema 0.3.0) files with benchuq's uncertainty filled in (METHODS 2, 10).

Per model one aggregate JSON: an evaluation result per task with ``score_details.score`` (the
observed score) and ``score_details.uncertainty``: ``standard_error`` (the standard deviation of
the draws of that score; ``method`` names the draws, e.g. ``bootstrap: item-level paired``),
``confidence_interval`` (the percentile interval at ``level``, with ``confidence_level`` and
``method``), ``num_samples`` (items scored, or ``n`` of counts) and, for bootstrap draws,
``num_bootstrap_samples``. With more than one task the file also holds benchuq's group means
(overall, each category; marked ``metric_config.additional_details.benchuq_aggregate``, which
the reader sets aside). ``source_metadata`` and ``eval_library`` name benchuq and its version;
the harness the files came from is kept in ``eval_library.additional_details.harness``.

For item-level data each model also gets the instance-level ``<uuid>_samples.jsonl`` (one record
per task and item: ``sample_id``, ``evaluation.score`` = the item's score, ``is_correct`` = full
credit); the aggregate points to it (``detailed_evaluation_results`` with its SHA-256). Files
are laid out as the Every Eval Ever repository does:
``data/<data set>/<developer>/<model>/<uuid>.json``.
The uuid is derived from the content (data, model, draws, level), so the same export gives the
same names.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import time
import uuid
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from benchuq.core.budget import check_instances
from benchuq.core.data import Benchmark, file_name_part
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.draws import Draws
from benchuq.core.reading.eee import AGGREGATE_KEY
from benchuq.core.reading.meta import Meta
from benchuq.core.summaries import leaderboard
from benchuq.core.validation import InvalidArgument, check_level

__all__ = ["SCHEMA_VERSION", "EEEExport", "export_eee"]

SCHEMA_VERSION = "0.3.0"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class EEEExport:
    """Every Eval Ever files: ``files`` are ``(path under the output folder, text)`` pairs.

    ``aggregates`` and ``instances`` count the aggregate JSON and instance-level JSONL files;
    :meth:`write` puts them under a folder, :meth:`zip_bytes` into an archive.
    """

    files: tuple[tuple[str, str], ...]
    aggregates: int
    instances: int
    level: float
    method: str

    def __repr__(self) -> str:
        return (
            f"EEEExport({self.aggregates} aggregate, {self.instances} instance-level files; "
            f"{self.method}, level {self.level:g})"
        )

    def documents(self) -> dict[str, Any]:
        """The aggregate files parsed (path -> JSON object)."""
        return {p: json.loads(t) for p, t in self.files if p.endswith(".json")}

    def zip_bytes(self) -> bytes:
        """The files as a ZIP archive (deflated), paths as under the output folder."""
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
            for rel, text in self.files:
                archive.writestr(rel, text)
        return buf.getvalue()

    def write(self, directory: str | Path) -> tuple[Path, ...]:
        """Write every file under ``directory`` (folders made as needed); returns the paths."""
        root = Path(directory)
        out = []
        for rel, text in self.files:
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            out.append(path)
        return tuple(out)


def export_eee(
    bench: Benchmark,
    draws: Draws,
    *,
    level: float = COMPARISON_LEVEL,
    meta: Meta | None = None,
    retrieved_timestamp: str | None = None,
) -> EEEExport:
    """Every Eval Ever files for ``bench`` with the uncertainty of ``draws`` (module docstring).

    Parameters
    ----------
    bench
        the data (its models and tasks must be those of ``draws``).
    draws
        draws of per-task performance (``core.methods.bootstrap.bootstrap`` or a Bayesian fit).
    level
        confidence level of the intervals, a proportion.
    meta
        what the files said (the harness is named in ``eval_library``).
    retrieved_timestamp
        Unix time written as ``retrieved_timestamp`` and in ``evaluation_id`` (default: now).

    Returns
    -------
    EEEExport
        the files, written with :meth:`EEEExport.write`.

    Examples
    --------
    >>> from benchuq.core.methods.bootstrap import bootstrap
    >>> from benchuq.core.reading import load_sample
    >>> bench = load_sample("toy")
    >>> out = export_eee(bench, bootstrap(bench, reps=200, seed=0), retrieved_timestamp="0")
    >>> out.aggregates, out.instances
    (2, 0)
    """
    level = check_level(level)
    if tuple(draws.models) != bench.models or tuple(draws.tasks) != bench.tasks:
        raise InvalidArgument(
            "the draws are not of this data (their models or tasks differ).",
        )
    if bench.item_tasks is not None:  # every record's JSON line is held until written
        check_instances(sum(len(it.items) for it in bench.item_tasks) * len(bench.models))
    stamp = retrieved_timestamp if retrieved_timestamp is not None else str(int(time.time()))
    per_task = leaderboard(replace(draws, categories=draws.tasks), level=level)
    groups = leaderboard(draws, level=level) if len(bench.tasks) > 1 else None
    source = _safe(bench.name)
    files: list[tuple[str, str]] = []
    instances = 0
    for i, model in enumerate(bench.models):
        developer, short = _developer(model)
        folder = f"data/{source}/{_safe(developer)}/{_safe(short)}"
        key = f"{bench.content_hash}|{model}|{draws.method}|{draws.seed}|{draws.reps}|{level}"
        name = str(uuid.UUID(bytes=hashlib.sha256(key.encode()).digest()[:16], version=4))
        evaluation_id = f"{source}/{model}/{stamp}"
        results = _task_results(bench, draws, per_task, i, source, level)
        if groups is not None:
            results += _group_results(bench, draws, groups, i, source, level)
        doc: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "evaluation_id": evaluation_id,
            "retrieved_timestamp": stamp,
            "source_metadata": _source_metadata(bench, draws),
            "eval_library": _eval_library(meta, model),
            "model_info": {
                "name": short,
                "id": model,
                **({"developer": developer} if developer != "unknown" else {}),
                "additional_details": {
                    "deployment_type": "unknown",
                    "model_availability": "unknown",
                },
            },
            "evaluation_results": results,
        }
        if bench.item_tasks is not None:
            text, rows = _instance_lines(bench, i, evaluation_id, source)
            if rows:
                path = f"{folder}/{name}_samples.jsonl"
                doc["detailed_evaluation_results"] = {
                    "format": "jsonl",
                    "file_path": path,
                    "hash_algorithm": "sha256",
                    "checksum": hashlib.sha256(text.encode("utf-8")).hexdigest(),
                    "total_rows": rows,
                }
                files.append((path, text))
                instances += 1
        files.append((f"{folder}/{name}.json", json.dumps(doc, indent=2, ensure_ascii=False)))
    return EEEExport(tuple(files), len(bench.models), instances, level, draws.method)


def _safe(name: str) -> str:
    """A file-name-safe, non-empty version of ``name``, cut to a safe length
    (:func:`~benchuq.core.data.file_name_part`)."""
    return file_name_part(_UNSAFE.sub("_", name).strip("._") or "unnamed")


def _developer(model: str) -> tuple[str, str]:
    """(developer, model name) of a hub-style ``org/name`` id; ``unknown`` without an org."""
    if "/" in model:
        org, rest = model.split("/", 1)
        if org and rest:
            return org, rest
    return "unknown", model


def _source_metadata(bench: Benchmark, draws: Draws) -> dict[str, Any]:
    from benchuq import __version__

    return {
        "source_name": f"benchuq {__version__}: {bench.name}",
        "source_type": "evaluation_run" if bench.kind == "items" else "documentation",
        "source_organization_name": "benchuq",
        "evaluator_relationship": "other",
        "additional_details": {
            "generated_by": f"benchuq {__version__}",
            "uncertainty_method": draws.method,
            "seed": str(draws.seed),
            "data_set": bench.name,
            "data_notes": " | ".join(n.split("\n", 1)[0] for n in bench.notes),
        },
    }


def _eval_library(meta: Meta | None, model: str) -> dict[str, Any]:
    from benchuq import __version__

    harness = sorted({r.harness for r in (meta.runs if meta else ()) if r.model == model})
    details = {"role": "uncertainty (standard errors and intervals) computed by benchuq"}
    if harness:
        details["harness"] = ", ".join(h for h in harness if h) or "unknown"
    return {"name": "benchuq", "version": __version__, "additional_details": details}


def _uncertainty(
    draws: Draws, row: Any, level: float, n: int | None
) -> dict[str, Any]:  # a leaderboard row
    reps = draws.reps
    out: dict[str, Any] = {}
    if np.isfinite(row.se):
        out["standard_error"] = {
            "value": float(row.se),
            "method": f"standard deviation of {reps} draws ({draws.method})",
        }
    if np.isfinite(row.low) and np.isfinite(row.high):
        out["confidence_interval"] = {
            "lower": float(row.low),
            "upper": float(row.high),
            "confidence_level": level,
            "method": f"percentile interval of {reps} draws ({draws.method})" + _exact_note(draws),
        }
    if n is not None:
        out["num_samples"] = int(n)
    if draws.method.startswith("bootstrap"):
        out["num_bootstrap_samples"] = int(reps)
    return out


def _exact_note(draws: Draws) -> str:
    """How right/wrong cells' intervals are made exact (METHODS 2f), or ``""``."""
    if draws.binary is None or not np.any(draws.binary):
        return ""
    return (
        "; a right/wrong task's interval joined with the exact Clopper-Pearson interval of its "
        "counts, and at 0% or 100% the exact bound (METHODS 2f)"
    )


def _bounded(bench: Benchmark) -> bool:
    """Scores are proportions in [0, 1] (counts, or item scores)."""
    return bench.kind in ("counts", "items")


def _metric_config(bench: Benchmark, lower_is_better: bool, extra: dict[str, str]) -> dict:
    bounded = _bounded(bench)
    config: dict[str, Any] = {
        "metric_id": "score",
        "metric_name": "mean score" if bench.kind != "counts" else "accuracy",
        "lower_is_better": bool(lower_is_better),
        "score_type": "continuous",
        "min_score": 0.0 if bounded else None,
        "max_score": 1.0 if bounded else None,
    }
    if bounded:
        config["metric_unit"] = "proportion"
    if extra:
        config["additional_details"] = extra
    return config


def _task_results(
    bench: Benchmark, draws: Draws, per_task: Any, i: int, source: str, level: float
) -> list[dict[str, Any]]:
    # rows of model i: 'overall', then one group per task in task order (each task its category)
    rows = list(per_task[per_task["model"] == bench.models[i]].itertuples())
    by_task = dict(zip(bench.tasks, rows[1:] if len(rows) > 1 else rows, strict=True))
    hib = np.asarray(bench.higher_is_better, dtype=bool)
    out = []
    for j, task in enumerate(bench.tasks):
        if np.isnan(bench.estimate[i, j]):
            continue
        out.append(
            {
                "evaluation_result_id": f"{source}.{task}",
                "evaluation_name": task,
                "source_data": {
                    "dataset_name": task,
                    "source_type": "other",
                    "additional_details": {"category": bench.categories[j]},
                },
                "metric_config": _metric_config(bench, not hib[j], {}),
                "score_details": {
                    "score": float(bench.estimate[i, j]),
                    "uncertainty": _uncertainty(draws, by_task[task], level, _n(bench, i, j)),
                },
            }
        )
    return out


def _n(bench: Benchmark, i: int, j: int) -> int | None:
    if bench.item_tasks is not None:
        return int(bench.item_tasks[j].answered[i])
    if bench.n is not None:
        return int(bench.n[i, j])
    return None


def _group_results(
    bench: Benchmark, draws: Draws, groups: Any, i: int, source: str, level: float
) -> list[dict[str, Any]]:
    names = ["overall"] + (list(bench.category_names) if len(bench.category_names) > 1 else [])
    rows = {r.group: r for r in groups[groups["model"] == bench.models[i]].itertuples()}
    out = []
    for g in names:
        row = rows[g]
        if not np.isfinite(row.estimate):
            continue
        tasks = bench.tasks if g == "overall" else [
            t for t, c in zip(bench.tasks, bench.categories, strict=True) if c == g
        ]  # fmt: skip
        label = "overall" if g == "overall" else f"category {g}"
        extra = {AGGREGATE_KEY: f"{label}: mean over {len(tasks)} tasks", "tasks": ", ".join(tasks)}
        out.append(
            {
                "evaluation_result_id": f"{source}.benchuq.{g}",
                "evaluation_name": f"{label} (benchuq mean over tasks)",
                "source_data": {"dataset_name": bench.name, "source_type": "other"},
                "metric_config": _metric_config(bench, False, extra),
                "score_details": {
                    "score": float(row.estimate),
                    "uncertainty": _uncertainty(draws, row, level, None),
                },
            }
        )
    return out


def _instance_lines(bench: Benchmark, i: int, evaluation_id: str, source: str) -> tuple[str, int]:
    """The instance-level JSONL of model ``i`` and its number of records."""
    assert bench.item_tasks is not None
    lines = []
    model = bench.models[i]
    for task, category, it in zip(bench.tasks, bench.categories, bench.item_tasks, strict=True):
        scores = it.scores[i]
        subgroup = list(it.subgroup) if it.subgroup is not None else None
        cluster = list(it.cluster) if it.cluster is not None else None
        for k, item in enumerate(it.items):
            s = float(scores[k])
            if np.isnan(s):
                continue
            meta = {"category": category}  # read back by core.reading.eee
            if subgroup is not None:
                meta["subgroup"] = subgroup[k]
            if cluster is not None:
                meta["cluster"] = cluster[k]
            record: dict[str, Any] = {
                "schema_version": SCHEMA_VERSION,
                "evaluation_id": evaluation_id,
                "model_id": model,
                "evaluation_name": task,
                "evaluation_result_id": f"{source}.{task}",
                "sample_id": item,
                "interaction_type": "single_turn",
                "input": {"raw": "", "reference": []},
                "output": {"raw": []},
                "answer_attribution": [],
                "evaluation": {"score": s, "is_correct": s >= 1.0},
            }
            record["metadata"] = meta
            lines.append(json.dumps(record, ensure_ascii=False))
    return "".join(line + "\n" for line in lines), len(lines)

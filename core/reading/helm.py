"""Stanford CRFM HELM output: a ``benchmark_output/runs/<suite>/`` folder -> item scores.

Each run folder holds ``run_spec.json``, ``stats.json`` and ``per_instance_stats.json``; one run
is one model on one scenario. Read as:

- model: ``adapter_spec.model`` (else ``model_deployment``, else the run name's ``model=``);
- task: the run entry without its model, i.e. the scenario and its arguments
  (``bbq:subject=all,method=multiple_choice_joint``; ``harm_bench``); category: the run's first
  HELM group (``groups``), else the scenario;
- items: ``instance_id``; score: the chosen metric's per-instance ``mean``, averaged over
  training trials (``train_trial_index``) when there are several: the trials are its repeated
  answers, resampled together (issue 26; a note says so). An instance
  listed in several entries (each with some of its stats) is one item;
- split: ``test`` if the files have it, else ``valid``, else the first one;
- perturbation variants (an entry's or a stat's ``perturbation``) are separate tasks,
  ``task [perturbation]``, never mixed with the unperturbed instances;
- metric: the one asked for, else the scenario's main metric where the files name it (a
  per-instance stat called ``<group>_score`` or ``<group>_accuracy`` for one of the run's groups,
  e.g. ``harm_bench_score``), else the first of :data:`MAIN_METRICS` present (``exact_match``
  first: HELM's usual headline for multiple-choice and short answers, and ``bbq_accuracy``, BBQ's
  main metric, is computed over the whole run and is its mean over instances here). This is a
  documented choice: HELM's schema (not in the run folders) names the main metric of each group.

The per-instance mean of the metric is checked against the run's own ``stats.json`` mean
(unperturbed, same split); a difference is reported in the notes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchuq.core.data import Benchmark, DataError
from benchuq.core.reading.items import items_benchmark
from benchuq.core.reading.lm_eval import number
from benchuq.core.reading.meta import Meta, MissingMetric, TaskRun
from benchuq.core.reading.table import Source, parse_json

__all__ = ["MAIN_METRICS", "helm_kind", "helm_run"]

MAIN_METRICS = (
    "exact_match",
    "quasi_exact_match",
    "prefix_exact_match",
    "quasi_prefix_exact_match",
    "f1_score",
    "math_equiv",
    "rouge_l",
)
#: Per-instance stats that describe the run, not the model's answer.
BOOKKEEPING = frozenset(
    "num_references num_train_trials num_prompt_tokens num_completion_tokens num_output_tokens "
    "training_co2_cost training_energy_cost inference_runtime inference_denoised_runtime "
    "batch_size finish_reason_length finish_reason_stop finish_reason_endoftext "
    "finish_reason_unknown num_train_instances prompt_truncated num_instances max_prob logprob "
    "num_perplexity_tokens num_bytes perplexity bits_per_byte logprob_per_byte".split()
)
SPLITS = ("test", "valid")
TOL = 1e-9


def helm_kind(obj: object) -> str | None:
    """``"helm_spec"`` (run_spec.json), ``"helm"`` (per_instance_stats.json), ``"helm_stats"``
    (stats.json) or ``None``."""
    if isinstance(obj, dict) and isinstance(obj.get("adapter_spec"), dict):
        return "helm_spec" if "scenario_spec" in obj else None
    if not isinstance(obj, list) or not obj or not isinstance(obj[0], dict):
        return None
    first = obj[0]
    if "instance_id" in first and isinstance(first.get("stats"), list):
        return "helm"
    name = first.get("name")
    if isinstance(name, dict) and "split" in name and "count" in first:
        return "helm_stats"
    return None


def _task_and_model(spec: dict, file: str) -> tuple[str, str, str]:
    """(task, category, model) of a run spec (see the module docstring)."""
    adapter = spec.get("adapter_spec") or {}
    run = str(spec.get("name") or "")
    scenario, _, args = run.partition(":")
    pairs = [a.split("=", 1) for a in args.split(",") if "=" in a]
    model = adapter.get("model") or adapter.get("model_deployment")
    model = model or dict(pairs).get("model", "").replace("_", "/", 1)
    if not scenario:
        cls = str((spec.get("scenario_spec") or {}).get("class_name", ""))
        scenario = cls.rsplit(".", 1)[-1] or "scenario"
    if not model:
        raise DataError(
            "the run spec names no model (adapter_spec.model).",
            file=file,
            column="adapter_spec.model",
            hint="choose the run_spec.json that helm-run wrote for this run.",
        )
    kept = [f"{k}={v}" for k, v in pairs if k not in ("model", "model_deployment")]
    task = scenario + (":" + ",".join(kept) if kept else "")
    groups = spec.get("groups") or []
    category = str(groups[0]) if groups else scenario
    return task, category, str(model)


def _perturbation(p: object) -> str:
    """A short label for a HELM perturbation description (``""`` for none)."""
    if not isinstance(p, dict) or not p.get("name"):
        return ""
    extra = [
        f"{k}={v}"
        for k, v in sorted(p.items())
        if k not in ("name", "robustness", "fairness", "computed_on") and v not in (None, "")
    ]
    return str(p["name"]) + (f"({','.join(extra)})" if extra else "")


#: One per-instance stat: (instance, perturbation, trial, split, metric, mean).
_Row = tuple[str, str, int, str, str, float]


def _records(entries: list, file: str) -> list[_Row]:
    """Every per-instance stat with a count, as plain tuples (no pandas: runs are many)."""
    rows: list[_Row] = []
    for k, e in enumerate(entries, start=1):
        if not (isinstance(e, dict) and "instance_id" in e and isinstance(e.get("stats"), list)):
            raise DataError(
                f"entry {k} is not a HELM per-instance record (instance_id, stats).",
                file=file,
                row=k,
                hint="choose the per_instance_stats.json that helm-run wrote.",
            )
        item, outer = str(e["instance_id"]), _perturbation(e.get("perturbation"))
        trial = int(e.get("train_trial_index", 0) or 0)
        for s in e["stats"]:
            name = s.get("name") if isinstance(s, dict) else None
            if not isinstance(name, dict) or not s.get("count"):
                continue
            total, count = number(s.get("sum")), number(s["count"])
            mean = (
                number(s["mean"])
                if "mean" in s
                else total / count
                if total is not None and count
                else None
            )
            pert = outer or _perturbation(name.get("perturbation"))
            value = np.nan if mean is None else mean
            rows.append((item, pert, trial, str(name.get("split", "")), str(name["name"]), value))
    return rows


def _scores(rows: list[_Row]) -> tuple[dict[tuple[str, str], dict[int, float]], int]:
    """Per (perturbation, instance) its score in each trial, and the most trials of any."""
    per: dict[tuple[str, str], dict[int, float]] = {}
    for item, pert, trial, _split, _metric, value in rows:
        per.setdefault((pert, item), {})[trial] = value
    return per, max(len(v) for v in per.values())


def _main_metric(available: list[str], groups: list[str]) -> str | None:
    for g in groups:
        for m in (f"{g}_score", f"{g}_accuracy"):
            if m in available:
                return m
    return next((m for m in MAIN_METRICS if m in available), available[0] if available else None)


def helm_run(
    spec_src: Source,
    instances_src: Source,
    stats_src: Source | None,
    *,
    metric: str | None,
    parsed: dict[int, object] | None = None,
) -> tuple[Benchmark, Meta]:
    """One HELM run (its three files) as item scores of one model (see the module docstring;
    ``parsed`` maps ``id(source)`` to its JSON where already read)."""
    parsed = parsed or {}

    def json_of(src: Source) -> object:
        return parsed[id(src)] if id(src) in parsed else parse_json(src)

    spec = json_of(spec_src)
    if not isinstance(spec, dict) or helm_kind(spec) != "helm_spec":
        raise DataError(
            "not a HELM run_spec.json (no adapter_spec and scenario_spec).",
            file=spec_src.name,
            hint="each run folder needs the run_spec.json that helm-run wrote.",
        )
    task, category, model = _task_and_model(spec, spec_src.name)
    entries = json_of(instances_src)
    if not isinstance(entries, list):
        raise DataError(
            "per_instance_stats.json must be a list of records.", file=instances_src.name
        )
    rows = _records(entries, instances_src.name)
    available = [m for m in dict.fromkeys(r[4] for r in rows) if m not in BOOKKEEPING]
    chosen = metric if metric in available else None
    if metric and chosen is None:
        raise MissingMetric(
            f"no per-instance metric '{metric}' in this run.",
            file=instances_src.name,
            column=metric,
            hint=f"choose one of {', '.join(available) or '(none)'}; run-level metrics in "
            "stats.json (e.g. bbq_accuracy) have no per-instance scores.",
        )
    chosen = chosen or _main_metric(available, [str(g) for g in spec.get("groups") or []])
    if chosen is None:
        raise DataError(
            "the run has no per-instance scores.",
            file=instances_src.name,
            hint="choose a run whose per_instance_stats.json holds metrics such as exact_match.",
        )
    splits = list(dict.fromkeys(r[3] for r in rows if r[4] == chosen))
    split = next((s for s in SPLITS if s in splits), splits[0])
    per_trial, trials = _scores([r for r in rows if r[4] == chosen and r[3] == split])
    answers = [(k, t, v) for k, by_trial in per_trial.items() for t, v in by_trial.items()]
    for (_pert, item), _trial, value in answers:
        if not 0 <= value <= 1:  # also catches a missing value (nan)
            raise DataError(
                f"'{chosen}' = {value:g} for instance '{item}' is not in 0..1.",
                file=instances_src.name,
                column=chosen,
                hint="choose a metric that is a proportion (such as exact_match).",
            )
    items = pd.DataFrame(  # one record per trial: trials are repeated answers (issue 26)
        {
            "model": model,
            "task": [task + (f" [{p}]" if p else "") for (p, _), _, _ in answers],
            "item": [i for (_, i), _, _ in answers],
            "score": [v for _, _, v in answers],
            "epoch": [t for _, t, _ in answers],
            "row": np.arange(1, len(answers) + 1),
            "file": instances_src.name,
            "category": category,
        }
    )
    scores = {k: float(np.mean(list(v.values()))) for k, v in per_trial.items()}
    notes = [f"HELM metric '{chosen}' ({split} split)."]
    if trials > 1:
        notes.append(
            f"HELM: instances are answered in up to {trials} trials (train_trial_index): each "
            "is one item scored by the mean of its trials, resampled with all of them "
            "(METHODS 2)."
        )
    if len(splits) > 1:
        notes.append(f"HELM: the {split} split was read; the files also hold {splits}.")
    if stats_src is not None:
        notes += _check_stats(stats_src, json_of(stats_src), chosen, split, scores)
    bench = items_benchmark(items, name=task, notes=tuple(notes))
    shots = (spec.get("adapter_spec") or {}).get("max_train_instances")
    shots_text = "" if shots is None else str(shots)
    runs = tuple(
        TaskRun(model, t, instances_src.name, "HELM", "", shots_text, chosen) for t in bench.tasks
    )
    return bench, Meta(runs=runs, metrics=tuple(available))


def _check_stats(
    src: Source, stats: object, metric: str, split: str, scores: dict[tuple[str, str], float]
) -> list[str]:
    """Compare the per-instance mean with stats.json's mean of the same metric and split."""
    if not isinstance(stats, list) or helm_kind(stats) != "helm_stats":
        return [f"HELM: '{src.name}' is not a stats.json list; the means were not checked."]
    own = [v for (pert, _), v in scores.items() if not pert]
    for s in stats:
        name = s.get("name") or {}
        if (
            name.get("name") == metric
            and name.get("split") == split
            and not name.get("perturbation")
        ):
            mean = s.get("mean")
            if isinstance(mean, int | float) and own and abs(np.mean(own) - mean) > TOL:
                return [
                    f"HELM: the mean of '{metric}' over instances ({np.mean(own):.6g}) differs "
                    f"from stats.json ({mean:.6g})."
                ]
            return []
    return []

"""lighteval details/results and OpenAI evals logs written in the layouts the projects document.

No real files of these harnesses are in the shared reference data, so the tests write them:

- lighteval (huggingface/lighteval, ``EvaluationTracker.save`` and its docs "Saving and reading
  results"): ``details/<model>/<date>/details_<suite|task|shots>_<date>.parquet``, one row per
  item with struct columns ``doc``, ``model_response`` and ``metric`` (columns sorted, as
  lighteval sorts them); older versions: flat ``example`` ... and a ``metrics`` struct; and
  ``results/<model>/results_<date>.json`` with ``config_general`` and ``results``
  (``metric``/``metric_stderr`` per ``suite|task|shots``).
- OpenAI evals (openai/evals ``evals/record.py``, ``LocalRecorder``): a JSON Lines log whose
  first line is ``{"spec": {...}}``, then events (``run_id``, ``event_id``, ``sample_id``,
  ``type``, ``data``, ``created_by``, ``created_at``), last ``{"final_report": {...}}``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.parquet as pq

DATE = "2025-03-14T10-57-04.203304"


def lighteval_details(
    scores: dict[str, Sequence[float | bool | None]],
    *,
    ids: Sequence[str] | None = None,
    old_layout: bool = False,
) -> bytes:
    """A details Parquet: ``scores`` maps a metric name to one score per item."""
    n = len(next(iter(scores.values())))
    ids = list(ids) if ids is not None else [f"doc_{k}" for k in range(n)]
    metric = pa.StructArray.from_arrays(
        [pa.array(list(v)) for v in scores.values()], names=list(scores)
    )
    if old_layout:
        columns = {
            "example": pa.array([f"Question {k}?" for k in range(n)]),
            "full_prompt": pa.array([f"Q: Question {k}?\nA:" for k in range(n)]),
            "gold": pa.array([["4"] for _ in range(n)]),
            "metrics": metric,
            "predictions": pa.array([["4"] for _ in range(n)]),
        }
    else:
        doc = pa.StructArray.from_arrays(
            [
                pa.array(ids),
                pa.array([f"Question {k}?" for k in range(n)]),
                pa.array([["A", "B"] for _ in range(n)]),
                pa.array([[0] for _ in range(n)]),
                pa.array(["lighteval|gsm8k|0"] * n),
            ],
            names=["id", "query", "choices", "gold_index", "task_name"],
        )
        response = pa.StructArray.from_arrays(
            [pa.array([["4"] for _ in range(n)]), pa.array([[12] for _ in range(n)])],
            names=["text", "input_tokens"],
        )
        columns = {"doc": doc, "metric": metric, "model_response": response}
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf)
    return buf.getvalue()


def lighteval_results(model: str, results: dict[str, dict[str, float]], *, sha: str = "") -> bytes:
    """A ``results_<date>.json`` for one model (``results``: task key -> metric -> value)."""
    body = {
        "config_general": {
            "lighteval_sha": sha or "?",
            "num_fewshot_seeds": 1,
            "max_samples": None,
            "model_name": model,
            "model_sha": "",
        },
        "results": {**results, "all": {}},
        "versions": {k: 0 for k in results},
        "config_tasks": {},
        "summary_tasks": {},
        "summary_general": {},
    }
    return json.dumps(body, indent=2).encode()


def oaieval_log(
    model: str,
    eval_name: str,
    correct: Sequence[bool],
    *,
    run_id: str = "230401000000ABCDEF",
    repeats: int = 1,
    errors: Sequence[str] = (),
    metrics: Sequence[dict[str, float]] | None = None,
    final_report: dict[str, float] | None = None,
) -> bytes:
    """An oaieval log: one ``sampling`` and ``repeats`` ``match`` events per sample."""
    spec = {
        "completion_fns": [model],
        "eval_name": eval_name,
        "base_eval": eval_name.split(".")[0],
        "split": eval_name.split(".")[1] if "." in eval_name else "",
        "run_config": {"completion_fns": [model], "eval_spec": {}, "seed": 20220722},
        "created_by": "",
        "run_id": run_id,
        "created_at": "2023-04-01 00:00:00.000000",
    }
    lines = [{"spec": spec}]
    event = 0

    def add(sample: str, kind: str, data: dict) -> None:
        nonlocal event
        lines.append(
            {
                "run_id": run_id,
                "event_id": event,
                "sample_id": sample,
                "type": kind,
                "data": data,
                "created_by": "",
                "created_at": "2023-04-01 00:00:01.000000+00:00",
            }
        )
        event += 1

    base = eval_name.split(".")[0]
    for k, ok in enumerate(correct):
        sample = f"{base}.dev.{k}"
        add(sample, "sampling", {"prompt": f"Q{k}", "sampled": ["4"]})
        for _ in range(repeats):
            add(
                sample,
                "match",
                {"correct": bool(ok), "expected": "4", "picked": "4" if ok else "5"},
            )
        if metrics is not None:
            add(sample, "metrics", dict(metrics[k]))
    for k, sample in enumerate(errors):
        add(sample, "error", {"type": "TimeoutError", "message": f"timeout {k}"})
    acc = sum(map(bool, correct)) / len(correct) if correct else 0.0
    lines.append({"final_report": final_report if final_report is not None else {"accuracy": acc}})
    return "".join(json.dumps(x) + "\n" for x in lines).encode()

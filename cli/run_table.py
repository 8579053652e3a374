"""The terminal's per-task table in the harness's own terms (issue 30): lm-eval's columns (task,
version, filter, n-shot, metric) and HELM's run fields (scenario, its arguments, in-context
examples, metric), next to each model's score and its interval at the leaderboard's level, and
lm-eval's own standard error of the score where its files give one (issue 41)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchuq.core.draws import Draws
from benchuq.core.reading.meta import Meta
from benchuq.core.reading.naming import harness_family

__all__ = ["run_table"]


def run_table(draws: Draws, meta: Meta | None, level: float) -> pd.DataFrame | None:
    """One row per task and model as lm-eval or HELM would list it, with ``value``, ``low`` and
    ``high`` (the app's interval of the task at ``level``: METHODS 2, with the exact rule of 2f
    for counted tasks) and, for lm-eval files that give one, lm-eval's ``stderr`` of the value;
    ``None`` for data that came from neither (a table has no such columns)."""
    family = harness_family(meta.runs) if meta is not None else ""
    if meta is None or not (family.startswith("lm-eval") or family.startswith("HELM")):
        return None
    from benchuq.api.summaries import percentile_interval, task_scores  # harness files only

    runs = {(r.model, r.task): r for r in meta.runs}
    intervals = [
        percentile_interval(task_scores(draws, j), level=level) for j, _ in enumerate(draws.tasks)
    ]
    low = np.column_stack([iv.low for iv in intervals])  # (M, T): the app's per-task rule
    high = np.column_stack([iv.high for iv in intervals])
    rows = []
    for j, task in enumerate(draws.tasks):
        for i, model in enumerate(draws.models):
            if not np.isfinite(draws.observed[i, j]):
                continue
            r = runs.get((model, task))
            metric, _, filt = (r.metric if r else "").partition(",")
            value = {"value": draws.observed[i, j], "low": low[i, j], "high": high[i, j]}
            if family.startswith("HELM"):
                scenario, _, args = task.partition(":")
                head = {
                    "scenario": scenario,
                    "run arguments": args or "—",
                    "in-context examples": (r.n_shot if r else "") or "—",
                    "metric": metric or "—",
                }
            else:
                head = {
                    "task": task,
                    "version": (r.version if r else "") or "—",
                    "filter": filt or "none",
                    "n-shot": (r.n_shot if r else "") or "—",
                    "metric": metric or "—",
                }
            if r is not None and r.stderr is not None and family.startswith("lm-eval"):
                value["lm-eval stderr"] = r.stderr
            rows.append({**head, "model": model, **value})
    return pd.DataFrame(rows)

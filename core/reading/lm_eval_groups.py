"""How lm-eval scored each group of a results file: size-weighted or the plain mean of its tasks.

lm-eval writes a group's score (``results["mmlu"]["acc,none"]``) next to its tasks' scores but not
how it aggregated them (``aggregate_metric_list``'s ``weight_by_size`` is in the group's YAML, not
in the results file). The aggregate is read back from the numbers: the group's score is compared
with the size-weighted mean ``sum_j n_j p_j / sum_j n_j`` and the plain mean of its leaf tasks'
scores; the one within :data:`MATCH_TOL` is the group's (size-weighted when both are, as for
equal sizes). Nothing matches (a group over another metric, tasks skipped) or no score: unknown
(``""``), and :mod:`benchuq.core.summaries.headline` says what it does then.
"""

from __future__ import annotations

from benchuq.core.data import DataError
from benchuq.core.reading.meta import Group

__all__ = ["MATCH_TOL", "with_aggregates"]

#: Largest difference between a group's stated score and an aggregate of its tasks that counts as
#: the same number (lm-eval writes full float precision).
MATCH_TOL = 1e-6


def with_aggregates(obj: dict, groups: tuple[Group, ...], metric: str) -> tuple[Group, ...]:
    """``groups`` of the results file ``obj`` with the aggregate that reproduces their ``metric``
    score (see the module docstring)."""
    from benchuq.core.reading.lm_eval import _metric, _task_n, mmlu_subject

    results = obj["results"]
    n_samples = n if isinstance(n := obj.get("n-samples"), dict) else {}
    leaves: dict[str, tuple[float, float]] = {}
    for task, entry in results.items():
        if not isinstance(entry, dict):
            continue
        value, se, _ = _metric(entry, metric)
        if value is None:
            continue
        name = mmlu_subject(task) or task
        try:
            n, _how = _task_n(task, name, n_samples, None, value, se)
        except DataError:
            n = None
        if n is not None:
            leaves[name] = (value, float(n))
    out = []
    for g in groups:
        entry = results.get(g.name)
        stated = _metric(entry, metric)[0] if isinstance(entry, dict) else None
        aggregate = ""
        got = [leaves[t] for t in g.tasks if t in leaves]
        if stated is not None and got:  # lm-eval aggregates the subtasks that have the metric
            total = sum(n for _, n in got)
            weighted = sum(v * n for v, n in got) / total
            mean = sum(v for v, _ in got) / len(got)
            if abs(weighted - stated) <= MATCH_TOL:
                aggregate = "size-weighted"
            elif abs(mean - stated) <= MATCH_TOL:
                aggregate = "mean"
        out.append(Group(g.name, g.tasks, g.parent, aggregate))
    return tuple(out)

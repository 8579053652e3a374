"""Models that share no task: their scores average different tasks and cannot be compared.

A data set can join results that never met: a 2023 sample file of one task next to results files
of other tasks, or two teams' runs of disjoint suites. Each model's overall score is then a mean
over its own tasks, and a difference between two such models says nothing about the models. The
loader says so in a note; the "≈ leader" rule never ties a model with a leader it shares no task
with (:func:`benchuq.core.summaries.leader.tied_with_leader`).
"""

from __future__ import annotations

import numpy as np

from benchuq.core.data import Benchmark
from benchuq.core.reading.notes import listing

__all__ = ["disjoint_notes", "task_sharing_sets"]


def task_sharing_sets(bench: Benchmark) -> list[list[str]]:
    """The models in sets linked by shared tasks (two models are in one set when a chain of
    models, each sharing a task with the next, joins them); one set when all are linked."""
    have = ~np.isnan(bench.estimate)
    shared = (have.astype(np.int64) @ have.T.astype(np.int64)) > 0
    seen = np.zeros(len(bench.models), bool)
    sets = []
    for start in range(len(bench.models)):
        if seen[start]:
            continue
        todo, members = [start], []
        seen[start] = True
        while todo:
            i = todo.pop()
            members.append(i)
            for j in np.flatnonzero(shared[i] & ~seen):
                seen[j] = True
                todo.append(int(j))
        sets.append([bench.models[i] for i in sorted(members)])
    return sets


def disjoint_notes(bench: Benchmark) -> list[str]:
    """One note when some models share no task with others (see the module docstring)."""
    sets = task_sharing_sets(bench)
    if len(sets) < 2:
        return []
    groups = "; ".join(f"[{listing(s)}]" for s in sets)
    return [
        f"{len(sets)} sets of models share no task with each other: {groups}. Their overall "
        "scores average different tasks, so models of different sets are never marked "
        "'≈ leader' against each other and their differences mean nothing; compare models of "
        "one set, or load results on common tasks."
    ]

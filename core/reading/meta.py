"""What the files say besides the scores: provenance per model and task, groups, metrics offered.

Readers of evaluation-tool output (lm-eval, HELM) return a :class:`Meta` next to their
:class:`~benchuq.core.data.Benchmark`; the loader joins them into a :class:`Loaded`. Nothing here
changes a number: it is shown (Data page, wide table) and used for group scores
(:mod:`benchuq.core.summaries.groups`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from benchuq.core.data import Benchmark, DataError

__all__ = ["NO_SAMPLES", "RUN_COLUMNS", "Group", "Loaded", "Meta", "MissingMetric", "TaskRun"]


class MissingMetric(DataError):
    """A file (an lm-eval results file, a HELM run, an inspect log) with no score to read: none
    of the asked metric, or none at all (an unscored log, a log without samples). The loader skips
    it with a note when other files have scores, else reports it; ``reason`` is the note's short
    reason (``None``: no score of the asked metric)."""

    def __init__(self, message: str, *, reason: str | None = None, **where: Any) -> None:
        self.reason = reason
        super().__init__(message, **where)  # file, row, column, hint: as DataError


RUN_COLUMNS = ("model", "task", "file", "harness", "version", "n_shot", "metric")
NO_SAMPLES = "no samples in them"  # a MissingMetric reason (inspect_ai JSON and .eval logs)


@dataclass(frozen=True)
class TaskRun:
    """Where one model's result on one task comes from.

    ``harness``: the tool and its version (e.g. ``"lm-eval 0.4.13.dev0, git eb02ba3"``);
    ``version``: the task's own version; ``n_shot``: few-shot examples (``""`` when unknown);
    ``metric``: the metric read (with lm-eval's filter when it is not ``none``); ``stderr``:
    the harness's own standard error of the score (lm-eval's ``<metric>_stderr``), ``None``
    when the files give none.
    """

    model: str
    task: str
    file: str
    harness: str
    version: str = ""
    n_shot: str = ""
    metric: str = ""
    stderr: float | None = None


@dataclass(frozen=True)
class Group:
    """A named group of tasks as the files define it (lm-eval ``group_subtasks``).

    ``tasks`` are the leaf tasks under it (after renaming, e.g. MMLU subjects); ``parent`` is the
    group it belongs to (``None`` at the top); ``aggregate``: how lm-eval scored it from its
    tasks, ``"size-weighted"`` or ``"mean"`` when the group's score in the files reproduces one
    of them (:mod:`.lm_eval_groups`), ``""`` when unknown.
    """

    name: str
    tasks: tuple[str, ...]
    parent: str | None = None
    aggregate: str = ""


@dataclass(frozen=True)
class Meta:
    """Provenance rows, groups and the metrics the files offer (for a metric selector)."""

    runs: tuple[TaskRun, ...] = ()
    groups: tuple[Group, ...] = ()
    metrics: tuple[str, ...] = ()

    @staticmethod
    def join(parts: Iterable[Meta]) -> Meta:
        """All parts' runs; groups and metrics by name (first definition of a group wins, the
        union of its tasks over files is kept; its aggregate is known when the files that state
        one agree)."""
        runs: list[TaskRun] = []
        groups: dict[str, Group] = {}
        metrics: dict[str, None] = {}
        for m in parts:
            runs += m.runs
            for g in m.groups:
                old = groups.get(g.name)
                tasks = g.tasks if old is None else tuple(dict.fromkeys(old.tasks + g.tasks))
                aggregate = g.aggregate if old is None else _agreed(old.aggregate, g.aggregate)
                groups[g.name] = Group(g.name, tasks, old.parent if old else g.parent, aggregate)
            metrics.update(dict.fromkeys(m.metrics))
        return Meta(tuple(runs), tuple(groups.values()), tuple(metrics))

    def runs_frame(self) -> pd.DataFrame:
        """The provenance rows as a table (columns :data:`RUN_COLUMNS`)."""
        return pd.DataFrame([r.__dict__ for r in self.runs], columns=list(RUN_COLUMNS))


def _agreed(a: str, b: str) -> str:
    """One group's aggregate over two files: the stated one, ``""`` when they differ."""
    return a if not b or a == b else b if not a else ""


@dataclass(frozen=True)
class Loaded:
    """A loaded data set: the :class:`Benchmark` and what the files said about it."""

    bench: Benchmark
    meta: Meta = field(default_factory=Meta)

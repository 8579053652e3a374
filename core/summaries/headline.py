"""The headline score ("overall"): which aggregate of the tasks leads every output (METHODS 0).

Two aggregates, each named wherever a number is shown (:attr:`Headline.label`):

- ``"tasks"``: the mean over all tasks (every task weighs the same); the default for every
  format except lm-eval files that define groups.
- ``"benchmarks"``: the mean over **benchmarks**, as public leaderboards average them: each
  top-level lm-eval group (``mmlu`` over its 57 subjects) counts once, scored as lm-eval scores it
  (the aggregate that reproduces the group score in the files: the size-weighted mean
  ``sum_j n_ij p_ij / sum_j n_ij`` for ``mmlu``, see :mod:`benchuq.core.summaries.groups`), and
  every task outside a group counts once. The default for lm-eval files with groups
  (``group_subtasks``).

Both are fixed linear combinations of the per-task scores, so the headline's interval comes from
the same draws as every other summary: ``S_i = sum_j W_ij x_ij`` with weights ``W`` ``(M, T)``
that sum to 1 over the tasks model i has (a model is scored over the benchmarks it has; inside a
group over the group's tasks it has, as lm-eval does with what it ran).

**Choice**: a top-level group with no stated aggregate (its score of the metric is not in the
files, or neither aggregate reproduces it) is size-weighted (lm-eval's ``weight_by_size``, the
aggregate of its ``mmlu``), and :attr:`Headline.notes` says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws
from benchuq.core.options import option
from benchuq.core.reading.meta import Group
from benchuq.core.reading.notes import count, listing
from benchuq.core.summaries.groups import task_sizes
from benchuq.core.validation import check_choice

__all__ = ["OVERALLS", "Headline", "Overall", "Unit", "headline", "overall_label"]

Overall = Literal["auto", "benchmarks", "tasks"]
#: The values of ``overall=`` (CLI ``--overall``, the app's ``overall`` link parameter).
OVERALLS: tuple[str, ...] = get_args(Overall)


@dataclass(frozen=True)
class Unit:
    """One benchmark of the headline: a top-level group (``aggregate`` of its ``tasks``) or a
    task on its own (one task, ``aggregate`` ``"task"``)."""

    name: str
    tasks: tuple[str, ...]
    aggregate: Literal["size-weighted", "mean", "task"]


@dataclass(frozen=True, eq=False)
class Headline:
    """The aggregate behind "overall" (see the module docstring).

    ``kind``: ``"tasks"`` or ``"benchmarks"``; ``label``: what it is, in words (e.g. ``"mean of
    16 benchmarks; mmlu = lm-eval's size-weighted mean of 57 subjects"``); ``offered``: the
    aggregates this data set can show; ``units``: the benchmarks (``"benchmarks"`` only);
    ``weights``: ``(M, T)`` task weights per model of ``models`` (``None`` for ``"tasks"``: the
    plain mean); ``notes``: choices made without the files saying.
    """

    kind: Literal["benchmarks", "tasks"]
    label: str
    offered: tuple[str, ...]
    models: tuple[str, ...] = ()
    units: tuple[Unit, ...] = ()
    weights: np.ndarray | None = None
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"Headline({self.kind!r}, {self.label!r})"

    def weights_for(self, models: Sequence[str]) -> np.ndarray:
        """``(len(models), T)`` weights of ``models`` (rows of :attr:`weights`)."""
        assert self.weights is not None
        return self.weights[[self.models.index(m) for m in models]]

    def describe(self) -> dict[str, object]:
        """JSON fields naming the aggregate (the CLI's ``overall`` object)."""
        return {
            "aggregate": self.kind,
            "label": self.label,
            "offered": list(self.offered),
            "benchmarks": [
                {"name": u.name, "aggregate": u.aggregate, "tasks": len(u.tasks)}
                for u in self.units
            ],
            "notes": list(self.notes),
        }


def headline(
    bench: Benchmark, *, groups: Sequence[Group] = (), overall: Overall = "auto"
) -> Headline:
    """The headline aggregate of ``bench`` given its files' lm-eval ``groups``.

    ``overall``: ``"auto"`` (``"benchmarks"`` when a top-level group covers two or more of the
    tasks, else ``"tasks"``), ``"benchmarks"`` or ``"tasks"``.

    Examples
    --------
    >>> import numpy as np
    >>> from benchuq.core.data import Benchmark
    >>> from benchuq.core.reading.meta import Group
    >>> n = np.array([[100, 300, 50]])
    >>> b = Benchmark("x", ("m",), ("s1", "s2", "arc"), ("suite", "suite", "arc"), "counts",
    ...               np.array([[0.5, 0.7, 0.9]]), n=n, correct=np.array([[50, 210, 45]]))
    >>> h = headline(b, groups=[Group("suite", ("s1", "s2"), aggregate="size-weighted")])
    >>> h.label
    "mean of 2 benchmarks; suite = lm-eval's size-weighted mean of 2 tasks"
    >>> round(float(h.weights[0] @ b.estimate[0]), 4)  # (260 / 400 + 0.9) / 2
    0.775
    """
    check_choice(overall, OVERALLS, name="overall")
    units, notes = _units(bench, groups)
    grouped = any(u.aggregate != "task" for u in units)
    offered = ("benchmarks", "tasks") if grouped else ("tasks",)
    kind = overall if overall != "auto" else ("benchmarks" if grouped else "tasks")
    if kind == "tasks" or not grouped:
        label = f"mean of {count(len(bench.tasks), 'task')}"
        if overall == "benchmarks":
            notes = ("no lm-eval group covers two or more tasks: overall = mean over tasks.",)
        return Headline("tasks", label, offered, notes=notes)
    parts = [
        f"{u.name} = "
        + ("lm-eval's size-weighted mean" if u.aggregate == "size-weighted" else "the mean")
        + f" of {count(len(u.tasks), _member_word(u))}"
        for u in units
        if u.aggregate != "task"
    ]
    label = f"mean of {count(len(units), 'benchmark')}; " + "; ".join(parts)
    return Headline(
        "benchmarks", label, offered, bench.models, units, _weights(bench, units), notes
    )


def _member_word(unit: Unit) -> str:
    return "subject" if unit.name == "mmlu" else "task"


def _units(bench: Benchmark, groups: Sequence[Group]) -> tuple[tuple[Unit, ...], tuple[str, ...]]:
    """Top-level groups with two or more of the data's tasks, then the tasks outside them."""
    units: list[Unit] = []
    unstated: list[str] = []
    for g in groups:
        if g.parent is not None:
            continue
        tasks = tuple(t for t in bench.tasks if t in set(g.tasks))
        if len(tasks) < 2:
            continue
        if not g.aggregate:
            unstated.append(g.name)
        sized = g.aggregate != "mean" and bench.kind != "estimate_se"  # se data has no counts
        units.append(Unit(g.name, tasks, "size-weighted" if sized else "mean"))
    inside = {t for u in units for t in u.tasks}
    units += [Unit(t, (t,), "task") for t in bench.tasks if t not in inside]
    notes: tuple[str, ...] = ()
    if unstated:
        notes = (
            f"{count(len(unstated), 'group')} ({listing(unstated)}) scored size-weighted in the "
            "overall: the files do not say how lm-eval aggregated them (their score of the "
            "metric is missing or matches neither aggregate); use "
            f"{option('overall', 'tasks')} for the plain mean over tasks.",
        )
    return tuple(units), notes


def _weights(bench: Benchmark, units: Sequence[Unit]) -> np.ndarray:
    """``(M, T)`` task weights: 1/K_i per benchmark model i has, shared inside a group by item
    count or equally."""
    have = ~np.isnan(bench.estimate)
    sizes = task_sizes(bench)
    M, T = have.shape
    w = np.zeros((M, T))
    k = np.zeros(M)
    for u in units:
        idx = np.array([bench.tasks.index(t) for t in u.tasks])
        h = have[:, idx]
        if u.aggregate == "size-weighted":
            part = np.where(h, sizes[:, idx], 0.0)
        else:
            part = h.astype(float)
        total = part.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            part = np.where(total > 0, part / total, 0.0)
        w[:, idx] += part
        k += total[:, 0] > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(k[:, None] > 0, w / k[:, None], 0.0)


def overall_label(draws: Draws) -> str:
    """What "overall" is for ``draws``, in words (the headline's label, else the task mean)."""
    if draws.headline is not None:
        return draws.headline.label
    return f"mean of {count(len(draws.tasks), 'task')}"

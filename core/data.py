"""The one data model every loader returns and every method reads (METHODS section 0).

A :class:`Benchmark` holds models x tasks results in one of three kinds:

- ``"counts"``: per-task integer counts ``n`` (items) and ``correct``;
- ``"estimate_se"``: per-task ``estimate`` and standard error ``se`` (non-binary metrics);
- ``"items"``: item-level scores, one dense ``(M, n_j)`` matrix per task (``nan`` where a model
  has no score for an item), with optional per-item ``cluster`` and ``subgroup`` labels.

It is immutable, validated on construction and hashed by content (:attr:`Benchmark.content_hash`),
so caches can key on it safely across users.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, overload

import numpy as np

__all__ = ["KINDS", "Benchmark", "DataError", "ItemTask", "Kind"]

Kind = Literal["counts", "estimate_se", "items"]
KINDS: tuple[str, ...] = ("counts", "estimate_se", "items")


class DataError(ValueError):
    """Bad input, with where it is and how to fix it.

    ``str(err)`` is a complete message for a person: ``file``, ``row`` (1-based data row, as a
    spreadsheet shows it after the header) and ``column`` name the place; ``hint`` says what to do.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        row: int | None = None,
        column: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.row = row
        self.column = column
        self.hint = hint
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = []
        if self.file:
            where.append(f"file '{self.file}'")
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column:
            where.append(f"column '{self.column}'")
        text = (", ".join(where) + ": " if where else "") + self.message
        if self.hint:
            text += f" How to fix: {self.hint}"
        return text


@dataclass(frozen=True)
class ItemTask:
    """Item-level scores of one task: ``scores[i, l]`` is model i on item l (``nan`` = missing)."""

    items: tuple[str, ...]
    scores: np.ndarray
    cluster: tuple[str, ...] | None = None
    subgroup: tuple[str, ...] | None = None

    @property
    def binary(self) -> bool:
        """Whether every score is 0 or 1 (missing scores aside)."""
        s = self.scores[~np.isnan(self.scores)]
        return bool(np.all((s == 0) | (s == 1)))


@overload
def _frozen(a: np.ndarray, dtype: type | None = None) -> np.ndarray: ...
@overload
def _frozen(a: None, dtype: type | None = None) -> None: ...
def _frozen(a: np.ndarray | None, dtype: type | None = None) -> np.ndarray | None:
    """A read-only copy of ``a`` (``None`` stays ``None``)."""
    if a is None:
        return None
    out = np.array(a, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class Benchmark:
    """Models x tasks results with task metadata and provenance notes (METHODS section 0).

    Attributes
    ----------
    name
        a short label for the data set (shown in titles and file names).
    models, tasks
        names, unique.
    categories
        the category of each task (aligned with ``tasks``).
    kind
        ``"counts"``, ``"estimate_se"`` or ``"items"``.
    estimate
        ``(M, T)`` observed per-task score as a proportion (or the metric's own unit);
        ``nan`` where a model has no result for a task.
    n, correct
        ``(M, T)`` integer counts (kind ``"counts"``; for ``"items"`` with binary
        scores they are derived); else ``None``.
    se
        ``(M, T)`` standard errors (kind ``"estimate_se"``), else ``None``.
    item_tasks
        per task an :class:`ItemTask` (kind ``"items"``), else ``None``.
    chance
        ``(T,)`` chance level per task (``nan`` = unknown).
    higher_is_better
        ``(T,)`` bool per task.
    notes
        provenance and notices a user should read (e.g. "percent converted").
    """

    name: str
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    categories: tuple[str, ...]
    kind: Kind
    estimate: np.ndarray
    n: np.ndarray | None = None
    correct: np.ndarray | None = None
    se: np.ndarray | None = None
    item_tasks: tuple[ItemTask, ...] | None = None
    chance: np.ndarray | None = None
    higher_is_better: np.ndarray | None = None
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        M, T = len(self.models), len(self.tasks)
        set_ = object.__setattr__
        set_(self, "models", tuple(str(m) for m in self.models))
        set_(self, "tasks", tuple(str(t) for t in self.tasks))
        set_(self, "categories", tuple(str(c) for c in self.categories))
        set_(self, "notes", tuple(self.notes))
        if self.kind not in KINDS:
            raise DataError(f"unknown data kind {self.kind!r}; expected one of {KINDS}.")
        if M < 1 or T < 1:
            raise DataError(
                f"the data has {M} model(s) and {T} task(s).",
                hint="provide at least one model and one task.",
            )
        for label, names in (("model", self.models), ("task", self.tasks)):
            dup = sorted(x for x, count in Counter(names).items() if count > 1)
            if dup:
                raise DataError(f"duplicate {label} names: {dup}.", column=label)
        if len(self.categories) != T:
            raise DataError(f"{len(self.categories)} categories for {T} tasks.", column="category")
        if any(c.strip() == "" for c in self.categories):
            missing = [t for t, c in zip(self.tasks, self.categories, strict=True) if not c.strip()]
            raise DataError(
                f"tasks without a category: {missing[:5]}.",
                column="category",
                hint="give every task a category (or use one category such as 'all').",
            )
        set_(self, "estimate", _frozen(self.estimate, float))
        if self.estimate.shape != (M, T):
            raise DataError(f"estimate has shape {self.estimate.shape}, expected {(M, T)}.")
        chance = _frozen(np.full(T, np.nan) if self.chance is None else self.chance, float)
        hib = _frozen(
            np.ones(T, bool) if self.higher_is_better is None else self.higher_is_better, bool
        )
        set_(self, "chance", chance)
        set_(self, "higher_is_better", hib)
        if chance.shape != (T,) or hib.shape != (T,):
            raise DataError("chance and higher_is_better need one value per task.")
        if self.kind == "counts":
            self._check_counts()
        elif self.kind == "estimate_se":
            if self.se is None:
                raise DataError("kind 'estimate_se' needs standard errors.", column="se")
            set_(self, "se", _frozen(self.se, float))
            ok = ~np.isnan(self.estimate)
            if self.se.shape != (M, T) or np.any(~(self.se[ok] >= 0)):
                raise DataError(
                    "standard errors must be finite and >= 0 wherever there is an estimate.",
                    column="se",
                )
        else:
            self._check_items()
        if np.all(np.isnan(self.estimate)):
            raise DataError("no model has a result for any task.")
        if not np.all(np.isfinite(self.estimate) | np.isnan(self.estimate)):
            raise DataError("estimates must be finite numbers.", column="estimate")

    def _check_counts(self) -> None:
        M, T = len(self.models), len(self.tasks)
        if self.n is None or self.correct is None:
            raise DataError("kind 'counts' needs n and correct.", column="n")
        n = np.asarray(self.n)
        k = np.asarray(self.correct)
        if n.shape != (M, T) or k.shape != (M, T):
            raise DataError(f"n and correct must have shape {(M, T)}.")
        present = ~np.isnan(self.estimate)
        if np.any(n[present] <= 0) or np.any(k[present] < 0) or np.any(k[present] > n[present]):
            raise DataError("counts must satisfy 0 <= correct <= n and n > 0.", column="correct")
        object.__setattr__(self, "n", _frozen(np.where(present, n, 0), np.int64))
        object.__setattr__(self, "correct", _frozen(np.where(present, k, 0), np.int64))

    def _check_items(self) -> None:
        M, T = len(self.models), len(self.tasks)
        if self.item_tasks is None or len(self.item_tasks) != T:
            raise DataError("kind 'items' needs one ItemTask per task.")
        for t, it in zip(self.tasks, self.item_tasks, strict=True):
            if it.scores.shape != (M, len(it.items)):
                raise DataError(f"task '{t}': item scores must have shape (models, items).")
            it.scores.setflags(write=False)

    # ---- derived views -------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int]:
        """``(M, T)``: models x tasks."""
        return len(self.models), len(self.tasks)

    @property
    def category_names(self) -> tuple[str, ...]:
        """Distinct categories in order of first appearance."""
        return tuple(dict.fromkeys(self.categories))

    @property
    def category_index(self) -> np.ndarray:
        """``(T,)`` integer index of each task's category in :attr:`category_names`."""
        names = self.category_names
        return np.array([names.index(c) for c in self.categories], dtype=np.int64)

    @property
    def n_items(self) -> int:
        """Total number of items (over tasks; for counts, the largest n of each task)."""
        if self.item_tasks is not None:
            return int(sum(len(it.items) for it in self.item_tasks))
        if self.n is not None:
            return int(self.n.max(axis=0).sum())
        return 0

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 of every value that affects a result (names, numbers, metadata)."""
        h = hashlib.sha256()

        def put(x: object) -> None:
            if isinstance(x, np.ndarray):
                h.update(str(x.dtype).encode() + str(x.shape).encode())
                h.update(np.ascontiguousarray(x).tobytes())
            else:
                h.update(repr(x).encode())
            h.update(b"\x00")

        for label in (self.name, self.models, self.tasks, self.categories, self.kind):
            put(label)
        for a in (self.estimate, self.n, self.correct, self.se, self.chance, self.higher_is_better):
            put(a)
        for it in self.item_tasks or ():
            for part in (it.items, it.scores, it.cluster, it.subgroup):
                put(part)
        return h.hexdigest()

    def __hash__(self) -> int:
        return hash(self.content_hash)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Benchmark) and other.content_hash == self.content_hash

    def subset(self, models: list[str] | None = None, tasks: list[str] | None = None) -> Benchmark:
        """The same data restricted to ``models`` and ``tasks`` (in the order given)."""
        mi = [self.models.index(m) for m in (models or self.models)]
        ti = [self.tasks.index(t) for t in (tasks or self.tasks)]

        def take(a: np.ndarray | None) -> np.ndarray | None:
            return None if a is None else a[np.ix_(mi, ti)]

        items = None
        if self.item_tasks is not None:
            items = tuple(
                ItemTask(it.items, it.scores[mi], it.cluster, it.subgroup)
                for it in (self.item_tasks[j] for j in ti)
            )
        return Benchmark(
            name=self.name,
            models=tuple(self.models[i] for i in mi),
            tasks=tuple(self.tasks[j] for j in ti),
            categories=tuple(self.categories[j] for j in ti),
            kind=self.kind,
            estimate=self.estimate[np.ix_(mi, ti)],
            n=take(self.n),
            correct=take(self.correct),
            se=take(self.se),
            item_tasks=items,
            chance=None if self.chance is None else self.chance[ti],
            higher_is_better=None if self.higher_is_better is None else self.higher_is_better[ti],
            notes=self.notes,
        )

    def with_categories(self, categories: dict[str, str]) -> Benchmark:
        """A copy with task categories replaced where ``categories`` names the task."""
        new = tuple(categories.get(t, c) for t, c in zip(self.tasks, self.categories, strict=True))
        return self._replace(categories=new)

    def _replace(self, **changes: object) -> Benchmark:
        fields = {
            k: getattr(self, k)
            for k in (
                "name models tasks categories kind estimate n correct se item_tasks chance "
                "higher_is_better notes"
            ).split()
        }
        fields.update(changes)
        return Benchmark(**fields)

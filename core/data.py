"""The one data model every loader returns and every method reads (METHODS section 0).

A :class:`Benchmark` holds models x tasks results in one of three kinds:

- ``"counts"``: per-task integer counts ``n`` (items) and ``correct``;
- ``"estimate_se"``: per-task ``estimate`` and standard error ``se`` (non-binary metrics);
- ``"items"``: item-level scores, one dense ``(M, n_j)`` :class:`ItemTask` per task (binary
  scores as bytes, others as float32/float64; missing where a model has no score for an item),
  with optional per-item ``cluster`` and ``subgroup`` labels (integer codes, names kept once).

It is immutable, validated on construction and hashed by content (:attr:`Benchmark.content_hash`),
so caches can key on it safely across users.

Long on purpose: the one data model every reader returns and every method reads (labels, item
tasks, the benchmark and their validation), kept as one contract.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Literal, overload

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa

from benchuq.core.context import NO_CONTEXT, Context

if TYPE_CHECKING:
    pass

__all__ = [
    "KINDS",
    "Benchmark",
    "Context",
    "DataError",
    "ItemTask",
    "Kind",
    "is_proportion",
    "shorten_words",
]

Kind = Literal["counts", "estimate_se", "items"]
KINDS: tuple[str, ...] = ("counts", "estimate_se", "items")


class DataError(ValueError):
    """Bad input, with where it is and how to fix it.

    ``str(err)`` is a complete message for a person: ``file`` (or ``data``, a data set that is
    not a file, by its name), ``row`` (1-based data row, as a spreadsheet shows it after the
    header) and ``column`` name the place; ``hint`` says what to do.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        row: int | None = None,
        column: str | None = None,
        hint: str | None = None,
        data: str | None = None,
    ) -> None:
        self.message = message
        self.data = data
        self.file = file
        self.row = row
        self.column = column
        self.hint = hint
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = []
        if self.data:
            where.append(f"data set '{self.data}'")
        if self.file:
            where.append(f"file '{self.file}'")
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column:
            where.append(f"column '{self.column}'")
        text = (", ".join(where) + ": " if where else "") + self.message
        if self.hint:
            text += f" How to fix: {self.hint}"
        return shorten_words(text)


#: A run of non-blank characters longer than this in an error message is cut (a 1 MB model name
#: must not flood a terminal, a log or a page).
LONG_WORD = 240
_LONG_WORD_RE = re.compile(rf"\S{{{LONG_WORD + 1},}}")


def shorten_words(text: str) -> str:
    """``text`` with every run of more than :data:`LONG_WORD` non-blank characters cut to its
    first 120 and last 60 characters around ``…[N characters]…`` (the messages' one rule)."""

    def cut(match: re.Match[str]) -> str:
        word = match.group(0)
        return f"{word[:120]}…[{len(word):,} characters]…{word[-60:]}"

    return _LONG_WORD_RE.sub(cut, text)


#: A name longer than this is cut where it becomes a label (a figure's tick, legend or hover text,
#: a table cell shown to a person): first and last characters kept around its length, so two
#: long names that differ at either end stay apart. The data and JSON keep the full name.
LABEL_LIMIT = 200
#: The longest stem of a file or folder name made from a name (file systems allow 255 bytes).
FILE_NAME_LIMIT = 100


def cut_label(text: str, limit: int = LABEL_LIMIT) -> str:
    """``text`` when at most ``limit`` characters, else its first two thirds of ``limit`` and
    last sixth around ``…[N characters]…`` (the labels' one rule; messages use
    :func:`shorten_words`)."""
    if len(text) <= limit:
        return text
    return f"{text[: 2 * limit // 3]}…[{len(text):,} characters]…{text[-(limit // 6) :]}"


def file_name_part(text: str, limit: int = FILE_NAME_LIMIT) -> str:
    """``text`` (already made of file-name-safe characters) cut to ``limit`` characters for a
    file or folder name: a longer one keeps its first characters and gets 12 hex digits of its
    SHA-256, so two long names stay two files (a 300-character model name was ``OSError [Errno
    36] File name too long``)."""
    if len(text.encode("utf-8")) <= limit:
        return text
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    head = text.encode("utf-8")[: limit - 13].decode("utf-8", "ignore")
    return f"{head}-{digest}"


MISSING = np.uint8(255)  # state of a missing score in a binary ItemTask (0 = wrong, 1 = right)
#: Continuous scores are kept as float32 when float32 holds every one of them exactly (error bound
#: 0: halves, quarters, judge scales k/2**m, scores logged as float32), else as float64, so the
#: storage never changes a result.
_ROWS_PER_PASS = 2**22  # cells per chunk when checking or converting a float matrix


class Labels(Sequence[str]):
    """``n`` text labels kept as integer ``codes`` into ``names`` (each distinct name once).

    ``names`` is a pyarrow string array (no Python string per label); ``codes`` is ``None`` when
    label ``l`` is ``names[l]`` (item names of a task). Compares equal to any sequence of the
    same strings, so ``labels == ("a", "b")`` works as with a tuple.
    """

    __slots__ = ("codes", "names")
    names: pa.Array
    codes: np.ndarray | None

    def __init__(self, names: pa.Array | Sequence[str], codes: np.ndarray | None = None) -> None:
        if not isinstance(names, pa.Array):
            names = pa.array([str(x) for x in names], type=pa.string())
        if codes is not None:
            codes = np.asarray(codes)
            codes.setflags(write=False)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "codes", codes)

    @classmethod
    def encode(cls, values: Sequence[str] | np.ndarray) -> Labels:
        """Codes in order of first appearance of each distinct value."""
        codes, uniques = pd.factorize(np.asarray(values, dtype=object))
        return cls(pa.array(uniques.astype(str), type=pa.string()), codes.astype(np.int32))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Labels are immutable")

    def __reduce__(self) -> tuple[object, ...]:
        return (Labels, (self.names, self.codes))

    def __len__(self) -> int:
        return len(self.names) if self.codes is None else len(self.codes)

    def _strings(self) -> pa.Array:
        return self.names if self.codes is None else self.names.take(pa.array(self.codes))

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Labels: ...
    def __getitem__(self, index: int | slice) -> str | Labels:
        if isinstance(index, slice):
            return Labels(self._strings()[index])
        if self.codes is None:
            return self.names[index].as_py()
        return self.names[int(self.codes[index])].as_py()

    def __iter__(self) -> Iterator[str]:
        return iter(self._strings().to_pylist())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        return np.array(self._strings().to_pylist(), dtype=dtype or str)

    def __repr__(self) -> str:
        head = ", ".join(repr(x) for x in self._strings()[:5].to_pylist())
        return f"Labels([{head}{', ...' if len(self) > 5 else ''}], n={len(self)})"

    def hash_into(self, h: hashlib._Hash) -> None:
        """Feed the label strings (not their encoding) to ``h``."""
        arr = self._strings()
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        arr = arr.cast(pa.large_string())
        offsets = np.frombuffer(arr.buffers()[1], np.int64)[arr.offset : arr.offset + len(arr) + 1]
        h.update(np.diff(offsets).tobytes())
        data = arr.buffers()[2]
        if data is not None:
            h.update(memoryview(data)[int(offsets[0]) : int(offsets[-1])])


@overload
def _labels(x: Sequence[str] | Labels, *, encode: bool = True) -> Labels: ...
@overload
def _labels(x: None, *, encode: bool = True) -> None: ...
def _labels(x: Sequence[str] | Labels | None, *, encode: bool = True) -> Labels | None:
    """``x`` as :class:`Labels`: codes into distinct names (``encode``) or one name per label."""
    if x is None or isinstance(x, Labels):
        return x
    return Labels.encode(x) if encode else Labels(x)


class ItemTask:
    """Item-level scores of one task: model i on item l (METHODS 0).

    Kept lean (issue 18): binary scores (every score 0 or 1) as a byte matrix ``state`` of
    ``(M, n)`` uint8 (0 wrong, 1 right, :data:`MISSING`); other scores as ``values`` (float32
    when that is exact, else float64; ``nan`` = missing); item names, clusters and subgroups as
    :class:`Labels` (names kept once). :attr:`scores` gives the familiar float64 ``(M, n)`` matrix
    (made on each access: heavy code reads ``state``/``values``).

    ``ItemTask(items, scores, cluster, subgroup)`` takes a float matrix; :meth:`stored` takes
    a ready byte or float matrix without copying it.

    Repeated answers (epochs, issue 26): ``answers`` is an ``(M, n)`` integer matrix, the number
    of answers behind each cell's score (0 where missing), and the score is the mean of those
    answers; ``answer_sq`` is the ``(M, n)`` float64 mean of the squared answers (for a naive
    per-answer standard error). ``None`` means one answer per cell (a matrix of ones and zeros is
    stored as ``None``). Resampling items resamples each item with all its answers (METHODS 2).
    """

    __slots__ = (
        "_answered",
        "answer_sq",
        "answers",
        "cluster",
        "items",
        "state",
        "subgroup",
        "values",
    )
    items: Labels
    state: np.ndarray | None
    values: np.ndarray | None
    cluster: Labels | None
    subgroup: Labels | None
    answers: np.ndarray | None
    answer_sq: np.ndarray | None
    _answered: np.ndarray | None

    def __init__(
        self,
        items: Sequence[str] | Labels,
        scores: np.ndarray,
        cluster: Sequence[str] | Labels | None = None,
        subgroup: Sequence[str] | Labels | None = None,
        *,
        answers: np.ndarray | None = None,
        answer_sq: np.ndarray | None = None,
    ) -> None:
        scores = np.asarray(scores, dtype=float)
        if scores.ndim != 2:
            raise DataError("item scores must be a (models, items) matrix.", column="score")
        self._set(
            _labels(items, encode=False),
            _pack(scores),
            _labels(cluster),
            _labels(subgroup),
            answers,
            answer_sq,
        )

    @classmethod
    def stored(
        cls,
        items: Sequence[str] | Labels,
        data: np.ndarray,
        cluster: Sequence[str] | Labels | None = None,
        subgroup: Sequence[str] | Labels | None = None,
        *,
        answers: np.ndarray | None = None,
        answer_sq: np.ndarray | None = None,
    ) -> ItemTask:
        """Scores already in storage form, kept as they are (made read-only): a uint8 ``state``
        of 0, 1 and :data:`MISSING`, or float32/float64 ``values`` (``nan`` = missing)."""
        self = cls.__new__(cls)
        self._set(
            _labels(items, encode=False),
            data,
            _labels(cluster),
            _labels(subgroup),
            answers,
            answer_sq,
        )
        return self

    def _set(
        self,
        items: Labels,
        data: np.ndarray,
        cluster: Labels | None,
        subgroup: Labels | None,
        answers: np.ndarray | None = None,
        answer_sq: np.ndarray | None = None,
    ) -> None:
        """Check the label lengths and store ``data`` as ``state`` (uint8) or ``values``."""
        binary = data.dtype == np.uint8
        for label, x in (("item", items), ("cluster", cluster), ("subgroup", subgroup)):
            if x is not None and len(x) != data.shape[1]:
                raise DataError(f"{len(x)} {label} labels for {data.shape[1]} items.", column=label)
        data.setflags(write=False)
        answers, answer_sq = _answer_arrays(data, answers, answer_sq)
        put = object.__setattr__
        for k, v in (
            ("items", items),
            ("state", data if binary else None),
            ("values", None if binary else data),
            ("cluster", cluster),
            ("subgroup", subgroup),
            ("answers", answers),
            ("answer_sq", answer_sq),
            ("_answered", None),
        ):
            put(self, k, v)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("ItemTask is immutable")

    def __reduce__(self) -> tuple[object, ...]:
        args = (self.items, self._data, self.cluster, self.subgroup)
        if self.answers is None:
            return (ItemTask.stored, args)
        return (_stored_with_answers, (*args, self.answers, self.answer_sq))

    @property
    def _data(self) -> np.ndarray:
        """The stored matrix: ``state`` when binary, else ``values`` (exactly one is set)."""
        if self.state is not None:
            return self.state
        assert self.values is not None
        return self.values

    @property
    def binary(self) -> bool:
        """Every score is 0 or 1 (kept as bytes)."""
        return self.state is not None

    @property
    def shape(self) -> tuple[int, int]:
        """``(models, items)``."""
        M, n = self._data.shape
        return M, n

    @property
    def scores(self) -> np.ndarray:
        """``(M, n)`` float64 scores, ``nan`` where missing (a new array on each access)."""
        if self.state is None:
            out = self._data.astype(float)
        else:
            out = self.state.astype(float)
            out[self.state == MISSING] = np.nan
        out.setflags(write=False)
        return out

    @property
    def answered(self) -> np.ndarray:
        """``(M,)`` number of items each model has a score for."""
        answered = self._answered
        if answered is None:
            if self.state is not None:
                a = self.shape[1] - _count_rows(self.state, int(MISSING))
            else:
                a = self.shape[1] - np.isnan(self._data).sum(axis=1)
            answered = np.asarray(a, np.int64)
            object.__setattr__(self, "_answered", answered)
        return answered

    def sums(self) -> np.ndarray:
        """``(M,)`` sum of each model's scores (its number correct for binary scores)."""
        if self.state is not None:
            return _count_rows(self.state, 1).astype(float)
        return np.asarray(np.nansum(self._data, axis=1, dtype=np.float64))

    def means(self) -> np.ndarray:
        """``(M,)`` mean score of each model over its answered items (``nan`` if none)."""
        a = self.answered
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(a > 0, self.sums() / np.maximum(a, 1), np.nan)

    @property
    def nbytes(self) -> int:
        """Bytes held by the scores and label codes (names are shared strings)."""
        codes = [x.codes for x in (self.cluster, self.subgroup) if x is not None]
        return int(self._data.nbytes + sum(c.nbytes for c in codes if c is not None))

    @property
    def answer_counts(self) -> np.ndarray:
        """``(M, n)`` number of answers behind each cell (0 where missing, 1 without epochs)."""
        if self.answers is not None:
            return self.answers
        if self.state is not None:
            return (self.state != MISSING).astype(np.int64)
        return (~np.isnan(self._data)).astype(np.int64)

    def n_answers(self) -> np.ndarray:
        """``(M,)`` number of answers of each model (its answered items without epochs)."""
        if self.answers is None:
            return self.answered
        return np.asarray(self.answers.sum(axis=1), np.int64)

    def take_models(self, rows: Sequence[int] | np.ndarray) -> ItemTask:
        """The same items for the models ``rows`` (in that order)."""
        idx = np.asarray(rows, dtype=np.intp)
        return ItemTask.stored(
            self.items,
            self._data[idx],
            self.cluster,
            self.subgroup,
            answers=None if self.answers is None else self.answers[idx],
            answer_sq=None if self.answer_sq is None else self.answer_sq[idx],
        )

    def hash_into(self, h: hashlib._Hash) -> None:
        """Feed everything that affects a result to ``h``."""
        data = self._data
        h.update(f"{data.dtype}{data.shape}".encode())
        h.update(np.ascontiguousarray(data).tobytes())
        for x in (self.items, self.cluster, self.subgroup):
            h.update(b"\x00")
            if x is not None:
                x.hash_into(h)
        for a in (self.answers, self.answer_sq):  # absent for one answer per cell: hash as before
            if a is not None:
                h.update(b"\x01" + f"{a.dtype}".encode())
                h.update(np.ascontiguousarray(a).tobytes())


def _stored_with_answers(
    items: Labels,
    data: np.ndarray,
    cluster: Labels | None,
    subgroup: Labels | None,
    answers: np.ndarray,
    answer_sq: np.ndarray | None,
) -> ItemTask:
    """Unpickle an :class:`ItemTask` with repeated answers."""
    return ItemTask.stored(items, data, cluster, subgroup, answers=answers, answer_sq=answer_sq)


def _answer_arrays(
    data: np.ndarray, answers: np.ndarray | None, answer_sq: np.ndarray | None
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Checked read-only ``answers`` (int64) and ``answer_sq`` (float64); ``(None, None)`` when
    every cell holds at most one answer."""
    if answers is None:
        if answer_sq is not None:
            raise DataError("answer_sq needs answers (the number of answers per cell).")
        return None, None
    counts = np.asarray(answers)
    present = ~np.isnan(data) if data.dtype != np.uint8 else data != MISSING
    if (
        counts.shape != data.shape
        or not np.issubdtype(counts.dtype, np.integer)
        or np.any(counts[present] < 1)
        or np.any(counts[~present] != 0)
    ):
        raise DataError(
            "answers must be an integer (models, items) matrix: >= 1 where a score is given, "
            "0 where it is missing.",
            column="answers",
        )
    if counts.size == 0 or counts.max() <= 1:
        return None, None
    sq = None
    if answer_sq is not None:
        sq = np.asarray(answer_sq, dtype=np.float64)
        if sq.shape != data.shape:
            raise DataError("answer_sq must have the shape of the scores.", column="answer_sq")
        sq = _frozen(sq)
    return _frozen(counts, np.int64), sq


def _count_rows(state: np.ndarray, value: int) -> np.ndarray:
    """``(M,)`` number of cells equal to ``value`` per row, in chunks (no full-size temporary)."""
    M, n = state.shape
    out = np.zeros(M, np.int64)
    step = max(1, _ROWS_PER_PASS // max(M, 1))
    for a in range(0, n, step):
        out += np.count_nonzero(state[:, a : a + step] == value, axis=1)
    return out


def _pack(scores: np.ndarray) -> np.ndarray:
    """The storage form of ``scores``: a uint8 ``state`` when every score is 0, 1 or nan, else
    ``values`` as float32 when that holds every score exactly, float64 otherwise."""
    M, n = scores.shape
    step = max(1, _ROWS_PER_PASS // max(M, 1))
    binary, exact = True, True
    for a in range(0, n, step):
        part = scores[:, a : a + step]
        finite = part[~np.isnan(part)]
        binary = binary and bool(np.all((finite == 0) | (finite == 1)))
        exact = exact and bool(np.all(finite.astype(np.float32) == finite))
    if binary:
        state = np.empty((M, n), np.uint8)
        for a in range(0, n, step):
            part = scores[:, a : a + step]
            state[:, a : a + step] = np.where(np.isnan(part), MISSING, part)
        return state
    return scores.astype(np.float32 if exact else float)


def is_proportion(scores: npt.ArrayLike) -> bool:
    """The one display-unit rule (issue 38): scores are proportions (shown as percent, their
    differences in points) when every finite score is in [0, 1], up to rounding (a mean of 1s
    over tasks can be ``1 + 4e-16``); else they keep their own unit.

    Examples
    --------
    >>> is_proportion([0.2, float("nan"), 1.0]), is_proportion([0.5, 3.2])
    (True, False)
    """
    values = np.asarray(scores, dtype=float)
    values = values[np.isfinite(values)]
    return bool(np.all((values >= -_ROUNDING) & (values <= 1 + _ROUNDING)))


_ROUNDING = 1e-9  # how far a proportion computed in floating point may leave [0, 1]


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


@dataclass(frozen=True, eq=False, repr=False)
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
    context
        what the loader knew besides the numbers (:class:`Context`: source, run details,
        groups); kept by :meth:`subset` and ``dataclasses.replace``, left out of equality and
        hashes.
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
    context: Context = field(default=NO_CONTEXT, repr=False)

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
            if it.shape[0] != M:
                raise DataError(f"task '{t}': item scores must have shape (models, items).")

    def __repr__(self) -> str:
        """One line: name, size and kind (``Benchmark('vtab1k', 16 models x 19 tasks, binary
        items)``), never the arrays."""
        M, T = self.shape
        if self.item_tasks is not None:
            if any(it.answers is not None for it in self.item_tasks):
                kind = "items with several answers"
            elif all(it.binary for it in self.item_tasks):
                kind = "binary items"
            else:
                kind = "continuous items"
        else:
            kind = "counts" if self.kind == "counts" else "estimates with standard errors"
        models = f"{M} model{'s' if M != 1 else ''}"
        tasks = f"{T} task{'s' if T != 1 else ''}"
        return f"Benchmark({self.name!r}, {models} x {tasks}, {kind})"

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
        return self._digest(with_name=True)

    @cached_property
    def data_hash(self) -> str:
        """SHA-256 of the parsed data alone: :attr:`content_hash` without the data set's
        :attr:`name` (a folder and its zip, or a renamed data set, hash alike; issue 30)."""
        return self._digest(with_name=False)

    def _digest(self, *, with_name: bool) -> str:
        h = hashlib.sha256()

        def put(x: object) -> None:
            if isinstance(x, np.ndarray):
                h.update(str(x.dtype).encode() + str(x.shape).encode())
                h.update(np.ascontiguousarray(x).tobytes())
            else:
                h.update(repr(x).encode())
            h.update(b"\x00")

        names = (self.name,) if with_name else ()
        for label in (*names, self.models, self.tasks, self.categories, self.kind):
            put(label)
        for a in (self.estimate, self.n, self.correct, self.se, self.chance, self.higher_is_better):
            put(a)
        for it in self.item_tasks or ():
            it.hash_into(h)
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
            items = tuple(self.item_tasks[j].take_models(mi) for j in ti)
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
            context=self.context,
        )

    def with_categories(self, categories: dict[str, str]) -> Benchmark:
        """A copy with task categories replaced where ``categories`` names the task."""
        new = tuple(categories.get(t, c) for t, c in zip(self.tasks, self.categories, strict=True))
        return replace(self, categories=new)

    def _replace(self, **changes: object) -> Benchmark:
        """``dataclasses.replace(self, **changes)`` (every field kept, the context too)."""
        return replace(self, **changes)  # type: ignore[arg-type]

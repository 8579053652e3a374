"""What each item scores when it holds several answers (issue 43, docs/METHODS.md section 2p).

An item answered ``n`` times with ``c`` right answers scores, per statistic:

- ``mean``: ``c / n`` (the default: every answer counts);
- ``pass@k``: ``1 - C(n - c, k) / C(n, k)``, the unbiased estimate of "right in at least one of
  ``k`` tries" (Chen et al. 2021, as inspect_ai's ``pass_at`` reducer, lighteval, EvalPlus and
  lm-eval compute it);
- ``pass^k``: ``C(c, k) / C(n, k)``, the unbiased estimate of "right in all ``k`` tries"
  (reliability, as tau-bench reports it).

:func:`per_item` turns a benchmark of repeated answers into one whose items score their
statistic (one value per item), so that every analysis downstream (draws, leaderboard, compare,
ranks, diff, report, export) resamples items with all their answers, as for the mean: the
per-item estimates are unbiased for each item's population value, and resampling items carries
both the spread between items and the noise of each item's ``n`` answers (METHODS 2e).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from benchuq.core.data import Benchmark, DataError, ItemTask
from benchuq.core.options import option
from benchuq.core.validation import InvalidArgument

__all__ = [
    "ItemStatistic",
    "fewest_answers",
    "parse_statistic",
    "pass_at_k",
    "pass_hat_k",
    "per_item",
    "statistic_choices",
]

_PATTERN = re.compile(r"^\s*(mean|pass@(\d+)|pass\^(\d+))\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class ItemStatistic:
    """A per-item statistic: ``kind`` ``"mean"``, ``"pass@k"`` or ``"pass^k"`` with its ``k``."""

    kind: str
    k: int = 1

    @property
    def label(self) -> str:
        """``mean``, ``pass@5`` or ``pass^3``."""
        return "mean" if self.kind == "mean" else f"{self.kind[:-1]}{self.k}"

    @property
    def words(self) -> str:
        """The statistic in plain words."""
        if self.kind == "mean":
            return "the mean of every answer"
        if self.kind == "pass@k":
            return f"right in at least one of {self.k} tries (pass@{self.k})"
        return f"right in all of {self.k} tries (pass^{self.k})"


def parse_statistic(text: str | ItemStatistic) -> ItemStatistic:
    """``"mean"``, ``"pass@K"`` or ``"pass^K"`` (K a whole number >= 1) as an
    :class:`ItemStatistic`; anything else raises :class:`InvalidArgument`.

    Examples
    --------
    >>> parse_statistic("pass@5").label
    'pass@5'
    """
    if isinstance(text, ItemStatistic):
        return text
    match = _PATTERN.match(str(text))
    if match is None:
        raise InvalidArgument(
            f"statistic {str(text)[:40]!r} is not one of mean, pass@K, pass^K.",
            hint=f"use {option('statistic', 'mean')}, {option('statistic', 'pass@5')} (right in at "
            f"least one of 5 tries) or {option('statistic', 'pass^3')} (right in all of 3 tries).",
        )
    if match.group(1).lower() == "mean":
        return ItemStatistic("mean")
    k = int(match.group(2) or match.group(3))
    if k < 1:
        raise InvalidArgument("the k of pass@k and pass^k is at least 1.", hint="use pass@1.")
    return ItemStatistic("pass@k" if match.group(2) else "pass^k", k)


def fewest_answers(bench: Benchmark) -> int:
    """The fewest answers behind a scored item cell (0 for data without items; 1 when every
    item holds one answer): the largest ``k`` pass@k and pass^k can take."""
    if bench.kind != "items" or not bench.item_tasks:
        return 0
    fewest = None
    for it in bench.item_tasks:
        if it.answers is None:
            return 1
        scored = it.answers[it.answers > 0]
        if scored.size:
            m = int(scored.min())
            fewest = m if fewest is None else min(fewest, m)
    return fewest or 0


def statistic_choices(bench: Benchmark) -> tuple[str, ...]:
    """The statistics the app offers for ``bench``: ``mean``, then pass@k and pass^k for k in
    1, 2, 3, 5, 10, 20, 50, 100 up to the fewest answers an item has (only ``mean`` when items
    hold one answer each)."""
    fewest = fewest_answers(bench)
    ks = [k for k in (1, 2, 3, 5, 10, 20, 50, 100) if 2 <= fewest and k <= fewest]
    return ("mean", *(f"pass@{k}" for k in ks), *(f"pass^{k}" for k in ks if k > 1))


def pass_at_k(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """``1 - C(n - c, k) / C(n, k)`` elementwise (``nan`` where ``n < k``), as a running
    product (exact to rounding for any n, no large binomials).

    Examples
    --------
    >>> round(float(pass_at_k(np.array([10]), np.array([3]), 2)[0]), 4)  # 1 - C(7,2)/C(10,2)
    0.5333
    """
    return 1.0 - _ratio(np.asarray(n) - np.asarray(c), np.asarray(n), k)


def pass_hat_k(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """``C(c, k) / C(n, k)`` elementwise (``nan`` where ``n < k``)."""
    return _ratio(np.asarray(c), np.asarray(n), k)


def _ratio(a: np.ndarray, n: np.ndarray, k: int) -> np.ndarray:
    """``C(a, k) / C(n, k) = prod_j (a - j) / (n - j)`` for ``j < k``; 0 where ``a < k``."""
    a = a.astype(float)
    n = n.astype(float)
    out = np.ones(np.broadcast(a, n).shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        for j in range(k):
            out *= np.clip(a - j, 0, None) / (n - j)
    out[n < k] = np.nan
    return out


def per_item(bench: Benchmark, statistic: str | ItemStatistic) -> Benchmark:
    """``bench`` with each item scoring ``statistic`` over its answers (METHODS 2e).

    ``mean`` returns ``bench`` unchanged. ``pass@k`` and ``pass^k`` need item-level data whose
    answers are right or wrong, and at least ``k`` answers behind every scored cell; otherwise
    :class:`DataError` names the task, model and item and says what to do.

    Examples
    --------
    >>> import numpy as np
    >>> from benchuq.core.data import Benchmark, ItemTask
    >>> it = ItemTask(["q1", "q2"], np.array([[0.5, 0.0]]), answers=np.array([[2, 2]]),
    ...               answer_sq=np.array([[0.5, 0.0]]))
    >>> b = Benchmark("d", ("m",), ("t",), ("c",), "items", np.array([[0.25]]), item_tasks=(it,))
    >>> float(per_item(b, "pass@2").estimate[0, 0])
    0.5
    """
    stat = parse_statistic(statistic)
    done = bench.context.statistic
    if stat.label == done or stat.kind == "mean":
        return bench
    if done != "mean":
        raise DataError(
            f"'{bench.name}' is already scored by {done}; {stat.label} needs the answers.",
            hint=f"load the data again and score it by {stat.label}.",
        )
    if bench.kind != "items" or bench.item_tasks is None:
        raise DataError(
            f"{stat.label} needs each item's answers; '{bench.name}' holds "
            f"{'per-task counts' if bench.kind == 'counts' else 'per-task estimates'}.",
            hint="load item-level results with several answers per item (inspect_ai epochs, "
            "lm-eval --log_samples with repeats, an item table with an epoch column), or use "
            f"{option('statistic', 'mean')}.",
        )
    tasks = [
        _task(it, stat, bench.models, task)
        for it, task in zip(bench.item_tasks, bench.tasks, strict=True)
    ]
    note = (
        f"items scored by {stat.words}: per item the unbiased estimate from its n answers, c "
        f"right ({_formula(stat)}); the score is their mean over items, and intervals resample "
        "items with all their answers (METHODS 2e)."
    )
    return replace(
        bench,
        name=f"{bench.name} ({stat.label})",
        estimate=np.column_stack([it.means() for it in tasks]) if tasks else bench.estimate[:, :0],
        n=None,
        correct=None,
        item_tasks=tuple(tasks),
        notes=(*bench.notes, note),
        context=replace(bench.context, statistic=stat.label),
    )


def _formula(stat: ItemStatistic) -> str:
    k = stat.k
    return f"1 - C(n - c, {k}) / C(n, {k})" if stat.kind == "pass@k" else f"C(c, {k}) / C(n, {k})"


def _task(it: ItemTask, stat: ItemStatistic, models: tuple[str, ...], task: str) -> ItemTask:
    """One task's items scoring ``stat``."""
    scores = it.scores
    n = it.answers if it.answers is not None else np.where(np.isnan(scores), 0, 1)
    sq = it.answer_sq if it.answer_sq is not None else scores
    scored = n > 0
    right = np.where(scored, scores * n, 0.0)
    c = np.rint(right)
    # right/wrong answers: a whole number right, and the mean square equals the mean
    mixed = scored & (
        (np.abs(right - c) > 1e-6) | (np.abs(np.where(scored, sq - scores, 0)) > 1e-9)
    )
    if mixed.any():
        i, j = np.argwhere(mixed)[0]
        raise DataError(
            f"{stat.label} counts answers that are right or wrong; task '{task}', model "
            f"'{models[i]}', item '{it.items[j]}' has answers scored in between "
            f"(mean {scores[i, j]:.3g}).",
            hint=f"use {option('statistic', 'mean')} for partial credit, or score answers 0/1.",
        )
    short = scored & (n < stat.k)
    if short.any():
        i, j = np.argwhere(short)[0]
        fewest = int(n[scored].min())
        raise DataError(
            f"{stat.label} needs at least {stat.k} answers per item; task '{task}', model "
            f"'{models[i]}', item '{it.items[j]}' has {int(n[i, j])} "
            f"({int(short.sum())} such cells; the fewest answers an item has here: {fewest}).",
            hint=f"use k <= {fewest} (e.g. {option('statistic', f'{stat.kind[:-1]}{fewest}')}), or "
            f"collect "
            f"at least {stat.k} answers per item.",
        )
    fn = pass_at_k if stat.kind == "pass@k" else pass_hat_k
    values = np.where(scored, fn(np.where(scored, n, stat.k), c, stat.k), np.nan)
    return ItemTask(it.items, values, it.cluster, it.subgroup)

"""Scores from an LLM judge, corrected with a few human labels (METHODS 15).

``judge(data, *, method, level, target, seed) -> JudgeResult``: for each model and task (and
overall, every item pooled) the corrected estimate of the human score with its interval, the
naive judge mean and the labels-only (classical) estimate beside it, the judge's agreement with
the people, and what more labels would buy. The estimators are in :mod:`.judge_estimators`, the
agreement in :mod:`.judge_agreement`; the data in :mod:`benchuq.core.reading.judge_data`.

:meth:`JudgeResult.to_benchmark` turns the corrected scores into a :class:`Benchmark` of
estimate and standard error per model and task, which the leaderboard, compare and ranks read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from benchuq.core.analyses.judge_agreement import (
    Agreement,
    AgreementReplicates,
    agreement_replicates,
)
from benchuq.core.analyses.judge_estimators import (
    Estimate,
    Planning,
    classical_mean,
    floored,
    naive_mean,
    ppi_mean,
    rogan_gladen,
    within,
)
from benchuq.core.data import Benchmark, DataError
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.options import option
from benchuq.core.reading.judge_data import JudgeData
from benchuq.core.small_samples import FEW_ITEMS
from benchuq.core.validation import InvalidArgument, check_choice, check_level

__all__ = [
    "DEFAULT_TARGET",
    "METHODS",
    "OVERALL",
    "ROW_KEYS",
    "JudgeCell",
    "JudgeReplicates",
    "JudgeResult",
    "Method",
    "judge",
    "judge_replicates",
    "paired_difference",
]

Method = Literal["ppi++", "rogan-gladen", "classical"]
METHODS: tuple[str, ...] = get_args(Method)
#: how the one-sentence answer names the estimators that correct the judge
SENTENCE_NAMES = {"ppi++": "PPI++", "rogan-gladen": "Rogan-Gladen"}
#: the model and task names of the row over every item
OVERALL = "overall"
#: the default target half-width of the planning table (3 points of a proportion)
DEFAULT_TARGET = 0.03
#: the keys of every row of ``benchuq judge --json``, in order
ROW_KEYS: tuple[str, ...] = (
    "model",
    "task",
    "estimate",
    "low",
    "high",
    "method",
    "n_labelled",
    "n_unlabelled",
    "judge_mean",
    "human_mean",
    "lambda",
    "effective_n",
    "kappa",
    "alpha",
    "sensitivity",
    "specificity",
)
_LABELS = ("ppi++", "rogan-gladen", "classical", "judge")


@dataclass(frozen=True)
class JudgeCell:
    """One model on one task (or ``overall``): every estimate, the agreement, the planning.

    Attributes
    ----------
    model, task
        Names (``"overall"`` for both in the pooled row).
    method
        The method of :attr:`chosen` (the asked one, or ``classical`` when every item is
        labelled).
    estimates
        ``ppi++``, ``classical``, ``judge`` (the naive judge mean) and, for binary scores,
        ``rogan-gladen``.
    agreement
        The judge against the labels.
    planning
        The moments behind the labels-needed numbers.
    """

    model: str
    task: str
    method: str
    estimates: Mapping[str, Estimate]
    agreement: Agreement
    planning: Planning

    @property
    def chosen(self) -> Estimate:
        """The estimate of :attr:`method`."""
        return self.estimates[self.method]

    @property
    def effective_n(self) -> float:
        """Human labels alone that would give the chosen estimate's variance (the labels in
        hand where they measured no spread: labels all one value say nothing of the ratio)."""
        se = self.chosen.se
        if self.method == "classical" or not se > 0 or not self.planning.var_human > 0:
            return float(self.chosen.n_labelled)
        return float(self.planning.var_human / se**2)

    def row(self) -> dict[str, Any]:
        """The CLI JSON's row (:data:`ROW_KEYS`)."""
        c, a = self.chosen, self.agreement
        return {
            "model": self.model,
            "task": self.task,
            "estimate": c.estimate,
            "low": c.low,
            "high": c.high,
            "method": self.method,
            "n_labelled": c.n_labelled,
            "n_unlabelled": c.n_unlabelled,
            "judge_mean": self.estimates["judge"].estimate,
            "human_mean": self.estimates["classical"].estimate,
            "lambda": c.lam,
            "effective_n": self.effective_n,
            "kappa": a.kappa,
            "alpha": a.alpha,
            "sensitivity": a.sensitivity,
            "specificity": a.specificity,
        }


@dataclass(frozen=True, eq=False)
class JudgeResult:
    """Corrected judge scores per model and task and overall (METHODS 15).

    Attributes
    ----------
    name, file, judge_column, human_column
        The data and where its scores and labels came from.
    method, level, target
        The asked method, the interval level, the planning's target half-width.
    binary
        Whether every score and label is 0 or 1 (Rogan-Gladen needs it).
    cells
        Per model and task, best first within each task, then the ``overall`` cell.
    notes
        What a reader should know (cells that fell back, one-class labels).
    """

    name: str
    method: str
    level: float
    target: float
    binary: bool
    cells: tuple[JudgeCell, ...]
    file: str = ""
    judge_column: str = "judge"
    human_column: str = "human"
    notes: tuple[str, ...] = field(default=())
    data: JudgeData | None = field(default=None, repr=False)

    @property
    def overall(self) -> JudgeCell:
        """The cell over every item."""
        return self.cells[-1]

    @property
    def models(self) -> tuple[str, ...]:
        """Models, in the order of the rows."""
        return tuple(dict.fromkeys(c.model for c in self.cells[:-1]))

    @property
    def tasks(self) -> tuple[str, ...]:
        """Tasks, in the order of the rows."""
        return tuple(dict.fromkeys(c.task for c in self.cells[:-1]))

    def cell(self, model: str = OVERALL, task: str = OVERALL) -> JudgeCell:
        """The cell of ``model`` on ``task`` (both ``"overall"``: the pooled cell)."""
        for c in self.cells:
            if c.model == model and c.task == task:
                return c
        from benchuq.core.validation import check_known

        check_known(
            [f"{model} / {task}"],
            [f"{c.model} / {c.task}" for c in self.cells],
            what="model / task cells",
        )
        raise AssertionError  # pragma: no cover (check_known raised)

    def rows(self) -> list[dict[str, Any]]:
        """``benchuq judge --json``'s rows (:data:`ROW_KEYS`)."""
        return [c.row() for c in self.cells]

    def side_by_side(self) -> pd.DataFrame:
        """Every estimate of every cell: ``model, task, method, estimate, low, high, se``
        (``judge``: the naive judge mean, as if the judge were right)."""
        out = []
        for c in self.cells:
            for m in _LABELS:
                e = c.estimates.get(m)
                if e is not None:
                    out.append(
                        {
                            "model": c.model,
                            "task": c.task,
                            "method": m,
                            "estimate": e.estimate,
                            "low": e.low,
                            "high": e.high,
                            "se": e.se,
                        }
                    )
        return pd.DataFrame(out)

    def agreement_table(self) -> pd.DataFrame:
        """The agreement per cell with intervals (``model, task, n, agreement, decisive, kappa,
        kappa_low, ...``)."""
        rows = []
        for c in self.cells:
            a = c.agreement
            rows.append(
                {
                    "model": c.model,
                    "task": c.task,
                    **{k: getattr(a, k) for k in a.__dataclass_fields__ if k != "level"},
                }
            )
        return pd.DataFrame(rows)

    def planning_table(self, target: float | None = None) -> pd.DataFrame:
        """Labels needed for the half-width ``target`` (default :attr:`target`) per cell, with
        PPI++ and with labels alone (``None``: not reachable within the judged items)."""
        t = self.target if target is None else float(target)
        rows = []
        for c in self.cells:
            p = c.planning
            rows.append(
                {
                    "model": c.model,
                    "task": c.task,
                    "target": t,
                    "n_labelled": p.n_labelled,
                    "n_items": p.n_items,
                    "labels_ppi": p.labels_needed(t, level=self.level),
                    "labels_classical": p.labels_needed(t, level=self.level, method="classical"),
                    "effective_n": c.effective_n,
                    "gain": c.effective_n / p.n_labelled if p.n_labelled else float("nan"),
                }
            )
        return pd.DataFrame(rows)

    def curve(self, model: str = OVERALL, task: str = OVERALL, *, points: int = 40) -> pd.DataFrame:
        """Half-width against labels (``n, ppi++, classical``) for one cell, from 10 labels (or
        fewer) to every judged item, spaced evenly on a log scale."""
        p = self.cell(model, task).planning
        hi = max(p.n_items, 3)
        ns = np.unique(np.geomspace(min(10, hi - 1), hi, points).round().astype(int))
        ns = ns[ns >= 2]
        return pd.DataFrame(
            {
                "n": ns,
                "ppi++": p.half_width(ns, level=self.level),
                "classical": p.half_width(ns, level=self.level, method="classical"),
            }
        )

    def to_benchmark(self) -> Benchmark:
        """The corrected scores as estimate and standard error per model and task (one category
        ``all``); ``bq.bootstrap`` of it feeds the leaderboard, compare and ranks."""
        models, tasks = self.models, self.tasks
        est = np.full((len(models), len(tasks)), np.nan)
        se = np.full_like(est, np.nan)
        for c in self.cells[:-1]:
            i, j = models.index(c.model), tasks.index(c.task)
            est[i, j], se[i, j] = c.chosen.estimate, c.chosen.se
        return Benchmark(
            name=f"{self.name} ({self.method})",
            models=models,
            tasks=tasks,
            categories=("all",) * len(tasks),
            kind="estimate_se",
            estimate=est,
            se=se,
            notes=(
                f"scores: {self.method} estimates of the human score from judge scores and "
                f"{self.overall.chosen.n_labelled} human labels (benchuq judge).",
            ),
        )

    def difference(self, base: str, candidate: str) -> pd.DataFrame:
        """``candidate - base`` in human score per shared task and over their shared items
        (``task`` = ``overall``), paired item by item (METHODS 15f): :func:`paired_difference`."""
        if self.data is None:
            raise InvalidArgument("this result keeps no items.", hint="run judge() again.")
        return paired_difference(self.data, base, candidate, method=self.method, level=self.level)

    def sentence(self) -> str:
        """One sentence on the overall row."""
        c = self.overall
        e, naive = c.chosen, c.estimates["judge"]
        interval = f"({100 * self.level:g}% interval {e.low:.1%} to {e.high:.1%})"
        if self.method == "classical":  # the judge takes no part: nothing is corrected
            return (
                f"Over every item, the judge says {naive.estimate:.1%}; the {e.n_labelled:,} "
                f"human labels alone give {e.estimate:.1%} {interval}."
            )
        worth = (
            f"worth {c.effective_n:,.0f} labels alone"
            if e.n_labelled >= FEW_ITEMS
            else "at least as wide as the labels alone give: too few to measure the judge's errors"
        )
        return (
            f"Over every item, the judge says {naive.estimate:.1%}; corrected with "
            f"{e.n_labelled:,} human labels ({SENTENCE_NAMES[self.method]}), the score is "
            f"{e.estimate:.1%} {interval}, {worth}."
        )


def _check_labels(data: JudgeData, method: str) -> None:
    """The data-wide checks: labels exist, take two values, the judge beats chance."""
    lab = data.labelled
    file, column = data.file or data.name, data.human_column
    if not lab.any():
        raise DataError(
            f"no item has a human label ({data.n:,} judged items).",
            hint="fill in the human column for some items (a random few hundred), or give a "
            f"labels file item[, model][, task], human with {option('labels')}.",
            file=file,
            column=column,
        )
    y, f = data.human[lab], data.judge[lab]
    if np.unique(y).size < 2 and method != "classical":  # labels alone need no second class
        why = (
            "one class says nothing about the judge's errors on the other"
            if y[0] in (0.0, 1.0)
            else "labels without spread say nothing about how the judge's scores track them"
        )
        raise DataError(
            f"all {int(lab.sum()):,} human labels are {y[0]:g}: {why}.",
            hint="label a random sample of items (not only those the judge passed or failed), "
            f"or use the labels alone ({option('method', 'classical')}).",
            file=file,
            column=column,
        )
    if method != "classical" and float(np.mean((y - y.mean()) * (f - f.mean()))) <= 0:
        worse = " (sensitivity + specificity <= 1)" if data.binary else ""
        raise DataError(
            f"the judge is no better than chance on the labelled items{worse}: its scores do "
            "not rise with the human labels, so they cannot correct anything.",
            file=data.file or data.name,
            column=data.judge_column,
            hint="check that judge and human use the same coding (1 = good) and columns; if the "
            f"judge really is this poor, use {option('method', 'classical')}.",
        )
    if method == "rogan-gladen" and not data.binary:
        raise InvalidArgument(
            "rogan-gladen needs binary scores (0 or 1); these judge scores or labels are graded "
            "(e.g. 0.5).",
            hint=f"use {option('method', 'ppi++')} (any scores in [0, 1]) or "
            f"{option('method', 'classical')}.",
        )


@dataclass(frozen=True, eq=False)
class CellItems:
    """One model on one task (or ``overall``) before any level: its judge scores ``f`` and
    labels ``y`` (NaN where unlabelled), the agreement's bootstrap replicates, the planning
    moments."""

    model: str
    task: str
    f: np.ndarray
    y: np.ndarray
    agreement: AgreementReplicates
    planning: Planning


def _cell_items(
    model: str, task: str, f: np.ndarray, y: np.ndarray, *, seed: int, data: JudgeData
) -> CellItems:
    lab = ~np.isnan(y)
    n = int(lab.sum())
    where = f"{model} on {task}" if model != OVERALL else "overall"
    if n < 2:
        raise DataError(
            f"{where}: {n} human label(s) among {len(f):,} items; an interval needs at least 2.",
            file=data.file or data.name,
            column=data.human_column,
            hint=f"label some of {model}'s items on {task} (a random sample).",
        )
    yl, fl = y[lab], f[lab]
    return CellItems(
        model, task, f, y, agreement_replicates(fl, yl, seed=seed), Planning.of(yl, fl, f)
    )


def _cell(
    items: CellItems, *, method: str, level: float, binary: bool, data: JudgeData
) -> tuple[JudgeCell, list[str]]:
    model, task, f, y = items.model, items.task, items.f, items.y
    lab = ~np.isnan(y)
    n, big_n = int(lab.sum()), int((~lab).sum())
    where = f"{model} on {task}" if model != OVERALL else "overall"
    yl, fl, fu = y[lab], f[lab], f[~lab]
    notes = []
    est: dict[str, Estimate] = {
        "classical": classical_mean(yl, level=level, n_unlabelled=big_n),
        "judge": naive_mean(f, level=level, n_labelled=n),
    }
    if np.unique(yl).size < 2:
        notes.append(
            f"{where}: every human label is {yl[0]:g}; its sensitivity or specificity is unknown."
        )
    if big_n:
        est["ppi++"] = ppi_mean(yl, fl, fu, level=level)
        if binary and np.unique(yl).size == 2:
            q1, q0 = fl[yl == 1].mean(), 1 - fl[yl == 0].mean()
            if q0 + q1 > 1:
                est["rogan-gladen"] = rogan_gladen(yl, fl, fu, level=level)
            elif method == "rogan-gladen":
                raise DataError(
                    f"{where}: the judge's sensitivity {q1:.3f} + specificity {q0:.3f} <= 1 "
                    "(no better than chance), so the Rogan-Gladen correction is undefined.",
                    file=data.file or data.name,
                    column=data.judge_column,
                    hint=f"use {option('method', 'ppi++')} (it falls back to the labels when the "
                    "judge is uninformative), or label more items of this model and task.",
                )
        if method == "rogan-gladen" and "rogan-gladen" not in est:
            raise DataError(
                f"{where}: the human labels are all {yl[0]:g}, so the judge's "
                f"{'specificity' if yl[0] == 1 else 'sensitivity'} is unknown and Rogan-Gladen "
                "cannot be computed.",
                file=data.file or data.name,
                column=data.human_column,
                hint="label items of both classes for this model and task, or use "
                f"{option('method', 'ppi++')}.",
            )
        chosen = method
    else:
        chosen = "classical"
        notes.append(f"{where}: every item is labelled; the estimate is the labels' mean.")
    # few labels or no spread measured: the labels' exact interval at least (METHODS 15g)
    est.update({k: floored(e, yl) for k, e in est.items() if k != "judge"})
    est = {k: within(e) for k, e in est.items()}  # a score lies in [0, 1]
    cell = JudgeCell(
        model=model,
        task=task,
        method=chosen,
        estimates=est,
        agreement=items.agreement.at(level),
        planning=items.planning,
    )
    return cell, notes


@dataclass(frozen=True, eq=False)
class JudgeReplicates:
    """The level-free part of :func:`judge` (METHODS 15): the data checked for ``method``, its
    items grouped per model and task (then ``overall``, every item), each with the agreement's
    bootstrap replicates. :meth:`summarize` gives the :class:`JudgeResult` at a level, so the
    app's level and target moves redo no bootstrap (issue 41)."""

    data: JudgeData
    method: str
    seed: int
    cells: tuple[CellItems, ...]

    def summarize(
        self, *, level: float = COMPARISON_LEVEL, target: float = DEFAULT_TARGET
    ) -> JudgeResult:
        """The estimates, intervals and agreement at ``level``; the planning at ``target``."""
        level = check_level(level, name="level")
        _check_target(target)
        data, method = self.data, self.method
        binary = data.binary
        cells: list[JudgeCell] = []
        notes: list[str] = list(data.notes)
        for items in self.cells:
            cell, more = _cell(items, method=method, level=level, binary=binary, data=data)
            cells.append(cell)
            notes += more
        notes += _few_labels_note(cells)
        *per_task, overall = cells
        per_task.sort(key=lambda c: (data.tasks.index(c.task), -c.chosen.estimate, c.model))
        return JudgeResult(
            name=data.name,
            method=method,
            level=level,
            target=float(target),
            binary=binary,
            cells=(*per_task, overall),
            file=data.file,
            judge_column=data.judge_column,
            human_column=data.human_column,
            notes=tuple(dict.fromkeys(notes)),
            data=data,
        )


def _few_labels_note(cells: list[JudgeCell]) -> list[str]:
    """One note naming the rows whose estimate rests on fewer than :data:`FEW_ITEMS` human
    labels: their intervals reach at least as far as the labels' own exact interval (METHODS
    15g; without it, 83.4% intervals of PPI++ from 2 to 10 labels held the truth 59% to 80% of
    the time: ``benchmarks/bench_judge_few_labels.py``)."""
    few = [c for c in cells if c.chosen.n_labelled < FEW_ITEMS]
    if not few:
        return []
    rows = ", ".join(
        f"{'overall' if c.model == OVERALL else f'{c.model} on {c.task}'} ({c.chosen.n_labelled})"
        for c in few
    )
    return [
        f"Few labels: {rows} rest on fewer than {FEW_ITEMS} human labels. With so few, the "
        "judge's errors cannot be measured well enough to correct it, so their intervals are at "
        "least as wide as the labels alone give (an exact interval): wide, but they hold. Label "
        f"more items (at least {FEW_ITEMS} per row) to narrow them."
    ]


def _check_target(target: float) -> None:
    if not 0 < target < 1:
        raise InvalidArgument(
            f"target {target} is not a half-width in (0, 1).",
            hint="give e.g. 0.03 for plus or minus 3 points.",
        )


def judge_replicates(
    data: JudgeData, *, method: Method = "ppi++", seed: int = 0
) -> JudgeReplicates:
    """The level-free part of :func:`judge`: the checks, the cells' items and the agreement's
    bootstrap replicates (seeded by ``seed``)."""
    check_choice(method, METHODS, name="method")
    _check_labels(data, method)
    order = np.lexsort((data.model, data.task))
    key = data.task[order].astype(np.int64) * len(data.models) + data.model[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    cells = []
    for s, e in zip(starts, np.r_[starts[1:], len(order)], strict=True):
        rows = order[s:e]
        m, t = data.models[data.model[rows[0]]], data.tasks[data.task[rows[0]]]
        cells.append(_cell_items(m, t, data.judge[rows], data.human[rows], seed=seed, data=data))
    cells.append(_cell_items(OVERALL, OVERALL, data.judge, data.human, seed=seed, data=data))
    return JudgeReplicates(data=data, method=method, seed=seed, cells=tuple(cells))


def judge(
    data: JudgeData,
    *,
    method: Method = "ppi++",
    level: float = COMPARISON_LEVEL,
    target: float = DEFAULT_TARGET,
    seed: int = 0,
) -> JudgeResult:
    """Corrected judge scores per model and task and overall (METHODS 15).

    Parameters
    ----------
    data
        Judge scores and human labels (:func:`benchuq.core.reading.judge_data.load_judge`).
    method
        ``"ppi++"`` (default; any scores in [0, 1]), ``"rogan-gladen"`` (binary) or
        ``"classical"`` (the labels alone).
    level
        The intervals' level.
    target
        The half-width the planning table asks labels for.
    seed
        Seed of the agreement's bootstrap intervals.
    """
    check_level(level, name="level")  # before the bootstrap (summarize checks them again)
    _check_target(target)
    fit = judge_replicates(data, method=method, seed=seed)
    return fit.summarize(level=level, target=target)


_DIFF_HINT = (
    "label the same items for both models (a random sample of the items both were judged on)."
)


def paired_difference(
    data: JudgeData,
    base: str,
    candidate: str,
    *,
    method: str = "ppi++",
    level: float = COMPARISON_LEVEL,
) -> pd.DataFrame:
    """``candidate - base`` per task both models have, and over all their shared items: PPI++ on
    the per-item differences ``Y_c - Y_b`` (labelled when both are) with the judge's ``f_c -
    f_b`` on every shared item (METHODS 15f); ``classical``: the labelled differences alone.
    Rogan-Gladen has no paired form: it is answered with PPI++ (the ``method`` column says so).

    Columns: ``task, base, candidate, estimate, low, high, se, method, n_labelled,
    n_unlabelled, judge_difference, human_difference``.
    """
    from benchuq.core.validation import check_known

    check_known([base, candidate], data.models, what="models")
    if base == candidate:
        raise InvalidArgument("base and candidate are the same model.", hint="pick two models.")
    frame = data.frame()
    a = frame[frame["model"] == base].drop(columns="model")
    b = frame[frame["model"] == candidate].drop(columns="model")
    pairs = a.merge(b, on=["task", "item"], suffixes=("_b", "_c"))
    if pairs.empty:
        raise DataError(
            f"{base} and {candidate} share no item.",
            file=data.file or data.name,
            column="item",
            hint="a paired difference needs items both models were judged on.",
        )
    parts = [(t, g) for t, g in pairs.groupby("task", sort=False)] + [(OVERALL, pairs)]
    rows = []
    for task, g in parts:
        d_f = (g["judge_c"] - g["judge_b"]).to_numpy(float)
        d_y = (g["human_c"] - g["human_b"]).to_numpy(float)
        lab = ~np.isnan(d_y)
        n = int(lab.sum())
        if n < 2:
            raise DataError(
                f"{base} vs {candidate} on {task}: {n} item(s) labelled for both; a paired "
                "interval needs at least 2.",
                file=data.file or data.name,
                column=data.human_column,
                hint=_DIFF_HINT,
            )
        if method == "classical" or n == len(d_y):
            e = classical_mean(d_y[lab], level=level, n_unlabelled=len(d_y) - n)
        else:
            e = ppi_mean(d_y[lab], d_f[lab], d_f[~lab], level=level)
        e = floored(e, d_y[lab], low=-1.0)  # as in a cell (METHODS 15g): in [-1, 1]
        e = within(e, low=-1.0)
        rows.append({
            "task": task, "base": base, "candidate": candidate, "estimate": e.estimate,
            "low": e.low, "high": e.high, "se": e.se, "method": e.method, "n_labelled": n,
            "n_unlabelled": len(d_y) - n, "judge_difference": float(d_f.mean()),
            "human_difference": float(d_y[lab].mean()),
        })  # fmt: skip
    return pd.DataFrame(rows)

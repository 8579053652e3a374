"""Did it get better? Two runs compared item by item (METHODS 13, issue 27).

:func:`diff` aligns a base and a candidate run on (task, item id), counts the items only one run
has, and tests the paired difference ``d = candidate - base`` per task and overall:

- binary scores with one answer per item and no cluster column: the exact McNemar test
  (conditional binomial on the discordant pairs) with the Clopper–Pearson interval for the
  discordant split mapped to the difference, so interval and p-value agree;
- otherwise, with at least :data:`FEW_UNITS` items (clusters) per task: the paired bootstrap with
  items (or the cluster column's clusters) resampled whole, an item's answers (epochs) together;
  per-task intervals simultaneous by max-T (``core.summaries.maxt``);
- fewer: an exact sign-flip randomization test (all ``2^n`` flips up to ``EXACT_FLIPS``
  units) with the interval from inverting it, its ends at least as far out as the betting
  interval (one task, equal units) or Hoeffding's bound;
- ``sequential=True``: an anytime-valid confidence sequence (predictable plug-in empirical
  Bernstein, Waudby-Smith & Ramdas 2024) per task, valid however often one looks.

Verdicts follow from the interval and the margin, in this order: ``better``, ``worse``,
``equivalent``, ``non-inferior``, ``inconclusive``.

Long on purpose: METHODS 13 for one result: alignment of two runs, the choice between McNemar,
sign-flip and the cluster bootstrap, max-T over tasks, confidence sequences and the verdicts
that must agree with their intervals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Literal, get_args

import numpy as np
import pyarrow.compute as pc

from benchuq.core.analyses.paired_tests import (
    PairedTest,
    mcnemar,
    sequence_sum,
    sequence_test,
    sign_flip,
)
from benchuq.core.data import Benchmark, DataError, ItemTask, Labels
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.options import option
from benchuq.core.summaries.maxt import max_t
from benchuq.core.validation import InvalidArgument, check_choice, check_known, check_level

__all__ = [
    "FAIL_ON",
    "FEW_UNITS",
    "VERDICTS",
    "DiffResult",
    "DiffRow",
    "FailOn",
    "Verdict",
    "diff",
    "exit_code",
    "verdict_of",
]

Verdict = Literal["better", "worse", "equivalent", "non-inferior", "inconclusive"]
VERDICTS: tuple[str, ...] = get_args(Verdict)
FailOn = Literal["worse", "inferior", "difference", "never"]
FAIL_ON: tuple[str, ...] = get_args(FailOn)
#: Below this many items (clusters) in a task the bootstrap's intervals are too short; the
#: sign-flip randomization test holds its level at any size (METHODS 13).
FEW_UNITS = 30
_CHUNK = 2**22  # cells per chunk of bootstrap counts
_FEW_KINDS = 64  # up to this many distinct units, multinomial counts; more: index draws


@dataclass(frozen=True)
class DiffRow:
    """The comparison of one task (or ``"overall"``); scores and differences in score units.

    ``low``/``high`` is the interval at ``level`` (per task: simultaneous over the tasks);
    ``p_value`` agrees with it (adjusted over the tasks for per-task rows). ``se_paired`` is the
    standard error of the paired difference (items as clusters), ``se_unpaired`` the one an
    unpaired comparison of the two runs would use, ``se_naive`` the one treating every answer as
    an independent item, unpaired (a harness's ``stderr``); ``design_effect`` =
    ``se_paired**2 / se_naive**2``. ``too_few``: the data cannot support a better/worse verdict
    at this level whatever the scores (too few items to tell).
    """

    task: str
    base_score: float
    candidate_score: float
    difference: float
    low: float
    high: float
    p_value: float
    verdict: Verdict
    method: str
    n_paired: int
    n_base_only: int
    n_candidate_only: int
    se_paired: float
    se_unpaired: float
    se_naive: float
    design_effect: float
    base_se_naive: float
    base_se_clustered: float
    candidate_se_naive: float
    candidate_se_clustered: float
    n_answers_base: int
    n_answers_candidate: int
    level: float
    simultaneous: bool
    too_few: bool
    p_resolution: float
    sentence: str

    def __repr__(self) -> str:
        return (
            f"DiffRow({self.task!r}, difference={self.difference:.4g}, "
            f"interval=[{self.low:.4g}, {self.high:.4g}], p={self.p_value:.3g}, {self.verdict})"
        )

    @property
    def label(self) -> str:
        """The verdict as shown: "too few items to tell" when the data cannot support one."""
        return "too few items to tell" if self.too_few else self.verdict

    def to_dict(self) -> dict[str, object]:
        """Every field by name (the JSON contract of ``benchuq diff``)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class DiffResult:
    """Candidate minus base, per task and overall (:func:`diff`); ``data`` names the data set(s)."""

    base: str
    candidate: str
    data: str
    level: float
    margin: float
    overall: DiffRow
    tasks: tuple[DiffRow, ...]
    tasks_base_only: tuple[str, ...]
    tasks_candidate_only: tuple[str, ...]
    tasks_unpaired: tuple[str, ...]
    weights: tuple[float, ...]
    sequential: bool
    points: bool
    reps: int
    seed: int

    def __repr__(self) -> str:
        o = self.overall
        return (
            f"DiffResult({self.candidate!r} - {self.base!r}: {o.difference:.4g} "
            f"[{o.low:.4g}, {o.high:.4g}] at {self.level:g}, {o.verdict}; {len(self.tasks)} tasks)"
        )

    @property
    def rows(self) -> tuple[DiffRow, ...]:
        """The task rows, then the overall row."""
        return (*self.tasks, self.overall)

    def note(self) -> str:
        """What the comparison uses, in words (paired items only; simultaneous intervals)."""
        n = sum(r.n_paired for r in self.tasks)
        nb = sum(r.n_base_only for r in self.tasks)
        nc = sum(r.n_candidate_only for r in self.tasks)
        text = (
            f"The comparison uses the {n:,} items both runs scored ({nb:,} only in the base, "
            f"{nc:,} only in the candidate, left out)."
        )
        if self.tasks_base_only or self.tasks_candidate_only:
            text += (
                f" Tasks in one run only, left out: base {list(self.tasks_base_only)}, "
                f"candidate {list(self.tasks_candidate_only)}."
            )
        if self.tasks_unpaired:
            text += (
                f" Tasks in both runs without an item id in common, left out: "
                f"{list(self.tasks_unpaired)}."
            )
        if len(self.tasks) > 1:
            text += (
                f" Per-task intervals and p-values are simultaneous over the {len(self.tasks)} "
                f"tasks at {100 * self.level:g}% (they hold for all tasks together; METHODS 13); "
                "overall = "
                + ("the mean over tasks." if _equal(self.weights) else "the weighted mean.")
            )
        if self.sequential:
            text += (
                " Intervals are anytime-valid confidence sequences: valid however often the "
                "comparison is repeated as items arrive."
            )
        flat = [r.task for r in self.rows if not r.se_paired > 0 or not r.se_naive > 0]
        if flat:  # METHODS 2g: a standard error of 0 is named, never read as certainty
            text += (
                f" Standard errors of 0 ({', '.join(flat[:8])}): the items show no spread there, "
                "which says nothing of the items not seen; the intervals allow for them "
                "(METHODS 13)."
            )
        return text


def _equal(w: Sequence[float]) -> bool:
    return bool(np.allclose(w, w[0])) if len(w) else True


def margin_in_score_units(
    margin: float, *, points: bool, unit: Literal["score", "shown"] = "shown"
) -> float:
    """``margin`` in score units (METHODS 13): given in points (``unit="shown"`` and scores in
    [0, 1]) it is divided by 100; a margin of more than the 100 points a difference of
    proportions can span is refused (``--margin 5`` means 5 points, not 500)."""
    if unit == "score" or not points:
        return float(margin)
    if margin > 100:
        raise InvalidArgument(
            f"margin {margin:g} is in points (the unit the output shows for scores between 0 "
            "and 1), and a difference of two proportions spans at most 100 points.",
            hint=f"give the margin in points, e.g. {option('margin', 5)} for 5 points, i.e. 0.05 "
            "in score units.",
        )
    return float(margin) / 100.0


def verdict_of(low: float, high: float, margin: float) -> Verdict:
    """The verdict of the interval ``[low, high]`` for ``candidate - base`` at ``margin >= 0``.

    In this order: ``better`` (low > 0), ``worse`` (high < 0), ``equivalent`` (margin > 0 and
    ``-margin < low``, ``high < margin``: a TOST at the interval's level), ``non-inferior``
    (low > -margin), else ``inconclusive``.
    """
    if low > 0:
        return "better"
    if high < 0:
        return "worse"
    if margin > 0 and -margin < low and high < margin:
        return "equivalent"
    if low > -margin:
        return "non-inferior"
    return "inconclusive"


def exit_code(result: DiffResult, *, fail_on: FailOn = "never", per_task: bool = False) -> int:
    """The CI exit status: 1 when the overall (``per_task``: or any task's) verdict fails the
    gate ``fail_on``, else 0.

    ``worse``: fails on ``worse``; ``inferior``: on anything but ``better``, ``equivalent`` and
    ``non-inferior``; ``difference``: on ``better`` or ``worse``; ``never``: never.
    """
    check_choice(fail_on, FAIL_ON, name="fail_on")
    rows = result.rows if per_task else (result.overall,)
    fails = {
        "worse": {"worse"},
        "inferior": {"worse", "inconclusive"},
        "difference": {"better", "worse"},
        "never": set(),
    }[fail_on]
    return int(any(r.verdict in fails for r in rows))


# ---- alignment -------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Pair:
    """One task's paired items: scores, answers per cell, squared means, unit codes."""

    task: str
    base: np.ndarray
    candidate: np.ndarray
    base_answers: np.ndarray
    candidate_answers: np.ndarray
    base_sq: np.ndarray
    candidate_sq: np.ndarray
    units: np.ndarray  # (n,) unit (cluster) code of each paired item, 0..K-1
    n_units: int
    n_base_only: int
    n_candidate_only: int
    binary_single: bool


def _row(it: ItemTask, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Model ``i``'s scores (cell means), answers per cell and mean squared answer on ``it``.

    Without ``answer_sq`` a cell of several answers in ``[0, 1]`` is taken as 0/1 answers (mean
    square = mean, exact for right/wrong answers); one answer per cell: the score squared.
    """
    scores = it.scores[i]
    answers, sq = it.answers, it.answer_sq  # epochs (None: one answer per cell)
    if answers is None:
        return scores, np.ones(len(scores)), scores**2
    k = np.asarray(answers[i], float)
    if sq is not None:
        return scores, k, np.asarray(sq[i], float)
    ok = ~np.isnan(scores)
    binary = bool(np.all((scores[ok] >= 0) & (scores[ok] <= 1)))
    return scores, k, np.where(k > 1, scores, scores**2) if binary else scores**2


def _matching(
    items_b: Labels, items_c: Labels, ok_b: np.ndarray, ok_c: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``(ib, ic)`` of the item ids both runs scored, in the base run's order (a hash
    join on the ids; identical id lists, the usual case, need none)."""
    names_b, names_c = items_b._strings(), items_c._strings()
    if len(names_b) == len(names_c) and names_b.equals(names_c):
        both = np.flatnonzero(ok_b & ok_c)
        return both, both
    where = pc.index_in(names_b, value_set=names_c)  # base item -> its candidate position
    ic = np.asarray(where.fill_null(-1).to_numpy(zero_copy_only=False), np.int64)
    found = ic >= 0
    found[found] = ok_c[ic[found]]
    ib = np.flatnonzero(found & ok_b)
    return ib, ic[ib]


def _align(task: str, base: ItemTask, b: int, candidate: ItemTask, c: int) -> _Pair:
    sb, kb, qb = _row(base, b)
    sc, kc, qc = _row(candidate, c)
    ok_b, ok_c = ~np.isnan(sb), ~np.isnan(sc)
    ib, ic = _matching(base.items, candidate.items, ok_b, ok_c)
    common = len(ib)
    cluster = base.cluster if base.cluster is not None else candidate.cluster
    if cluster is not None:
        codes = np.asarray(cluster.codes if cluster.codes is not None else np.arange(len(cluster)))
        _, units = np.unique(codes[ib if base.cluster is not None else ic], return_inverse=True)
    else:
        units = np.arange(len(ib))
    answers_one = base.answers is None and candidate.answers is None
    return _Pair(
        task=task,
        base=sb[ib],
        candidate=sc[ic],
        base_answers=kb[ib],
        candidate_answers=kc[ic],
        base_sq=qb[ib],
        candidate_sq=qc[ic],
        units=units.astype(np.int64),
        n_units=int(units.max()) + 1 if len(units) else 0,
        n_base_only=int(ok_b.sum()) - common,
        n_candidate_only=int(ok_c.sum()) - common,
        binary_single=base.binary and candidate.binary and answers_one and cluster is None,
    )


# ---- standard errors -------------------------------------------------------------------------
def _clustered_se(x: np.ndarray, units: np.ndarray, k: int) -> float:
    """SE of the mean of ``x`` with units resampled whole (CR1-type: ``k / (k - 1)``)."""
    n = len(x)
    if k < 2:
        return np.nan
    resid = np.bincount(units, weights=x - x.mean(), minlength=k)
    return float(np.sqrt(k / (k - 1) * np.sum(resid**2)) / n)


def _naive_se(mean: np.ndarray, answers: np.ndarray, sq: np.ndarray) -> float:
    """SE of the answer mean with every answer an independent item (a harness's ``stderr``)."""
    N = float(np.sum(answers))
    if N < 2:
        return np.nan
    m = float(np.sum(answers * mean)) / N
    var = max(float(np.sum(answers * sq)) / N - m * m, 0.0) * N / (N - 1)
    return float(np.sqrt(var / N))


@dataclass(frozen=True)
class _Errors:
    base_naive: float
    base_clustered: float
    candidate_naive: float
    candidate_clustered: float
    paired: float

    @property
    def unpaired(self) -> float:
        return float(np.hypot(self.base_clustered, self.candidate_clustered))

    @property
    def naive(self) -> float:
        return float(np.hypot(self.base_naive, self.candidate_naive))


def _errors(p: _Pair) -> _Errors:
    k = p.n_units
    return _Errors(
        base_naive=_naive_se(p.base, p.base_answers, p.base_sq),
        base_clustered=_clustered_se(p.base, p.units, k),
        candidate_naive=_naive_se(p.candidate, p.candidate_answers, p.candidate_sq),
        candidate_clustered=_clustered_se(p.candidate, p.units, k),
        paired=_clustered_se(p.candidate - p.base, p.units, k),
    )


# ---- bootstrap ---------------------------------------------------------------------------------
def _bootstrap_task(p: _Pair, reps: int, rng: np.random.Generator) -> np.ndarray:
    """``(R,)`` paired-bootstrap draws of the task's mean difference, units resampled whole.

    Units with the same (sum of differences, size) are pooled: multinomial counts over the
    distinct units (7 kinds for binary scores with 3 epochs) give exact bootstrap draws.
    """
    d = p.candidate - p.base
    sums = np.bincount(p.units, weights=d, minlength=p.n_units)
    sizes = np.bincount(p.units, minlength=p.n_units).astype(float)
    if np.all(sizes == sizes[0]):  # items (or equal clusters): the kinds are the sums
        kinds, counts = np.unique(sums, return_counts=True)
        keys = np.stack([kinds, np.full(len(kinds), sizes[0])], axis=1)
    else:
        keys, counts = np.unique(np.stack([sums, sizes], axis=1), axis=0, return_counts=True)
    out = np.empty(reps)
    if len(keys) <= _FEW_KINDS:  # multinomial counts over the kinds of unit
        prob = counts / counts.sum()
        for a in range(0, reps, step := max(1, _CHUNK // len(keys))):
            draw = rng.multinomial(p.n_units, prob, size=min(step, reps - a)).astype(float)
            out[a : a + len(draw)] = (draw @ keys[:, 0]) / (draw @ keys[:, 1])
        return out
    for a in range(0, reps, step := max(1, _CHUNK // p.n_units)):  # units drawn by index
        pick = rng.integers(0, p.n_units, size=(min(step, reps - a), p.n_units))
        out[a : a + len(pick)] = sums[pick].sum(axis=1) / sizes[pick].sum(axis=1)
    return out


# ---- diff ------------------------------------------------------------------------------------
def _pick(bench: Benchmark, model: str | None, what: str) -> int:
    if model is None:
        if len(bench.models) != 1:
            raise InvalidArgument(
                f"the {what} data set '{bench.name}' has {len(bench.models)} models "
                f"{list(bench.models)[:6]}; name the one to compare.",
                hint=f"pass {what}_model= (CLI: --{what} MODEL).",
            )
        return 0
    check_known([model], bench.models, what=f"{what} model")
    return bench.models.index(model)


def _items(bench: Benchmark, what: str) -> tuple[ItemTask, ...]:
    if bench.kind != "items" or bench.item_tasks is None:
        raise DataError(
            f"the {what} run '{bench.name}' holds {bench.kind.replace('_', ' ')} per task, not "
            "item-level scores; two runs are compared item by item.",
            column="item",
            hint="give per-item results: inspect .eval logs, lm-eval output folders with "
            "samples_*.jsonl (--log_samples), or a long table with task, item, score columns.",
        )
    return bench.item_tasks


def diff(
    base: Benchmark,
    candidate: Benchmark | None = None,
    *,
    base_model: str | None = None,
    candidate_model: str | None = None,
    level: float = COMPARISON_LEVEL,
    margin: float = 0.0,
    weights: Mapping[str, float] | None = None,
    sequential: bool = False,
    reps: int = 2000,
    seed: int = 0,
    margin_unit: Literal["score", "shown"] = "score",
) -> DiffResult:
    """Candidate minus base, item by item, per task and overall (METHODS 13).

    Parameters
    ----------
    base, candidate
        The two runs (``Benchmark`` of item-level scores). With ``candidate=None`` both runs are
        models of ``base``, named by ``base_model`` and ``candidate_model``.
    base_model, candidate_model
        The model of each data set to compare (needed when a data set has several).
    level
        Interval level; per-task intervals are simultaneous over the tasks at this level.
    margin
        Margin ``M >= 0`` for ``equivalent`` and ``non-inferior``, in score units, or with
        ``margin_unit="shown"`` in the unit the output shows: points (0-100) when every score
        lies in [0, 1], else score units (METHODS 13). The result keeps score units.
    weights
        Task weights of the overall score (default: the mean over tasks, the leaderboard's
        ``overall``).
    sequential
        Anytime-valid confidence sequences instead of fixed-n intervals (scores in ``[0, 1]``).
    reps, seed
        Bootstrap replicates and seed.

    Returns
    -------
    DiffResult

    Examples
    --------
    >>> import numpy as np
    >>> from benchuq.core.data import Benchmark, ItemTask
    >>> rng = np.random.default_rng(0)
    >>> a = (rng.random(400) < 0.7).astype(float)
    >>> b = np.where(rng.random(400) < 0.1, 1 - a, a)
    >>> task = ItemTask([f"q{i}" for i in range(400)], np.stack([a, b]))
    >>> bench = Benchmark("demo", ("old", "new"), ("qa",), ("all",), "items",
    ...                   np.stack([a, b]).mean(axis=1)[:, None], item_tasks=(task,))
    >>> r = diff(bench, base_model="old", candidate_model="new")
    >>> r.overall.method, r.overall.n_paired
    ('exact McNemar', 400)
    """
    level = check_level(level)
    if not (np.isfinite(margin) and margin >= 0):
        raise InvalidArgument(f"margin {margin!r} must be a number >= 0 (score units).")
    if int(reps) != reps or reps < 100:
        raise InvalidArgument(f"reps {reps!r}: use at least 100 replicates (2000 is typical).")
    if candidate is None:
        if base_model is None or candidate_model is None:
            raise InvalidArgument(
                "with one data set, name both runs.",
                hint=f"name them with {option('base_model')} and {option('candidate_model')}.",
            )
        if base_model == candidate_model:
            raise InvalidArgument(f"base and candidate are the same model '{base_model}'.")
        candidate = base
    bi, ci = _pick(base, base_model, "base"), _pick(candidate, candidate_model, "candidate")
    tb, tc = _items(base, "base"), _items(candidate, "candidate")
    common = [t for t in base.tasks if t in candidate.tasks]
    only_b = tuple(t for t in base.tasks if t not in candidate.tasks)
    only_c = tuple(t for t in candidate.tasks if t not in base.tasks)
    if not common:
        raise DataError(
            f"the two runs share no task (base: {list(base.tasks)[:5]}, candidate: "
            f"{list(candidate.tasks)[:5]}).",
            column="task",
            hint="compare runs of the same tasks (task names must match).",
        )
    pairs = [
        _align(t, tb[base.tasks.index(t)], bi, tc[candidate.tasks.index(t)], ci) for t in common
    ]
    unpaired = tuple(p.task for p in pairs if not len(p.base))
    pairs = [p for p in pairs if len(p.base)]
    if not pairs:
        raise DataError(
            f"no item id is scored in both runs (tasks {list(unpaired)[:5]}).",
            column="item",
            hint="item ids must match between the runs (the same data set and ids).",
        )
    w = _weights(weights, [p.task for p in pairs])
    lo_all = min(float(np.nanmin(np.r_[p.base, p.candidate])) for p in pairs)
    hi_all = max(float(np.nanmax(np.r_[p.base, p.candidate])) for p in pairs)
    points = lo_all >= 0 and hi_all <= 1
    margin = margin_in_score_units(margin, points=points, unit=margin_unit)
    # the largest difference two scores can have: 1 on the [0, 1] scale (graded scores seen only
    # at 0.5 and 1 can still be 0), else the observed range (METHODS 13)
    bound = 1.0 if points or hi_all <= lo_all else hi_all - lo_all
    if sequential and not points:
        raise InvalidArgument(
            "sequential=True needs scores between 0 and 1 (the confidence sequence is for "
            f"bounded scores); these runs have scores from {lo_all:g} to {hi_all:g}."
        )
    rng = np.random.default_rng(seed)
    K = len(pairs)
    task_level = level ** (1.0 / K)
    tests: list[PairedTest | None] = []
    boot: dict[int, np.ndarray] = {}
    for j, p in enumerate(pairs):
        if sequential:
            tests.append(sequence_test(_unit_means(p), level=task_level))
        elif p.binary_single:
            tests.append(mcnemar(p.base, p.candidate, level=task_level))
        elif p.n_units < FEW_UNITS:
            size = np.bincount(p.units, minlength=p.n_units)
            test = sign_flip(_unit_means(p), size / size.sum(), level=task_level, bound=bound,
                             seed=seed + j)  # fmt: skip
            tests.append(test)
        else:
            tests.append(None)
            boot[j] = _bootstrap_task(p, reps, rng)
    if boot:  # max-T over the bootstrap tasks at their share of the family level
        idx = sorted(boot)
        est = np.array([float(np.mean(pairs[j].candidate - pairs[j].base)) for j in idx])
        with np.errstate(divide="ignore", invalid="ignore"):  # a task whose draws do not vary
            mt = max_t(np.stack([boot[j] for j in idx], axis=1), est, level=level ** (len(idx) / K))
        for col, j in enumerate(idx):
            too_few = not np.isfinite(mt.critical)
            label = "paired bootstrap (items as clusters" + (
                ", simultaneous over tasks)" if K > 1 else ")"
            )
            p_adj = 1.0 - (1.0 - float(mt.p_value[col])) ** (K / len(idx))
            floor = 1.0 - (1.0 - 1.0 / (mt.reps + 1)) ** (K / len(idx))
            tests[j] = _unless_unchanged(
                PairedTest(float(est[col]), float(mt.low[col]), float(mt.high[col]), p_adj,
                           label, too_few, floor),
                [pairs[j]], [1.0], level ** (1.0 / K), bound, K,
            )  # fmt: skip
    done = [t for t in tests if t is not None]
    rows = []
    for p, t in zip(pairs, done, strict=True):
        boot_task = t.method.startswith("paired bootstrap")
        p_adj = t.p_value if boot_task else _sidak(t.p_value, K)
        floor = t.resolution if boot_task else _sidak(t.resolution, K)
        rows.append(_make_row(p.task, [p], [1.0], t, p_adj, level, margin, points, K > 1, floor))
    overall = _overall(
        pairs, w, rows, done, level, margin, points, bound, sequential, reps, rng, seed
    )
    return DiffResult(
        base=_label(base, bi, candidate, ci, "base"),
        candidate=_label(candidate, ci, base, bi, "candidate"),
        data=base.name if base is candidate else f"{base.name} vs {candidate.name}",
        level=level,
        margin=float(margin),
        overall=overall,
        tasks=tuple(rows),
        tasks_base_only=only_b,
        tasks_candidate_only=only_c,
        tasks_unpaired=unpaired,
        weights=tuple(float(x) for x in w),
        sequential=bool(sequential),
        points=points,
        reps=int(reps),
        seed=int(seed),
    )


def _label(bench: Benchmark, i: int, other: Benchmark, j: int, what: str) -> str:
    name = bench.models[i]
    if bench is not other and name == other.models[j]:
        return f"{name} ({bench.name})" if bench.name != other.name else f"{name} ({what})"
    return name


def _sidak(p: float, K: int) -> float:
    return float(1.0 - (1.0 - p) ** K) if np.isfinite(p) else p


def _weights(weights: Mapping[str, float] | None, tasks: list[str]) -> np.ndarray:
    if weights is None:
        return np.full(len(tasks), 1.0 / len(tasks))
    check_known(list(weights), tasks, what="tasks in weights")
    w = np.array([float(weights.get(t, 0.0)) for t in tasks])
    if np.any(~np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise InvalidArgument("task weights must be numbers >= 0 with a positive sum.")
    return w / w.sum()


def _unit_means(p: _Pair) -> np.ndarray:
    """Each unit's (item's or cluster's) mean difference."""
    d = p.candidate - p.base
    return np.bincount(p.units, weights=d, minlength=p.n_units) / np.bincount(
        p.units, minlength=p.n_units
    )


def _unless_unchanged(
    test: PairedTest,
    pairs: Sequence[_Pair],
    w: Sequence[float],
    level: float,
    bound: float,
    family: int = 1,
) -> PairedTest:
    """``test``, unless every unit of each task differs by one amount ``c_t`` (the same answers,
    or a graded run half a point ahead on every item): the bootstrap then has no width, yet the
    share of units that would differ from ``c_t`` is only bounded, by its Clopper–Pearson upper
    end ``psi_t = 1 - (alpha_t / 2)^(1/n_t)`` (Šidák over tasks); such units lie in ``[-B, B]``,
    so ``d`` lies in ``sum_t w_t [c_t - psi_t (B + c_t), c_t + psi_t (B - c_t)]`` (METHODS 13).
    The p-value is the smallest ``alpha`` whose interval leaves out 0 (Šidák-adjusted over
    ``family`` tasks for a task's row), never below the bootstrap's."""
    means = [_unit_means(p) for p in pairs]
    if any(np.ptp(m) > 1e-12 * max(1.0, bound) for m in means):
        return test
    c = np.array([float(m[0]) for m in means])
    est = float(np.dot(w, c))

    def ends(alpha: float) -> tuple[float, float]:
        a_t = 1.0 - (1.0 - alpha) ** (1.0 / len(pairs))
        psi = np.array([1.0 - (a_t / 2) ** (1.0 / p.n_units) for p in pairs])
        return float(np.dot(w, c - psi * (bound + c))), float(np.dot(w, c + psi * (bound - c)))

    low, high = ends(1.0 - level)
    p_value = 1.0
    widest_low, widest_high = ends(1.0)
    if est != 0.0 and widest_low * widest_high > 0:  # smallest alpha leaving 0 out
        lo_a, hi_a = 0.0, 1.0
        for _ in range(60):
            mid = (lo_a + hi_a) / 2
            lo_a, hi_a = (lo_a, mid) if ends(mid)[0] * ends(mid)[1] > 0 else (mid, hi_a)
        p_value = max(test.p_value, _sidak(hi_a, family))
    if est == 0.0:
        return PairedTest(0.0, low, high, 1.0, test.method + "; no item differs", test.too_few)
    method = test.method + "; every item differs by the same amount"
    return PairedTest(est, low, high, p_value, method, test.too_few, test.resolution)


def _overall(
    pairs: list[_Pair],
    w: np.ndarray,
    rows: list[DiffRow],
    tests: list[PairedTest],
    level: float,
    margin: float,
    points: bool,
    bound: float,
    sequential: bool,
    reps: int,
    rng: np.random.Generator,
    seed: int,
) -> DiffRow:
    """The overall row: the task's own test with one task; else a test of ``sum_t w_t d_t``."""
    if len(pairs) == 1:
        t = tests[0]
        return _make_row("overall", pairs, [1.0], t, t.p_value, level, margin, points)
    est = float(sum(wt * r.difference for wt, r in zip(w, rows, strict=True)))
    if sequential:  # per-task sequences hold simultaneously: their weighted sum holds too
        lo, hi, p = sequence_sum([_unit_means(pair) for pair in pairs], w, level=level)
        too_few = all(r.too_few for r in rows)
        t = PairedTest(est, lo, hi, p, "confidence sequences (sum over tasks)", too_few)
    elif min(pair.n_units for pair in pairs) < FEW_UNITS:  # a small task: flips over all units
        vals, wts = [], []
        for pair, wt in zip(pairs, w, strict=True):
            size = np.bincount(pair.units, minlength=pair.n_units)
            vals.append(_unit_means(pair))
            wts.append(wt * size / size.sum())
        # several tasks' units are not one i.i.d. sample: Hoeffding's floor (METHODS 13)
        t = sign_flip(np.concatenate(vals), np.concatenate(wts), level=level, bound=bound,
                      seed=seed, one_sample=False)  # fmt: skip
    else:
        draws = sum(wt * _bootstrap_task(q, reps, rng) for q, wt in zip(pairs, w, strict=True))
        with np.errstate(divide="ignore", invalid="ignore"):
            mt = max_t(np.asarray(draws)[:, None], np.array([est]), level=level)
        t = PairedTest(
            est,
            float(mt.low[0]),
            float(mt.high[0]),
            float(mt.p_value[0]),
            "paired bootstrap (items as clusters, tasks stratified)",
            not np.isfinite(mt.critical),
            1.0 / (mt.reps + 1),
        )
        t = _unless_unchanged(t, pairs, list(w), level, bound)
    return _make_row("overall", pairs, list(w), t, t.p_value, level, margin, points)


def _make_row(
    task: str,
    pairs: Sequence[_Pair],
    w: Sequence[float],
    t: PairedTest,
    p_value: float,
    level: float,
    margin: float,
    points: bool,
    simultaneous: bool = False,
    resolution: float | None = None,
) -> DiffRow:
    errs = [_errors(p) for p in pairs]

    def combine(get: str) -> float:
        return float(
            np.sqrt(sum(wt**2 * getattr(e, get) ** 2 for wt, e in zip(w, errs, strict=True)))
        )

    base_score = float(sum(wt * p.base.mean() for wt, p in zip(w, pairs, strict=True)))
    cand_score = float(sum(wt * p.candidate.mean() for wt, p in zip(w, pairs, strict=True)))
    se_paired, se_naive = combine("paired"), combine("naive")
    verdict = verdict_of(t.low, t.high, margin) if np.isfinite(t.low) else "inconclusive"
    too_few = t.too_few and verdict not in ("better", "worse")
    if too_few:  # no verdict the data cannot support
        verdict = "inconclusive"
    row = DiffRow(
        task=task,
        base_score=base_score,
        candidate_score=cand_score,
        difference=t.estimate,
        low=t.low,
        high=t.high,
        p_value=p_value,
        verdict=verdict,
        method=t.method,
        n_paired=int(sum(len(p.base) for p in pairs)),
        n_base_only=int(sum(p.n_base_only for p in pairs)),
        n_candidate_only=int(sum(p.n_candidate_only for p in pairs)),
        se_paired=se_paired,
        se_unpaired=combine("unpaired"),
        se_naive=se_naive,
        design_effect=se_paired**2 / se_naive**2 if se_naive > 0 else np.nan,
        base_se_naive=combine("base_naive"),
        base_se_clustered=combine("base_clustered"),
        candidate_se_naive=combine("candidate_naive"),
        candidate_se_clustered=combine("candidate_clustered"),
        n_answers_base=int(sum(p.base_answers.sum() for p in pairs)),
        n_answers_candidate=int(sum(p.candidate_answers.sum() for p in pairs)),
        level=level,
        simultaneous=simultaneous,
        p_resolution=t.resolution if resolution is None else resolution,
        too_few=bool(too_few),
        sentence="",
    )
    return _with_sentence(row, margin, points)


def _fmt(x: float, points: bool) -> str:
    return f"{100 * x:+.1f}" if points else f"{x:+.4g}"


def _with_sentence(r: DiffRow, margin: float, points: bool) -> DiffRow:
    unit = " points" if points else ""
    if r.p_value <= r.p_resolution * (1 + 1e-9):
        p = f"p ≤ {r.p_resolution:.2g}, the smallest this method resolves"
    else:
        p = "p < 1e-10" if r.p_value < 1e-10 else f"p = {r.p_value:.2g}"
    head = {
        "better": "Better",
        "worse": "Worse",
        "equivalent": "Equivalent",
        "non-inferior": "Non-inferior",
        "inconclusive": "Inconclusive",
    }[r.verdict]
    if r.too_few:
        head = "Too few items to tell"
    shown = f"{100 * margin if points else margin:g}"
    m = f" (margin {shown}{unit.removesuffix('s') if shown == '1' else unit})" if margin > 0 else ""
    text = (
        f"{head}{m}: candidate − base = {_fmt(r.difference, points)}{unit}, "
        f"{r.level:.1%} {'simultaneous ' if r.simultaneous else ''}interval "
        f"[{_fmt(r.low, points)}, {_fmt(r.high, points)}] "
        f"({r.method}, {p}; {r.n_paired:,} paired items)."
    )
    return DiffRow(**{**r.to_dict(), "sentence": text})  # type: ignore[arg-type]

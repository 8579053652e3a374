"""Small subgroups: direct, regression and empirical-Bayes estimates with robust intervals.

METHODS 7 [FPAM], intervals by :mod:`core.ebci` [AKP]. A *unit* is a (model, subgroup) pair:
a model on one task (e.g. an MMLU subject), on one task category, or on the items of a
``subgroup`` label; or a row of a user table ``unit, estimate, se``. Scores are proportions (or
the metric's own unit); ``n`` is the number of items behind a unit (``nan`` when unknown).

Choices where the spec is open:

- Binary standard errors use ``Z(1 - Z)/n`` with ``Z`` replaced by ``(k + 0.5)/(n + 1)`` only
  when ``k`` is 0 or ``n``; continuous ones the sample variance (ddof 1) over ``n``; units with
  no items, or continuous units with one item, are left out (with a note).
- Direct intervals: Wilson score (binary), Student t with ``n - 1`` df (continuous), normal
  (a user table, where ``n`` is unknown).
- The regression f is statsmodels WLS (pinv) with equal weights by default (the AKP default, so
  ``mu2`` and ``kappa`` are plain means) or precision weights ``1/se^2``; the same weights enter
  the moments. Categorical features are dummy coded with the first level dropped; constant
  columns are dropped.
- Cross-fitting: units are split at random (``seed``) into two halves; f for each half comes
  from the fit on the other. A level missing from a training half gets coefficient 0 (pinv).
  With fewer than ``2 (p + 2)`` units for ``p`` columns there is no cross-fitting (noted).
- Fewer than 3 units: no shrinkage (EB = direct), said in the notes.

Long on purpose: METHODS 7 as one pipeline (units, direct and regression estimates, cross-
fitting, the EB shrinkage and its intervals); splitting it would scatter the cross-fitting
folds across modules.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np
import pandas as pd
from scipy import stats

from benchuq.core.analyses.subgroups.ebci import FS_CORRECTIONS, FsCorrection, Kappa, ebci
from benchuq.core.analyses.subgroups.ebci.reference import _alpha, _check_kurtosis
from benchuq.core.budget import check_design, checkpoint
from benchuq.core.data import Benchmark, DataError, ItemTask, is_proportion
from benchuq.core.defaults import COMPARISON_LEVEL, SEED
from benchuq.core.threads import blas_policy
from benchuq.core.validation import check_choice, check_columns, check_known

if TYPE_CHECKING:
    import statsmodels.api as sm

__all__ = [
    "BASE_FEATURES",
    "GROUPINGS",
    "ROW_COLUMNS",
    "TABLE_COLUMNS",
    "UNIT_WEIGHTS",
    "Grouping",
    "SubgroupResult",
    "UnitWeights",
    "Units",
    "analyze",
    "binomial_se",
    "crossfit_operator",
    "design",
    "direct_interval",
    "is_unit_table",
    "units_from_benchmark",
    "units_from_table",
]

Grouping = Literal["task", "category", "subgroup"]
GROUPINGS: tuple[str, ...] = get_args(Grouping)
UnitWeights = Literal["equal", "precision"]
UNIT_WEIGHTS: tuple[str, ...] = get_args(UnitWeights)
BASE_FEATURES: tuple[str, ...] = ("intercept", "model", "subgroup", "category", "log_n")
ROW_COLUMNS: tuple[str, ...] = (
    "unit", "model", "subgroup", "n", "direct", "direct_low", "direct_high", "se", "f", "eb",
    "low", "high", "w", "cva",
)  # fmt: skip


@dataclass(frozen=True)
class Units:
    """Direct estimates per unit (all arrays have one entry per unit).

    Attributes
    ----------
    unit
        ``"model | subgroup"`` labels (or the table's ``unit``).
    model, subgroup, category
        labels ("" when the input has none).
    n
        items per unit (``nan`` if unknown); k: correct items (binary data) else ``None``.
    direct, se
        the direct estimate and its standard error.
    binary
        scores are 0/1 (Wilson intervals, guarded binomial variance).
    bounded
        every score lies in [0, 1] (0/1, graded or a share): a unit without spread gets the
        largest standard error such scores allow, and intervals stay within [0, 1] (METHODS 7).
    floored
        per unit, whether ``se`` is that floor (no spread measured; ``None``: no unit is). EB
        estimates A with their measured spread, 0, instead (METHODS 7).
    covariates
        extra numeric columns usable as regression features (table input).
    source
        how the units were defined, for captions.
    """

    unit: tuple[str, ...]
    model: tuple[str, ...]
    subgroup: tuple[str, ...]
    category: tuple[str, ...]
    n: np.ndarray
    k: np.ndarray | None
    direct: np.ndarray
    se: np.ndarray
    binary: bool
    covariates: pd.DataFrame = field(default_factory=pd.DataFrame)
    source: str = ""
    notes: tuple[str, ...] = ()
    bounded: bool = False
    floored: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.unit)

    @property
    def features(self) -> tuple[str, ...]:
        """Feature names that make sense for these units (a label every unit has its own value
        of would fit the data exactly, so it is not offered)."""
        out = ["intercept"]
        for name in ("model", "subgroup", "category"):  # labels shared by some units
            if 1 < len(set(getattr(self, name))) < len(self):
                out.append(name)
        if np.all(np.isfinite(self.n)) and len(np.unique(self.n)) > 1:
            out.append("log_n")
        return (*out, *self.covariates.columns)

    @property
    def default_features(self) -> tuple[str, ...]:
        """Intercept plus model and subgroup effects where there are several of them; a user
        table (one row per unit) shrinks toward the intercept only."""
        if self.source == "table":
            return ("intercept",)
        return tuple(f for f in self.features if f in ("intercept", "model", "subgroup"))


def binomial_se(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``sqrt(Z(1-Z)/n)``, with ``Z = (k+0.5)/(n+1)`` where ``k`` is 0 or ``n`` (METHODS 7)."""
    k, n = np.asarray(k, float), np.asarray(n, float)
    z = np.where((k == 0) | (k == n), (k + 0.5) / (n + 1.0), k / n)
    return np.sqrt(z * (1.0 - z) / n)


def _finish(
    model: list[str],
    sub: list[str],
    cat: list[str],
    n: np.ndarray,
    k: np.ndarray | None,
    direct: np.ndarray,
    se: np.ndarray,
    binary: bool,
    source: str,
    notes: list[str],
    bounded: bool = False,
) -> Units:
    if not binary:
        se, floored = _spread_floor(n, direct, se, bounded, notes)
    else:  # 0 or n correct: the guarded binomial SE is a floor too (METHODS 7)
        floored = np.zeros(len(n), bool) if k is None else (n > 0) & ((k == 0) | (k == n))
    keep = (n > 0) & np.isfinite(direct) & np.isfinite(se)
    dropped = int((~keep).sum())
    if dropped:
        notes.append(
            f"{dropped} unit(s) left out: no result (no items, or a missing score) or, for "
            "continuous scores, a single item (no variance)."
        )
    if not keep.any():
        raise DataError(
            "no unit has data to estimate from.",
            hint="pick a grouping with at least one scored item per model and subgroup.",
        )
    idx = np.flatnonzero(keep)
    return Units(
        unit=tuple(f"{model[i]} | {sub[i]}" for i in idx),
        model=tuple(model[i] for i in idx),
        subgroup=tuple(sub[i] for i in idx),
        category=tuple(cat[i] for i in idx),
        n=n[idx].astype(float),
        k=None if k is None else k[idx].astype(float),
        direct=direct[idx],
        se=se[idx],
        binary=binary,
        source=source,
        notes=tuple(notes),
        bounded=bounded or binary,
        floored=floored[idx] if floored[idx].any() else None,
    )


def _spread_floor(
    n: np.ndarray, mean: np.ndarray, se: np.ndarray, bounded: bool, notes: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Standard errors of continuous units, those scored the same on every item raised to the
    largest that scores in [0, 1] allow at the guarded mean (METHODS 7): an SE of 0 from 20
    zeros claimed an interval of width 0. Scores without known bounds keep 0, with a note.
    Returns the standard errors and which of them were raised."""
    flat = (n > 1) & (np.abs(se) <= 1e-12)  # 20 scores of 0.1: rounding leaves ~1e-17
    if not flat.any():
        return se, np.zeros(len(se), bool)
    count = int(flat.sum())
    if not bounded:
        notes.append(
            f"{count} unit(s) scored the same on every item: no spread was measured, so their "
            "direct intervals have width 0 and EB keeps them as they are (METHODS 2g)."
        )
        return se, np.zeros(len(se), bool)
    guarded = (n * mean + 0.5) / (n + 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        bound = np.sqrt(guarded * (1.0 - guarded) / n)
    notes.append(
        f"{count} unit(s) scored the same on every item: their standard error is the largest "
        "that scores in [0, 1] allow at that mean (Bhatia-Davis, guarded as for 0/1 scores; "
        "METHODS 7), not 0."
    )
    return np.where(flat, bound, se), flat


def _unit_interval(items: Sequence[ItemTask]) -> bool:
    """Whether every score of ``items`` lies in [0, 1] (``core.data.is_proportion``)."""
    return all(is_proportion(it.scores) for it in items)


def units_from_benchmark(bench: Benchmark, *, group_by: Grouping = "task") -> Units:
    """Units (model, subgroup) of a benchmark.

    ``group_by``: ``"task"`` (each task a subgroup), ``"category"`` (pool a category's tasks;
    counts and items) or ``"subgroup"`` (item-level data: the items' ``subgroup`` label, over all
    tasks; with several tasks the label is ``task/subgroup``).
    """
    check_choice(group_by, GROUPINGS, name="grouping")
    M, T = bench.shape
    notes: list[str] = []
    if group_by == "subgroup":
        return _item_subgroups(bench)
    if bench.kind == "estimate_se":
        if group_by != "task":
            raise DataError(
                "estimate/SE data can only be grouped by task.", hint="use group_by='task'."
            )
        model = [m for m in bench.models for _ in range(T)]
        sub = list(bench.tasks) * M
        cat = list(bench.categories) * M
        est, se = bench.estimate.ravel(), np.asarray(bench.se).ravel()
        n = np.where(np.isnan(est), 0.0, np.inf)
        units = _finish(model, sub, cat, n, None, est, se, False, "tasks", notes)
        return Units(**{**units.__dict__, "n": np.full(len(units), np.nan)})
    items = bench.item_tasks or ()
    binary = bench.kind == "counts" or all(it.binary for it in items)
    if group_by == "task":
        model = [m for m in bench.models for _ in range(T)]
        sub, cat = list(bench.tasks) * M, list(bench.categories) * M
        if binary:
            n, k = _counts(bench)
            nn, kk = n.ravel().astype(float), k.ravel().astype(float)
            with np.errstate(invalid="ignore", divide="ignore"):
                return _finish(
                    model, sub, cat, nn, kk, kk / nn, binomial_se(kk, nn), True, "tasks", notes
                )
        cols = [_mean_se(it.scores) for it in items]
        nn = np.stack([c[0] for c in cols], axis=1).ravel()
        mean = np.stack([c[1] for c in cols], axis=1).ravel()
        se = np.stack([c[2] for c in cols], axis=1).ravel()
        bounded = _unit_interval(items)
        return _finish(model, sub, cat, nn, None, mean, se, False, "tasks", notes, bounded)
    names = bench.category_names
    cidx = bench.category_index
    model = [m for m in bench.models for _ in names]
    sub = list(names) * M
    if binary:
        n, k = _counts(bench)
        nn = np.stack([n[:, cidx == c].sum(axis=1) for c in range(len(names))], axis=1).ravel()
        kk = np.stack([k[:, cidx == c].sum(axis=1) for c in range(len(names))], axis=1).ravel()
        nn, kk = nn.astype(float), kk.astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            return _finish(
                model, sub, sub, nn, kk, kk / nn, binomial_se(kk, nn), True, "categories", notes
            )
    cols = [
        _mean_se(np.concatenate([items[j].scores for j in np.flatnonzero(cidx == c)], 1))
        for c in range(len(names))
    ]
    nn = np.stack([c[0] for c in cols], axis=1).ravel()
    mean = np.stack([c[1] for c in cols], axis=1).ravel()
    se = np.stack([c[2] for c in cols], axis=1).ravel()
    bounded = _unit_interval(items)
    return _finish(model, sub, sub, nn, None, mean, se, False, "categories", notes, bounded)


def _counts(bench: Benchmark) -> tuple[np.ndarray, np.ndarray]:
    if bench.kind == "counts":
        return np.asarray(bench.n), np.asarray(bench.correct)
    items = bench.item_tasks or ()
    n = np.stack([np.sum(~np.isnan(it.scores), axis=1) for it in items], axis=1)
    k = np.stack([np.nansum(it.scores, axis=1) for it in items], axis=1)
    return n, k


def _mean_se(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: number of scores, mean and standard error of the mean (ddof 1)."""
    n = np.sum(~np.isnan(scores), axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nansum(scores, axis=1) / n
        dev = np.where(np.isnan(scores), 0.0, scores - mean[:, None])
        var = np.sum(dev**2, axis=1) / (n - 1)
        se = np.sqrt(var / n)
    return n, np.where(n > 0, mean, np.nan), np.where(n > 1, se, np.nan)


def _item_subgroups(bench: Benchmark) -> Units:
    if bench.item_tasks is None or all(it.subgroup is None for it in bench.item_tasks):
        raise DataError(
            "these data have no item-level 'subgroup' column.",
            column="subgroup",
            hint="group by task or category, or load item-level data with a 'subgroup' column.",
        )
    many = len(bench.tasks) > 1
    binary = all(it.binary for it in bench.item_tasks)
    model, sub, cat, n, k, mean, se = [], [], [], [], [], [], []
    for t, c, it in zip(bench.tasks, bench.categories, bench.item_tasks, strict=True):
        labels = np.array(it.subgroup if it.subgroup is not None else [t] * len(it.items))
        for g in dict.fromkeys(labels.tolist()):
            cols = it.scores[:, labels == g]
            nn, mm, ss = _mean_se(cols)
            name = f"{t}/{g}" if many else str(g)
            for i, m in enumerate(bench.models):
                model.append(m)
                sub.append(name)
                cat.append(c)
                n.append(nn[i])
                k.append(np.nansum(cols[i]))
                mean.append(mm[i])
                se.append(ss[i])
    n_, k_ = np.array(n), np.array(k)
    if binary:
        with np.errstate(invalid="ignore", divide="ignore"):
            se_ = binomial_se(k_, n_)
    else:
        se_ = np.array(se)
    return _finish(
        model, sub, cat, n_, k_ if binary else None, np.array(mean), se_, binary,
        "item subgroups", [], _unit_interval(bench.item_tasks or ()),
    )  # fmt: skip


TABLE_COLUMNS: tuple[str, ...] = ("unit", "estimate", "se")


def is_unit_table(columns: Sequence[str]) -> bool:
    """Whether a table's header names the columns ``unit, estimate, se``."""
    lower = {str(c).strip().lower() for c in columns}
    return set(TABLE_COLUMNS) <= lower


def units_from_table(df: pd.DataFrame, *, file: str = "table") -> Units:
    """Units from a table ``unit, estimate, se`` (optional ``model``, ``subgroup``, ``n`` and
    numeric covariate columns). Bad values raise :class:`DataError` naming file, row, column."""
    df = df.rename(columns={c: str(c).strip().lower() for c in df.columns})
    check_columns(
        df.columns,
        TABLE_COLUMNS,
        file=file,
        hint="the table needs columns unit, estimate, se (one row per unit).",
    )
    if len(df) == 0:
        raise DataError("the table has no rows.", file=file, hint="add one row per unit.")
    for col in ("estimate", "se"):
        vals = pd.to_numeric(df[col], errors="coerce")
        bad = np.flatnonzero(~np.isfinite(vals.to_numpy(float)))
        if len(bad):
            raise DataError(
                f"{col} must be a number, found {df[col].iloc[bad[0]]!r}.",
                file=file,
                row=int(bad[0]) + 1,
                column=col,
                hint="fill every row with a finite number.",
            )
        df[col] = vals.astype(float)
    neg = np.flatnonzero(df["se"].to_numpy() < 0)
    if len(neg):
        raise DataError(
            "standard errors must be >= 0.", file=file, row=int(neg[0]) + 1, column="se",
            hint="give the standard error of each estimate (not a variance or a negative value).",
        )  # fmt: skip
    units = df["unit"].astype(str).str.strip()
    dup = units[units.duplicated()]
    if len(dup):
        raise DataError(
            f"duplicate unit {dup.iloc[0]!r}.",
            file=file,
            row=int(dup.index[0]) + 1,
            column="unit",
            hint="give every row its own unit name.",
        )
    known = {*TABLE_COLUMNS, "model", "subgroup", "category", "n"}
    cov = {}
    for c in df.columns:
        if c in known:
            continue
        vals = pd.to_numeric(df[c], errors="coerce")
        if vals.notna().all():
            cov[c] = vals.astype(float).to_numpy()
    n = pd.to_numeric(df["n"], errors="coerce").to_numpy(float) if "n" in df else None
    empty = [""] * len(df)
    return Units(
        unit=tuple(units),
        model=tuple(df["model"].astype(str)) if "model" in df else tuple(empty),
        subgroup=tuple(df["subgroup"].astype(str)) if "subgroup" in df else tuple(units),
        category=tuple(df["category"].astype(str)) if "category" in df else tuple(empty),
        n=n if n is not None else np.full(len(df), np.nan),
        k=None,
        direct=df["estimate"].to_numpy(float),
        se=df["se"].to_numpy(float),
        binary=False,
        covariates=pd.DataFrame(cov, index=range(len(df))),
        source="table",
    )


# ---- regression f -----------------------------------------------------------------------------
def design(units: Units, features: Sequence[str]) -> pd.DataFrame:
    """Design matrix for ``features``: intercept, dummy-coded labels, ``log_n``, covariates."""
    check_known(features, (*BASE_FEATURES, *units.covariates.columns), what="features")
    cols: dict[str, np.ndarray] = {}
    G = len(units)
    levels = [
        len(set(getattr(units, f))) for f in features if f in ("model", "subgroup", "category")
    ]
    check_design(G, len(features) + sum(levels), what="the subgroup regression")
    for f in features:
        if f == "intercept":
            cols["intercept"] = np.ones(G)
        elif f in ("model", "subgroup", "category"):
            labels = pd.Series(getattr(units, f))
            dummies = pd.get_dummies(labels, prefix=f, prefix_sep="=", drop_first=True)
            for c in dummies.columns:
                cols[c] = dummies[c].to_numpy(float)
        elif f == "log_n":
            if not np.all(np.isfinite(units.n) & (units.n > 0)):
                raise DataError("log_n needs the number of items of every unit.", column="n")
            cols["log_n"] = np.log(units.n)
        else:
            cols[f] = units.covariates[f].to_numpy(float)
    X = pd.DataFrame(cols, index=range(G))
    keep = [c for c in X.columns if c == "intercept" or X[c].nunique() > 1]
    if not keep:  # no features, or only constant ones: the mean (a constant is an intercept)
        return pd.DataFrame({"intercept": np.ones(G)}, index=range(G))
    return X[keep]


def _wls(
    X: np.ndarray, z: np.ndarray, w: np.ndarray
) -> sm.regression.linear_model.RegressionResults:
    """statsmodels WLS by pinv: a level absent from the rows gets coefficient 0 (a training
    fold may miss a level; the rank-deficiency warning is expected there). statsmodels is
    imported here: at the module's top it cost about 1 s of every fresh server's first page,
    which never fits a regression (issue 41)."""
    import statsmodels.api as sm
    from statsmodels.tools.sm_exceptions import SingularMatrixWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularMatrixWarning)
        return sm.WLS(z, X, weights=w).fit(method="pinv")


def crossfit_operator(
    X: pd.DataFrame, omega: np.ndarray, crossfit: bool, seed: int
) -> tuple[np.ndarray, bool]:
    """The linear map ``P`` with ``f = P @ z`` and whether it cross-fits (two seeded folds).

    WLS is linear in ``z`` for fixed weights, so one pinv per fold serves every ``z`` (the
    simulation lab reuses it across reps). Without cross-fitting ``P`` is the hat matrix.
    """
    Xa = X.to_numpy(float)
    G, p = Xa.shape
    P = np.zeros((G, G))
    if not crossfit or G < 2 * (p + 2):
        fit = _wls(Xa, np.zeros(G), omega)
        return Xa @ fit.model.pinv_wexog * np.sqrt(omega)[None, :], False
    fold = np.random.default_rng(seed).permutation(G) % 2
    for k in (0, 1):
        checkpoint("The subgroup analysis")  # a closed tab's analysis ends here (core.budget)
        train, test = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
        fit = _wls(Xa[train], np.zeros(len(train)), omega[train])
        P[np.ix_(test, train)] = Xa[test] @ fit.model.pinv_wexog * np.sqrt(omega[train])[None, :]
    return P, True


# ---- the analysis -----------------------------------------------------------------------------
def within(units: Units, *values: np.ndarray) -> tuple[np.ndarray, ...]:
    """Interval ends (and the EB estimate) kept within [0, 1] where every score is (METHODS 7):
    a mean of such scores cannot leave it, so cutting there never loses coverage nor moves an
    estimate away from the truth, and the cut estimate stays inside its cut interval."""
    if not units.bounded:
        return values
    return tuple(np.clip(v, 0.0, 1.0) for v in values)


def direct_interval(units: Units, *, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson (binary), Student t (continuous with n) or normal (n unknown) intervals."""
    alpha = _alpha(level)
    z = float(stats.norm.ppf(1 - alpha / 2))
    if units.binary and units.k is not None:
        n, k = units.n, units.k
        centre = (k + z * z / 2) / (n + z * z)
        half = z / (n + z * z) * np.sqrt(k * (n - k) / n + z * z / 4)
        return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
    q = np.where(
        np.isfinite(units.n) & (units.n > 1),
        stats.t.ppf(1 - alpha / 2, np.where(units.n > 1, units.n - 1, 1)),
        z,
    )
    return units.direct - q * units.se, units.direct + q * units.se


@dataclass(frozen=True)
class SubgroupResult:
    """Direct (DT), regression (SR) and EB estimates with intervals (METHODS 7).

    ``rows`` has columns :data:`ROW_COLUMNS` (``f`` = SR, ``eb`` with robust interval
    ``low``-``high``, ``w`` shrinkage weight, ``cva`` critical value); the intervals have
    *average* coverage ``level`` over units [AKP] (``alpha = 1 - level``). ``mu2`` is A, the
    prior second moment of ``mu - f`` (``*_raw`` before the finite-sample correction); ``kappa``
    is the kurtosis used (``inf`` when the user drops the kurtosis constraint; ``nan`` when there
    are too few units to estimate it). ``coef`` is the full-data fit (term,
    estimate) and ``r2_cv`` the share of the direct estimates' variance that f explains.
    """

    rows: pd.DataFrame
    mu2: float
    mu2_raw: float
    kappa: float
    kappa_estimated: float
    kappa_raw: float
    level: float
    fs_correction: FsCorrection
    features: tuple[str, ...]
    crossfit: bool
    weights: UnitWeights
    coef: pd.DataFrame
    r2_cv: float
    source: str
    notes: tuple[str, ...]

    @property
    def alpha(self) -> float:
        """``1 - level``, the average non-coverage."""
        return _alpha(self.level)


def _check_options(
    level: float, fs_correction: FsCorrection, kappa: Kappa, weights: UnitWeights
) -> Kappa:
    """Check the options :func:`analyze` and :func:`simulate` share; returns ``kappa``."""
    _alpha(level)
    check_choice(fs_correction, FS_CORRECTIONS, name="fs_correction")
    check_choice(weights, UNIT_WEIGHTS, name="weights")
    return kappa if kappa == "estimated" else _check_kurtosis(kappa)


def _moment_se(units: Units, notes: list[str]) -> np.ndarray:
    """The standard errors A is estimated with (METHODS 7): the measured spread, 0, for a unit
    whose ``se`` is the conservative floor. The floor keeps that unit's own interval honest,
    but in ``mean(eps^2 - se^2)`` it overstates the noise, so A came out near 0 and EB shrank
    every unit onto a regression fitted from a few units (graded scores near 0: 95% intervals
    held the truth in 0.53-0.83 of units). A sample variance is unbiased, 0 included."""
    flat = units.floored
    if flat is None or flat.all():
        return units.se
    notes.append(
        f"A is estimated with the measured spread of the {int(flat.sum())} unit(s) scored the "
        "same on every item (0), not their raised standard error, which would overstate the "
        "noise and shrink every unit too far (METHODS 7)."
    )
    return np.where(flat, 0.0, units.se)


@blas_policy
def analyze(
    units: Units,
    *,
    features: Sequence[str] | None = None,
    level: float = COMPARISON_LEVEL,
    fs_correction: FsCorrection = "PMT",
    kappa: Kappa = "estimated",
    crossfit: bool = True,
    weights: UnitWeights = "equal",
    seed: int = SEED,
) -> SubgroupResult:
    """DT, SR and EB estimates with robust EBCIs for ``units`` (METHODS 7, EBCI.md).

    ``level``: the average coverage of the EB intervals (and the coverage of each direct one).
    ``kappa``: ``"estimated"``, a number >= 1, or ``math.inf`` (second-moment constraint only);
    :func:`~benchuq.core.analyses.subgroups.ebci.parse_kappa` reads it from text. ``weights``:
    ``"equal"`` or ``"precision"`` (for f and the moments).
    """
    kap = _check_options(level, fs_correction, kappa, weights)
    feats = tuple(features) if features else units.default_features
    notes = list(units.notes)
    z, se = units.direct, units.se
    G = len(units)
    dlow, dhigh = within(units, *direct_interval(units, level=level))
    base = {
        "unit": units.unit, "model": units.model, "subgroup": units.subgroup, "n": units.n,
        "direct": z, "direct_low": dlow, "direct_high": dhigh, "se": se,
    }  # fmt: skip
    if weights == "precision" and np.any(se <= 0):
        raise DataError("precision weights need every standard error > 0.", column="se")
    omega = np.ones(G) if weights == "equal" else 1.0 / se**2
    X = design(units, feats)
    full = _wls(X.to_numpy(float), z, omega)
    coef = pd.DataFrame({"term": X.columns, "estimate": np.asarray(full.params)})
    if G < 3:
        notes.append(f"Only {G} unit(s): too few to learn how much to shrink; EB = direct.")
        rows = pd.DataFrame(
            {**base, "f": full.fittedvalues, "eb": z, "low": dlow, "high": dhigh, "w": 1.0,
             "cva": np.nan}
        )  # fmt: skip
        return SubgroupResult(
            rows, math.nan, math.nan, math.nan if kap == "estimated" else kap, math.nan,
            math.nan, level, fs_correction, feats, False, weights, coef, math.nan, units.source,
            tuple(notes),
        )  # fmt: skip
    if np.all(se == 0):
        raise DataError(
            "every standard error is 0, so there is nothing to shrink.",
            column="se",
            hint="check the se column (it should be the standard error of each estimate).",
        )
    P, crossfitted = crossfit_operator(X, omega, crossfit, seed)
    f = P @ z
    if crossfit and not crossfitted:
        notes.append(
            f"Too few units ({G}) for {X.shape[1]} regression columns to cross-fit; f is fitted "
            "on all units (in-sample), which shrinks a little too much."
        )
    checkpoint("The subgroup analysis")
    res = ebci(
        z, se, f, level=level, fs_correction=fs_correction, kappa=kap, weights=omega,
        moment_se=_moment_se(units, notes),
    )  # fmt: skip
    mom = res.moments
    notes.extend(res.notes)
    if np.ptp(z) == 0:
        notes.append("All direct estimates are equal: EB keeps them and only the intervals move.")
    if fs_correction == "PMT" and mom.mu2 > mom.mu2_raw:
        notes.append(
            "A (mu2) is at its PMT floor: the estimates vary no more than sampling noise "
            "explains, so EB shrinks strongly toward the regression."
        )
    kurtosis_plain = mom.kappa_raw * (mom.mu2_raw / mom.mu2) ** 2 if mom.mu2 > 0 else math.inf
    if fs_correction == "PMT" and kap == "estimated" and mom.kappa > kurtosis_plain:
        notes.append("kappa is at its PMT floor (too few units to estimate a kurtosis).")
    ss = float(np.sum(omega * (z - np.average(z, weights=omega)) ** 2))
    r2 = 1.0 - float(np.sum(omega * (z - f) ** 2)) / ss if ss > 0 else math.nan
    cut = within(units, res.estimate, res.low, res.high)  # the EB estimate inside its interval
    rows = pd.DataFrame(
        {
            **base,
            "f": f,
            **dict(zip(("eb", "low", "high"), cut, strict=True)),
            "w": res.w,
            "cva": res.cva,
        }
    )
    return SubgroupResult(
        rows=rows[list(ROW_COLUMNS)],
        mu2=mom.mu2,
        mu2_raw=mom.mu2_raw,
        kappa=res.kappa,
        kappa_estimated=mom.kappa,
        kappa_raw=mom.kappa_raw,
        level=level,
        fs_correction=fs_correction,
        features=feats,
        crossfit=crossfitted,
        weights=weights,
        coef=coef,
        r2_cv=r2,
        source=units.source,
        notes=tuple(notes),
    )

"""The simulation lab of the subgroup estimates ([FPAM] protocol, METHODS 7): the full data taken
as the truth, ``n_per_group`` items per subgroup drawn again and again, and the direct, regression
and empirical-Bayes estimates scored against it (:func:`simulate` -> :class:`LabResult`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchuq.core.analyses.subgroups.ebci import FsCorrection, Kappa, ebci
from benchuq.core.analyses.subgroups.ebci.reference import _alpha
from benchuq.core.analyses.subgroups.estimates import (
    Grouping,
    Units,
    UnitWeights,
    _check_options,
    _mean_se,
    _moment_se,
    _spread_floor,
    binomial_se,
    crossfit_operator,
    design,
    direct_interval,
    units_from_benchmark,
    within,
)
from benchuq.core.data import Benchmark, DataError
from benchuq.core.defaults import COMPARISON_LEVEL, SEED

__all__ = ["LabResult", "simulate"]


@dataclass(frozen=True)
class LabResult:
    """Simulation lab: the full data are the truth; each rep draws ``n_per_group`` items per
    subgroup and estimates by DT, SR and EB.

    ``per_subgroup`` (subgroup, mse_dt, mse_sr, mse_eb, ratio_sr, ratio_eb, cover_dt,
    cover_eb, width_dt, width_eb), averaged over models and reps; ``per_model`` the same by
    model; ``overall`` one row. MSE ratios are MSE(method)/MSE(DT); coverage is the share of
    (unit, rep) whose interval holds the full-data value (EB: average coverage over units).
    ``mean_ratio_eb_by_model`` is the EB/DT MSE ratio averaged over models.
    """

    per_subgroup: pd.DataFrame
    per_model: pd.DataFrame
    overall: pd.DataFrame
    reps: int
    n_per_group: int
    level: float
    mean_ratio_eb_by_model: float
    notes: tuple[str, ...]

    @property
    def alpha(self) -> float:
        """``1 - level``, the average non-coverage."""
        return _alpha(self.level)


def simulate(
    bench: Benchmark,
    *,
    group_by: Grouping = "task",
    n_per_group: int = 10,
    reps: int = 200,
    features: Sequence[str] | None = None,
    level: float = COMPARISON_LEVEL,
    fs_correction: FsCorrection = "PMT",
    kappa: Kappa = "estimated",
    crossfit: bool = True,
    weights: UnitWeights = "equal",
    seed: int = SEED,
    progress: Callable[[int, int], None] | None = None,
) -> LabResult:
    """The [FPAM] protocol (METHODS 7) on ``bench`` taken as the truth.

    Counts: each unit's ``n_per_group`` items are drawn without replacement (hypergeometric from
    its counts; independently across models, as counts do not say which items a model got
    right). Item-level data: the same items of each subgroup are drawn for every model.
    ``progress(done, reps)`` is called after each rep. ``weights`` as in :func:`analyze`; with
    ``"precision"`` each rep refits f with its own ``1/se^2``.
    """
    kap = _check_options(level, fs_correction, kappa, weights)
    if n_per_group < 2:
        raise DataError(f"n_per_group {n_per_group} is too small; use at least 2 items.")
    if reps < 1:
        raise DataError(f"reps {reps} must be at least 1.")
    truth = units_from_benchmark(bench, group_by=group_by)
    rng = np.random.default_rng(seed)
    notes: list[str] = []
    if truth.k is None and bench.kind != "items":
        raise DataError(
            "the simulation lab needs counts or item-level data (the truth must be resampled).",
            hint="load a data set with counts or item scores.",
        )
    draw = (
        _count_sampler(truth, n_per_group)
        if truth.k is not None
        else _item_sampler(bench, group_by, truth, n_per_group)
    )
    small = int(np.sum(truth.n < n_per_group))
    if small:
        notes.append(
            f"{small} unit(s) have fewer than {n_per_group} items; all their items are used."
        )
    G = len(truth)
    if G < 3:
        raise DataError(f"the simulation lab needs at least 3 units, found {G}.")
    X = design(truth, tuple(features) if features else truth.default_features)
    P, _ = crossfit_operator(X, np.ones(G), crossfit, seed)
    sq = {m: np.zeros(G) for m in ("dt", "sr", "eb")}
    cover = {m: np.zeros(G) for m in ("dt", "eb")}
    width = {m: np.zeros(G) for m in ("dt", "eb")}
    defined = np.zeros(G)
    for r in range(reps):
        sample = draw(rng)
        z = sample.direct
        omega = None
        if weights == "precision":
            omega = 1.0 / np.maximum(sample.se, 1e-12) ** 2
            P, _ = crossfit_operator(X, omega, crossfit, seed)
        f = P @ z
        res = ebci(
            z, sample.se, f, level=level, fs_correction=fs_correction, kappa=kap, weights=omega,
            moment_se=_moment_se(sample, []),
        )  # fmt: skip
        eb, low, high = within(sample, res.estimate, res.low, res.high)  # as analyze shows them
        for m, est in (("dt", z), ("sr", f), ("eb", eb)):
            sq[m] += (est - truth.direct) ** 2
        dlow, dhigh = within(sample, *direct_interval(sample, level=level))
        cover["dt"] += (dlow <= truth.direct) & (truth.direct <= dhigh)
        width["dt"] += dhigh - dlow
        if np.all(np.isfinite(res.half_length)):
            cover["eb"] += (low <= truth.direct) & (truth.direct <= high)
            width["eb"] += high - low
            defined += 1
        if progress is not None:
            progress(r + 1, reps)
    if defined[0] < reps:
        notes.append(
            f"In {reps - int(defined[0])} of {reps} reps A was 0 (fs_correction 'none'), so "
            "there was no EB interval; EB coverage and width use the other reps."
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        cover["eb"], width["eb"] = cover["eb"] * reps / defined, width["eb"] * reps / defined
    frame = pd.DataFrame(
        {
            "model": truth.model,
            "subgroup": truth.subgroup,
            **{f"mse_{m}": v / reps for m, v in sq.items()},
            **{f"cover_{m}": v / reps for m, v in cover.items()},
            **{f"width_{m}": v / reps for m, v in width.items()},
        }
    )

    def summarise(by: str | None) -> pd.DataFrame:
        g = frame.groupby(by, sort=False) if by else frame.assign(all="all").groupby("all")
        out = g[[c for c in frame.columns if c not in ("model", "subgroup")]].mean()
        out["ratio_sr"] = out["mse_sr"] / out["mse_dt"]
        out["ratio_eb"] = out["mse_eb"] / out["mse_dt"]
        return out.reset_index()

    per_model = summarise("model")
    return LabResult(
        per_subgroup=summarise("subgroup"),
        per_model=per_model,
        overall=summarise(None).drop(columns="all"),
        reps=reps,
        n_per_group=n_per_group,
        level=level,
        mean_ratio_eb_by_model=float(per_model["ratio_eb"].mean()),
        notes=tuple(notes),
    )


def _with_sample(truth: Units, n: np.ndarray, k: np.ndarray | None, mean: np.ndarray,
                 se: np.ndarray) -> Units:  # fmt: skip
    """A drawn sample as units, its standard errors floored as :func:`analyze`'s (METHODS 7):
    a bounded unit without spread gets the largest SE its scores allow, not 0."""
    if k is not None:
        floored = (k == 0) | (k == n)
    else:
        se, floored = _spread_floor(n, mean, se, truth.bounded, [])
    return Units(
        unit=truth.unit, model=truth.model, subgroup=truth.subgroup, category=truth.category,
        n=n, k=k, direct=mean, se=se, binary=truth.binary, covariates=truth.covariates,
        source=truth.source, bounded=truth.bounded, floored=floored if floored.any() else None,
    )  # fmt: skip


def _count_sampler(truth: Units, n_per_group: int) -> Callable[[np.random.Generator], Units]:
    N = truth.n.astype(np.int64)
    K = np.asarray(truth.k).astype(np.int64)
    draw_n = np.minimum(N, n_per_group)

    def draw(rng: np.random.Generator) -> Units:
        k = rng.hypergeometric(K, N - K, draw_n).astype(float)
        n = draw_n.astype(float)
        return _with_sample(truth, n, k, k / n, binomial_se(k, n))

    return draw


def _item_sampler(
    bench: Benchmark, group_by: str, truth: Units, n_per_group: int
) -> Callable[[np.random.Generator], Units]:
    """Per subgroup a pool of item columns (models x items); draws the same items per model."""
    pools: dict[str, np.ndarray] = {}
    many = len(bench.tasks) > 1
    for t, c, it in zip(bench.tasks, bench.categories, bench.item_tasks or (), strict=True):
        if group_by == "subgroup" and it.subgroup is not None:
            labels = np.array(it.subgroup)
            for g in dict.fromkeys(labels.tolist()):
                name = f"{t}/{g}" if many else str(g)
                pools[name] = it.scores[:, labels == g]
        else:
            key = t if group_by == "task" else c
            pools[key] = (
                np.concatenate([pools[key], it.scores], axis=1) if key in pools else it.scores
            )
    model_index = {m: i for i, m in enumerate(bench.models)}
    rows = np.array([model_index[m] for m in truth.model])

    def draw(rng: np.random.Generator) -> Units:
        n = np.empty(len(truth))
        k = np.empty(len(truth))
        mean = np.empty(len(truth))
        se = np.empty(len(truth))
        for name, pool in pools.items():
            pick = rng.choice(pool.shape[1], size=min(n_per_group, pool.shape[1]), replace=False)
            nn, mm, ss = _mean_se(pool[:, pick])
            sel = np.flatnonzero(np.array(truth.subgroup) == name)
            i = rows[sel]
            n[sel], mean[sel], se[sel] = nn[i], mm[i], ss[i]
            k[sel] = np.nansum(pool[:, pick], axis=1)[i]
        if truth.binary:
            se = binomial_se(k, n)
        # a drawn unit whose items are all missing or constant keeps a usable SE
        se = np.where(np.isfinite(se), se, np.nanmax(se))
        mean = np.where(np.isfinite(mean), mean, np.nanmean(mean))
        return _with_sample(truth, np.maximum(n, 1.0), k if truth.binary else None, mean, se)

    return draw

"""EPP meta-score: Bradley-Terry win probabilities between models (METHODS 8, [EPP]).

Models are players; in every round (a task by default, or an item) each pair of models that both
have a score plays one match: win 1, tie 1/2, loss 0 (scores are negated on lower-is-better
tasks). With ``W_ij`` wins of i over j in ``N_ij`` shared rounds the binomial GLM without
intercept ``logit P(i beats j) = beta_i - beta_j`` is fitted, identified by ``sum_i beta_i = 0``
(so ``invlogit(beta_i)`` is the chance of beating an average player). ``beta_i`` is the EPP
score, in logit units, as in the reference implementation EloML.

Choices where the spec is open:

- The fit works on the aggregated ``(M, M)`` win and match counts: point estimates by iterative
  Luce spectral ranking (ILSR [MG15]: a few linear solves, as fast as choix's and equal to it
  within 1e-8), Newton's method with step halving where a ridge is needed (the Hessian is a
  weighted graph Laplacian); both equal the statsmodels GLM with a +1/-1 design (cross-checked
  in the tests). The covariance under
  ``sum beta = 0`` is the pseudo-inverse of the Fisher information (identical to dropping one
  column and recentring with the delta method).
- Separation: the MLE is finite iff the "won at least half a match against" graph is strongly
  connected. Otherwise the fit adds a ridge penalty ``ridge / 2 * ||beta||^2`` (default 0.01)
  and the models outside the largest strongly connected component are flagged as separated;
  with a single model that wins (or loses) every match, that model is the one flagged; when the
  models form a strict order (no component larger than one model) all are flagged.
- Intervals: ``"glm"`` (z intervals from the GLM's Fisher information; they assume independent
  matches), ``"rounds"`` (cluster-robust sandwich by round: matches in one round share the
  models' scores, which the GLM ignores) and ``"bootstrap"`` (resample rounds, seeded,
  percentile intervals).

Long on purpose: METHODS 8: the EPP model's rounds, its ILSR and Newton solvers and the three
interval methods of one fit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, get_args

import numpy as np
from scipy.special import expit
from scipy.stats import chi2, norm, rankdata

from benchuq.core.analyses.bradley_terry import (
    DEFAULT_RIDGE,
    bradley_terry_mle,
    check_connected,
    fit_bradley_terry,
    separated_mask,
)
from benchuq.core.budget import checkpoint
from benchuq.core.data import Benchmark, DataError
from benchuq.core.defaults import COMPARISON_LEVEL, SEED
from benchuq.core.options import option
from benchuq.core.summaries.ordering import best_first
from benchuq.core.threads import blas_policy
from benchuq.core.validation import check_choice, check_known, check_level, check_reps
from benchuq.core.zero_spread import zero_spread_note

__all__ = [
    "DEFAULT_RIDGE",
    "INTERVALS",
    "ROUNDS",
    "EPPResult",
    "IntervalMethod",
    "PairTest",
    "Rounds",
    "bradley_terry_mle",
    "epp",
    "epp_from_scores",
    "fit_bradley_terry",
    "pair_counts",
    "pair_test",
    "round_scores",
    "separated_mask",
]

Rounds = Literal["tasks", "items"]
IntervalMethod = Literal["glm", "rounds", "bootstrap"]
ROUNDS: tuple[str, ...] = get_args(Rounds)
INTERVALS: tuple[str, ...] = get_args(IntervalMethod)
_CHUNK = 20_000_000  # elements of one broadcast comparison block (about 20 MB of booleans)


@dataclass(frozen=True, eq=False)
class EPPResult:
    """A fitted EPP leaderboard (METHODS 8). Arrays are aligned with ``models``.

    Attributes
    ----------
    models
        model names.
    estimate
        ``(M,)`` EPP ``beta_i`` in logit units, ``sum = 0``.
    se, low, high
        ``(M,)`` standard errors and interval ends at ``level`` (logit units).
    level
        interval level, e.g. 0.95.
    method
        how the intervals were made (``"glm"``, ``"rounds"`` or ``"bootstrap"``).
    cov
        ``(M, M)`` covariance of ``estimate`` used for the Wald tests.
    wins, matches
        ``(M, M)`` ``W_ij`` (ties count 1/2) and ``N_ij`` shared rounds.
    win_probability
        ``(M, M)`` fitted ``P(row beats column) = invlogit(beta_i - beta_j)``.
    wald_p
        ``(M, M)`` two-sided p-values of ``beta_i = beta_j`` (``nan`` on the diagonal).
    deviance, df, p_value
        deviance against the saturated model, its degrees of freedom
        (observed pairs - (M - 1)) and chi-square p-value (``nan`` when ``df = 0``).
    standardized_deviance
        ``(D - df) / sqrt(2 df)``, comparable across leaderboards.
    separated
        models flagged by the separation check (their estimates are ridge-bounded).
    ridge
        the ridge penalty used (0 when the plain MLE exists).
    rounds
        what a round is (``"tasks"``, ``"items"`` or a caller's label).
    n_rounds
        number of rounds with at least one match.
    reps, seed
        bootstrap replicates and seed (0 and ``None`` for other methods).
    replicates
        ``(reps, M)`` bootstrap estimates (``None`` for other methods).
    notes
        caveats to show next to the results.
    """

    models: tuple[str, ...]
    estimate: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float
    method: IntervalMethod
    cov: np.ndarray
    wins: np.ndarray
    matches: np.ndarray
    win_probability: np.ndarray
    wald_p: np.ndarray
    deviance: float
    df: int
    p_value: float
    standardized_deviance: float
    separated: tuple[str, ...]
    ridge: float
    rounds: str
    n_rounds: int
    reps: int = 0
    seed: int | None = None
    replicates: np.ndarray | None = None
    notes: tuple[str, ...] = ()

    def at_level(self, level: float) -> EPPResult:
        """The same fit with intervals at another ``level`` (no refit, no new bootstrap)."""
        check_level(level)
        low, high = _interval(self.estimate, self.se, self.replicates, level)
        return replace(self, low=low, high=high, level=level)

    @property
    def beats_average(self) -> np.ndarray:
        """``(M,)`` ``P(i beats an average model) = invlogit(beta_i)`` (``sum beta = 0``)."""
        return expit(self.estimate)

    @property
    def empirical(self) -> np.ndarray:
        """``(M, M)`` observed win share ``W_ij / N_ij`` (``nan`` where no shared round)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            out = self.wins / self.matches
        np.fill_diagonal(out, np.nan)
        return out

    @property
    def order(self) -> np.ndarray:
        """Model indices from the highest EPP to the lowest (ties by name:
        :func:`core.summaries.ordering.best_first`)."""
        return best_first(self.estimate, self.models)


@dataclass(frozen=True)
class PairTest:
    """Wald test of ``beta_a = beta_b`` and ``P(a beats b)`` with its interval (METHODS 8)."""

    a: str
    b: str
    estimate: float  # beta_a - beta_b, logit units
    se: float
    statistic: float  # z
    p_value: float
    probability: float  # P(a beats b) = invlogit(estimate)
    low: float  # interval of P(a beats b) at level
    high: float
    level: float
    method: IntervalMethod


# ---- rounds and matches ----------------------------------------------------------------------
def round_scores(
    bench: Benchmark, *, rounds: Rounds = "tasks"
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``(M, K)`` scores per round, negated on lower-is-better tasks, and the round labels."""
    check_choice(rounds, ROUNDS, name="round kind")
    sign = np.where(np.asarray(bench.higher_is_better), 1.0, -1.0)
    if rounds == "tasks":
        return bench.estimate * sign, bench.tasks
    if bench.item_tasks is None:
        raise DataError(
            f"'{bench.name}' has no item-level scores, so items cannot be rounds.",
            hint=f"use {option('rounds', 'tasks')}, or load item-level results (one row per model "
            "and item).",
        )
    blocks = [it.scores * s for it, s in zip(bench.item_tasks, sign, strict=True)]
    labels = tuple(
        f"{t}/{i}" for t, it in zip(bench.tasks, bench.item_tasks, strict=True) for i in it.items
    )
    return np.concatenate(blocks, axis=1), labels


@blas_policy
def pair_counts(
    scores: np.ndarray, *, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Wins ``W_ij`` (ties 1/2) and matches ``N_ij`` from ``(M, K)`` scores (``nan`` = absent).

    ``weights`` (``(K,)``, e.g. bootstrap multiplicities) count each round that many times.
    """
    s = np.asarray(scores, float)
    M, K = s.shape
    w = np.ones(K) if weights is None else np.asarray(weights, float)
    present = (~np.isnan(s)).astype(float)
    matches = (present * w) @ present.T
    greater = np.zeros((M, M))
    step = max(1, _CHUNK // max(M * M, 1))
    for k0 in range(0, K, step):
        blk = s[:, k0 : k0 + step]
        gt = blk[:, None, :] > blk[None, :, :]  # nan compares False
        greater += gt @ w[k0 : k0 + step] if weights is not None else gt.sum(axis=2)
    wins = greater + 0.5 * (matches - greater - greater.T)
    np.fill_diagonal(wins, 0.0)
    np.fill_diagonal(matches, 0.0)
    return wins, matches


def _round_robust_cov(
    scores: np.ndarray, beta: np.ndarray, bread: np.ndarray, rounds_used: np.ndarray
) -> np.ndarray:
    """Sandwich covariance clustered by round: ``bread @ sum_k u_k u_k' @ bread * K / (K - 1)``.

    ``u_ik`` = model i's wins in round k (mid-ranks handle ties) minus its expected wins.
    """
    s = scores[:, rounds_used]
    present = ~np.isnan(s)
    ranks = rankdata(np.where(present, s, np.inf), method="average", axis=0)
    won = np.where(present, ranks - 1.0, 0.0)  # wins against the other present models
    p = expit(beta[:, None] - beta[None, :])
    np.fill_diagonal(p, 0.0)
    expected = np.where(present, p @ present, 0.0)
    u = won - expected
    K = s.shape[1]
    meat = u @ u.T * (K / (K - 1))
    return bread @ meat @ bread


def _interval(
    estimate: np.ndarray, se: np.ndarray, replicates: np.ndarray | None, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """z interval ``estimate +- z se``, or the percentile interval of bootstrap replicates."""
    if replicates is not None:
        low, high = np.quantile(replicates, [(1 - level) / 2, (1 + level) / 2], axis=0)
        return low, high
    z = norm.ppf(0.5 + level / 2)
    return estimate - z * se, estimate + z * se


def _deviance(wins: np.ndarray, matches: np.ndarray, prob: np.ndarray) -> tuple[float, int]:
    upper = np.triu(matches > 0, k=1)
    w, n, p = wins[upper], matches[upper], prob[upper]
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(w > 0, w * np.log(w / (n * p)), 0.0)
        b = np.where(n - w > 0, (n - w) * np.log((n - w) / (n * (1 - p))), 0.0)
    return float(2.0 * (a + b).sum()), int(upper.sum())


def _wald_p(estimate: np.ndarray, cov: np.ndarray) -> np.ndarray:
    v = np.diag(cov)
    var = v[:, None] + v[None, :] - (cov + cov.T)  # exactly symmetric
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (estimate[:, None] - estimate[None, :]) / np.sqrt(np.maximum(var, 0.0))
    out = 2 * norm.sf(np.abs(z))
    np.fill_diagonal(out, np.nan)
    return out


def _one_round(what: str, n_rounds: int, rounds: str, source: str | None) -> DataError:
    """The error for fewer than two rounds: how many there are and a fix that applies."""
    return DataError(
        f"{what} at least two rounds; these data give {n_rounds} (rounds = {rounds}).",
        file=source,
        hint=f"choose GLM intervals ({option('interval', 'glm')})"
        + (
            f", or use items as rounds ({option('rounds', 'items')})." if rounds == "tasks" else "."
        ),
    )


@blas_policy
def epp_from_scores(
    scores: np.ndarray,
    models: tuple[str, ...],
    *,
    level: float = COMPARISON_LEVEL,
    interval: IntervalMethod = "rounds",
    reps: int = 1000,
    seed: int | None = SEED,
    ridge: float = DEFAULT_RIDGE,
    rounds: str = "rounds",
    source: str | None = None,
) -> EPPResult:
    """EPP from ``(M, K)`` round scores (higher is better, ``nan`` = absent) (METHODS 8).

    Any round definition works here (tasks, items, cross-validation splits); ``source`` names
    the data in error messages.
    """
    check_level(level)
    check_choice(interval, INTERVALS, name="interval method")
    models = tuple(models)
    scores = np.asarray(scores, float)
    M = len(models)
    if M < 2:
        raise DataError("EPP needs at least two models.", file=source, column="model")
    wins, matches = pair_counts(scores)
    check_connected(
        matches,
        models,
        file=source,
        never="share a round",
        scores="EPP scores",
        column="model",
        hint="drop models without results, or give every model scores on common tasks.",
    )
    used = (~np.isnan(scores)).sum(axis=0) >= 2
    sep = separated_mask(wins, matches)
    pen = ridge if sep.any() else 0.0
    beta, cov = fit_bradley_terry(wins, matches, ridge=pen)
    boot = None
    notes: list[str] = []
    if sep.any():
        notes.append(
            f"{int(sep.sum())} model(s) win or lose every match against the others (separation): "
            f"their EPP would be infinite, so a ridge penalty of {pen:g} keeps it finite; read "
            "their scores and intervals as bounds, not estimates."
        )
    n_rounds = int(used.sum())
    reps_used, seed_used = 0, None
    if interval == "glm":
        notes.append(
            "GLM intervals treat every match as independent; matches in one round share the "
            "models' scores, so they can be too narrow (use the round-robust or bootstrap option)."
        )
    elif interval == "rounds":
        if n_rounds < 2:
            raise _one_round("round-robust intervals need", n_rounds, rounds, source)
        cov = _round_robust_cov(scores, beta, cov, used)
        if n_rounds < 4 * M:
            notes.append(
                f"only {n_rounds} rounds for {M} models: the round-robust standard errors are "
                "themselves uncertain; prefer more rounds (e.g. items) if available."
            )
    else:
        if n_rounds < 2:
            raise _one_round("a bootstrap over rounds needs", n_rounds, rounds, source)
        check_reps(reps, least=50, typical=1000)
        boot = _bootstrap(scores[:, used], reps, seed, ridge, beta)
        cov = np.cov(boot, rowvar=False)
        reps_used, seed_used = reps, seed
        notes.append(f"bootstrap over {n_rounds} rounds, {reps} replicates, seed {seed}.")
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    low, high = _interval(beta, se, boot, level)
    flat = zero_spread_note(  # METHODS 2g
        models,
        se <= 1e-12,
        "every round is a tie (the models score the same on every task or item), so the "
        f"{ {'rounds': 'round-robust', 'glm': 'model-based'}.get(interval, interval) } variance "
        "has nothing to measure; only rounds the models split can",
    )
    notes += [] if flat is None else [flat]
    notes.append(
        "The deviance test compares against a chi-square that assumes independent matches; "
        "with matches from shared rounds it tends to be conservative (deviance below df)."
    )
    prob = expit(beta[:, None] - beta[None, :])
    np.fill_diagonal(prob, np.nan)
    dev, pairs = _deviance(wins, matches, prob)
    df = pairs - (M - 1)
    p_value = float(chi2.sf(dev, df)) if df > 0 else float("nan")
    std_dev = (dev - df) / np.sqrt(2 * df) if df > 0 else float("nan")
    return EPPResult(
        models=models,
        estimate=beta,
        se=se,
        low=np.asarray(low),
        high=np.asarray(high),
        level=level,
        method=interval,
        cov=cov,
        wins=wins,
        matches=matches,
        win_probability=prob,
        wald_p=_wald_p(beta, cov),
        deviance=dev,
        df=df,
        p_value=p_value,
        standardized_deviance=float(std_dev),
        separated=tuple(m for m, s in zip(models, sep, strict=True) if s),
        ridge=pen,
        rounds=rounds,
        n_rounds=n_rounds,
        reps=reps_used,
        seed=seed_used,
        replicates=boot,
        notes=tuple(notes),
    )


def _bootstrap(
    scores: np.ndarray, reps: int, seed: int | None, ridge: float, start: np.ndarray
) -> np.ndarray:
    """``(reps, M)`` EPP refitted on rounds resampled with replacement (ridge if separated)."""
    rng = np.random.default_rng(seed)
    K = scores.shape[1]
    out = np.empty((reps, scores.shape[0]))
    for r in range(reps):
        checkpoint("the EPP bootstrap")  # the session that asked may have closed (core.budget)
        w = rng.multinomial(K, np.full(K, 1.0 / K)).astype(float)
        wins, matches = pair_counts(scores, weights=w)
        sep = separated_mask(wins, matches)
        # a model absent from every drawn round has no matches: the ridge keeps it at 0
        pen = ridge if (sep.any() or np.any(matches.sum(axis=1) == 0)) else 0.0
        out[r] = bradley_terry_mle(wins, matches, ridge=pen, tol=1e-8, start=start)
    return out


@blas_policy
def epp(
    bench: Benchmark,
    *,
    rounds: Rounds = "tasks",
    level: float = COMPARISON_LEVEL,
    interval: IntervalMethod = "rounds",
    reps: int = 1000,
    seed: int | None = SEED,
    ridge: float = DEFAULT_RIDGE,
) -> EPPResult:
    """EPP leaderboard of a benchmark, rounds = tasks (default) or items (METHODS 8)."""
    scores, _ = round_scores(bench, rounds=rounds)
    try:
        return epp_from_scores(
            scores,
            bench.models,
            level=level,
            interval=interval,
            reps=reps,
            seed=seed,
            ridge=ridge,
            rounds=rounds,
        )
    except DataError as err:  # the data set is not a file: its name says which data it is
        if err.file is not None or err.data is not None:
            raise
        raise DataError(
            err.message, data=bench.name, row=err.row, column=err.column, hint=err.hint
        ) from None


def pair_test(result: EPPResult, a: str, b: str) -> PairTest:
    """Wald test of ``beta_a = beta_b`` with ``P(a beats b)`` and its interval (METHODS 8)."""
    check_known((a, b), result.models, what="models")
    i, j = result.models.index(a), result.models.index(b)
    c = result.cov
    diff = float(result.estimate[i] - result.estimate[j])
    se = float(np.sqrt(max(c[i, i] + c[j, j] - 2 * c[i, j], 0.0)))
    z = diff / se if se > 0 else float("nan")
    p = float(2 * norm.sf(abs(z))) if se > 0 else float("nan")
    q = norm.ppf(0.5 + result.level / 2)
    return PairTest(
        a=a,
        b=b,
        estimate=diff,
        se=se,
        statistic=z,
        p_value=p,
        probability=float(expit(diff)),
        low=float(expit(diff - q * se)),
        high=float(expit(diff + q * se)),
        level=result.level,
        method=result.method,
    )

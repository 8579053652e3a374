"""Draws: :func:`bootstrap`, :func:`bayes` (METHODS 2, 6) and :func:`normalize` (METHODS 3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from benchuq.api.options import Overall
from benchuq.core.defaults import (
    BAYES_CHAINS,
    BAYES_DRAWS,
    BAYES_WARMUP,
    COMPARISON_LEVEL,
    REPS,
    SEED,
)
from benchuq.core.validation import InvalidArgument, check_choice, check_types
from benchuq.results import BayesModelResult

if TYPE_CHECKING:
    from benchuq.core.data import Benchmark
    from benchuq.core.draws import Draws
    from benchuq.core.methods.bayes.result import BayesFit

__all__ = ["bayes", "bayes_model", "bootstrap", "normalize", "with_headline"]


def with_headline(draws: Draws, bench: Benchmark, overall: Overall) -> Draws:
    """``draws`` whose "overall" is the headline aggregate of ``bench`` (``core.summaries.
    headline``: the lm-eval groups of its context as benchmarks for files that have them, else
    the task mean)."""
    from benchuq.core.summaries.headline import headline

    return draws.with_headline(headline(bench, groups=bench.context.groups, overall=overall))


def bootstrap(
    bench: Benchmark,
    *,
    reps: int = REPS,
    seed: int = SEED,
    overall: Overall = "auto",
    statistic: str = "mean",
) -> Draws:
    """Bootstrap draws of per-task performance, the engine chosen by the data (METHODS 2).

    Item-level data: the paired item bootstrap (all models resampled on the same items; clusters
    kept); counts: task-level confidence draws; estimate/se: normal draws.

    Parameters
    ----------
    bench
        The data (:func:`load`, :func:`from_frame`).
    reps
        Replicates (at least 1; 2000 is typical, 1000 or more for 95% intervals).
    seed
        Random seed.
    overall
        What the group "overall" stands for: ``"auto"`` (lm-eval's groups as benchmarks when
        the files :func:`load` read have them, else the mean over tasks), ``"benchmarks"`` or
        ``"tasks"`` (as ``--overall``).
    statistic
        What each item scores when it holds several answers (METHODS 2e): ``"mean"``,
        ``"pass@K"`` or ``"pass^K"`` (as :func:`load`'s; data already scored keep theirs).

    Returns
    -------
    Draws
        ``values`` ``(reps, models, tasks)``, with method, seed and notes.

    Raises
    ------
    InvalidArgument
        ``reps`` not a whole number >= 1, or over the replicate cap (``core.budget``).

    Examples
    --------
    >>> import benchuq as bq
    >>> d = bq.bootstrap(bq.load("sample:vtab1k"), reps=200, seed=1)
    >>> d.values.shape
    (200, 16, 19)
    """
    check_types(locals())
    from benchuq.core.budget import check_cap, check_cells
    from benchuq.core.item_statistic import parse_statistic, per_item
    from benchuq.core.methods.bootstrap import bootstrap as _bootstrap

    stat = parse_statistic(statistic)
    if isinstance(reps, bool) or not isinstance(reps, int | np.integer) or reps < 1:
        raise InvalidArgument(
            f"reps must be a whole number >= 1, got {reps!r}.", hint="2000 is typical."
        )
    check_cap("reps", int(reps), flag="reps")
    check_cells(int(reps), len(bench.models), len(bench.tasks))
    bench = per_item(bench, stat)
    return with_headline(_bootstrap(bench, reps=int(reps), seed=seed), bench, overall)


def bayes(
    bench: Benchmark,
    *,
    priors: Sequence[str] | Mapping[str, Any] | None = None,
    chains: int = BAYES_CHAINS,
    draws: int = BAYES_DRAWS,
    warmup: int = BAYES_WARMUP,
    seed: int = SEED,
    sampler: Literal["imh", "gibbs"] = "imh",
    interval: Literal["parameter", "predictive"] = "parameter",
    overall: Overall = "auto",
) -> Draws:
    """Posterior draws of the Bayesian hierarchical model (METHODS 6; counts data).

    Parameters
    ----------
    bench
        Counts data (``n`` and ``correct`` per model and task).
    priors
        Prior specs as on the command line (``["*:a=gamma(2,0.01),b=gamma(2,0.01)"]``), or a
        ``{model: ModelPrior}`` mapping (``core.methods.bayes.priors``); default
        ``exponential(1e-4)``.
    chains, draws, warmup
        MCMC chains, kept draws per chain, warm-up sweeps per chain.
    seed
        Random seed.
    sampler
        ``"imh"`` (independence Metropolis-Hastings, fast) or ``"gibbs"``; same posterior.
    interval
        ``"parameter"`` (theta) or ``"predictive"`` (k/n of a fresh test set of the same size).
    overall
        What the group "overall" stands for (as :func:`bootstrap`'s ``overall``).

    Returns
    -------
    Draws
        ``chains * draws`` posterior draws; convergence warnings are in ``notes``.

    Examples
    --------
    >>> import benchuq as bq
    >>> d = bq.bayes(bq.load("sample:toy"), chains=2, draws=200, warmup=100, seed=0)
    >>> d.values.shape
    (400, 2, 3)
    """
    check_types(locals())
    from benchuq.core.reading.answers import answer_counts

    check_choice(interval, ("parameter", "predictive"), name="interval")
    result = _fit(bench, priors, chains, draws, warmup, seed, sampler)
    posterior = result.to_draws(kind=interval)
    posterior = replace(posterior, data=bench.name, counts=answer_counts(bench))
    return with_headline(posterior, bench, overall)


def normalize(
    draws: Draws,
    *,
    mode: Literal["minmax", "paper", "chance"] = "minmax",
    chance: np.ndarray | Sequence[float] | None = None,
) -> Draws:
    """Per-task normalized draws (METHODS 3): ``(x - low) / (high - low)``.

    ``mode``: ``"minmax"`` (observed min/max over models, chance level as low where given),
    ``"paper"`` (min/max over models and replicates, as [LGC]) or ``"chance"``
    (``(x - chance) / (1 - chance)``); ``chance`` per task, e.g. ``bench.chance``.

    Examples
    --------
    >>> import benchuq as bq
    >>> bench = bq.load("sample:vtab1k")
    >>> bq.normalize(bq.bootstrap(bench, reps=100), chance=bench.chance).normalization
    'minmax'
    """
    check_types(locals())
    from benchuq.core.summaries.normalization import normalize as _normalize

    return _normalize(draws, mode=mode, chance=None if chance is None else np.asarray(chance))


def _fit(
    bench: Benchmark,
    priors: Sequence[str] | Mapping[str, Any] | None,
    chains: int,
    draws: int,
    warmup: int,
    seed: int,
    sampler: Literal["imh", "gibbs"],
) -> BayesFit:
    """The hierarchical model fitted with the options of :func:`bayes` (checked here once)."""
    from benchuq.core.defaults import BAYES_MIN_DRAWS
    from benchuq.core.methods.bayes.model import fit
    from benchuq.core.methods.bayes.priors import parse_prior_specs

    check_choice(sampler, ("imh", "gibbs"), name="sampler")
    if chains < 1 or draws < BAYES_MIN_DRAWS or warmup < 0:
        raise InvalidArgument(
            f"chains {chains}, draws {draws}, warmup {warmup}: use chains >= 1 (4 recommended), "
            f"draws >= {BAYES_MIN_DRAWS} (2000 typical) and warmup >= 0 (1000 typical)."
        )
    if priors is None or isinstance(priors, Mapping):
        parsed = None if priors is None else dict(priors)
    else:
        parsed = parse_prior_specs(list(priors), bench.models)
    return fit(
        bench, priors=parsed, chains=chains, draws=draws, warmup=warmup, seed=seed, sampler=sampler
    )


def bayes_model(
    bench: Benchmark,
    *,
    level: float = COMPARISON_LEVEL,
    priors: Sequence[str] | Mapping[str, Any] | None = None,
    chains: int = BAYES_CHAINS,
    draws: int = BAYES_DRAWS,
    warmup: int = BAYES_WARMUP,
    seed: int = SEED,
    sampler: Literal["imh", "gibbs"] = "imh",
    interval: Literal["parameter", "predictive"] = "parameter",
) -> BayesModelResult:
    """The Bayesian hierarchical model with its diagnostics, as ``benchuq bayes`` (METHODS 6).

    The options are :func:`bayes`'s; ``level`` is the credible level of the posterior
    leaderboard (overall and per category; the overall score is the mean over tasks).

    Returns
    -------
    BayesModelResult
        The fit (R-hat, ESS, priors, hyperparameters) and its leaderboard; ``payload()`` is
        ``benchuq bayes --json``.

    Examples
    --------
    >>> import benchuq as bq
    >>> m = bq.bayes_model(bq.load("sample:toy"), chains=2, draws=200, warmup=100)
    >>> m.fit.rhat_max < 1.1
    True
    """
    check_types(locals())
    from benchuq.api.scores import leaderboard

    check_choice(interval, ("parameter", "predictive"), name="interval")
    result = _fit(bench, priors, chains, draws, warmup, seed, sampler)
    posterior = replace(result.to_draws(kind=interval), data=bench.name)
    board = leaderboard(posterior, level=level)
    return BayesModelResult(result, board, interval, bench.notes)

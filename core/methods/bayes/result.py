"""The Bayesian fit's result (:class:`BayesFit`: draws, diagnostics, shrinkage) and the
settings shared by the fit and the samplers (METHODS 6; the model is described in
``core.methods.bayes.model``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict, get_args

import numpy as np
import pandas as pd
from scipy import stats

from benchuq.core.data import Benchmark, DataError
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.draws import Draws
from benchuq.core.methods.bayes import diagnostics
from benchuq.core.methods.bayes.priors import ModelPrior
from benchuq.core.threads import blas_policy
from benchuq.core.validation import check_choice

__all__ = [
    "METHOD_NAMES",
    "MIN_ACCEPT",
    "BayesFit",
    "DrawKind",
    "Sampler",
    "counts_of",
]


BOUND = 30.0  # |eta|, |lambda| limit of the slice coordinates
MIN_ACCEPT = 0.2  # below this acceptance rate (any chain) a model falls back to the Gibbs sampler
Sampler = Literal["imh", "gibbs"]
DrawKind = Literal["parameter", "predictive"]
METHOD_NAMES: dict[DrawKind, str] = {
    "parameter": "Bayesian hierarchical (parameter)",
    "predictive": "Bayesian hierarchical (posterior predictive)",
}


@dataclass(frozen=True, eq=False)
class BayesFit:
    """Posterior draws of the hierarchical model and their convergence diagnostics.

    Attributes
    ----------
    models, tasks, categories, higher_is_better
        labels of the data fitted.
    n, k
        ``(M, T)`` items and correct answers; ``present``: ``(M, T)`` cells with data.
    a, b
        ``(chains, draws, M)`` posterior draws of the Beta parameters.
    theta
        ``(chains, draws, M, T)`` posterior draws of per-task accuracy (proportions);
        ``nan`` where ``present`` is False.
    priors
        the prior of each model (aligned with ``models``).
    chains, draws, warmup, thin, seed
        run settings (``draws`` = kept draws per chain).
    diagnostics
        one row per quantity: ``parameter`` (``a``, ``b``, ``theta``, ``mean`` =
        mean of theta over the model's tasks), ``model``, ``task`` (empty for a, b, mean),
        ``mean``, ``sd``, ``rhat``, ``ess_bulk``, ``ess_tail``.
    seconds
        wall time of the sampler (excluding diagnostics).
    sampler
        ``"imh"`` or ``"gibbs"`` (see :func:`fit`).
    acceptance
        ``(M,)`` mean acceptance rate of the independence MH step after warm-up per
        model (``nan`` for models fitted by the Gibbs sampler); ``None`` for ``"gibbs"``.
    """

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    categories: tuple[str, ...]
    higher_is_better: np.ndarray
    n: np.ndarray
    k: np.ndarray
    present: np.ndarray
    a: np.ndarray
    b: np.ndarray
    theta: np.ndarray
    priors: tuple[ModelPrior, ...]
    chains: int
    draws: int
    warmup: int
    thin: int
    seed: int
    diagnostics: pd.DataFrame
    seconds: float
    sampler: Sampler = "gibbs"
    acceptance: np.ndarray | None = None

    @property
    def rhat_max(self) -> float:
        """Largest R-hat over all parameters (warn above 1.01)."""
        return float(self.diagnostics["rhat"].max())

    @property
    def ess_bulk_min(self) -> float:
        """Smallest bulk effective sample size over all parameters."""
        return float(self.diagnostics["ess_bulk"].min())

    @property
    def ess_tail_min(self) -> float:
        """Smallest tail effective sample size over all parameters."""
        return float(self.diagnostics["ess_tail"].min())

    @property
    def warnings(self) -> tuple[str, ...]:
        """Convergence warnings a user should read (R-hat > 1.01, bulk or tail ESS < 100)."""
        d = self.diagnostics
        out = []
        bad = d[d["rhat"] > diagnostics.RHAT_WARN]
        if len(bad):
            worst = bad.loc[bad["rhat"].idxmax()]
            out.append(
                f"R-hat above {diagnostics.RHAT_WARN} for {_quantities(len(bad))} (worst "
                f"{_label(worst)}: {worst['rhat']:.3f}); the chains have not converged — run "
                "more warm-up and samples, or check the priors."
            )
        low = d[np.minimum(d["ess_bulk"], d["ess_tail"]) < 100]
        if len(low):
            out.append(
                f"effective sample size below 100 for {_quantities(len(low))}; interval ends are "
                "imprecise — run more samples."
            )
        return tuple(out)

    def posterior_mean(self) -> np.ndarray:
        """``(M, T)`` posterior mean of theta (``nan`` where there is no data)."""
        return self.theta.mean(axis=(0, 1))

    def to_draws(self, *, kind: DrawKind = "parameter") -> Draws:
        """Posterior draws as :class:`core.draws.Draws`, ``R = chains x draws``.

        ``kind="parameter"``: values are theta. ``kind="predictive"``: values are ``k~ / n`` with
        ``k~ ~ Binomial(n, theta)`` (the posterior predictive of a fresh test set of the same size,
        [LGC] Table 7), drawn with a generator seeded by ``(seed, 1)`` so it is reproducible.

        **Choice.** ``Draws.observed`` is the posterior mean of theta for both kinds (as
        :class:`Draws` documents for Bayes), so Bayesian leaderboards centre on the shrunken
        estimate; the direct estimate ``k / n`` is in :meth:`direct`. ``paired=True``: the draws
        are one joint posterior.
        """
        check_choice(kind, get_args(DrawKind), name="kind of draws")
        c, d, m, t = self.theta.shape
        theta = self.theta.reshape(c * d, m, t)
        if kind == "predictive":
            rng = np.random.default_rng([self.seed, 1])
            p = np.where(self.present, theta, 0.5)
            values = rng.binomial(self.n, p) / np.where(self.present, self.n, 1)
            values = np.where(self.present, values, np.nan)
        else:
            values = theta.copy()
        notes = [f"priors: {_prior_text(self)}", *self.warnings]
        items = np.where(self.present, self.n, 0).astype(float)
        return Draws(
            values=values,
            observed=self.posterior_mean(),
            models=self.models,
            tasks=self.tasks,
            categories=self.categories,
            higher_is_better=self.higher_is_better,
            method=METHOD_NAMES[kind],
            paired=True,
            seed=self.seed,
            notes=tuple(notes),
            items=items,
            counts=(items, items),  # counts: one answer per item
        )

    def direct(self) -> np.ndarray:
        """``(M, T)`` direct estimates ``k / n`` (``nan`` where there is no data)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.present, self.k / self.n, np.nan)

    def shrinkage(self, model: str, *, level: float = COMPARISON_LEVEL) -> pd.DataFrame:
        """Direct vs posterior estimate of each task of ``model`` (METHODS 6, shrinkage).

        Columns: ``task``, ``category``, ``n``, ``direct`` (``k / n``) with its exact
        Clopper-Pearson interval ``direct_low``, ``direct_high``; ``posterior`` (mean of theta)
        with the central credible interval ``posterior_low``, ``posterior_high``; ``grand_mean``
        (posterior mean of ``a / (a + b)``, the point small tasks move toward). Tasks without data
        are left out.
        """
        i = self.models.index(model)
        keep = np.flatnonzero(self.present[i])
        k, n = self.k[i, keep], self.n[i, keep]
        alpha = (1.0 - level) / 2.0
        theta = self.theta[:, :, i, keep].reshape(-1, keep.size)
        lo, hi = np.quantile(theta, [alpha, 1.0 - alpha], axis=0)
        return pd.DataFrame(
            {
                "task": [self.tasks[j] for j in keep],
                "category": [self.categories[j] for j in keep],
                "n": n,
                "direct": k / n,
                "direct_low": np.where(k > 0, stats.beta.ppf(alpha, k, n - k + 1), 0.0),
                "direct_high": np.where(k < n, stats.beta.ppf(1 - alpha, k + 1, n - k), 1.0),
                "posterior": theta.mean(axis=0),
                "posterior_low": lo,
                "posterior_high": hi,
                "grand_mean": float((self.a[..., i] / (self.a[..., i] + self.b[..., i])).mean()),
            }
        )


def _quantities(n: int) -> str:
    return "1 quantity" if n == 1 else f"{n} quantities"


def _label(row: pd.Series) -> str:
    if row["task"]:
        return f"{row['parameter']}[{row['model']}, {row['task']}]"
    return f"{row['parameter']}[{row['model']}]"


def _prior_text(fit: BayesFit) -> str:
    texts = {str(p) for p in fit.priors}
    if len(texts) == 1:
        return f"every model {texts.pop()}"
    return "; ".join(f"{m}: {p}" for m, p in zip(fit.models, fit.priors, strict=True))


def counts_of(bench: Benchmark) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n, k, present)`` of a benchmark with a binary metric; else :class:`DataError`."""
    if bench.n is None or bench.correct is None:
        raise DataError(
            f"the Bayesian model needs counts of correct answers (a binary metric), but "
            f"'{bench.name}' holds {bench.kind} data.",
            hint="use the bootstrap for non-binary metrics, or load item-level 0/1 scores or "
            "task counts n and correct.",
        )
    present = ~np.isnan(bench.estimate) & (np.asarray(bench.n) > 0)
    return np.asarray(bench.n, np.int64), np.asarray(bench.correct, np.int64), present


@blas_policy
class _SamplerSettings(TypedDict):
    """The settings :func:`fit` passes to both samplers."""

    chains: int
    draws: int
    warmup: int
    thin: int
    rng: np.random.Generator

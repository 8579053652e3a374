"""Bayesian model page: its settings (as they travel in the link), labels and tables (pure).

``BayesSettings`` are the run settings of the model (METHODS 6); with ``method=bayes`` they change
the draws of every page, so they are part of every cache key of Bayesian draws.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from benchuq.api import summaries as summaries
from benchuq.api.summaries import BayesFit, ModelPrior
from benchuq.core.defaults import BAYES_CHAINS, BAYES_WARMUP
from benchuq.core.draws import Draws
from benchuq.presentation.state import PRIOR_SEPARATOR, link

KIND_LABELS = {
    "parameter": "Parameter θ (true accuracy on the task)",
    "predictive": "Posterior predictive k̃/n (a fresh test set of the same size)",
}
SAMPLER_LABELS = {
    "imh": "Independence Metropolis-Hastings (default)",
    "gibbs": "Gibbs with slice steps (METHODS 6)",
}
EXAMPLE = {"exponential": "1e-4", "normal": "2000, 10", "gamma": "2, 0.01"}
ALL = "*"  # the prior editor's "all models"
PARTS = {"a and b": ("a", "b"), "a": ("a",), "b": ("b",)}
SOURCES = (
    ("bootstrap", "Bootstrap (percentile)"),
    ("parameter", "Bayesian: parameter θ"),
    ("predictive", "Bayesian: posterior predictive"),
)


@dataclass(frozen=True)
class BayesSettings:
    """Run settings of the Bayesian model; ``priors`` are ``core.methods.bayes.priors`` spec
    strings."""

    priors: tuple[str, ...] = link(
        "priors",
        (),
        "prior specs as for `--prior`, separated by `;`, e.g. `*:a=normal(50,5),b=normal(50,5)` "
        "(default: exponential(1e-4) on a and b)",
        data=True,
        sep=PRIOR_SEPARATOR,
    )
    chains: int = link("chains", BAYES_CHAINS, "MCMC chains", bounds=(1, 8))
    warmup: int = link("warmup", BAYES_WARMUP, "warm-up sweeps per chain", bounds=(0, 10000))
    interval: Literal["parameter", "predictive"] = link(
        "interval", "parameter", "what Bayesian intervals are for", choices=tuple(KIND_LABELS)
    )
    sampler: Literal["imh", "gibbs"] = link(
        "sampler", "imh", "MCMC sampler", choices=tuple(SAMPLER_LABELS)
    )

    def key(self) -> str:
        """Return a canonical string of the settings (joins the cache keys of Bayesian draws)."""
        return json.dumps(
            [list(self.priors), self.chains, self.warmup, self.interval, self.sampler]
        )

    @classmethod
    def from_key(cls, key: str) -> BayesSettings:
        """Return the settings of :meth:`key`'s string."""
        priors, chains, warmup, interval, sampler = json.loads(key)
        return cls(tuple(priors), int(chains), int(warmup), interval, sampler)


@dataclass(frozen=True)
class BayesView:
    """What the Bayesian page shows: the model of the trace, rank and shrinkage plots."""

    model: str = link("bayes_model", "", "model of the trace, rank and shrinkage plots", data=True)


def prior_spec(scope: str, which: str, family: str, text: str) -> str:
    """Return the spec of the prior editor's choice, e.g. ``*:a=normal(50,5),b=normal(50,5)``."""
    value = f"{family}({text.strip() or EXAMPLE[family]})"
    return f"{scope}:" + ",".join(f"{p}={value}" for p in PARTS[which])


def priors_table(priors: Mapping[str, ModelPrior]) -> pd.DataFrame:
    """One row per model: its priors on ``a`` and ``b``."""
    return pd.DataFrame(
        {
            "model": list(priors),
            "a": [str(p.a) for p in priors.values()],
            "b": [str(p.b) for p in priors.values()],
        }
    )


def sampler_note(fit: BayesFit) -> str:
    """Which sampler ran and, for independence MH, its acceptance rates."""
    if fit.acceptance is None:
        return "Sampler: Gibbs (conjugate θ, slice steps for a and b)."
    acc = fit.acceptance
    done = acc[~np.isnan(acc)]
    text = "Sampler: independence Metropolis-Hastings"
    if done.size:
        text += (
            f"; acceptance rate after warm-up min {done.min():.0%}, median {np.median(done):.0%}"
        )
    fallback = int(np.isnan(acc).sum())
    if fallback:
        text += f"; {fallback} model(s) with low acceptance refitted by the Gibbs sampler"
    return text + "."


def interval_comparison(
    draws: Mapping[str, Draws], models: Sequence[str], level: float
) -> pd.DataFrame:
    """Overall-score intervals per source (``{kind: draws}``, kinds as in :data:`SOURCES`).

    Columns ``model, kind, label, estimate, low, high``.
    """
    rows = []
    for kind, label in SOURCES:
        table = summaries.leaderboard_table(draws[kind].select_models(list(models)), level=level)
        part = table[table["group"] == "overall"].assign(kind=kind, label=label)
        rows.append(part[["model", "kind", "label", "estimate", "low", "high"]])
    return pd.concat(rows, ignore_index=True)


def interval_table(both: pd.DataFrame, scale: float) -> pd.DataFrame:
    """:func:`interval_comparison` as one row per model, ``"<source>: low/high"`` columns."""
    wide = both.pivot(index="model", columns="label", values=["low", "high"])
    wide.columns = [f"{label}: {end}" for end, label in wide.columns]
    return (wide * scale).reset_index()

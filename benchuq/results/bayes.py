"""The Bayesian hierarchical model and its diagnostics (``bq.bayes_model``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from benchuq.deprecation import deprecated_names
from benchuq.results.base import Result, clean
from benchuq.results.leaderboard import LeaderboardResult

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.draws import Draws
    from benchuq.core.methods.bayes.result import BayesFit

__all__ = ["BayesModelResult"]


@dataclass(frozen=True, repr=False, eq=False)
class BayesModelResult(Result):
    """The Bayesian hierarchical model with its diagnostics (``bq.bayes_model``, METHODS 6).

    Attributes
    ----------
    fit
        The core fit (``core.methods.bayes.result.BayesFit``: posterior draws, diagnostics).
    board
        The posterior leaderboard (posterior means, credible intervals).
    interval
        ``"parameter"`` or ``"predictive"``.
    data_notes
        The data's notes (the JSON's ``notes`` lead with them).
    """

    fit: BayesFit
    board: LeaderboardResult
    interval: str
    data_notes: tuple[str, ...] = ()
    ROW_KEYS: ClassVar[tuple[str, ...]] = (
        "model", "group", "estimate", "low", "high", "items", "few_items", "n_items", "n_answers",
    )  # fmt: skip

    @property
    def draws(self) -> Draws:
        """The posterior draws summarised."""
        return self.board.draws

    @property
    def acceptance_min(self) -> float | None:
        """Lowest per-model acceptance rate of the independence sampler (``None`` for Gibbs, or
        when every model fell back to it)."""
        acc = self.fit.acceptance
        if acc is None or np.isnan(acc).all():
            return None
        return float(np.nanmin(acc))

    def meta(self) -> dict[str, Any]:
        """Method, level, interval kind and the sampler's settings."""
        f = self.fit
        return {
            "method": self.draws.method,
            "level": self.board.level,
            "interval": self.interval,
            "chains": f.chains,
            "draws": f.draws,
            "warmup": f.warmup,
            "seed": f.seed,
            "sampler": f.sampler,
        }

    def payload(self, *, timings: bool = False) -> dict[str, Any]:
        """``benchuq bayes --json`` (``timings``: add ``diagnostics.sampler_seconds``)."""
        from benchuq.core.defaults import COMPARISON_LEVEL
        from benchuq.core.methods.bayes.priors import format_prior_specs

        f, diag = self.fit, self.fit.diagnostics
        hyper = diag[diag["parameter"].isin(["a", "b"])].pivot(
            index="model", columns="parameter", values=["mean", "sd", "rhat"]
        )
        priors = dict(zip(f.models, f.priors, strict=True))
        doc = {
            "method": self.draws.method,
            "level": self.board.level,
            "level_default": COMPARISON_LEVEL,
            "interval": self.interval,
            "settings": {
                "chains": f.chains,
                "draws": f.draws,
                "warmup": f.warmup,
                "seed": f.seed,
                "sampler": f.sampler,
            },
            "priors": {m: {"a": str(p.a), "b": str(p.b)} for m, p in priors.items()},
            "prior_specs": format_prior_specs(priors),
            "rows": self._rows(),
            "diagnostics": {
                "rhat_max": f.rhat_max,
                "ess_bulk_min": f.ess_bulk_min,
                "ess_tail_min": f.ess_tail_min,
                "warnings": list(f.warnings),
                "acceptance_min": self.acceptance_min,
            }
            | ({"sampler_seconds": f.seconds} if timings else {}),
            "hyperparameters": [
                {
                    "model": m,
                    "a_mean": hyper.loc[m, ("mean", "a")],
                    "b_mean": hyper.loc[m, ("mean", "b")],
                    "a_sd": hyper.loc[m, ("sd", "a")],
                    "b_sd": hyper.loc[m, ("sd", "b")],
                    "rhat_a": hyper.loc[m, ("rhat", "a")],
                    "rhat_b": hyper.loc[m, ("rhat", "b")],
                }
                for m in f.models
            ],
            "notes": list(self.data_notes) + list(self.draws.notes),
        }
        return clean(doc)

    def _rows(self) -> list[dict[str, Any]]:
        return self.board.table[list(self.ROW_KEYS)].to_dict("records")

    def figure(self, *, group: str = "overall") -> go.Figure:
        """The posterior leaderboard's forest plot."""
        return self.board.figure(group=group)


if not TYPE_CHECKING:  # the old name, for one release (issue 41)
    __getattr__ = deprecated_names(
        __name__, {"BayesModel": ("BayesModelResult", "benchuq.results")}, globals()
    )

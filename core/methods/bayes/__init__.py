"""The Bayesian hierarchical beta-binomial model (METHODS 6).

:mod:`.model` (``fit`` -> ``BayesFit`` -> ``to_draws``), :mod:`.imh` (the independence
Metropolis–Hastings sampler), :mod:`.priors` (prior specs) and :mod:`.diagnostics` (R-hat, ESS).
"""

from benchuq.core.methods.bayes.diagnostics import ess_bulk, ess_tail, rhat
from benchuq.core.methods.bayes.model import METHOD_NAMES, BayesFit, fit
from benchuq.core.methods.bayes.priors import (
    DEFAULT_PRIOR,
    FAMILIES,
    ModelPrior,
    Prior,
    format_prior_specs,
    parse_prior,
    parse_prior_specs,
)

__all__ = [
    "DEFAULT_PRIOR",
    "FAMILIES",
    "METHOD_NAMES",
    "BayesFit",
    "ModelPrior",
    "Prior",
    "ess_bulk",
    "ess_tail",
    "fit",
    "format_prior_specs",
    "parse_prior",
    "parse_prior_specs",
    "rhat",
]

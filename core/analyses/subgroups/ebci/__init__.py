"""Robust empirical-Bayes confidence intervals [AKP] (METHODS 7; the algorithm of EBCI.md).

Units are in the scale of the estimates. ``t`` is the squared normalized bias ``b^2``, ``chi`` a
critical value, ``m2`` the second moment of ``b`` (``sigma^2 / mu2``) and ``kappa`` its kurtosis.

Three ways to the critical value, all the same function, one module each (``reference``,
``vectorised``, ``tabulated``; the estimator in ``estimator``):

- :func:`cva` (with :func:`_r` ... :func:`rho`) follows EBCI.md sections 3-5 step by step on
  Python floats (``math.erfc``); it is the reference that reproduces TV1.
- :func:`cva_v` solves many ``m2`` at once with the same steps and shortcuts, vectorised: the
  roots by safeguarded Newton with analytic derivatives in ``chi`` (envelope theorem); ``t0``
  (a function of ``chi`` alone) from a table built once per process; the kurtosis-binding
  ``rho`` on the primal side (a two-point least-favourable distribution; equal to the dual by
  LP duality), maximised by Newton's method warm-started across steps and checked by a search
  at the root. It agrees with :func:`cva` to about 1e-10 (tested to 1e-8 relative over random
  ``kappa``, ``alpha`` and ``m2`` from 1e-5 to 1e5).
- :func:`cva_table` tabulates the pieces of :func:`cva` (``cv_inf``, the step-2 gap and the
  kurtosis-bound root) on an even grid in ``log m2``, interpolates each by local quintics and
  combines them as the spec does, so its step-2 jump needs no direct solve; every interval is
  checked at its midpoint, and values in intervals that miss by more than 2e-7 (kinks, the
  step-1 jump) are computed directly. Measured error against :func:`cva`: <= 2e-7
  (``benchmarks/bench_ebci.py``).

Choices where the spec is open:

- ``CVb(B, alpha)`` for ``B < 10`` is the root of ``_r(B^2, c) = alpha`` (the same quantity as the
  square root of the noncentral chi-square quantile, computed with the normal cdf, which is
  accurate in the far tail); for ``B >= 10`` it is ``B + z_{1-alpha}`` as in the spec.
- Bounded minimizations use Brent's method (as R ``optimize``) with the spec's tolerances
  (1e-9 for the dual, 1e-12 for ``LAM``); root finding uses ``brentq`` with ``xtol = 1e-12``.
- The LP cross-check of the dual (R ``check=TRUE``) is :func:`rho_lp`, run by
  ``rho(..., check=True)`` and ``cva(..., check=True)`` as the spec says (a ``UserWarning`` when
  the LP and the dual differ by >= 1e-4; ``nan`` if the LP fails). It is off by default, as in R;
  the app never needs it, since :func:`cva_v` and the table solve the primal. The tests use it
  as an independent check of both paths.
- :func:`cva` follows the spec's dual and so inherits its failures: at extreme ``m2`` (1e11
  with ``kappa = 50``, ``alpha = 0.001``) the dual value falls below the non-coverage of a
  feasible two-point distribution and cva is 12% too small (4.17e6 vs 4.71e6);
  ``cva(..., check=True)`` warns there. :func:`cva_v` and the table (what :func:`ebci` uses by
  default) solve the primal and are right there (tested, also against the LP).
- With ``fs_correction="none"`` and ``mu2 = 0`` :func:`ebci` returns the regression estimate
  ``f`` and ``nan`` half-lengths (not R's residual ``Y - f``; EBCI.md section 8).
"""

from __future__ import annotations

from benchuq.core.analyses.subgroups.ebci.estimator import EBCIResult, Moments, ebci, moments
from benchuq.core.analyses.subgroups.ebci.reference import (
    FS_CORRECTIONS,
    CvaMethod,
    FsCorrection,
    Kappa,
    Rho,
    cva,
    parse_kappa,
    rho,
    rho_lp,
)
from benchuq.core.analyses.subgroups.ebci.tabulated import CvaTable, cva_table
from benchuq.core.analyses.subgroups.ebci.vectorised import cva_v

__all__ = [
    "FS_CORRECTIONS",
    "CvaMethod",
    "CvaTable",
    "EBCIResult",
    "FsCorrection",
    "Kappa",
    "Moments",
    "Rho",
    "cva",
    "cva_table",
    "cva_v",
    "ebci",
    "moments",
    "parse_kappa",
    "rho",
    "rho_lp",
]

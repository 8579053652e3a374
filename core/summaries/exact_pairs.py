"""Exact paired tests of two models on few items (METHODS 2d, issue #29).

Below 30 items a bootstrap p-value says more about the bootstrap than about the data (two items
could give "p < 0.0005"). A pair of models compared on fewer than 30 items or clusters gets a
**sign-flip randomization test** over its units (Fisher 1935; Pitman 1937): under the null
hypothesis that the two models are exchangeable on every unit, swapping their scores on any set
of units is equally likely, so ``p = #{flips: |sum_u e_u x_u| >= |sum_u x_u|} / #flips`` with
``x_u`` the unit's share of the difference of the two group scores. Every flip is enumerated up
to :data:`EXACT_FLIPS` units (the most extreme data give ``2^(1 - k)`` with ``k`` discordant
units, never less); with more, :data:`RANDOM_FLIPS` random flips and the observed one,
``p = (1 + #) / (F + 1)``. The same flips serve ``benchuq diff`` (``core.analyses.paired_tests``).
"""

from __future__ import annotations

import numpy as np

from benchuq.core.unit_scores import UnitScores

__all__ = [
    "EXACT_FLIPS",
    "RANDOM_FLIPS",
    "flip_p_value",
    "flip_sums",
    "holm_in_family",
    "pair_contributions",
]

#: Up to this many units every sign flip is enumerated (exact p-value); above, random flips.
EXACT_FLIPS = 16
RANDOM_FLIPS = 9999
_CHUNK = 2**22  # cells per chunk of flips


def flip_sums(k: int, vectors: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """``(F, exact)`` sums ``flips @ vectors`` over sign flips of ``k`` units: every flip when
    ``k <= EXACT_FLIPS``, else :data:`RANDOM_FLIPS` random ones and no flip (made in chunks)."""
    if k <= EXACT_FLIPS:
        codes = np.arange(2**k, dtype=np.int64)[:, None] >> np.arange(k)
        return (1.0 - 2.0 * (codes & 1)) @ vectors, True
    out = [vectors.sum(axis=0, keepdims=True)]
    step = max(1, _CHUNK // k)
    for a in range(0, RANDOM_FLIPS, step):
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(min(step, RANDOM_FLIPS - a), k))
        out.append(signs @ vectors)
    return np.vstack(out), False


def flip_p_value(contributions: np.ndarray, *, seed: int = 0) -> tuple[float, bool]:
    """(two-sided sign-flip p-value of ``sum(contributions) = 0``, whether it is exact).

    Examples
    --------
    >>> import numpy as np
    >>> flip_p_value(np.array([0.5, 0.5]))  # two items, both one way: 2 of 4 flips as extreme
    (0.5, True)
    """
    x = np.asarray(contributions, dtype=float)
    if x.size == 0:
        return 1.0, True
    sums, exact = flip_sums(len(x), x[:, None], np.random.default_rng(seed))
    tol = 1e-12 * max(1.0, float(np.abs(x).sum()))
    count = np.count_nonzero(np.abs(sums[:, 0]) >= abs(float(x.sum())) - tol)
    return count / len(sums), exact


def pair_contributions(
    units: UnitScores, coefficients: np.ndarray, a: int, b: int
) -> np.ndarray | None:
    """Each unit's share ``c_t (size_u / n_t) (s_au - s_bu)`` of the difference of models ``a``
    and ``b``'s group scores, whose coefficient on task t is ``c_t`` (``coefficients`` ``(M,
    T)``); ``None`` when the pair cannot be tested unit by unit: a task of the group with 30 units
    or more, a unit one of them did not answer in full, or tasks weighted differently for the
    two (different tasks answered)."""
    out = []
    for t in range(coefficients.shape[1]):
        ca, cb = float(coefficients[a, t]), float(coefficients[b, t])
        if ca == 0.0 and cb == 0.0:
            continue
        scores, complete, sizes = units.scores[t], units.complete[t], units.sizes[t]
        if scores is None or complete is None or sizes is None or not np.isclose(ca, cb):
            return None
        if not (complete[a].all() and complete[b].all()):
            return None
        out.append(ca * sizes / sizes.sum() * (scores[a] - scores[b]))
    return np.concatenate(out) if out else None


def holm_in_family(p: np.ndarray, family: int) -> np.ndarray:
    """Holm's step-down adjustment of the p-values ``p`` of some members of a family of
    ``family`` tests: ranked among themselves, the j-th smallest (from 0) multiplied by
    ``family - j``, made monotone (all members: Holm's own)."""
    p = np.asarray(p, dtype=float)
    order = np.argsort(p, kind="stable")
    steps = family - np.arange(len(p))
    adjusted = np.minimum(1.0, np.maximum.accumulate(steps * p[order]))
    out = np.empty_like(p)
    out[order] = adjusted
    return out

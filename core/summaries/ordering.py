"""The one rule that orders models by a score, so that ties do not depend on the machine.

Floating-point results differ in their last digits between processors and BLAS kernels, so two
models whose estimates are equal in exact arithmetic (the same counts, or EPP's two tied
leaders) could swap places from one machine to the next. Every ordering of models by a score in
``core`` therefore goes through :func:`best_first`: estimates are compared rounded to
:data:`SIGNIFICANT` significant digits, best first (the direction follows ``higher_is_better``),
models whose rounded estimates are equal are ordered by name, and models without an estimate
(``nan``) come last, by name.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["SIGNIFICANT", "best_first", "rounded"]

SIGNIFICANT = 12  # estimates equal to this many significant digits are tied


def rounded(values: np.ndarray | Sequence[float]) -> np.ndarray:
    """``values`` rounded to :data:`SIGNIFICANT` significant digits (``nan`` kept)."""
    x = np.asarray(values, dtype=float)
    return np.array([float(f"{v:.{SIGNIFICANT - 1}e}") for v in x.ravel()]).reshape(x.shape)


def best_first(
    estimate: np.ndarray | Sequence[float],
    names: Sequence[str],
    *,
    higher_is_better: bool = True,
) -> np.ndarray:
    """Indices of ``names`` from the best ``estimate`` to the worst, ties by name, ``nan`` last.

    Examples
    --------
    >>> best_first([0.5, 0.7, 0.7], ["c", "b", "a"]).tolist()
    [2, 1, 0]
    >>> best_first([0.10, 0.40, 0.11], ["a", "b", "c"], higher_is_better=False).tolist()
    [0, 2, 1]
    """
    key = rounded(estimate)
    if higher_is_better:
        key = -key
    by_name = np.argsort(np.asarray(names, dtype=object), kind="stable")
    name_rank = np.empty(len(by_name), dtype=int)
    name_rank[by_name] = np.arange(len(by_name))
    return np.lexsort((name_rank, np.nan_to_num(key, nan=0.0), np.isnan(key)))

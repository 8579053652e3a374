"""The synthetic study of [MHP] 5.1: Gaussian clusters of known separation (METHODS 9)."""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np

from benchuq.core.defaults import SEED
from benchuq.core.validation import check_choice

__all__ = ["SYNTHETIC_CASES", "SyntheticCase", "synthetic_clusters"]

SyntheticCase = Literal["separated", "partial", "overlapping"]
SYNTHETIC_CASES: tuple[str, ...] = get_args(SyntheticCase)


def synthetic_clusters(
    case: SyntheticCase, *, k: int = 10, n: int = 300, d: int = 16, seed: int = SEED
) -> tuple[np.ndarray, np.ndarray]:
    """``k`` Gaussian clusters of ``n`` points in ``d`` dimensions (unit covariance), [MHP] 5.1.

    Cluster ``c`` has mean ``s * e_(c mod d)`` (``e`` = unit vectors; ``d >= k`` gives distinct
    means). ``separated``: s = 20 (means 28 standard deviations apart); ``partial``: s = 2 (2.8
    apart, the clusters overlap); ``overlapping``: s = 0 (one distribution, labels carry no
    information). Returns vectors ``(k n, d)`` and labels ``"c0" .. "c{k-1}"``.
    """
    check_choice(case, SYNTHETIC_CASES, name="synthetic case")
    scale = {"separated": 20.0, "partial": 2.0, "overlapping": 0.0}
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(k), n)
    means = np.zeros((k, d))
    means[np.arange(k), np.arange(k) % d] = scale[case]
    x = means[y] + rng.standard_normal((k * n, d))
    return x, np.array([f"c{c}" for c in y], dtype=object)

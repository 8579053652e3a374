"""The one thread policy (issue 18): core entry points run their linear algebra on
``blas_threads()`` BLAS threads, whatever the process was started with, and restore it after."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from benchuq.core.analyses import epp as epp_module
from benchuq.core.data import Benchmark
from benchuq.core.threads import BLAS_THREADS_ENV, blas_threads

pytestmark = pytest.mark.skipif(
    not any(i["user_api"] == "blas" for i in threadpool_info()), reason="no BLAS library loaded"
)


def _blas_threads() -> set[int]:
    return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


def _counts(M: int = 30, T: int = 40) -> Benchmark:
    rng = np.random.default_rng(0)
    k = rng.binomial(100, rng.uniform(0.2, 0.8, (M, 1)), size=(M, T))
    return Benchmark(
        name="b",
        models=tuple(f"m{i}" for i in range(M)),
        tasks=tuple(f"t{j}" for j in range(T)),
        categories=("c",) * T,
        kind="counts",
        estimate=k / 100,
        n=np.full((M, T), 100),
        correct=k,
    )


@pytest.mark.parametrize(("env", "want"), [(None, 1), ("2", 2), ("zero", 1)])
def test_epp_runs_its_linear_algebra_under_the_policy(
    env: str | None, want: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Newton solve inside EPP sees the policy's thread count even when the process allows
    more (as an unlimited BLAS would), and the process's own setting comes back afterwards."""
    if env is None:
        monkeypatch.delenv(BLAS_THREADS_ENV, raising=False)
    else:
        monkeypatch.setenv(BLAS_THREADS_ENV, env)
    assert blas_threads() == want
    seen: list[set[int]] = []
    solve = np.linalg.solve

    def spy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        seen.append(_blas_threads())
        return solve(a, b)

    monkeypatch.setattr(epp_module.np.linalg, "solve", spy)
    with threadpool_limits(limits=3, user_api="blas"):
        outside = _blas_threads()
        epp_module.epp(_counts())
        assert _blas_threads() == outside
    expected = {min(want, max(outside))}  # a library cannot exceed its own maximum
    assert seen and all(s == expected for s in seen)
    if want == 1 and max(outside) > 1:
        assert outside != expected  # the process allowed more: the policy did limit it

"""One thread policy for the linear algebra of every core entry point (issue 18).

Core computations are many small matrix products (bootstrap chunks, Newton steps of the
Bradley-Terry fit, per-head embedding solves): a BLAS thread pool gains nothing on them and, on a
shared machine or an app server with several sessions, oversubscribed BLAS threads made the same
EPP fit 26x slower. So every entry point runs its linear algebra with :func:`blas_threads`
threads (1 unless ``BENCHUQ_BLAS_THREADS`` says otherwise), set by the :func:`blas_policy`
decorator through threadpoolctl and restored on return. Parallel work goes to processes (the Dask
backend), not to BLAS threads. Finding the loaded BLAS libraries takes milliseconds, so it is done
once and again only after new modules were imported (which may load another BLAS).
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from threadpoolctl import ThreadpoolController

__all__ = ["BLAS_THREADS_ENV", "blas_policy", "blas_threads"]

BLAS_THREADS_ENV = "BENCHUQ_BLAS_THREADS"

P = ParamSpec("P")
R = TypeVar("R")


def blas_threads() -> int:
    """BLAS threads per entry point: ``BENCHUQ_BLAS_THREADS`` (a whole number >= 1), else 1."""
    text = os.environ.get(BLAS_THREADS_ENV, "").strip()
    return max(1, int(text)) if text.isdigit() else 1


_inside = threading.local()  # set while an entry point runs: nested entry points cost nothing
_controllers: dict[int, ThreadpoolController] = {}  # by the number of imported modules


def _controller() -> ThreadpoolController:
    """The loaded thread pools, looked up again only after new imports."""
    key = len(sys.modules)
    if key not in _controllers:
        _controllers.clear()
        _controllers[key] = ThreadpoolController()
    return _controllers[key]


def blas_policy(func: Callable[P, R]) -> Callable[P, R]:
    """Run ``func`` with :func:`blas_threads` BLAS threads (the previous limits come back); an
    entry point called by another one runs under the caller's limit."""

    @functools.wraps(func)
    def limited(*args: P.args, **kwargs: P.kwargs) -> R:
        if getattr(_inside, "active", False):
            return func(*args, **kwargs)
        _inside.active = True
        try:
            with _controller().limit(limits=blas_threads(), user_api="blas"):
                return func(*args, **kwargs)
        finally:
            _inside.active = False

    return limited

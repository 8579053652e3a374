"""A byte budget over cached results, shared by every session of the server (#19).

Streamlit's caches bound the number of entries, not their size: one draws array is
``R x M x T x 8`` bytes, from kilobytes to gigabytes. :class:`ByteLedger` records the size of
every cached result as it is used and, over the budget (``BENCHUQ_CACHE_MB``, default 512),
clears the least recently used entries (each through its own ``clear`` callback, e.g.
``cached_func.clear(*args)``). The newest entry always stays, so a request within the
per-request work budget (``core.budget``) is never evicted while it is being shown.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

import numpy as np

__all__ = ["ByteLedger", "array_bytes", "cache_bytes"]


def cache_bytes() -> int:
    """The cache budget in bytes (``BENCHUQ_CACHE_MB``, default 512 MB: a small server)."""
    return int(float(os.environ.get("BENCHUQ_CACHE_MB", "512")) * 2**20)


def array_bytes(obj: object, depth: int = 2) -> int:
    """Bytes of the numpy arrays held by ``obj`` (an array, a dataclass, a named tuple, a tuple,
    list or dict of them), ``depth`` levels deep; other objects count 0."""
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if depth == 0:
        return 0
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        items = [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    elif isinstance(obj, dict):
        items = list(obj.values())
    elif isinstance(obj, tuple | list):
        items = list(obj)
    else:
        return 0
    return sum(array_bytes(x, depth - 1) for x in items)


class ByteLedger:
    """Least-recently-used accounting of cached bytes; evicts over ``budget`` bytes."""

    def __init__(self, budget: int | None = None) -> None:
        self.budget = cache_bytes() if budget is None else budget
        self._entries: OrderedDict[Hashable, tuple[int, Callable[[], None]]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        """Bytes of the entries recorded now."""
        with self._lock:
            return sum(n for n, _ in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def use(self, key: Hashable, nbytes: int, evict: Callable[[], None]) -> None:
        """Record a use of ``key`` (``nbytes`` big, removed by ``evict``); evict the least
        recently used others while the total is over the budget."""
        victims = []
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
            else:
                self._entries[key] = (nbytes, evict)
            total = sum(n for n, _ in self._entries.values())
            while total > self.budget and len(self._entries) > 1:
                _, (n, gone) = self._entries.popitem(last=False)
                total -= n
                victims.append(gone)
        for gone in victims:
            gone()

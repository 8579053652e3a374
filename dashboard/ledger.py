"""A byte budget over cached results, shared by every session of the server (#19).

Streamlit's caches bound the number of entries, not their size: one draws array is
``R x M x T x 8`` bytes, from kilobytes to gigabytes. :class:`ByteLedger` records the size of
every cached result as it is used (:func:`sizeof`) and, over the budget (``BENCHUQ_CACHE_MB``,
default 512), clears the least recently used entries (each through its own ``clear`` callback,
e.g. ``cached_func.clear(*args)``). The newest entry always stays, so a request within the
per-request work budget (``core.budget``) is never evicted while it is being shown.

:func:`budgeted` is the one way a Streamlit cache joins the ledger. Its eviction callback names
the entry by its hashed arguments only (underscore arguments, which Streamlit does not hash, are
replaced by ``None``), so the ledger never keeps a data set alive after its cache entry is gone.

Freed memory goes back to the operating system: glibc keeps freed heap pages in its arenas, so
after evictions, and every 30 s in the server (:func:`trim_every`, for what sessions that ended
freed), ``malloc_trim(0)`` returns them (a no-op where glibc is absent).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import dataclasses
import functools
import gc
import hashlib
import inspect
import os
import sys
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Any, TypeVar

import pandas as pd

__all__ = [
    "ByteLedger",
    "budgeted",
    "cache_bytes",
    "sizeof",
    "trim",
    "trim_every",
    "waited_seconds",
]

F = TypeVar("F", bound=Callable[..., Any])


def cache_bytes() -> int:
    """The cache budget in bytes (``BENCHUQ_CACHE_MB``, default 512 MB: a small server)."""
    return int(float(os.environ.get("BENCHUQ_CACHE_MB", "512")) * 2**20)


def _parts(obj: object) -> list[object]:
    """The objects ``obj`` holds (fields, items, slots, attributes); ``[]`` for a leaf."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    if isinstance(obj, dict):
        return [*obj.keys(), *obj.values()]
    if isinstance(obj, tuple | list | set | frozenset):
        return list(obj)
    slots = [s for c in type(obj).__mro__ for s in getattr(c, "__slots__", ())]
    held = [getattr(obj, s, None) for s in slots]
    return held + list(getattr(obj, "__dict__", {}).values())


def sizeof(obj: object, depth: int = 6) -> int:
    """Bytes held by ``obj``, ``depth`` levels deep, each object counted once.

    numpy and Arrow arrays count their buffers (``nbytes``), DataFrames and Series their deep
    memory usage, bytes and strings their length; dataclasses, containers and slotted or plain
    objects the sum of what they hold (a Benchmark, Draws, Loaded, a fit, a tuple of them).
    """
    seen: set[int] = set()

    def size(x: object, level: int) -> int:
        if x is None or isinstance(x, bool | int | float | type) or id(x) in seen:
            return 0
        seen.add(id(x))
        if isinstance(x, pd.DataFrame) and x.shape[1] == 0:  # pandas 1.5 warns on these
            return int(x.index.memory_usage(deep=True))
        if isinstance(x, pd.DataFrame | pd.Series | pd.Index):
            usage = x.memory_usage(deep=True)
            return int(usage.sum() if isinstance(usage, pd.Series) else usage)
        nbytes = getattr(x, "nbytes", None)
        if isinstance(nbytes, int):  # numpy and Arrow arrays
            return nbytes
        if isinstance(x, str | bytes | bytearray):
            return sys.getsizeof(x)
        if level == 0:
            return sys.getsizeof(x)
        return sys.getsizeof(x) + sum(size(p, level - 1) for p in _parts(x))

    return size(obj, depth)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or ``None`` on other C libraries."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def trim() -> None:
    """Return freed heap memory to the operating system (glibc ``malloc_trim(0)``; else no-op)."""
    release = _malloc_trim()
    if release is not None:
        release(0)


def trim_every(seconds: float) -> threading.Thread:
    """Start a daemon thread that collects cyclic garbage and calls :func:`trim` every
    ``seconds``: memory freed outside the ledger (a session that ended, a page's temporaries)
    goes back to the system too. (The app turns off Streamlit's full collection after every
    script run, which held the interpreter for ~0.2 s per slider move; it runs here instead.)"""

    def loop() -> None:
        while True:
            time.sleep(seconds)
            gc.collect()
            trim()

    thread = threading.Thread(target=loop, name="benchuq-trim", daemon=True)
    thread.start()
    return thread


_WAITED = threading.local()  # seconds this thread waited for room (ByteLedger.reserve)


def waited_seconds() -> float:
    """Seconds this thread has waited in :meth:`ByteLedger.reserve` for other work's room
    (a script run's share: the difference over the run, ``dashboard.runtime.run_logged``)."""
    return float(getattr(_WAITED, "seconds", 0.0))


class ByteLedger:
    """Least-recently-used accounting of cached bytes and of work in flight; evicts over
    ``budget`` bytes."""

    def __init__(self, budget: int | None = None) -> None:
        self.budget = cache_bytes() if budget is None else budget
        self._entries: OrderedDict[Hashable, tuple[int, Callable[[], None]]] = OrderedDict()
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)
        self._held = 0  # bytes reserved by work in flight
        self._mine = threading.local()  # bytes reserved by this thread's work in flight
        self._dropped: list[Hashable] = []  # forgotten keys, applied under the lock

    def _apply_dropped(self) -> None:
        while self._dropped:
            self._entries.pop(self._dropped.pop(), None)

    @property
    def total(self) -> int:
        """Bytes of the entries recorded now."""
        with self._lock:
            self._apply_dropped()
            return sum(n for n, _ in self._entries.values())

    def __len__(self) -> int:
        with self._lock:
            self._apply_dropped()
            return len(self._entries)

    def use(self, key: Hashable, nbytes: int, evict: Callable[[], None]) -> None:
        """Record a use of ``key`` (``nbytes`` big, removed by ``evict``); evict the least
        recently used others while the total is over the budget, then :func:`trim`."""
        with self._lock:
            self._apply_dropped()
            if key in self._entries:
                self._entries.move_to_end(key)
            else:
                self._entries[key] = (nbytes, evict)
            victims = self._over_budget(keep=1)
        self._evict(victims)

    def _over_budget(self, keep: int) -> list[Callable[[], None]]:
        """Pop the least recently used entries (all but ``keep``) while cached bytes plus work
        in flight exceed the budget; return their evictions (called by :meth:`_evict`)."""
        total = sum(n for n, _ in self._entries.values()) + self._held
        victims = []
        while total > self.budget and len(self._entries) > keep:
            _, (n, gone) = self._entries.popitem(last=False)
            total -= n
            victims.append(gone)
        return victims

    @staticmethod
    def _evict(victims: list[Callable[[], None]]) -> None:
        for gone in victims:
            gone()
        if victims:
            trim()

    @contextlib.contextmanager
    def reserve(self, nbytes: int) -> Iterator[None]:
        """Hold ``nbytes`` of the budget while computing a result (its peak working memory).

        Waits while other threads' work in flight holds the room (the first piece of work
        always runs, however big; work nested in this thread's own reservation never waits for
        it), then evicts cached entries until cached bytes plus work in flight fit. So the
        server's memory stays near base + budget however many sessions ask at once.
        """
        mine = getattr(self._mine, "held", 0)
        t0 = time.perf_counter()
        with self._room:
            self._apply_dropped()
            while self._held > mine and self._held + nbytes > self.budget:
                self._room.wait()
            _WAITED.seconds = waited_seconds() + time.perf_counter() - t0
            self._held += nbytes
            victims = self._over_budget(keep=0)
        self._mine.held = mine + nbytes
        self._evict(victims)
        try:
            yield
        finally:
            self._mine.held = mine
            with self._room:
                self._held -= nbytes
                self._room.notify_all()

    def touch(self, key: Hashable) -> bool:
        """Mark ``key`` as just used; ``False`` when it is not recorded (then :meth:`use` it)."""
        with self._lock:
            self._apply_dropped()
            if key not in self._entries:
                return False
            self._entries.move_to_end(key)
            return True

    def forget(self, key: Hashable) -> None:
        """Drop ``key`` without calling its eviction (its owner freed it, e.g. a session ended).

        Lock-free (applied at the next use): it may run in a garbage collection that started
        while this thread held the lock."""
        self._dropped.append(key)


def budgeted(
    ledger: Callable[[], ByteLedger],
    hash_funcs: Mapping[str | type[Any], Callable[[Any], Any]] | None = None,
) -> Callable[[F], F]:
    """Decorate a Streamlit-cached function so every result it returns is recorded, by
    :func:`sizeof`, in ``ledger()`` (looked up at each call) and evicted from its cache by it.

    The ledger key is the function's name and a digest of its hashed (non-underscore)
    arguments: the same key as Streamlit's own entry, so one entry is counted once. An argument
    of a type in ``hash_funcs`` (the cache's own ``hash_funcs``, e.g. draws by their content
    key) counts by its key, and its eviction holds it weakly (an argument gone meanwhile leaves
    its entries to the cache's ``max_entries``).
    """
    funcs = dict(hash_funcs or {})

    def wrap(cached: F) -> F:
        signature = inspect.signature(cached)
        name = f"{cached.__module__}.{cached.__qualname__}"

        @functools.wraps(cached)
        def call(*args: Any, **kwargs: Any) -> Any:
            value = cached(*args, **kwargs)
            bound = signature.bind(*args, **kwargs).arguments
            hashed = {k: v for k, v in bound.items() if not k.startswith("_")}
            blank = {k: None for k in bound if k.startswith("_")}
            named = {k: funcs[type(v)](v) if type(v) in funcs else v for k, v in hashed.items()}
            key = (name, hashlib.sha256(repr(sorted(named.items())).encode()).hexdigest())
            book = ledger()
            if not book.touch(key):  # measured once per entry: a rerun's hit stays cheap
                held = {k: weakref.ref(v) if type(v) in funcs else v for k, v in hashed.items()}
                evict = functools.partial(_clear, cached, held, blank)
                book.use(key, sizeof(value), evict)
            return value

        call.clear = cached.clear  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return wrap


def _clear(cached: Any, held: dict[str, Any], blank: dict[str, None]) -> None:
    """Clear one entry of ``cached`` (its weakly held arguments still alive)."""
    args = {k: v() if isinstance(v, weakref.ref) else v for k, v in held.items()}
    if any(v is None and isinstance(held[k], weakref.ref) for k, v in args.items()):
        return
    cached.clear(**args, **blank)

"""The running script of a closed browser tab stops (issue 19): a session's work ends with it.

When a tab closes, Streamlit's runtime (1.67: ``WebsocketSessionManager.disconnect_session``)
asks the session's script to stop, but the script only notices at its next ``st`` call; a long
core computation (a Bayes sampler, minutes at the caps) kept a core busy until its wall-clock
budget ran out. :func:`stop_with_session` wraps a script run in
:func:`benchuq.core.budget.stop_when` with "is this session still connected?"
(``Runtime.is_active_session``, thread-safe by its documentation), so the core's own checkpoints
(once a sampler sweep) end the work within one sweep of the tab closing. Core stays free of
streamlit: it only sees a callable.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from benchuq.core.budget import stop_when
from benchuq.dashboard.ledger import waited_seconds

WHY = "its browser session ended"


def session_gone() -> Callable[[], bool]:
    """A check that is true once this script run's session is no longer connected (always
    false outside a served app, e.g. in AppTest, which has no runtime)."""
    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return lambda: False
    runtime, session_id = Runtime.instance(), ctx.session_id
    return lambda: not runtime.is_active_session(session_id)


@contextmanager
def stop_with_session() -> Iterator[None]:
    """Run the body (a script run) so that core work in it stops once its session ends."""
    with stop_when(session_gone(), WHY):
        yield


RUN_LOG = "BENCHUQ_RUN_LOG"  # a file: each script run's page, outcome and seconds (JSON lines)
_LOG_LOCK = threading.Lock()
_WORK = threading.local()  # this thread's script run: {what: computations} (count_work)
#: what :func:`count_work` counts: computations that resample or fit (a move must not redo them)
HEAVY = ("draws", "bayes fit")


def count_work(what: str) -> None:
    """Count one computation of ``what`` (a cached function's body: a cache miss) in this
    thread's script run; :func:`run_logged` writes the counts as the line's ``work``, so the
    log says what each move recomputed (issue 41: a control's move re-summarises cached draws;
    :data:`HEAVY` are the computations no level, weight or page-control move may redo)."""
    counts = getattr(_WORK, "counts", None)
    if counts is not None:
        counts[what] = counts.get(what, 0) + 1


@contextmanager
def run_logged(page: Callable[[], str]) -> Iterator[None]:
    """Append one JSON line per script run to the file named by ``BENCHUQ_RUN_LOG`` (nothing
    when unset): its ``page``; ``outcome`` (``done``, or the exception that ended it:
    Streamlit ends a run it replaces with one); ``seconds`` of wall and ``cpu`` time (its
    thread's); ``memory_wait``, the seconds it waited for room in the byte ledger; and
    ``work``, the computations it made (:func:`count_work`). The server's own latency, apart
    from the browsers' (``benchmarks/bench_load.py``, ``benchmarks/bench_dashboard.py``)."""
    path = os.environ.get(RUN_LOG)
    if not path:
        yield
        return
    t0, c0, w0 = time.perf_counter(), time.thread_time(), waited_seconds()
    outcome = "done"
    work: dict[str, int] = {}
    _WORK.counts = work
    try:
        yield
    except BaseException as err:
        outcome = type(err).__name__
        raise
    finally:
        _WORK.counts = None
        line = {
            "page": page(),
            "outcome": outcome,
            "seconds": time.perf_counter() - t0,
            "cpu": time.thread_time() - c0,
            "memory_wait": waited_seconds() - w0,
            "work": work,
        }
        with _LOG_LOCK, open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")

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

import streamlit as st
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


def in_fragment_rerun() -> bool:
    """Whether this script run reruns fragments only (a page control's move, not the app)."""
    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


@contextmanager
def run_logged(page: Callable[[], str], *, scope: str = "app") -> Iterator[None]:
    """Append one JSON line per script run to the file named by ``BENCHUQ_RUN_LOG`` (nothing
    when unset): its ``page``; ``scope`` (``app``: the whole script, ``fragment``: a page's
    body alone, :func:`page_fragment`); ``outcome`` (``done``, or the exception that ended it:
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
    _WORK.counts = work = {}
    try:
        yield
    except BaseException as err:
        outcome = type(err).__name__
        raise
    finally:
        _WORK.counts = None
        line = {
            "page": page(),
            "scope": scope,
            "outcome": outcome,
            "seconds": time.perf_counter() - t0,
            "cpu": time.thread_time() - c0,
            "memory_wait": waited_seconds() - w0,
            "work": work,
        }
        with _LOG_LOCK, open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")


PAGE_TITLE = "_page_title"  # the title of the page being run (``dashboard.export.PAGE_KEY``)
APP_RERUN = "_app_rerun"  # set by a callback inside a page's fragment that changed the sidebar


def request_app_rerun() -> None:
    """From a widget's callback inside a page (e.g. a click on the Task weights map that sets
    the sidebar's weights): rerun the whole app next, not the page's fragment alone."""
    st.session_state[APP_RERUN] = True


def page_fragment(body: Callable[[], None]) -> None:
    """Run a page's body (everything below the sidebar) as a fragment (issue 41).

    A move of a widget inside it (the rank level, rho, a page's own settings) reruns the body
    alone: not the sidebar, the data loading or the link notices, and the draws come from the
    cache. The sidebar's controls (the level, weights) still rerun the app, body included. The
    body may rewrite the link and the sidebar's share box (``dashboard.controls``: Streamlit
    >= 1.5x lets a fragment redraw a container made outside it). A fragment's rerun is
    logged (:func:`run_logged`, scope ``fragment``) and stops with its session, as an app run
    does (``dashboard/app.py``).
    """

    def run() -> None:
        if not in_fragment_rerun():  # inside the app's run, logged there
            st.session_state.pop(APP_RERUN, None)
            with _in_page_fragment():
                body()
            return
        if st.session_state.pop(APP_RERUN, False):  # a callback changed the sidebar
            st.rerun(scope="app")
        title = st.session_state.get(PAGE_TITLE, "")
        with (
            stop_with_session(),
            run_logged(lambda: str(title), scope="fragment"),
            _in_page_fragment(),
        ):
            body()

    st.fragment(run)()


_FRAGMENT = threading.local()  # .inside: a page's fragment body is running in this thread


@contextmanager
def _in_page_fragment() -> Iterator[None]:
    _FRAGMENT.inside = True
    try:
        yield
    finally:
        _FRAGMENT.inside = False


def in_page_fragment() -> bool:
    """Whether a page's fragment body (:func:`page_fragment`) is running, in the app's run or
    in its own rerun: it must then write the sidebar's share box and the link notices in every
    run (Streamlit reserves a fragment's place in an outside container only for a fragment that
    wrote there in the last full run)."""
    return bool(getattr(_FRAGMENT, "inside", False))

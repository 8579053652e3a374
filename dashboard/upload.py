"""The Data page's session actions: read this session's uploads, use a sample, edit categories.

An upload is read by ``dashboard.cache.read_upload`` (keyed by content, never by file name); on
success the session keeps a :class:`~benchuq.dashboard.cache.KeptUpload` (``UPLOAD_KEY``, read
by the sidebar): the files, not their parse, which lives in the shared byte-bounded cache with
what the files said (notes, run details, groups, metrics; :func:`current`). A failure leaves the
previous data in use and the message for the page.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.uploaded_file_manager import DeletedFile, UploadedFile

from benchuq.core.data import DataError
from benchuq.core.reading.battles import BattlesNotScores
from benchuq.core.reading.classify import file_columns
from benchuq.core.reading.merge import Runs
from benchuq.core.reading.meta import Loaded
from benchuq.core.reading.options import Failed
from benchuq.core.reading.sources import parse_source
from benchuq.core.reading.table import KNOWN_COLUMNS
from benchuq.dashboard import cache, runtime
from benchuq.dashboard.controls import (
    BATTLES_KEY,
    CATEGORY_EDITS_KEY,
    NAME_EDITS_KEY,
    UPLOAD_KEY,
    UPLOAD_LABEL_KEY,
    _own,
)
from benchuq.dashboard.data.view import DEFAULT_METRIC
from benchuq.presentation import state

__all__ = [
    "BATTLES_KEY",
    "apply_categories",
    "column_map",
    "current",
    "current_files",
    "load_uploads",
    "loaded_for",
    "lost_files",
    "new_files",
    "reset_categories",
    "sync_column_mapper",
    "uploaded",
    "use_sample",
]

ERROR_KEY = "_upload_error"
BATTLES_NOTE_KEY = "_battles_note"
# the metrics the uploaded files offer, kept from the last read that got as far as the files'
# metrics: the Metric picker lists them after a failed read too, so a wrong choice is undone there
OFFERED_KEY = "_upload_offered_metrics"
IGNORE = "(keep as is)"
ss = st.session_state


def uploaded(key: str) -> list[UploadedFile]:
    """The files of the uploader ``key`` that this server holds. After a server restart the
    browser still lists the files it sent, but the server lost them: Streamlit then keeps a
    ``DeletedFile`` (no name, no bytes) in the session state, left out here."""
    value = ss.get(key)
    files = value if isinstance(value, list) else [value]
    return [f for f in files if isinstance(f, UploadedFile)]


def lost_files(key: str) -> int:
    """How many files the uploader ``key`` lists that the server no longer holds (it restarted
    since they were sent: its uploads lived in its memory)."""
    value = ss.get(key)
    files = value if isinstance(value, list) else [value]
    return sum(isinstance(f, DeletedFile) for f in files)


LOST_FILES = (
    "The server was restarted after {files} uploaded here and no longer holds {them}: uploads "
    "live only in the server's memory, never in its store. Remove {them} with ✕ and upload "
    "{them} again; the choices in this page's address are applied to {them} again."
)


def column_map() -> dict[str, str]:
    """The column mapper's choices ``{their column: ours}``."""
    cols = ss.get("_colmap_cols", [])
    return {
        c: ss[f"colmap_{i}"] for i, c in enumerate(cols) if ss.get(f"colmap_{i}", IGNORE) != IGNORE
    }


def new_files() -> None:
    """Callback of the uploader: other files may offer other metrics, so start from the default."""
    ss["upload_metric"] = DEFAULT_METRIC
    ss.pop(OFFERED_KEY, None)
    load_uploads()


TASK_TABLE_TYPES = (".csv", ".tsv", ".txt")


def wrong_task_table() -> str | None:
    """The error for a file dropped on the task-table uploader that is not a task table (a zip,
    a results JSON, a log), naming it and the uploader it belongs on; else ``None``."""
    table = next(iter(uploaded("task_table")), None)
    if table is None or table.name.lower().endswith(TASK_TABLE_TYPES):
        return None
    return (
        f"'{table.name}' was dropped on the task table uploader, which takes one CSV/TSV table "
        "with the columns task, category, n[, chance]. Remove it there (x) and drop it on "
        "'Result files' above: results, folders' files and .zip archives all go there."
    )


def load_uploads() -> None:
    """Callback: read this session's uploads; on success they become the current data."""
    files = uploaded("uploader")
    wrong = wrong_task_table()
    if wrong:
        ss[ERROR_KEY] = wrong
        return
    if not files:
        ss.pop(ERROR_KEY, None)
        return
    data = tuple((f.name, f.getvalue()) for f in files)
    table = next(iter(uploaded("task_table")), None)
    tasks = (table.name, table.getvalue()) if table is not None else None  # checked above
    fmt, metric = ss.get("upload_format", "auto"), ss.get("upload_metric") or None
    failed: Failed = "wrong" if ss.get("upload_failed_wrong") else "exclude"
    runs: Runs = "all" if ss.get("upload_all_runs") else "newest"
    kept = cache.KeptUpload(data, tasks, column_map(), fmt, metric, failed, runs)
    try:
        with runtime.stop_with_session():  # a callback runs before the script's own condition
            ss[OFFERED_KEY] = cache.read_upload(kept).meta.metrics
    except BattlesNotScores as err:
        ss[BATTLES_KEY] = (data, column_map())
        ss[BATTLES_NOTE_KEY] = (
            f"'{err.file}' is a table of pairwise battles (model_a, model_b, winner): the Arena "
            "page rates its models. The other pages need per-task or per-item scores, so they "
            "keep the data set they had."
        )
        ss.pop(ERROR_KEY, None)
        return
    except DataError as err:
        ss[ERROR_KEY] = str(err)
        _learn_offered(kept)
        return
    except Exception as err:
        ss[ERROR_KEY] = f"Reading the upload failed: {type(err).__name__}: {err}"
        _learn_offered(kept)
        return
    ss.pop(ERROR_KEY, None)
    ss.pop(BATTLES_NOTE_KEY, None)
    ss[UPLOAD_KEY] = kept
    names = ", ".join(f.name for f in files)
    ss[UPLOAD_LABEL_KEY] = names if len(names) <= 40 else names[:37] + "…"
    ss.get(CATEGORY_EDITS_KEY, {}).pop(state.UPLOAD, None)
    ss.get(NAME_EDITS_KEY, {}).pop(state.UPLOAD, None)
    ss["data"] = state.UPLOAD


def _learn_offered(kept: cache.KeptUpload) -> None:
    """After a failed read with a chosen metric: read the files with each format's default to
    learn the metrics they offer (the picker lists them, so the choice can be undone)."""
    if kept.metric is None:
        return
    retry = cache.KeptUpload(
        kept.files, kept.tasks, kept.columns, kept.fmt, None, kept.failed, kept.runs
    )
    try:
        with runtime.stop_with_session():
            ss[OFFERED_KEY] = cache.read_upload(retry).meta.metrics
    except Exception:  # the files fail with the default metric too: the error shown stands
        return


def offered_metrics() -> tuple[str, ...]:
    """The metrics the uploaded files offer: the current upload's, else those learnt from the
    last read of the files that got that far (a failed read keeps the picker usable)."""
    loaded = current()
    if loaded is not None and ss.get(ERROR_KEY) is None:
        return loaded.meta.metrics
    return tuple(ss.get(OFFERED_KEY, ()))


def sync_column_mapper() -> list[str]:
    """The first uploaded table's columns that benchuq does not know (the mapper's rows)."""
    files = uploaded("uploader")
    unknown: list[str] = []
    if files:
        try:
            cols = file_columns((files[0].name, files[0].getvalue()))
        except (DataError, ValueError):
            cols = []
        unknown = [c for c in cols if c not in KNOWN_COLUMNS]
    if unknown != ss.get("_colmap_cols", []):
        for i in range(len(ss.get("_colmap_cols", []))):
            ss.pop(f"colmap_{i}", None)
        ss["_colmap_cols"] = unknown
    return unknown


def use_sample(value: str) -> None:
    """Switch the sidebar's data set to ``value`` (a button callback)."""
    ss["data"] = value


def apply_categories(data: str, mapping: dict[str, str]) -> None:
    """Keep the category editor's ``{task: category}`` for ``data`` (every task needs one)."""
    blank = [t for t, c in mapping.items() if not str(c or "").strip()]
    if blank:
        ss["_category_error"] = (
            f"Tasks without a category: {', '.join(blank[:5])}. Give every "
            "task a category (or one category such as 'all')."
        )
        return
    ss.pop("_category_error", None)
    ss.setdefault(CATEGORY_EDITS_KEY, {})[data] = {t: str(c).strip() for t, c in mapping.items()}


def rename(data: str, key: str, default: str) -> None:
    """Keep the name typed in the widget ``key`` for ``data``; blank: back to ``default``, the
    name read from the files (:func:`content_name`)."""
    name = " ".join(str(ss.get(key) or "").split())[:120]
    names = ss.setdefault(NAME_EDITS_KEY, {})
    if name and name != default:
        names[data] = name
    else:
        names.pop(data, None)
        ss[key] = default


def content_name(data: str) -> str:
    """The name of ``data`` before this session's edits (from its content; a sample's and a
    published set's own name)."""
    if parse_source(data).kind == "upload":
        loaded = current()
        return loaded.bench.name if loaded is not None else ""
    try:
        return _own(data).name
    except DataError:
        return ""


def reset_categories(data: str) -> None:
    """Forget this session's category edits of ``data``."""
    ss.get(CATEGORY_EDITS_KEY, {}).pop(data, None)
    ss.pop("_category_error", None)


def current() -> Loaded | None:
    """Return the session's upload as read (``None`` without one or when it was dropped)."""
    kept = ss.get(UPLOAD_KEY)
    try:
        return None if kept is None else cache.read_upload(kept)
    except DataError:
        return None


def current_files() -> tuple[tuple[tuple[str, bytes], ...], dict[str, str]] | None:
    """The session's upload as files and column mapping (for the Arena page, which reads
    AlpacaEval annotations as battles); ``None`` without one."""
    kept = ss.get(UPLOAD_KEY)
    if kept is None or kept.files is None:
        return None
    return kept.files, dict(kept.columns)


def loaded_for(data: str) -> Loaded | None:
    """What the files of the data set ``data`` said (for a published data set, what was stored
    with it: its lm-eval groups), ``None`` when it is not loaded."""
    source = parse_source(data)
    if source.kind == "upload":
        return current()
    if source.kind == "shared":
        from benchuq.dashboard import publish  # publish -> context -> upload

        try:
            return publish.loaded_shared(data)
        except DataError:
            return None
    if source.kind != "sample":
        return None
    try:
        return cache.loaded_sample(source.name)
    except DataError:
        return None

"""Data: pick a sample or upload files, map columns, edit categories, read the validation report."""

import pandas as pd
import streamlit as st

from benchuq.core.data import DataError
from benchuq.core.readers import loaders
from benchuq.core.readers.table import KNOWN_COLUMNS, Source, read_table
from benchuq.dashboard import cache, publish, state
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.controls import CATEGORY_EDITS_KEY, UPLOAD_KEY, UPLOAD_LABEL_KEY
from benchuq.dashboard.text import md_escape

UPLOAD_TYPES = ["csv", "tsv", "txt", "json", "jsonl", "parquet"]
TARGET_COLUMNS = [
    "model",
    "task",
    "category",
    "n",
    "correct",
    "accuracy",
    "estimate",
    "se",
    "chance",
    "higher_is_better",
    "item",
    "score",
    "cluster",
    "subgroup",
]
IGNORE = "(keep as is)"
ss = st.session_state


def _column_map() -> dict[str, str]:
    cols = ss.get("_colmap_cols", [])
    return {
        c: ss[f"colmap_{i}"] for i, c in enumerate(cols) if ss.get(f"colmap_{i}", IGNORE) != IGNORE
    }


def _load_uploads() -> None:
    """Callback: load this session's uploads; on success they become the current data."""
    files = ss.get("uploader") or []
    if not files:
        ss.pop("_upload_error", None)
        return
    data = tuple((f.name, f.getvalue()) for f in files)
    table = ss.get("task_table")
    tasks = (table.name, table.getvalue()) if table is not None else None
    try:
        bench = cache.load_upload(
            data, tasks=tasks, columns=_column_map(), fmt=ss.get("upload_format", "auto")
        )
    except DataError as err:
        ss["_upload_error"] = str(err)
        return
    except Exception as err:
        ss["_upload_error"] = f"Reading the upload failed: {type(err).__name__}: {err}"
        return
    ss.pop("_upload_error", None)
    ss[UPLOAD_KEY] = bench
    names = ", ".join(f.name for f in files)
    ss[UPLOAD_LABEL_KEY] = names if len(names) <= 40 else names[:37] + "…"
    ss.get(CATEGORY_EDITS_KEY, {}).pop(state.UPLOAD, None)
    ss["data"] = state.UPLOAD


def _use_sample(value: str) -> None:
    ss["data"] = value


def _apply_categories(data: str, mapping: dict[str, str]) -> None:
    blank = [t for t, c in mapping.items() if not str(c or "").strip()]
    if blank:
        ss["_category_error"] = (
            f"Tasks without a category: {', '.join(blank[:5])}. Give every "
            "task a category (or one category such as 'all')."
        )
        return
    ss.pop("_category_error", None)
    ss.setdefault(CATEGORY_EDITS_KEY, {})[data] = {t: str(c).strip() for t, c in mapping.items()}


def _reset_categories(data: str) -> None:
    ss.get(CATEGORY_EDITS_KEY, {}).pop(data, None)
    ss.pop("_category_error", None)


ctx = current()
st.title("Data")

st.subheader("Bundled samples")
for name, description in loaders.SAMPLES.items():
    value = f"sample:{name}"
    c1, c2 = st.columns([5, 1])
    c1.markdown(f"**{name}** — {description}")
    c2.button(
        "In use" if ctx.settings.data == value else "Use",
        key=f"use_{name}",
        on_click=_use_sample,
        args=(value,),
        disabled=ctx.settings.data == value,
    )

st.subheader("Upload your results")
st.caption(
    "Long tables (model, task, category, n, correct | accuracy | estimate, se), wide tables "
    "(a row per model), item-level tables (model, task, item, score), lm-evaluation-harness "
    "results and --log_samples files (upload a whole folder's files at once), AlpacaEval "
    "annotations and inspect_ai logs. Files stay in your session only; they are never shared "
    "with other users and cannot travel in a link."
)
u1, u2 = st.columns([1, 3])
u1.selectbox("Format", loaders.FORMATS, key="upload_format", on_change=_load_uploads)
u2.file_uploader(
    "Result files",
    type=UPLOAD_TYPES,
    accept_multiple_files=True,
    key="uploader",
    on_change=_load_uploads,
)
st.file_uploader(
    "Task table (optional): task, category, n[, chance]",
    type=["csv", "tsv", "txt"],
    key="task_table",
    on_change=_load_uploads,
)

files = ss.get("uploader") or []
if files:
    try:
        frame = read_table(Source(files[0].name, files[0].getvalue())).frame
        unknown = [c for c in frame.columns if str(c) not in KNOWN_COLUMNS]
    except (DataError, ValueError):
        unknown = []
    if unknown != ss.get("_colmap_cols"):
        for i in range(len(ss.get("_colmap_cols", []))):
            ss.pop(f"colmap_{i}", None)
        ss["_colmap_cols"] = unknown
    if unknown:
        with st.expander("Column mapping", expanded="_upload_error" in ss):
            st.caption(
                "Columns of your file that benchuq does not know. Say what each one is; "
                "the file is read again at once."
            )
            for i, col in enumerate(unknown):
                st.selectbox(
                    f"Your column '{md_escape(col)}' is",
                    [IGNORE, *TARGET_COLUMNS],
                    key=f"colmap_{i}",
                    on_change=_load_uploads,
                )

publish.share_block(ctx, source=ss.get(UPLOAD_LABEL_KEY, ""))

st.subheader("Validation report")
if "_upload_error" in ss:
    st.error(ss["_upload_error"], icon=":material/error:")
    st.caption(
        "The upload was not used; the data set selected before stays in use. Fix the file "
        "(or map its columns above) and upload it again."
    )
bench = ctx.require_bench()
with guard("The data summary"):
    st.success(
        f"In use: {md_escape(ctx.settings.data)} — {bench.kind.replace('_', ' ')} data.",
        icon=":material/check_circle:",
    )
    for note in bench.notes:
        st.info(md_escape(note), icon=":material/info:")
    if len(bench.models) < 2:
        st.warning("Only one model: comparisons and ranks need two or more.")
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Models", len(bench.models))
    m2.metric("Tasks", len(bench.tasks))
    m3.metric("Items", f"{bench.n_items:,}" if bench.n_items else "n/a")
    m4.metric("Categories", len(bench.category_names))

    st.subheader("Categories")
    if bench.category_names == ("all",):
        st.info(
            "No categories were given, so every task is in 'all'. Assign categories below "
            "to get per-category leaderboards and task weights."
        )
    data_value = ctx.settings.data
    edited = st.data_editor(
        pd.DataFrame({"task": bench.tasks, "category": bench.categories}),
        disabled=["task"],
        hide_index=True,
        num_rows="fixed",
        key=f"category_editor_{bench.content_hash[:12]}",
    )
    b1, b2, _ = st.columns([1, 1, 4])
    b1.button(
        "Apply categories",
        on_click=_apply_categories,
        args=(data_value, dict(zip(edited["task"], edited["category"], strict=True))),
    )
    b2.button(
        "Reset categories",
        on_click=_reset_categories,
        args=(data_value,),
        disabled=data_value not in ss.get(CATEGORY_EDITS_KEY, {}),
    )
    if "_category_error" in ss:
        st.error(ss["_category_error"])

    st.subheader("Preview: observed score per model and task")
    preview = pd.DataFrame(bench.estimate, index=list(bench.models), columns=list(bench.tasks))
    st.dataframe(
        preview,
        column_config={c: st.column_config.NumberColumn(format="%.4f") for c in bench.tasks},
    )

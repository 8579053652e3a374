"""Data: pick a sample or upload files, map columns, read the notes, edit categories."""

import streamlit as st

from benchuq.core.reading import loaders
from benchuq.core.reading.sources import sample_source
from benchuq.dashboard import data_notes, publish, upload
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.controls import CATEGORY_EDITS_KEY, UPLOAD_LABEL_KEY
from benchuq.dashboard.data import view as views_data
from benchuq.dashboard.words import say
from benchuq.presentation.text import md_escape

ss = st.session_state
ctx = current()
st.title("Data")

st.subheader("Bundled samples")
for name, description in loaders.SAMPLES.items():
    value = sample_source(name)
    c1, c2 = st.columns([5, 1])
    c1.markdown(f"**{name}** — {description}")
    in_use = ctx.settings.data == value
    c2.button(
        "In use" if in_use else "Use",
        key=f"use_{name}",
        on_click=upload.use_sample,
        args=(value,),
        disabled=in_use,
    )

st.subheader("Upload your results")
st.caption(
    "Long tables (model, task, category, n, correct | accuracy | estimate, se), wide tables "
    "(a row per model), item-level tables (model, task, item, score), lm-evaluation-harness "
    "results and --log_samples files, HELM run folders, AlpacaEval annotations and inspect_ai "
    "logs (.eval or JSON; epochs are kept as repeated answers per item). Upload a whole "
    "folder's files at once, or the folder as a .zip (HELM needs the zip): "
    "files that are not results (README, logs, YAML, .DS_Store) are skipped with a note. Files "
    "stay in your session only; they are never shared with other users and cannot travel in a "
    "link."
)
info = upload.loaded_for(ctx.settings.data) if ctx.bench is not None else None
u1, u2 = st.columns(2)
u1.selectbox("Format", loaders.FORMATS, key="upload_format", on_change=upload.load_uploads)
metrics = views_data.metric_options(upload.offered_metrics())
if ss.get("upload_metric", "") not in metrics:
    ss["upload_metric"] = views_data.DEFAULT_METRIC
u2.selectbox(
    "Metric (lm-eval, HELM; inspect_ai: scorer)",
    metrics,
    key="upload_metric",
    format_func=views_data.metric_label,
    on_change=upload.load_uploads,
    disabled=len(metrics) < 2,
    help="The metrics your uploaded files report (for inspect_ai logs: their scorers, and "
    "scorer/key for a scorer with named values).",
)
st.checkbox(
    "Count samples that errored or hit a limit as wrong (inspect_ai logs)",
    key="upload_failed_wrong",
    on_change=upload.load_uploads,
    help="By default they are left out of the scores and counted in a note.",
)
st.file_uploader(
    "Result files", accept_multiple_files=True, key="uploader", on_change=upload.new_files
)
st.toggle(
    "Keep every run",
    key="upload_all_runs",
    on_change=upload.load_uploads,
    help="Two runs of one model on the same tasks: off, the newest is kept (when the file "
    "names carry run times, as lm-eval's do); on, both are kept, the older as 'name (2)'.",
)
st.file_uploader(
    "Task table (optional): task, category, n[, chance]",
    key="task_table",  # any file: a wrong one gets words, not just a red icon (issue 30)
    help="A CSV/TSV table giving each task its category, item count and chance level. "
    "Result files and .zip archives go on 'Result files' above.",
    on_change=upload.load_uploads,
)
if lost := upload.lost_files("uploader") + upload.lost_files("task_table"):
    one = lost == 1
    st.warning(
        upload.LOST_FILES.format(
            files="this file was" if one else f"these {lost} files were",
            them="it" if one else "them",
        ),
        icon=":material/restart_alt:",
    )
unknown = upload.sync_column_mapper()
if unknown:
    with st.expander("Column mapping", expanded=upload.ERROR_KEY in ss):
        st.caption(
            "Columns of your file that benchuq does not know. Say what each one is; the file "
            "is read again at once."
        )
        for i, col in enumerate(unknown):
            st.selectbox(
                f"Your column '{md_escape(col)}' is",
                [upload.IGNORE, *views_data.MAPPABLE_COLUMNS],
                key=f"colmap_{i}",
                on_change=upload.load_uploads,
            )

publish.share_block(ctx, source=ss.get(UPLOAD_LABEL_KEY, ""))

st.subheader("Validation report")
if upload.ERROR_KEY in ss:
    st.error(say(ss[upload.ERROR_KEY]), icon=":material/error:")
    st.caption(
        "The upload was not used; the data set selected before stays in use. Fix the file "
        "(or map its columns above) and upload it again."
    )
if upload.BATTLES_NOTE_KEY in ss:
    st.info(md_escape(ss[upload.BATTLES_NOTE_KEY]), icon=":material/sports_score:")
bench = ctx.require_bench()
with guard("The data summary"):
    st.success(
        f"In use: **{md_escape(bench.name)}** — {views_data.kind_words(bench.kind)}.",
        icon=":material/check_circle:",
    )
    name_key = f"data_name_{bench.data_hash[:12]}"  # a new upload: a new box with its name
    ss.setdefault(name_key, bench.name)
    st.text_input(
        "Name of this data set",
        key=name_key,
        on_change=upload.rename,
        args=(ctx.settings.data, name_key, upload.content_name(ctx.settings.data)),
        max_chars=120,
        help="It titles the report and every chart's subtitle, names exports and the "
        "published data set. Clear it to get the name read from the files back.",
    )
    data_notes.expander(data_notes.all_notes(bench))
    if len(bench.models) < 2:
        st.warning("Only one model: comparisons and ranks need two or more.")
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Models", len(bench.models))
    m2.metric("Tasks", len(bench.tasks))
    m3.metric("Items", f"{bench.n_items:,}" if bench.n_items else "n/a")
    m4.metric("Categories", len(bench.category_names))
    answers = views_data.answers_frame(bench)
    if answers is not None:
        several = bool((answers["answers per item"] > 1).any())
        with st.expander(
            "Items and answers per model and task"
            + (" (repeated answers: epochs)" if several else ""),
            expanded=several,
        ):
            if several:
                st.caption(
                    "An item with several answers (epochs, repeats, attempts) is one item: its "
                    "score is the mean of its answers, and intervals resample items with all "
                    "their answers (METHODS 2)."
                )
            st.dataframe(
                answers,
                hide_index=True,
                column_config={"answers per item": st.column_config.NumberColumn(format="%.2f")},
            )
    details = views_data.run_details(info.meta) if info else None
    if details is not None and not details.empty:
        with st.expander("Run details: harness, n-shot, task versions, metric"):
            st.dataframe(details, hide_index=True)

    st.subheader("Categories")
    if bench.category_names == ("all",):
        st.info(
            "No categories were given, so every task is in 'all'. Assign categories below "
            "to get per-category leaderboards and task weights."
        )
    data_value = ctx.settings.data
    edited = st.data_editor(
        views_data.categories_frame(bench),
        disabled=["task"],
        hide_index=True,
        num_rows="fixed",
        key=f"category_editor_{bench.content_hash[:12]}",
    )
    b1, b2, _ = st.columns([1, 1, 4])
    b1.button(
        "Apply categories",
        on_click=upload.apply_categories,
        args=(data_value, dict(zip(edited["task"], edited["category"], strict=True))),
    )
    b2.button(
        "Reset categories",
        on_click=upload.reset_categories,
        args=(data_value,),
        disabled=data_value not in ss.get(CATEGORY_EDITS_KEY, {}),
    )
    if "_category_error" in ss:
        st.error(say(ss["_category_error"]))

    st.subheader("Preview: observed score per model and task")
    preview = views_data.preview(bench)
    st.dataframe(
        preview,
        column_config={c: st.column_config.NumberColumn(format="%.4f") for c in bench.tasks},
    )

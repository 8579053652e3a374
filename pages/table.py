"""Leaderboard table: models x summaries, groups, categories and tasks, an interval in each cell."""

import streamlit as st

from benchuq.dashboard import cache, controls, plain, upload
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.table import cached
from benchuq.dashboard.table import view as views_table
from benchuq.presentation.text import file_stem, md_escape

ctx = current()
st.title("Leaderboard table")
plain.intro("table")
bench = ctx.require_bench()
st.caption(
    f"Each cell: observed score [{100 * ctx.level:.1f}% percentile interval] over "
    f"{ctx.settings.reps} replicates ({cache.METHODS[ctx.settings.method].label.lower()}), in "
    f"{md_escape(ctx.figure_options().unit)}. Group columns as lm-eval reports them weigh each "
    "task by its number of items ('size-weighted'); 'mean of k tasks' weighs every task the "
    "same, as the categories and Overall do."
)
with guard("The table"):
    loaded = upload.loaded_for(ctx.settings.data)
    groups = loaded.meta.groups if loaded else ()
    runs = loaded.meta.runs if loaded else ()
    columns = views_table.table_columns(bench, groups, ctx.headline.label)
    table = cached.wide_table(ctx.draws_all(), bench, ctx.models, ctx.level, columns)
    labels = [c.label for c in columns]
    link = controls.bind(
        views_table.TableSettings, choices={"sort": labels}, auto={"sort": labels[0]}
    )
    c1, c2, c3 = st.columns([2, 2, 1])
    c1.text_input("Search models or columns", key="table_query")
    c2.multiselect("Columns", views_table.KIND_CHOICES, key="table_kinds")
    c3.toggle("Best first", key="table_descending")
    st.selectbox("Sort by", labels, key="table_sort")
    s = link.read()
    shown = views_table.select(
        table, query=s.query, kinds=s.kinds, sort_by=s.sort, descending=s.descending
    )
    cells = views_table.cell_texts(
        shown,
        ctx.figure_options().scale,
        stderr=views_table.harness_stderr(shown, runs),
        headers=views_table.task_headers(shown.columns, runs),
    )
    st.dataframe(  # models as the index: it stays in view while scrolling sideways
        cells.set_index("model"),
        height=min(38 + 35 * len(shown.models), 720),
    )
    st.caption(
        f"{len(shown.models)} of {len(table.models)} models, {len(shown.columns)} of "
        f"{len(table.columns)} columns. The download holds every shown cell as numbers."
        + (
            " A task's cell also gives lm-eval's own standard error (lm-eval se), and its "
            "header the files' n-shot and metric."
            if any(r.stderr is not None for r in runs)
            else ""
        )
    )
    st.download_button(
        "Download table (CSV)",
        views_table.to_csv(shown),
        file_name=f"table_{file_stem(bench.name)}.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
    )

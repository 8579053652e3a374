"""Two runs: did it get better? Candidate minus base, item by item (METHODS 13)."""

from typing import Any

import pandas as pd
import streamlit as st

from benchuq.dashboard import cache, controls, plain
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import download_buttons, download_csv
from benchuq.dashboard.two_runs import view as vd
from benchuq.dashboard.two_runs.cached import two_runs
from benchuq.presentation.figures.diff import difference_figure
from benchuq.presentation.text import md_escape


def number_columns(table: pd.DataFrame) -> dict[str, Any]:
    """The table's number columns formatted as ``two_runs.view.number_formats`` says."""
    return {c: st.column_config.NumberColumn(format=f) for c, f in vd.number_formats(table).items()}


ctx = current()
st.title("Two runs")
plain.intro("two_runs")
bench = ctx.require_bench()
with guard("The comparison of two runs"):
    uploads = st.session_state.get("runs_upload") or []
    files = tuple((f.name, f.getvalue()) for f in uploads)
    second = cache.load_upload(files).bench if files else None
    models = bench.models + (second.models if second else ())
    link = controls.bind(
        vd.TwoRunsSettings,
        choices={"base": bench.models, "candidate": models},
        auto={"base": bench.models[0], "candidate": bench.models[min(1, len(bench.models) - 1)]},
    )
    if bench.kind != "items":  # a comparison item by item needs item-level scores
        held = "counts per task" if bench.kind == "counts" else "estimates with standard errors"
        st.info(
            f"Two runs compares runs item by item; the data in use, {md_escape(bench.name)}, "
            f"holds {held}. Load per-item results on the Data page: inspect .eval logs, "
            "lm-eval output folders with samples_*.jsonl (--log_samples), or a long table "
            "with model, task, item, score columns (the alpaca_eval sample is one)."
        )
        st.stop()
    c1, c2 = st.columns(2)
    c1.selectbox("Base run (the reference)", bench.models, key="runs_base")
    source = c2.radio("Candidate from", vd.SOURCES, format_func=vd.SOURCE_LABELS.get,
                      key="runs_source", horizontal=True)  # fmt: skip
    if source == "upload":
        c2.file_uploader(
            "The candidate run's files (as on the Data page: .eval/.json logs, lm-eval "
            "folders' files, a long CSV)", accept_multiple_files=True, key="runs_upload",
        )  # fmt: skip
    options = (second.models if second else ()) if source == "upload" else bench.models
    if options:
        controls.seed("runs_candidate", options[0], options)
        c2.selectbox("Candidate run", options, key="runs_candidate")
    c3, c4, c5 = st.columns(3)
    c3.slider("Level (%)", 80.0, 99.0, step=0.5, key="runs_level", format="%.1f")
    c4.number_input("Margin (points)", 0.0, 20.0, step=0.5, key="runs_margin",
                    help="equivalent: the interval lies inside ±margin; non-inferior: its low "
                    "end is above −margin")  # fmt: skip
    c5.toggle("Looking repeatedly (anytime-valid)", key="runs_sequential",
              help="confidence sequences stay valid however often you re-run the comparison "
              "while items arrive; wider than fixed-n intervals")  # fmt: skip
    s = link.read()
    if not options:
        st.info("Upload the candidate run's files to compare it with the base run.")
        st.stop()
    candidate = second if source == "upload" and second is not None else bench
    if candidate is bench and s.base == s.candidate:
        st.warning("Pick two different runs (models) to compare.")
        st.stop()
    opts = ctx.figure_options()
    result = two_runs(
        bench, candidate, base_model=s.base, candidate_model=s.candidate, level=s.level,
        margin=s.margin, sequential=s.sequential, reps=ctx.settings.reps,
        seed=ctx.settings.seed,
    )  # fmt: skip
    st.subheader("Verdict")
    o = result.overall
    box = {"better": st.success, "worse": st.error}.get(o.verdict, st.info)
    box(f"**Overall.** {md_escape(o.sentence)}")
    for r in result.tasks if len(result.tasks) > 1 else ():
        st.markdown(f"- **{md_escape(r.task)}**: {md_escape(r.sentence)}")
    st.caption(md_escape(result.note()))
    fig = difference_figure(result, ctx.figure_options())
    st.plotly_chart(fig, key="runs_chart", config={"displaylogo": False})
    download_buttons(fig, f"two_runs_{bench.name}", key="dl_runs")
    st.subheader("Items paired")
    st.dataframe(vd.counts_table(result), hide_index=True)
    st.subheader("Differences")
    table = vd.results_table(result, opts.scale)
    st.dataframe(table, hide_index=True, column_config=number_columns(table))
    download_csv(table, f"two_runs_{bench.name}", "Download the comparison (CSV)")
    st.subheader("Standard errors side by side")
    st.caption(
        "Naive: every answer an independent item (what a harness's `stderr` assumes); "
        "clustered: an item's answers together; unpaired: the two runs as independent samples; "
        "paired: the difference item by item, what this page uses. Design effect = "
        "(paired / naive)²: below 1, pairing helps; above 1, the naive error was too small."
    )
    errors = vd.errors_table(result, opts.scale)
    st.dataframe(errors, hide_index=True, column_config=number_columns(errors))

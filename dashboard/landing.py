"""The first screen: what the app does in two lines, the two ways in (the VTAB-1k example, your
own results) and the contested top of the current leaderboard with its uncertainty visible
(``core.findings.gaps_from_leader``, ``presentation.figures.common.gap_figure``). Shown above the
default page by ``dashboard/app.py`` to a session opened without link parameters (a shared link
opens the view it names)."""

from __future__ import annotations

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from benchuq.core.reading.sources import parse_source, sample_source
from benchuq.dashboard import upload
from benchuq.dashboard.context import Context, guard
from benchuq.dashboard.leaderboard.cached import leader_gaps
from benchuq.presentation.figures.common import gap_figure
from benchuq.presentation.text import md_escape

KEY = "_first_visit"
EXAMPLE = sample_source("vtab1k")
WHAT = (
    "**benchuq shows how sure a benchmark leaderboard is.** Every score gets an interval, and "
    "models that the data cannot tell apart are marked, so a 0.3-point lead is not sold as a win."
)
HOW = (
    "Try the example or upload your own results; then compare models, see which ranks each could "
    "hold, test task weightings, and download a report for your meeting."
)
FORMATS = (
    "Accepted: CSV/TSV tables (per task: model, task, n, correct or accuracy; or per item), "
    "lm-evaluation-harness results and samples, HELM runs (.zip), inspect_ai logs (.eval, "
    "JSON), lighteval details (.parquet), OpenAI evals logs, Every Eval Ever files, AlpacaEval "
    "annotations; "
    "files, folders or a .zip."
)
GAP_READING = (
    "Each bar: how far a model is behind the leader, with its uncertainty. A bar that reaches the "
    "dashed line (open dot) is a model the data cannot tell apart from the leader."
)


def first_visit() -> bool:
    """True for a session opened without link parameters (a first-time visitor, not a shared
    view); call it before the sidebar writes the link."""
    return bool(st.session_state.setdefault(KEY, not st.query_params.to_dict()))


def yields_to(ctx: Context) -> bool:
    """True once the session uses its own data (an upload or a published set): the intro then
    gives the page to the data for the rest of the session (issue 30)."""
    if parse_source(ctx.settings.data).kind in ("upload", "shared"):
        st.session_state[KEY] = False
    return not st.session_state.get(KEY, False)


def example_label(data: str) -> str:
    """The example button's words: what a click shows, with VTAB-1k in use or not (#41)."""
    return "Show the full VTAB-1k leaderboard" if data == EXAMPLE else "Show the VTAB-1k example"


def _explore() -> None:
    """The example button: VTAB-1k in use (when it is not yet) and this introduction closed, so
    the click always shows something: the leaderboard of the example takes the page (#41)."""
    if st.session_state.get("data") != EXAMPLE:
        upload.use_sample(EXAMPLE)
    st.session_state[KEY] = False


def intro(ctx: Context, data_page: StreamlitPage, report_page: StreamlitPage) -> None:
    """Two lines on the app, the two ways in, and the contested top with visible intervals."""
    left, right = st.columns([5, 6], gap="large")
    with left:
        st.markdown(WHAT)
        st.markdown(HOW)
        # one above the other: side by side, the example's label was cut ("Try the VTAB-1k exam…")
        st.button(
            example_label(ctx.settings.data),
            on_click=_explore,
            help="Use the bundled VTAB-1k results (16 vision models x 19 tasks) and close this "
            "introduction: the leaderboard and every page then show them.",
            icon=":material/play_arrow:",
            key="landing_example",
        )
        st.page_link(data_page, label="Upload your results", icon=":material/upload_file:")
        st.caption(FORMATS)
        st.page_link(
            report_page, label="Download a report of this view", icon=":material/summarize:"
        )
    if ctx.bench is None:
        return
    with right, guard("The view of the top models"):
        gaps = leader_gaps(ctx.draws_all(), ctx.models, ctx.level)
        title = f"How far behind the leader? ({md_escape(ctx.bench.name)}, top {len(gaps)})"
        fig = gap_figure(gaps, ctx.figure_options(title))
        st.plotly_chart(fig, key="landing_gaps", config={"displaylogo": False})
        st.caption(GAP_READING)

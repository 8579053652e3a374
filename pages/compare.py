"""Compare models: family-wise pairwise difference intervals, P(row beats column), verdicts."""

import streamlit as st

from benchuq.api.summaries import overall_label, zero_spread_notes
from benchuq.dashboard import controls, plain
from benchuq.dashboard.compare import cached
from benchuq.dashboard.compare import view as views_inference
from benchuq.dashboard.compare.settings import CORRECTIONS, CompareSettings, differences_table
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import download_buttons, download_csv
from benchuq.dashboard.leaderboard import view as views
from benchuq.dashboard.words import say
from benchuq.presentation.figures.common import win_heatmap
from benchuq.presentation.figures.ranks import simultaneous_difference_figure
from benchuq.presentation.text import md_escape

ctx = current()
st.title("Compare models")
plain.intro("compare")
bench = ctx.require_bench()
with guard("The comparison"):
    draws = ctx.draws()
    groups = views.group_options(draws.category_names, ctx.weights)
    link = controls.bind(
        CompareSettings,
        choices={"score": groups, "models": draws.models},
        auto={"models": tuple(views.top_models(draws, 3))},
    )
    c1, c2, c3 = st.columns([2, 1, 1])
    overall = overall_label(draws)
    c1.selectbox(
        "Score", groups, format_func=lambda g: views.group_label(g, overall), key="compare_score"
    )
    c2.radio(
        "Correction",
        CORRECTIONS,
        key="compare_correction",
        format_func=views_inference.CORRECTION_LABELS.__getitem__,
        help=views_inference.CORRECTION_HELP,
    )
    controls.ranged(
        c3.slider,
        CompareSettings,
        "compare_level",
        "Family-wise level (%)",
        step=0.5,
        format="%.1f",
        help="In plain words: how sure every verdict below is, for all pairs together.",
    )
    c3.caption(
        f"Not the sidebar's {100 * ctx.level:g}%: that level is for one score at a time; "
        "these verdicts hold for all pairs together."
    )
    st.multiselect("Models to compare (default: the top three)", draws.models, key="compare_models")
    s = link.read()
    if len(s.models) < 2:
        st.warning("Pick at least two models to compare.")
        st.stop()
    g = tuple(map(float, ctx.weights)) if s.score == views.WEIGHTED else s.score
    draws_all = ctx.draws_all()  # hashed by its key; the cached calls pick the models
    diffs = cached.differences(draws_all, s.models, s.level, s.correction, g)
    opts = ctx.figure_options()
    st.subheader("Verdicts")
    for note in zero_spread_notes(draws.notes):  # METHODS 2g: width 0 is not certainty
        st.warning(say(note), icon=":material/info:")
    if not draws.paired:
        st.info(
            "Models were resampled independently (no item-level data): these comparisons "
            "ignore correlation between models and are conservative when models succeed on "
            "the same items.",
            icon=":material/info:",
        )
    unit = "points" if opts.scale == 100 else "units"
    for v in views_inference.verdicts(diffs, s.level, s.correction, draws.reps, opts.scale, unit):
        st.markdown("- " + md_escape(v.text))
    caption = views_inference.comparison_caption(
        s.correction, s.level, len(diffs), draws.reps, exact=int(diffs["p_exact"].notna().sum())
    )
    score = views.group_label(s.score, overall)
    st.caption(f"{md_escape(caption)} Score: {md_escape(score)}.")
    fig = simultaneous_difference_figure(
        diffs, s.correction, s.level, draws.reps, ctx.figure_options("Pairwise differences")
    )
    st.plotly_chart(fig, key="diff_chart", config={"displaylogo": False})
    download_buttons(fig, f"differences_{bench.name}", key="dl_diff")
    table = differences_table(diffs, opts.scale)
    numbers = [c for c in table.columns if c not in ("model A", "model B")]
    st.dataframe(  # full width: every column shows (issue 30: a half-width one hid 'high')
        table,
        hide_index=True,
        column_config={c: st.column_config.NumberColumn(format="%.3g") for c in numbers},
    )
    st.caption(f"Differences in {md_escape(opts.unit)}; A − B > 0 means A scored higher.")
    download_csv(table, f"differences_{bench.name}", "Download differences (CSV)")
    left, _ = st.columns([3, 2])
    with left:
        prob = cached.win_probabilities(draws_all, s.models, g)
        fig = win_heatmap(
            prob, s.models, ctx.figure_options("P(row beats column) over the replicates")
        )
        st.plotly_chart(fig, key="win_chart", config={"displaylogo": False})
        download_buttons(fig, f"win_probabilities_{bench.name}", key="dl_win")

"""Compare models: family-wise pairwise difference intervals, P(row beats column), verdicts."""

import streamlit as st

from benchuq.core import summaries
from benchuq.dashboard import views
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import download_buttons
from benchuq.dashboard.figures import difference_figure, win_heatmap
from benchuq.dashboard.text import md_escape

ctx = current()
st.title("Compare models")
bench = ctx.require_bench()
with guard("The comparison"):
    draws = ctx.draws()
    c1, c2, c3 = st.columns([2, 1, 1])
    groups = views.group_options(draws.category_names)
    group = c1.selectbox("Score", groups, format_func=views.group_label, key="compare_group")
    correction = c2.radio(
        "Correction",
        ("holm", "bonferroni"),
        key="compare_correction",
        format_func=str.capitalize,
        horizontal=True,
        help="Holm is uniformly more powerful than Bonferroni at the same family-wise level.",
    )
    fw_level = (
        c3.slider(
            "Family-wise level (%)", 80.0, 99.0, 95.0, step=0.5, key="compare_level", format="%.1f"
        )
        / 100
    )
    models = st.multiselect(
        "Models to compare (default: the top three)",
        draws.models,
        default=views.top_models(draws, 3),
        key=f"compare_models_{bench.content_hash[:12]}",
    )
    if len(models) < 2:
        st.warning("Pick at least two models to compare.")
        st.stop()
    weights = ctx.weights
    g = weights if group == views.WEIGHTED else group
    sub = draws.select_models(models)
    diffs = summaries.pairwise_differences(
        sub, models, level=fw_level, correction=correction, group=g
    )
    opts = ctx.figure_options()
    st.subheader("Verdicts")
    if not draws.paired:
        st.info(
            "Draws are independent across models (no item-level data): these comparisons "
            "ignore correlation between models and are conservative when models succeed on "
            "the same items.",
            icon=":material/info:",
        )
    for _, row in diffs.iterrows():
        text = views.verdict(
            row,
            fw_level,
            correction.capitalize(),
            opts.scale,
            "points" if opts.scale == 100 else "units",
        )
        st.markdown("- " + md_escape(text))
    k = len(diffs)
    st.caption(
        f"{k} comparison{'s' if k != 1 else ''}; intervals hold jointly with "
        f"probability {100 * fw_level:g}% ({correction.capitalize()}). Score: "
        f"{md_escape(views.group_label(group))}."
    )
    fig = difference_figure(diffs, ctx.figure_options("Pairwise differences"))
    st.plotly_chart(fig, key="diff_chart", config={"displaylogo": False})
    download_buttons(fig, f"differences_{bench.name}", key="dl_diff")
    left, right = st.columns(2)
    with left:
        prob = summaries.win_probabilities(sub, group=g)
        fig = win_heatmap(prob, models, ctx.figure_options("P(row beats column) over the draws"))
        st.plotly_chart(fig, key="win_chart", config={"displaylogo": False})
        download_buttons(fig, f"win_probabilities_{bench.name}", key="dl_win")
    table = diffs.assign(
        estimate=diffs["estimate"] * opts.scale,
        low=diffs["low"] * opts.scale,
        high=diffs["high"] * opts.scale,
    ).rename(
        columns={
            "a": "model A",
            "b": "model B",
            "estimate": "A − B",
            "p_value": "p (adjusted)",
            "prob_a_better": "P(A better)",
            "level": "per-pair level",
        }
    )
    with right:
        st.dataframe(
            table,
            hide_index=True,
            column_config={
                c: st.column_config.NumberColumn(format="%.3g")
                for c in ("A − B", "low", "high", "p (adjusted)", "P(A better)", "per-pair level")
            },
        )
        st.caption(f"Differences in {md_escape(opts.unit)}; A − B > 0 means A scored higher.")
        st.download_button(
            "Download differences (CSV)",
            table.to_csv(index=False).encode(),
            file_name=f"differences_{bench.name}.csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/download:",
        )

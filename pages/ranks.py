"""Ranks: five rank aggregations with 95% intervals; rank probabilities at the current weights."""

import streamlit as st

from benchuq.dashboard import cache, views
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import download_buttons
from benchuq.dashboard.figures import rank_aggregation_figure, rank_probability_figure
from benchuq.dashboard.text import md_escape

ctx = current()
st.title("Ranks")
bench = ctx.require_bench()
with guard("The rank analysis"):
    draws_all = ctx.draws_all()
    models = ctx.models
    st.caption(
        "Each aggregation ranks the models inside every replicate (1 = best) and reports "
        "the mean rank with a 95% percentile interval (METHODS 4). Aggregations can "
        "disagree: that disagreement is part of the uncertainty."
    )
    ranks = cache.rank_aggregations(ctx.draws_key, models, 0.95, draws_all)
    fig = rank_aggregation_figure(ranks, ctx.figure_options())
    st.plotly_chart(fig, key="rank_chart", config={"displaylogo": False})
    download_buttons(fig, f"ranks_{bench.name}", key="dl_ranks")
    st.dataframe(views.rank_table(ranks), hide_index=True, height=min(38 + 35 * len(models), 640))
    st.caption("Mean rank [95% interval] under each aggregation; 1 = best.")
    st.download_button(
        "Download ranks (CSV)",
        ranks.to_csv(index=False).encode(),
        file_name=f"ranks_{bench.name}.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
    )

    st.subheader("Rank probabilities at the current weights")
    w = ctx.weights
    cats = draws_all.category_names
    st.caption(
        "P(rank = r) for the weighted score S(w) with weights "
        + ", ".join(f"{md_escape(c)} {x:.2f}" for c, x in zip(cats, w, strict=True))
        + " (change them in the sidebar)."
    )
    prob = cache.rank_probabilities(ctx.draws_key, models, tuple(float(x) for x in w), draws_all)
    fig = rank_probability_figure(prob, models, ctx.figure_options())
    st.plotly_chart(fig, key="rankprob_chart", config={"displaylogo": False})
    download_buttons(fig, f"rank_probabilities_{bench.name}", key="dl_rankprob")

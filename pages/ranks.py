"""Ranks: five rank aggregations with intervals; rank probabilities at the current weights."""

import streamlit as st

from benchuq.api.summaries import overall_label, zero_spread_notes
from benchuq.dashboard import controls, plain
from benchuq.dashboard.compare import view as views_inference
from benchuq.dashboard.compare.settings import RanksSettings
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import download_buttons, download_csv
from benchuq.dashboard.leaderboard.view import default_weights, weighted_order_note
from benchuq.dashboard.ranks import cached
from benchuq.dashboard.weights.view import weights_text
from benchuq.dashboard.words import say
from benchuq.presentation.figures.common import (
    RANK_METHOD_LABELS,
    rank_aggregation_figure,
    rank_probability_figure,
)
from benchuq.presentation.figures.ranks import rank_set_figure
from benchuq.presentation.text import md_escape

ctx = current()
st.title("Ranks")
plain.intro("ranks")
bench = ctx.require_bench()
with guard("The rank analysis"):
    draws_all = ctx.draws_all()
    models = ctx.models
    link = controls.bind(RanksSettings)
    controls.ranged(
        st.slider,
        RanksSettings,
        "ranks_level",
        "Rank interval level (%)",
        step=0.5,
        format="%.1f",
        help="In plain words: how sure the rank ranges below are.",
    )
    s = link.read()
    for note in zero_spread_notes(draws_all.notes):  # METHODS 2g: width 0 is not certainty
        st.warning(say(note), icon=":material/info:")
    st.caption(
        f"Rank ranges hold at {100 * s.level:g}%, not at the sidebar's {100 * ctx.level:g}% "
        "(the level of one score at a time): a rank depends on every other model's score."
    )
    pct = f"{100 * s.level:g}%"
    st.caption(
        "Each aggregation is computed inside every replicate (1 = best). Mean and geometric "
        "mean report the model's position; the average-rank methods report the average "
        f"per-task rank itself, as [LGC] does; each with a {pct} percentile interval "
        "(METHODS 4). Aggregations can disagree: that disagreement is part of the uncertainty."
    )
    ranks = cached.rank_aggregations(draws_all, models, s.level)
    fig = rank_aggregation_figure(ranks, ctx.figure_options())
    st.plotly_chart(fig, key="rank_chart", config={"displaylogo": False})
    download_buttons(fig, f"ranks_{bench.name}", key="dl_ranks")
    captions = (
        f"Position [{pct} interval] under each aggregation",
        f"Average per-task rank [{pct} interval], as [LGC] reports it",
    )
    tables = cached.rank_tables(draws_all, models, s.level)
    for statistic, caption, table in zip(cached.RANK_STATISTICS, captions, tables, strict=True):
        helps = views_inference.rank_column_help(
            table, RANK_METHOD_LABELS, statistic=statistic, level=s.level
        )
        st.dataframe(
            table,
            hide_index=True,
            height=min(38 + 35 * len(models), 640),
            column_config={c: st.column_config.TextColumn(help=h) for c, h in helps.items()},
        )
        st.caption(f"{caption}; 1 = best. Hover a column's head for its aggregation in full.")
    download_csv(ranks, f"ranks_{bench.name}", "Download ranks (CSV)")

    w = ctx.weights
    # the overall score at the default (equal) weights, as the Leaderboard and `benchuq ranks`
    weighted = () if default_weights(w) else tuple(float(x) for x in w)
    st.subheader("Which ranks each model can hold (rank confidence sets)")
    sets = cached.rank_sets(draws_all, models, weighted, s.level)
    score_name = sets.label if weighted else f"overall, {overall_label(draws_all)}"
    for sentence in views_inference.rank_set_sentences(sets):
        st.markdown("- " + md_escape(sentence))
    st.caption(
        f"Score: {md_escape(score_name)}. The thick bar holds each model's rank with {pct} "
        f"confidence on its own; the thin bar holds for all models together with {pct} "
        "confidence (use it to say which models can be best). METHODS 4b."
    )
    fig = rank_set_figure(sets, ctx.figure_options("Rank confidence sets"))
    st.plotly_chart(fig, key="rank_set_chart", config={"displaylogo": False})
    download_buttons(fig, f"rank_sets_{bench.name}", key="dl_rank_sets")
    set_table = views_inference.rank_set_table(sets)
    st.dataframe(set_table, hide_index=True, height=min(38 + 35 * len(models), 640))
    download_csv(set_table, f"rank_sets_{bench.name}", "Download rank sets (CSV)")

    st.subheader("Share of replicates at each rank")
    score = (
        f"the overall score ({md_escape(overall_label(draws_all))})"
        if not weighted
        else "the weighted score with weights "
        + weights_text(draws_all.category_names, w)
        + " (the sidebar's)"
    )
    st.caption(
        f"Share of replicates in which each model has rank r, for {score}. A share of "
        "replicates, not a calibrated probability: shares above 60% are 6-13 points too high "
        "in simulation (METHODS 4)."
    )
    if weighted:
        st.caption(weighted_order_note(draws_all.category_names, w))
    prob = cached.rank_probabilities(draws_all, models, weighted)
    fig = rank_probability_figure(prob, models, ctx.figure_options())
    st.plotly_chart(fig, key="rankprob_chart", config={"displaylogo": False})
    download_buttons(fig, f"rank_probabilities_{bench.name}", key="dl_rankprob")

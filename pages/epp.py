"""Win probabilities (EPP meta-score, METHODS 8): Bradley-Terry leaderboard, fit and pair test."""

import numpy as np
import streamlit as st

from benchuq.api.summaries import pair_test
from benchuq.dashboard import controls, plain
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.epp import cached
from benchuq.dashboard.epp import view as ve
from benchuq.dashboard.export import chart_with_download, download_csv
from benchuq.presentation.figures.epp import (
    epp_forest_figure,
    epp_heatmap,
    fit_figure,
    rank_slope_figure,
)
from benchuq.presentation.text import md_escape

ctx = current()
st.title("Win probabilities (EPP)")
plain.intro("epp")
bench = ctx.require_bench()
st.caption(
    "Every round (a task, or an item) is a match between each pair of models that both have a "
    "score: win 1, tie ½, loss 0. A Bradley–Terry model, `logit P(i beats j) = EPP_i − EPP_j`, "
    "gives each model an EPP in logit units (they sum to 0), so `invlogit(EPP_i)` is its chance "
    "of beating an average model [EPP; METHODS 8]. EPP uses only who beat whom in each round, "
    "so it does not depend on the scale of each task's metric (normalizing changes nothing)."
)
with guard("The EPP analysis"):
    models = tuple(ctx.models)
    if len(models) < 2:
        st.warning("Pick at least two models in the sidebar.")
        st.stop()
    sub = bench.subset(models=list(models)) if models != bench.models else bench
    rounds_options = ve.round_options(bench)
    link = controls.bind(
        ve.EppSettings,
        choices={"rounds": rounds_options},
        auto={"rounds": ve.default_rounds(bench)},
    )
    c1, c2 = st.columns(2)
    c1.radio(
        "A round is one", rounds_options, format_func=ve.ROUND_LABELS.get, key="epp_rounds",
        horizontal=True,
        help="Items as rounds are available when the data are item-level (and the default when "
        "there are fewer than three tasks: a single task would decide every pair at once).",
    )  # fmt: skip
    c2.radio(
        "Intervals", tuple(ve.INTERVAL_LABELS), format_func=ve.INTERVAL_LABELS.get,
        key="epp_interval", horizontal=True,
        help="All matches of one round share the models' scores, so they are not independent: "
        "GLM intervals (as in the EPP paper) can be far too narrow. 'Robust to shared rounds' "
        "(cluster-robust by round, the default) and the bootstrap over rounds account for it.",
    )  # fmt: skip
    s = link.read()
    level = ctx.level
    boot = s.interval == "bootstrap"  # replicates and seed only matter to the bootstrap
    result = cached.epp_fit(
        bench,
        models,
        ve.rounds_of(s),
        s.interval,
        int(ctx.settings.reps) if boot else 0,
        int(ctx.settings.seed) if boot else 0,
    ).at_level(level)
    mean_score = ve.mean_scores(sub)
    if result.separated:
        st.warning(
            "Separation: "
            + ", ".join(md_escape(m) for m in result.separated)
            + " won (or lost) every match against the rest, so the maximum-likelihood EPP "
            f"would be infinite. A small ridge penalty ({result.ridge:g}) keeps it finite: read "
            "these scores and intervals as bounds, not estimates.",
            icon=":material/warning:",
        )
    st.caption(
        f"{result.n_rounds} rounds ({result.rounds}), {len(models)} models; "
        f"{100 * level:.1f}% intervals ({ve.INTERVAL_LABELS[s.interval]}, level from the "
        "sidebar)."
    )
    left, right = st.columns(2)
    with left:
        chart_with_download(
            epp_forest_figure(result, ctx.figure_options("EPP leaderboard")),
            "epp_forest",
            f"epp_{bench.name}",
        )
    with right:
        title = "Mean score vs EPP: where the orders differ"
        fig = rank_slope_figure(result, mean_score, ctx.figure_options(title))
        chart_with_download(fig, "epp_slope", f"epp_vs_mean_{bench.name}")
    table = ve.leaderboard_table(result, mean_score)
    numbers = ("EPP", "SE", "low", "high", "P(beats average)", "mean score")
    st.dataframe(
        table,
        hide_index=True,
        column_config={c: st.column_config.NumberColumn(format="%.3f") for c in numbers},
    )
    download_csv(table, f"epp_{bench.name}", "Download EPP table (CSV)")
    if not np.all(np.asarray(sub.higher_is_better, dtype=bool)):
        st.caption("Mean score: lower-is-better tasks enter with their sign flipped.")
    fig = epp_heatmap(result, ctx.figure_options("Fitted P(row beats column)"))
    chart_with_download(fig, "epp_heatmap", f"epp_win_probability_{bench.name}")
    left, right = st.columns(2)
    with left:
        fig = fit_figure(result, ctx.figure_options("Goodness of fit: predicted vs observed"))
        chart_with_download(fig, "epp_fit", f"epp_fit_{bench.name}")
        st.caption(
            "One point per pair. Bars: ±2 binomial standard errors around the observed share at "
            "the predicted probability; points far from the diagonal are pairs the one-number-"
            "per-model EPP does not explain."
        )
    with right:
        st.subheader("Deviance")
        st.markdown(ve.deviance_list(result))
        st.markdown(ve.deviance_verdict(result))

    st.subheader("Pair test")
    order = [result.models[i] for i in result.order]
    pair = controls.bind(
        ve.EppPair,
        choices={"a": order, "b": order},
        auto={"a": order[0], "b": order[min(1, len(order) - 1)]},
    )
    p1, p2 = st.columns(2)
    p1.selectbox("Model A", order, key="epp_a")
    p2.selectbox("Model B", order, key="epp_b")
    ab = pair.read()
    if ab.a == ab.b:
        st.info("Pick two different models.")
    else:
        st.markdown(ve.pair_text(result, pair_test(result, ab.a, ab.b), ab.a, ab.b))
        if ab.a in result.separated or ab.b in result.separated:
            st.caption("One of these models is separated: its EPP is ridge-bounded.")
    for note in result.notes:
        st.caption(md_escape(note))

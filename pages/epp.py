"""Win probabilities (EPP meta-score, METHODS 8): Bradley-Terry leaderboard, fit and pair test."""

import hashlib

import numpy as np
import streamlit as st

from benchuq.core.data import Benchmark
from benchuq.core.epp import EPPResult, epp, pair_test
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import download_buttons
from benchuq.dashboard.figures_epp import (
    deviance_table,
    epp_forest_figure,
    epp_heatmap,
    fit_figure,
    leaderboard_table,
    rank_slope_figure,
)
from benchuq.dashboard.text import md_escape

INTERVAL_LABELS = {
    "rounds": "Robust to shared rounds",
    "glm": "GLM (matches independent)",
    "bootstrap": "Bootstrap over rounds",
}
ROUND_LABELS = {"tasks": "Tasks", "items": "Items"}
FIT_LEVEL = 0.95  # cached fits are made at this level and re-levelled without refitting


@st.cache_resource(max_entries=32, show_spinner="Fitting the EPP model…")
def _fit(
    content_hash: str,
    models: tuple[str, ...],
    rounds: str,
    interval: str,
    reps: int,
    seed: int,
    _bench: Benchmark,
) -> EPPResult:
    """``core.epp.epp`` on the shown models, keyed by the data's content hash."""
    sub = _bench.subset(models=list(models)) if models != _bench.models else _bench
    return epp(sub, rounds=rounds, level=FIT_LEVEL, interval=interval, reps=reps, seed=seed)


ctx = current()
st.title("Win probabilities (EPP)")
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
    c1, c2 = st.columns(2)
    round_options = ("tasks", "items") if bench.item_tasks is not None else ("tasks",)
    rounds = c1.radio(
        "A round is one",
        round_options,
        index=len(round_options) - 1 if len(bench.tasks) < 3 else 0,
        format_func=ROUND_LABELS.get,
        key="epp_rounds",
        horizontal=True,
        help="Items as rounds are available when the data are item-level (and the default when "
        "there are fewer than three tasks: a single task would decide every pair at once).",
    )
    interval = c2.radio(
        "Intervals",
        tuple(INTERVAL_LABELS),
        format_func=INTERVAL_LABELS.get,
        key="epp_interval",
        horizontal=True,
        help="All matches of one round share the models' scores, so they are not independent: "
        "GLM intervals (as in the EPP paper) can be far too narrow. 'Robust to shared rounds' "
        "(cluster-robust by round, the default) and the bootstrap over rounds account for it.",
    )
    level = ctx.level
    boot = interval == "bootstrap"  # replicates and seed only matter to the bootstrap
    result = _fit(
        bench.content_hash,
        models,
        rounds,
        interval,
        int(ctx.settings.reps) if boot else 0,
        int(ctx.settings.seed) if boot else 0,
        bench,
    ).at_level(level)
    sub = bench.subset(models=list(models)) if models != bench.models else bench
    sign = np.where(sub.higher_is_better, 1.0, -1.0)
    mean_score = np.nanmean(sub.estimate * sign, axis=1)

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
        f"{result.n_rounds} rounds ({md_escape(result.rounds)}), {len(models)} models; "
        f"{100 * level:.1f}% intervals ({md_escape(INTERVAL_LABELS[interval])}, level from the "
        "sidebar)."
    )

    left, right = st.columns(2)
    with left:
        fig = epp_forest_figure(result, ctx.figure_options("EPP leaderboard"))
        st.plotly_chart(fig, key="epp_forest", config={"displaylogo": False})
        download_buttons(fig, f"epp_{bench.name}", key="dl_epp_forest")
    with right:
        fig = rank_slope_figure(
            result, mean_score, ctx.figure_options("Mean score vs EPP: where the orders differ")
        )
        st.plotly_chart(fig, key="epp_slope", config={"displaylogo": False})
        download_buttons(fig, f"epp_vs_mean_{bench.name}", key="dl_epp_slope")
    table = leaderboard_table(result, mean_score)
    st.dataframe(
        table,
        hide_index=True,
        column_config={
            c: st.column_config.NumberColumn(format="%.3f")
            for c in ("EPP", "SE", "low", "high", "P(beats average)", "mean score")
        },
    )
    st.download_button(
        "Download EPP table (CSV)",
        table.to_csv(index=False).encode(),
        file_name=f"epp_{bench.name}.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
    )
    if np.any(~sub.higher_is_better):
        st.caption("Mean score: lower-is-better tasks enter with their sign flipped.")

    fig = epp_heatmap(result, ctx.figure_options("Fitted P(row beats column)"))
    st.plotly_chart(fig, key="epp_heatmap", config={"displaylogo": False})
    download_buttons(fig, f"epp_win_probability_{bench.name}", key="dl_epp_heat")

    left, right = st.columns(2)
    with left:
        fig = fit_figure(result, ctx.figure_options("Goodness of fit: predicted vs observed"))
        st.plotly_chart(fig, key="epp_fit", config={"displaylogo": False})
        download_buttons(fig, f"epp_fit_{bench.name}", key="dl_epp_fit")
        st.caption(
            "One point per pair. Bars: ±2 binomial standard errors around the observed share at "
            "the predicted probability; points far from the diagonal are pairs the one-number-"
            "per-model EPP does not explain."
        )
    with right:
        st.subheader("Deviance")
        st.dataframe(deviance_table(result), hide_index=True)
        if result.df > 0:
            verdict = (
                "no evidence that one EPP per model misses structure"
                if result.p_value >= 0.05
                else "the pairs disagree with a single EPP per model (p < 0.05): some models are "
                "stronger against some opponents than their EPP says"
            )
            st.markdown(
                f"Deviance {result.deviance:.1f} on {result.df} df (p = {result.p_value:.3g}): "
                f"{verdict}."
            )
        else:
            st.markdown("With two models there are no degrees of freedom left to test the fit.")

    st.subheader("Pair test")
    p1, p2 = st.columns(2)
    order = [result.models[i] for i in result.order]
    pick = hashlib.sha256(repr((bench.content_hash, models)).encode()).hexdigest()[:12]
    a = p1.selectbox("Model A", order, index=0, key=f"epp_a_{pick}")
    b = p2.selectbox("Model B", order, index=min(1, len(order) - 1), key=f"epp_b_{pick}")
    if a == b:
        st.info("Pick two different models.")
    else:
        t = pair_test(result, a, b)
        i, j = result.models.index(a), result.models.index(b)
        won, shared = result.wins[i, j], result.matches[i, j]
        if np.isnan(t.p_value):
            finding = "the test is not defined (zero standard error)."
        elif t.p_value < 0.05:
            better = a if t.estimate > 0 else b
            finding = f"significant at the 5% level: **{md_escape(better)}** is the stronger model."
        else:
            finding = "not significant at the 5% level: the data cannot tell them apart."
        st.markdown(
            f"The EPP model says **{md_escape(a)}** beats **{md_escape(b)}** in "
            f"{100 * t.probability:.0f}% of rounds ({100 * t.level:.1f}% interval "
            f"{100 * t.low:.0f}%–{100 * t.high:.0f}%). Observed: {md_escape(a)} won {won:g} of "
            f"{shared:g} shared rounds (ties count ½). Wald test of equal EPP: "
            f"z = {t.statistic:.2f}, p = {t.p_value:.3g}; {finding}"
        )
        if a in result.separated or b in result.separated:
            st.caption("One of these models is separated: its EPP is ridge-bounded.")
    for note in result.notes:
        st.caption(md_escape(note))

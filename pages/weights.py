"""Task weights: which model leads at every category weighting, and is the lead real (METHODS 5)."""

import streamlit as st

from benchuq.api.summaries import implied_level, to_map_weights
from benchuq.dashboard import controls, plain
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.weights import cached, widgets
from benchuq.dashboard.weights import view as vw
from benchuq.presentation.figures.weights import dominance_figure, probability_figure

CHART_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["select2d", "lasso2d"]}

ctx = current()
st.title("Task weights")
plain.intro("weights")
bench = ctx.require_bench()
st.caption(
    "Every point of the map (a triangle for three categories, a line for two) is a weighting "
    "of the categories; the weighted score is "
    "Σ w_c × (mean score over the category's tasks). A tile takes the colour of the "
    "leading model only where its lead over the runner-up is at least z standard errors "
    "(Longjohn, Gopalan & Casleton 2024, METHODS 5); grey means the data cannot tell the two "
    "apart at that weighting."
)
with guard("The task-weight map"):
    cats = bench.category_names
    if len(cats) < 2:
        st.info(
            "This data set has one category, so there is nothing to weight. Give tasks "
            "categories on the Data page (or upload a task table with a category column)."
        )
        st.stop()
    models = ctx.models
    if len(models) < 2:
        st.info("Select at least two models in the sidebar.")
        st.stop()
    draws_all = ctx.draws_all()
    link = controls.bind(
        vw.WeightsSettings,
        choices={"pick": cats},
        auto={"pick": cats[:3], "merge": vw.default_merge(len(cats))},
        checks={"merge": vw.merge_check(len(cats)), "pick": vw.pick_check},
    )
    merge = link.value.merge
    if len(cats) > 2:
        merge = widgets.map_categories_picker(cats, merge)
    c1, c2, c3 = st.columns([2, 2, 1])
    c1.radio("View", tuple(vw.VIEWS), format_func=vw.VIEWS.get, key="weights_view", horizontal=True)
    controls.ranged(
        c2.slider, vw.WeightsSettings, "z", "z (lead needed, in standard errors)", step=0.05,
        help="2 with rho = 0 is the 'independence' map of Longjohn et al.; z = 2·√½ ≈ 1.41 "
        "equals rho = 0.5 with equal variances ('dependence').",
    )  # fmt: skip
    c2.caption(
        f"z = {st.session_state['z']:.2f} is a {100 * implied_level(st.session_state['z']):.1f}% "
        "level (two-sided, each weighting on its own); the sidebar's level is "
        f"{100 * ctx.level:g}%."
    )
    c3.select_slider(
        "Grid steps", vw.RESOLUTIONS, key="weights_grid",
        help="Points per side: 100 gives 5,151 weightings.",
    )  # fmt: skip
    if draws_all.paired:
        st.toggle(
            "Read the correlation between models from the paired draws", key="weights_pairing",
            help="On: the SE of each difference comes from the draws (no rho needed). Off: "
            "use the rho slider with each model's own variance.",
        )  # fmt: skip
    if not (draws_all.paired and st.session_state["weights_pairing"]):
        controls.ranged(
            st.slider, vw.WeightsSettings, "rho", "Assumed correlation between models (rho)",
            step=0.01,
            help="The draws do not say how models co-vary: the SE of a difference assumes "
            "this correlation (METHODS 5).",
        )  # fmt: skip
    s = link.read(merge=merge)
    mapping = vw.mapping_of(cats, s)
    key_map = tuple(mapping.items())  # order matters: it sets the corners
    source = draws_all if ctx.settings.metric == "normalized" or draws_all.paired else bench
    moments = cached.moments(source, models, key_map)
    pairing = s.pairing and moments.paired
    dm = cached.lead_map(source, models, key_map, s.z, s.rho, s.grid, pairing)
    opts = ctx.figure_options()
    marker = to_map_weights(ctx.weights, cats, mapping)
    rho_text = vw.rho_text(dm, s.rho, moments.paired)
    st.caption(vw.map_caption(dm, s.z, rho_text, ctx.settings.metric, f"{implied_level(s.z):.1%}"))

    def on_select(key: str) -> None:
        widgets.set_weights_from_click(key, cats, bench.categories, mapping)

    shown = [("weights_map", dominance_figure(dm, opts, marker=marker))]
    pm = None
    if s.view != "se":
        pm = cached.probability_map(draws_all, models, key_map, s.grid)
        pfig = probability_figure(pm, opts, marker=marker)
        shown = [*shown, ("weights_prob", pfig)] if s.view == "both" else [("weights_map", pfig)]
    cols = st.columns(2) if len(shown) == 2 else st.columns([5, 3])
    for col, (key, fig) in zip(cols, shown, strict=False):
        col.plotly_chart(
            fig, key=key, config=CHART_CONFIG, selection_mode="points",
            on_select=lambda key=key: on_select(key),
        )  # fmt: skip
    scores = None  # the table goes below at full width: beside the map it hid its columns
    with st.container() if len(shown) == 2 else cols[1]:
        st.subheader("Leaderboard at these weights")
        if marker is None:
            st.info("The sidebar's weights put nothing on these categories.")
        else:
            st.caption(
                vw.weights_text(dm.categories, marker, ".0%")
                + f" — {ctx.level:.1%} normal intervals (sidebar level); the table is below."
            )
            at = tuple(map(float, marker))
            ws, here, best = cached.at_weights(
                source, draws_all, models, key_map, at, s.z, s.rho, pairing, ctx.level
            )
            scores = vw.scores_table(ws, best, opts.scale)
            st.markdown(vw.lead_verdict(here, opts.scale))
    if scores is not None:
        widgets.weighted_scores_table(scores)
    st.caption(vw.shares_text(dm))

    st.subheader("Export for slides")
    st.caption(
        "The same map drawn with python-ternary/matplotlib, with a subtitle stating z, rho, "
        "the level and the data set."
    )
    widgets.slides_downloads(dm, pm, opts.colors, bench.name, marker)
    if not draws_all.paired:
        st.caption(
            "The replicates are not paired (task-level counts): between-model correlation is "
            "unknown, so rho is an assumption. Upload item-level results to read it from the data."
        )

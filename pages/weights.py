"""Task weights: which model leads at every category weighting, and is the lead real (METHODS 5)."""

from urllib.parse import urlencode

import numpy as np
import pandas as pd
import streamlit as st

from benchuq.core.data import Benchmark
from benchuq.core.dominance import (
    BestProbabilityMap,
    CategoryMoments,
    best_probability_map,
    dominance_map,
    from_map_weights,
    implied_level,
    map_categories,
    moments_from_benchmark,
    moments_from_draws,
    to_map_weights,
    weighted_scores,
)
from benchuq.core.draws import Draws
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.figures_weights import clicked_point, dominance_figure, probability_figure
from benchuq.dashboard.ternary_static import FORMATS, dominance_image, probability_image
from benchuq.dashboard.text import md_escape

VIEWS = {"se": "SE rule", "prob": "Probability of best", "both": "Both, side by side"}
RESOLUTIONS = (20, 50, 100, 150, 200)
GROUPS = ("group 1", "group 2", "group 3", "left out")
CHART_KEY = "weights_map"
PROB_CHART_KEY = "weights_prob"


@st.cache_resource(max_entries=16, show_spinner=False)
def analytic_moments(
    content_hash: str, models: tuple[str, ...], mapping: tuple[tuple[str, str], ...], _b: Benchmark
) -> CategoryMoments:
    return moments_from_benchmark(_b.subset(models=list(models)), mapping=dict(mapping))


@st.cache_resource(max_entries=16, show_spinner=False)
def draw_moments(
    draws_key: str, models: tuple[str, ...], mapping: tuple[tuple[str, str], ...], _d: Draws
) -> CategoryMoments:
    return moments_from_draws(_d.select_models(list(models)), mapping=dict(mapping))


@st.cache_resource(max_entries=16, show_spinner="P(best) at every grid point…")
def probability_map(
    draws_key: str,
    models: tuple[str, ...],
    mapping: tuple[tuple[str, str], ...],
    resolution: int,
    _m: CategoryMoments,
) -> BestProbabilityMap:
    return best_probability_map(_m, resolution=resolution)


def category_mapping(cats: tuple[str, ...]) -> dict[str, str]:
    """Two categories as they are; of three or more, the user's pick or merge (2 or 3 on the map).

    With exactly three the choice sits in a collapsed expander (default: all three, a ternary);
    picking two of them draws the two-category line.
    """
    if len(cats) == 2:
        return map_categories(cats)
    if len(cats) == 3:
        box = st.expander("Categories on the map: all three, two of them, or merged")
        label = "Choose the map's categories by"
    else:
        box = st.container()
        box.markdown(f"This data set has {len(cats)} categories; the map shows two or three.")
        label = "Reduce to three by"
    with box:
        how = st.radio(
            label,
            ("pick", "merge"),
            key="w_reduce",
            horizontal=True,
            format_func=lambda k: {"pick": "picking (others weight 0)", "merge": "merging"}[k],
        )
        if how == "pick":
            chosen = st.multiselect(
                "Categories on the map (2 or 3)",
                cats,
                default=list(cats[:3]),
                key="w_pick",
                max_selections=3,
            )
            return map_categories(cats, pick=chosen)
        cols = st.columns(min(len(cats), 4))
        groups = {}
        for k, c in enumerate(cats):
            groups[c] = cols[k % len(cols)].selectbox(
                md_escape(c), GROUPS, index=min(k, 2), key=f"w_merge_{k}"
            )
    members = {g: [c for c in cats if groups[c] == g] for g in GROUPS[:3]}
    names = {
        g: " + ".join(m) if len(m) <= 2 else f"{m[0]} + {len(m) - 1} more"
        for g, m in members.items()
        if m
    }
    return map_categories(cats, merge={c: names[g] for c, g in groups.items() if g in names})


def set_weights_from_click(
    key: str, cats: tuple[str, ...], task_cats: tuple[str, ...], mapping: dict[str, str]
) -> None:
    """Chart callback: the clicked point's weights go to the sidebar.

    A ternary tile gives its ``a, b, c``, a point of the two-category line its ``x`` and
    ``1 - x`` (``clicked_point``); ``from_map_weights`` spreads them over the data categories
    (merged ones by task count, left-out ones 0).
    """
    point = clicked_point(st.session_state.get(key), len(dict.fromkeys(mapping.values())))
    if point is None:
        return
    w = from_map_weights(point, cats, task_cats, mapping)
    for i, x in enumerate(w):
        st.session_state[f"weight_{i}"] = round(float(x), 4)


ctx = current()
st.title("Task weights")
bench = ctx.require_bench()
st.caption(
    "Every point of the map (a triangle for three categories, a line for two) is a weighting "
    "of the categories; the weighted score is "
    "S(w) = Σ w_c × (mean score over the category's tasks). A tile takes the colour of the "
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
    mapping = category_mapping(cats)
    key_map = tuple(mapping.items())  # order matters: it sets the corners

    c1, c2, c3 = st.columns([2, 2, 1])
    view = c1.radio("View", tuple(VIEWS), format_func=VIEWS.get, key="w_view", horizontal=True)
    z = c2.slider(
        "z (lead needed, in standard errors)",
        0.5,
        4.0,
        2.0,
        step=0.05,
        key="z",
        bind="query-params",
        help="2 with rho = 0 is the 'independence' map of Longjohn et al.; z = 2·√½ ≈ 1.41 "
        "equals rho = 0.5 with equal variances ('dependence').",
    )
    resolution = c3.select_slider(
        "Grid steps",
        RESOLUTIONS,
        value=100,
        key="w_resolution",
        help="Points per side: 100 gives 5,151 weightings.",
    )

    draws_all = ctx.draws_all()
    rho = ctx.settings.rho
    normalized = ctx.settings.metric == "normalized"
    if normalized or draws_all.paired:
        moments = draw_moments(ctx.draws_key, models, key_map, draws_all)
    else:
        moments = analytic_moments(bench.content_hash, models, key_map, bench)
    use_pairing = True
    if moments.paired:
        use_pairing = st.toggle(
            "Read the correlation between models from the paired draws",
            value=True,
            key="w_pairing",
            help="On: the SE of each difference comes from the draws (no rho needed). Off: "
            "use the sidebar's rho with each model's own variance.",
        )
    dm = dominance_map(moments, z=z, rho=rho, resolution=resolution, use_pairing=use_pairing)

    opts = ctx.figure_options()
    marker = to_map_weights(ctx.weights, cats, mapping)
    if dm.rho_source == "paired draws":
        rho_text = (
            f"the correlation between models is **read from paired draws** (median implied "
            f"rho {np.nanmedian(dm.rho):.2f}; the sidebar's rho is not used)"
        )
    else:
        rho_text = (
            f"rho = **{rho:.2f} is assumed** (sidebar) because the draws are not paired"
            if not moments.paired
            else f"rho = **{rho:.2f} is assumed** (sidebar), pairing switched off"
        )
    st.caption(
        f"z = {z:.2f} (a two-sided level of {implied_level(z):.1%} per point); {rho_text}. "
        f"Variances: {md_escape(dm.source)}. Metric: {ctx.settings.metric} (sidebar). "
        "Grey = indeterminate: the leader's margin is smaller than z × SE of the difference. "
        + (
            "× = the sidebar's weights; click a tile to use its weights."
            if len(dm.categories) == 3
            else "Dotted line = the sidebar's weights; click a point of the line to use its "
            "weights."
        )
    )

    def on_select(key: str = CHART_KEY) -> None:
        set_weights_from_click(key, cats, bench.categories, mapping)

    def on_select_prob() -> None:
        on_select(PROB_CHART_KEY)

    se_fig = dominance_figure(dm, opts, marker=marker)
    pm = None
    if view in ("prob", "both"):
        pm_moments = draw_moments(ctx.draws_key, models, key_map, draws_all)
        pm = probability_map(ctx.draws_key, models, key_map, resolution, pm_moments)
        pfig = probability_figure(pm, opts, marker=marker)

    chart_cfg = {"displaylogo": False, "modeBarButtonsToRemove": ["select2d", "lasso2d"]}
    if view == "both":
        left, right = st.columns(2)
        with left:
            st.plotly_chart(
                se_fig,
                key=CHART_KEY,
                config=chart_cfg,
                on_select=on_select,
                selection_mode="points",
            )
        with right:
            st.plotly_chart(
                pfig,
                key=PROB_CHART_KEY,
                config=chart_cfg,
                on_select=on_select_prob,
                selection_mode="points",
            )
        table_col = st.container()
    else:
        map_col, table_col = st.columns([5, 3])
        with map_col:
            fig = se_fig if view == "se" else pfig
            st.plotly_chart(
                fig,
                key=CHART_KEY,
                config=chart_cfg,
                on_select=on_select,
                selection_mode="points",
            )

    with table_col:
        st.subheader("Leaderboard at these weights")
        if marker is None:
            st.info("The sidebar's weights put nothing on these categories.")
        else:
            st.caption(
                ", ".join(
                    f"{md_escape(c)} {x:.0%}" for c, x in zip(dm.categories, marker, strict=True)
                )
                + f" — {ctx.level:.1%} normal intervals (sidebar level)."
            )
            ws = weighted_scores(moments, marker, level=ctx.level)
            here = dominance_map(
                moments, z=z, rho=rho, weights=marker[None], use_pairing=use_pairing
            )
            table = pd.DataFrame(
                {
                    "model": ws.models,
                    "score": ws.estimate * opts.scale,
                    "low": ws.low * opts.scale,
                    "high": ws.high * opts.scale,
                }
            )
            pm_here = best_probability_map(
                draw_moments(ctx.draws_key, models, key_map, draws_all), weights=marker[None]
            )
            table["P(best)"] = [pm_here.probability[0, pm_here.models.index(m)] for m in ws.models]
            st.dataframe(
                table,
                hide_index=True,
                column_config={
                    "model": st.column_config.TextColumn(width="medium"),
                    **{
                        c: st.column_config.NumberColumn(format="%.2f", width="small")
                        for c in ("score", "low", "high")
                    },
                    "P(best)": st.column_config.ProgressColumn(
                        format="percent", min_value=0, max_value=1
                    ),
                },
            )
            lead, run = here.models[here.leader[0]], here.models[here.runner_up[0]]
            verdict = (
                f"**{md_escape(lead)}** leads **{md_escape(run)}** by "
                f"{here.difference[0] * opts.scale:.2f} (SE {here.se[0] * opts.scale:.2f}): "
            )
            verdict += (
                "a real lead at this z."
                if here.winner[0] >= 0
                else "within z standard errors — indeterminate."
            )
            st.markdown(verdict)

    shares = dm.shares()
    st.caption(
        "Share of the map: "
        + "; ".join(f"{md_escape(m or 'indeterminate')} {s:.0%}" for m, s in shares.items())
        + f" ({len(dm.weights):,} weightings)."
    )

    with st.expander("Share this map"):
        query = {**st.query_params.to_dict(), "z": f"{z:g}"}
        base = (st.context.url or "").split("?", 1)[0]
        st.code(f"{base}?{urlencode(query)}", language=None, wrap_lines=True)
        st.caption("The sidebar's link plus this page's z.")

    st.subheader("Export for slides")
    st.caption(
        "The same map drawn with python-ternary/matplotlib, with a subtitle stating z, rho, "
        "the level and the data set."
    )
    cols = st.columns(len(FORMATS) * 2 if pm is not None else len(FORMATS))
    for k, (fmt, mime) in enumerate(FORMATS.items()):

        def make_se(fmt: str = fmt) -> bytes:
            return dominance_image(dm, opts.colors, fmt, data=bench.name, marker=marker)

        cols[k].download_button(
            f"SE map {fmt.upper()}",
            data=make_se,
            file_name=f"weights_{bench.name}.{fmt}",
            mime=mime,
            key=f"w_dl_se_{fmt}",
            on_click="ignore",
            icon=":material/download:",
        )
        if pm is not None:

            def make_prob(fmt: str = fmt) -> bytes:
                return probability_image(pm, opts.colors, fmt, data=bench.name, marker=marker)

            cols[len(FORMATS) + k].download_button(
                f"P(best) {fmt.upper()}",
                data=make_prob,
                file_name=f"weights_pbest_{bench.name}.{fmt}",
                mime=mime,
                key=f"w_dl_prob_{fmt}",
                on_click="ignore",
                icon=":material/download:",
            )
    if not draws_all.paired:
        st.caption(
            "The draws are not paired (task-level counts): between-model correlation is unknown, "
            "so rho is an assumption. Upload item-level results to read it from the data."
        )

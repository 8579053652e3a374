"""Small subgroups (METHODS 7): direct vs empirical-Bayes estimates with robust intervals."""

import streamlit as st

from benchuq.dashboard import controls, plain
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import download_buttons, download_csv
from benchuq.dashboard.subgroups import cached, widgets
from benchuq.dashboard.subgroups import view as vs
from benchuq.dashboard.words import say
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.subgroups import (
    eb_vs_direct_figure,
    fit_figure,
    lab_figure,
    shrinkage_figure,
)
from benchuq.presentation.text import md_escape

ctx = current()
st.title("Small subgroups")
plain.intro("subgroups")
st.caption(
    "A model's score on a small subgroup (one subject, one topic) is noisy. Empirical Bayes "
    "(EB) moves each direct estimate toward a regression prediction f by the weight "
    "w = A / (A + se²): small subgroups (large se) borrow more from f, large ones keep their own "
    "score. A is the spread of the true scores around f. The EB intervals are robust [AKP]: "
    "they do not assume the true scores are normal around f [FPAM; METHODS 7]."
)
with guard("The subgroup analysis"):
    bench = ctx.bench
    options = vs.group_options(bench) if bench is not None else ["task"]
    source = controls.bind(
        vs.SubgroupsUnits, choices={"units": options}, auto={"units": options[0]}
    )
    st.radio(
        "Units from", tuple(vs.SOURCES), format_func=vs.SOURCES.get, key="subgroups_source",
        horizontal=True,
    )  # fmt: skip
    if st.session_state["subgroups_source"] == "data":
        bench = ctx.require_bench()
        st.radio(
            "A subgroup is a", options, format_func=vs.GROUP_LABELS.get, key="subgroups_units",
            horizontal=True, help="A unit is one model on one subgroup.",
        )  # fmt: skip
    where = source.read()
    if where.source == "table":
        bench = None
        key, units = widgets.table_upload()
    else:
        bench = ctx.require_bench()
        units = cached.subgroup_units(bench, vs.units_of(where))
        key = f"{bench.content_hash}:{vs.units_of(where)}"
    link = controls.bind(vs.SubgroupsSettings, choices={"features": units.features})
    st.multiselect(
        "Regression features for f (default: the data's)", units.features,
        key="subgroups_features",
        help="intercept; model and subgroup/category effects; log_n = log of the subgroup size; "
        "numeric columns of an uploaded table.",
    )  # fmt: skip
    widgets.subgroup_options()
    s = link.read()
    seed = int(ctx.settings.seed)
    result = cached.subgroup_analysis(
        key, s.features, ctx.level, s.fs, s.kappa, s.crossfit, s.weights, seed, units
    )
    widgets.subgroup_metrics(result, units)
    for note in result.notes:
        st.info(say(note), icon=":material/info:")
    st.markdown(vs.promise_text(ctx.level))

    opts = ctx.figure_options("") if ctx.bench is not None else FigureOptions()
    if units.source == "table" and not vs.proportions(result):
        opts = FigureOptions(opts.colors, 1.0, "estimate", "")
    models = [m for m in dict.fromkeys(result.rows["model"]) if m]
    shown = [m for m in ctx.models if m in models] or models
    model = None
    if models:
        view = controls.bind(vs.SubgroupsView, choices={"model": shown}, auto={"model": shown[0]})
        st.selectbox("Model shown", shown, key="subgroups_model")
        model = view.read().model

    def titled(title: str) -> FigureOptions:
        return FigureOptions(opts.colors, opts.scale, opts.unit, title)

    fig = eb_vs_direct_figure(result, titled("Direct vs empirical Bayes, largest first"), model)
    st.plotly_chart(fig, key="sub_eb_chart", config={"displaylogo": False})
    download_buttons(fig, "subgroups_eb_vs_direct", key="dl_sub_eb")
    left, right = st.columns(2)
    with left:
        fig = shrinkage_figure(result, titled("Shrinkage vs size"))
        st.plotly_chart(fig, key="sub_shrink_chart", config={"displaylogo": False})
        download_buttons(fig, "subgroups_shrinkage", key="dl_sub_shrink")
    with right:
        fig = fit_figure(result, titled("Regression fit" + " (cross-fitted)" * result.crossfit))
        st.plotly_chart(fig, key="sub_fit_chart", config={"displaylogo": False})
        download_buttons(fig, "subgroups_fit", key="dl_sub_fit")
        st.caption(f"f = WLS on {md_escape(', '.join(result.features))}.")
    table = vs.result_table(result)
    st.dataframe(table, hide_index=True, column_order=vs.shown_columns(table), key="sub_table_view")
    download_csv(table, "subgroups", "Download the table (CSV)", key="sub_download")

    st.subheader("Simulation lab")
    st.caption(
        "Take the loaded data as the truth, draw a few items per subgroup, estimate by direct "
        "(DT), regression (SR) and EB, and repeat: how much closer to the truth is EB, and do its "
        "intervals cover? [FPAM]"
    )
    if bench is None or not vs.can_simulate(bench):
        st.info("The lab needs counts or item-level data (a table cannot be resampled).")
        st.stop()
    l1, l2 = st.columns(2)
    controls.ranged(l1.number_input, vs.SubgroupsSettings, "subgroups_lab_n", "Items per subgroup")
    controls.ranged(l2.slider, vs.SubgroupsSettings, "subgroups_lab_reps", "Repetitions", step=10)
    s = link.read()
    lab_key = repr((key, s, ctx.level, seed))
    store = st.session_state.setdefault("_sub_lab", {})
    if st.button("Run the simulation", key="sub_lab_run", icon=":material/play_arrow:"):
        bar = st.progress(0.0, text="Simulating…")

        def tick(done: int, total: int) -> None:
            bar.progress(done / total, text=f"Simulating: {done} of {total} repetitions")

        store.clear()
        store[lab_key] = vs.run_lab(bench, vs.units_of(where), s, ctx.level, seed, tick)
        bar.empty()
    lab = store.get(lab_key)
    if lab is None:
        st.caption("Set the sizes and press the button; results stay until a setting changes.")
    else:
        numbers = ("MSE", "MSE / MSE(DT)", "coverage", "mean width")
        st.dataframe(
            vs.lab_table(lab).style.format(dict.fromkeys(numbers, "{:.4f}"), na_rep="—"),
            hide_index=True,
            key="sub_lab_table",
        )
        st.markdown(vs.lab_text(lab, ctx.level))
        fig = lab_figure(lab, FigureOptions(title="MSE ratio by subgroup (below 1: better)"))
        st.plotly_chart(fig, key="sub_lab_chart", config={"displaylogo": False})
        for note in lab.notes:
            st.caption(say(note))

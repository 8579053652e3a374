"""Plan the next evaluation: detectable differences now and the items needed (METHODS 10)."""

import streamlit as st

from benchuq.core import power as pw
from benchuq.dashboard import cache, views
from benchuq.dashboard import views_power as vp
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import download_buttons
from benchuq.dashboard.figures import FigureOptions
from benchuq.dashboard.figures_power import mde_figure, power_figure, sampling_figure
from benchuq.dashboard.text import md_escape


def inputs(row: tuple[vp.Input, ...], cols: list, **fmt: str) -> None:
    """One row of the page's inputs (``views_power`` lists them; keys are link names)."""
    for col, (kind, label, args, kw) in zip(cols, row, strict=False):
        getattr(col, kind)(label.format(**fmt), *args, help=vp.HELP.get(kw["key"]), **kw)


def data_design(bench) -> tuple[pw.Design | None, list[str]]:
    """Models, score and assumed rho picked from the loaded data; no design with < 2 models."""
    groups = views.group_options(bench.category_names)
    s, notices = vp.check_data(vp.from_widgets(ss), bench, groups)
    if ss["_plan_link"] is not None:  # the link's models and score, checked once
        ss["_plan_notices"] += notices
        ss["_plan_link"] = None
    top = vp.top_models(cache.power_design(bench.content_hash, bench.models, "overall", 0, bench))
    ss["plan_models"], ss["plan_group"] = list(s.models or top), s.group
    c1, c2, c3 = st.columns([3, 2, 2])
    models = c1.multiselect("Models (default: the top three)", bench.models, key="plan_models")
    group = c2.selectbox("Score", groups, format_func=views.group_label, key="plan_group")
    rho = c3.slider(
        "Assumed correlation between models",
        0.0,
        0.99,
        step=0.01,
        key="plan_rho",
        disabled=bench.kind == "items",
        help=vp.HELP["plan_rho"],
    )
    if len(models) < 2:
        st.warning("Pick at least two models.")
        return None, top
    g = tuple(ctx.weights) if group == views.WEIGHTED else group
    return cache.power_design(bench.content_hash, tuple(models), g, rho, bench), top


def show_plan(design: pw.Design) -> None:
    """Common inputs, the sentences, the table, the curves and the K-answers section."""
    scale, unit = pw.display_scale(design)
    inputs(vp.common_inputs(mode), st.columns(5), unit=unit)
    s = vp.from_widgets(ss)
    pairs = tuple(vp.pairs_of(design.models))
    delta = vp.target(s, design, pairs, scale)
    one = delta if isinstance(delta, float) else None
    key = cache.design_key(design)
    d = delta if one is not None else tuple(delta)
    plan = cache.power_plan(key, pairs, s.level, s.power, d, s.family or None, s.correction, design)
    st.subheader("What each pair can detect")
    st.markdown(
        "\n".join(
            "- " + md_escape(plan.sentence(k, scale=scale, unit=unit)) for k in range(len(pairs))
        )
    )
    sub = vp.subtitle(plan)
    notes = [sub.replace("\n", " · "), *vp.caveats(plan)]
    st.caption(". ".join(md_escape(n) for n in notes))
    st.dataframe(vp.pair_table(plan, scale), hide_index=True)
    n, opts = vp.grid(plan), FigureOptions(scale=scale, unit=unit)
    left, right = st.columns(2)
    for col, fig, stem in (
        (left, power_figure(plan, n, one, sub, opts), "power"),
        (right, mde_figure(plan, n, one, sub, opts), "mde"),
    ):
        col.plotly_chart(fig, key=f"plan_{stem}_chart", config={"displaylogo": False})
        with col:
            download_buttons(fig, f"plan_{stem}_{design.name}", key=f"dl_plan_{stem}")
    st.download_button(
        "Download the plan (CSV)",
        vp.plan_csv(plan, scale, unit),
        file_name=f"plan_{design.name}.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
    )
    with st.expander("K answers per item (stochastic generation): more answers or more items?"):
        st.caption(vp.HELP["sampling"])
        if design.n is None:
            st.info("The data give standard errors but no item counts: load counts or items.")
            return
        c1, c2, c3, c4, c5 = st.columns(5)
        names = [f"{a} vs {b}" for a, b in pairs]
        k = c1.selectbox("Pair", range(len(pairs)), format_func=names.__getitem__, key="plan_pair")
        inputs(vp.SAMPLING_INPUTS, (c2, c3, c4, c5))
        sp, text, setting = vp.sampling(plan, k, vp.from_widgets(ss))
        st.markdown(md_escape(text))
        fig = sampling_figure(sp, names[k], f"{sub} · {setting}", opts)
        st.plotly_chart(fig, key="plan_sampling_chart", config={"displaylogo": False})
        download_buttons(fig, f"plan_answers_{design.name}", key="dl_plan_sampling")


ctx, ss = current(), st.session_state
if "_plan_link" not in ss:  # the page's first run: a link's settings go into the widgets
    ss["_plan_link"], ss["_plan_notices"] = vp.parse_link(st.query_params.to_dict())
    ss.update(vp.widget_state(ss["_plan_link"]))
for key, value in vp.widget_state(vp.DEFAULTS).items():
    ss.setdefault(key, value)
st.title("Plan the next evaluation")
st.caption(
    "How small a difference can this benchmark tell apart, and how many items would tell apart "
    "the one you care about? Per pair of models, at a family-wise level (Miller 2024; Methods)."
)
box = st.container()  # link notices: shown until a setting of this page changes
mode = st.radio("Plan", tuple(vp.MODES), format_func=vp.MODES.get, key="plan_mode", horizontal=True)
top: list[str] = []
with guard("The plan"):
    if mode == "new":
        inputs(vp.NEW_INPUTS, st.columns(4) * 2)
        design = vp.assumptions_design(vp.from_widgets(ss))
    elif ctx.bench is None:
        design = None
        st.error(
            md_escape(
                ctx.error or "No data loaded. Pick a sample or upload files on the Data page."
            )
        )
    else:
        design, top = data_design(ctx.bench)
    if design is not None:
        show_plan(design)
for notice in ss["_plan_notices"]:
    box.warning(md_escape(str(notice)), icon=":material/link_off:")
query = vp.to_query(vp.from_widgets(ss), top if mode == "data" else ())
if ss.setdefault("_plan_first_query", query) != query:
    ss["_plan_notices"] = []
st.query_params.update({k: v for k, v in query.items() if st.query_params.get(k) != v})
for name in vp.stale_params(st.query_params.to_dict(), query):
    del st.query_params[name]
with st.expander("Share this plan"):
    st.code(
        vp.share_link(st.context.url, st.query_params.to_dict()), language=None, wrap_lines=True
    )
    st.caption("The sidebar's link plus this page's settings (plan_*; see the README).")

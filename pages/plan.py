"""Plan the next evaluation: detectable differences now and the items needed (METHODS 10)."""

import streamlit as st

from benchuq.api import summaries as pw
from benchuq.core.data import Benchmark
from benchuq.dashboard import controls, plain
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import download_buttons
from benchuq.dashboard.leaderboard import view as views
from benchuq.dashboard.plan import cached
from benchuq.dashboard.plan import view as vp
from benchuq.dashboard.words import say
from benchuq.presentation import state
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.power import (
    item_grid,
    mde_figure,
    plan_subtitle,
    power_figure,
    sampling_figure,
)
from benchuq.presentation.text import md_escape


def inputs(row: tuple[vp.Input, ...], cols: list, **fmt: str) -> None:
    """One row of the page's inputs (``views_power`` lists them; keys are link names)."""
    for col, (kind, label, args, kw) in zip(cols, row, strict=False):
        if not args and kind in ("slider", "number_input"):  # the range of the link field
            args = state.link_range(vp.PlanSettings, kw["key"])
        getattr(col, kind)(label.format(**fmt), *args, help=vp.HELP.get(kw["key"]), **kw)


def data_design(bench: Benchmark) -> pw.Design | None:
    """Models, score and assumed rho picked from the loaded data; no design with < 2 models."""
    c1, c2, c3 = st.columns([3, 2, 2])
    c1.multiselect("Models (default: the top three)", bench.models, key="plan_models")
    c2.selectbox("Score", groups, format_func=views.group_label, key="plan_group")
    controls.ranged(
        c3.slider,
        vp.PlanSettings,
        "plan_rho",
        "Assumed correlation between models",
        step=0.01,
        disabled=bench.kind == "items",
        help=vp.HELP["plan_rho"],
    )
    s = link.now()
    if len(s.models) < 2:
        st.warning("Pick at least two models.")
        return None
    g = tuple(ctx.weights) if s.group == views.WEIGHTED else s.group
    return cached.power_design(bench, s.models, g, s.rho)


def show_plan(design: pw.Design) -> None:
    """Common inputs, the sentences, the table, the curves and the K-answers section."""
    scale, unit = pw.display_scale(design)
    inputs(vp.common_inputs(mode), st.columns(5), unit=unit)
    s = link.now()
    pairs = tuple(vp.pairs_of(design.models))
    delta = vp.target(s, design, pairs, scale)
    one = delta if isinstance(delta, float) else None
    key = cached.design_key(design)
    d = delta if one is not None else tuple(delta)
    plan = cached.power_plan(
        key, pairs, s.level, s.power, d, s.family or None, s.correction, design
    )
    st.subheader("What each pair can detect")
    st.caption(vp.reading_key(s.level, s.power, ctx.level))
    st.markdown(
        "\n".join(
            "- " + md_escape(plan.sentence(k, scale=scale, unit=unit)) for k in range(len(pairs))
        )
    )
    sub = plan_subtitle(plan)
    notes = [sub.replace("\n", " · "), *vp.caveats(plan)]
    st.caption(". ".join(say(n) for n in notes))
    st.dataframe(vp.pair_table(plan, scale), hide_index=True)
    n, opts = item_grid(plan), FigureOptions(scale=scale, unit=unit)
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
        if not plan.var_item[k] * plan.deff[k] > 0:
            st.info(vp.NO_VARIANCE.format(pair=names[k]))
            return
        sp, text, setting = vp.sampling(plan, k, link.now())
        st.markdown(md_escape(text))
        fig = sampling_figure(sp, names[k], f"{sub} · {setting}", opts)
        st.plotly_chart(fig, key="plan_sampling_chart", config={"displaylogo": False})
        download_buttons(fig, f"plan_answers_{design.name}", key="dl_plan_sampling")
        answers_section(link.now())


def answers_section(s: vp.PlanSettings) -> None:
    """From the data's own answers (issue 43): items against answers per item for the sidebar's
    item score, at the settings' budget, today's items or new ones at their cost."""
    raw = st.session_state.get(controls.ANSWERS_KEY)
    if raw is None:
        return
    statistic = current().settings.statistic
    st.markdown(f"**From this data's own answers** ({md_escape(statistic)}, METHODS 10b)")
    with guard("Planning answers per item"):
        per_task = s.budget // len(raw.tasks) if s.budget else None  # the budget is per model
        result = cached.answers_plan(
            raw, statistic, per_task, current().level, s.grow == "keep", s.cost
        )
        st.caption(md_escape(result.plan.sentence()))
        st.dataframe(result.to_frame(), hide_index=True)


ctx = current()
bench = ctx.bench
groups = views.group_options(bench.category_names, ctx.weights) if bench is not None else []
top = vp.top_three(bench, cached.power_design) if bench is not None else ()
link = controls.bind(
    vp.PlanSettings,
    choices={"models": bench.models, "group": groups} if bench is not None else None,
    auto={"models": top},
)
st.title("Plan the next evaluation")
plain.intro("plan")
st.caption(
    "How small a difference can this benchmark tell apart, and how many items would tell apart "
    "the one you care about? Per pair of models, at a family-wise level (Miller 2024; Methods)."
)
mode = st.radio("Plan", tuple(vp.MODES), format_func=vp.MODES.get, key="plan_mode", horizontal=True)
with guard("The plan"):
    if mode == "new":
        inputs(vp.NEW_INPUTS, st.columns(4) * 2)
        design = vp.assumptions_design(link.now())
    elif bench is None:
        design = None
        st.error(
            say(ctx.error or "No data loaded. Pick a sample or upload files on the Data page.")
        )
    else:
        design = data_design(bench)
    if design is not None:
        show_plan(design)
link.read()

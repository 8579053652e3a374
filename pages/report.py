"""Report: the current view as one document for a meeting (findings, figures, caveats, how to
reproduce it), downloaded as HTML (works offline) or PDF."""

import streamlit as st

from benchuq.api.summaries import overall_label
from benchuq.core.reading.sources import parse_source
from benchuq.dashboard import cache, controls, session, upload
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import pdf_download
from benchuq.dashboard.leaderboard.view import default_weights
from benchuq.dashboard.report_page import cached
from benchuq.dashboard.two_runs import cached as two_runs_cached
from benchuq.dashboard.two_runs.view import TwoRunsSettings
from benchuq.dashboard.weights.view import weights_text
from benchuq.presentation import report, state
from benchuq.presentation.figures.common import group_label
from benchuq.presentation.figures.diff import difference_figure
from benchuq.presentation.report_link import REPORT_SCORES, ReportSettings, weights_flags
from benchuq.presentation.text import file_stem, md_escape

ctx = current()
st.title("Report")
st.caption(
    "One document to hand to a manager: who leads and how sure, which models cannot be told "
    "apart, the leaderboard, differences and rank charts, the caveats, and how to reproduce the "
    "numbers. It uses the data, models and settings chosen in the sidebar."
)
if upload.BATTLES_KEY in st.session_state:
    st.info(
        "The pairwise battles uploaded in this session have their own report: the Arena page "
        "downloads it (HTML or PDF). This page reports the per-task scores in the sidebar.",
        icon=":material/sports_score:",
    )
bench = ctx.require_bench()
s = ctx.settings
with guard("The report"):
    draws = ctx.draws()
    binding = controls.bind(ReportSettings)
    weights = tuple(float(w) for w in ctx.weights)
    # a weighted score only at weights other than the default (equal), or when a link (a report's
    # of --weights 1,1,1) asks for it: else it is no choice (#41)
    asked = binding.read().score == "weighted"
    offered = len(bench.category_names) > 1 and (asked or not default_weights(weights))
    if offered:
        st.radio(
            "Score the report is about",
            REPORT_SCORES,
            key="report_score",
            horizontal=True,
            format_func=lambda g: group_label(g, overall_label(draws)),
            help="The overall score (the sidebar's 'Overall score'), or the score weighted by "
            "the sidebar's category weights (now "
            + weights_text(bench.category_names, weights)
            + ").",
        )
    weighted = offered and binding.read().score == "weighted"
    group = weights if weighted else "overall"
    warnings: tuple[str, ...] = ()
    extra: list[str] = []
    fit = None
    if s.method == "bayes":
        b = cache.bayes_settings()
        fit = cache.bayes_fit(bench, b, s.reps, s.seed)
        warnings = fit.warnings
        draws_per_chain = -(-s.reps // b.chains)
        extra = report.bayes_flags(
            b.chains, draws_per_chain, b.warmup, b.sampler, b.priors, b.interval
        )
    normalized = s.metric == "normalized"
    scale, axis, suffix = report.display_unit(bench, normalized=normalized)
    f = cached.report_findings(
        bench, ctx.draws_all(), tuple(ctx.models), ctx.level, (scale, suffix), warnings,
        None if fit is None else fit.diagnostics, group,
    )  # fmt: skip
    query = st.session_state.get(controls.QUERY_KEY) or state.view_query(s, bench.models)
    base = (st.context.url or "").split("?", 1)[0]
    data = [s.data] if parse_source(s.data).linkable else ["YOUR_FILES"]
    command = report.command(
        data, s.method, s.reps, s.seed, s.level, s.models,
        extra
        + weights_flags(weights if weighted else None)
        + (["--normalize"] if normalized else [])
        + (["--overall", s.overall] if s.overall != "auto" else []),
    )  # fmt: skip
    linkable = parse_source(s.data).linkable  # an upload: publish it first (Data page)
    link = state.address(base, query) if linkable else report.NOT_SHARED
    loaded = upload.loaded_for(s.data)
    built = report.build(
        f, bench, draws, ctx.level, query=link, command=command,
        options=ctx.figure_options(), scale=scale, unit=axis, group=group,
        meta=loaded.meta if loaded else None,
    )  # fmt: skip
    prov, figs = built.provenance, built.figures
    runs = session.stored(TwoRunsSettings)  # the Two runs page's choice, when it named both
    two = None
    if runs.source == "data" and runs.base and runs.candidate and runs.base != runs.candidate:
        label = f"Include Two runs: {md_escape(runs.candidate)} vs {md_escape(runs.base)}"
        if st.toggle(label, True, key="rep_runs"):
            result = two_runs_cached.two_runs(
                bench, bench, base_model=runs.base, candidate_model=runs.candidate,
                level=runs.level, margin=runs.margin / scale, sequential=runs.sequential,
                reps=s.reps, seed=s.seed,
            )  # fmt: skip
            two = (result, difference_figure(result, ctx.figure_options()))

    def html() -> bytes:
        return built.html(two_runs=two).encode()

    stem = file_stem(f"benchuq_report_{bench.name}")
    left, right, _ = st.columns([2, 2, 3])
    left.download_button(
        "Download report (HTML)", html, file_name=f"{stem}.html", mime="text/html",
        on_click="ignore", icon=":material/download:", type="primary", key="report_html",
    )  # fmt: skip
    pdf_download(right, html, f"{stem}.pdf", "report_pdf")
    st.caption("The HTML opens in any browser without a network; the PDF is the same pages.")
    if not linkable:
        st.info(
            "These data were uploaded to this session, so no link can show them to anyone "
            "else. To share the report's view, publish the data first (Data page, 'Share these "
            "results'); the report then carries the published link.",
            icon=":material/share:",
        )
    st.subheader(md_escape(bench.name))
    st.markdown("\n\n".join(f"**{md_escape(x)}**" for x in f.answer))
    st.subheader("Findings")
    rest = [x for x in f.headline if x not in f.answer and x not in f.covered]
    st.markdown("\n".join(f"- {md_escape(x)}" for x in rest))
    st.subheader("Leaderboard")
    st.dataframe(report.table_frame(f, scale, axis), hide_index=True)
    st.subheader("Figures")
    for k, r in enumerate(figs):
        st.plotly_chart(r.fig, key=f"report_fig_{k}", config={"displaylogo": False})
        st.caption(md_escape(r.reading))
    if two is not None:
        st.subheader(f"Two runs: {md_escape(two[0].candidate)} vs base {md_escape(two[0].base)}")
        st.markdown("\n".join(f"- {md_escape(r.sentence)}" for r in (two[0].overall,)))
        st.plotly_chart(two[1], key="report_two_runs", config={"displaylogo": False})
    st.subheader("Caveats")
    st.markdown("\n".join(f"- {md_escape(x)}" for x in f.caveats))
    with st.expander("Reproduce these numbers"):
        st.markdown(f"Data hash (sha256): `{prov.data_hash}`")
        st.code(command, language="bash", wrap_lines=True)

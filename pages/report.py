"""Report: the current view as one document for a meeting (findings, figures, caveats, how to
reproduce it), downloaded as HTML (works offline) or PDF."""

from urllib.parse import urlencode

import streamlit as st

from benchuq.core.findings import gaps_from_leader
from benchuq.core.reading.sources import parse_source
from benchuq.dashboard import cache, controls, upload
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import image_bytes
from benchuq.presentation import report, state
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
    warnings: tuple[str, ...] = ()
    extra: list[str] = []
    fit = None
    if s.method == "bayes":
        b = cache.bayes_settings()
        fit = cache.bayes_fit(bench, b, s.reps, s.seed)
        warnings = fit.warnings
        extra = ["--chains", str(b.chains), "--draws", str(-(-s.reps // b.chains))]
        extra += ["--warmup", str(b.warmup), "--sampler", b.sampler, "--interval", b.interval]
        extra += [x for spec in b.priors for x in ("--prior", spec)]
    normalized = s.metric == "normalized"
    scale, axis, suffix = report.display_unit(bench, normalized=normalized)
    f = cache.report_findings(
        ctx.draws_key, tuple(ctx.models), ctx.level, (scale, suffix), warnings, bench,
        ctx.draws_all(), None if fit is None else fit.diagnostics,
    )  # fmt: skip
    query = st.session_state.get(controls.QUERY_KEY) or state.to_query(s)
    base = (st.context.url or "").split("?", 1)[0]
    data = [s.data] if parse_source(s.data).linkable else ["YOUR_FILES"]
    command = report.command(
        data, s.method, s.reps, s.seed, s.level, s.models,
        extra
        + (["--normalize"] if normalized else [])
        + (["--overall", s.overall] if s.overall != "auto" else []),
    )  # fmt: skip
    linkable = parse_source(s.data).linkable  # an upload: publish it first (Data page)
    link = f"{base}?{urlencode(query, safe=':,')}" if linkable else report.NOT_SHARED
    prov = report.provenance(bench, draws, ctx.level, link, command)
    gaps = gaps_from_leader(draws, ctx.level)
    figs = report.figures(f, gaps, ctx.figure_options(), prov, draws.reps)
    loaded = upload.loaded_for(s.data)
    tables = report.details(f, draws, loaded.meta if loaded else None)

    def html() -> bytes:
        svg = lambda fig: image_bytes(fig, "svg")  # noqa: E731
        return report.to_html(f, prov, figs, svg, scale=scale, unit=axis, details=tables).encode()

    stem = file_stem(f"benchuq_report_{bench.name}")
    left, right, _ = st.columns([2, 2, 3])
    left.download_button(
        "Download report (HTML)", html, file_name=f"{stem}.html", mime="text/html",
        on_click="ignore", icon=":material/download:", type="primary", key="report_html",
    )  # fmt: skip
    right.download_button(
        "Download report (PDF)", lambda: report.to_pdf(html().decode()),
        file_name=f"{stem}.pdf", mime="application/pdf", on_click="ignore",
        icon=":material/picture_as_pdf:", key="report_pdf",
    )  # fmt: skip
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
    st.subheader("Caveats")
    st.markdown("\n".join(f"- {md_escape(x)}" for x in f.caveats))
    with st.expander("Reproduce these numbers"):
        st.markdown(f"Data hash (sha256): `{prov.data_hash}`")
        st.code(command, language="bash", wrap_lines=True)

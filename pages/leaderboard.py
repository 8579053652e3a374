"""Leaderboard: a forest plot per group with intervals; models tied with the leader marked."""

import streamlit as st

from benchuq.api.summaries import model_flags, overall_label
from benchuq.core.methods.bootstrap import UNPAIRED_NOTES
from benchuq.dashboard import cache, controls
from benchuq.dashboard.compare import view as views_inference
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import download_buttons, download_csv, download_eee
from benchuq.dashboard.leaderboard import cached
from benchuq.dashboard.leaderboard import view as views
from benchuq.dashboard.words import say
from benchuq.presentation.figures.common import forest_figure
from benchuq.presentation.text import md_escape

ctx = current()
st.title("Leaderboard")
bench = ctx.require_bench()
level = ctx.level
point = "posterior mean" if ctx.settings.method == "bayes" else "observed score"
method = cache.METHODS[ctx.settings.method].label.lower()
st.caption(
    f"Point = {point}; bar = {100 * level:.1f}% percentile interval over "
    f"{ctx.settings.reps} replicates ({method}); overlapping intervals do **not** mean 'no "
    "difference'. " + views_inference.leader_caption(level)
)
with guard("The leaderboard"):
    draws = ctx.draws()
    overall = views.overall_caption(draws.headline)
    st.caption(overall)
    resampling = [n for n in draws.notes if n in UNPAIRED_NOTES]  # shown once, up here
    if not draws.paired:
        st.info(
            say(resampling[0])
            if resampling
            else "Models were resampled independently (task-level counts, no item data): "
            "differences between models ignore any correlation between them.",
            icon=":material/info:",
        )
    weights = tuple(float(w) for w in ctx.weights)
    table = cached.leaderboard_table(ctx.draws_all(), ctx.models, level, weights)
    groups = list(dict.fromkeys(table["group"]))
    if note := views.missing_weighted_note(table, draws.category_names, weights):
        st.info(note, icon=":material/info:")
    if views.WEIGHTED in groups:  # shown only at weights other than the default (#41)
        st.caption(views.weighted_order_note(draws.category_names, weights))
    opts = ctx.figure_options()
    view = controls.bind(views.LeaderboardView)
    if len(draws.models) > min(view.value.top, views.LeaderboardView.top):  # models are hidden
        controls.ranged(
            st.number_input, views.LeaderboardView, "leaderboard_top", "Models per chart"
        )
    top = view.read().top
    columns = 1 if max(len(m) for m in draws.models) > 24 else 2  # long names: one per row

    def charts(first: int, shown: list[str], width: int) -> None:
        cols = st.columns(width)
        for k, group in enumerate(shown):
            part, hidden = views.top_rows(table[table["group"] == group], top)
            title = views.group_label(group, overall_label(draws))
            fig = forest_figure(part, ctx.figure_options(title))
            with cols[k % width]:
                st.plotly_chart(fig, key=f"forest_{first + k}", config={"displaylogo": False})
                if hidden:
                    st.caption(hidden)
                download_buttons(fig, f"leaderboard_{bench.name}_{group}", key=f"dl_{first + k}")

    # the first row: the headline chart, and the weighted score's beside it when weights are
    # set; the other charts and the table are drawn when opened, so a fresh session's first page
    # draws one chart and loads no table code (issue 41: within 1.2x of a bare Streamlit app)
    headline = groups[: 2 if views.WEIGHTED in groups[:2] else 1]
    charts(0, headline, min(columns, len(headline)))
    if rest := groups[len(headline) :]:
        more = st.expander(
            f"Charts per category ({', '.join(md_escape(g) for g in rest)}; numbers in the table)",
            key="leaderboard_more",
            on_change="rerun",
        )
        if more.open:
            with more:
                charts(len(headline), rest, columns)
    fit = None  # a Bayesian run's fit (cached with its draws): unconverged chains are flagged
    if ctx.settings.method == "bayes":
        fit = cache.bayes_fit(bench, cache.bayes_settings(), ctx.settings.reps, ctx.settings.seed)
    flags = model_flags(bench, diagnostics=None if fit is None else fit.diagnostics)
    full = overall_label(draws)  # the CSV names it in full; the cell its first clause
    shown = views.display_table(table, opts.scale, flags=flags, overall=full)
    numbers = st.expander(
        "Table: every group's estimate and interval, with Monte Carlo error",
        key="leaderboard_table",
        on_change="rerun",
    )
    if numbers.open:
        with numbers:
            cells = views.display_table(
                table, opts.scale, flags=flags, overall=views.short_overall(full)
            )
            st.dataframe(
                cells,
                hide_index=True,
                column_order=views.shown_columns(cells),
                column_config={
                    "group": st.column_config.TextColumn(help=f"Overall = {full}."),
                    **{
                        c: st.column_config.NumberColumn(format="%.2f")
                        for c in ("estimate", "low", "high", "MC error (low)", "MC error (high)")
                    },
                },
            )
            st.caption(
                md_escape(f"Overall = {full}. Scores in {opts.unit}.")
                + " MC error: Monte Carlo standard error of each interval end; if it is large "
                "next to the differences you care about, raise the number of replicates."
            )
    download_csv(shown, f"leaderboard_{bench.name}")
    s = ctx.settings  # the raw (not normalized) draws: the files hold the scores as read
    download_eee(
        bench, lambda: cache.get_draws(bench, s.method, s.reps, s.seed, ""), level, "dl_eee"
    )
    for note in draws.notes:  # the data's own notes: the Data page (linked at the top)
        if note not in resampling:
            st.caption(say(note))

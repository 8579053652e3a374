"""Arena (METHODS 8b): Bradley-Terry ratings of pairwise battles, win probabilities, rank sets."""

import streamlit as st

import benchuq
from benchuq.core.reading.sources import UPLOAD
from benchuq.dashboard import cache, controls, plain, publish, upload
from benchuq.dashboard.arena import cached
from benchuq.dashboard.arena import view as va
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import chart_with_download, download_csv, pdf_download
from benchuq.dashboard.words import say
from benchuq.presentation.colors import model_colors
from benchuq.presentation.figures.arena import arena_forest_figure, arena_heatmap
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.ranks import rank_set_figure
from benchuq.presentation.report_arena import arena_html
from benchuq.presentation.text import md_escape

ss = st.session_state


ctx = current()
st.title("Arena")
plain.intro("arena")
st.caption(
    "Pairwise battles (model_a, model_b, winner; Chatbot Arena, MT-Bench pairwise, Arena-Hard, "
    "preference data) rated by a Bradley–Terry model, `logit P(a beats b) = β_a − β_b`, on the "
    "Elo scale, as LMArena does, with intervals that respect how the votes were collected "
    "[METHODS 8b]."
)
with guard("The arena analysis"):
    kept = ss.get(upload.BATTLES_KEY)
    data = ctx.settings.data
    files: tuple[tuple[str, bytes], ...]
    if publish.is_battles(data):  # published battles: the link opens them (#41)
        files, mapping, key = (), {}, data
    elif kept is not None:
        files, mapping = kept
        key = cache.files_digest(files)
    elif data == va.ARENA_SAMPLE:
        files, mapping, key = (), {}, va.ARENA_SAMPLE
    elif data == UPLOAD and (own := upload.current_files()) is not None:
        files, mapping = own
        key = cache.files_digest(files)
    else:
        files, mapping, key = (), {}, va.BATTLES_SAMPLE
        st.info(
            f"'{md_escape(data)}' holds per-task scores, not pairwise battles, so this page "
            f"shows the bundled battles {va.BATTLES_SAMPLE} (human judgments of MT-Bench "
            "answer pairs). Upload a battles table (columns model_a, model_b, winner) on the "
            f"Data page, or choose {va.ARENA_SAMPLE} (AlpacaEval annotations read as battles "
            "against their baseline) in the sidebar.",
            icon=":material/sports_score:",
        )
    battles = cached.battles_of(key, tuple(sorted(mapping.items())), files)
    options = tuple(battles.models)
    link = controls.bind(
        va.ArenaSettings,
        choices={
            "anchor": ("", *options),
            "control": va.control_options(tuple(battles.covariates)),
        },
    )
    c1, c2, c3 = st.columns(3)
    c1.selectbox(
        "Anchor (fixed at 1000)", ("", *options), key="arena_anchor",
        format_func=lambda m: m or "the mean of all models",
    )  # fmt: skip
    c2.radio(
        "Ties", tuple(va.TIES_LABELS), format_func=va.TIES_LABELS.get, key="arena_ties",
        help="Half: a tie is half a win for each side (LMArena). Davidson: a tie model with its "
        "own tie ratio (needs win/tie/loss outcomes, not graded preferences).",
    )  # fmt: skip
    c3.radio(
        "Intervals", tuple(va.INTERVAL_LABELS), format_func=va.INTERVAL_LABELS.get,
        key="arena_interval",
        help="Sandwich: robust standard errors, clustered by prompt (or judge) when the data "
        "have it. Bootstrap: resample battles (or prompts) with the sidebar's replicates.",
    )  # fmt: skip
    st.multiselect(
        "Style control", va.control_options(tuple(battles.covariates)), key="arena_control",
        help="Battle-level covariates (e.g. answer length: length_a and length_b) in the model "
        "(contextual Bradley–Terry); ratings without them are shown as open circles.",
    )  # fmt: skip
    s = link.read()
    boot = s.interval == "bootstrap"
    result = cached.arena_fit(
        battles.content_hash(),
        s.anchor or None,
        ctx.level,
        s.ties,
        s.interval,
        tuple(s.control),
        int(ctx.settings.reps) if boot else 1000,
        int(ctx.settings.seed),
        battles,
    )
    st.caption(md_escape(va.caption(result)))
    st.markdown(f"**{md_escape(result.sentence())}**")
    command = va.command(key, s, result.level)

    def html() -> bytes:
        """The arena report (METHODS 8b) as one HTML file."""
        return arena_html(result, command=command, version=benchuq.__version__).encode()

    left, right, _ = st.columns([2, 2, 3])
    left.download_button(
        "Download report (HTML)", html, file_name=f"arena_report_{battles.name}.html",
        mime="text/html", on_click="ignore", icon=":material/download:", key="arena_html",
    )  # fmt: skip
    pdf_download(right, html, f"arena_report_{battles.name}.pdf", "arena_pdf")
    colors = model_colors(options)

    def opts(title: str) -> FigureOptions:
        """Colours of the battles' models and a title."""
        return FigureOptions(colors, 1.0, "rating", title)

    left, right = st.columns(2)
    with left:
        title = f"Arena ratings, {100 * result.level:g}% intervals"
        chart_with_download(
            arena_forest_figure(result, opts(title)), "arena_forest", f"arena_{battles.name}"
        )
    with right:
        title = f"Rank sets ({100 * result.level:g}%)"
        chart_with_download(
            rank_set_figure(result.rank_sets, opts(title)),
            "arena_ranks",
            f"arena_ranks_{battles.name}",
        )
    table = va.leaderboard_table(result)
    st.dataframe(table, hide_index=True)
    download_csv(table, f"arena_{battles.name}", "Download arena table (CSV)")
    title = "Expected score of row vs column (a tie counts half)"
    chart_with_download(
        arena_heatmap(result, opts(title)), "arena_heatmap", f"arena_win_{battles.name}"
    )
    if result.controls:
        effects = zip(result.controls, result.coefficients, result.coefficient_se, strict=True)
        for c, v, se in effects:
            st.caption(f"Style control {md_escape(c)}: {v:+.1f} Elo points per SD (se {se:.1f}).")
    for note in result.notes:
        st.caption(say(note))

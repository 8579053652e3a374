"""Entry of the benchuq dashboard: ``streamlit run dashboard/app.py`` from the repository root.

Adding a page is one line in :data:`PAGES` (file in ``pages/``, title, icon); the page calls
``dashboard.context.current()`` to get the data, draws, level, weights and model selection, and
puts its own settings in the link with ``dashboard.controls.bind`` (registered in
``dashboard.links``).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from benchuq.dashboard import context, controls, data_notes, export, landing, runtime

PAGES_DIR = Path(__file__).resolve().parents[1] / "pages"

# (file in pages/, title, icon); the first page is the default.
PAGES: list[tuple[str, str, str]] = [
    ("leaderboard.py", "Leaderboard", ":material/leaderboard:"),
    ("table.py", "Leaderboard table", ":material/table_view:"),
    ("report.py", "Report", ":material/summarize:"),
    ("compare.py", "Compare models", ":material/compare_arrows:"),
    ("ranks.py", "Ranks", ":material/format_list_numbered:"),
    ("weights.py", "Task weights", ":material/change_history:"),
    ("epp.py", "Win probabilities (EPP)", ":material/sports_score:"),
    ("arena.py", "Arena", ":material/swords:"),
    ("bayes.py", "Bayesian model", ":material/model_training:"),
    ("embeddings.py", "Embeddings", ":material/scatter_plot:"),
    ("subgroups.py", "Small subgroups", ":material/group_work:"),
    ("plan.py", "Plan the next evaluation", ":material/calculate:"),
    ("data.py", "Data", ":material/upload_file:"),
    ("methods.py", "Methods", ":material/menu_book:"),
]


def main() -> None:
    """Run one script run: page config, navigation, the sidebar, link notices, the page."""
    st.set_page_config(
        page_title="benchuq — honest leaderboards", page_icon=":material/analytics:", layout="wide"
    )
    pages = {
        f: st.Page(PAGES_DIR / f, title=t, icon=i, default=(k == 0))
        for k, (f, t, i) in enumerate(PAGES)
    }
    nav = st.navigation(list(pages.values()), expanded=True)  # every page listed, none hidden
    first_visit = landing.first_visit()  # before the sidebar writes the link
    ctx = controls.sidebar(help_page=pages["methods.py"])
    context.store(ctx)
    controls.show_notices()
    data_notes.pointer(ctx, pages["data.py"], nav)
    st.session_state[export.PAGE_KEY] = nav.title  # for the exported charts' subtitles
    first_visit = first_visit and not landing.yields_to(ctx)  # the data, once it is theirs
    if first_visit and nav.url_path == pages[PAGES[0][0]].url_path:  # explains itself
        landing.intro(ctx, pages["data.py"], pages["report.py"])
    nav.run()


with (
    runtime.stop_with_session(),  # a closed tab's core work stops (dashboard/runtime.py)
    runtime.run_logged(lambda: str(st.session_state.get(export.PAGE_KEY, ""))),
):
    main()

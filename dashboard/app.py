"""Entry of the benchuq dashboard: ``streamlit run dashboard/app.py`` from the repository root.

Adding a page is one line in ``dashboard.links.PAGES`` (file in ``pages/``, title, icon,
settings classes); the page calls ``dashboard.context.current()`` to get the data, draws,
level, weights and model selection, and puts its own settings in the link with
``dashboard.controls.bind``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from benchuq.dashboard import context, controls, data_notes, export, landing, runtime
from benchuq.dashboard.links import PAGES

PAGES_DIR = Path(__file__).resolve().parents[1] / "pages"


def main() -> None:
    """Run one script run: page config, navigation, the sidebar, link notices, the page."""
    st.set_page_config(
        page_title="benchuq — honest leaderboards", page_icon=":material/analytics:", layout="wide"
    )
    pages = {
        p.file: st.Page(PAGES_DIR / p.file, title=p.title, icon=p.icon, default=(k == 0))
        for k, p in enumerate(PAGES)
    }
    nav = st.navigation(list(pages.values()), expanded=True)  # every page listed, none hidden
    first_visit = landing.first_visit()  # before the sidebar writes the link
    st.session_state[controls.PAGE_PATH] = nav.url_path  # the share box's Arena check (#41)
    ctx = controls.sidebar(help_page=pages["methods.py"])
    context.store(ctx)
    controls.show_notices()
    own_data = next(p.own_data for p in PAGES if pages[p.file].url_path == nav.url_path)
    data_notes.pointer(ctx, pages["data.py"], nav, own_data=own_data)
    data_notes.few_items(ctx, own_data=own_data)  # every page: results on few items (#29)
    st.session_state[export.PAGE_KEY] = nav.title  # for the exported charts' subtitles
    first_visit = first_visit and not landing.yields_to(ctx)  # the data, once it is theirs
    if first_visit and nav.url_path == pages[PAGES[0].file].url_path:  # explains itself
        landing.intro(ctx, pages["data.py"], pages["report.py"])
    nav.run()


with (
    runtime.stop_with_session(),  # a closed tab's core work stops (dashboard/runtime.py)
    runtime.run_logged(lambda: str(st.session_state.get(export.PAGE_KEY, ""))),
):
    main()

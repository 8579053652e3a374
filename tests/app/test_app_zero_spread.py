"""AppTest: zero spread is named on the pages (issue #39, METHODS 2g)."""

from __future__ import annotations

from app_upload import open_data_page
from conftest import page_path

from benchuq.core.zero_spread import PREFIX


def test_the_app_names_zero_spread_on_compare_and_ranks(make_app) -> None:
    """Every given se 0: the Leaderboard, Compare and Ranks pages say no uncertainty was
    measured (a warning on the page), not only a zero-width interval."""
    csv = (
        b"model,task,estimate,se\na,t1,0.5,0\nb,t1,0.6,0\nc,t1,0.7,0\n"
        b"a,t2,0.4,0\nb,t2,0.5,0\nc,t2,0.6,0\n"
    )
    at = open_data_page(make_app)
    at.file_uploader(key="uploader").set_value([("se0.csv", csv, "text/csv")]).run()
    assert not at.exception, [e.value for e in at.exception]
    for page in ("compare.py", "ranks.py"):
        at.switch_page(page_path(page)).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        shown = "\n".join(w.value for w in at.warning).replace("\\", "")
        assert PREFIX in shown, page

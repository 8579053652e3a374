"""AppTest: an upload where no model has every task (each model lacks a whole category) opens
on every page without a traceback (a page that cannot use such data says why and how to fix
it); the Leaderboard says why the weighted score is missing."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import page_path

#: Two categories; model A has only c1, model B only c2, model C both (one task each).
SPARSE = b"""model,task,category,n,correct
A,t1,c1,100,80
A,t2,c1,100,78
B,t3,c2,100,70
B,t4,c2,100,66
C,t1,c1,100,60
C,t3,c2,100,64
"""
#: Each model lacks a whole category: there is no weighted score at all.
DISJOINT = b"""model,task,category,n,correct
A,t1,c1,100,80
B,t2,c2,100,70
"""
PAGES = sorted(p.name for p in (Path(__file__).parents[2] / "pages").glob("[!_]*.py"))


def _upload(make_app, data: bytes):
    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    at.file_uploader(key="uploader").set_value([("sparse.csv", data, "text/csv")]).run()
    assert at.query_params["data"] == "upload"
    return at


@pytest.mark.slow
@pytest.mark.parametrize("data", [SPARSE, DISJOINT], ids=["sparse", "disjoint"])
def test_every_page_opens_on_a_sparse_upload(make_app, data: bytes) -> None:
    at = _upload(make_app, data)
    for page in PAGES:
        at.switch_page(page_path(page)).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        for e in at.error:  # what a page cannot do with such data, it says, with the fix
            assert "column '" in e.value and "How to fix" in e.value, (page, e.value)


def test_leaderboard_says_why_the_weighted_score_is_missing(make_app) -> None:
    at = _upload(make_app, DISJOINT)
    at.switch_page(page_path("leaderboard.py")).run()
    assert not any("no weighted score" in i.value for i in at.info)  # default weights: no S(w)
    at.session_state["weight_0"] = 2.0
    at.run()
    assert not at.exception and not at.error
    assert any("no weighted score to show" in i.value for i in at.info)

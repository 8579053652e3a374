"""AppTest: user strings with markup, formulas and bidi controls are shown inert on every page.

A data set whose model, task and category names carry a Markdown link, an HTML link, a formula
and a right-to-left override is uploaded; every page's text (Markdown) and every chart's spec
(Plotly text) must show them escaped, never as live markup.
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import page_path

LINK = '<a href="http://evil.example">x</a>'
MODELS = (LINK, '=HYPERLINK("http://evil.example")', "\u202egnp.exe", "[a](http://evil.example)")
CATS = (LINK, "**bold**")


def _q(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


HOSTILE = (
    "model,task,category,n,correct\n"
    + "".join(
        f"{_q(m)},t{j},{_q(CATS[j % 2])},200,{60 + 20 * i + 7 * j}\n"
        for i, m in enumerate(MODELS)
        for j in range(4)
    )
).encode()
PAGES = ("leaderboard.py", "compare.py", "ranks.py", "epp.py", "weights.py", "table.py",
         "bayes.py", "subgroups.py", "embeddings.py", "plan.py")  # fmt: skip
RAW_HTML = re.compile(r"<a\s|\u202e")  # Plotly renders an HTML subset, not Markdown
# a live link, a bidi override, a Markdown link, or a URL that Markdown would auto-link
RAW_MARKUP = re.compile(r"(?<!\\)<a\s|\u202e|(?<!\\)\]\((?!/)|evil\.example")


def _texts(at) -> list[str]:
    """Every Markdown-rendered string of the run (markdown, captions, alerts)."""
    out = []
    for kind in ("markdown", "caption", "error", "warning", "info", "success"):
        out += [str(e.value) for e in at.get(kind)]
    return out


def _specs(at) -> list[str]:
    return [e.proto.spec for e in at.get("plotly_chart")]


@pytest.mark.slow
def test_hostile_names_are_inert_on_every_page(make_app) -> None:
    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    at.file_uploader(key="uploader").set_value([("h.csv", HOSTILE, "text/csv")]).run()
    assert not at.exception
    assert at.query_params["data"] == "upload", [e.value for e in at.error]
    for page in PAGES:
        at.switch_page(page_path(page)).run()
        assert not at.exception, page
        specs = _specs(at)
        assert specs or page == "table.py", page
        for spec in specs:
            fig = json.loads(spec)
            text = json.dumps([fig["data"], fig["layout"]], ensure_ascii=False)
            found = RAW_HTML.search(text)
            assert not found, (page, text[max(found.start() - 150, 0) : found.end() + 50])
        for text in _texts(at):
            assert not RAW_MARKUP.search(text), (page, text)


def test_upload_error_quoting_markup_is_escaped(make_app) -> None:
    bad = b"model,task,n,correct\nA,t,10,50\n"
    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    at.file_uploader(key="uploader").set_value(
        [("[a](http://evil.example).csv", bad, "text/csv")]
    ).run()
    assert not at.exception
    errors = [str(e.value) for e in at.error]
    assert errors and all(not RAW_MARKUP.search(t) for t in errors), errors
    assert any("evil" in t for t in errors)


APP_CASES = ("only_separators", "bom_only", "json_bigint_n", "json_bool_counts", "nul_after_4k",
             "zip_traversal", "lm_eval_acc_bigint", "json_object_name")  # fmt: skip


@pytest.mark.parametrize("case_id", APP_CASES)
def test_hostile_upload_gets_a_message_not_a_traceback(make_app, case_id: str) -> None:
    from hostile_corpus import answered

    case = next(c for c in answered() if c.id == case_id)
    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    at.file_uploader(key="uploader").set_value([(case.name, case.data, "text/plain")]).run()
    assert not at.exception
    if at.query_params.get("data") != "upload":  # refused: a message naming the file, old data
        errors = " ".join(e.value.replace("\\", "") for e in at.error)
        assert case.name.split(".")[0] in errors and "How to fix" in errors, errors
        assert "data" not in at.query_params  # kept: the default sample, left out of the link
    at.switch_page(page_path("leaderboard.py")).run()
    assert not at.exception and at.get("plotly_chart")


@pytest.mark.slow
def test_hostile_embedding_names_are_inert(make_app) -> None:
    """Embeddings page: model names (the .npz's array names) and feature labels with markup."""
    import io

    import numpy as np
    import pandas as pd

    from benchuq.core.analyses.embeddings.synthetic import synthetic_clusters

    x, y = synthetic_clusters("partial", k=3, n=20, d=4, seed=0)
    ids = np.array([f"e{i}" for i in range(len(y))])
    names = {"c0": LINK, "c1": "[a](http://evil.example)", "c2": "\u202egnp.exe"}
    labels = [names[c] for c in y]
    buf = io.BytesIO()
    np.savez(buf, ids=ids, **{"<b>m</b> evil.example": x, "\u202egnp.exe": x[::-1]})
    meta = pd.DataFrame({"id": ids, "topic": labels}).to_csv(index=False).encode()
    at = make_app().run()
    at.switch_page(page_path("embeddings.py")).run()
    at.checkbox(key="embeddings_auto_reps").uncheck().run()
    at.number_input(key="embeddings_reps").set_value(100).run()
    at.radio(key="embeddings_source").set_value("upload").run()
    at.get("file_uploader")
    at.file_uploader(key="emb_files").set_value([("m.npz", buf.getvalue(), "application/x")])
    at.file_uploader(key="emb_meta").set_value(("meta.csv", meta, "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    specs = _specs(at)
    assert specs and any("&lt;b&gt;m" in s for s in specs)  # the names are drawn, escaped
    for spec in specs:
        fig = json.loads(spec)
        text = json.dumps([fig["data"], fig["layout"]], ensure_ascii=False)
        assert not RAW_HTML.search(text) and "<b>m" not in text, text[:300]
    for text in _texts(at):
        assert not RAW_MARKUP.search(text), text

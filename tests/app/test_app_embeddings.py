"""Embeddings page (METHODS 9) through AppTest, and its pure figure builders."""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from conftest import page_path
from streamlit.testing.v1 import AppTest

from benchuq.core.analyses.embeddings.scores import consistency
from benchuq.core.analyses.embeddings.synthetic import synthetic_clusters
from benchuq.core.analyses.embeddings.tree import binarize, fit_tree
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.embeddings import confusion_heatmap, score_figure, tree_figure

PAGE = page_path("embeddings.py")


def _open(make_app: Callable[..., AppTest]) -> AppTest:
    at = make_app()
    at.run()
    at.switch_page(PAGE).run()
    at.checkbox(key="embeddings_auto_reps").uncheck().run()
    at.number_input(key="embeddings_reps").set_value(100).run()
    return at


def _charts(at: AppTest) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def _clean(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def _npz(**arrays: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _upload(at: AppTest, emb: bytes, meta: pd.DataFrame, name: str = "models.npz") -> AppTest:
    at.radio(key="embeddings_source").set_value("upload").run()
    at.get("file_uploader")  # the uploaders exist once 'Upload' is chosen
    meta_bytes = meta.to_csv(index=False).encode()
    at.file_uploader(key="emb_files").set_value([(name, emb, "application/octet-stream")])
    at.file_uploader(key="emb_meta").set_value(("meta.csv", meta_bytes, "text/csv")).run()
    return at


def _labelled(n: int = 60) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    x, y = synthetic_clusters("partial", k=3, n=n // 3, d=4, seed=0)
    ids = np.array([f"e{i}" for i in range(len(y))])
    return x, ids, pd.DataFrame({"id": ids, "topic": y})


# ---- the page ------------------------------------------------------------------------------
@pytest.mark.slow  # the first AppTest run imports the whole app (about 8 s)
def test_sample_page_shows_scores_confusion_and_table(make_app) -> None:
    at = _open(make_app)
    _clean(at)
    assert at.title[0].value == "Embedding consistency"
    charts = _charts(at)
    assert [c["data"][0]["type"] for c in charts] == ["bar", "heatmap"]
    table = at.dataframe[0].value
    assert table["model"].tolist()[:4] == [f"minilm_layer_{k}" for k in (1, 2, 4, 6)]
    assert {"alp", "alp_low", "alp_high", "accuracy"} <= set(table.columns)
    assert (table["alp_low"] <= table["alp"]).all() and (table["alp"] <= table["alp_high"]).all()
    # the random baseline is the least consistent by accuracy
    assert table.set_index("model")["accuracy"].idxmin() == "random"


def test_synthetic_sample_line_chart_and_accuracy(make_app) -> None:
    at = _open(make_app)
    at.selectbox(key="embeddings_sample").set_value("synthetic").run()
    at.radio(key="embeddings_score").set_value("accuracy").run()
    at.radio(key="embeddings_chart").set_value("line").run()
    _clean(at)
    score = _charts(at)[0]["data"][0]
    assert score["type"] == "scatter" and score["x"] == ["separated", "partial", "overlapping"]
    accuracy = at.dataframe[0].value.set_index("model")["accuracy"]
    assert accuracy["separated"] >= 0.99 and abs(accuracy["overlapping"] - 0.1) < 0.1


@pytest.mark.slow
def test_several_features_grow_a_tree(make_app) -> None:
    at = _open(make_app)
    [columns] = [m for m in at.multiselect if m.label.startswith("Clusters")]
    columns.set_value(["dataset", "length_words"]).run()
    at.number_input(key="embeddings_depth").set_value(2).run()
    _clean(at)
    assert "icicle" in [c["data"][0]["type"] for c in _charts(at)]
    assert at.code[0].value.startswith("all (805): split on [length_words")
    at.text_input(key="embeddings_prior").set_value("dataset=1e300").run()
    _clean(at)
    assert at.code[0].value.startswith("all (805): split on [dataset")
    at.text_input(key="embeddings_prior").set_value("dataset").run()
    assert not at.exception and "COLUMN=WEIGHT" in at.error[0].value


def test_upload_scores_the_files(make_app) -> None:
    x, ids, meta = _labelled()
    shuffled = np.random.default_rng(0).permutation(x)  # rows no longer match the labels
    at = _upload(_open(make_app), _npz(ids=ids, good=x, noise=shuffled), meta)
    _clean(at)
    table = at.dataframe[0].value.set_index("model")
    assert table.loc["good", "accuracy"] > table.loc["noise", "accuracy"]
    assert not at.warning
    # a tiny ridge makes out-of-fold posteriors extreme: heavy clipping is flagged
    at.number_input(key="embeddings_eps").set_value(1e-6).run()
    at.number_input(key="embeddings_dims").set_value(4).run()
    at.number_input(key="embeddings_clip").set_value(0.1).run()
    assert any("optimistic" in w.value for w in at.warning)


def test_bootstrap_choice_is_applied_and_named(make_app) -> None:
    x, ids, meta = _labelled(90)
    at = _upload(_open(make_app), _npz(ids=ids, m=x), meta)
    widths = {}
    phrases = {
        "refit": "refitting the Gaussians",
        "linear": "linearised refit",
        "scores": "held fixed",
    }
    for mode, phrase in phrases.items():
        at.radio(key="embeddings_bootstrap").set_value(mode).run()
        _clean(at)
        assert any(phrase in c.value for c in at.caption)
        row = at.dataframe[0].value.iloc[0]
        widths[mode] = row["alp_high"] - row["alp_low"]
        # only resampled scores ignore the fitting error of the ALP: the page says so for them
        assert any("too narrow" in i.value for i in at.info) == (mode == "scores")
        # the linear accuracy interval is named apart (it leaves out the fitting error), and so
        # is the refit one (flipped hits rescaled by 1/sqrt(spread))
        notes = [c.value for c in at.caption if c.value.startswith("Accuracy intervals")]
        assert len(notes) == (mode != "scores")
        if notes:
            accuracy_phrase = {"linear": "leaves out the error of fitting", "refit": "1/sqrt"}
            assert accuracy_phrase[mode] in notes[0]
    assert widths["scores"] < widths["refit"] and widths["scores"] < widths["linear"]


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("mismatched", "have no embedding, e.g. 'e5'"),
        ("singleton", "has only one entity"),
        ("nonfinite", "non-finite"),
    ],
)
def test_bad_uploads_show_clear_messages(make_app, case: str, message: str) -> None:
    x, ids, meta = _labelled()
    if case == "mismatched":
        ids = ids.copy()
        ids[5] = "stranger"
    elif case == "singleton":
        meta.loc[7, "topic"] = "lonely"
    else:
        x = x.copy()
        x[3, 2] = np.nan
    at = _upload(_open(make_app), _npz(ids=ids, m=x), meta)
    assert not at.exception
    errors = [e.value.replace("\\", "") for e in at.error]  # as rendered (md escapes undone)
    assert len(errors) == 1 and message in errors[0]
    assert "How to fix" in errors[0]


def test_uploads_are_cached_by_content_not_by_name(make_app) -> None:
    """Two sessions upload a file of the same name with different vectors: each sees its own."""
    x, ids, meta = _labelled()
    first = _upload(_open(make_app), _npz(ids=ids, m=x), meta)
    noise = np.random.default_rng(0).standard_normal(x.shape)
    second = _upload(_open(make_app), _npz(ids=ids, m=noise), meta)
    a = first.dataframe[0].value["accuracy"].iloc[0]
    b = second.dataframe[0].value["accuracy"].iloc[0]
    assert a > b + 0.2


# ---- figure builders -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def result():
    x, y = synthetic_clusters("partial", k=3, n=40, d=4, seed=0)
    shuffled = np.random.default_rng(0).permutation(x)
    return consistency({"<b>bold</b>": x, "plain": shuffled}, y, reps=100)


def test_score_figure_bars_intervals_and_escaping(result) -> None:
    fig = score_figure(result, "alp", FigureOptions(colors={"plain": "#123456"}))
    bar = fig.data[0]
    assert list(bar.x) == ["&lt;b&gt;bold&lt;/b&gt;", "plain"]
    s = result.scores[0]
    assert bar.error_y.array[0] == pytest.approx(s.alp.high - s.alp.estimate)
    assert bar.error_y.arrayminus[0] == pytest.approx(s.alp.estimate - s.alp.low)
    assert bar.marker.color[1] == "#123456"
    assert "<b>bold</b>" not in json.dumps(fig.to_plotly_json())
    with pytest.raises(ValueError, match="metric"):
        score_figure(result, "f1", FigureOptions())


def test_confusion_heatmap_rows_are_posteriors(result) -> None:
    fig = confusion_heatmap(result.scores[0], result.clusters, FigureOptions())
    z = np.array(fig.data[0].z)
    assert z.shape == (3, 3)
    np.testing.assert_allclose(z.sum(axis=1), 1.0)
    assert (np.diag(z) > 0.4).all()


def test_tree_figure_nodes_and_parents() -> None:
    x, y = synthetic_clusters("separated", k=4, n=30, d=4, seed=0)
    meta = pd.DataFrame({"c": y, "half": np.where(np.isin(y, ["c0", "c1"]), "<i>a</i>", "b")})
    tree = fit_tree(x, binarize(meta, ["half", "c"]), max_depth=2, min_leaf=10, dims=4)
    fig = tree_figure(tree, FigureOptions())
    icicle = fig.data[0]
    assert len(icicle.ids) == len(tree.nodes)
    assert icicle.parents[0] == "" and all(p for p in icicle.parents[1:])
    assert list(icicle.values) == [n.size for n in tree.nodes]
    assert "<i>a</i>" not in json.dumps(fig.to_plotly_json())

"""Embeddings (METHODS 9, [MHP]): do a model's embeddings agree with the entities' meta features?"""

import pandas as pd
import streamlit as st

from benchuq.api.summaries import EMBEDDING_SAMPLES, SAMPLE_LABELS
from benchuq.core.reading.sources import sample_source
from benchuq.dashboard import controls, plain
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.embeddings import cached, widgets
from benchuq.dashboard.embeddings import view as ve
from benchuq.presentation.colors import PALETTE
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.embeddings import confusion_heatmap, score_figure, tree_figure
from benchuq.presentation.text import md_escape

st.title("Embedding consistency")
plain.intro("embeddings")
st.caption(
    "Each meta category (or each leaf of an EmbeddingTree over several features) gets a "
    "Gaussian; **ALP** is the mean log posterior of each entity's own cluster (0 = perfectly "
    "consistent) and **accuracy** the share whose most probable cluster is the right one. Scores "
    "are averaged over random heads of a few dimensions, posteriors come from Gaussians fitted "
    "on the other folds, and intervals come from a bootstrap over entities (paired across "
    "models) [MHP; METHODS 9]."
)

ctx = current()
if ctx.bench is not None:  # every page follows the sidebar's data set, or says why not
    st.info(
        f"The sidebar's data set, **{md_escape(ctx.bench.name)}**, holds scores of models on "
        "tasks, not embeddings: this page needs each entity's embedding vector and its meta "
        "features, so it reads its own inputs below (a bundled embedding sample, or your "
        "embedding files and meta table).",
        icon=":material/info:",
    )

with guard("The embedding analysis"):
    source = controls.bind(ve.EmbeddingsInputs)
    st.radio("Embeddings", tuple(ve.SOURCES), format_func=ve.SOURCES.get, key="embeddings_source",
             horizontal=True)  # fmt: skip
    if st.session_state["embeddings_source"] == "sample":
        st.selectbox(
            "Sample", tuple(EMBEDDING_SAMPLES), key="embeddings_sample",
            format_func=lambda n: f"{n} — {EMBEDDING_SAMPLES[n]}",
        )  # fmt: skip
    where = source.read()
    if where.source == "sample":
        inputs, digest = cached.embedding_sample(where.sample), sample_source(where.sample)
        label = SAMPLE_LABELS[where.sample]
    else:
        uploaded = widgets.embedding_upload()
        if uploaded is None:
            st.stop()
        (digest, inputs), label = uploaded, ""
    embeddings, meta = inputs
    models = tuple(embeddings)
    st.caption(ve.inputs_caption(embeddings, meta))
    columns = [str(c) for c in meta.columns]
    link = controls.bind(
        ve.EmbeddingsSettings,
        choices={"columns": columns, "reference": models},
        auto={"columns": (label if label in columns else columns[0],), "reference": models[0]},
        checks={"prior": ve.prior_check},
    )
    st.multiselect(
        "Clusters from meta feature(s)", columns, key="embeddings_columns",
        help="One feature: its categories are the clusters (numeric features are cut into "
        "quantile bins). Several: an EmbeddingTree splits on them and its leaves are the clusters.",
    )  # fmt: skip
    with st.expander("Settings", expanded=False):
        widgets.embedding_settings(models, len(st.session_state["embeddings_columns"]) > 1)
    st.radio(
        "Intervals", tuple(ve.BOOTSTRAP_CHOICES), format_func=ve.BOOTSTRAP_CHOICES.get,
        horizontal=True, key="embeddings_bootstrap", help=ve.BOOTSTRAP_HELP,
    )  # fmt: skip
    st.caption(
        "Linearised refit: Refit's interval to first order, computed in one pass — seconds where "
        "refitting takes minutes."
    )
    s = link.read()
    if not s.columns:
        st.warning("Pick at least one meta feature.")
        st.stop()
    result, tree = cached.embedding_scores(digest, s, inputs)
    colors = {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(models)}
    options = FigureOptions(colors=colors, scale=1.0)
    view = controls.bind(
        ve.EmbeddingsView,
        choices={"against": models, "confusion": models},
        auto={"against": models[0], "confusion": models[0]},
    )
    c1, c2 = st.columns(2)
    c1.radio("Score", tuple(ve.SCORES), format_func=ve.SCORES.get, horizontal=True,
             key="embeddings_score")  # fmt: skip
    c2.radio("Chart", tuple(ve.CHARTS), format_func=ve.CHARTS.get, horizontal=True,
             key="embeddings_chart")  # fmt: skip
    v = view.read()
    fig = score_figure(result, v.score, options, line=v.chart == "line")
    st.plotly_chart(fig, key="emb_scores")
    table = result.table()
    for text in ve.interval_captions(result, s.level):
        st.caption(text)
    if str(result.settings["bootstrap"]) == "scores":
        st.info(ve.SCORES_ONLY_NOTE)
    st.dataframe(table, hide_index=True, key="emb_table")
    if warning := ve.clipped_warning(table):
        st.warning(warning)
    if len(models) > 1:
        st.selectbox("Differences against", models, key="embeddings_against")
        st.caption(
            "Paired differences (same resampled entities for every model); an interval that "
            "excludes 0 separates the two models at the chosen level."
        )
        st.dataframe(result.differences(reference=v.against), hide_index=True, key="emb_diffs")

    st.subheader("Where the clusters are confused")
    st.selectbox("Model", models, key="embeddings_confusion")
    v = view.read()
    scores = result.scores[models.index(v.confusion)]
    st.plotly_chart(confusion_heatmap(scores, result.clusters, options), key="emb_confusion")
    sizes = pd.DataFrame({"cluster": result.clusters, "entities": result.cluster_sizes})
    st.dataframe(sizes, hide_index=True, key="emb_sizes")
    if tree is not None:
        st.subheader("EmbeddingTree")
        st.caption(
            f"Grown on {md_escape(tree.reference)}; each node splits on the binary feature whose "
            "hard two-Gaussian split has the highest MAP likelihood; gain is in nats per entity "
            "over one Gaussian (about −0.69 for a split that separates nothing)."
        )
        st.plotly_chart(tree_figure(tree, options), key="emb_tree")
        st.code(tree.text(), language=None)
        st.dataframe(tree.table(), hide_index=True, key="emb_tree_table")

"""Embeddings (METHODS 9, [MHP]): do a model's embeddings agree with the entities' meta features?"""

import hashlib

import numpy as np
import pandas as pd
import streamlit as st

from benchuq.core.embeddings import (
    DEFAULT_EPS,
    EMBEDDING_SAMPLES,
    EMBEDDING_SUFFIXES,
    META_SUFFIXES,
    SAMPLE_LABELS,
    ConsistencyResult,
    align,
    check_clusters,
    cluster_labels,
    consistency,
    load_embedding_sample,
    read_embeddings,
    read_meta,
)
from benchuq.core.embeddings.tree import EmbeddingTree, binarize, fit_tree, parse_prior
from benchuq.dashboard.colors import PALETTE
from benchuq.dashboard.context import guard
from benchuq.dashboard.figures import FigureOptions
from benchuq.dashboard.figures_embeddings import confusion_heatmap, score_figure, tree_figure
from benchuq.dashboard.text import md_escape

Inputs = tuple[dict[str, np.ndarray], pd.DataFrame]
BOOTSTRAP_CHOICES = {
    "auto": "Auto",
    "refit": "Refit Gaussians (includes fitting error)",
    "linear": "Linearised refit (includes fitting error, fast)",
    "scores": "Resample scores (fast)",
}
CLIPPED_WARNING = 0.05  # warn when clipping leaves out more than this share of posteriors


@st.cache_resource(max_entries=16, show_spinner="Reading embeddings…")
def _inputs(digest: str, _files: tuple[tuple[str, bytes], ...], _meta: tuple[str, bytes]) -> Inputs:
    """Aligned embeddings and the meta table, keyed by a hash of the files' names and bytes."""
    sets = [s for name, data in _files for s in read_embeddings(name, data)]
    meta = read_meta(*_meta)
    return align(sets, meta), meta


@st.cache_resource(max_entries=16, show_spinner="Reading the sample…")
def _sample(name: str) -> Inputs:
    sets, meta = load_embedding_sample(name)
    return align(sets, meta), meta


@st.cache_resource(max_entries=32, show_spinner="Scoring embeddings…")
def _analyse(
    digest: str,
    columns: tuple[str, ...],
    tree_settings: tuple[str, int, int, float | None, int, tuple[tuple[str, float], ...]],
    settings: tuple[int, int, float, float, int, int | None, float, int, str],
    _inputs: Inputs,
) -> tuple[ConsistencyResult, EmbeddingTree | None]:
    """Clusters (one column, or the EmbeddingTree of several) and the consistency scores."""
    embeddings, meta = _inputs
    heads, dims, clip, eps, folds, reps, level, seed, bootstrap = settings
    tree = None
    if len(columns) == 1:
        labels = cluster_labels(meta, columns[0], bins=tree_settings[4])
        check_clusters(labels, file=meta.attrs.get("file", "meta"), column=columns[0])
    else:
        reference, depth, min_leaf, min_gain, bins, prior = tree_settings
        tree = fit_tree(
            embeddings[reference],
            binarize(meta, columns, bins=bins),
            reference=reference,
            max_depth=depth,
            min_leaf=min_leaf,
            min_gain=min_gain,
            prior=dict(prior),
            eps=eps,
            seed=seed,
        )
        labels = tree.labels
    result = consistency(
        embeddings,
        labels,
        heads=heads,
        dims=dims,
        clip=clip,
        eps=eps,
        folds=folds,
        reps=reps,
        level=level,
        seed=seed,
        bootstrap=bootstrap,
    )
    return result, tree


st.title("Embedding consistency")
st.caption(
    "Do a model's embeddings agree with what we know about the entities? Each meta category (or "
    "each leaf of an EmbeddingTree over several features) gets a Gaussian; **ALP** is the mean "
    "log posterior of each entity's own cluster (0 = perfectly consistent) and **accuracy** the "
    "share whose most probable cluster is the right one. Scores are averaged over random heads of "
    "a few dimensions, posteriors come from Gaussians fitted on the other folds, and intervals "
    "come from a bootstrap over entities (paired across models) [MHP; METHODS 9]. Compare models "
    "only under the same clusters."
)

with guard("The embedding analysis"):
    source = st.radio("Embeddings", ("Sample", "Upload"), horizontal=True, key="emb_source")
    default_label = None
    if source == "Sample":
        name = st.selectbox(
            "Sample",
            tuple(EMBEDDING_SAMPLES),
            format_func=lambda n: f"{n} — {EMBEDDING_SAMPLES[n]}",
            key="emb_sample",
        )
        inputs, digest = _sample(name), f"sample:{name}"
        default_label = SAMPLE_LABELS[name]
    else:
        c1, c2 = st.columns(2)
        files = c1.file_uploader(
            "Embedding files (one model or layer each; .npz may hold several)",
            type=[s.lstrip(".") for s in EMBEDDING_SUFFIXES],
            accept_multiple_files=True,
            key="emb_files",
            help=".npy: rows follow the meta table. .npz: an 'ids' array plus one (N, D) array "
            "per model or layer. CSV/Parquet: an 'id' column and one column per dimension, or one "
            "column holding each vector as a list.",
        )
        meta_file = c2.file_uploader(
            "Meta table (id + features)",
            type=[s.lstrip(".") for s in META_SUFFIXES],
            key="emb_meta",
        )
        if not files or meta_file is None:
            st.info("Upload at least one embedding file and the meta table.")
            st.stop()
        raw = tuple((f.name, f.getvalue()) for f in files)
        meta_raw = (meta_file.name, meta_file.getvalue())
        h = hashlib.sha256()
        for n, data in (*raw, meta_raw):
            h.update(n.encode() + b"\x00" + hashlib.sha256(data).digest())
        digest = h.hexdigest()
        inputs = _inputs(digest, raw, meta_raw)
    embeddings, meta = inputs
    models = tuple(embeddings)
    st.caption(
        f"{len(meta)} entities; {len(models)} embeddings: "
        + ", ".join(f"{md_escape(m)} ({embeddings[m].shape[1]} dims)" for m in models)
    )

    columns = st.multiselect(
        "Clusters from meta feature(s)",
        [str(c) for c in meta.columns],
        default=[default_label] if default_label in meta.columns else [str(meta.columns[0])],
        key=f"emb_columns_{digest[:16]}",
        help="One feature: its categories are the clusters (numeric features are cut into "
        "quantile bins). Several: an EmbeddingTree splits on them and its leaves are the clusters.",
    )
    if not columns:
        st.warning("Pick at least one meta feature.")
        st.stop()
    with st.expander("Settings", expanded=False):
        c1, c2, c3, c4 = st.columns(4)
        heads = c1.number_input("Heads", 1, 64, 16, key="emb_heads")
        dims = c2.number_input("Dimensions per head", 1, 4096, 64, key="emb_dims")
        clip = c3.number_input(
            "Clip (leave out posteriors below)",
            0.0,
            0.5,
            1e-6,
            format="%.0e",
            key="emb_clip",
            help="Entities whose posterior of their own cluster is below this are left out of "
            "the ALP of that head; the share left out is shown in the table.",
        )
        eps = c4.number_input(
            "Ridge eps",
            1e-6,
            100.0,
            DEFAULT_EPS,
            format="%g",
            key="emb_eps",
            help="Every covariance gets eps × (within-cluster variance per dimension) × "
            "(dimensions per head) / (mean cluster size) added to its diagonal: more shrinkage "
            "when clusters are small relative to the dimensions. A tiny eps gives overconfident "
            "posteriors with small clusters.",
        )
        c1, c2, c3, c4 = st.columns(4)
        folds = c1.number_input(
            "Cross-fitting folds",
            1,
            10,
            5,
            key="emb_folds",
            help="1 = fit and score on the same entities, as in the paper; this overfits when "
            "clusters are small relative to the dimensions per head.",
        )
        auto_reps = c2.checkbox(
            "Default replicates",
            True,
            key="emb_auto_reps",
            help="200 when the Gaussians are refitted, 1000 for the linearised refit and when "
            "scores are resampled.",
        )
        reps = None
        if not auto_reps:
            reps = int(
                c2.number_input("Bootstrap replicates", 50, 5000, 200, step=50, key="emb_reps")
            )
        level = c3.slider("Interval level", 0.5, 0.99, 0.95, key="emb_level")
        seed = c4.number_input("Seed", 0, 2**31 - 1, 0, key="emb_seed")
        bins = c1.number_input("Quantile bins (numeric features)", 2, 10, 4, key="emb_bins")
        reference, depth, min_leaf, min_gain, prior = models[0], 3, 20, None, ()
        if len(columns) > 1:
            reference = c2.selectbox(
                "Tree grown on", models, key=f"emb_reference_{digest[:16]}", format_func=str
            )
            depth = c3.number_input("Tree depth limit", 1, 6, 3, key="emb_depth")
            min_leaf = c4.number_input("Minimum leaf size", 2, 10_000, 20, key="emb_min_leaf")
            prior_text = c1.text_input(
                "Prior weights",
                "",
                key="emb_prior",
                placeholder="dataset=2, length_words=0.5",
                help="COLUMN=WEIGHT pairs, comma-separated; a weight above 1 favours splitting "
                "on that feature (its MAP score gets + log weight). Default 1.",
            )
            pairs = [p for p in prior_text.split(",") if p.strip()]
            prior = tuple(sorted(parse_prior(pairs).items()))
            if st.checkbox(
                "Split only where the likelihood rises (gain > 0)",
                key="emb_min_gain",
                help="Without this the tree splits whenever the depth and leaf-size limits allow.",
            ):
                min_gain = 0.0

    bootstrap = st.radio(
        "Intervals",
        tuple(BOOTSTRAP_CHOICES),
        format_func=BOOTSTRAP_CHOICES.get,
        horizontal=True,
        key="emb_bootstrap",
        help="Refit: every bootstrap replicate refits the Gaussians, so the interval includes the "
        "error of fitting them; it is for the expected score of this procedure on new entities "
        "(Gaussians fitted on (folds−1)/folds of each cluster), not for the true Gaussians, which "
        "a fitted score misses when clusters are small (for accuracy, hits that flip with the "
        "refit are rescaled by 1/√spread, the reweighted hits by 1/spread). Linearised refit: "
        "the first-order version of Refit (how each entity's weight moves the score, as a "
        "held-out entity and through the Gaussians it helps fit), one pass instead of one refit "
        "per replicate; its "
        "accuracy interval leaves out the fitting error. Scores: resample per-entity scores with "
        "the Gaussians held fixed — fast, but too narrow when clusters are small relative to the "
        "dimensions per head. Auto: refit unless that would take more than about 10 s (refitting "
        "thousands of entities with many heads of 64 dimensions can take minutes), else the "
        "linearised refit.",
    )
    st.caption(
        "Linearised refit: Refit's interval to first order, computed in one pass — seconds where "
        "refitting takes minutes."
    )
    result, tree = _analyse(
        digest,
        tuple(columns),
        (reference, int(depth), int(min_leaf), min_gain, int(bins), prior),
        (
            int(heads),
            int(dims),
            float(clip),
            float(eps),
            int(folds),
            reps,
            level,
            int(seed),
            bootstrap,
        ),
        inputs,
    )
    options = FigureOptions(
        colors={m: PALETTE[i % len(PALETTE)] for i, m in enumerate(models)}, scale=1.0
    )
    c1, c2 = st.columns(2)
    metric = c1.radio(
        "Score",
        ("alp", "accuracy"),
        format_func={"alp": "ALP", "accuracy": "Accuracy"}.get,
        horizontal=True,
        key="emb_metric",
    )
    shape = c2.radio(
        "Chart",
        ("Bars over models", "Line over layers (file order)"),
        horizontal=True,
        key="emb_chart",
    )
    st.plotly_chart(
        score_figure(result, metric, options, line=shape.startswith("Line")),
        key="emb_scores",
    )
    table = result.table()
    used = str(result.settings["bootstrap"])
    st.caption(
        f"{level:.0%} intervals: {md_escape(result.scores[0].alp.method)} (level and "
        "replicates in Settings — the sidebar's level applies to the benchmark pages). "
        "`clipped`: share of entity-head "
        "posteriors left out of the ALP by the clip threshold."
    )
    if result.scores[0].accuracy.method != result.scores[0].alp.method:
        st.caption(f"Accuracy intervals: {md_escape(result.scores[0].accuracy.method)}.")
    if used == "scores":
        st.info(
            "These intervals hold the fitted Gaussians fixed and can be too narrow when clusters "
            "are small relative to the dimensions per head. Choose 'Refit' or 'Linearised "
            "refit' for intervals that include the fitting error (the linearised one stays fast "
            "on large data)."
        )
    st.dataframe(table, hide_index=True, key="emb_table")
    heavy = table[table["clipped"] > CLIPPED_WARNING]
    if len(heavy):
        st.warning(
            f"The clip threshold left out more than {CLIPPED_WARNING:.0%} of the posteriors of "
            + ", ".join(md_escape(m) for m in heavy["model"])
            + ": their ALP only averages the entities that were kept and is optimistic. "
            "Raise eps (a larger ridge makes posteriors less extreme) or set clip to 0."
        )
    if len(models) > 1:
        ref = st.selectbox(
            "Differences against", models, key=f"emb_diff_ref_{digest[:16]}", format_func=str
        )
        st.caption(
            "Paired differences (same resampled entities for every model); an interval that "
            "excludes 0 separates the two models at the chosen level."
        )
        st.dataframe(result.differences(reference=ref), hide_index=True, key="emb_diffs")

    st.subheader("Where the clusters are confused")
    shown = st.selectbox("Model", models, key=f"emb_confusion_model_{digest[:16]}", format_func=str)
    st.plotly_chart(
        confusion_heatmap(result.scores[models.index(shown)], result.clusters, options),
        key="emb_confusion",
    )
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

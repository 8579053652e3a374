"""Embeddings page: widget groups (upload, settings).

Widget keys are the page's link names (``view.EmbeddingsSettings``).
"""

from __future__ import annotations

import streamlit as st

from benchuq.api.summaries import EMBEDDING_SUFFIXES, META_SUFFIXES
from benchuq.dashboard.controls import ranged
from benchuq.dashboard.embeddings import cached
from benchuq.dashboard.embeddings import view as ve


def embedding_upload() -> tuple[str, ve.Inputs] | None:
    """Embeddings: upload embedding files and a meta table; ``(digest, inputs)`` or ``None``."""
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
        "Meta table (id + features)", type=[s.lstrip(".") for s in META_SUFFIXES], key="emb_meta"
    )
    if not files or meta_file is None:
        st.info("Upload at least one embedding file and the meta table.")
        return None
    raw = tuple((f.name, f.getvalue()) for f in files)
    meta = (meta_file.name, meta_file.getvalue())
    digest = ve.upload_digest((*raw, meta))
    return digest, cached.embedding_inputs(digest, raw, meta)


def embedding_settings(models: tuple[str, ...], tree: bool) -> None:
    """Show the Embeddings page's settings (widget keys = link names).

    Heads, dimensions, clip, eps, folds, replicates, level, seed, bins and, for several features
    (``tree``), the EmbeddingTree's settings.
    """
    c1, c2, c3, c4 = st.columns(4)
    ranged(c1.number_input, ve.EmbeddingsSettings, "embeddings_heads", "Heads")
    ranged(c2.number_input, ve.EmbeddingsSettings, "embeddings_dims", "Dimensions per head")
    ranged(
        c3.number_input,
        ve.EmbeddingsSettings,
        "embeddings_clip",
        "Clip (leave out posteriors below)",
        format="%.0e",
        help="Entities whose posterior of their own cluster is below this are left out of "
        "the ALP of that head; the share left out is shown in the table.",
    )
    ranged(
        c4.number_input,
        ve.EmbeddingsSettings,
        "embeddings_eps",
        "Ridge eps",
        format="%g",
        help="Every covariance gets eps × (within-cluster variance per dimension) × "
        "(dimensions per head) / (mean cluster size) added to its diagonal: more shrinkage "
        "when clusters are small relative to the dimensions. A tiny eps gives overconfident "
        "posteriors with small clusters.",
    )
    c1, c2, c3, c4 = st.columns(4)
    ranged(
        c1.number_input,
        ve.EmbeddingsSettings,
        "embeddings_folds",
        "Cross-fitting folds",
        help="1 = fit and score on the same entities, as in the paper; this overfits when "
        "clusters are small relative to the dimensions per head.",
    )
    auto = c2.checkbox(
        "Default replicates",
        key="embeddings_auto_reps",
        help="200 when the Gaussians are refitted, 1000 for the linearised refit and when "
        "scores are resampled.",
    )
    if not auto:
        ranged(
            c2.number_input,
            ve.EmbeddingsSettings,
            "embeddings_reps",
            "Bootstrap replicates",
            step=50,
        )
    ranged(
        c3.slider, ve.EmbeddingsSettings, "embeddings_level", "Interval level (%)", step=1.0,
        format="%.0f",
    )  # fmt: skip
    ranged(c4.number_input, ve.EmbeddingsSettings, "embeddings_seed", "Seed")
    ranged(
        c1.number_input,
        ve.EmbeddingsSettings,
        "embeddings_bins",
        "Quantile bins (numeric features)",
    )
    if not tree:
        return
    c2.selectbox("Tree grown on", models, key="embeddings_reference")
    ranged(c3.number_input, ve.EmbeddingsSettings, "embeddings_depth", "Tree depth limit")
    ranged(c4.number_input, ve.EmbeddingsSettings, "embeddings_min_leaf", "Minimum leaf size")
    c1.text_input(
        "Prior weights",
        key="embeddings_prior",
        placeholder="dataset=2, length_words=0.5",
        help="COLUMN=WEIGHT pairs, comma-separated; a weight above 1 favours splitting "
        "on that feature (its MAP score gets + log weight). Default 1.",
    )
    st.checkbox(
        "Split only where the likelihood rises (gain > 0)",
        key="embeddings_min_gain",
        help="Without this the tree splits whenever the depth and leaf-size limits allow.",
    )

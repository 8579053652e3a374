"""Widget groups that pages share or that would crowd a page (streamlit; no analysis here).

Each group's widget keys are link names of the page's settings (``dashboard.links``), so the
values travel in the link once the page calls ``Binding.read``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from benchuq.core.bayes.model import BayesFit
from benchuq.core.bayes.priors import FAMILIES, ModelPrior, format_prior_specs, parse_prior_specs
from benchuq.core.data import DataError
from benchuq.core.dominance import BestProbabilityMap, DominanceMap, from_map_weights
from benchuq.core.embeddings.posterior import EMBEDDING_SUFFIXES, META_SUFFIXES
from benchuq.core.subgroups.estimates import SubgroupResult, Units
from benchuq.dashboard import cache, controls
from benchuq.dashboard import views_bayes as vb
from benchuq.dashboard import views_embeddings as ve
from benchuq.dashboard import views_subgroups as vs
from benchuq.dashboard import views_weights as vw
from benchuq.dashboard.export import download_menu
from benchuq.dashboard.figures_weights import clicked_point
from benchuq.dashboard.ternary_static import FORMATS, dominance_image, probability_image
from benchuq.dashboard.text import md_escape


def map_categories_picker(cats: tuple[str, ...], merge: tuple[str, ...]) -> tuple[str, ...]:
    """Task weights: of three or more categories, pick two or three or merge them.

    With exactly three the choice sits in a collapsed expander (default: all three, a ternary).
    ``merge`` is the stored merge (one group per category); returns the merge the widgets show.
    """
    box: DeltaGenerator
    if len(cats) == 3:
        box = st.expander("Categories on the map: all three, two of them, or merged")
        label = "Choose the map's categories by"
    else:
        box = st.container()
        box.markdown(f"This data set has {len(cats)} categories; the map shows two or three.")
        label = "Reduce to three by"
    with box:
        how = st.radio(
            label,
            ("pick", "merge"),
            key="weights_reduce",
            horizontal=True,
            format_func=vw.REDUCE_LABELS.get,
        )
        if how == "pick":
            st.multiselect(
                "Categories on the map (2 or 3)", cats, key="weights_pick", max_selections=3
            )
            return merge
        cols = st.columns(min(len(cats), 4))
        for k, c in enumerate(cats):
            controls.seed(f"weights_merge_{k}", merge[k], tuple(vw.GROUPS))
            cols[k % len(cols)].selectbox(
                md_escape(c),
                tuple(vw.GROUPS),
                key=f"weights_merge_{k}",
                format_func=vw.GROUPS.__getitem__,
            )
    return tuple(str(st.session_state[f"weights_merge_{k}"]) for k in range(len(cats)))


def set_weights_from_click(
    key: str, cats: Sequence[str], task_cats: Sequence[str], mapping: dict[str, str]
) -> None:
    """Chart callback: the clicked point's weights go to the sidebar.

    A ternary tile gives its ``a, b, c``, a point of the two-category line its ``x`` and
    ``1 - x`` (``clicked_point``); ``from_map_weights`` spreads them over the data categories
    (merged ones by task count, left-out ones 0).
    """
    point = clicked_point(st.session_state.get(key), len(dict.fromkeys(mapping.values())))
    if point is None:
        return
    for i, x in enumerate(from_map_weights(point, cats, task_cats, mapping)):
        st.session_state[f"weight_{i}"] = round(float(x), 4)


def weighted_scores_table(table: pd.DataFrame) -> None:
    """Task weights: the leaderboard at one weighting, P(best) as a bar."""
    numbers = {
        c: st.column_config.NumberColumn(format="%.2f", width="small")
        for c in ("score", "low", "high")
    }
    st.dataframe(
        table,
        hide_index=True,
        column_config={
            "model": st.column_config.TextColumn(width="medium"),
            **numbers,
            "P(best)": st.column_config.ProgressColumn(format="percent", min_value=0, max_value=1),
        },
    )


def slides_downloads(
    dm: DominanceMap,
    pm: BestProbabilityMap | None,
    colors: dict[str, str],
    data: str,
    marker: np.ndarray | None,
) -> None:
    """Task weights: the static maps (python-ternary) as PNG/SVG/PDF, rendered on click."""
    maps: list[tuple[str, str, Callable[[str], bytes]]] = [
        ("SE map", "weights", lambda f: dominance_image(dm, colors, f, data=data, marker=marker))
    ]
    if pm is not None:
        maps.append(
            (
                "P(best)",
                "weights_pbest",
                lambda f: probability_image(pm, colors, f, data=data, marker=marker),
            )
        )
    for col, (what, stem, draw) in zip(st.columns([1, 1, 3]), maps, strict=False):
        with col:
            download_menu(
                f"{what} for slides",
                f"{stem}_{data}",
                f"w_dl_{stem}",
                {f: (f"{what} {f.upper()}", partial(draw, f)) for f in FORMATS},
            )


def prior_editor(models: tuple[str, ...], priors: tuple[str, ...]) -> tuple[str, ...]:
    """Bayesian model: add a prior for all models or one; returns the (possibly new) priors."""
    try:
        parsed = parse_prior_specs(list(priors), models)
    except DataError as err:
        st.error(f"The saved priors do not fit this data set: {err}")
        parsed, priors = {m: ModelPrior() for m in models}, ()
    c1, c2, c3, c4 = st.columns([2, 1, 1, 1])
    scope = c1.selectbox(
        "Models",
        [vb.ALL, *models],
        key="bayes_scope",
        format_func=lambda m: "All models" if m == vb.ALL else m,
    )
    which = c2.radio("Parameter", tuple(vb.PARTS), key="bayes_param")
    family = c3.selectbox("Family", tuple(FAMILIES), key="bayes_family")
    text = c4.text_input(
        f"Parameters ({', '.join(FAMILIES[family])})",
        key="bayes_params",
        placeholder=vb.EXAMPLE[family],
        help="Numbers separated by commas, e.g. " + vb.EXAMPLE[family],
    )
    b1, b2 = st.columns([1, 4])
    if b1.button("Apply prior", key="bayes_apply", type="primary"):
        spec = vb.prior_spec(scope, which, family, text)
        try:
            parsed = parse_prior_specs([*format_prior_specs(parsed), spec], models)
            priors = tuple(format_prior_specs(parsed))
        except DataError as err:
            st.error(str(err))
    if b2.button("Reset to the default priors", key="bayes_reset"):
        parsed, priors = {m: ModelPrior() for m in models}, ()
    shown = vb.priors_table(parsed)
    st.dataframe(shown, hide_index=True, height=min(38 + 35 * len(shown), 300))
    st.caption(
        "Default: exponential(1e-4) on a and b ([LGC] 2.2), nearly flat over the useful range. "
        "normal(mean, sd) is truncated at 0; gamma(shape, rate). The Beta mean is a / (a + b), "
        "its concentration a + b: e.g. normal(2000,10) on both pins tasks near 50%."
    )
    return priors


def bayes_run_settings(reps: int, seed: int) -> None:
    """Bayesian model: chains, warm-up, interval kind and sampler (keys = link names)."""
    r1, r2, r3, r4 = st.columns(4)
    r1.number_input("Chains", 1, 8, key="chains")
    r2.number_input("Warm-up sweeps per chain", 0, 10000, step=100, key="warmup")
    r3.radio("Intervals for", tuple(vb.KIND_LABELS), key="interval", format_func=vb.KIND_LABELS.get)
    r4.radio(
        "Sampler",
        tuple(vb.SAMPLER_LABELS),
        key="sampler",
        format_func=vb.SAMPLER_LABELS.get,
        help="Both target the same posterior. Independence Metropolis-Hastings moves (a, b) "
        "with theta integrated out and converges where the Gibbs sweep of METHODS 6 can stall.",
    )
    st.caption(
        f"Posterior draws R = the sidebar's Replicates ({reps}), split over the chains; seed "
        f"{seed}. Warm-up draws are discarded."
    )


def bayes_diagnostics(fit: BayesFit) -> None:
    """Bayesian model: convergence metrics, warnings and the table of every quantity."""
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("R-hat (max)", f"{fit.rhat_max:.4f}")
    m2.metric("Bulk ESS (min)", f"{fit.ess_bulk_min:,.0f}")
    m3.metric("Tail ESS (min)", f"{fit.ess_tail_min:,.0f}")
    m4.metric("Sampler time", f"{fit.seconds:.1f} s")
    st.caption(vb.sampler_note(fit))
    for warning in fit.warnings:
        st.warning(md_escape(warning), icon=":material/warning:")
    if not fit.warnings:
        st.success(
            f"Every R-hat ≤ 1.01 and every ESS ≥ 100 ({len(fit.diagnostics)} quantities: a, b, "
            "the mean over tasks per model, and θ per model and task).",
            icon=":material/check_circle:",
        )
    formats = {"mean": "%.4g", "sd": "%.3g", "rhat": "%.4f", "ess_bulk": "%.0f", "ess_tail": "%.0f"}
    with st.expander("Diagnostics of every quantity (worst R-hat first)"):
        st.dataframe(
            fit.diagnostics.sort_values("rhat", ascending=False),
            hide_index=True,
            column_config={c: st.column_config.NumberColumn(format=f) for c, f in formats.items()},
        )
        st.caption(
            "Rank-normalised split R-hat and bulk/tail effective sample sizes (Vehtari et al. "
            "2021). Warning when R-hat > 1.01: then raise warm-up and draws."
        )


def subgroup_options() -> None:
    """Small subgroups: level, finite-sample correction, kurtosis, cross-fit, unit weights."""
    c1, c2, c3, c4, c5 = st.columns(5)
    c1.select_slider(
        "Interval level (%)", options=[round(100 * x, 4) for x in vs.LEVELS], key="subgroups_level"
    )
    c2.selectbox(
        "Finite-sample correction",
        tuple(vs.FS_LABELS),
        format_func=vs.FS_LABELS.__getitem__,
        key="subgroups_fs",
        help="How the estimates of A and κ are kept away from 0 and 1 when the data hardly vary "
        "around f. PMT (posterior-mean truncation, the default of R's ebci): floors from the "
        "standard errors, so A is never 0. FPLIB: the mean of a normal truncated to (0, ∞), "
        "also never 0. none: the plain positive part, which can set A to 0; then every EB "
        "estimate is f and the robust interval is undefined.",
    )
    c3.radio(
        "Kurtosis κ", tuple(vs.KAPPA_LABELS), format_func=vs.KAPPA_LABELS.get, key="subgroups_kappa"
    )
    c4.checkbox(
        "Cross-fit f",
        key="subgroups_crossfit",
        help="Fit f on one half of the units to predict the other half (and swap), so a unit's "
        "own noise does not pull its prediction.",
    )
    c5.radio(
        "Unit weights",
        tuple(vs.WEIGHT_LABELS),
        format_func=vs.WEIGHT_LABELS.get,
        key="subgroups_weights",
        help="Weights of the regression f and of the estimates of A and κ: equal (the default "
        "of R's ebci) or precision 1/se², which lets large subgroups count more.",
    )


def subgroup_metrics(result: SubgroupResult, units: Units) -> None:
    """Small subgroups: units, A, κ and R² of the regression."""
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Units", f"{len(result.rows)}", help=f"defined by {units.source}")
    m2.metric(
        "A (prior second moment)",
        vs.finite(result.mu2, ".3g"),
        help=f"uncorrected {result.mu2_raw:.3g}; correction {result.fs_correction}. In score "
        "units squared: √A is the typical distance of a true score from f.",
    )
    m3.metric(
        "Kurtosis κ used",
        "∞" if math.isinf(result.kappa) else f"{result.kappa:.3g}",
        help=f"estimated {result.kappa_estimated:.3g}; uncorrected {result.kappa_raw:.3g}",
    )
    m4.metric(
        "R² of f",
        vs.finite(result.r2_cv, ".2f"),
        help="share of the direct estimates' variance the (cross-fitted) regression explains",
    )


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
    return digest, cache.embedding_inputs(digest, raw, meta)


def embedding_settings(models: tuple[str, ...], tree: bool) -> None:
    """Show the Embeddings page's settings (widget keys = link names).

    Heads, dimensions, clip, eps, folds, replicates, level, seed, bins and, for several features
    (``tree``), the EmbeddingTree's settings.
    """
    c1, c2, c3, c4 = st.columns(4)
    c1.number_input("Heads", 1, 64, key="embeddings_heads")
    c2.number_input("Dimensions per head", 1, 4096, key="embeddings_dims")
    c3.number_input(
        "Clip (leave out posteriors below)",
        0.0,
        0.5,
        format="%.0e",
        key="embeddings_clip",
        help="Entities whose posterior of their own cluster is below this are left out of "
        "the ALP of that head; the share left out is shown in the table.",
    )
    c4.number_input(
        "Ridge eps",
        1e-6,
        100.0,
        format="%g",
        key="embeddings_eps",
        help="Every covariance gets eps × (within-cluster variance per dimension) × "
        "(dimensions per head) / (mean cluster size) added to its diagonal: more shrinkage "
        "when clusters are small relative to the dimensions. A tiny eps gives overconfident "
        "posteriors with small clusters.",
    )
    c1, c2, c3, c4 = st.columns(4)
    c1.number_input(
        "Cross-fitting folds",
        1,
        10,
        key="embeddings_folds",
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
        c2.number_input("Bootstrap replicates", 50, 5000, step=50, key="embeddings_reps")
    c3.slider("Interval level (%)", 50.0, 99.0, step=1.0, key="embeddings_level", format="%.0f")
    c4.number_input("Seed", 0, 2**31 - 1, key="embeddings_seed")
    c1.number_input("Quantile bins (numeric features)", 2, 10, key="embeddings_bins")
    if not tree:
        return
    c2.selectbox("Tree grown on", models, key="embeddings_reference")
    c3.number_input("Tree depth limit", 1, 6, key="embeddings_depth")
    c4.number_input("Minimum leaf size", 2, 10_000, key="embeddings_min_leaf")
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

"""Small subgroups (METHODS 7): direct vs empirical-Bayes estimates with robust intervals."""

import hashlib
import io
import math

import pandas as pd
import streamlit as st

from benchuq.core.data import Benchmark
from benchuq.core.subgroups.ebci import parse_kappa
from benchuq.core.subgroups.estimates import (
    LabResult,
    SubgroupResult,
    Units,
    analyze,
    simulate,
    units_from_benchmark,
    units_from_table,
)
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import download_buttons
from benchuq.dashboard.figures import FigureOptions
from benchuq.dashboard.figures_subgroups import (
    eb_vs_direct_figure,
    fit_figure,
    lab_figure,
    lab_table,
    result_table,
    shrinkage_figure,
)
from benchuq.dashboard.text import md_escape

GROUP_LABELS = {
    "task": "Task (e.g. an MMLU subject)",
    "category": "Task category",
    "subgroup": "Items' subgroup column",
}
FS_LABELS = {
    "PMT": "PMT (default)",
    "FPLIB": "FPLIB",
    "none": "none (plain positive part)",
}
KAPPA_LABELS = {"estimated": "estimated", "inf": "∞ (second moment only)"}
WEIGHT_LABELS = {"equal": "equal", "precision": "precision 1/se²"}
SOURCES = {"data": "The loaded data set", "table": "A table: unit, estimate, se"}


@st.cache_resource(max_entries=16, show_spinner=False)
def _units(content_hash: str, group_by: str, _bench: Benchmark) -> Units:
    return units_from_benchmark(_bench, group_by=group_by)


@st.cache_resource(max_entries=16, show_spinner=False)
def _table_units(digest: str, name: str, _data: bytes) -> Units:
    sep = "\t" if name.lower().endswith(".tsv") else ","
    return units_from_table(pd.read_csv(io.BytesIO(_data), sep=sep), file=name)


@st.cache_resource(max_entries=32, show_spinner="Estimating (cached afterwards)…")
def _analyze(
    key: str,
    features: tuple[str, ...],
    level: float,
    fs: str,
    kappa: str,
    crossfit: bool,
    weights: str,
    seed: int,
    _units: Units,
) -> SubgroupResult:
    """``core.subgroups.analyze``; ``key`` is the data's content hash plus the grouping."""
    return analyze(
        _units,
        features=features,
        level=level,
        fs_correction=fs,
        kappa=parse_kappa(kappa),
        crossfit=crossfit,
        weights=weights,
        seed=seed,
    )


def _units_source(ctx) -> tuple[Units, str, Benchmark | None, str]:
    """The units, a content key for caches, the benchmark (None for a table), the grouping."""
    source = st.radio(
        "Units from", tuple(SOURCES), format_func=SOURCES.get, key="sub_source", horizontal=True
    )
    if source == "table":
        up = st.file_uploader(
            "Table with columns unit, estimate, se (optional: model, subgroup, n and numeric "
            "covariates)",
            type=["csv", "tsv"],
            key="sub_table",
        )
        if up is None:
            st.info("Upload a CSV table to continue.")
            st.stop()
        data = up.getvalue()
        digest = hashlib.sha256(data).hexdigest()
        return _table_units(digest, up.name, data), digest, None, "table"
    bench = ctx.require_bench()
    options = ["task"]
    if bench.kind in ("counts", "items") and len(bench.category_names) > 1:
        options.append("category")
    if bench.item_tasks is not None and any(it.subgroup is not None for it in bench.item_tasks):
        options.insert(0, "subgroup")
    group_by = st.radio(
        "A subgroup is a",
        options,
        format_func=GROUP_LABELS.get,
        key=f"sub_group_{'_'.join(options)}",
        horizontal=True,
        help="A unit is one model on one subgroup.",
    )
    units = _units(bench.content_hash, group_by, bench)
    return units, f"{bench.content_hash}:{group_by}", bench, group_by


ctx = current()
st.title("Small subgroups")
st.caption(
    "A model's score on a small subgroup (one subject, one topic) is noisy. Empirical Bayes "
    "(EB) moves each direct estimate toward a regression prediction f by the weight "
    "w = A / (A + se²): small subgroups (large se) borrow more from f, large ones keep their own "
    "score. A is the spread of the true scores around f. The EB intervals are robust [AKP]: "
    "they do not assume the true scores are normal around f [FPAM; METHODS 7]."
)
with guard("The subgroup analysis"):
    units, key, bench, group_by = _units_source(ctx)
    pick = hashlib.sha256(repr(units.features).encode()).hexdigest()[:10]
    features = st.multiselect(
        "Regression features for f",
        units.features,
        default=list(units.default_features),
        key=f"sub_features_{pick}",
        help="intercept; model and subgroup/category effects; log_n = log of the subgroup size; "
        "numeric columns of an uploaded table.",
    )
    c1, c2, c3, c4, c5 = st.columns(5)
    level = c1.select_slider(
        "Interval level", options=(0.8, 0.9, 0.95, 0.99), value=0.95, key="sub_level"
    )
    fs = c2.selectbox(
        "Finite-sample correction",
        tuple(FS_LABELS),
        format_func=FS_LABELS.get,
        key="sub_fs",
        help="How the estimates of A and κ are kept away from 0 and 1 when the data hardly vary "
        "around f. PMT (posterior-mean truncation, the default of R's ebci): floors from the "
        "standard errors, so A is never 0. FPLIB: the mean of a normal truncated to (0, ∞), "
        "also never 0. none: the plain positive part, which can set A to 0; then every EB "
        "estimate is f and the robust interval is undefined.",
    )
    kappa = c3.radio(
        "Kurtosis κ", tuple(KAPPA_LABELS), format_func=KAPPA_LABELS.get, key="sub_kappa"
    )
    crossfit = c4.checkbox(
        "Cross-fit f",
        value=True,
        key="sub_crossfit",
        help="Fit f on one half of the units to predict the other half (and swap), so a unit's "
        "own noise does not pull its prediction.",
    )
    weights = c5.radio(
        "Unit weights",
        tuple(WEIGHT_LABELS),
        format_func=WEIGHT_LABELS.get,
        key="sub_weights",
        help="Weights of the regression f and of the estimates of A and κ: equal (the default "
        "of R's ebci) or precision 1/se², which lets large subgroups count more.",
    )
    seed = int(ctx.settings.seed)
    result = _analyze(key, tuple(features), level, fs, kappa, crossfit, weights, seed, units)
    rows = result.rows

    m1, m2_, m3, m4 = st.columns(4)
    m1.metric("Units", f"{len(rows)}", help=f"defined by {units.source}")
    m2_.metric(
        "A (prior second moment)",
        f"{result.mu2:.3g}" if math.isfinite(result.mu2) else "—",
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
        f"{result.r2_cv:.2f}" if math.isfinite(result.r2_cv) else "—",
        help="share of the direct estimates' variance the (cross-fitted) regression explains",
    )
    for note in result.notes:
        st.info(md_escape(note), icon=":material/info:")
    st.markdown(
        f"**What the {100 * level:g}% EB intervals promise:** *average* coverage: over all "
        f"units together, about {100 * level:g}% of the intervals hold the true score. A single "
        "unit far from the regression can be covered less often; the direct intervals are the "
        "ones with coverage for each unit on its own."
    )

    options = ctx.figure_options("")
    if units.source == "table" and not (0 <= rows["direct"].min() and rows["direct"].max() <= 1):
        options = FigureOptions(options.colors, 1.0, "estimate", "")
    models = [m for m in dict.fromkeys(rows["model"]) if m]
    shown = [m for m in ctx.models if m in models] or models
    model = None
    if models:
        mpick = hashlib.sha256(repr((key, tuple(shown))).encode()).hexdigest()[:10]
        model = st.selectbox("Model shown", shown, key=f"sub_model_{mpick}")
    fig = eb_vs_direct_figure(
        result,
        FigureOptions(
            options.colors,
            options.scale,
            options.unit,
            "Direct vs empirical Bayes, largest subgroups first",
        ),
        model,
    )
    st.plotly_chart(fig, key="sub_eb_chart", config={"displaylogo": False})
    download_buttons(fig, "subgroups_eb_vs_direct", key="dl_sub_eb")
    left, right = st.columns(2)
    with left:
        fig = shrinkage_figure(
            result, FigureOptions(options.colors, options.scale, options.unit, "Shrinkage vs size")
        )
        st.plotly_chart(fig, key="sub_shrink_chart", config={"displaylogo": False})
        download_buttons(fig, "subgroups_shrinkage", key="dl_sub_shrink")
    with right:
        title = "Regression fit" + (" (cross-fitted)" if result.crossfit else "")
        fig = fit_figure(result, FigureOptions(options.colors, options.scale, options.unit, title))
        st.plotly_chart(fig, key="sub_fit_chart", config={"displaylogo": False})
        download_buttons(fig, "subgroups_fit", key="dl_sub_fit")
        st.caption(f"f = WLS on {md_escape(', '.join(result.features))}.")
    table = result_table(result)
    st.dataframe(table, hide_index=True, key="sub_table_view")
    st.download_button(
        "Download the table (CSV)",
        table.to_csv(index=False).encode(),
        file_name="subgroups.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        key="sub_download",
    )

    st.subheader("Simulation lab")
    st.caption(
        "Take the loaded data as the truth, draw a few items per subgroup, estimate by direct "
        "(DT), regression (SR) and EB, and repeat: how much closer to the truth is EB, and do its "
        "intervals cover? [FPAM]"
    )
    if bench is None or (bench.kind != "counts" and bench.item_tasks is None):
        st.info("The lab needs counts or item-level data (a table cannot be resampled).")
        st.stop()
    l1, l2 = st.columns(2)
    n_per = int(l1.number_input("Items per subgroup", 2, 1000, 10, key="sub_lab_n"))
    reps = int(l2.slider("Repetitions", 10, 500, 100, step=10, key="sub_lab_reps"))
    lab_key = repr((key, tuple(features), level, fs, kappa, crossfit, weights, seed, n_per, reps))
    store = st.session_state.setdefault("_sub_lab", {})
    if st.button("Run the simulation", key="sub_lab_run", icon=":material/play_arrow:"):
        bar = st.progress(0.0, text="Simulating…")

        def tick(done: int, total: int) -> None:
            bar.progress(done / total, text=f"Simulating: {done} of {total} repetitions")

        store.clear()
        store[lab_key] = simulate(
            bench,
            group_by=group_by,
            n_per_group=n_per,
            reps=reps,
            features=tuple(features) or None,
            level=level,
            fs_correction=fs,
            kappa=parse_kappa(kappa),
            crossfit=crossfit,
            weights=weights,
            seed=seed,
            progress=tick,
        )
        bar.empty()
    lab: LabResult | None = store.get(lab_key)
    if lab is None:
        st.caption("Set the sizes and press the button; results stay until a setting changes.")
    else:
        numbers = ("MSE", "MSE / MSE(DT)", "coverage", "mean width")
        st.dataframe(
            lab_table(lab).style.format(dict.fromkeys(numbers, "{:.4f}"), na_rep="—"),
            hide_index=True,
            key="sub_lab_table",
        )
        st.markdown(
            f"{lab.reps} repetitions, {lab.n_per_group} items per subgroup (MSE and widths in "
            "the data's own units, proportions for accuracies). EB's MSE is "
            f"{lab.mean_ratio_eb_by_model:.2f} × the direct estimate's (averaged over models); "
            f"coverage is the share of units and repetitions whose interval held the full-data "
            f"score (target {100 * level:g}%, on average over units for EB)."
        )
        fig = lab_figure(lab, FigureOptions(title="MSE ratio by subgroup (below 1: better)"))
        st.plotly_chart(fig, key="sub_lab_chart", config={"displaylogo": False})
        for note in lab.notes:
            st.caption(md_escape(note))

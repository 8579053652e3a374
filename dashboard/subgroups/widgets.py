"""Small subgroups page: widget groups (EB options, metrics).

Widget keys are the page's link names (``view.SubgroupsSettings``).
"""

from __future__ import annotations

import hashlib
import math

import streamlit as st

from benchuq.api.summaries import SubgroupResult, Units
from benchuq.dashboard.subgroups import cached
from benchuq.dashboard.subgroups import view as vs


def subgroup_options() -> None:
    """Small subgroups: finite-sample correction, kurtosis, cross-fit, unit weights (the level
    is the sidebar's: one level for the page's claims, issue 30)."""
    c2, c3, c4, c5 = st.columns(4)
    c2.selectbox(
        "Finite-sample correction",
        tuple(vs.FS_LABELS),
        format_func=vs.FS_LABELS.__getitem__,
        key="subgroups_fs",
        help="In plain words: a safeguard for when subgroups barely differ. "
        "How the estimates of A and κ are kept away from 0 and 1 when the data hardly vary "
        "around f. PMT (posterior-mean truncation, the default of R's ebci): floors from the "
        "standard errors, so A is never 0. FPLIB: the mean of a normal truncated to (0, ∞), "
        "also never 0. none: the plain positive part, which can set A to 0; then every EB "
        "estimate is f and the robust interval is undefined.",
    )
    c3.radio(
        "Kurtosis κ", tuple(vs.KAPPA_LABELS), format_func=vs.KAPPA_LABELS.get,
        key="subgroups_kappa",
        help="In plain words: how often true subgroup scores sit far from the prediction. "
        "'estimated' reads it from the data (robust intervals, METHODS 7); ∞ uses only A.",
    )  # fmt: skip
    c4.checkbox(
        "Cross-fit f",
        key="subgroups_crossfit",
        help="In plain words: predict each subgroup without looking at it. "
        "Fit f on one half of the units to predict the other half (and swap), so a unit's "
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
        vs.SPREAD_LABEL,
        vs.spread_text(result.mu2, percent=vs.proportions(result)),
        help="In plain words: how far a true subgroup score typically sits from the prediction "
        f"f, √A, with A the prior's second moment ({vs.finite(result.mu2, '.3g')} in score "
        f"units squared; uncorrected {vs.finite(result.mu2_raw, '.3g')}; correction "
        f"{result.fs_correction}). 0: every EB estimate is f.",
    )
    m3.metric(
        "Kurtosis κ used",
        "∞" if math.isinf(result.kappa) else f"{result.kappa:.3g}",
        help="In plain words: how heavy the tails of the true scores are (3 = normal; larger: "
        f"a few subgroups far off). Estimated {result.kappa_estimated:.3g}; uncorrected "
        f"{result.kappa_raw:.3g}",
    )
    m4.metric(
        "R² of f",
        vs.finite(result.r2_cv, ".2f"),
        help="share of the direct estimates' variance the (cross-fitted) regression explains",
    )


def table_upload() -> tuple[str, Units]:
    """Upload a table of units (``unit, estimate, se``); its digest and units (else stop)."""
    up = st.file_uploader(
        "Table with columns unit, estimate, se (optional: model, subgroup, n and numeric "
        "covariates)",
        type=["csv", "tsv"],
        key="sub_table",
    )
    if up is None:
        st.info("Upload a CSV table to continue.")
        st.stop()
    digest = hashlib.sha256(up.getvalue()).hexdigest()
    return digest, cached.table_units(digest, up.name, up.getvalue())

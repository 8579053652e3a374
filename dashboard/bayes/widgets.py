"""Bayesian model page: widget groups (prior editor, run settings, diagnostics).

Widget keys are the page's link names (``view.BayesSettings``).
"""

from __future__ import annotations

import streamlit as st

from benchuq.api.summaries import (
    FAMILIES,
    BayesFit,
    ModelPrior,
    compact_prior_specs,
    parse_prior_specs,
)
from benchuq.core.data import DataError
from benchuq.dashboard.bayes import view as vb
from benchuq.dashboard.controls import ranged
from benchuq.dashboard.words import say
from benchuq.presentation.text import md_escape


def prior_editor(models: tuple[str, ...], priors: tuple[str, ...]) -> tuple[str, ...]:
    """Bayesian model: add a prior for all models or one; returns the (possibly new) priors."""
    try:
        parsed = parse_prior_specs(list(priors), models)
    except DataError as err:
        st.error(f"The saved priors do not fit this data set: {say(err)}")
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
            parsed = parse_prior_specs([*compact_prior_specs(parsed), spec], models)
            priors = tuple(compact_prior_specs(parsed))
        except DataError as err:
            st.error(say(err))
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
    ranged(
        r1.number_input, vb.BayesSettings, "chains", "Chains",
        help="In plain words: independent runs of the sampler; when they agree, the answer can "
        "be trusted.",
    )  # fmt: skip
    ranged(
        r2.number_input, vb.BayesSettings, "warmup", "Warm-up sweeps per chain", step=100,
        help="In plain words: steps thrown away while each run finds its footing.",
    )  # fmt: skip
    r3.radio(
        "Intervals for", tuple(vb.KIND_LABELS), key="interval", format_func=vb.KIND_LABELS.get,
        help="In plain words: the uncertainty of a new evaluation's score, or of the model's "
        "underlying ability.",
    )  # fmt: skip
    r4.radio(
        "Sampler",
        tuple(vb.SAMPLER_LABELS),
        key="sampler",
        format_func=vb.SAMPLER_LABELS.get,
        help="In plain words: two ways of drawing plausible values; both give the same answer. "
        "Independence Metropolis-Hastings moves (a, b) "
        "with theta integrated out and converges where the Gibbs sweep of METHODS 6 can stall.",
    )
    st.caption(
        f"Posterior samples R = the sidebar's Replicates ({reps}), split over the chains; seed "
        f"{seed}. Warm-up samples are discarded."
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
            "2021). Warning when R-hat > 1.01: then raise warm-up and samples."
        )

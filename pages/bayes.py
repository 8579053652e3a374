"""Bayesian model: priors, run settings, diagnostics, shrinkage and intervals (METHODS 6)."""

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from benchuq.core import summaries
from benchuq.core.bayes.model import BayesFit, counts_of
from benchuq.core.bayes.priors import FAMILIES, ModelPrior, format_prior_specs, parse_prior_specs
from benchuq.core.data import DataError
from benchuq.core.dominance import best_probability_map, map_categories, moments_from_draws
from benchuq.core.draws import Draws
from benchuq.dashboard import cache
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.figures import rank_probability_figure
from benchuq.dashboard.figures_bayes import (
    best_probability_figure,
    interval_comparison_figure,
    rank_plot_figure,
    shrinkage_figure,
    trace_figure,
)
from benchuq.dashboard.figures_weights import probability_figure
from benchuq.dashboard.text import md_escape

KIND_LABELS = {
    "parameter": "Parameter θ (true accuracy on the task)",
    "predictive": "Posterior predictive k̃/n (a fresh test set of the same size)",
}
SAMPLER_LABELS = {
    "imh": "Independence Metropolis-Hastings (default)",
    "gibbs": "Gibbs with slice steps (METHODS 6)",
}
EXAMPLE = {"exponential": "1e-4", "normal": "2000, 10", "gamma": "2, 0.01"}
ALL = "*"


@st.cache_resource(max_entries=16, show_spinner=False)
def fit_draws(key: str, kind: str, _fit: BayesFit) -> Draws:
    """``fit.to_draws(kind)``, cached per fit (``key`` names the fit)."""
    return _fit.to_draws(kind=kind)  # type: ignore[arg-type]


@st.cache_resource(max_entries=8, show_spinner="P(best) over the weight simplex…")
def best_map(key: str, models: tuple[str, ...], cats: tuple[str, ...], _draws: Draws):
    moments = moments_from_draws(_draws.select_models(list(models)), mapping=map_categories(cats))
    return best_probability_map(moments, resolution=40)


def prior_editor(models: tuple[str, ...], settings: cache.BayesSettings) -> cache.BayesSettings:
    """Widgets to add a prior for all models or one; returns the (possibly) updated settings."""
    try:
        priors = parse_prior_specs(list(settings.priors), models)
    except DataError as err:
        st.error(f"The saved priors do not fit this data set: {err}")
        priors = {m: ModelPrior() for m in models}
        settings = replace(settings, priors=())
    c1, c2, c3, c4 = st.columns([2, 1, 1, 1])
    scope = c1.selectbox(
        "Models",
        [ALL, *models],
        key="bayes_scope",
        format_func=lambda m: "All models" if m == ALL else m,
    )
    which = c2.radio("Parameter", ("a and b", "a", "b"), key="bayes_param")
    family = c3.selectbox("Family", tuple(FAMILIES), key="bayes_family")
    names = ", ".join(FAMILIES[family])
    text = c4.text_input(
        f"Parameters ({names})",
        key="bayes_params",
        placeholder=EXAMPLE[family],
        help="Numbers separated by commas, e.g. " + EXAMPLE[family],
    )
    b1, b2 = st.columns([1, 4])
    if b1.button("Apply prior", key="bayes_apply", type="primary"):
        value = f"{family}({text.strip() or EXAMPLE[family]})"
        parts = {"a and b": ("a", "b"), "a": ("a",), "b": ("b",)}[which]
        spec = f"{scope}:" + ",".join(f"{p}={value}" for p in parts)
        try:
            priors = parse_prior_specs([*format_prior_specs(priors), spec], models)
            settings = replace(settings, priors=tuple(format_prior_specs(priors)))
        except DataError as err:
            st.error(str(err))
    if b2.button("Reset to the default priors", key="bayes_reset"):
        priors = {m: ModelPrior() for m in models}
        settings = replace(settings, priors=())
    shown = pd.DataFrame(
        {"model": list(priors), "a": [str(p.a) for p in priors.values()]}
        | {"b": [str(p.b) for p in priors.values()]}
    )
    st.dataframe(shown, hide_index=True, height=min(38 + 35 * len(shown), 300))
    st.caption(
        "Default: exponential(1e-4) on a and b ([LGC] 2.2), nearly flat over the useful range. "
        "normal(mean, sd) is truncated at 0; gamma(shape, rate). The Beta mean is a / (a + b), "
        "its concentration a + b: e.g. normal(2000,10) on both pins tasks near 50%."
    )
    return settings


def _sampler_note(fit: BayesFit) -> str:
    """Which sampler ran and, for independence MH, its acceptance rates."""
    if fit.acceptance is None:
        return "Sampler: Gibbs (conjugate θ, slice steps for a and b)."
    acc = fit.acceptance
    done = acc[~np.isnan(acc)]
    text = "Sampler: independence Metropolis-Hastings"
    if done.size:
        text += (
            f"; acceptance rate after warm-up min {done.min():.0%}, median {np.median(done):.0%}"
        )
    fallback = int(np.isnan(acc).sum())
    if fallback:
        text += f"; {fallback} model(s) with low acceptance refitted by the Gibbs sampler"
    return text + "."


ctx = current()
st.title("Bayesian model")


bench = ctx.require_bench()
st.caption(
    "Per model i and task j: k ~ Binomial(n, θ), θ ~ Beta(a_i, b_i), priors on a_i and b_i "
    "([LGC] 2.2; METHODS 6). Sampler: independence Metropolis-Hastings for a and b with θ "
    "integrated out (beta-binomial), then the conjugate θ draw; a model whose acceptance rate "
    "falls below 20% is refitted with the Gibbs sampler (conjugate θ step, slice sampling for a "
    "and b). Both target the same posterior. "
    "Tasks with few items borrow strength from the model's other tasks (shrinkage). "
    "Choose **Bayesian** as the sidebar's uncertainty method to use these priors on every page."
)
with guard("The Bayesian model"):
    counts_of(bench)
    settings = cache.bayes_settings()
    with st.expander("Priors", expanded=True):
        settings = prior_editor(bench.models, settings)
    with st.expander("Run settings", expanded=False):
        r1, r2, r3, r4 = st.columns(4)
        chains = r1.number_input("Chains", 1, 8, settings.chains, key="bayes_chains")
        warmup = r2.number_input(
            "Warm-up sweeps per chain", 0, 10000, settings.warmup, step=100, key="bayes_warmup"
        )
        interval = r3.radio(
            "Intervals for",
            tuple(KIND_LABELS),
            index=tuple(KIND_LABELS).index(settings.interval),
            key="bayes_interval",
            format_func=lambda k: KIND_LABELS[k],
        )
        sampler = r4.radio(
            "Sampler",
            tuple(SAMPLER_LABELS),
            index=tuple(SAMPLER_LABELS).index(settings.sampler),
            key="bayes_sampler",
            format_func=lambda k: SAMPLER_LABELS[k],
            help="Both target the same posterior. Independence Metropolis-Hastings moves (a, b) "
            "with theta integrated out and converges where the Gibbs sweep of METHODS 6 can stall.",
        )
        st.caption(
            f"Posterior draws R = the sidebar's Replicates ({ctx.settings.reps}), split over the "
            f"chains; seed {ctx.settings.seed}. Warm-up draws are discarded."
        )
    settings = replace(
        settings, chains=int(chains), warmup=int(warmup), interval=interval, sampler=sampler
    )
    st.session_state[cache.BAYES_STATE] = settings
    reps, seed, level = ctx.settings.reps, ctx.settings.seed, ctx.level
    fit = cache.bayes_fit(bench, settings, reps, seed)
    key = f"{bench.content_hash}|{settings.key()}|{reps}|{seed}"
    models = ctx.models
    opts = ctx.figure_options()

    st.subheader("Convergence")
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("R-hat (max)", f"{fit.rhat_max:.4f}")
    m2.metric("Bulk ESS (min)", f"{fit.ess_bulk_min:,.0f}")
    m3.metric("Tail ESS (min)", f"{fit.ess_tail_min:,.0f}")
    m4.metric("Sampler time", f"{fit.seconds:.1f} s")
    st.caption(_sampler_note(fit))
    for warning in fit.warnings:
        st.warning(md_escape(warning), icon=":material/warning:")
    if not fit.warnings:
        st.success(
            f"Every R-hat ≤ 1.01 and every ESS ≥ 100 ({len(fit.diagnostics)} quantities: a, b, "
            "the mean over tasks per model, and θ per model and task).",
            icon=":material/check_circle:",
        )
    with st.expander("Diagnostics of every quantity (worst R-hat first)"):
        st.dataframe(
            fit.diagnostics.sort_values("rhat", ascending=False),
            hide_index=True,
            column_config={
                c: st.column_config.NumberColumn(format=f)
                for c, f in (
                    ("mean", "%.4g"),
                    ("sd", "%.3g"),
                    ("rhat", "%.4f"),
                    ("ess_bulk", "%.0f"),
                    ("ess_tail", "%.0f"),
                )
            },
        )
        st.caption(
            "Rank-normalised split R-hat and bulk/tail effective sample sizes (Vehtari et al. "
            "2021). Warning when R-hat > 1.01: then raise warm-up and draws."
        )
    model = st.selectbox("Model for trace, rank and shrinkage plots", models, key="bayes_model")
    t1, t2 = st.columns(2)
    t1.plotly_chart(trace_figure(fit, model, opts), key="bayes_trace")
    t2.plotly_chart(rank_plot_figure(fit, model, opts), key="bayes_rank")

    st.subheader("Shrinkage: direct vs posterior, per task")
    shrink = fit.shrinkage(model, level=level)
    st.plotly_chart(shrinkage_figure(shrink, opts), key="bayes_shrinkage")
    st.caption(
        f"Grey diamond: direct k/n with its exact (Clopper-Pearson) {100 * level:.1f}% interval; "
        f"blue: posterior mean of θ with its {100 * level:.1f}% credible interval. Tasks with "
        "few items move toward the model's grand mean a / (a + b) (green line)."
    )

    st.subheader("Intervals: bootstrap, parameter and posterior predictive")
    rows = []
    sources = (
        ("bootstrap", "Bootstrap (percentile)"),
        ("parameter", "Bayesian: parameter θ"),
        ("predictive", "Bayesian: posterior predictive"),
    )
    for kind, label in sources:
        if kind == "bootstrap":
            draws = cache.get_draws(bench, "bootstrap", reps, seed, "raw")
        else:
            draws = fit_draws(key, kind, fit)
        table = summaries.leaderboard(draws.select_models(list(models)), level=level)
        part = table[table["group"] == "overall"].assign(kind=kind, label=label)
        rows.append(part[["model", "kind", "label", "estimate", "low", "high"]])
    both = pd.concat(rows, ignore_index=True)
    st.plotly_chart(interval_comparison_figure(both, opts), key="bayes_intervals")
    st.caption(
        f"Overall score (mean over all tasks), {100 * level:.1f}% intervals. The parameter "
        "interval is for the models' true accuracy; the posterior predictive one also includes "
        "the binomial noise of a new test set of the same size ([LGC] Table 7 reports this "
        "kind). Bootstrap points are observed scores, Bayesian points posterior means."
    )
    wide = both.pivot(index="model", columns="label", values=["low", "high"])
    wide.columns = [f"{label}: {end}" for end, label in wide.columns]
    st.dataframe(
        (wide * opts.scale).reset_index(),
        hide_index=True,
        column_config={c: st.column_config.NumberColumn(format="%.2f") for c in wide.columns},
    )

    st.subheader(f"Posterior ranks at the current weights ({KIND_LABELS[interval]})")
    post = fit_draws(key, interval, fit).select_models(list(models))
    weights = ctx.weights
    cats = bench.category_names
    st.caption(
        "Weights: "
        + ", ".join(f"{md_escape(c)} {w:.2f}" for c, w in zip(cats, weights, strict=True))
        + " (set them in the sidebar)."
    )
    prob = summaries.rank_probabilities(post, group=np.asarray(weights, dtype=float))
    p1, p2 = st.columns([1, 2])
    p1.plotly_chart(best_probability_figure(prob[:, 0], models, opts), key="bayes_pbest")
    p2.plotly_chart(rank_probability_figure(prob, models, opts), key="bayes_rankprob")
    if 2 <= len(cats) <= 3 and len(models) >= 2:
        pm = best_map(f"{key}|{interval}", tuple(models), cats, fit_draws(key, interval, fit))
        st.plotly_chart(probability_figure(pm, opts), key="bayes_pbest_map")
        st.caption(
            "Most probable best model at every category weighting (posterior draws; METHODS 5). "
            "The Task weights page shows the same map for the sidebar's method."
        )
    for note in (*bench.notes, *post.notes):
        st.caption(md_escape(note))

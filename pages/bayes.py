"""Bayesian model: priors, run settings, diagnostics, shrinkage and intervals (METHODS 6)."""

import streamlit as st

from benchuq.api.summaries import counts_of
from benchuq.dashboard import cache, controls, plain
from benchuq.dashboard.bayes import cached as bayes_cached
from benchuq.dashboard.bayes import view as vb
from benchuq.dashboard.bayes import widgets
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.ranks import cached as ranks_cached
from benchuq.dashboard.weights.view import weights_text
from benchuq.presentation.figures.bayes import (
    best_probability_figure,
    interval_comparison_figure,
    rank_plot_figure,
    shrinkage_figure,
    trace_figure,
)
from benchuq.presentation.figures.common import rank_probability_figure
from benchuq.presentation.figures.weights import probability_figure
from benchuq.presentation.text import md_escape

ctx = current()
st.title("Bayesian model")
plain.intro("bayes")
bench = ctx.require_bench()
st.caption(
    "Per model i and task j: k ~ Binomial(n, θ), θ ~ Beta(a_i, b_i), priors on a_i and b_i "
    "([LGC] 2.2; METHODS 6). Sampler: independence Metropolis-Hastings for a and b with θ "
    "integrated out (beta-binomial), then θ from its conjugate Beta; a model whose acceptance rate "
    "falls below 20% is refitted with the Gibbs sampler (conjugate θ step, slice sampling for a "
    "and b). Both target the same posterior. "
    "Tasks with few items borrow strength from the model's other tasks (shrinkage). "
    "Choose **Bayesian** as the sidebar's uncertainty method to use these priors on every page."
)
with guard("The Bayesian model"):
    counts_of(bench)
    reps, seed, level = ctx.settings.reps, ctx.settings.seed, ctx.level
    link = controls.bind(vb.BayesSettings)
    with st.expander("Priors", expanded=True):
        priors = widgets.prior_editor(bench.models, link.value.priors)
    with st.expander("Run settings", expanded=False):
        widgets.bayes_run_settings(reps, seed)
    settings = link.read(priors=priors)
    fit = cache.bayes_fit(bench, settings, reps, seed)
    key = f"{bench.content_hash}|{settings.key()}|{reps}|{seed}"
    models = ctx.models
    opts = ctx.figure_options()

    st.subheader("Convergence")
    widgets.bayes_diagnostics(fit)
    view = controls.bind(vb.BayesView, choices={"model": models}, auto={"model": models[0]})
    st.selectbox("Model for trace, rank and shrinkage plots", models, key="bayes_model")
    model = view.read().model
    t1, t2 = st.columns(2)
    t1.plotly_chart(trace_figure(fit, model, opts), key="bayes_trace")
    t2.plotly_chart(rank_plot_figure(fit, model, opts), key="bayes_rank")

    st.subheader("Shrinkage: direct vs posterior, per task")
    st.plotly_chart(
        shrinkage_figure(fit.shrinkage(model, level=level), opts), key="bayes_shrinkage"
    )
    st.caption(
        f"Grey diamond: direct k/n with its exact {100 * level:.1f}% interval; "
        f"blue: posterior mean of θ with its {100 * level:.1f}% credible interval. Tasks with "
        "few items move toward the model's grand mean a / (a + b) (green line)."
    )

    st.subheader("Intervals: bootstrap, parameter and posterior predictive")
    sources = {
        "bootstrap": cache.get_draws(bench, "bootstrap", reps, seed, "raw"),
        "parameter": bayes_cached.fit_draws(key, "parameter", fit),
        "predictive": bayes_cached.fit_draws(key, "predictive", fit),
    }
    both = vb.interval_comparison(sources, models, level)
    st.plotly_chart(interval_comparison_figure(both, opts), key="bayes_intervals")
    st.caption(
        f"Overall score (mean over all tasks), {100 * level:.1f}% intervals. The parameter "
        "interval is for the models' true accuracy; the posterior predictive one also includes "
        "the binomial noise of a new test set of the same size ([LGC] Table 7 reports this "
        "kind). Bootstrap points are observed scores, Bayesian points posterior means."
    )
    wide = vb.interval_table(both, opts.scale)
    numbers = [c for c in wide.columns if c != "model"]
    st.dataframe(
        wide,
        hide_index=True,
        column_config={c: st.column_config.NumberColumn(format="%.2f") for c in numbers},
    )

    kind = settings.interval
    st.subheader(f"Posterior ranks at the current weights ({vb.KIND_LABELS[kind]})")
    post = sources[kind].select_models(list(models))
    weights, cats = ctx.weights, bench.category_names
    st.caption("Weights: " + weights_text(cats, weights) + " (set them in the sidebar).")
    prob = ranks_cached.rank_probabilities(sources[kind], tuple(models), tuple(map(float, weights)))
    p1, p2 = st.columns([1, 2])
    p1.plotly_chart(best_probability_figure(prob[:, 0], models, opts), key="bayes_pbest")
    p2.plotly_chart(rank_probability_figure(prob, models, opts), key="bayes_rankprob")
    if 2 <= len(cats) <= 3 and len(models) >= 2:
        pm = bayes_cached.best_map(sources[kind], tuple(models), cats)
        st.plotly_chart(probability_figure(pm, opts), key="bayes_pbest_map")
        st.caption(
            "Most probable best model at every category weighting (posterior samples; METHODS 5). "
            "The Task weights page shows the same map for the sidebar's method."
        )
    for note in post.notes:  # the data's own notes: the Data page (linked at the top)
        st.caption(md_escape(note))

"""Plain words: each page's question and how to read its chart, a glossary of the jargon the pages
use, and the references as links (texts pure; :func:`intro` is the one streamlit call a page
makes, right under its title)."""

from __future__ import annotations

import streamlit as st

__all__ = ["GLOSSARY", "INTROS", "REFERENCES", "glossary_markdown", "intro", "intro_text"]

#: page (its file in pages/ without .py) -> (the question it answers, how to read it, terms)
INTROS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "table": (
        "What is each model's score on every task and group, with its uncertainty?",
        "Each cell is the score with its interval in brackets; a wide bracket means few items.",
        ("replicate", "percentile interval", "Monte Carlo error"),
    ),
    "compare": (
        "Is model A really better than model B, or could the gap be luck?",
        "Each bar is a difference between two models; a bar that crosses 0 means the data cannot "
        "tell them apart.",
        ("replicate", "simultaneous interval", "max-T", "Bonferroni", "Holm", "p-value"),
    ),
    "two_runs": (
        "I changed the prompt, the checkpoint or the scaffold: did it get better, or worse?",
        "Each bar is candidate − base on the items both runs scored; a bar left of 0 is a "
        "regression, a bar inside the shaded margin is a change too small to matter.",
        (
            "McNemar test",
            "simultaneous interval",
            "p-value",
            "margin",
            "confidence sequence",
            "design effect",
        ),
    ),
    "ranks": (
        "Which positions could each model truly hold in the ranking?",
        "A short bar means a settled position; a long bar means the model's rank is uncertain.",
        ("rank set", "replicate", "weighted score", "percentile interval"),
    ),
    "weights": (
        "Does the winner change if some categories of tasks count more than others?",
        "Each point of the map is one weighting of the categories; its colour is the model that "
        "leads there, grey where the leaders cannot be told apart.",
        ("weighted score", "standard error", "rho"),
    ),
    "epp": (
        "How often would each model beat an average model, task by task?",
        "A higher EPP means more wins; bars that overlap mean the win rates cannot be told apart.",
        ("EPP", "Bradley–Terry", "logit", "deviance", "Wald test"),
    ),
    "arena": (
        "From head-to-head battles, how strong is each model, and which could be the best?",
        "Each bar is a rating with its interval (400 points = 10 to 1 odds); the rank sets say "
        "which positions a model could truly hold.",
        ("Bradley–Terry", "rank (arena)", "rank set", "sandwich"),
    ),
    "judge": (
        "My scores come from an LLM judge: what would people have said, and how sure is that?",
        "Red dots are the judge's own means, grey the human labels alone, blue the two combined; "
        "the curve shows how the interval narrows as you label more items.",
        ("PPI++", "Rogan–Gladen", "Cohen's kappa"),
    ),
    "bayes": (
        "What does a model that lets small tasks borrow strength from the others say?",
        "Compare these intervals with the bootstrap's; the diagnostics say whether the sampler "
        "has settled (it has when R-hat is near 1 and ESS is large).",
        ("posterior", "shrinkage", "R-hat", "ESS", "Metropolis–Hastings", "Gibbs sampler"),
    ),
    "embeddings": (
        "Do a model's embeddings agree with what we know about the entities?",
        "Higher ALP and accuracy mean more consistent embeddings; compare models only under the "
        "same clusters.",
        ("ALP", "linearised refit bootstrap"),
    ),
    "subgroups": (
        "What is a model's score on a small subgroup, once its noise is tamed?",
        "Each row pairs the raw subgroup score with the steadier empirical-Bayes estimate; small "
        "subgroups move most toward the prediction.",
        ("empirical Bayes", "shrinkage", "A (spread of true scores)", "kurtosis"),
    ),
    "plan": (
        "How many items would the next evaluation need to tell the models apart?",
        "Read the curve at the difference you care about: where it crosses 80% power is the "
        "number of items you need.",
        ("power", "MDE", "simultaneous interval"),
    ),
}

#: term -> what it means, in plain language
GLOSSARY: dict[str, str] = {
    "PPI++": "Prediction-powered inference: the judge's mean over every item, corrected by the "
    "judge's average error on the items people labelled; a tuned weight (lambda) makes it never "
    "worse than the labels alone.",
    "Rogan–Gladen": "A correction of a judge's pass rate by its sensitivity and specificity, "
    "both measured on labelled items: (pass rate + specificity - 1) / (sensitivity + "
    "specificity - 1).",
    "Cohen's kappa": "Agreement between two raters beyond what chance would give: 0 is chance, "
    "1 perfect agreement.",
    "McNemar test": "The exact test for two runs scored right/wrong on the same items: only the "
    "items where they disagree carry information, and the split of those decides.",
    "margin": "The smallest change that matters to you: inside ±margin the runs count as "
    "equivalent; above −margin, the candidate is no worse (non-inferior).",
    "confidence sequence": "An interval that stays valid however often you look at the data "
    "while it arrives (anytime-valid); wider than an interval for one look.",
    "design effect": "How much the variance of an estimate differs from the one that treats "
    "every answer as independent: below 1, pairing helps; above 1, answers cluster by item.",
    "replicate": "One simulated re-run of the evaluation: the scores recomputed on resampled "
    "data (a bootstrap resample or a posterior sample; METHODS calls it a draw). Every interval, "
    "rank and share on the pages is read from many replicates; 'task-level resampling' redraws "
    "each model's score per task from its count of right answers (mid-p Clopper–Pearson), "
    "'item-level' reweights the items, the same way for all models (paired).",
    "weighted score": "The score that counts each category by the sidebar's category weights "
    "(S(w) = Σ w_c × the category's mean in METHODS 5); shown only when the weights differ from "
    "the default (equal). Overall counts every task once, so the two orders can differ.",
    "rank (arena)": "1 + the number of models whose rating interval lies entirely above "
    "(LMArena's 'rank (UB)', an upper bound on the rank number).",
    "percentile interval": "The range that holds the middle share (e.g. 83.4%) of the "
    "scores recomputed on resampled data: where the true score plausibly lies.",
    "Monte Carlo error": "How much an interval end would move if the resampling were run "
    "again with another seed; more replicates make it smaller.",
    "simultaneous interval": "Intervals that all hold together with the stated confidence, "
    "so looking at many pairs at once does not produce chance 'wins'.",
    "max-T": "A way to make simultaneous intervals from the resampled data itself; narrower "
    "than Bonferroni's while still holding for all pairs together (the pages call it "
    "'simultaneous (all pairs together)'; with independent tasks its exact counterpart is "
    "Šidák's).",
    "Bonferroni": "Simultaneous intervals made by demanding more confidence from each pair; "
    "safe but wide.",
    "Holm": "A stepwise correction of p-values for many comparisons; more powerful than "
    "Bonferroni but without intervals of its own.",
    "p-value": "How surprising the observed difference would be if the two models were equally "
    "good; small means unlikely to be luck.",
    "rank set": "The positions a model could truly hold, at the stated confidence, given the "
    "comparisons the data can settle.",
    "sandwich": "Robust standard errors that use the observed spread of the data, not the "
    "model's; clustered, they also allow battles on one prompt (or by one judge) to move "
    "together.",
    "standard error": "The typical size of the error of an estimate; an interval is roughly "
    "the estimate plus or minus two standard errors.",
    "rho": "The assumed correlation between two models' errors on the same items (Task weights "
    "map only); higher rho makes differences easier to detect.",
    "EPP": "Elo-based predictive power: a rating from head-to-head wins per task; its "
    "inverse-logit is the chance of beating an average model.",
    "Bradley–Terry": "A model of pairwise contests: each competitor has a strength and the "
    "chance that one beats another depends only on the gap in strength.",
    "logit": "The log-odds scale: 0 is a 50% chance, +1 about 73%, -1 about 27%.",
    "deviance": "How far the observed wins are from what the model predicts; large means the "
    "single-strength model does not fit.",
    "Wald test": "A test that compares an estimated gap with its standard error.",
    "posterior": "What the Bayesian model believes about a score after seeing the data.",
    "shrinkage": "Pulling noisy estimates from small tasks or subgroups toward a steadier "
    "common value; large ones move little.",
    "R-hat": "Agreement between independent sampler runs; near 1 (below 1.01) means they agree, "
    "above that the numbers are not yet trustworthy.",
    "ESS": "Effective sample size: how many independent draws the sampler's output is worth; "
    "below 100 the intervals are unreliable.",
    "Metropolis–Hastings": "A sampler that proposes values and keeps each with a probability "
    "that makes the kept values follow the posterior.",
    "Gibbs sampler": "A sampler that updates one quantity at a time from its distribution "
    "given the others.",
    "ALP": "Average log posterior: how confidently each entity's embedding points to its own "
    "cluster (0 = perfectly).",
    "linearised refit bootstrap": "A fast approximation of refitting the clusters on each "
    "resample, so intervals include the fitting error.",
    "empirical Bayes": "Estimating each subgroup by blending its own score with a prediction "
    "from all subgroups, weighted by how noisy it is.",
    "A (spread of true scores)": "How much the true subgroup scores vary around the "
    "prediction; small A means more blending toward the prediction.",
    "kurtosis": "How heavy-tailed the true scores are around the prediction; heavy tails make "
    "the robust intervals wider.",
    "power": "The chance that the evaluation detects a real difference of a given size.",
    "MDE": "Minimum detectable effect: the smallest difference the evaluation would detect "
    "with the stated power.",
}

#: key -> (citation, link)
REFERENCES: dict[str, tuple[str, str]] = {
    "ADZ": (
        "Angelopoulos, Duchi & Zrnic (2023). PPI++: Efficient Prediction-Powered Inference.",
        "https://arxiv.org/abs/2311.01453",
    ),
    "LGC": (
        "Longjohn, Gopalan & Casleton (2024). Statistical Uncertainty Quantification for "
        "Aggregate Performance Metrics in Machine Learning Benchmarks.",
        "https://arxiv.org/abs/2501.04234",
    ),
    "GH": (
        "Goldstein & Healy (1995). The graphical presentation of a collection of means. JRSS A "
        "158(1).",
        "https://doi.org/10.2307/2983411",
    ),
    "M24": (
        "Miller (2024). Adding Error Bars to Evals: A Statistical Approach to Language Model "
        "Evaluations.",
        "https://arxiv.org/abs/2411.00640",
    ),
    "FPAM": (
        "Fogliato, Patil, Akpinar & Monfort (2024). Precise Model Benchmarking with Only a Few "
        "Observations.",
        "https://arxiv.org/abs/2410.05222",
    ),
    "AKP": (
        "Armstrong, Kolesár & Plagborg-Møller (2022). Robust Empirical Bayes Confidence "
        "Intervals. Econometrica 90(6).",
        "https://doi.org/10.3982/ECTA18597",
    ),
    "CHI": (
        "Chiang et al. (2024). Chatbot Arena: An Open Platform for Evaluating LLMs by Human "
        "Preference. ICML.",
        "https://arxiv.org/abs/2403.04132",
    ),
    "EPP": (
        "The Elo-based Predictive Power meta-score: the R package EloML.",
        "https://github.com/ModelOriented/EloML",
    ),
    "MHP": (
        "Aboagye et al. (2024). Has Your Pretrained Model Improved? A Multi-head Posterior "
        "Based Approach.",
        "https://arxiv.org/abs/2401.02987",
    ),
}


def intro_text(page: str) -> str:
    """The page's question (bold) and how to read its chart, as markdown."""
    question, reading, _ = INTROS[page]
    return f"**{question}** {reading}"


def terms_help(page: str) -> str:
    """The glossary entries of the page's terms, for the intro's tooltip (markdown)."""
    return "\n\n".join(f"**{t}**: {GLOSSARY[t]}" for t in INTROS[page][2])


def glossary_markdown() -> str:
    """Every glossary entry, alphabetically, as a markdown list."""
    return "\n".join(f"- **{t}**: {GLOSSARY[t]}" for t in sorted(GLOSSARY, key=str.casefold))


def references_markdown() -> str:
    """The references as a markdown list of links."""
    return "\n".join(f"- **[{k}]** [{text}]({url})" for k, (text, url) in REFERENCES.items())


def intro(page: str) -> None:
    """Show the page's question and how to read it, with the jargon explained in a tooltip."""
    st.markdown(intro_text(page), help=terms_help(page))

"""Methods: what each estimator assumes, when it misleads, and where it comes from."""

import streamlit as st

st.title("Methods")
st.caption(
    "What every number in this app means, what it assumes and when it misleads. "
    "References at the bottom."
)

st.header("Intervals from draws")
st.markdown("""
Every uncertainty method produces **draws**: many plausible versions of the per-task scores
(bootstrap replicates or posterior draws). Every interval, difference, rank and map in the app is
computed from the same draws, so all views agree with each other. An interval at level L is the
range between the (1 − L)/2 and (1 + L)/2 quantiles of the draws (a *percentile interval*).
The **Monte Carlo error** next to each interval end says how much that end would move with
another seed; if it is not small next to the differences you care about, raise *Replicates*.
""")

st.header("Bootstrap [LGC 2.1]")
st.markdown("""
The bootstrap resamples the **test items** of each task with replacement and recomputes the
benchmark's aggregate. It captures *sampling noise of the test set*: how much the scores would
move on another test set drawn from the same population. It does not capture training noise
(another seed of the model), prompt sensitivity or a test set that is unrepresentative.

- **Item-level data, paired**: one resample of items per task, applied to every model, so the
  correlation between models (they tend to get the same items right) is kept. Differences
  between models are then much tighter and honest.
- **Task-level counts only**: each model's count is redrawn as Binomial(n, p) independently.
  For one model this equals item resampling, but it cannot know how models co-vary, so
  **differences and ranks treat models as independent**; the app says so on those pages.
  Usually this makes differences look *less* certain than they are.
- **Clustered** [M24]: when items share a passage or template (a cluster column), whole
  clusters are resampled; ignoring clusters makes intervals too narrow.
- **Estimate ± standard error only**: draws are Normal(estimate, se²), independently per model and
  task — a normal approximation that is poor for small tasks or scores near 0 or 1.

**Misleads when** a task has very few items (percentile intervals of a binomial with n < 30 are
too short), when scores are near 0% or 100%, or when the test items are not independent.
""")

st.header("Why 83.4% intervals [GH]")
st.markdown("""
People read leaderboards by checking whether intervals overlap. Two **95%** intervals can overlap
even when the difference is clearly significant: overlap of 95% intervals corresponds to a test
at about the 0.6% level. Goldstein & Healy (1995) showed that two **83.4%** intervals that do not
overlap correspond roughly to a **5% test** of the difference, when the two standard errors are
similar. That is why the leaderboard defaults to 83.4%.

The rule is approximate: it assumes similar standard errors and independent models. The
Leaderboard therefore also marks models **≈ leader** using the *paired difference* from the
leader directly (its interval contains 0 at the level the overlap rule approximates: 95% for
83.4% intervals). For a definitive comparison of specific models, use **Compare models**, which
gives family-wise intervals for the differences (Bonferroni or Holm over all pairs compared).
""")

st.header("Normalization [LGC 2.4]")
st.markdown("""
Tasks differ in difficulty, so a mean of raw accuracies is dominated by tasks with a wide spread.
**Normalized** rescales each task to (x − low) / (high − low), with low and high the minimum and
maximum of that task's score over all models and all replicates (computed once, applied to every
replicate), after BIG-bench. Normalized scores can **reorder models** (in [LGC] the top two VTAB
models swap) and depend on which models are in the data: adding a weak model changes everyone's
normalized score. Report which metric you used.
""")

st.header("Rank aggregation [LGC 3.2]")
st.markdown("""
Ranks are computed inside every replicate and summarised as the mean rank with a 95% interval
(1 = best). Five aggregations are shown because they answer different questions:

1. **Mean over tasks** — the usual leaderboard order.
2. **Geometric mean** — penalises a model that is very poor on one task.
3. **Average rank** — rank within each task, then average; insensitive to task scale.
4. **Average rank with noise** — as 3 after adding N(0, 1) percentage-point noise to every score,
   so near-ties are broken at random rather than by tiny differences.
5. **Average rank with 1-point bins** — scores in the same 1-percentage-point bin tie and all get
   the worst rank of the tie.

**Misleads when** read as a precise order: wide rank intervals mean the order is not established.
**Rank probabilities** show, for the current category weights, how often each model takes each
rank over the draws.
""")

st.header("Task weighting [LGC 2.3, 3.3]")
st.markdown("""
The overall score is a choice: VTAB averages all tasks, which gives large categories more weight.
The sidebar's **category weights** define the weighted score S(w) = Σ_c w_c m_c (weights are
rescaled to sum to 1) used by every weighted view. The task-weight map shows, for every weighting
of three categories, which model leads and where the lead is **indeterminate** (grey): the leader's
margin is smaller than z standard errors of the difference. Under independence the standard error
needs an assumed correlation **rho** between models; with paired item-level draws it is read from
the draws. If the leader changes across plausible weightings, the ranking is a statement about
the weights, not only about the models.
""")

st.header("Bayesian hierarchical model [LGC 2.2]")
st.markdown("""
Each model's task accuracies are drawn from a Beta(a, b) distribution with weak priors on a and b;
counts are Binomial given the task accuracy. Small tasks are **shrunk** toward the model's overall
level, which stabilises them. Two kinds of interval exist: for the task accuracy θ, and
**posterior predictive** (what a new test set of the same size would show, as in [LGC Table 7]).
**Misleads when** the chains have not converged (check R-hat ≤ 1.01 and effective sample sizes)
or when one model's tasks are not exchangeable (a single Beta cannot fit a model that is excellent
at some categories and poor at others).
""")

st.header("Small subgroups: empirical Bayes [FPAM, AKP]")
st.markdown("""
For many small subgroups (e.g. MMLU subjects × models), the **direct** estimate is noisy. A
regression on features predicts each subgroup; **empirical Bayes** combines the two, shrinking
noisy subgroups more. Robust EB confidence intervals [AKP] have the stated coverage **on average
over subgroups**, not for every single one. When the estimated signal variance A is 0, the plain
positive-part variant returns the regression estimate and no robust interval — the app says so
instead of showing a zero-width interval.

The interval is EB estimate ± cva × w × se. The critical value cva is robust: it is set so that
the *worst* non-coverage over every distribution of the true scores around the regression with
the estimated spread A and kurtosis κ equals α. κ = ∞ uses A only and gives wider intervals.
The regression and the estimates of A and κ weight units equally (R's default) or by precision
1/se². Where it misleads: with few units (about 20 or fewer) A and κ are poorly estimated and
sit at their finite-sample floors; a subgroup that is far from the regression is covered less
often than the stated level, which is why the direct intervals are shown beside the EB ones.
""")

st.header("Win probabilities: EPP [EPP]")
st.markdown("""
EPP treats models as players in matches (one per task or split): a logistic model of
P(i beats j) = invlogit(β_i − β_j). invlogit(β_i) is the chance of beating an average player. The
deviance test says whether one strength per model explains the results. **Misleads when** a model
wins or loses every match (the estimate diverges; the app fits with a small ridge and flags it)
and when rounds are not comparable.
""")

st.header("Embedding consistency [MHP]")
st.markdown("""
Scores an embedding by how well Gaussian clusters of known categories explain it (average log
posterior of the true cluster, ALP). Compare models only under the same clustering; the bootstrap
over entities gives the intervals. **Misleads when** categories are small next to the dimension
(use the multi-head variant) or the meta features do not reflect what the embedding should encode.
""")

st.header("References")
st.markdown("""
- **[LGC]** Longjohn, Gopalan, Casleton (2024). *Statistical Uncertainty Quantification for
  Aggregate Performance Metrics in Machine Learning Benchmarks.* arXiv:2501.04234.
- **[GH]** Goldstein, H. & Healy, M. J. R. (1995). *The graphical presentation of a collection of
  means.* Journal of the Royal Statistical Society A 158(1), 175–177.
- **[M24]** Miller, E. (2024). *Adding Error Bars to Evals: A Statistical Approach to Language
  Model Evaluations.*
- **[FPAM]** Fogliato, Patil, Akpinar, Monfort (2024). *Precise Model Benchmarking with Only a Few
  Observations.*
- **[AKP]** Armstrong, Kolesár, Plagborg-Møller (2022). *Robust Empirical Bayes Confidence
  Intervals.* Econometrica 90(6).
- **[EPP]** The Elo-based Predictive Power meta-score and its reference implementation, the R
  package EloML (ModelOriented/EloML).
- **[MHP]** *Has your pretrained model improved? A multi-head posterior based approach.*
""")

"""The app's door into the statistics: draws-level summaries, the analyses' engines and the
result types the dashboard's views take (issue 38: ``dashboard/`` and ``pages/`` import the
statistics from :mod:`benchuq.api` only; ``tests/package/test_imports.py`` keeps it so).

The flat functions of :mod:`benchuq.api` (``bq.leaderboard``, ``bq.epp``, ...) return whole
result objects; the app caches smaller pieces, so that moving a slider only re-summarises cached
draws (README "Responsiveness"). This module names those pieces, one place each:

- scores of draws (METHODS 2-4): :func:`group_scores`, :func:`percentile_interval`,
  :func:`leaderboard_table`, :func:`pairwise_differences`, :func:`win_probabilities`,
  :func:`rank_probabilities`, :func:`rank_aggregations`, :func:`rank_sets_of`, the headline
  ("overall", :func:`headline`, :func:`overall_label`) and lm-eval group scores;
- task-weight maps (METHODS 5): moments, :func:`dominance_map`, :func:`best_probability_map`
  and :func:`best_map` (P(best) of draws over category weightings);
- how many items a score rests on (METHODS 2d: :func:`cell_items`, :func:`few_items_note`,
  :func:`min_items_to_tell`);
- the report's words (:func:`findings`, :func:`model_flags`, :func:`data_caveats`,
  :func:`gaps_from_leader`) and Every Eval Ever files (:func:`export_eee`);
- the engines whose intermediate results the app shows (the Bayesian fit and its priors, the
  power design and plan, EPP, the arena, two runs, subgroups, embeddings) with their result
  types.

Each name is the statistics' own function or type (``benchuq.core``), so every number is the
one the CLI and the Python API print.

Examples
--------
>>> import benchuq as bq
>>> from benchuq.api import summaries as bqs
>>> draws = bq.bootstrap(bq.load("sample:toy"), reps=200, seed=0)
>>> bqs.leaderboard_table(draws, level=0.9).query("group == 'overall'")["model"].tolist()
['B', 'A']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchuq.core.analyses.arena import ArenaFit, ArenaResult, Ties, arena_fit
from benchuq.core.analyses.arena import IntervalMethod as ArenaInterval
from benchuq.core.analyses.diff import DiffResult
from benchuq.core.analyses.embeddings import (
    EMBEDDING_SAMPLES,
    EMBEDDING_SUFFIXES,
    META_SUFFIXES,
    SAMPLE_LABELS,
    BootstrapMode,
    ConsistencyResult,
    EmbeddingTree,
    align,
    load_embedding_sample,
    parse_prior,
    read_embeddings,
    read_meta,
)
from benchuq.core.analyses.embeddings.workflow import score_embeddings
from benchuq.core.analyses.epp import EPPResult, PairTest, pair_test
from benchuq.core.analyses.power import (
    ASSUMPTIONS,
    Design,
    PowerPlan,
    SamplingPlan,
    assumed_differences,
    design_from_assumptions,
    design_from_benchmark,
    display_scale,
    split_budget,
)
from benchuq.core.analyses.power import plan as power_plan
from benchuq.core.analyses.subgroups.ebci import FsCorrection, parse_kappa
from benchuq.core.analyses.subgroups.estimates import (
    Grouping,
    SubgroupResult,
    Units,
    UnitWeights,
    units_from_benchmark,
    units_from_table,
)
from benchuq.core.analyses.subgroups.lab import LabResult, simulate
from benchuq.core.draws import Draws
from benchuq.core.export_eee import export_eee
from benchuq.core.findings import (
    Findings,
    data_caveats,
    findings,
    gaps_from_leader,
    model_flags,
)
from benchuq.core.methods.bayes.model import BayesFit, counts_of
from benchuq.core.methods.bayes.model import fit as fit_bayes
from benchuq.core.methods.bayes.priors import (
    FAMILIES,
    ModelPrior,
    compact_prior_specs,
    parse_prior_specs,
)
from benchuq.core.methods.bootstrap import UNPAIRED_NOTES
from benchuq.core.methods.bootstrap import bootstrap as bootstrap_draws
from benchuq.core.small_samples import cell_items, few_items_note, min_items_to_tell
from benchuq.core.summaries import (
    WEIGHTED,
    group_scores,
    pairwise_differences,
    percentile_interval,
    rank_aggregations,
    rank_probabilities,
    task_scores,
    win_probabilities,
)
from benchuq.core.summaries import leaderboard as leaderboard_table
from benchuq.core.summaries.dominance import (
    BestProbabilityMap,
    CategoryMoments,
    DominanceMap,
    WeightedScores,
    best_probability_map,
    dominance_map,
    from_map_weights,
    implied_level,
    map_categories,
    moments_from_benchmark,
    moments_from_draws,
    to_map_weights,
    weighted_scores,
)
from benchuq.core.summaries.groups import Aggregate, group_scores_of_tasks, task_sizes
from benchuq.core.summaries.headline import Headline, Overall, headline, overall_label
from benchuq.core.summaries.leader import overlap_test_level
from benchuq.core.summaries.maxt import format_p
from benchuq.core.summaries.rank_sets import RankSets, rank_set_sentences
from benchuq.core.summaries.rank_sets import rank_sets as _rank_sets
from benchuq.core.summaries.ranks import RankReplicates, rank_replicates, summarize_ranks
from benchuq.core.summaries.scores import Correction, Group
from benchuq.core.zero_spread import zero_spread_notes

__all__ = [
    "ASSUMPTIONS",
    "EMBEDDING_SAMPLES",
    "EMBEDDING_SUFFIXES",
    "FAMILIES",
    "META_SUFFIXES",
    "SAMPLE_LABELS",
    "UNPAIRED_NOTES",
    "WEIGHTED",
    "Aggregate",
    "ArenaFit",
    "ArenaInterval",
    "ArenaResult",
    "BayesFit",
    "BestProbabilityMap",
    "BootstrapMode",
    "CategoryMoments",
    "ConsistencyResult",
    "Correction",
    "Design",
    "DiffResult",
    "DominanceMap",
    "EPPResult",
    "EmbeddingTree",
    "Findings",
    "FsCorrection",
    "Group",
    "Grouping",
    "Headline",
    "LabResult",
    "ModelPrior",
    "Overall",
    "PairTest",
    "PowerPlan",
    "RankReplicates",
    "RankSets",
    "SamplingPlan",
    "SubgroupResult",
    "Ties",
    "UnitWeights",
    "Units",
    "WeightedScores",
    "align",
    "arena_fit",
    "assumed_differences",
    "best_map",
    "best_probability_map",
    "bootstrap_draws",
    "cell_items",
    "compact_prior_specs",
    "counts_of",
    "data_caveats",
    "design_from_assumptions",
    "design_from_benchmark",
    "display_scale",
    "dominance_map",
    "export_eee",
    "few_items_note",
    "findings",
    "fit_bayes",
    "format_p",
    "from_map_weights",
    "gaps_from_leader",
    "group_scores",
    "group_scores_of_tasks",
    "headline",
    "implied_level",
    "leaderboard_table",
    "load_embedding_sample",
    "map_categories",
    "min_items_to_tell",
    "model_flags",
    "moments_from_benchmark",
    "moments_from_draws",
    "overall_label",
    "overlap_test_level",
    "pair_test",
    "pairwise_differences",
    "parse_kappa",
    "parse_prior",
    "parse_prior_specs",
    "percentile_interval",
    "power_plan",
    "rank_aggregations",
    "rank_probabilities",
    "rank_replicates",
    "rank_set_sentences",
    "rank_sets_of",
    "read_embeddings",
    "read_meta",
    "score_embeddings",
    "simulate",
    "split_budget",
    "summarize_ranks",
    "task_scores",
    "task_sizes",
    "to_map_weights",
    "units_from_benchmark",
    "units_from_table",
    "weighted_scores",
    "win_probabilities",
    "zero_spread_notes",
]


def rank_sets_of(draws: Draws, *, level: float, group: Group = "overall") -> RankSets:
    """Rank confidence sets, marginal and simultaneous, of the score ``group`` of ``draws``
    (``"overall"``, a category or category weights; METHODS 4b): the sets of
    :func:`benchuq.api.rank_sets` without the draws it keeps (what the app caches).

    Examples
    --------
    >>> import benchuq as bq
    >>> from benchuq.api import summaries as bqs
    >>> draws = bq.bootstrap(bq.load("sample:vtab1k"), reps=200, seed=0)
    >>> sets = bqs.rank_sets_of(draws, level=0.95, group=[1 / 3, 1 / 3, 1 / 3])
    >>> sets.models == draws.models, bool((sets.marginal_low <= sets.marginal_high).all())
    (True, True)
    """
    g = group if isinstance(group, str) else np.asarray(group, dtype=float)
    sc = group_scores(draws, group=g)
    return _rank_sets(
        sc.values,
        sc.observed,
        draws.models,
        level=level,
        higher_is_better=sc.higher_is_better,
        label=sc.label,
    )


def best_map(
    draws: Draws, *, categories: Sequence[str], resolution: int = 40
) -> BestProbabilityMap:
    """P(best) of each model on a grid of weightings of ``categories`` (2 or 3; METHODS 5): the
    share of ``draws`` in which the model's weighted score is the best.

    Examples
    --------
    >>> import benchuq as bq
    >>> from benchuq.api import summaries as bqs
    >>> bench = bq.load("sample:vtab1k")
    >>> draws = bq.bootstrap(bench, reps=200, seed=0).select_models(list(bench.models[:3]))
    >>> best = bqs.best_map(draws, categories=bench.category_names, resolution=10)
    >>> bool(abs(best.probability.sum(axis=1) - 1).max() < 1e-9)
    True
    """
    moments = moments_from_draws(draws, mapping=map_categories(tuple(categories)))
    return best_probability_map(moments, resolution=resolution)

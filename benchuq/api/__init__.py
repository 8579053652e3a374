"""The flat Python API, ``import benchuq as bq``: data in, draws, results out.

Every function validates its arguments once (bad options raise
:class:`~benchuq.core.validation.InvalidArgument`, bad data
:class:`~benchuq.core.data.DataError`), takes its options keyword-only and returns a small
frozen result (:mod:`benchuq.results`) with ``to_frame()``, ``figure()`` and the CLI's JSON
(``payload()``). The CLI subcommands call these same functions.

Examples
--------
>>> import benchuq as bq
>>> bench = bq.load("sample:toy")
>>> draws = bq.bootstrap(bench, reps=500, seed=0)
>>> draws.values.shape  # (replicates, models, tasks)
(500, 2, 3)
>>> board = bq.leaderboard(draws, level=0.95)
>>> board.to_frame().query("group == 'overall'")[["model", "estimate"]].round(3)
  model  estimate
0     B     0.525
1     A     0.500

The functions live in modules of one idea each: :mod:`.loading` (data in), :mod:`.draws`
(bootstrap, Bayesian, normalized draws), :mod:`.scores` (summaries of draws), :mod:`.analyses`
(EPP, arena, two runs, subgroups, power), :mod:`.embeddings` (embedding consistency),
:mod:`.judge` (LLM-judge scores corrected with human labels; ``bq.judge`` is
``benchuq.api.judge.judge``, so the module keeps its name), :mod:`.reporting` (report and export
files) and :mod:`.static_site` (the leaderboard site); :mod:`.summaries` names the draws-level
pieces the app caches (its one door into the statistics).
"""

from __future__ import annotations

from benchuq.api.analyses import answers_plan, arena, diff, epp, power, subgroups
from benchuq.api.draws import bayes, bayes_model, bootstrap, normalize
from benchuq.api.embeddings import consistency
from benchuq.api.loading import from_frame, load, load_battles, samples
from benchuq.api.reporting import export, report, write_report
from benchuq.api.scores import compare, leaderboard, rank_sets, ranks, statistic, weights
from benchuq.api.static_site import site

__all__ = [
    "answers_plan",
    "arena",
    "bayes",
    "bayes_model",
    "bootstrap",
    "compare",
    "consistency",
    "diff",
    "epp",
    "export",
    "from_frame",
    "leaderboard",
    "load",
    "load_battles",
    "normalize",
    "power",
    "rank_sets",
    "ranks",
    "report",
    "samples",
    "site",
    "statistic",
    "subgroups",
    "weights",
    "write_report",
]

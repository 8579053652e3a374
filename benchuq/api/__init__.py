"""The flat Python API, ``import benchuq as bq``: data in, draws, results out.

Every function validates its arguments once (bad options raise
:class:`~benchuq.core.validation.InvalidArgument`, bad data
:class:`~benchuq.core.data.DataError`), takes its options keyword-only and returns a small
frozen result (:mod:`benchuq.results`) with ``to_frame()``, ``figure()`` and the CLI's JSON
(``payload()``). The CLI subcommands call these same functions.

One grammar (issue 41; ``tests/package/test_api_grammar.py`` checks each rule):

- **The first argument** is what the function works on, and one of three kinds:

  1. *sources* (paths, ``sample:`` and ``shared:`` names, a DataFrame) only for the readers:
     :func:`load`, :func:`load_battles`, :func:`from_frame` (:func:`samples` takes none);
  2. *the loaded data* for everything that resamples or reads the data's own variances:
     a :class:`~benchuq.core.data.Benchmark` for :func:`bootstrap`, :func:`bayes`,
     :func:`bayes_model`, :func:`epp`, :func:`diff`, :func:`power`, :func:`answers_plan`,
     :func:`subgroups`, :func:`report`, :func:`export` and :func:`site`;
     the :class:`~benchuq.core.reading.battles.Battles` of :func:`load_battles` for
     :func:`arena`;
  3. *draws* (:class:`~benchuq.core.draws.Draws`, from :func:`bootstrap` or :func:`bayes`) for
     the summaries that resample nothing: :func:`leaderboard`, :func:`compare`, :func:`ranks`,
     :func:`rank_sets`, :func:`statistic`, :func:`normalize` and :func:`weights` (which also
     takes the Benchmark, for variances without draws).

  Three also read files of a kind no loader returns yet: :func:`consistency` (embedding files),
  ``bq.judge`` (a judge table: a file, a DataFrame or ``JudgeData``) and :func:`subgroups` (a
  ``unit, estimate, se`` table: a file or a DataFrame, besides the Benchmark). The old file-path
  first arguments of :func:`arena` and :func:`diff` work with a ``DeprecationWarning``.
- **One keyword per concept**: ``group=`` is which score (``"overall"``, a category, or category
  weights: the weighted score ``S(w)``) in :func:`leaderboard`, :func:`compare`,
  :func:`ranks`, :func:`rank_sets`, :func:`power` and :func:`report`; ``task_weights=`` the
  per-task weights of :func:`diff`; ``unit_weights=`` the ``"equal"``/``"precision"`` weights of
  :func:`subgroups`; ``rho=`` an assumed correlation between two models' scores
  (:func:`weights`, :func:`power`); ``level=`` an interval level, ``reps=`` and ``seed=`` the
  resampling, ``statistic=`` what an item scores (METHODS 2e), ``models=`` a subset of models.
  The old spellings (``weights=``, ``corr=``) still work, with a ``DeprecationWarning`` naming
  the new one.
- **Results** are named ``<Function>Result`` (:mod:`benchuq.results`: ``bq.diff`` returns a
  ``DiffResult``), frozen, with a one-line ``repr``.

Examples
--------
>>> import benchuq as bq
>>> bench = bq.load("sample:toy")
>>> bench
Benchmark('toy', 2 models x 3 tasks, counts)
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
pieces the app caches (its one door into the statistics). ``__all__`` is the flat API
``import benchuq`` serves (``benchuq/__init__.py`` reads it on first use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchuq.api.analyses import answers_plan, arena, diff, epp, power, subgroups
from benchuq.api.draws import bayes, bayes_model, bootstrap, normalize
from benchuq.api.embeddings import consistency
from benchuq.api.loading import from_frame, load, load_battles, samples
from benchuq.api.reporting import export, report
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
]


def _getattr(name: str) -> object:
    """``benchuq.api.write_report`` still imports: the CLI's one report writer, not the flat API
    (it lives in :mod:`.reporting`)."""
    if name == "write_report":
        from benchuq.api.reporting import write_report

        return write_report
    raise AttributeError(f"module 'benchuq.api' has no attribute {name!r}")


if not TYPE_CHECKING:
    __getattr__ = _getattr

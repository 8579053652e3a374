"""Result objects of the Python API (``import benchuq as bq``): small, frozen, named fields.

Every result has the same four faces:

- :meth:`Result.to_frame`: a tidy :class:`pandas.DataFrame` whose columns are the row fields of
  the CLI's ``--json`` (``model``, ``group``, ``estimate``, ``low``, ``high``, ...); its ``attrs``
  hold the scalar settings (method, level, replicates, seed, unit);
- :meth:`Result.payload`: the CLI's ``--json`` document (the CLI prints exactly this);
- :meth:`Result.figure`: the plotly figure the app shows, with the subtitle naming data set,
  method and level (``presentation.figures.common.with_subtitle``);
- ``_repr_html_`` (a compact table in Jupyter) and a short ``repr``.

:func:`write_table` writes a result as CSV or Parquet (``benchuq COMMAND --output-format csv``):
the settings become constant columns (``level``, ``unit``, ...) and, in Parquet, also the
file's ``benchuq`` metadata (the JSON document without its rows).

One module per result kind (``leaderboard``, ``comparison``, ``ranks``, ``weights``, ``epp``,
``subgroups``, ``power``, ``statistic``, ``arena``, ``two_runs``, ``embeddings``, ``bayes``,
``judge``, ``answers``) on the protocol of :mod:`.base`; every name is importable from
``benchuq.results``.

Names follow one pattern (issue 41): the result of ``bq.<function>`` is ``<Function>Result``
(``bq.leaderboard`` -> :class:`LeaderboardResult`, ``bq.diff`` -> :class:`DiffResult`,
``bq.rank_sets`` -> :class:`RankSetsResult`, ``bq.epp`` -> :class:`EPPResult`). Each wraps the
statistics' own result in a field (``result``, ``plan``, ``sets``, ...), which may carry the same
name in ``benchuq.core``; the old names (``Leaderboard``, ``TwoRuns``, ...) still import, with a
``DeprecationWarning``, until the next release (:data:`RENAMED`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchuq.deprecation import deprecated_names
from benchuq.results.answers import AnswersPlanResult
from benchuq.results.arena import ArenaResult
from benchuq.results.base import (
    TABLE_FORMATS,
    Result,
    TableFormat,
    clean,
    overall_words,
    write_table,
)
from benchuq.results.bayes import BayesModelResult
from benchuq.results.comparison import CompareResult
from benchuq.results.embeddings import ConsistencyResult
from benchuq.results.epp import EPPResult
from benchuq.results.judge import JudgeResult
from benchuq.results.leaderboard import LeaderboardResult
from benchuq.results.power import PowerResult
from benchuq.results.ranks import RankSetsResult, RanksResult
from benchuq.results.statistic import StatisticResult
from benchuq.results.subgroups import SubgroupsResult
from benchuq.results.two_runs import DiffResult
from benchuq.results.weights import WeightsResult

__all__ = [
    "RENAMED",
    "TABLE_FORMATS",
    "AnswersPlanResult",
    "ArenaResult",
    "BayesModelResult",
    "CompareResult",
    "ConsistencyResult",
    "DiffResult",
    "EPPResult",
    "JudgeResult",
    "LeaderboardResult",
    "PowerResult",
    "RankSetsResult",
    "RanksResult",
    "Result",
    "StatisticResult",
    "SubgroupsResult",
    "TableFormat",
    "WeightsResult",
    "clean",
    "overall_words",
    "write_table",
]

#: Old result names -> new (deprecated for one release, issue 41).
RENAMED: dict[str, str] = {
    "Arena": "ArenaResult",
    "BayesModel": "BayesModelResult",
    "Comparison": "CompareResult",
    "Consistency": "ConsistencyResult",
    "EPP": "EPPResult",
    "Judge": "JudgeResult",
    "Leaderboard": "LeaderboardResult",
    "Ranks": "RanksResult",
    "Statistic": "StatisticResult",
    "Subgroups": "SubgroupsResult",
    "TwoRuns": "DiffResult",
    "WeightMap": "WeightsResult",
}

if not TYPE_CHECKING:  # the old names, for one release
    __getattr__ = deprecated_names(
        __name__, {old: (new, __name__) for old, new in RENAMED.items()}, globals()
    )

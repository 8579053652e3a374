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
``judge``) on the protocol of :mod:`.base`; every name is importable from ``benchuq.results``.
"""

from __future__ import annotations

from benchuq.results.answers import AnswersPlanResult
from benchuq.results.arena import Arena
from benchuq.results.base import (
    TABLE_FORMATS,
    Result,
    TableFormat,
    clean,
    overall_words,
    write_table,
)
from benchuq.results.bayes import BayesModel
from benchuq.results.comparison import Comparison
from benchuq.results.embeddings import Consistency
from benchuq.results.epp import EPP
from benchuq.results.judge import Judge
from benchuq.results.leaderboard import Leaderboard
from benchuq.results.power import PowerResult
from benchuq.results.ranks import Ranks, RankSetsResult
from benchuq.results.statistic import Statistic
from benchuq.results.subgroups import Subgroups
from benchuq.results.two_runs import TwoRuns
from benchuq.results.weights import WeightMap

__all__ = [
    "EPP",
    "TABLE_FORMATS",
    "AnswersPlanResult",
    "Arena",
    "BayesModel",
    "Comparison",
    "Consistency",
    "Judge",
    "Leaderboard",
    "PowerResult",
    "RankSetsResult",
    "Ranks",
    "Result",
    "Statistic",
    "Subgroups",
    "TableFormat",
    "TwoRuns",
    "WeightMap",
    "clean",
    "overall_words",
    "write_table",
]

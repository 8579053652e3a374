"""benchuq: honest leaderboards for machine-learning benchmarks.

``import benchuq as bq`` gives a small flat API (``benchuq.api``; imported on first use, so
``import benchuq`` stays fast)::

    bench = bq.load("sample:vtab1k")                     # or files, folders, bq.from_frame(df)
    draws = bq.bootstrap(bench, reps=2000, seed=0)       # or bq.bayes(bench)
    bq.leaderboard(draws, level=0.95).to_frame()         # tidy pandas, as the CLI's --json rows
    bq.compare(draws, models=["A", "B"]).figure()        # the app's plotly figure

- data: :func:`load`, :func:`from_frame`, :func:`samples`;
- data: :func:`load_battles` (pairwise battles for :func:`arena`);
- draws: :func:`bootstrap`, :func:`bayes` (:func:`bayes_model`: the fit and its diagnostics),
  :func:`normalize`;
- results: :func:`leaderboard`, :func:`compare`, :func:`ranks`, :func:`rank_sets`,
  :func:`weights`, :func:`epp`, :func:`arena`, :func:`judge` (LLM-judge scores corrected with
  human labels), :func:`subgroups`, :func:`power`, :func:`diff`
  (two runs compared item by item), :func:`consistency` (embeddings), :func:`statistic` (any
  statistic of the draws);
  :func:`report` writes the HTML/PDF report, :func:`export` Every Eval Ever files with
  benchuq's uncertainty, :func:`site` the static leaderboard site;
- errors: :class:`DataError` (bad data), :class:`InvalidArgument` (bad options).

Every result is a frozen object with named fields, ``to_frame()``, ``figure()``, ``payload()``
(the CLI's JSON) and a compact HTML table in Jupyter.

The installed package also holds the statistics (:mod:`benchuq.core`), the command line
(:mod:`benchuq.cli`, ``benchuq``), the dashboard (:mod:`benchuq.dashboard`, :mod:`benchuq.pages`;
``benchuq app``) and the bundled samples (:mod:`benchuq.sample_data`). In the repository these
live in the top-level folders ``core/``, ``cli/``, ``dashboard/``, ``pages/`` and
``sample_data/``, mapped under the ``benchuq`` name by ``pyproject.toml``.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

try:
    __version__ = version("benchuq")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

if TYPE_CHECKING:
    from benchuq.api import answers_plan as answers_plan
    from benchuq.api import arena as arena
    from benchuq.api import bayes as bayes
    from benchuq.api import bayes_model as bayes_model
    from benchuq.api import bootstrap as bootstrap
    from benchuq.api import compare as compare
    from benchuq.api import consistency as consistency
    from benchuq.api import diff as diff
    from benchuq.api import epp as epp
    from benchuq.api import export as export
    from benchuq.api import from_frame as from_frame
    from benchuq.api import leaderboard as leaderboard
    from benchuq.api import load as load
    from benchuq.api import load_battles as load_battles
    from benchuq.api import normalize as normalize
    from benchuq.api import power as power
    from benchuq.api import rank_sets as rank_sets
    from benchuq.api import ranks as ranks
    from benchuq.api import report as report
    from benchuq.api import samples as samples
    from benchuq.api import site as site
    from benchuq.api import statistic as statistic
    from benchuq.api import subgroups as subgroups
    from benchuq.api import weights as weights
    from benchuq.api.judge import judge as judge
    from benchuq.core.data import Benchmark as Benchmark
    from benchuq.core.data import DataError as DataError
    from benchuq.core.draws import Draws as Draws
    from benchuq.core.validation import InvalidArgument as InvalidArgument

# name -> the public module that defines it (imported on first access)
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        (
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
        ),
        "benchuq.api",
    ),
    "judge": "benchuq.api.judge",
    "Benchmark": "benchuq.core.data",
    "DataError": "benchuq.core.data",
    "Draws": "benchuq.core.draws",
    "InvalidArgument": "benchuq.core.validation",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    """The API's names, imported on first use (``import benchuq`` imports no numpy/pandas)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'benchuq' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

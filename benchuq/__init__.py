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
(the CLI's JSON), a one-line ``repr`` and an HTML table in Jupyter in the app's units; the
grammar (first arguments, keywords, result names) is in :mod:`benchuq.api`'s docstring.
``dir(bq)`` lists the API only (``bq.__all__``: ``benchuq.api.__all__`` and the five names
below).

The installed package also holds the statistics (:mod:`benchuq.core`), the command line
(:mod:`benchuq.cli`, ``benchuq``), the dashboard (:mod:`benchuq.dashboard`, :mod:`benchuq.pages`;
``benchuq app``) and the bundled samples (:mod:`benchuq.sample_data`). In the repository these
live in the top-level folders ``core/``, ``cli/``, ``dashboard/``, ``pages/`` and
``sample_data/``, mapped under the ``benchuq`` name by ``pyproject.toml``.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version
from typing import TYPE_CHECKING, Any

try:
    __version__ = _version("benchuq")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

del PackageNotFoundError, annotations  # dir(bq) lists the API only

if TYPE_CHECKING:
    from benchuq.api import *  # noqa: F403  (the flat API: benchuq.api.__all__)
    from benchuq.api.judge import judge as judge
    from benchuq.core.data import Benchmark as Benchmark
    from benchuq.core.data import DataError as DataError
    from benchuq.core.draws import Draws as Draws
    from benchuq.core.validation import InvalidArgument as InvalidArgument

#: The API's names beyond ``benchuq.api.__all__`` -> the public module that defines them.
_EXTRA: dict[str, str] = {
    "judge": "benchuq.api.judge",  # benchuq.api.judge is a module (so not in benchuq.api)
    "Benchmark": "benchuq.core.data",
    "DataError": "benchuq.core.data",
    "Draws": "benchuq.core.draws",
    "InvalidArgument": "benchuq.core.validation",
}


def _submodule(name: str) -> bool:
    """Whether ``name`` is a subpackage or module of benchuq (never an API name)."""
    import pkgutil

    return any(m.name == name for m in pkgutil.iter_modules(__path__))  # noqa: F405


def __getattr__(name: str) -> Any:
    """The API's names, imported on first use (``import benchuq`` imports no numpy/pandas);
    ``__all__`` is ``benchuq.api.__all__`` and :data:`_EXTRA`, read on first use too."""
    if name == "__all__":
        value: Any = sorted([*importlib.import_module("benchuq.api").__all__, *_EXTRA])
    elif name in _EXTRA:
        value = getattr(importlib.import_module(_EXTRA[name]), name)
    elif name.startswith("_") or _submodule(name):
        raise AttributeError(f"module 'benchuq' has no attribute {name!r}")
    else:
        api = importlib.import_module("benchuq.api")
        if name not in api.__all__:
            raise AttributeError(f"module 'benchuq' has no attribute {name!r}")
        value = getattr(api, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public API (``bq.__all__``) and ``__version__``."""
    return sorted([*__getattr__("__all__"), "__version__"])

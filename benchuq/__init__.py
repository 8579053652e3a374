"""benchuq: honest leaderboards for machine-learning benchmarks.

The installed package holds the statistics (:mod:`benchuq.core`), the command line
(:mod:`benchuq.cli`, ``benchuq``), the dashboard (:mod:`benchuq.dashboard`, :mod:`benchuq.pages`;
``benchuq app``) and the bundled samples (:mod:`benchuq.sample_data`). In the repository these
live in the top-level folders ``core/``, ``cli/``, ``dashboard/``, ``pages/`` and
``sample_data/``, mapped under the ``benchuq`` name by ``pyproject.toml``.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("benchuq")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

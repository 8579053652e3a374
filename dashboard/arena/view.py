"""Arena page (METHODS 8b): settings as they travel in the link (the table, caption and labels
are the report's, :mod:`benchuq.presentation.report_arena`)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Literal

from benchuq.presentation.report_arena import (
    INTERVAL_LABELS,
    TIES_LABELS,
    caption,
    leaderboard_table,
)
from benchuq.presentation.state import link

__all__ = [
    "ARENA_SAMPLE",
    "BATTLES_SAMPLE",
    "INTERVAL_LABELS",
    "TIES_LABELS",
    "ArenaSettings",
    "caption",
    "command",
    "control_options",
    "leaderboard_table",
]

ARENA_SAMPLE = "sample:alpaca_eval"  # the bundled score sample that also reads as battles
BATTLES_SAMPLE = "sample:mt_bench_battles"  # bundled battles only (shown for score data, #41)


@dataclass(frozen=True)
class ArenaSettings:
    """Arena page: anchor, tie model, intervals and style controls."""

    anchor: str = link("arena_anchor", "", "model fixed at 1000 (default: the mean)", data=True)
    ties: Literal["half", "davidson"] = link(
        "arena_ties", "half", "`half` or `davidson`: the tie model", choices=tuple(TIES_LABELS)
    )
    interval: Literal["sandwich", "bootstrap"] = link(
        "arena_interval", "sandwich", "kind of interval", choices=tuple(INTERVAL_LABELS)
    )
    control: tuple[str, ...] = link(
        "arena_control", (), "style-control columns, comma-separated (default: none)", data=True
    )


def control_options(covariates: tuple[str, ...]) -> tuple[str, ...]:
    """Style-control choices: numeric columns, and ``X`` for each pair ``X_a``, ``X_b``."""
    pairs = {c[:-2] for c in covariates if c.endswith("_a") and f"{c[:-2]}_b" in covariates}
    singles = [c for c in covariates if c[:-2] not in pairs or not c.endswith(("_a", "_b"))]
    return tuple(sorted(pairs)) + tuple(singles)


def command(key: str, settings: ArenaSettings, level: float) -> str:
    """The ``benchuq arena`` command that reproduces the page (``key``: the data)."""
    data = key if key.startswith(("sample:", "shared:")) else "YOUR_FILES"
    flags = ["--level", f"{level:g}", "--ties", settings.ties, "--interval", settings.interval]
    flags += ["--anchor", settings.anchor] if settings.anchor else []
    flags += ["--control", *settings.control] if settings.control else []
    return shlex.join(["benchuq", "arena", data, *flags])

"""Arena page (METHODS 8b): settings as they travel in the link, the table and sentences (pure)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Literal

import pandas as pd

from benchuq.core.arena import ArenaResult
from benchuq.dashboard.state import link

__all__ = [
    "ARENA_SAMPLE",
    "INTERVAL_LABELS",
    "TIES_LABELS",
    "ArenaSettings",
    "caption",
    "command",
    "control_options",
    "leaderboard_table",
]

ARENA_SAMPLE = "sample:alpaca_eval"  # the bundled sample that reads as battles
TIES_LABELS = {"half": "Half a win (LMArena)", "davidson": "Davidson tie model"}
TIES_WORDS = {"half": "a tie counts half a win (LMArena)", "davidson": "Davidson's tie model"}
INTERVAL_LABELS = {"sandwich": "Sandwich (robust)", "bootstrap": "Bootstrap"}


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


def leaderboard_table(result: ArenaResult) -> pd.DataFrame:
    """One row per model, best first (the CLI's columns, readable names)."""
    table = result.table().rename(
        columns={
            "rank_ub": "rank (UB)",
            "rank_low": "rank set from",
            "rank_high": "rank set to",
            "win_rate": "win rate",
        }
    )
    if result.uncontrolled is not None:
        plain = result.uncontrolled
        table["without control"] = [plain.rating[plain.models.index(m)] for m in table["model"]]
    return table


def caption(result: ArenaResult) -> str:
    """What the numbers are: data, model, scale, interval method and level."""
    anchor = f"{result.anchor} fixed at 1000" if result.anchor else "the mean rating is 1000"
    cluster = f", clustered by {result.cluster}" if result.cluster else ""
    method = INTERVAL_LABELS[result.method].lower()
    boot = f" ({result.reps} replicates, seed {result.seed})" if result.reps else ""
    return (
        f"{result.name}: {result.n_battles:,} battles among {len(result.models)} models. "
        f"Bradley–Terry ratings on the Elo scale (400 points = a factor 10 in the odds; "
        f"{anchor}); {TIES_WORDS[result.ties]}; {100 * result.level:g}% "
        f"{method} intervals{cluster}{boot}. Rank (UB) = 1 + the models whose interval lies "
        "entirely above (LMArena); the rank set holds for all models together."
    )


def command(key: str, settings: ArenaSettings, level: float) -> str:
    """The ``benchuq arena`` command that reproduces the page (``key``: the data)."""
    data = key if key.startswith("sample:") else "YOUR_FILES"
    flags = ["--level", f"{level:g}", "--ties", settings.ties, "--interval", settings.interval]
    flags += ["--anchor", settings.anchor] if settings.anchor else []
    flags += ["--control", *settings.control] if settings.control else []
    return shlex.join(["benchuq", "arena", data, *flags])

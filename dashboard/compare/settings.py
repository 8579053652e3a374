"""Compare and Ranks pages: their settings (as they travel in the link) and tables (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pandas as pd

from benchuq.core.defaults import COMPARISON_LEVEL, LEVEL_BOUNDS
from benchuq.presentation.state import link

CORRECTIONS = ("maxt", "bonferroni", "holm")  # METHODS 4b; per-pair intervals: CLI only


@dataclass(frozen=True)
class CompareSettings:
    """Compare page: the score compared, the correction, the family-wise level, the models."""

    score: str = link(
        "compare_score", "overall", "`overall`, `weighted` or a category name", data=True
    )
    correction: Literal["maxt", "bonferroni", "holm"] = link(
        "compare_correction",
        "maxt",
        "multiplicity correction; maxt: simultaneous bootstrap intervals",
        choices=CORRECTIONS,
    )
    level: float = link(
        "compare_level", COMPARISON_LEVEL, "family-wise level", bounds=(0.8, 0.99), percent=True
    )
    models: tuple[str, ...] = link(
        "compare_models", (), "models compared, comma-separated (default: the top three)", data=True
    )


@dataclass(frozen=True)
class RanksSettings:
    """Ranks page: the level of the rank intervals."""

    level: float = link(
        "ranks_level",
        COMPARISON_LEVEL,
        "level of the rank intervals",
        bounds=LEVEL_BOUNDS,
        percent=True,
    )


#: Columns of :func:`differences_table` (people's names for ``pairwise_differences``'s).
DIFFERENCE_COLUMNS = {
    "a": "model A",
    "b": "model B",
    "estimate": "A − B",
    "low": "low",
    "high": "high",
    "se": "SE",
    "p_value": "p (adjusted)",
    "p_stepdown": "p (step-down)",
    "prob_a_better": "P(A better)",
    "level": "per-pair level",
}


def differences_table(diffs: pd.DataFrame, scale: float) -> pd.DataFrame:
    """``core.summaries.pairwise_differences`` in display units, columns named for people.

    ``p (adjusted)`` is the p-value that agrees with the interval (max-T single-step or
    Bonferroni; Holm's for Holm); ``p (step-down)`` the more powerful step-down p-value
    (Romano–Wolf for max-T, Holm otherwise), METHODS 4b.
    """
    scaled = diffs.assign(**{c: diffs[c] * scale for c in ("estimate", "low", "high", "se")})
    return scaled[list(DIFFERENCE_COLUMNS)].rename(columns=DIFFERENCE_COLUMNS)

"""Compare and Ranks pages: their settings (as they travel in the link) and tables (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pandas as pd

from benchuq.dashboard.state import link

CORRECTIONS = ("holm", "bonferroni")


@dataclass(frozen=True)
class CompareSettings:
    """Compare page: the score compared, the correction, the family-wise level, the models."""

    score: str = link(
        "compare_score", "overall", "`overall`, `weighted` or a category name", data=True
    )
    correction: Literal["holm", "bonferroni"] = link(
        "compare_correction", "holm", "multiplicity correction", choices=CORRECTIONS
    )
    level: float = link(
        "compare_level", 0.95, "family-wise level", bounds=(0.8, 0.99), percent=True
    )
    models: tuple[str, ...] = link(
        "compare_models", (), "models compared, comma-separated (default: the top three)", data=True
    )


@dataclass(frozen=True)
class RanksSettings:
    """Ranks page: the level of the rank intervals."""

    level: float = link(
        "ranks_level", 0.95, "level of the rank intervals", bounds=(0.5, 0.995), percent=True
    )


def differences_table(diffs: pd.DataFrame, scale: float) -> pd.DataFrame:
    """``core.summaries.pairwise_differences`` in display units, columns named for people."""
    return diffs.assign(
        estimate=diffs["estimate"] * scale,
        low=diffs["low"] * scale,
        high=diffs["high"] * scale,
    ).rename(
        columns={
            "a": "model A",
            "b": "model B",
            "estimate": "A − B",
            "p_value": "p (adjusted)",
            "prob_a_better": "P(A better)",
            "level": "per-pair level",
        }
    )

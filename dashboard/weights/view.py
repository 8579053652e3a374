"""Task weights page (METHODS 5): settings, category mapping, tables and sentences (pure).

The settings are as they travel in the link; the table is the leaderboard at chosen weights.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchuq.api.summaries import BestProbabilityMap, DominanceMap, WeightedScores, map_categories
from benchuq.presentation.state import link
from benchuq.presentation.text import md_escape

#: the table column of each model's share of replicates in which it ranks first
SHARE_FIRST = "share of replicates ranked first"
VIEWS = {"se": "SE rule", "prob": "Share of replicates best", "both": "Both, side by side"}
RESOLUTIONS = (20, 50, 100, 150, 200)
REDUCE_LABELS = {"pick": "picking (others weight 0)", "merge": "merging"}
#: Merge groups as they travel in the link ("0" = left out) and as they are shown.
GROUPS = {"1": "group 1", "2": "group 2", "3": "group 3", "0": "left out"}


@dataclass(frozen=True)
class WeightsSettings:
    """Task weights page: the view, the rule's z and rho, the grid and the map's categories."""

    view: str = link("weights_view", "se", "which map", choices=tuple(VIEWS))
    z: float = link("z", 2.0, "lead needed, in standard errors", bounds=(0.5, 4.0))
    rho: float = link(
        "rho", 0.0, "assumed correlation between models (unpaired draws)", bounds=(0.0, 0.99)
    )
    grid: int = link("weights_grid", 100, "grid steps per side", choices=RESOLUTIONS)
    pairing: bool = link("weights_pairing", True, "read the correlation from paired draws")
    reduce: str = link(
        "weights_reduce",
        "pick",
        "three or more categories: pick or merge",
        choices=("pick", "merge"),
    )
    pick: tuple[str, ...] = link(
        "weights_pick",
        (),
        "categories on the map, comma-separated (default: the first three)",
        data=True,
    )
    merge: tuple[str, ...] = link(
        "weights_merge",
        (),
        "merge group of each category in category order, comma-separated: `1`, `2`, `3` or "
        "`0` (left out); default `1,2,3,3,...`",
        choices=tuple(GROUPS),
    )


def default_merge(n: int) -> tuple[str, ...]:
    """Category k joins group k+1, the rest group 3."""
    return tuple(str(min(k, 2) + 1) for k in range(n))


def merged_mapping(cats: Sequence[str], groups: Sequence[str]) -> dict[str, str]:
    """Return ``map_categories`` of a merge; categories in group ``"0"`` are left out.

    Each group is named after its members (``a + b``, or ``a + 2 more``).
    """
    members = {g: [c for c, x in zip(cats, groups, strict=True) if x == g] for g in "123"}
    names = {
        g: " + ".join(m) if len(m) <= 2 else f"{m[0]} + {len(m) - 1} more"
        for g, m in members.items()
        if m
    }
    merge = {c: names[g] for c, g in zip(cats, groups, strict=True) if g in names}
    return map_categories(cats, merge=merge)


def rho_text(dm: DominanceMap, rho: float, paired: bool) -> str:
    """Where the correlation between models came from, for the map's caption."""
    if dm.rho_source == "paired draws":
        return (
            "the correlation between models is **read from the paired replicates** (median "
            f"implied rho {np.nanmedian(dm.rho):.2f}; the rho slider is not used)"
        )
    why = "because the replicates are not paired" if not paired else "pairing switched off"
    return f"rho = **{rho:.2f} is assumed** {why}"


def map_caption(dm: DominanceMap, z: float, rho: str, metric: str, level_text: str) -> str:
    """Return the caption under the map's controls."""
    click = (
        "× = the sidebar's weights; click a tile to use its weights."
        if len(dm.categories) == 3
        else "Dotted line = the sidebar's weights; click a point of the line to use its weights."
    )
    return (
        f"z = {z:.2f} (a two-sided level of {level_text} per point); {rho}. "
        f"Variances: {md_escape(dm.source)}. Metric: {metric} (sidebar). "
        "Grey = indeterminate: the leader's margin is smaller than z × SE of the difference. "
        + click
    )


def scores_table(ws: WeightedScores, best: BestProbabilityMap, scale: float) -> pd.DataFrame:
    """Return the leaderboard at one weighting: score, normal interval and the share of draws
    in which each model is best (in %, best first; shown in whole percent: with 2,000 draws its
    Monte Carlo error is up to 1.1 points, so decimals would claim more than the draws know)."""
    table = pd.DataFrame(
        {
            "model": ws.models,
            "score": ws.estimate * scale,
            "low": ws.low * scale,
            "high": ws.high * scale,
        }
    )
    table[SHARE_FIRST] = [100 * best.probability[0, best.models.index(m)] for m in ws.models]
    return table


def lead_verdict(here: DominanceMap, scale: float) -> str:
    """One sentence (markdown, names escaped): who leads at this weighting and is it real."""
    lead, run = here.models[here.leader[0]], here.models[here.runner_up[0]]
    text = (
        f"**{md_escape(lead)}** leads **{md_escape(run)}** by "
        f"{here.difference[0] * scale:.2f} (SE {here.se[0] * scale:.2f}): "
    )
    if here.winner[0] >= 0:
        return text + "a real lead at this z."
    return text + "within z standard errors — indeterminate."


def shares_text(dm: DominanceMap) -> str:
    """Each model's share of the map (and the indeterminate share)."""
    shares = dm.shares()
    return (
        "Share of the map: "
        + "; ".join(f"{md_escape(m or 'indeterminate')} {s:.0%}" for m, s in shares.items())
        + f" ({len(dm.weights):,} weightings)."
    )


def weights_text(
    cats: Sequence[str], weights: Sequence[float] | np.ndarray, fmt: str = ".2f"
) -> str:
    """``"natural 0.50, specialized 0.25, ..."`` (names escaped)."""
    return ", ".join(f"{md_escape(c)} {x:{fmt}}" for c, x in zip(cats, weights, strict=True))


def merge_check(n: int) -> Callable[[tuple[str, ...]], str | None]:
    """Return the check of a linked merge: one group per category."""

    def check(groups: tuple[str, ...]) -> str | None:
        if len(groups) == n:
            return None
        return f"expected {n} groups, one per category; using {','.join(default_merge(n))}."

    return check


def pick_check(picked: tuple[str, ...]) -> str | None:
    """Check linked map categories: two or three of them (a message, or None)."""
    if 2 <= len(picked) <= 3:
        return None
    return "the map shows two or three categories; using the first three."


def mapping_of(cats: tuple[str, ...], settings: WeightsSettings) -> dict[str, str]:
    """Return which map category each data category feeds.

    Two categories as they are; of three or more, the picked ones or the merge.
    """
    if len(cats) > 2 and settings.reduce == "merge":
        return merged_mapping(cats, settings.merge)
    return map_categories(cats, pick=settings.pick if len(cats) > 2 else None)

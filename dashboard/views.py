"""Tables the pages show, built from ``core.summaries`` (pure; no streamlit).

Choices the spec leaves open, made here:

- "Indistinguishable from the leader" is ``core.leader.tied_with_leader`` (the paired difference
  rule, not interval overlap; METHODS 2).
- The weighted group ``S(w)`` and the per-category groups are shown when the data have two or more
  categories (with one category both would repeat the overall group).
- Group scores rank higher as better (a group mixing lower-is-better tasks is not reoriented here).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from benchuq.core import summaries
from benchuq.core.draws import Draws
from benchuq.core.leader import overlap_test_level as overlap_test_level  # used by pages
from benchuq.core.leader import tied_with_leader
from benchuq.dashboard.figures import RANK_METHOD_LABELS as RANK_LABELS

WEIGHTED = "weighted"


def group_label(group: str) -> str:
    """Return the display name of a score group (overall, weighted or a category)."""
    if group == WEIGHTED:
        return "Weighted score S(w)"
    if group == "overall":
        return "Overall (mean over all tasks)"
    return group


def leaderboard_table(draws: Draws, level: float, weights: np.ndarray) -> pd.DataFrame:
    """``core.summaries.leaderboard`` plus the weighted group and a ``tied`` column.

    Columns: ``group, model, estimate, low, high, mc_error_low, mc_error_high, tied``; groups in
    the order overall, weighted (if two or more categories), then each category.
    """
    table = summaries.leaderboard(draws, level=level)
    parts = []
    groups: list[str | np.ndarray] = ["overall"]
    if len(draws.category_names) > 1:
        groups.append(WEIGHTED)
    if len(draws.category_names) > 1:  # one category would repeat the overall group
        groups += [g for g in dict.fromkeys(table["group"]) if g != "overall"]
    for g in groups:
        scores = summaries.group_scores(draws, np.asarray(weights) if g == WEIGHTED else g)
        if g == WEIGHTED:
            iv = summaries.percentile_interval(scores, level)
            part = pd.DataFrame(
                {
                    "group": WEIGHTED,
                    "model": list(draws.models),
                    "estimate": iv.estimate,
                    "low": iv.low,
                    "high": iv.high,
                    "mc_error_low": iv.mc_error_low,
                    "mc_error_high": iv.mc_error_high,
                }
            )
        else:
            part = table[table["group"] == g].set_index("model").loc[list(draws.models)]
            part = part.reset_index()
        part = part.assign(tied=tied_with_leader(scores.values, scores.observed, level))
        parts.append(part.sort_values("estimate", ascending=False, kind="stable"))
    cols = ["group", "model", "estimate", "low", "high", "mc_error_low", "mc_error_high", "tied"]
    return pd.concat(parts, ignore_index=True)[cols]


def display_table(table: pd.DataFrame, scale: float) -> pd.DataFrame:
    """Return the leaderboard in display units (e.g. percent), with columns named for people."""
    out = pd.DataFrame(
        {
            "group": table["group"].map(group_label),
            "model": table["model"],
            "estimate": table["estimate"] * scale,
            "low": table["low"] * scale,
            "high": table["high"] * scale,
            "MC error (low)": table["mc_error_low"] * scale,
            "MC error (high)": table["mc_error_high"] * scale,
            "≈ leader": table["tied"],
        }
    )
    return out


def top_models(draws: Draws, k: int = 3, group: str = "overall") -> list[str]:
    """Return the ``k`` models with the largest observed group score."""
    scores = summaries.group_scores(draws, group)
    order = np.argsort(-np.asarray(scores.observed), kind="stable")
    return [draws.models[i] for i in order[:k]]


def verdict(row: pd.Series, level: float, correction: str, scale: float, unit: str) -> str:
    """Return a plain-language sentence for one pairwise difference row.

    ``row`` has ``a, b, estimate, low, high``.

    Returns text with model names unescaped; the caller escapes it before rendering markdown.
    """
    est, low, high = row["estimate"] * scale, row["low"] * scale, row["high"] * scale
    fw = f"{100 * level:g}% family-wise interval, {correction}"
    if low > 0:
        return (
            f"{row['a']} beats {row['b']} by {est:.1f} {unit} ({fw}: {low:.1f} to "
            f"{high:.1f}); this is unlikely to be noise."
        )
    if high < 0:
        return (
            f"{row['b']} beats {row['a']} by {-est:.1f} {unit} ({fw}: {-high:.1f} to "
            f"{-low:.1f}); this is unlikely to be noise."
        )
    return (
        f"Cannot tell {row['a']} and {row['b']} apart: {row['a']} − {row['b']} = "
        f"{est:.1f} {unit} ({fw}: {low:.1f} to {high:.1f}, which includes 0)."
    )


def rank_table(ranks: pd.DataFrame) -> pd.DataFrame:
    """Rank aggregations as one row per model, one ``mean [low–high]`` column per method.

    Rows follow the first method's mean rank.
    """
    methods = list(dict.fromkeys(ranks["method"]))
    cell = ranks.assign(
        text=[
            f"{m:.2f} [{lo:g}–{hi:g}]"
            for m, lo, hi in zip(ranks["mean_rank"], ranks["low"], ranks["high"], strict=True)
        ]
    )
    wide = cell.pivot(index="model", columns="method", values="text")[methods]
    first = ranks[ranks["method"] == methods[0]].sort_values("mean_rank", kind="stable")
    wide = wide.loc[list(first["model"])]
    return wide.rename(columns=lambda m: RANK_LABELS.get(m, m)).reset_index()


def group_options(categories: Sequence[str]) -> list[str]:
    """Score choices for the Compare page: overall, weighted (if >1 category), each category."""
    return ["overall", *([WEIGHTED] if len(categories) > 1 else []), *categories]

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
    the order overall, weighted (if two or more categories), then each category. A group in
    which no model has a score (the weighted score when every model lacks a category of
    positive weight) is left out: see :func:`missing_weighted_note`.
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
        if part["estimate"].isna().all():
            continue
        part = part.assign(tied=tied_with_leader(scores.values, scores.observed, level))
        parts.append(part.sort_values("estimate", ascending=False, kind="stable"))
    cols = ["group", "model", "estimate", "low", "high", "mc_error_low", "mc_error_high", "tied"]
    return pd.concat(parts, ignore_index=True)[cols]


def missing_weighted_note(table: pd.DataFrame, categories: Sequence[str]) -> str:
    """What to say when :func:`leaderboard_table` left out the weighted score (else ``""``)."""
    if len(categories) < 2 or WEIGHTED in set(table["group"]):
        return ""
    return (
        "No model has results in every category with a positive weight, so there is no "
        "weighted score to show. Set the weight of the categories a model lacks to 0 in the "
        "sidebar to rank the models on the others."
    )


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


def group_options(categories: Sequence[str]) -> list[str]:
    """Score choices for the Compare page: overall, weighted (if >1 category), each category."""
    return ["overall", *([WEIGHTED] if len(categories) > 1 else []), *categories]

"""Tables the pages show, built from ``core.summaries`` (pure; no streamlit).

Choices the spec leaves open, made here:

- "Indistinguishable from the leader" is ``core.summaries.leader.tied_with_leader`` (the paired
  difference rule, not interval overlap; METHODS 2).
- The per-category groups are shown when the data have two or more categories (with one both
  would repeat the overall group); the weighted group ``S(w)`` only when the sidebar's weights
  differ from the default (equal), with a line on why its order can differ from Overall (#41).
- Order and "≈ leader" come from ``core.summaries.leaderboard`` (best first by the group's
  ``higher_is_better``; ties by name).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchuq.api import summaries as summaries
from benchuq.api.summaries import Headline
from benchuq.api.summaries import overlap_test_level as overlap_test_level
from benchuq.core.draws import Draws
from benchuq.dashboard.words import say
from benchuq.presentation.figures.common import group_label
from benchuq.presentation.state import link
from benchuq.presentation.text import weighted_order_note as weighted_order_note

WEIGHTED = summaries.WEIGHTED


@dataclass(frozen=True)
class LeaderboardView:
    """What the Leaderboard page's charts show: the best ``top`` models of each group.

    The choice: a chart of 10,000 models is unreadable and took minutes to draw, so each chart
    shows the best ``top`` (default 50) by estimate and says how many it hides; the table below
    and its download keep every model."""

    top: int = link(
        "leaderboard_top",
        50,
        "models in each Leaderboard chart (the best by estimate; the table keeps all)",
        bounds=(1, 1000),
    )


def top_rows(part: pd.DataFrame, top: int) -> tuple[pd.DataFrame, str]:
    """The first ``top`` rows of one group of :func:`leaderboard_table` (sorted best first) and a
    note naming how many models the chart hides (``""`` when none)."""
    hidden = len(part) - top
    if hidden <= 0:
        return part, ""
    return part.head(top), (
        f"The chart shows the best {top:,} of {len(part):,} models by estimate; {hidden:,} more "
        "are in the table below and its download (set how many in 'Models per chart')."
    )


def overall_caption(headline: Headline | None) -> str:
    """The sentence naming the overall score's aggregate and the others on offer (the sidebar's
    'Overall score')."""
    if headline is None:
        return "Overall = the mean over all tasks."
    others = [o for o in headline.offered if o != headline.kind]
    text = f"Overall = {headline.label}."
    if others:
        text += f" Also on offer in the sidebar's 'Overall score': {', '.join(others)}"
        text += " (the mean over all tasks)." if others == ["tasks"] else "."
    return say(" ".join([text, *headline.notes]))


def leaderboard_table(draws: Draws, level: float, weights: np.ndarray) -> pd.DataFrame:
    """``core.summaries.leaderboard`` plus the weighted group and a ``tied`` column.

    Columns: ``group, model, estimate, low, high, mc_error_low, mc_error_high, tied``; groups in
    the order overall, weighted (if two or more categories), then each category. A group in
    which no model has a score (the weighted score when every model lacks a category of
    positive weight) is left out: see :func:`missing_weighted_note`.
    """
    table = summaries.leaderboard_table(
        draws, level=level, weights=np.asarray(weights, dtype=float)
    )
    if len(draws.category_names) < 2:  # one category would repeat the overall group
        table = table[table["group"] == "overall"]
    has_score = table.groupby("group", sort=False)["estimate"].transform(lambda x: x.notna().any())
    table = table[has_score].rename(columns={"tied_with_leader": "tied"})
    cols = ["group", "model", "estimate", "low", "high", "mc_error_low", "mc_error_high", "tied"]
    return table.reset_index(drop=True)[cols]


def missing_weighted_note(
    table: pd.DataFrame, categories: Sequence[str], weights: Sequence[float]
) -> str:
    """What to say when :func:`leaderboard_table` left out the weighted score for want of
    scores (else ``""``; default, equal ``weights`` show none and need no word)."""
    w = np.asarray(weights, dtype=float)
    equal = bool(w.size) and bool(np.allclose(w, w[0]))
    if len(categories) < 2 or equal or WEIGHTED in set(table["group"]):
        return ""
    return (
        "No model has results in every category with a positive weight, so there is no "
        "weighted score to show. Set the weight of the categories a model lacks to 0 in the "
        "sidebar to rank the models on the others."
    )


def shown_columns(shown: pd.DataFrame) -> list[str]:
    """The order the page shows :func:`display_table` in: the score, its interval, the leader
    mark, the items and the note first, the Monte Carlo errors last (a wide table scrolls them
    out of sight, not the note)."""
    errors = ["MC error (low)", "MC error (high)"]
    return [*(c for c in shown.columns if c not in errors), *errors]


def short_overall(label: str) -> str:
    """The first clause of the overall aggregate's ``label`` ("mean of 16 benchmarks" of "mean
    of 16 benchmarks; mmlu = lm-eval's size-weighted mean of 57 subjects"): short enough for a
    table cell, whose caption names the aggregate in full."""
    return label.split("; ")[0]


def display_table(
    table: pd.DataFrame,
    scale: float,
    flags: Mapping[str, str] | None = None,
    overall: str = "mean over all tasks",
) -> pd.DataFrame:
    """Return the leaderboard in display units (e.g. percent), with columns named for people;
    with ``flags`` (``core.findings.model_flags``) a ``note`` column next to the numbers;
    ``overall`` names the overall score's aggregate."""
    out = pd.DataFrame(
        {
            "group": table["group"].map(lambda g: group_label(g, overall)),
            "model": table["model"],
            "estimate": table["estimate"] * scale,
            "low": table["low"] * scale,
            "high": table["high"] * scale,
            "MC error (low)": table["mc_error_low"] * scale,
            "MC error (high)": table["mc_error_high"] * scale,
            "≈ leader": table["tied"],
        }
    )
    if "items" in table and table["items"].notna().any():
        out["items"] = table["items"]
    if flags:
        out["note"] = [flags.get(m, "") for m in table["model"]]
    return out


def top_models(draws: Draws, k: int = 3, group: str = "overall") -> list[str]:
    """Return the ``k`` models with the largest observed group score."""
    scores = summaries.group_scores(draws, group=group)
    order = np.argsort(-np.asarray(scores.observed), kind="stable")
    return [draws.models[i] for i in order[:k]]


def default_weights(weights: Sequence[float] | np.ndarray | None) -> bool:
    """Whether the sidebar's category ``weights`` are the default (all equal, or none)."""
    w = np.asarray(() if weights is None else weights, dtype=float)
    return not w.size or bool(np.allclose(w, w[0]))


def group_options(
    categories: Sequence[str], weights: Sequence[float] | np.ndarray | None = None
) -> list[str]:
    """Score choices for the Compare and Plan pages: overall, the weighted score (with two or
    more categories and ``weights`` other than the default, #41), each category (with two or
    more: one would repeat overall)."""
    weighted = len(categories) > 1 and not default_weights(weights)
    several = list(categories) if len(categories) > 1 else []
    return ["overall", *([WEIGHTED] if weighted else []), *several]

"""Win probabilities (EPP) page (METHODS 8): settings, tables and sentences (pure).

The settings are as they travel in the link.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from benchuq.api.summaries import EPPResult, PairTest
from benchuq.core.data import Benchmark
from benchuq.presentation.figures.epp import epp_ranks
from benchuq.presentation.state import link
from benchuq.presentation.text import md_escape

INTERVAL_LABELS = {
    "rounds": "Robust to shared rounds",
    "glm": "GLM (matches independent)",
    "bootstrap": "Bootstrap over rounds",
}
ROUND_LABELS = {"tasks": "Tasks", "items": "Items"}


@dataclass(frozen=True)
class EppSettings:
    """EPP page: what a round is and the kind of interval."""

    rounds: str = link(
        "epp_rounds",
        "",
        "`tasks` or `items` (items need item-level data; default: tasks, or items when there "
        "are fewer than three tasks)",
        data=True,
    )
    interval: Literal["rounds", "glm", "bootstrap"] = link(
        "epp_interval", "rounds", "kind of interval", choices=tuple(INTERVAL_LABELS)
    )


@dataclass(frozen=True)
class EppPair:
    """EPP page: the two models of the pair test."""

    a: str = link("epp_a", "", "pair test: model A (default: the best EPP)", data=True)
    b: str = link("epp_b", "", "pair test: model B (default: the second best)", data=True)


def rounds_of(settings: EppSettings) -> Literal["tasks", "items"]:
    """Return the settings' rounds once resolved (``""``, automatic, counts as tasks)."""
    return "items" if settings.rounds == "items" else "tasks"


def round_options(bench: Benchmark) -> tuple[str, ...]:
    """Items can be rounds only with item-level data."""
    return ("tasks", "items") if bench.item_tasks is not None else ("tasks",)


def default_rounds(bench: Benchmark) -> str:
    """Return the default round: items with fewer than three tasks and item data, else tasks.

    A single task would decide every pair at once.
    """
    options = round_options(bench)
    return options[-1] if len(bench.tasks) < 3 else options[0]


def mean_scores(bench: Benchmark) -> np.ndarray:
    """``(M,)`` mean score over tasks, lower-is-better tasks with their sign flipped."""
    sign = np.where(np.asarray(bench.higher_is_better, dtype=bool), 1.0, -1.0)
    return np.nanmean(bench.estimate * sign, axis=1)


def leaderboard_table(result: EPPResult, mean_score: np.ndarray) -> pd.DataFrame:
    """One row per model, best EPP first: EPP with interval, P(beats an average model), ranks."""
    by_mean, by_epp = epp_ranks(result, mean_score)
    sep = set(result.separated)
    rows = [
        {
            "model": result.models[i],
            "EPP": result.estimate[i],
            "SE": result.se[i],
            "low": result.low[i],
            "high": result.high[i],
            "P(beats average)": float(result.beats_average[i]),
            "rank (EPP)": int(by_epp[i]),
            "rank (mean score)": int(by_mean[i]),
            "mean score": float(mean_score[i]),
            "separated": result.models[i] in sep,
        }
        for i in result.order
    ]
    return pd.DataFrame(rows)


def deviance_table(result: EPPResult) -> pd.DataFrame:
    """Goodness of fit: deviance against the saturated model, df, p-value, standardized."""
    pairs = int(np.triu(result.matches > 0, k=1).sum())
    rows = [
        ("Deviance D", result.deviance, "against the saturated model (one probability per pair)"),
        ("Degrees of freedom", result.df, f"{pairs} observed pairs - ({len(result.models)} - 1)"),
        ("p-value", result.p_value, "chi-square(df); small = the EPP model misfits"),
        ("Standardized deviance", result.standardized_deviance, "(D - df) / sqrt(2 df)"),
        ("Rounds", result.n_rounds, f"one round = one {result.rounds.rstrip('s')}"),
        ("Ridge penalty", result.ridge, "0 unless some model wins or loses every match"),
    ]
    return pd.DataFrame(rows, columns=["quantity", "value", "meaning"])


def deviance_list(result: EPPResult) -> str:
    """The deviance table as a markdown list (each quantity, its value, what it means): in half
    the page a table cut its meanings and the digits of a small value."""

    def value(x: float | int | None) -> str:
        if x is None or not math.isfinite(x):
            return "undefined"
        return f"{x:,}" if isinstance(x, int | np.integer) else f"{x:.3g}"

    return "\n".join(
        f"- **{q}**: {value(v)} — {m}"  # our own words, no names from the data
        for q, v, m in deviance_table(result).itertuples(index=False)
    )


def deviance_verdict(result: EPPResult) -> str:
    """Return the goodness-of-fit sentence under the deviance table."""
    if result.df <= 0:
        return "With two models there are no degrees of freedom left to test the fit."
    verdict = (
        "no evidence that one EPP per model misses structure"
        if result.p_value >= 0.05
        else "the pairs disagree with a single EPP per model (p < 0.05): some models are "
        "stronger against some opponents than their EPP says"
    )
    return (
        f"Deviance {result.deviance:.1f} on {result.df} df (p = {result.p_value:.3g}): {verdict}."
    )


def pair_text(result: EPPResult, test: PairTest, a: str, b: str) -> str:
    """Return the pair test in words (markdown): predicted and observed wins, Wald test."""
    i, j = result.models.index(a), result.models.index(b)
    won, shared = result.wins[i, j], result.matches[i, j]
    if math.isnan(test.p_value):
        finding = "the test is not defined (zero standard error)."
    elif test.p_value < 0.05:
        better = a if test.estimate > 0 else b
        finding = f"significant at the 5% level: **{md_escape(better)}** is the stronger model."
    else:
        finding = "not significant at the 5% level: the data cannot tell them apart."
    return (
        f"The EPP model says **{md_escape(a)}** beats **{md_escape(b)}** in "
        f"{100 * test.probability:.0f}% of rounds ({100 * test.level:.1f}% interval "
        f"{100 * test.low:.0f}%–{100 * test.high:.0f}%). Observed: {md_escape(a)} won {won:g} of "
        f"{shared:g} shared rounds (ties count ½). Wald test of equal EPP: "
        f"z = {test.statistic:.2f}, p = {test.p_value:.3g}; {finding}"
    )

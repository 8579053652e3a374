"""View models of the Compare and Ranks pages: verdicts, captions, rank-set sentences (pure; no
streamlit). METHODS 2, 4, 4b.

- A verdict is decided by the sign of its interval only (``low > 0``, ``high < 0`` or neither),
  so its words cannot contradict the interval shown next to it; the p-value it quotes is the one
  that agrees with that interval (single-step max-T, Bonferroni or per pair), and for Holm, whose
  p-values have no simultaneous interval, no p-value is quoted in the sentence.
- "Family-wise" / "hold jointly" is said only of simultaneous intervals (max-T, Bonferroni).
- Rank sets are told in plain words from ``core.summaries.rank_sets.RankSets``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from benchuq.api.summaries import RankSets, format_p, min_items_to_tell, overlap_test_level
from benchuq.api.summaries import rank_set_sentences as rank_set_sentences
from benchuq.presentation.figures.ranks import interval_words

CORRECTION_LABELS = {
    "maxt": "Simultaneous (all pairs together)",
    "bonferroni": "Bonferroni",
    "holm": "Holm (p-values)",
    "none": "None (per pair)",
}
CORRECTION_HELP = (
    "Max-T: simultaneous bootstrap intervals that hold for all pairs together (Romano & Wolf), "
    "narrower than Bonferroni's. Bonferroni: each interval at level 1 − α/K, also simultaneous, "
    "more conservative. Holm: step-down p-values, more powerful than Bonferroni, but it has no "
    "simultaneous intervals (the intervals shown are Bonferroni's)."
)


@dataclass(frozen=True)
class Verdict:
    """One pairwise verdict: ``kind`` is ``"a"`` / ``"b"`` (that model is better) or ``"tie"``."""

    a: str
    b: str
    kind: str
    text: str


def verdicts(
    diffs: pd.DataFrame, level: float, correction: str, reps: int, scale: float, unit: str
) -> list[Verdict]:
    """Plain-language verdicts for ``core.summaries.pairwise_differences`` rows.

    Texts have model names unescaped (escape before rendering markdown).
    """
    words = interval_words(correction, level)
    out = []
    for row in diffs.itertuples(index=False):
        est, low, high = row.estimate * scale, row.low * scale, row.high * scale
        p = (
            ""
            if correction == "holm"
            else "; " + format_p(row.p_value, bool(row.p_below_resolution), reps)
        )
        too_few = bool(getattr(row, "too_few_items", False))
        if too_few:
            kind, text = (
                "tie",
                (
                    f"Too few items to tell {row.a} and {row.b} apart: they rest on "
                    f"{row.items_a:.0f} and {row.items_b:.0f} items, and with fewer than "
                    f"{min_items_to_tell(level)} items no test can reach {100 * level:g}% "
                    f"({row.a} − {row.b} = {est:.1f} {unit}; {words}: {low:.1f} to {high:.1f})."
                ),
            )
        elif low > 0:
            kind, text = (
                "a",
                (
                    f"{row.a} beats {row.b} by {est:.1f} {unit} ({words}: {low:.1f} to "
                    f"{high:.1f}{p}); this is unlikely to be noise."
                ),
            )
        elif high < 0:
            kind, text = (
                "b",
                (
                    f"{row.b} beats {row.a} by {-est:.1f} {unit} ({words}: {-high:.1f} to "
                    f"{-low:.1f}{p}); this is unlikely to be noise."
                ),
            )
        else:
            kind, text = (
                "tie",
                (
                    f"Cannot tell {row.a} and {row.b} apart: {row.a} − {row.b} = {est:.1f} {unit} "
                    f"({words}: {low:.1f} to {high:.1f}, which includes 0{p})."
                ),
            )
        out.append(Verdict(row.a, row.b, kind, text))
    return out


def comparison_caption(
    correction: str, level: float, pairs: int, reps: int, *, exact: int = 0
) -> str:
    """The caption under the verdicts: what holds jointly, and what p-values can resolve;
    ``exact`` pairs rest on fewer than 30 items and have exact sign-flip p-values (METHODS 2d)."""
    s = "s" if pairs != 1 else ""
    if correction == "maxt":
        head = (
            f"{pairs} comparison{s}; the intervals hold for all pairs together with probability "
            f"{100 * level:g}%, read from the replicates themselves (Romano & Wolf); the p-values "
            "come from the same replicates, so p ≤ α exactly where an interval excludes 0."
        )
    elif correction == "bonferroni":
        each = 100 * (1 - (1 - level) / pairs)
        head = (
            f"{pairs} comparison{s}; the intervals hold for all pairs together with probability "
            f"at least {100 * level:g}% (Bonferroni: each at {each:.2f}%)."
        )
    elif correction == "holm":
        head = (
            f"{pairs} comparison{s}; Holm's p-values control the family-wise error at "
            f"{100 * (1 - level):g}%; Holm has no simultaneous intervals, so the intervals are "
            "Bonferroni's, and a Holm p-value can be below α while its interval includes 0."
        )
    else:
        head = (
            f"{pairs} comparison{s}; each interval holds for its own pair only (no correction): "
            "with many pairs some will exclude 0 by chance."
        )
    tail = (
        f"{head} A bootstrap p-value cannot be below 1/(R + 1) = {1 / (reps + 1):.2g} with "
        f"R = {reps}."
    )
    if exact:
        tail += (
            f" {exact} of the {pairs} pairs rest on fewer than 30 items: their p-values come from "
            "an exact sign-flip test over the items (never below 2^(1 - k) with k items that "
            "differ), adjusted for the pairs, and their intervals include 0 unless that test "
            "rejects."
        )
    return tail


def leader_caption(level: float) -> str:
    """What "≈ leader" means on the Leaderboard page, with its assumption stated."""
    q = overlap_test_level(level)
    return (
        "**≈ leader** (open marker): the difference from the leader, taken inside each "
        f"replicate, has a {100 * q:.1f}% interval containing 0 — a {100 * (1 - q):.1f}% test of "
        "each model against the leader, one pair at a time. Two non-overlapping "
        f"{100 * level:.1f}% intervals would approximate that test only for independent "
        "estimates with similar standard errors; models scored on the same items are "
        "correlated, so use the Compare "
        "page's simultaneous intervals to compare models."
    )


def _ordinal(k: float) -> str:
    k = int(k)
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def _span(low: float, high: float) -> str:
    return _ordinal(low) if low == high else f"{_ordinal(low)}–{_ordinal(high)}"


def rank_set_table(sets: RankSets) -> pd.DataFrame:
    """Rank sets for display: ``model``, ``score``, ``rank (each model)``, ``rank (all
    together)``; best observed first."""
    t = sets.table()
    t = t.assign(
        marginal=[
            _span(lo, hi) if pd.notna(lo) else "—"
            for lo, hi in zip(t["marginal_low"], t["marginal_high"], strict=True)
        ],
        simultaneous=[
            _span(lo, hi) if pd.notna(lo) else "—"
            for lo, hi in zip(t["simultaneous_low"], t["simultaneous_high"], strict=True)
        ],
    )
    t = t.sort_values("estimate", ascending=not sets.higher_is_better, kind="stable")
    pct = f"{100 * sets.level:g}%"
    return pd.DataFrame(
        {
            "model": t["model"],
            "score": t["estimate"],
            f"rank, {pct} for each model": t["marginal"],
            f"rank, {pct} for all models together": t["simultaneous"],
        }
    ).reset_index(drop=True)


RANK_COLUMN_LABELS: dict[str, str] = {  # short heads: the rank tables fit a 1400 px window
    "mean": "Mean",
    "geometric_mean": "Geometric mean",
    "average_rank": "Average rank",
    "average_rank_noise": "Avg rank + noise",
    "average_rank_bins": "Avg rank, bins",
}


def rank_statistic_table(
    ranks: pd.DataFrame, labels: dict[str, str], *, statistic: str = "position"
) -> pd.DataFrame:
    """Rank aggregations (``core.summaries.rank_aggregations``) as one row per model and one
    column per method, ``value [low–high]``: with ``statistic="position"`` every method's final
    position, with ``"average task rank"`` the average per-task rank [LGC] reports for the
    average-rank methods.

    ``labels`` names the methods (e.g. :data:`RANK_COLUMN_LABELS`). Rows follow the first
    method's position.
    """
    methods = list(dict.fromkeys(ranks["method"]))
    cols: dict[str, list[str]] = {}
    first = ranks[ranks["method"] == methods[0]].sort_values("position", kind="stable")
    order = list(first["model"])
    for method in methods:
        sub = ranks[ranks["method"] == method].set_index("model").loc[order]
        name = labels.get(method, method)
        avg = (sub["statistic"] == "average task rank").all()
        if statistic == "average task rank" and avg:
            cols[name] = [
                f"{m:.2f} [{lo:.2f}–{hi:.2f}]"
                for m, lo, hi in zip(sub["mean_rank"], sub["low"], sub["high"], strict=True)
            ]
        elif statistic == "position":
            mid, lo, hi = (
                ("position", "position_low", "position_high")
                if avg
                else ("mean_rank", "low", "high")
            )
            cols[name] = [
                f"{m:.2f} [{a:g}–{b:g}]" for m, a, b in zip(sub[mid], sub[lo], sub[hi], strict=True)
            ]
    return pd.DataFrame({"model": order, **cols})


def rank_column_help(
    table: pd.DataFrame, long_labels: dict[str, str], *, statistic: str, level: float
) -> dict[str, str]:
    """The help of each method column of a :func:`rank_statistic_table` headed by
    :data:`RANK_COLUMN_LABELS`: the aggregation in full (``long_labels``, e.g.
    ``presentation.figures.common.RANK_METHOD_LABELS``) and what a cell holds."""
    what = (
        "the model's position among all models"
        if statistic == "position"
        else "the model's average rank over the tasks, as [LGC] reports it"
    )
    return {
        short: f"{long_labels.get(method, method)}: {what}, mean over the replicates "
        f"[{100 * level:g}% percentile interval]; 1 = best."
        for method, short in RANK_COLUMN_LABELS.items()
        if short in table.columns
    }

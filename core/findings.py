"""The report's findings in plain sentences, computed from draws (METHODS 2, 4, 4b, 5).

A :class:`Findings` holds what a reader needs in two minutes: who leads, which models the data
cannot tell apart from the leader and how sure that is, which pairs of the top models differ, the
rank sets, whether the winner changes with the category weighting, and the caveats that change
the reading of those numbers. Every sentence is decided by the same rules the app shows:

- "cannot tell apart from the leader": :func:`core.summaries.leader.tied_with_leader` at the test
  level that overlap of two ``level`` intervals approximates (95% at 83.4%), one pair at a time;
- "how sure": the top-1 rank set (:func:`core.summaries.rank_sets.rank_sets`, max-T, at
  ``comparison_level``) and the share of draws in which each model comes out on top;
- "which pairs differ": simultaneous max-T intervals (:func:`core.summaries.pairwise_differences`)
  over the ``top`` best observed models;
- weighting: the winner of the observed weighted score ``S(w)`` over the grid of category
  weights (:func:`core.summaries.dominance.simplex_grid`; two or three categories only).

**Choice**: a winner is named ("X leads") only when no other model is tied with it; otherwise the
sentence says there is no clear winner, so the words cannot claim more than the test shows.

Long on purpose: METHODS 11: every sentence of the report is derived here from the draws, so
the words and the numbers cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchuq.core import summaries
from benchuq.core.analyses import power
from benchuq.core.data import Benchmark, DataError
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.draws import Draws
from benchuq.core.reading.notes import summarize
from benchuq.core.small_samples import (
    FEW_ITEMS,
    cell_items,
    group_items,
    min_items_to_tell,
    too_few_with_leader,
)
from benchuq.core.summaries.dominance import (
    DominanceMap,
    dominance_map,
    moments_from_draws,
    simplex_grid,
)
from benchuq.core.summaries.headline import overall_label
from benchuq.core.summaries.leader import overlap_test_level, tied_with_leader
from benchuq.core.summaries.ordering import best_first
from benchuq.core.summaries.rank_sets import RankSets, rank_set_sentences, rank_sets
from benchuq.core.summaries.scores import Group
from benchuq.core.zero_spread import given_se_note

__all__ = [
    "SMALL_N",
    "Findings",
    "data_caveats",
    "findings",
    "gaps_from_leader",
    "group_intervals",
    "model_flags",
    "rank_sentence",
    "small_tasks",
    "why_level",
]

SMALL_N = FEW_ITEMS  # tasks with fewer items than this get a caveat
WEIGHT_GRID = 20  # resolution of the weighting grid (231 points for three categories)


@dataclass(frozen=True)
class Findings:
    """Headline findings, caveats and the numbers behind them (one report).

    Attributes
    ----------
    headline
        plain sentences, most important first.
    answer
        the answer for page 1 of the report, at the one ``level``: who leads and how sure
        (or "Too few items to tell"), then why "told apart" is a test at another level
        (:func:`why_level`); the rank sets' sentence (:func:`rank_sentence`) is a finding.
    covered
        the headline sentences the answer says again (the report lists the others under
        "Findings").
    caveats
        plain sentences on what changes the reading of the numbers.
    leader
        the best observed model (overall score); ``tied``: the models the data cannot tell
        apart from it, best first.
    p_best
        ``{model: share of draws in which it is best}`` over all models.
    table
        the leaderboard of the score: ``model, estimate, low, high, tied_with_leader``, best
        first.
    diffs
        max-T pairwise differences among the ``top`` best observed models.
    sets
        rank sets of the score at ``comparison_level``.
    flags
        ``{model: caveats}`` (:func:`model_flags`) for the models that have any.
    label
        the score's name: for ``"overall"`` the aggregate in words
        (``core.summaries.headline``, e.g. ``"mean of 16 benchmarks; mmlu = lm-eval's
        size-weighted mean of 57 subjects"``), else the weights.
    weight_winners
        ``{model: share of weightings in which it has the best observed S(w)}`` (empty with
        one category or more than three).
    weight_map
        with two or three categories, the SE-rule map of who wins under which category
        weighting (``core.summaries.dominance.dominance_map`` at ``z`` = :data:`MAP_Z`, correlation
        read from paired draws, else assumed 0), else ``None`` (METHODS 5).
    """

    headline: tuple[str, ...]
    caveats: tuple[str, ...]
    leader: str
    tied: tuple[str, ...]
    p_best: dict[str, float]
    table: pd.DataFrame
    diffs: pd.DataFrame
    sets: RankSets
    weight_winners: dict[str, float]
    level: float
    comparison_level: float
    label: str
    flags: dict[str, str]
    weight_map: DominanceMap | None = None
    answer: tuple[str, ...] = ()
    covered: tuple[str, ...] = ()


#: The weight map's rule (a lead of at least ``MAP_Z`` standard errors, as on the Task weights
#: page) and grid steps per side (coarser than the page's: a printed figure).
MAP_Z = 2.0
MAP_RESOLUTION = 40


def _names(models: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    m = list(models)
    return m[0] if len(m) == 1 else ", ".join(m[:-1]) + " and " + m[-1]


def _pct(p: float) -> str:
    """A share as a percentage for people ("< 1%" and "> 99%" at the ends)."""
    if 0 < p < 0.005:
        return "< 1%"
    if 0.995 < p < 1:
        return "> 99%"
    return f"{100 * p:.0f}%"


def small_tasks(bench: Benchmark, *, limit: int = SMALL_N) -> tuple[str, ...]:
    """Tasks where some model has fewer than ``limit`` items (none without item counts)."""
    cells = cell_items(bench)
    if cells is None:
        return ()
    n = np.where(np.isnan(bench.estimate), np.inf, cells)
    return tuple(t for t, m in zip(bench.tasks, n.min(axis=0), strict=True) if m < limit)


def model_flags(
    bench: Benchmark, *, diagnostics: pd.DataFrame | None = None, rhat: float = 1.01
) -> dict[str, str]:
    """Per model, the caveats that change the reading of its score, in a few words: tasks with
    fewer than :data:`SMALL_N` items, tasks without a result (a partial or cancelled run), chains
    that have not converged (a Bayesian fit's ``diagnostics`` with ``rhat`` above ``rhat``)."""
    out: dict[str, list[str]] = {m: [] for m in bench.models}
    missing = np.isnan(bench.estimate)
    cells = cell_items(bench)
    if cells is not None:
        small = (cells < SMALL_N) & ~missing
        for m, k in zip(bench.models, small.sum(axis=1), strict=True):
            if k:
                out[m].append(f"{k} task{'s' if k > 1 else ''} < {SMALL_N} items")
    for m, k in zip(bench.models, missing.sum(axis=1), strict=True):
        if k:
            out[m].append(f"no result on {k} task{'s' if k > 1 else ''}")
    if diagnostics is not None and len(diagnostics):
        bad = set(diagnostics.loc[diagnostics["rhat"] > rhat, "model"])
        for m in bench.models:
            if m in bad:
                out[m].append("chains not converged")
    return {m: "; ".join(v) for m, v in out.items() if v}


def data_caveats(bench: Benchmark) -> tuple[str, ...]:
    """The data's caveats as notes (small tasks, models without a result on some tasks), for the
    "Notes on this data" list and the report."""
    out = []
    small = small_tasks(bench)
    if small:
        shown = _names(small[:6]) + (f" and {len(small) - 6} more" if len(small) > 6 else "")
        out.append(
            f"{len(small)} task{'s' if len(small) > 1 else ''} with fewer than {SMALL_N} items "
            f"({shown}): their scores move a lot with a few answers."
        )
    missing = np.isnan(bench.estimate).sum(axis=1)
    partial = [f"{m} ({k})" for m, k in zip(bench.models, missing, strict=True) if k]
    if partial:
        out.append(
            "Models without a result on some tasks (a partial or cancelled run?): "
            f"{', '.join(partial)}; their overall score averages only the tasks they have."
        )
    flat = given_se_note(bench)  # METHODS 2g
    return (*out, *([] if flat is None else [flat]))


def _weight_winners(draws: Draws) -> dict[str, float]:
    """Share of the category-weight grid in which each model has the best observed S(w)."""
    cats = draws.category_names
    if len(cats) not in (2, 3) or len(draws.models) < 2:
        return {}
    means = np.array([summaries.group_scores(draws, group=c).observed for c in cats])  # (C, M)
    if np.isnan(means).any():
        return {}
    grid = simplex_grid(WEIGHT_GRID, n_categories=len(cats))
    best = np.argmax(grid @ means, axis=1)
    share = np.bincount(best, minlength=len(draws.models)) / len(grid)
    order = best_first(share, draws.models)
    return {draws.models[i]: float(share[i]) for i in order if share[i] > 0}


def _lead_sentences(
    leader: str,
    tied: tuple[str, ...],
    row: pd.Series,
    level: float,
    scale: float,
    suffix: str,
    alone: bool,
    leader_items: float = np.nan,
) -> list[str]:
    q = f"{100 * overlap_test_level(level):.0f}%"
    score = (
        f"{scale * row['estimate']:.1f}{suffix} ({100 * level:.1f}% interval "
        f"{scale * row['low']:.1f} to {scale * row['high']:.1f}{suffix})"
    )
    if alone:
        return [f"{leader} scores {score}; it is the only model, so there is no ranking."]
    floor = min_items_to_tell(overlap_test_level(level))
    if leader_items < floor:
        return [
            f"Too few items to tell: {leader} has the highest score, {score}, but it rests on "
            f"{leader_items:.0f} item{'' if leader_items == 1 else 's'}, and with fewer than "
            f"{floor} items no model can be told apart from another: even one model right on "
            "every item and the other wrong on every item could be chance."
        ]
    if not tied:
        return [
            f"{leader} leads with {score}.",
            f"Every other model scores lower than {leader}, and the data can tell each of them "
            f"apart from {leader} ({leader}'s lead over each has a {q} interval above 0, one "
            "model at a time).",
        ]
    return [
        f"No clear winner: {leader} has the highest score, {score}, but the data cannot tell "
        f"{_names(tied)} apart from it ({leader}'s lead over each has a {q} interval that "
        "includes 0).",
    ]


def _pairs_sentence(diffs: pd.DataFrame, level: float) -> str:
    if diffs.empty:
        return ""
    k = len(pd.unique(diffs[["a", "b"]].to_numpy().ravel()))
    if "too_few_items" in diffs and diffs["too_few_items"].all():
        return (
            f"Among the top {k} models, there are too few items to tell any pair apart: with "
            f"fewer than {min_items_to_tell(level)} items no difference can be shown with "
            f"{100 * level:g}% confidence."
        )
    differ = [
        f"{r.a} > {r.b}" if r.low > 0 else f"{r.b} > {r.a}"
        for r in diffs.itertuples()
        if r.low > 0 or r.high < 0
    ]
    pct = f"{100 * level:g}%"
    if not differ:
        return (
            f"Among the top {k} models, no pair can be told apart with {pct} confidence for all "
            f"{len(diffs)} pairs together (simultaneous intervals)."
        )
    same = [f"{r.a} and {r.b}" for r in diffs.itertuples() if r.low <= 0 <= r.high]
    head = (
        f"Among the top {k} models, {len(differ)} of {len(diffs)} pairs differ with {pct} "
        "confidence for all pairs together (simultaneous intervals)"
    )
    if not same:
        return f"{head}: every pair differs."
    if len(differ) <= len(same):
        return f"{head}: {'; '.join(differ)}."
    return f"{head}; the pairs that cannot be told apart: {'; '.join(same)}."


def _weight_sentence(winners: dict[str, float], cats: tuple[str, ...]) -> str:
    if not winners:
        return ""
    names = _names(cats)
    if len(winners) == 1:
        (model,) = winners
        return (
            f"Weighting the categories ({names}) differently does not change the winner: "
            f"{model} has the highest observed score under every weighting."
        )
    parts = ", ".join(f"{m} in {_pct(s)}" for m, s in winners.items())
    return (
        f"The winner depends on how the categories ({names}) are weighted: on the observed "
        f'scores, {parts} of the weightings (the map "Who wins under which category '
        'weighting?" shows where a lead is larger than its uncertainty).'
    )


def _power_sentence(bench: Benchmark, top2: Sequence[str], group: Group) -> str:
    """What the benchmark can detect between the two best models and the items the observed
    difference would need (``core.analyses.power``, METHODS 10: 80% power, 95% level, one pair);
    ``""`` without two models or item counts."""
    if len(top2) < 2 or bench.kind == "estimate_se":
        return ""
    g = group if isinstance(group, str) else np.asarray(group, dtype=float)
    try:
        design = power.design_from_benchmark(bench, models=list(top2), group=g)
        observed = abs(float(design.estimate[0] - design.estimate[1]))
        plan = power.plan(design, level=0.95, power=0.8, delta=observed if observed > 0 else None)
    except DataError:
        return ""
    scale, unit = power.display_scale(design)
    assumed = (
        " (assuming the two models' scores are uncorrelated: task counts cannot show it)"
        if design.rho is not None
        else ""
    )
    if not np.isfinite(plan.mde[0]):  # no spread measured: nothing to forecast (METHODS 10)
        return ""
    a, b = plan.a[0], plan.b[0]
    smallest = _amount(float(plan.mde[0]) * scale, unit)
    text = (
        f"How small a difference these items can show: a true gap of {smallest} or more "
        f"between {a} and {b} would be found 8 times in 10 (at the 95% level){assumed}."
    )
    if observed <= 0 or not np.isfinite(plan.n_required[0]):
        return text
    seen = _amount(observed * scale, unit)
    if plan.factor_required[0] <= 1:
        return f"{text} Their observed gap, {seen}, is at least that large."
    need = f"about {power.round_up(float(plan.n_required[0])):,} items"
    return f"{text} Their observed gap, {seen}, is smaller: telling it apart would take {need}."


def _amount(x: float, unit: str) -> str:
    """A difference in words: one decimal below 10, none above ("1.8 points", "12 points")."""
    text = (f"{x:.1f}" if abs(x) < 10 else f"{x:.0f}").removesuffix(".0")
    return f"{text} {unit.removesuffix('s') if text == '1' else unit}"


def _answer(
    leader: str,
    tied: tuple[str, ...],
    table: pd.DataFrame,
    p_best: dict[str, float],
    level: float,
    scale: float,
    suffix: str,
) -> tuple[str, ...]:
    """Page 1's answer at the report's one ``level``: who leads and how sure, then why a
    difference is tested at another level than the intervals are drawn at (METHODS 2, [GH])."""
    row = table.iloc[0]
    pct = f"{100 * level:g}%"
    score = f"{scale * row['estimate']:.1f}{suffix}"
    iv = f"{scale * row['low']:.1f} to {scale * row['high']:.1f}{suffix}"
    if len(table) < 2:
        return (f"{leader} scores {score} ({pct} interval {iv}); it is the only model.",)
    top = _pct(p_best.get(leader, 0.0))
    if tied:
        first = (
            f"No clear winner: {leader} scores highest, {score} ({pct} interval {iv}), but "
            f"{_names(tied)} cannot be told apart from it; {leader} comes out on top in {top} "
            "of the replicates."
        )
    else:
        first = (
            f"{leader} leads with {score} ({pct} interval {iv}), ahead of every other model, "
            f"each told apart from it; it comes out on top in {top} of the replicates."
        )
    return first, why_level(level)


def why_level(level: float) -> str:
    """The one sentence that says why "told apart" is a test at another level than the
    intervals' (METHODS 2: non-overlap of two ``level`` intervals approximates that test [GH])."""
    alpha = 100 * (1 - overlap_test_level(level))
    chance = f"{alpha:.0f}%" if alpha >= 1 else f"{alpha:.1g}%"
    return (
        f"Why {100 * level:g}%: two such intervals that do not overlap differ at about {chance}; "
        "“told apart” is that test, made on each model's difference from the leader."
    )


def rank_sentence(sets: RankSets) -> str:
    """How many models' exact ranks the data leave open (the rank sets' ``level``, for all
    models together); ``""`` with fewer than two ranked models."""
    finite = np.isfinite(sets.estimate)
    if finite.sum() < 2:
        return ""
    span = (sets.simultaneous_high - sets.simultaneous_low)[finite]
    unsure = int((span > 0).sum())
    pct = f"{100 * sets.level:g}%"
    if unsure == 0:
        return f"The data decides every model's rank ({pct} confidence for all models together)."
    widest = int(span.max()) + 1
    return (
        f"The data cannot decide the exact rank of {unsure} of {int(finite.sum())} models: "
        f"each could hold up to {widest} different places ({pct} confidence for all models "
        "together)."
    )


def _first_line(lead: tuple[str, ...], answer: tuple[str, ...]) -> tuple[str, ...]:
    """The answer, led by the "too few items" sentence when the leader rests on too few items
    for any difference to be shown (that, not the tie, is the first thing to know)."""
    if lead and lead[0].startswith("Too few items to tell"):
        return (lead[0], *answer[1:])
    return answer


def group_intervals(draws: Draws, groups: Sequence[str], *, level: float) -> pd.DataFrame:
    """Per group (a category or a task name) and model: ``group, model, estimate, low, high,
    higher_is_better`` (percentile intervals at ``level``; METHODS 2), the report's
    per-category and per-task tables. Models without a score in a group are left out."""
    rows = []
    for g in groups:
        if g == "overall" or g in draws.category_names:
            sc = summaries.group_scores(draws, group=g)
        else:
            sc = summaries.task_scores(draws, draws.tasks.index(g))
        iv = summaries.percentile_interval(sc, level=level)
        for m, e, lo, hi in zip(draws.models, iv.estimate, iv.low, iv.high, strict=True):
            if np.isfinite(e):
                rows.append((g, m, float(e), float(lo), float(hi), sc.higher_is_better))
    columns = ["group", "model", "estimate", "low", "high", "higher_is_better"]
    return pd.DataFrame(rows, columns=columns)


def _apart_from_leader(draws: Draws, group: Group, leader: str) -> tuple[str, ...]:
    """Models with a score that share no task of ``group`` with ``leader``."""
    have = summaries.task_presence(draws, group=group)
    lead = draws.models.index(leader)
    apart = have.any(axis=1) & ~(have & have[lead]).any(axis=1)
    return tuple(m for m, a in zip(draws.models, apart, strict=True) if a)


def _caveats(bench: Benchmark, draws: Draws, extra: Sequence[str]) -> list[str]:
    out = []
    if len(draws.models) < 2:
        out.append("Only one model: there is nothing to compare it with.")
    out.append(
        "The intervals assume the items (questions) of each task are independent samples from a "
        "larger pool; items that come in clusters (several questions on one passage, repeated "
        "prompts) make the true uncertainty larger than shown."
    )
    if not draws.paired and not draws.notes:  # the method's own note says it otherwise
        out.append(
            "Models were resampled independently (task totals only, no per-item results): "
            "differences between models ignore the correlation that shared items create."
        )
    out += list(data_caveats(bench))
    out += list(extra)
    out += list(draws.notes)
    out += [f"From reading the data: {s}" for s in summarize(bench.notes)]
    return out


def findings(
    bench: Benchmark,
    draws: Draws,
    *,
    level: float,
    group: Group = "overall",
    scale: float = 100.0,
    suffix: str = "%",
    comparison_level: float = COMPARISON_LEVEL,
    top: int = 6,
    warnings: Sequence[str] = (),
    diagnostics: pd.DataFrame | None = None,
) -> Findings:
    """The report's findings for ``draws`` of ``bench`` on the score ``group`` (``"overall"``,
    the mean over tasks, or category weights; ``core.summaries.group_scores``).

    ``level``: the leaderboard's interval level; ``comparison_level``: the level of the rank sets
    and simultaneous pairwise intervals; ``top``: how many best observed models the pairwise
    comparison covers; ``warnings``: extra caveats (e.g. a Bayesian fit's convergence warnings);
    ``diagnostics``: a Bayesian fit's diagnostics (for :func:`model_flags`). Scores are shown
    times ``scale`` followed by ``suffix`` (``"%"`` for proportions).
    """
    sc = summaries.group_scores(draws, group=group)
    iv = summaries.percentile_interval(sc, level=level)
    items = group_items(draws, tasks=summaries.group_tasks(draws, group))
    tied_mask = tied_with_leader(
        sc.values,
        sc.observed,
        level=level,
        higher_is_better=sc.higher_is_better,
        present=summaries.task_presence(draws, group=group),
    )
    tied_mask |= too_few_with_leader(
        items, sc.observed, overlap_test_level(level), higher_is_better=sc.higher_is_better
    )
    table = pd.DataFrame(
        {
            "model": list(draws.models),
            "estimate": iv.estimate,
            "low": iv.low,
            "high": iv.high,
            "tied_with_leader": tied_mask,
            "items": items,
            "few_items": items < FEW_ITEMS,
        }
    )
    table = table.dropna(subset=["estimate"])
    order = best_first(
        table["estimate"], list(table["model"]), higher_is_better=sc.higher_is_better
    )
    table = table.iloc[order].reset_index(drop=True)
    leader = str(table["model"].iloc[0])
    tied = tuple(str(m) for m in table["model"].iloc[1:][table["tied_with_leader"].iloc[1:]])
    sets = rank_sets(
        sc.values,
        sc.observed,
        draws.models,
        level=comparison_level,
        higher_is_better=sc.higher_is_better,
        label=sc.label,
    )
    probs = summaries.rank_probabilities(draws, group=group)[:, 0]
    p_best = {m: float(p) for m, p in zip(draws.models, probs, strict=True) if np.isfinite(p)}
    best = list(table["model"].iloc[: max(2, top)])
    diffs = (
        summaries.pairwise_differences(draws, best, level=comparison_level, group=group)
        if len(best) > 1
        else pd.DataFrame()
    )
    winners = _weight_winners(draws)
    weight_map = (
        dominance_map(moments_from_draws(draws), z=MAP_Z, resolution=MAP_RESOLUTION)
        if winners
        else None
    )
    headline = _lead_sentences(
        leader,
        tied,
        table.iloc[0],
        level,
        scale,
        suffix,
        alone=len(table) < 2,
        leader_items=float(table["items"].iloc[0]),
    )
    covered = tuple(headline)
    label = overall_label(draws) if isinstance(group, str) and group == "overall" else sc.label
    apart = _apart_from_leader(draws, group, leader)
    if apart:
        headline.insert(
            1,
            f"{_names(apart)} share{'s' if len(apart) == 1 else ''} no task with {leader}: their "
            "scores average different tasks, so they are not compared with it (issue 29).",
        )
    if len(table) > 1:  # (with one model the report's leaderboard names it)
        headline.insert(1, f"{'Overall score' if label != sc.label else 'Score'}: {label}.")
    if len(draws.models) > 1:
        shares = [
            (m, p) for m, p in sorted(p_best.items(), key=lambda kv: (-kv[1], kv[0])) if p > 0
        ]
        rest = len(p_best) - len(shares[:4])
        headline.append(
            "How often each model comes out on top in the replicates: "
            + ", ".join(f"{m} {_pct(p)}" for m, p in shares[:4])
            + (
                f"; the other {'model' if rest == 1 else f'{rest} models'} "
                f"{'less often' if len(shares) > 4 else 'never'}."
                if rest
                else "."
            )
        )
        headline += rank_set_sentences(sets)
        headline += [s for s in (rank_sentence(sets),) if s]
    headline += [s for s in (_pairs_sentence(diffs, comparison_level),) if s]
    headline += [s for s in (_weight_sentence(winners, draws.category_names),) if s]
    if not float(table["items"].iloc[0]) < min_items_to_tell(overlap_test_level(level)):
        headline += [s for s in (_power_sentence(bench, best[:2], group),) if s]
    return Findings(
        headline=tuple(headline),
        caveats=tuple(_caveats(bench, draws, warnings)),
        flags=model_flags(bench, diagnostics=diagnostics),
        leader=leader,
        tied=tied,
        p_best=p_best,
        table=table,
        diffs=diffs,
        sets=sets,
        weight_winners=winners,
        level=level,
        comparison_level=comparison_level,
        label=label,
        weight_map=weight_map,
        answer=_first_line(covered, _answer(leader, tied, table, p_best, level, scale, suffix)),
        covered=covered,
    )


def gaps_from_leader(
    draws: Draws, *, level: float, group: Group = "overall", top: int = 8
) -> pd.DataFrame:
    """Each model's score minus the leader's, inside every draw, with its percentile interval at
    the "≈ leader" test level (:func:`core.summaries.leader.overlap_test_level`; METHODS 2).

    Columns ``model, estimate, low, high, tied`` (``tied``: the interval contains 0, the rule of
    :func:`core.summaries.leader.tied_with_leader`); the leader first (a gap of 0), then the models
    tied with it, then the next best, at most ``top`` rows: the contested top of the leaderboard.
    """
    sc = summaries.group_scores(draws, group=group)
    sign = 1.0 if sc.higher_is_better else -1.0
    obs = sign * np.asarray(sc.observed, dtype=float)
    present = np.flatnonzero(np.isfinite(obs))
    lead = int(present[best_first(obs[present], [draws.models[i] for i in present])[0]])
    gap = sign * (sc.values - sc.values[:, [lead]])
    q = overlap_test_level(level)
    low, high = np.nanquantile(gap[:, present], [(1 - q) / 2, (1 + q) / 2], axis=0)
    table = pd.DataFrame(
        {
            "model": [draws.models[i] for i in present],
            "estimate": obs[present] - obs[lead],
            "low": low,
            "high": high,
        }
    )
    have = summaries.task_presence(draws, group=group)
    shares = (have & have[lead]).any(axis=1)[present]  # no shared task: never tied (issue 29)
    table = table.assign(tied=(table["low"] <= 0) & (table["high"] >= 0) & shares)
    table = table.iloc[best_first(table["estimate"], list(table["model"]))].reset_index(drop=True)
    return table.head(max(top, 1 + int(table["tied"].sum())))

"""Rank confidence sets from simultaneous pairwise comparisons (METHODS 4b, [MRSW]).

Mogstad, Romano, Shaikh & Wilhelm (2024): with simultaneous intervals for pairwise differences,
model i's rank lies in ``[1 + #{j surely better than i}, M - #{j surely worse than i}]``, where
"surely better" means the interval for ``S_j - S_i`` lies above 0. The intervals are bootstrap
max-T (:mod:`core.summaries.maxt`) on the draws of one score (``core.summaries.Scores``).

- ``marginal``: for each model its own family ``{S_i - S_j, j != i}``; each model's set covers
  its true rank with probability ``level``.
- ``simultaneous``: one family of all ``M (M - 1) / 2`` pairs; all sets cover all true ranks
  together with probability ``level``.
- Top-k set: the models whose rank set reaches k. **Choice**: for k = 1 ("the best model is one
  of ...") the marginal sets suffice (only the true best has to be covered), for k >= 2 the
  simultaneous ones (every one of the true top k has to be covered).

Rank 1 is the best (respecting ``higher_is_better``). Models without a score get no set and do not
count.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.summaries.maxt import max_t
from benchuq.core.summaries.ordering import best_first
from benchuq.core.summaries.ranks import check_level

__all__ = ["RankSets", "rank_set_sentences", "rank_sets"]


@dataclass(frozen=True)
class RankSets:
    """Marginal and simultaneous rank confidence sets (arrays over models, 1 = best)."""

    models: tuple[str, ...]
    estimate: np.ndarray
    marginal_low: np.ndarray
    marginal_high: np.ndarray
    simultaneous_low: np.ndarray
    simultaneous_high: np.ndarray
    level: float
    label: str
    higher_is_better: bool = True

    def top_set(self, k: int = 1) -> tuple[str, ...]:
        """Models that may be among the best ``k`` (a set holding all of the true top k with
        probability ``level``), best observed first."""
        low = self.marginal_low if k == 1 else self.simultaneous_low
        order = best_first(self.estimate, self.models, higher_is_better=self.higher_is_better)
        keep = [i for i in order if low[i] <= k]
        return tuple(self.models[i] for i in keep)

    def table(self) -> pd.DataFrame:
        """One row per model: ``model, estimate, marginal_low/high, simultaneous_low/high``."""
        return pd.DataFrame(
            {
                "model": list(self.models),
                "estimate": self.estimate,
                "marginal_low": self.marginal_low,
                "marginal_high": self.marginal_high,
                "simultaneous_low": self.simultaneous_low,
                "simultaneous_high": self.simultaneous_high,
            }
        )


def _bounds(
    better: np.ndarray, worse: np.ndarray, present: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) rank bounds from counts of models surely better / worse."""
    m = int(present.sum())
    low = np.where(present, 1.0 + better, np.nan)
    high = np.where(present, m - worse, np.nan)
    return low, high


def rank_sets(
    values: np.ndarray,
    observed: np.ndarray,
    models: Sequence[str],
    *,
    level: float = COMPARISON_LEVEL,
    higher_is_better: bool = True,
    label: str = "overall",
    too_few: np.ndarray | None = None,
    untold: np.ndarray | None = None,
) -> RankSets:
    """Rank confidence sets for scores with draws ``values`` ``(R, M)`` and ``observed``
    ``(M,)`` (e.g. ``group_scores(draws, group)``), METHODS 4b. A model marked ``too_few``
    rests on fewer units than any exact test needs at ``level`` (METHODS 2d, arena's battles:
    8b), so no pair with it counts as told apart; nor does a pair ``(i, j)`` marked in the
    ``(M, M)`` ``untold`` (arena: a pair with a sparse model that its exact floor keeps
    together, 8b)."""
    level = check_level(level)
    M = len(models)
    told = np.ones(M, bool) if too_few is None else ~np.asarray(too_few, bool)
    apart = np.ones((M, M), bool) if untold is None else ~np.asarray(untold, bool)
    sign = 1.0 if higher_is_better else -1.0
    v = sign * np.asarray(values, dtype=float)
    o = sign * np.asarray(observed, dtype=float)
    present = ~np.isnan(o)
    idx = np.flatnonzero(present)
    better_sim, worse_sim = np.zeros(M), np.zeros(M)
    pairs = list(itertools.combinations(idx, 2))
    if pairs:
        ia, ib = np.array(pairs).T
        fam = max_t(v[:, ia] - v[:, ib], o[ia] - o[ib], level=level, p_values=False)
        both = told[ia] & told[ib] & apart[ia, ib]
        np.add.at(better_sim, ib, both & (fam.low > 0))  # a surely better than b
        np.add.at(worse_sim, ia, both & (fam.low > 0))
        np.add.at(better_sim, ia, both & (fam.high < 0))
        np.add.at(worse_sim, ib, both & (fam.high < 0))
    better_m, worse_m = np.zeros(M), np.zeros(M)
    for i in idx:
        others = idx[idx != i]
        if others.size:
            fam = max_t(v[:, [i]] - v[:, others], o[i] - o[others], level=level, p_values=False)
            both = told[i] & told[others] & apart[i, others]
            better_m[i], worse_m[i] = np.sum(both & (fam.high < 0)), np.sum(both & (fam.low > 0))
    m_low, m_high = _bounds(better_m, worse_m, present)
    s_low, s_high = _bounds(better_sim, worse_sim, present)
    return RankSets(
        models=tuple(models),
        estimate=np.asarray(observed, dtype=float),
        marginal_low=m_low,
        marginal_high=m_high,
        simultaneous_low=s_low,
        simultaneous_high=s_high,
        level=level,
        label=label,
        higher_is_better=higher_is_better,
    )


def _models(names: tuple[str, ...]) -> str:
    """``{A, B}``; a name holding a comma or a brace in quotes (``{"x, y", B}``), so the set
    still reads as the models it holds."""
    return "{" + ", ".join(_quoted(n) for n in names) + "}"


def _quoted(name: str) -> str:
    return f'"{name}"' if any(c in name for c in ',{}"') or name != name.strip() else name


def rank_set_sentences(sets: RankSets, *, top: tuple[int, ...] = (1, 3)) -> list[str]:
    """Plain-language rank-set statements, e.g. "The best model is one of {A, B} with 95%
    confidence." (top-k sets for each k in ``top`` below the number of models)."""
    pct = f"{100 * sets.level:g}%"
    out = []
    for k in top:
        if k >= len(sets.models):
            continue
        chosen = sets.top_set(k)
        if k == 1:
            if len(chosen) == 1:
                out.append(f"{chosen[0]} is the best model with {pct} confidence.")
            else:
                out.append(f"The best model is one of {_models(chosen)} with {pct} confidence.")
        else:
            out.append(f"The top {k} models are among {_models(chosen)} with {pct} confidence.")
    return out

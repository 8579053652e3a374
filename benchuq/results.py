"""Result objects of the Python API (``import benchuq as bq``): small, frozen, named fields.

Every result has the same four faces:

- :meth:`Result.to_frame`: a tidy :class:`pandas.DataFrame` whose columns are the row fields of
  the CLI's ``--json`` (``model``, ``group``, ``estimate``, ``low``, ``high``, ...); its ``attrs``
  hold the scalar settings (method, level, replicates, seed, unit);
- :meth:`Result.payload`: the CLI's ``--json`` document (the CLI prints exactly this);
- :meth:`Result.figure`: the plotly figure the app shows, with the subtitle naming data set,
  method and level (``presentation.figures.common.with_subtitle``);
- ``_repr_html_`` (a compact table in Jupyter) and a short ``repr``.

:func:`write_table` writes a result as CSV or Parquet (``benchuq COMMAND --output-format csv``):
the settings become constant columns (``level``, ``unit``, ...) and, in Parquet, also the
file's ``benchuq`` metadata (the JSON document without its rows).

Long on purpose: one small frozen result class per public function of :mod:`benchuq.api` (about
fifteen), sharing :class:`Result`'s protocol; kept together as the API's one output contract.
"""

from __future__ import annotations

import html
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TextIO

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.analyses.arena import ArenaResult
    from benchuq.core.analyses.diff import DiffResult
    from benchuq.core.analyses.embeddings.scores import ConsistencyResult
    from benchuq.core.analyses.embeddings.tree import EmbeddingTree
    from benchuq.core.analyses.epp import EPPResult
    from benchuq.core.analyses.judge import JudgeResult
    from benchuq.core.analyses.power import Design, PowerPlan
    from benchuq.core.analyses.subgroups.estimates import SubgroupResult
    from benchuq.core.data import Benchmark
    from benchuq.core.draws import Draws
    from benchuq.core.summaries.dominance import DominanceMap
    from benchuq.core.summaries.rank_sets import RankSets
    from benchuq.presentation.figures.common import FigureOptions

__all__ = [
    "EPP",
    "TABLE_FORMATS",
    "Arena",
    "Comparison",
    "Consistency",
    "Judge",
    "Leaderboard",
    "PowerResult",
    "RankSetsResult",
    "Ranks",
    "Result",
    "Statistic",
    "Subgroups",
    "TableFormat",
    "WeightMap",
    "clean",
    "write_table",
]

TableFormat = Literal["csv", "parquet"]
TABLE_FORMATS: tuple[str, ...] = ("csv", "parquet")
HTML_ROWS = 20  # rows shown by _repr_html_


def clean(x: Any) -> Any:
    """JSON-safe values: numpy scalars and arrays to Python, NaN and infinity to ``None``."""
    if isinstance(x, Mapping):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return clean(x.tolist())
    if isinstance(x, list | tuple):
        return [clean(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, str):
        x = x.item()
    if isinstance(x, float) and not np.isfinite(x):
        return None
    return x


def _unit(observed: np.ndarray, normalization: str | None = None) -> str:
    """The unit of scores: proportions when every observed score is in [0, 1]."""
    if normalization is not None:
        return f"normalized ({normalization}, 0-1)"
    obs = np.asarray(observed, dtype=float)
    obs = obs[np.isfinite(obs)]
    return "proportion" if obs.size and obs.min() >= 0 and obs.max() <= 1 else "score"


def _options(models: tuple[str, ...], unit: str, title: str = "") -> FigureOptions:
    """The app's figure options: one colour per model, percent for proportions."""
    from benchuq.presentation.colors import model_colors
    from benchuq.presentation.figures.common import FigureOptions

    if unit == "proportion":
        return FigureOptions(model_colors(models), 100.0, "score (%)", title)
    if unit.startswith("normalized"):
        return FigureOptions(model_colors(models), 100.0, "normalized score (0–100)", title)
    return FigureOptions(model_colors(models), 1.0, "score", title)


def _subtitled(fig: go.Figure, draws: Draws, level: float) -> go.Figure:
    """``fig`` with the app's export subtitle: data set, method, draws, seed, level."""
    from benchuq.presentation.figures.common import chart_subtitle, with_subtitle

    sub = chart_subtitle(draws.data or "data", draws.method, draws.reps, draws.seed, level)
    return with_subtitle(fig, sub)


def _draws_meta(draws: Draws) -> dict[str, Any]:
    from benchuq.core.summaries.headline import overall_label

    return {
        "data": draws.data,
        "method": draws.method,
        "reps": draws.reps,
        "seed": draws.seed,
        "overall": overall_label(draws),
    }


def _overall(draws: Draws) -> dict[str, object]:
    """The CLI JSON's ``overall`` object: the aggregate the group "overall" stands for."""
    from benchuq.core.summaries.headline import Headline, overall_label

    if draws.headline is not None:
        return draws.headline.describe()
    return Headline("tasks", overall_label(draws), ("tasks",)).describe()


@dataclass(frozen=True, repr=False, eq=False)
class Result(ABC):
    """What every result has; subclasses add their fields, rows and figure."""

    kind: ClassVar[str] = "result"

    def to_frame(self) -> pd.DataFrame:
        """The rows as a tidy DataFrame (the CLI JSON's ``rows``); ``attrs`` hold the settings."""
        frame = pd.DataFrame(self._rows())
        frame.attrs.update(self.meta())
        return frame

    def meta(self) -> dict[str, Any]:
        """The scalar settings behind the numbers (method, level, replicates, seed, unit)."""
        return {}

    def payload(self) -> dict[str, Any]:
        """The CLI's ``--json`` document."""
        return clean({**self.meta(), "rows": self._rows()})

    @abstractmethod
    def figure(self) -> go.Figure:
        """The app's figure of this result."""

    @abstractmethod
    def _rows(self) -> list[dict[str, Any]]:
        """The rows of the CLI's JSON."""

    def _summary(self) -> str:
        meta = self.meta()
        parts = []
        for key in ("data", "level"):
            value = meta.get(key)
            if isinstance(value, float):
                parts.append(f"{key}={value:.4g}")
            elif value not in (None, ""):
                parts.append(f"{key}={value!r}")
        return ", ".join(parts)

    def __repr__(self) -> str:
        rows = len(self._rows())
        summary = self._summary()
        return f"{type(self).__name__}({summary + ', ' if summary else ''}{rows} rows)"

    def _repr_html_(self) -> str:
        frame = self.to_frame()
        shown = frame.head(HTML_ROWS).to_html(
            index=False, float_format=lambda v: f"{v:.4g}", border=0, max_cols=12
        )
        more = f"<p>… {len(frame) - HTML_ROWS} more rows</p>" if len(frame) > HTML_ROWS else ""
        summary = html.escape(self._summary())
        return f"<p><b>{type(self).__name__}</b> {summary}</p>{shown}{more}"


@dataclass(frozen=True, repr=False, eq=False)
class Leaderboard(Result):
    """Scores with percentile intervals per model and group (``bq.leaderboard``, METHODS 2).

    Attributes
    ----------
    table
        ``model, group, estimate, low, high, mc_error_low, mc_error_high, tied_with_leader, se,
        items, few_items, n_items, n_answers`` (best first within each group).
    level
        The interval level.
    leader_test_level
        The level of the paired test behind ``tied_with_leader`` (``core.summaries.leader``).
    draws
        The draws summarised.
    """

    table: pd.DataFrame
    level: float
    leader_test_level: float
    draws: Draws = field(repr=False)

    def meta(self) -> dict[str, Any]:
        """Method, level, replicates, seed, normalization, unit."""
        d = self.draws
        return {
            **_draws_meta(d),
            "level": self.level,
            "normalized": d.normalization is not None,
            "normalization": d.normalization,
            "leader_test_level": self.leader_test_level,
            "unit": _unit(d.observed, d.normalization),
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq leaderboard --json``."""
        meta = self.meta()
        return clean(
            {
                "method": meta["method"],
                "level": self.level,
                "reps": meta["reps"],
                "seed": meta["seed"],
                "normalized": meta["normalized"],
                "normalization": meta["normalization"],
                "leader_test_level": self.leader_test_level,
                "overall": _overall(self.draws),
                "notes": list(self.draws.notes),
                "rows": self._rows(),
            }
        )

    def _rows(self) -> list[dict[str, Any]]:
        return self.table.to_dict(orient="records")

    def figure(self, *, group: str = "overall") -> go.Figure:
        """The app's forest plot of one group (``"overall"`` or a category)."""
        from benchuq.core.summaries.headline import overall_label
        from benchuq.core.validation import check_known
        from benchuq.presentation.figures.common import forest_figure, group_label

        groups = list(dict.fromkeys(self.table["group"]))
        check_known([group], groups, what="groups")
        part = self.table[self.table["group"] == group].rename(columns={"tied_with_leader": "tied"})
        unit = _unit(self.draws.observed, self.draws.normalization)
        title = group_label(group, overall_label(self.draws))
        fig = forest_figure(part, _options(self.draws.models, unit, title))
        return _subtitled(fig, self.draws, self.level)


@dataclass(frozen=True, repr=False, eq=False)
class Comparison(Result):
    """Pairwise differences ``a - b`` with simultaneous intervals (``bq.compare``, METHODS 4b).

    Attributes
    ----------
    table
        ``a, b, estimate, low, high, p_value, prob_a_better, level, se, p_stepdown,
        p_below_resolution``, the items behind both scores (``items_a, items_b, n_items_a,
        n_items_b, n_answers_a, n_answers_b``), ``few_items``, ``p_floor``, ``too_few_items``.
    level, correction
        The family-wise level and the multiplicity correction.
    draws
        The draws compared.
    """

    table: pd.DataFrame
    level: float
    correction: str
    draws: Draws = field(repr=False)

    def meta(self) -> dict[str, Any]:
        """Method, level, correction, replicates, seed, p-value resolution, unit."""
        d = self.draws
        return {
            **_draws_meta(d),
            "level": self.level,
            "correction": self.correction,
            "simultaneous": self.correction != "none",
            "p_resolution": 1.0 / (d.reps + 1),
            "unit": _unit(d.observed, d.normalization),
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq compare --json``."""
        m = self.meta()
        keys = ("method", "level", "correction", "simultaneous", "reps", "seed", "p_resolution")
        doc = {
            **{k: m[k] for k in keys},
            "overall": _overall(self.draws),
            "normalized": self.draws.normalization is not None,
            "normalization": self.draws.normalization,
            "rows": self._rows(),
        }
        return clean(doc)

    def _rows(self) -> list[dict[str, Any]]:
        return self.table.to_dict(orient="records")

    def figure(self) -> go.Figure:
        """The Compare page's forest of differences with each pair's p-value."""
        from benchuq.presentation.figures.ranks import simultaneous_difference_figure

        unit = _unit(self.draws.observed, self.draws.normalization)
        opts = _options(self.draws.models, unit, "Pairwise differences a - b")
        fig = simultaneous_difference_figure(
            self.table, self.correction, self.level, self.draws.reps, opts
        )
        return _subtitled(fig, self.draws, self.level)


@dataclass(frozen=True, repr=False, eq=False)
class RankSetsResult(Result):
    """Rank confidence sets, marginal and simultaneous (``bq.rank_sets``, METHODS 4b).

    Attributes
    ----------
    sets
        The core result (``core.summaries.rank_sets.RankSets``: ``top_set(k)``, ``table()``).
    draws
        The draws ranked.
    """

    sets: RankSets
    draws: Draws = field(repr=False)

    TOP_K: ClassVar[tuple[int, ...]] = (1, 2, 3)

    def meta(self) -> dict[str, Any]:
        """Level and score of the sets, with the draws' method."""
        return {**_draws_meta(self.draws), "level": self.sets.level, "score": self.sets.label}

    def payload(self) -> dict[str, Any]:
        """The ``rank_sets`` block of ``benchuq ranks --json``."""
        s = self.sets
        top = {str(k): list(s.top_set(k)) for k in self.TOP_K if k <= len(s.models)}
        return clean({"level": s.level, "score": s.label, "rows": self._rows(), "top": top})

    def _rows(self) -> list[dict[str, Any]]:
        return self.sets.table().to_dict(orient="records")

    def top_set(self, *, k: int = 1) -> tuple[str, ...]:
        """The models that can be among the best ``k`` (simultaneous sets)."""
        return self.sets.top_set(k)

    def sentences(self) -> list[str]:
        """The statements in words ("The best model is one of {A, B} with 95% confidence.")."""
        from benchuq.core.summaries.rank_sets import rank_set_sentences

        return rank_set_sentences(self.sets)

    def figure(self) -> go.Figure:
        """The Ranks page's rank-set chart."""
        from benchuq.presentation.figures.ranks import rank_set_figure

        opts = _options(self.draws.models, "proportion", "Rank confidence sets")
        return _subtitled(rank_set_figure(self.sets, opts), self.draws, self.sets.level)


@dataclass(frozen=True, repr=False, eq=False)
class Ranks(Result):
    """Five rank aggregations, rank probabilities and rank sets (``bq.ranks``, METHODS 4).

    Attributes
    ----------
    table
        ``model, method, mean_rank, low, high, observed_rank, statistic, observed_value,
        position, position_low, position_high`` and the items behind each model's scores
        (``items, few_items, n_items, n_answers``, as the leaderboard's).
    probabilities
        ``(M, M)``: P(rank of model i = r), r = 1..M.
    rank_sets
        The rank confidence sets of the same score.
    weights
        The category weights of the score (``None``: the mean over all tasks).
    level
        The interval level.
    draws
        The draws ranked.
    """

    table: pd.DataFrame
    probabilities: np.ndarray
    rank_sets: RankSetsResult
    weights: tuple[float, ...] | None
    level: float
    draws: Draws = field(repr=False)

    def meta(self) -> dict[str, Any]:
        """Method, level, replicates, seed, normalization, score."""
        return {
            **_draws_meta(self.draws),
            "level": self.level,
            "normalization": self.draws.normalization,
            "score": self.rank_sets.sets.label,
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq ranks --json``."""
        m = self.meta()
        models = self.draws.models
        return clean(
            {
                **{k: m[k] for k in ("method", "level", "reps", "seed", "normalization", "score")},
                "overall": _overall(self.draws),
                "weights": None if self.weights is None else list(self.weights),
                "rows": self._rows(),
                "rank_probabilities": {m: self.probabilities[i] for i, m in enumerate(models)},
                "rank_sets": self.rank_sets.payload(),
            }
        )

    def _rows(self) -> list[dict[str, Any]]:
        return self.table.to_dict(orient="records")

    def figure(self) -> go.Figure:
        """The Ranks page's chart of the five aggregations."""
        from benchuq.presentation.figures.common import rank_aggregation_figure

        opts = _options(self.draws.models, "proportion")
        return _subtitled(rank_aggregation_figure(self.table, opts), self.draws, self.level)


@dataclass(frozen=True, repr=False, eq=False)
class WeightMap(Result):
    """Who leads at each task weighting, with the SE rule (``bq.weights``, METHODS 5).

    Attributes
    ----------
    map
        The core map (``core.summaries.dominance.DominanceMap``: weights, leader, runner-up,
        winner, SE).
    data
        The data set's name.
    """

    map: DominanceMap
    data: str = ""

    def meta(self) -> dict[str, Any]:
        """z, its level, rho and where the variances come from."""
        dm = self.map
        paired = dm.rho_source == "paired draws"
        return {
            "data": self.data,
            "categories": ", ".join(dm.categories),
            "z": dm.z,
            "level": dm.level,
            "rho": None if paired else float(dm.rho[0]),
            "rho_source": dm.rho_source,
            "source": dm.source,
            "unit": "proportion",
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq weights --json``."""
        dm = self.map
        m = self.meta()
        out: dict[str, Any] = {
            "data": self.data,
            "categories": list(dm.categories),
            "z": dm.z,
            "rho": m["rho"],
            "rho_source": dm.rho_source,
            "level": dm.level,
            "source": dm.source,
            "shares": [{"model": k, "share": s} for k, s in dm.shares().items()],
            "points": self._rows(),
        }
        if m["rho"] is None:  # paired draws: the correlation each difference implies
            rho = dm.rho[np.isfinite(dm.rho)]
            out["implied_rho"] = {
                "median": float(np.median(rho)) if rho.size else None,
                "min": float(rho.min()) if rho.size else None,
                "max": float(rho.max()) if rho.size else None,
            }
        return clean(out)

    def _rows(self) -> list[dict[str, Any]]:
        dm = self.map
        return [
            {
                "w": [round(float(x), 10) for x in dm.weights[p]],
                "winner": dm.name(dm.winner[p]),
                "leader": dm.name(dm.leader[p]),
                "runner_up": dm.name(dm.runner_up[p]),
                "difference": float(dm.difference[p]),
                "se": float(dm.se[p]),
            }
            for p in range(len(dm.weights))
        ]

    def to_frame(self) -> pd.DataFrame:
        """One row per grid point: a weight column per category, then winner, leader, ..."""
        rows = self._rows()
        frame = pd.DataFrame(rows).drop(columns="w")
        weights = pd.DataFrame(
            [r["w"] for r in rows], columns=[f"w_{c}" for c in self.map.categories]
        )
        out = pd.concat([weights, frame], axis=1)
        out.attrs.update(self.meta())
        return out

    def shares(self) -> dict[str | None, float]:
        """Share of the grid points each model wins (``None``: indeterminate)."""
        return self.map.shares()

    def figure(self) -> go.Figure:
        """The Weights page's map (ternary for three categories, a line for two)."""
        from benchuq.presentation.figures.common import with_subtitle
        from benchuq.presentation.figures.weights import dominance_figure

        opts = _options(self.map.models, "proportion")
        fig = dominance_figure(self.map, opts)
        rho = self.map.rho_source
        return with_subtitle(
            fig, f"Data: {self.data or 'data'} · SE rule z = {self.map.z:g} · rho: {rho}"
        )


@dataclass(frozen=True, repr=False, eq=False)
class EPP(Result):
    """The EPP meta-score: Bradley-Terry strengths with intervals (``bq.epp``, METHODS 8).

    Attributes
    ----------
    result
        The core result (``core.analyses.epp.EPPResult``: estimate, se, low, high, win
        probabilities, Wald tests, deviance).
    data
        The data set's name.
    """

    result: EPPResult
    data: str = ""

    def meta(self) -> dict[str, Any]:
        """Rounds, interval kind, level, goodness of fit."""
        r = self.result
        return {
            "data": self.data,
            "rounds": r.rounds,
            "interval": r.method,
            "level": r.level,
            "deviance": r.deviance,
            "df": r.df,
            "p_value": r.p_value,
            "unit": "logit",
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq epp --json``."""
        r = self.result
        return clean(
            {
                "rows": self._rows(),
                "win_probability": _nested(r.models, r.win_probability),
                "wald_p": _nested(r.models, r.wald_p),
                "deviance": r.deviance,
                "df": r.df,
                "p_value": r.p_value,
                "standardized_deviance": r.standardized_deviance,
                "separated": list(r.separated),
            }
        )

    def _rows(self) -> list[dict[str, Any]]:
        r = self.result
        return [
            {
                "model": r.models[i],
                "epp": r.estimate[i],
                "se": r.se[i],
                "low": r.low[i],
                "high": r.high[i],
                "p_beats_average": r.beats_average[i],
            }
            for i in r.order
        ]

    def figure(self) -> go.Figure:
        """The EPP page's forest plot."""
        from benchuq.presentation.figures.common import with_subtitle
        from benchuq.presentation.figures.epp import epp_forest_figure

        r = self.result
        opts = _options(r.models, "score", "EPP (logit units)")
        sub = f"Data: {self.data or 'data'} · EPP, {r.rounds} as rounds · {100 * r.level:g}%"
        return with_subtitle(epp_forest_figure(r, opts), sub)


def _nested(models: tuple[str, ...], mat: np.ndarray) -> dict[str, dict[str, float]]:
    """``{a: {b: mat[a, b]}}`` without the diagonal."""
    return {a: {b: mat[i, j] for j, b in enumerate(models) if j != i} for i, a in enumerate(models)}


@dataclass(frozen=True, repr=False, eq=False)
class Subgroups(Result):
    """Direct and empirical-Bayes estimates of small subgroups (``bq.subgroups``, METHODS 7).

    Attributes
    ----------
    result
        The core result (``core.analyses.subgroups.estimates.SubgroupResult``).
    """

    result: SubgroupResult

    def meta(self) -> dict[str, Any]:
        """A (mu2), kappa, level, correction and weights."""
        r = self.result
        return {
            "mu2": r.mu2,
            "kappa": r.kappa,
            "alpha": r.alpha,
            "level": r.level,
            "fs_correction": r.fs_correction,
            "weights": r.weights,
        }

    def _rows(self) -> list[dict[str, Any]]:
        return [
            {
                "unit": r.unit,
                "estimate": r.direct,
                "se": r.se,
                "eb": r.eb,
                "low": r.low,
                "high": r.high,
                "w": r.w,
                "cva": r.cva,
            }
            for r in self.result.rows.itertuples(index=False)
        ]

    def figure(self, *, model: str | None = None) -> go.Figure:
        """The Subgroups page's direct-vs-EB chart (one model's subgroups, or every unit)."""
        from benchuq.presentation.figures.common import FigureOptions, with_subtitle
        from benchuq.presentation.figures.subgroups import eb_vs_direct_figure

        r = self.result
        fig = eb_vs_direct_figure(r, FigureOptions(scale=100.0, unit="score (%)"), model)
        sub = f"{r.source} · robust EB intervals, {100 * r.level:g}% average coverage"
        return with_subtitle(fig, sub)


@dataclass(frozen=True, repr=False, eq=False)
class PowerResult(Result):
    """What each pair can detect now, and the items needed (``bq.power``, METHODS 10).

    Attributes
    ----------
    plan
        The core plan (``core.analyses.power.PowerPlan``: MDE, items needed, power per pair).
    design
        The design it was computed from.
    delta
        The difference asked about (``None``: none asked).
    notes
        Caveats for the reader.
    """

    plan: PowerPlan
    design: Design
    delta: float | None = None
    asked: bool = False
    notes: tuple[str, ...] = ()

    def meta(self) -> dict[str, Any]:
        """Data, source, group, level, power, family, correction, critical value."""
        p, d = self.plan, self.design
        return {
            "data": d.name,
            "source": d.source,
            "group": d.group,
            "level": p.level,
            "power": p.power,
            "pairs": p.family,
            "correction": p.correction,
            "critical_value": p.critical,
            "delta": self.delta,
            "items": d.n,
            "rho_assumed": d.rho,
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq power --json``."""
        return clean({**self.meta(), "rows": self._rows(), "notes": list(self.notes)})

    def _rows(self) -> list[dict[str, Any]]:
        from benchuq.core.analyses import power as pw

        p, d = self.plan, self.design
        scale, unit = pw.display_scale(d)
        rows = []
        for k in range(len(p.a)):
            row: dict[str, Any] = {
                "a": p.a[k],
                "b": p.b[k],
                "n": d.n,
                "mde": p.mde[k],
                "estimate": p.estimate[k],
                "se": p.se[k],
                "deff": p.deff[k],
                "icc": p.icc[k],
                "rho": p.rho[k],
            }
            if self.asked:
                need = p.n_required[k]
                row |= {
                    "delta": p.delta[k],
                    "n_required": int(need) if np.isfinite(need) else None,
                    "factor_required": p.factor_required[k],
                    "power_now": p.power_now[k],
                }
            row["sentence"] = p.sentence(k, scale=scale, unit=unit)
            rows.append(row)
        return rows

    def sentences(self) -> list[str]:
        """One sentence per pair, as the CLI and the Plan page print them."""
        return [r["sentence"] for r in self._rows()]

    def figure(self, *, kind: Literal["mde", "power"] = "mde") -> go.Figure:
        """The Plan page's curves: the MDE (or the power) against the number of items."""
        from benchuq.core.analyses import power as pw
        from benchuq.core.validation import check_choice
        from benchuq.presentation.figures.common import FigureOptions
        from benchuq.presentation.figures.power import (
            item_grid,
            mde_figure,
            plan_subtitle,
            power_figure,
        )

        check_choice(kind, ("mde", "power"), name="kind")
        scale, unit = pw.display_scale(self.design)
        build = mde_figure if kind == "mde" else power_figure
        n, opts = item_grid(self.plan), FigureOptions(scale=scale, unit=unit)
        return build(self.plan, n, self.delta, plan_subtitle(self.plan), opts)


@dataclass(frozen=True, repr=False, eq=False)
class Statistic(Result):
    """A user statistic of the draws with a percentile interval (``bq.statistic``).

    Attributes
    ----------
    name
        The statistic's name.
    labels
        One label per value (model names when the statistic gives one value per model).
    estimate
        The statistic of the observed scores.
    low, high
        Percentile interval over the draws at ``level``.
    values
        ``(R, K)``: the statistic in every draw.
    level
        The interval level.
    draws
        The draws.
    """

    name: str
    labels: tuple[str, ...]
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    values: np.ndarray = field(repr=False)
    level: float = 0.95
    draws: Draws | None = field(default=None, repr=False)

    def meta(self) -> dict[str, Any]:
        """The statistic, level, and the draws' method."""
        base = {} if self.draws is None else _draws_meta(self.draws)
        return {**base, "statistic": self.name, "level": self.level}

    def _rows(self) -> list[dict[str, Any]]:
        return [
            {
                "label": lab,
                "estimate": float(self.estimate[k]),
                "low": float(self.low[k]),
                "high": float(self.high[k]),
            }
            for k, lab in enumerate(self.labels)
        ]

    def figure(self) -> go.Figure:
        """A forest plot of the statistic (the Leaderboard's chart)."""
        from benchuq.presentation.figures.common import FigureOptions, forest_figure

        t = pd.DataFrame(self._rows()).rename(columns={"label": "model"})
        fig = forest_figure(t, FigureOptions(scale=1.0, unit=self.name, title=self.name))
        if self.draws is None:
            return fig
        return _subtitled(fig, self.draws, self.level)


@dataclass(frozen=True, repr=False, eq=False)
class Arena(Result):
    """Arena ratings from pairwise battles, Bradley-Terry on the Elo scale (METHODS 8b).

    Attributes
    ----------
    result
        The core result (``core.analyses.arena.ArenaResult``: ratings, intervals, rank sets).
    """

    result: ArenaResult

    def meta(self) -> dict[str, Any]:
        """Data, level, interval method, anchor, ties and the unit of the ratings."""
        r = self.result
        return {
            "data": r.name,
            "level": r.level,
            "method": r.method,
            "anchor": r.anchor,
            "ties": r.ties,
            "n_battles": r.n_battles,
            "unit": f"Elo points (scale {r.scale})",
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq arena --json``."""
        r = self.result
        doc: dict[str, Any] = {
            "rows": self._rows(),
            "scale": r.scale,
            "anchor": r.anchor,
            "method": r.method,
            "level": r.level,
            "ties": r.ties,
            "base": r.base,
            "initial": r.initial,
            "cluster": r.cluster,
            "n_battles": r.n_battles,
            "best": list(r.best),
            "sentence": r.sentence(),
            "tie_ratio": r.tie_ratio,
        }
        if r.controls and r.uncontrolled is not None:
            doc["controls"] = {
                c: {"coefficient": float(v), "se": float(s)}
                for c, v, s in zip(r.controls, r.coefficients, r.coefficient_se, strict=True)
            }
            doc["uncontrolled"] = r.uncontrolled.table().to_dict(orient="records")
        return clean(doc)

    def _rows(self) -> list[dict[str, Any]]:
        return self.result.table().to_dict(orient="records")

    def figure(self) -> go.Figure:
        """The Arena page's forest plot of the ratings."""
        from benchuq.presentation.colors import model_colors
        from benchuq.presentation.figures.arena import arena_forest_figure
        from benchuq.presentation.figures.common import FigureOptions, with_subtitle

        r = self.result
        opts = FigureOptions(model_colors(r.models), 1.0, "rating (Elo)")
        sub = f"Data: {r.name} · {r.method} intervals at {100 * r.level:g}% · {r.n_battles} battles"
        return with_subtitle(arena_forest_figure(r, opts), sub)


@dataclass(frozen=True, repr=False, eq=False)
class Judge(Result):
    """Scores from an LLM judge corrected with human labels, the agreement and the labels
    needed (``bq.judge``, ``benchuq judge``; METHODS 15).

    Attributes
    ----------
    result
        The core result (``core.analyses.judge.JudgeResult``: per model and task and overall,
        every estimate side by side, the agreement, the planning).
    """

    result: JudgeResult

    def meta(self) -> dict[str, Any]:
        """Data, method, level, target half-width, unit."""
        r = self.result
        return {
            "data": r.name,
            "method": r.method,
            "level": r.level,
            "target": r.target,
            "binary": r.binary,
            "judge_column": r.judge_column,
            "human_column": r.human_column,
            "unit": "proportion",
        }

    def payload(self) -> dict[str, Any]:
        """``benchuq judge --json``: ``rows`` (one per model and task, then ``overall``), every
        estimate side by side, the agreement with intervals, the planning table."""
        r = self.result
        return clean(
            {
                **self.meta(),
                "rows": self._rows(),
                "estimates": r.side_by_side().to_dict(orient="records"),
                "agreement": r.agreement_table().to_dict(orient="records"),
                "planning": r.planning_table().to_dict(orient="records"),
                "sentence": r.sentence(),
                "notes": list(r.notes),
            }
        )

    def _rows(self) -> list[dict[str, Any]]:
        return self.result.rows()

    def to_benchmark(self) -> Benchmark:
        """The corrected scores as a :class:`Benchmark` of estimate and se per model and task
        (``bq.bootstrap`` of it feeds ``bq.leaderboard``, ``bq.compare``, ``bq.ranks``)."""
        return self.result.to_benchmark()

    def difference(self, base: str, candidate: str) -> pd.DataFrame:
        """``candidate - base`` in human score, paired item by item, per task and overall
        (``benchuq judge --base --candidate``; METHODS 15f): the diff of two judged runs."""
        return self.result.difference(base, candidate)

    def figure(
        self, *, kind: Literal["estimates", "agreement", "labels"] = "estimates"
    ) -> go.Figure:
        """The Judge page's figures: the estimates side by side (default), the agreement per
        model, or the labels-needed curve of the overall row."""
        from benchuq.core.validation import check_choice
        from benchuq.presentation.figures.common import FigureOptions, with_subtitle
        from benchuq.presentation.figures.judge import (
            judge_agreement_figure,
            judge_estimates_figure,
            labels_curve_figure,
        )

        check_choice(kind, ("estimates", "agreement", "labels"), name="kind")
        r = self.result
        opts = FigureOptions({}, 100.0, "points" if kind == "labels" else "score (%)")
        builder = {
            "estimates": judge_estimates_figure,
            "agreement": judge_agreement_figure,
            "labels": labels_curve_figure,
        }[kind]
        sub = (
            f"Data: {r.name} · {r.method} at {100 * r.level:g}% · "
            f"{r.overall.chosen.n_labelled:,} human labels"
        )
        return with_subtitle(builder(r, opts), sub)


@dataclass(frozen=True, repr=False, eq=False)
class TwoRuns(Result):
    """Two runs compared item by item: candidate - base per task and overall, with verdicts
    (``bq.diff``, ``benchuq diff``; METHODS 13).

    Attributes
    ----------
    result
        The core result (``core.analyses.diff.DiffResult``: ``overall``, ``tasks``, the paired
        counts and the standard errors side by side).
    fail_on, per_task
        The CI gate behind :meth:`exit_code` (``benchuq diff --fail-on``, ``--per-task``).
    """

    result: DiffResult
    fail_on: Literal["worse", "inferior", "difference", "never"] = "never"
    per_task: bool = False

    def meta(self) -> dict[str, Any]:
        """Data, the two runs, level, margin and how the draws were made."""
        r = self.result
        return {
            "data": r.data,
            "base": r.base,
            "candidate": r.candidate,
            "level": r.level,
            "margin": r.margin,
            "sequential": r.sequential,
            "reps": r.reps,
            "seed": r.seed,
        }

    def exit_code(self) -> int:
        """1 when the gate ``fail_on`` fails (a CI job's status), else 0."""
        from benchuq.core.analyses.diff import exit_code

        return exit_code(self.result, fail_on=self.fail_on, per_task=self.per_task)

    def payload(self) -> dict[str, Any]:
        """``benchuq diff --json``: ``base``, ``candidate``, ``level``, ``margin``, ``overall``,
        ``tasks``, ``exit_code`` (plus what the comparison used)."""
        r = self.result
        overall = r.overall.to_dict()
        overall.pop("task")
        return clean(
            {
                "base": r.base,
                "candidate": r.candidate,
                "level": r.level,
                "margin": r.margin,
                "overall": overall,
                "tasks": [t.to_dict() for t in r.tasks],
                "exit_code": self.exit_code(),
                "data": r.data,
                "sequential": r.sequential,
                "weights": dict(zip([t.task for t in r.tasks], r.weights, strict=True)),
                "tasks_base_only": list(r.tasks_base_only),
                "tasks_candidate_only": list(r.tasks_candidate_only),
                "tasks_unpaired": list(r.tasks_unpaired),
                "reps": r.reps,
                "seed": r.seed,
                "note": r.note(),
            }
        )

    def _rows(self) -> list[dict[str, Any]]:
        return [self.result.overall.to_dict(), *(t.to_dict() for t in self.result.tasks)]

    def figure(self) -> go.Figure:
        """The Two runs page's chart of differences with the margin (it names its data)."""
        from benchuq.presentation.colors import model_colors
        from benchuq.presentation.figures.common import FigureOptions
        from benchuq.presentation.figures.diff import difference_figure

        r = self.result
        scale, axis = (100.0, "difference (points)") if r.points else (1.0, "difference")
        opts = FigureOptions(model_colors([r.base, r.candidate]), scale, axis)
        return difference_figure(r, opts)


@dataclass(frozen=True, repr=False, eq=False)
class Consistency(Result):
    """Embedding consistency: ALP and accuracy per model with intervals (METHODS 9).

    Attributes
    ----------
    result
        The core result (``core.analyses.embeddings.scores.ConsistencyResult``).
    tree
        The cluster tree when clusters come from several columns (else ``None``).
    """

    result: ConsistencyResult
    tree: EmbeddingTree | None = None

    def meta(self) -> dict[str, Any]:
        """Level, the interval method and the unit of ALP."""
        first = self.result.scores[0]
        return {"level": first.alp.level, "method": first.alp.method, "unit": "nats (ALP)"}

    def payload(self) -> dict[str, Any]:
        """``benchuq embeddings --json``."""
        r = self.result
        table = r.table()
        return clean(
            {
                "rows": self._rows(),
                "accuracy_intervals": table[["model", "accuracy_low", "accuracy_high"]]
                .rename(columns={"accuracy_low": "low", "accuracy_high": "high"})
                .to_dict(orient="records"),
                "clipped": dict(zip(table["model"], table["clipped"], strict=True)),
                "clusters": dict(zip(r.clusters, r.cluster_sizes.tolist(), strict=True)),
                "tree": None if self.tree is None else self.tree.table().to_dict(orient="records"),
                "method": {s.model: s.alp.method for s in r.scores},
                "accuracy_method": {s.model: s.accuracy.method for s in r.scores},
                "settings": dict(r.settings),
            }
        )

    def _rows(self) -> list[dict[str, Any]]:
        cols = ["model", "alp", "alp_low", "alp_high", "accuracy"]
        return self.result.table()[cols].to_dict(orient="records")

    def figure(self, *, metric: Literal["alp", "accuracy"] = "alp") -> go.Figure:
        """The Embeddings page's chart of ALP (or accuracy) per model."""
        from benchuq.presentation.figures.common import FigureOptions, with_subtitle
        from benchuq.presentation.figures.embeddings import score_figure

        first = self.result.scores[0]
        fig = score_figure(self.result, metric, FigureOptions(scale=1.0, unit=metric))
        return with_subtitle(fig, f"{first.alp.method} · {100 * first.alp.level:g}% intervals")


def write_table(result: Result, target: str | Path | TextIO, *, format: TableFormat) -> None:
    """Write ``result.to_frame()`` as CSV or Parquet to ``target`` (a path; CSV also a text
    stream). The settings (``level``, ``unit``, ``method``, ...) become constant columns;
    Parquet also keeps the JSON document without its rows as the file's ``benchuq`` metadata."""
    from benchuq.core.validation import InvalidArgument, check_choice

    check_choice(format, TABLE_FORMATS, name="format")
    frame = result.to_frame()
    meta = {k: v for k, v in frame.attrs.items() if k not in frame.columns}
    table = frame.assign(**{k: _cell(v) for k, v in meta.items()})
    table.attrs = {}
    if format == "csv":
        table.to_csv(target, index=False)
        return
    if not isinstance(target, str | Path):
        raise InvalidArgument("Parquet is binary: give a file to write it to.", hint="-o FILE")
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrow = pa.Table.from_pandas(table, preserve_index=False)
    payload = result.payload()
    doc = {**meta, **{k: v for k, v in payload.items() if k not in ("rows", "points")}}
    arrow = arrow.replace_schema_metadata(
        {**(arrow.schema.metadata or {}), b"benchuq": json.dumps(clean(doc)).encode()}
    )
    pq.write_table(arrow, target)


def _cell(value: Any) -> Any:
    """A setting as a table cell (lists and dicts as JSON text)."""
    value = clean(value)
    return json.dumps(value) if isinstance(value, list | dict) else value

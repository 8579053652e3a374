"""The report's layout: what goes into it and in which order (pure; no streamlit, no browser).

Provenance, the titled figures with the sentence that says how to read each (the first: page
1's chart, every model's score at the report's level), the tables (per category, per task, run
details) and :class:`Report`, the laid-out whole; the
report model itself is :func:`core.findings.findings`. ``report.render`` turns a :class:`Report`
into one self-contained HTML document (and ``presentation.chromium`` prints it to PDF).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from benchuq.core.analyses.diff import DiffResult
from benchuq.core.data import Benchmark, is_proportion
from benchuq.core.draws import Draws, method_words
from benchuq.core.findings import MAP_Z, Findings, gaps_from_leader, group_intervals
from benchuq.core.reading.meta import Meta
from benchuq.core.reading.naming import unsaid_shape
from benchuq.core.summaries.dominance import implied_level
from benchuq.core.summaries.leader import overlap_test_level
from benchuq.core.summaries.scores import Group
from benchuq.presentation.figures.common import (
    ROW_HEIGHT,
    FigureOptions,
    forest_figure,
    gap_figure,
    with_subtitle,
)
from benchuq.presentation.figures.ranks import rank_set_figure, simultaneous_difference_figure
from benchuq.presentation.figures.weights import dominance_figure

__all__ = [
    "NO_RUN_DETAILS",
    "SCORES_ROW",
    "TOP_COLUMNS",
    "WHOLE_NAME",
    "WIDTH",
    "Details",
    "Provenance",
    "Report",
    "ReportFigure",
    "bayes_flags",
    "build",
    "command",
    "details",
    "display_unit",
    "figures",
    "group_frame",
    "provenance",
    "run_details",
    "scores_figure",
    "table_frame",
]

TOP_COLUMNS = 3  # models shown side by side in the per-category and per-task tables
WHOLE_NAME = 24  # a model name in a table cell up to this length is not wrapped
WIDTH = 760  # pixels of every figure: about the text width on screen (print scales it to A4)


#: The run details of data whose files carry none (e.g. a task table): said, so the reader knows
#: the versions and settings are unknown, not left out.
NO_RUN_DETAILS = (
    "None in these data: the files do not say which harness, versions, few-shot settings or "
    "dates produced them. Ask the data's owner before comparing these numbers with runs made "
    "elsewhere."
)


def display_unit(bench: Benchmark, normalized: bool = False) -> tuple[float, str, str]:
    """``(scale, axis title, suffix)`` of scores: proportions as percent (``100, "score (%)",
    "%"``), normalized scores on 0-100, other scores as they are."""
    if normalized:
        return 100.0, "normalized score (0–100)", ""
    if is_proportion(bench.estimate):  # core.data.is_proportion: the one rule
        return 100.0, "score (%)", "%"
    return 1.0, "score", ""


@dataclass(frozen=True)
class Provenance:
    """What reproduces the report: the data, the settings and the tool.

    ``query`` is the share link (or :data:`NOT_SHARED`); ``command`` the CLI command;
    ``data_hash`` the hash of the parsed data (``Benchmark.data_hash``: a folder and its zip, or a
    renamed data set, hash alike); ``shape`` the models and tasks the name does not already say
    (``""`` when it says both).
    """

    data: str
    data_hash: str
    method: str
    level: float
    reps: int
    seed: int | None
    version: str
    query: str
    command: str
    shape: str

    @property
    def plain_method(self) -> str:
        """The method in plain words (:func:`~benchuq.core.draws.method_words`)."""
        return method_words(self.method)

    def subtitle(self, level: float | None = None, kind: str = "") -> str:
        """The line under every figure title: data set, method in plain words, replicates,
        seed and level (the report's level unless the chart has its own, e.g.
        ``kind="simultaneous"``)."""
        seeded = "" if self.seed is None else f", seed {self.seed}"
        pct = f"{round(100 * (level or self.level), 1):g}%"
        text = (
            f"Data: {self.data} · {self.plain_method}, {self.reps} replicates{seeded} · "
            f"intervals at {pct}"
        )
        return f"{text} {kind}".rstrip()


def provenance(
    bench: Benchmark, draws: Draws, level: float, query: str, command: str
) -> Provenance:
    """The provenance of a report on ``draws`` of ``bench`` (the version filled in; no clock
    time, so the same inputs make the same file: issue 40)."""
    import benchuq

    return Provenance(
        data=bench.name,
        data_hash=bench.data_hash,
        method=draws.method,
        level=level,
        reps=draws.reps,
        seed=draws.seed,
        version=benchuq.__version__,
        query=query,
        command=command,
        shape=unsaid_shape(bench.name, len(draws.models), len(draws.tasks), times="×"),
    )


def command(
    data: Sequence[str],
    method: str,
    reps: int,
    seed: int,
    level: float,
    models: Sequence[str] = (),
    extra: Sequence[str] = (),
) -> str:
    """The ``benchuq report`` command that reproduces the numbers (settings flags only)."""
    parts = ["benchuq", "report", *data, "--method", method, "--reps", str(reps)]
    parts += ["--seed", str(seed), "--level", f"{level:g}", *extra]
    if models:
        parts += ["--models", *models]
    return shlex.join(parts)


@dataclass(frozen=True)
class ReportFigure:
    """One figure of the report with the sentence that says how to read it."""

    fig: go.Figure
    reading: str


def scores_figure(
    f: Findings, options: FigureOptions, prov: Provenance, *, top: int | None = None
) -> ReportFigure:
    """Page 1's chart: the score of every model (or the ``top`` best) with its interval at the
    report's level, the leader's interval shaded, "≈ leader" marked."""
    pct = f"{100 * f.level:g}%"
    table = f.table if top is None else f.table.head(top)
    title = (
        f"All models: score with {pct} intervals"
        if len(table) == len(f.table)
        else f"The top {len(table)} of {len(f.table)} models: score with {pct} intervals"
    )
    return ReportFigure(
        with_subtitle(
            forest_figure(table.assign(tied=table["tied_with_leader"]), _titled(options, title)),
            prov.subtitle(),
        ),
        f"Dot: the score; bar: the {pct} interval (a dot is drawn smaller than its "
        "interval, so a narrow interval stays visible). The shaded band is the leader's "
        "interval; ≈ leader marks the models the data cannot tell apart from the leader.",
    )


#: pixels a model's row takes in :func:`scores_figure` (page 1 sizes the chart by it)
SCORES_ROW = ROW_HEIGHT


def figures(
    f: Findings, gaps: pd.DataFrame, options: FigureOptions, prov: Provenance, reps: int
) -> list[ReportFigure]:
    """Page 1's chart (:func:`scores_figure`: every model's score at the report's level), then
    the contested top (``gaps``: ``core.findings.gaps_from_leader``), the differences among the
    top models, the rank sets and, with two or three categories, who wins under which weighting
    (the Task weights page's map), each titled, with a subtitle naming data set, method and
    level."""
    cmp = f"{100 * f.comparison_level:g}%"
    test = f"{100 * overlap_test_level(f.level):.0f}%"
    top = _titled(options, f"How far behind the leader? (top {len(gaps)})")
    out = [scores_figure(f, options, prov)]
    if len(gaps) > 1:  # (one model: no one is behind it)
        out.append(
            ReportFigure(
                with_subtitle(gap_figure(gaps, top), prov.subtitle(overlap_test_level(f.level))),
                f"Each bar: how far a model is behind the leader, with its {test} interval (the "
                "test that two non-overlapping intervals of page 1 stand for). A bar that "
                "reaches the dashed line (open dot) is a model the data cannot tell apart from "
                "the leader.",
            )
        )
    if not f.diffs.empty:
        k = len(pd.unique(f.diffs[["a", "b"]].to_numpy().ravel()))
        fig = simultaneous_difference_figure(
            f.diffs, "maxt", f.comparison_level, reps, _titled(options, f"Top {k}: differences")
        )
        fig.update_xaxes(title_text=f"difference, {options.unit} ({cmp}, all pairs together)")
        out.append(
            ReportFigure(
                with_subtitle(fig, prov.subtitle(f.comparison_level, "(for all pairs together)")),
                f"Each row is one pair, first minus second. A grey bar crossing the dashed line "
                f"at 0: the two cannot be told apart; a coloured bar clear of 0: a real "
                f"difference. The {cmp} holds for all pairs together.",
            )
        )
    if len(f.sets.models) > 1:
        fig = rank_set_figure(f.sets, _titled(options, "Which ranks could each model hold?"))
        out.append(
            ReportFigure(
                with_subtitle(fig, prov.subtitle(f.comparison_level, "(rank sets)")),
                f"Each bar spans the ranks the model could truly hold ({cmp} confidence; thick: "
                "for that model alone, thin: for all models together). A long bar means the "
                "position is uncertain.",
            )
        )
    if f.weight_map is not None:
        fig = dominance_figure(
            f.weight_map, _titled(options, "Who wins under which category weighting?"), height=600
        )
        fig.update_layout(margin={"t": 150}, legend_y=-0.16)  # room for the subtitle and labels
        lead = f"{MAP_Z:g} standard errors"
        out.append(
            ReportFigure(
                with_subtitle(
                    fig, prov.subtitle(implied_level(MAP_Z), f"(colour: a lead of {lead})")
                ),
                "Each point is one weighting of the categories (a corner: that category alone). "
                f"Colour: the model that wins there by at least {lead} of the difference; grey: "
                "the top two cannot be told apart at that weighting.",
            )
        )
    for r in out:
        r.fig.update_layout(width=WIDTH)
    return out


def _titled(options: FigureOptions, title: str) -> FigureOptions:
    return FigureOptions(options.colors, options.scale, options.unit, title)


@dataclass(frozen=True)
class Details:
    """The report's tables: scores per category and per task (``group,
    model, estimate, low, high`` at the report's level; ``core.findings.group_intervals``) and the
    run details (one row per harness; empty without provenance)."""

    categories: pd.DataFrame
    tasks: pd.DataFrame
    runs: pd.DataFrame


_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[T_ ](\d{2})[-:](\d{2}))?")


def details(f: Findings, draws: Draws, meta: Meta | None = None) -> Details:
    """:class:`Details` of a report on ``draws`` (``meta``: what the files said, for the run
    details; dates are read from the file names, as lm-eval and inspect_ai write them)."""
    cats = draws.category_names
    categories = group_intervals(draws, cats, level=f.level) if len(cats) > 1 else pd.DataFrame()
    tasks = group_intervals(draws, draws.tasks, level=f.level)
    return Details(categories, tasks, run_details(meta))


def run_details(meta: Meta | None) -> pd.DataFrame:
    """Per harness: models, tasks, n-shot, task versions, metric and the dates the file names
    carry (empty without run details); the report's and the site's run table."""
    if meta is None or not meta.runs:
        return pd.DataFrame()
    frame = meta.runs_frame()
    frame["date"] = [next((m.group(1) for m in _DATE.finditer(f)), "") for f in frame["file"]]

    def values(col: pd.Series) -> str:
        v = sorted({str(x) for x in col if str(x)})
        return ", ".join(v[:4]) + (f" (+{len(v) - 4})" if len(v) > 4 else "") if v else "—"

    rows = []
    for harness, g in frame.groupby("harness", sort=False):
        dates = sorted(d for d in g["date"] if d)
        rows.append(
            {
                "harness": harness,
                "models": g["model"].nunique(),
                "tasks": g["task"].nunique(),
                "n-shot": values(g["n_shot"]),
                "task versions": values(g["version"]),
                "metric": values(g["metric"]),
                "dates": "—"
                if not dates
                else dates[0] + ("" if dates[0] == dates[-1] else f" to {dates[-1]}"),
            }
        )
    return pd.DataFrame(rows)


def group_frame(
    intervals: pd.DataFrame, order: Sequence[str], scale: float, label: str
) -> pd.DataFrame:
    """Rows per group (category or task), columns: the best model in the group and the
    :data:`TOP_COLUMNS` best models overall (``order``), each ``score (low–high)``."""
    top = [m for m in order if m in set(intervals["model"])][:TOP_COLUMNS]
    rows = []
    for g, part in intervals.groupby("group", sort=False):
        by = part.set_index("model")
        lower = len(by) and not bool(by["higher_is_better"].iloc[0])
        best = str(by["estimate"].idxmin() if lower else by["estimate"].idxmax()) if len(by) else ""
        row = {label: str(g), "best here": best}
        for m in top:
            row[m] = (
                f"{scale * by.loc[m, 'estimate']:.1f} ({scale * by.loc[m, 'low']:.1f}–"
                f"{scale * by.loc[m, 'high']:.1f})"
                if m in by.index
                else "—"
            )
        rows.append(row)
    return pd.DataFrame(rows)


def table_frame(f: Findings, scale: float, unit: str) -> pd.DataFrame:
    """The leaderboard for people: score, interval, vs leader, share of draws on top, rank set
    and the row's caveats (``note``), best first; numbers as text (one decimal)."""
    sets = f.sets.table().set_index("model")
    pct, cmp = f"{100 * f.level:g}%", f"{100 * f.comparison_level:g}%"
    rows = []
    for k, r in enumerate(f.table.itertuples()):
        lo, hi = sets.loc[r.model, "marginal_low"], sets.loc[r.model, "marginal_high"]
        rows.append(
            {
                "model": str(r.model),
                unit: f"{scale * r.estimate:.1f}",
                f"{pct} interval": f"{scale * r.low:.1f} – {scale * r.high:.1f}",
                "vs leader": "leader"
                if k == 0
                else ("≈ leader" if r.tied_with_leader else "below"),
                "top in": f"{100 * f.p_best.get(r.model, 0.0):.0f}%",
                f"rank ({cmp})": "—"
                if np.isnan(lo)
                else (f"{lo:.0f}" if lo == hi else f"{lo:.0f}–{hi:.0f}"),
                "note": f.flags.get(r.model, ""),
            }
        )
    return pd.DataFrame(rows)


def bayes_flags(
    chains: int,
    draws: int,
    warmup: int,
    sampler: str,
    priors: Sequence[str] = (),
    interval: str | None = None,
) -> list[str]:
    """The Bayesian model's flags of the reproducing command (:func:`command`'s ``extra``)."""
    flags = ["--chains", str(chains), "--draws", str(draws), "--warmup", str(warmup)]
    flags += ["--sampler", sampler] + ([] if interval is None else ["--interval", interval])
    return flags + [x for spec in priors for x in ("--prior", spec)]


@dataclass(frozen=True)
class Report:
    """A laid-out report: the findings, their provenance and the titled figures."""

    findings: Findings
    provenance: Provenance
    figures: list[ReportFigure]
    scale: float
    unit: str
    details: Details | None = None
    options: FigureOptions | None = None

    def __repr__(self) -> str:
        return f"Report({self.provenance.data!r}, {len(self.figures)} figures)"

    def html(self, *, two_runs: tuple[DiffResult, go.Figure] | None = None) -> str:
        """The report as one self-contained HTML document (``report.render.to_html``), with a
        "Two runs" section when ``two_runs`` (a comparison and its chart) is given."""
        from benchuq.presentation.report.render import to_html

        return to_html(
            self.findings,
            self.provenance,
            self.figures,
            scale=self.scale,
            unit=self.unit,
            details=self.details,
            two_runs=two_runs,
            options=self.options,
        )


def build(
    f: Findings,
    bench: Benchmark,
    draws: Draws,
    level: float,
    *,
    query: str,
    command: str,
    options: FigureOptions,
    scale: float,
    unit: str,
    group: Group = "overall",
    meta: Meta | None = None,
) -> Report:
    """The report of findings ``f`` on ``draws`` of ``bench`` (the CLI's and the Report page's
    one wiring): provenance, the gaps from the leader on the score ``group`` and the figures;
    the table in ``scale`` and ``unit`` (:func:`display_unit`); ``meta``: what the files said
    (run details)."""
    prov = provenance(bench, draws, level, query, command)
    gaps = gaps_from_leader(draws, level=level, group=group)
    figs = figures(f, gaps, options, prov, draws.reps)
    return Report(f, prov, figs, scale, unit, details(f, draws, meta), options)

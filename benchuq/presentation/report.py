"""The one-click report: findings, figures, caveats and provenance as one self-contained HTML file,
and that file printed to PDF by Debian's chromium (pure; no streamlit).

The report model is :func:`core.findings.findings`; this module only lays it out. Figures are
the app's own builders (``presentation.figures.common``, ``presentation.figures.ranks``) with a
subtitle naming the data set, method and level, embedded as inline SVG (rendered by kaleido): the
file needs no network, no JavaScript and no fonts beyond the system's, so it opens offline and
prints as it looks. **Choice**: static SVG rather than interactive plotly (5 MB of JavaScript that a
printer cannot use).

Long on purpose: the report's layout (figures, tables, pages, HTML and PDF) as one document
builder shared by the CLI, the Report page and ``bq.report``.
"""

from __future__ import annotations

import html
import re
import shlex
import shutil
import subprocess
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from benchuq.core.analyses.diff import DiffResult
from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws
from benchuq.core.findings import MAP_Z, Findings, gaps_from_leader, group_intervals
from benchuq.core.reading.meta import Meta
from benchuq.core.reading.naming import unsaid_shape
from benchuq.core.summaries.dominance import implied_level
from benchuq.core.summaries.leader import overlap_test_level
from benchuq.core.summaries.scores import Group
from benchuq.presentation.figures.common import (
    FigureOptions,
    chart_subtitle,
    forest_figure,
    gap_figure,
    with_subtitle,
)
from benchuq.presentation.figures.ranks import rank_set_figure, simultaneous_difference_figure
from benchuq.presentation.figures.weights import dominance_figure
from benchuq.presentation.report_link import NOT_SHARED

__all__ = [
    "CHROMIUM",
    "NOT_SHARED",
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
    "kaleido_svg",
    "provenance",
    "run_details",
    "to_html",
    "to_pdf",
    "two_runs_html",
]

CHROMIUM = "/usr/bin/chromium"
TOP_COLUMNS = 3  # models shown side by side in the per-category and per-task tables
WHOLE_NAME = 24  # a model name in a table cell up to this length is not wrapped
WIDTH = 760  # pixels of every figure: about the printed text width, so its text prints legibly


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
    obs = bench.estimate[~np.isnan(bench.estimate)]
    if bench.kind != "estimate_se" or (obs.min() >= 0 and obs.max() <= 1):
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
    created: str

    def subtitle(self, level: float | None = None, kind: str = "") -> str:
        """The line under every figure title: data set, method, draws, seed and level (the
        report's level unless the chart has its own, e.g. ``kind="simultaneous"``)."""
        text = chart_subtitle(self.data, self.method, self.reps, self.seed, level or self.level)
        return f"{text} {kind}".rstrip()


def provenance(
    bench: Benchmark, draws: Draws, level: float, query: str, command: str
) -> Provenance:
    """The provenance of a report on ``draws`` of ``bench`` (version and time filled in)."""
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
        created=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
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


def figures(
    f: Findings, gaps: pd.DataFrame, options: FigureOptions, prov: Provenance, reps: int
) -> list[ReportFigure]:
    """The contested top (``gaps``: ``core.findings.gaps_from_leader``), the whole leaderboard,
    the differences among the top models, the rank sets and, with two or three categories, who
    wins under which weighting (the Task weights page's map), each titled, with a subtitle
    naming data set, method and level."""
    pct, cmp = f"{100 * f.level:g}%", f"{100 * f.comparison_level:g}%"
    test = f"{100 * overlap_test_level(f.level):.0f}%"
    top = _titled(options, f"How far behind the leader? (top {len(gaps)})")
    out = [
        ReportFigure(
            with_subtitle(gap_figure(gaps, top), prov.subtitle(overlap_test_level(f.level))),
            f"Each bar: how far a model is behind the leader, with its {test} interval. A bar "
            "that reaches the dashed line (open dot) is a model the data cannot tell apart from "
            "the leader.",
        ),
        ReportFigure(
            with_subtitle(
                forest_figure(
                    f.table.assign(tied=f.table["tied_with_leader"]),
                    _titled(options, f"All models: score with {pct} intervals"),
                ),
                prov.subtitle(),
            ),
            f"Dot: the score; bar: the {pct} interval (a dot is drawn smaller than its "
            "interval, so a narrow interval stays visible). The shaded band is the leader's "
            "interval; ≈ leader marks the models the data cannot tell apart from the leader.",
        ),
    ]
    if not f.diffs.empty:
        k = len(pd.unique(f.diffs[["a", "b"]].to_numpy().ravel()))
        fig = simultaneous_difference_figure(
            f.diffs, "maxt", f.comparison_level, reps, _titled(options, f"Top {k}: differences")
        )
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


@contextmanager
def kaleido_svg() -> Iterator[Callable[[go.Figure], bytes]]:
    """A function turning figures into SVG bytes, with one kaleido server for the block (for
    the CLI; the app uses its own long-running server, ``dashboard.export.image_bytes``)."""
    import kaleido

    def svg(fig: go.Figure) -> bytes:
        with warnings.catch_warnings():  # plotly passes options a running server already has
            warnings.filterwarnings("ignore", message="The kopts argument is ignored")
            return fig.to_image(format="svg")

    kaleido.start_sync_server(silence_warnings=True)
    try:
        yield svg
    finally:
        kaleido.stop_sync_server(silence_warnings=True)


def _svg(data: bytes) -> str:
    """Inline SVG markup that scales to the page width (a viewBox from its own size)."""
    text = data.decode()
    text = re.sub(r"^<\?xml[^>]*>\s*", "", text)
    m = re.search(r'<svg[^>]*?width="([\d.]+)"[^>]*?height="([\d.]+)"', text)
    if m and "viewBox" not in text[: m.end()]:
        text = text.replace("<svg", f'<svg viewBox="0 0 {m.group(1)} {m.group(2)}"', 1)
    return re.sub(r'(<svg[^>]*?) width="[\d.]+"( [^>]*?)height="[\d.]+"', r"\1\2", text, count=1)


@dataclass(frozen=True)
class Details:
    """The report's tables after the first page: scores per category and per task (``group,
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


CSS = """
body { font-family: "Source Sans Pro", Arial, Helvetica, sans-serif; color: #222; margin: 2em auto;
       max-width: 820px; padding: 0 1em; line-height: 1.45; }
h1 { font-size: 1.7em; margin-bottom: 0.1em; overflow-wrap: anywhere; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
.sub { color: #555; margin-top: 0; }
.answer { font-size: 1.12em; border-left: 4px solid #1f77b4; padding: 0.2em 0 0.2em 0.8em; }
.answer p { margin: 0.35em 0; }
.answer p:first-child { font-weight: 600; }
.page1 { break-after: page; page-break-after: always; }
ul.findings li { margin-bottom: 0.45em; }
figure { margin: 1.2em 0; break-inside: avoid; page-break-inside: avoid; }
figure svg { width: 100%; height: auto; display: block; }
figcaption { color: #444; font-size: 0.92em; }
table { border-collapse: collapse; font-size: 0.86em; width: 100%; break-inside: auto;
        table-layout: auto; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 5px; text-align: left;
         overflow-wrap: anywhere; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }  /* a model's name heading a column of numbers wraps */
.nw { white-space: nowrap; }  /* a model name's parts: see _model_name */
td.label, th.label { overflow-wrap: break-word; }  /* a task's name: whole words */
tr { break-inside: avoid; }
dl.repro dt { font-weight: 600; float: left; clear: left; width: 9em; }
dl.repro dd { margin-left: 10em; word-break: break-all; }
code { font-size: 0.9em; }
td.note { color: #a15c00; font-size: 0.9em; }
p.what { color: #444; font-size: 0.92em; }
@page { size: A4; margin: 14mm; }
@media print { body { margin: 0; max-width: none; padding: 0; } h2 { break-after: avoid; } }
"""


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


def _model_name(name: str, *, whole: int = 0) -> str:
    """A model name as HTML that wraps only after a "/" or before an "@" (never at a hyphen
    mid-name: "meta-llama/" over "Llama-3.2-1B", not "meta-llama/Llama-3.2-" over "1B"); a
    name of at most ``whole`` characters does not wrap."""
    cuts = [name] if len(name) <= whole else re.split(r"(?<=/)|(?=@)", name)
    parts = (html.escape(p) for p in cuts if p)
    return "<wbr>".join(f"<span class=nw>{p}</span>" for p in parts)


def _table(
    frame: pd.DataFrame, cls: Sequence[str] | None = None, *, model_heads: bool = False
) -> str:
    """A frame as HTML (``cls``: a class per column, ``num`` right-aligned, ``note``
    highlighted, ``model`` a model's name (:func:`_model_name`); default: the leaderboard's).
    ``model_heads``: the ``num`` columns are headed by model names."""
    e = html.escape
    cls = list(cls or ["", "num", "num", "", "num", "num", "note"])
    head = "".join(
        f"<th class={c or 'txt'}>"
        + (_model_name(str(h)) if model_heads and c == "num" else e(str(h)))
        + "</th>"
        for c, h in zip(cls, frame, strict=True)
    )
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td class={c or 'txt'}>"
            + (_model_name(str(v), whole=WHOLE_NAME) if c == "model" else e(str(v)))
            + "</td>"
            for c, v in zip(cls, row, strict=True)
        )
        + "</tr>"
        for row in frame.itertuples(index=False)
    )
    return f"<table><tr>{head}</tr>{rows}</table>"


def _groups_html(d: Details | None, f: Findings, scale: float, unit: str) -> str:
    if d is None:
        return ""
    e = html.escape
    order = list(f.table["model"])
    pct = f"{100 * f.level:g}%"
    what = (
        f"Score ({e(unit)}) with its {pct} interval for the {min(TOP_COLUMNS, len(order))} best "
        "models overall; “best here”: the model with the highest score in the row (the app and "
        "the CSV export list every model)."
    )
    out = []
    for title, frame, label in (
        ("Per category", d.categories, "category"),
        ("Per task", d.tasks, "task"),
    ):
        if frame.empty:
            continue
        g = group_frame(frame, order, scale, label)
        cls = ["label", "model", *["num"] * (len(g.columns) - 2)]
        table = _table(g, cls, model_heads=True)
        out.append(f"<h2>{title}</h2><p class=what>{what}</p>{table}")
    if not d.runs.empty:
        out.append(
            "<h2>Run details</h2><p class=what>What the result files say about how they were "
            "made (dates from the file names).</p>"
            + _table(d.runs, ["", "num", "num", "", "", "", ""])
        )
    else:
        out.append(f"<h2>Run details</h2><p class=what>{NO_RUN_DETAILS}</p>")
    return "".join(out)


def _methods(f: Findings, prov: Provenance) -> str:
    pct, cmp = f"{100 * f.level:g}%", f"{100 * f.comparison_level:g}%"
    test = f"{100 * overlap_test_level(f.level):.0f}%"
    items = [
        f"Uncertainty: {prov.method}, {prov.reps} draws of every model's score on every task; "
        "every number in this report is a summary of those draws.",
        f"Scores and their intervals: {pct} percentile intervals of the draws (two such "
        f"intervals that do not overlap are about a {test} test of one pair).",
        f"“≈ leader” and the gap chart: the leader's lead over each model, one model at a time, "
        f"at {test}.",
        f"Pairwise differences and rank sets: {cmp} for all pairs (or all models) together "
        "(max-T simultaneous intervals), so no pair is singled out by chance.",
        "The methods and their references: docs/METHODS.md in the benchuq repository.",
    ]
    return "".join(f"<li>{html.escape(s)}</li>" for s in items)


def two_runs_html(
    result: DiffResult, fig: go.Figure, svg: Callable[[go.Figure], bytes], *, scale: float
) -> str:
    """The report's "Two runs" section: the verdicts in words, the chart of differences with
    the margin, and the paired counts with the standard errors side by side (METHODS 13)."""
    e = html.escape
    verdicts = "".join(
        f"<li>{e(r.task)}: {e(r.sentence)}</li>"
        for r in (result.overall, *(result.tasks if len(result.tasks) > 1 else ()))
    )
    frame = pd.DataFrame(
        {
            "task": [r.task for r in result.rows],
            "difference": [f"{scale * r.difference:+.1f}" for r in result.rows],
            "interval": [f"{scale * r.low:+.1f} – {scale * r.high:+.1f}" for r in result.rows],
            "verdict": [r.label for r in result.rows],
            "paired": [str(r.n_paired) for r in result.rows],
            "only base / cand.": [f"{r.n_base_only} / {r.n_candidate_only}" for r in result.rows],
            "SE paired / unpaired / naive": [
                " / ".join(f"{scale * x:.2f}" for x in (r.se_paired, r.se_unpaired, r.se_naive))
                for r in result.rows
            ],
        }
    )
    cls = ["", "num", "num", "", "num", "num", "num"]
    head = "".join(f"<th class={c or 'txt'}>{e(h)}</th>" for c, h in zip(cls, frame, strict=True))
    body = "".join(
        "<tr>"
        + "".join(f"<td class={c or 'txt'}>{e(v)}</td>" for c, v in zip(cls, row, strict=True))
        + "</tr>"
        for row in frame.itertuples(index=False)
    )
    fig.update_layout(width=WIDTH)
    return f"""<h2>Two runs: {e(result.candidate)} vs base {e(result.base)}</h2>
<ul class=findings>{verdicts}</ul>
<p>{e(result.note())}</p>
<figure>{_svg(svg(fig))}<figcaption>Each bar is candidate − base on the items both runs scored
({100 * result.level:g}% {"confidence sequences" if result.sequential else "intervals"}); left
of 0 is a regression; the shaded band is the margin.</figcaption></figure>
<table><tr>{head}</tr>{body}</table>
"""


def to_html(
    f: Findings,
    prov: Provenance,
    figs: list[ReportFigure],
    svg: Callable[[go.Figure], bytes],
    *,
    scale: float,
    unit: str,
    details: Details | None = None,
    description: str = "",
    two_runs: tuple[DiffResult, go.Figure] | None = None,
) -> str:
    """The report as one self-contained HTML document (figures as inline SVG via ``svg``).

    Page 1 holds the two-line answer (``Findings.answer``) and the first figure, the chart a
    reader who stops there needs; the findings, the leaderboard, the per-category and per-task
    tables (``details``), the other figures, ``two_runs`` (a comparison of two runs and its
    chart), run details, caveats, methods and how to reproduce the numbers follow."""
    e = html.escape
    runs = "" if two_runs is None else two_runs_html(*two_runs, svg, scale=scale)
    pct, cmp = f"{100 * f.level:g}%", f"{100 * f.comparison_level:g}%"
    answer = "".join(f"<p>{e(s)}</p>" for s in f.answer or f.headline[:2])
    rest = [s for s in f.headline if s not in f.answer and s not in f.covered]
    findings = "".join(f"<li>{e(s)}</li>" for s in rest)
    caveats = "".join(f"<li>{e(s)}</li>" for s in f.caveats)

    def figure(r: ReportFigure) -> str:
        return f"<figure>{_svg(svg(r.fig))}<figcaption>{e(r.reading)}</figcaption></figure>"

    first = figure(figs[0]) if figs else ""
    fig_html = "".join(figure(r) for r in figs[1:])
    repro = [
        ("Data", f"{prov.data} ({prov.shape})" if prov.shape else prov.data),
        ("Data hash", f"sha256 {prov.data_hash}"),
        ("Method", prov.method),
        ("Draws", str(prov.reps)),
        ("Seed", "none" if prov.seed is None else str(prov.seed)),
        ("Level", f"{pct} (scores), {cmp} (comparisons, rank sets)"),
        ("benchuq", prov.version),
        ("Share link", prov.query),
        ("Command", prov.command),
        ("Made", prov.created),
    ]
    dl = "".join(f"<dt>{e(k)}</dt><dd><code>{e(v)}</code></dd>" for k, v in repro)
    about = f"<p>{e(description)}</p>" if description.strip() else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>benchuq report: {e(prov.data)}</title><style>{CSS}</style></head>
<body>
<div class=page1>
<h1>Benchmark report: {e(prov.data)}</h1>
<p class=sub>{e(prov.shape + " · " if prov.shape else "")}{e(prov.method)}, {prov.reps} draws
· scores with {pct} intervals · made {e(prov.created)} with benchuq {e(prov.version)}</p>
{about}
<div class=answer>{answer}</div>
{first}
</div>
<h2>Findings</h2>
<ul class=findings>{findings}</ul>
<h2>Leaderboard</h2>
<p>Score = {e(f.label)}, in {e(unit)}. “≈ leader”: the data cannot tell the
model apart from the leader; “top in”: the share of draws in which the model is best; “rank”:
the ranks the model could truly hold; “note”: what to keep in mind when reading that row.</p>
{_table(table_frame(f, scale, unit))}
{_groups_html(details, f, scale, unit)}
<h2>Figures</h2>
{fig_html}
{runs}<h2>Caveats</h2>
<ul>{caveats}</ul>
<h2>Methods</h2>
<ul>{_methods(f, prov)}</ul>
<h2>Reproduce these numbers</h2>
<dl class=repro>{dl}</dl>
</body></html>
"""


def to_pdf(document: str, timeout: float = 120.0) -> bytes:
    """``document`` (HTML) printed to PDF by headless chromium (A4, no header or footer).

    A temporary folder holds the file and chromium's profile; it is removed afterwards.
    """
    tmp = Path(tempfile.mkdtemp(prefix="benchuq-report-"))
    try:
        src, out = tmp / "report.html", tmp / "report.pdf"
        src.write_text(document, encoding="utf-8")
        cmd = [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp / 'profile'}",
            "--no-pdf-header-footer",
            f"--print-to-pdf={out}",
            src.as_uri(),
        ]
        subprocess.run(cmd, capture_output=True, timeout=timeout, check=False)
        if not out.exists() or out.stat().st_size == 0:
            raise RuntimeError(f"chromium did not write the PDF (is {CHROMIUM} installed?)")
        return out.read_bytes()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


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

    def __repr__(self) -> str:
        return f"Report({self.provenance.data!r}, {len(self.figures)} figures)"

    def html(
        self,
        svg: Callable[[go.Figure], bytes],
        *,
        two_runs: tuple[DiffResult, go.Figure] | None = None,
    ) -> str:
        """The report as one self-contained HTML document (:func:`to_html`), with a "Two runs"
        section when ``two_runs`` (a comparison and its chart) is given."""
        return to_html(
            self.findings,
            self.provenance,
            self.figures,
            svg,
            scale=self.scale,
            unit=self.unit,
            details=self.details,
            two_runs=two_runs,
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
    return Report(f, prov, figs, scale, unit, details(f, draws, meta))

"""The report's rendering: a laid-out :class:`~benchuq.presentation.report.layout.Report` as one
self-contained HTML document (pure; no streamlit, no browser).

**Choice** (issue 38): figures are interactive plotly, drawn by plotly.js in the reader's browser,
with plotly.js inline once per file: the file opens offline, makes no network request, and making
it needs no browser binary (the SVG of earlier versions needed kaleido and chromium on the machine
that wrote it, and hung without them). A printer gets the same pages: ``presentation.chromium``
prints the document after plotly has drawn it.

The same inputs give the same bytes (issue 40): figure ids are their place in the document
(``fig-1``, ``fig-2``, ...), and no clock time is written. Every text from the data (model, task
and data set names, messages quoting them) goes through :func:`text`: control characters (ESC,
BEL, ...) and bidi overrides are written visibly as ``[U+001B]`` (``presentation.text.visible``),
never as raw bytes, in the HTML and in the figures.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from benchuq.core.analyses.diff import DiffResult
from benchuq.core.findings import Findings
from benchuq.core.summaries.leader import overlap_test_level
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.report.layout import (
    NO_RUN_DETAILS,
    SCORES_ROW,
    TOP_COLUMNS,
    WHOLE_NAME,
    WIDTH,
    Details,
    Provenance,
    ReportFigure,
    group_frame,
    scores_figure,
    table_frame,
)
from benchuq.presentation.text import visible

__all__ = [
    "CSS",
    "PageOne",
    "figure_div",
    "figure_html",
    "figure_pages",
    "page",
    "page_one",
    "text",
    "to_html",
    "two_runs_html",
]

#: The printable width of an A4 page with the report's 14 mm margins, in CSS pixels (96 per inch);
#: a figure is drawn :data:`WIDTH` wide and printed scaled to fit it.
PRINT_WIDTH = (210 - 2 * 14) / 25.4 * 96
#: plotly's settings for every figure: no plotly logo (the modebar's own PNG download stays: it
#: draws in the reader's browser)
CONFIG = {"displaylogo": False, "responsive": False}


def text(value: object) -> str:
    """A text from the data or the findings for HTML: control and invisible characters written
    visibly (``[U+001B]``), then ``& < > " '`` as entities."""
    return html.escape(visible(value))


def _visible_tree(value: Any) -> Any:
    """``value`` (a figure's JSON tree) with every string passed through ``visible``."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {k: _visible_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_visible_tree(v) for v in value]
    if isinstance(value, np.ndarray) and value.dtype.kind in "OUS":
        return [_visible_tree(v) for v in value.tolist()]
    return value


def _json(value: Any) -> str:
    """``value`` as JSON that is safe inside a ``<script>`` (no ``<``: ``</script>`` in a name
    cannot end the script)."""
    from plotly.io.json import to_json_plotly

    return to_json_plotly(value).replace("<", "\\u003c")


def figure_div(fig: go.Figure, div_id: str) -> str:
    """``fig`` as a plotly div with the script that draws it (plotly.js itself is in the head of
    :func:`page`); its texts through ``visible``, its size its own (``WIDTH`` wide)."""
    spec = _visible_tree(fig.to_plotly_json())
    layout = spec.get("layout", {})
    width, height = layout.get("width") or WIDTH, layout.get("height") or 450
    data, lay, config = _json(spec.get("data", [])), _json(layout), json.dumps(CONFIG)
    return (
        f'<div id="{div_id}" class="plotly-graph-div" style="width:{width}px;height:{height}px">'
        f"</div><script>Plotly.newPlot({json.dumps(div_id)}, {data}, {lay}, {config});</script>"
    )


def figure_html(r: ReportFigure, div_id: str) -> str:
    """A report figure with its caption (how to read it)."""
    return f"<figure>{figure_div(r.fig, div_id)}<figcaption>{text(r.reading)}</figcaption></figure>"


@cache
def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def page(title: str, body: str) -> str:
    """One HTML document: ``title``, the report's CSS, plotly.js once (when ``body`` holds a
    figure of :func:`figure_div`) and ``body``."""
    script = f"<script>{_plotly_js()}</script>" if "Plotly.newPlot(" in body else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{text(title)}</title><style>{CSS}</style>{script}</head>
<body>
{body}</body></html>
"""


CSS = """
body { font-family: "Source Sans Pro", Arial, Helvetica, sans-serif; color: #222; margin: 2em auto;
       max-width: 820px; padding: 0 1em; line-height: 1.45; }
h1 { font-size: 1.7em; margin-bottom: 0.1em; overflow-wrap: anywhere; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
.sub { color: #555; margin-top: 0; }
.answer { font-size: 1.12em; border-left: 4px solid #1f77b4; padding: 0.2em 0 0.2em 0.8em; }
.answer p { margin: 0.35em 0; }
.answer p:first-child { font-weight: 600; }
.answer p + p { font-size: 0.92em; color: #444; }
.page1 h2 { margin-top: 0.6em; }
.page1 { break-after: page; page-break-after: always; }
ul.findings li { margin-bottom: 0.45em; }
figure { margin: 1.2em 0; break-inside: avoid; page-break-inside: avoid; }
figure .plotly-graph-div { margin: 0 auto; }
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
@media print { body { margin: 0; max-width: none; padding: 0; } h2 { break-after: avoid; }
               figure .plotly-graph-div { zoom: PRINT_ZOOM; } .modebar { display: none; } }
"""
CSS = CSS.replace("PRINT_ZOOM", f"{PRINT_WIDTH / WIDTH:.3f}")


def _model_name(name: str, *, whole: int = 0) -> str:
    """A model name as HTML that wraps only after a "/" or before an "@" (never at a hyphen
    mid-name: "meta-llama/" over "Llama-3.2-1B", not "meta-llama/Llama-3.2-" over "1B"); a
    name of at most ``whole`` characters does not wrap."""
    cuts = [name] if len(name) <= whole else re.split(r"(?<=/)|(?=@)", name)
    parts = (text(p) for p in cuts if p)
    return "<wbr>".join(f"<span class=nw>{p}</span>" for p in parts)


def _table(
    frame: pd.DataFrame, cls: Sequence[str] | None = None, *, model_heads: bool = False
) -> str:
    """A frame as HTML (``cls``: a class per column, ``num`` right-aligned, ``note``
    highlighted, ``model`` a model's name (:func:`_model_name`); default: the leaderboard's).
    ``model_heads``: the ``num`` columns are headed by model names."""
    e = text
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


def _group_tables(
    d: Details | None, f: Findings, scale: float, unit: str
) -> dict[str, tuple[pd.DataFrame, str, str]]:
    """The per-category and per-task tables (``group_frame``) at the report's level, with their
    titles and the sentence that says what they show; a key only where there are rows."""
    if d is None:
        return {}
    order = list(f.table["model"])
    pct = f"{100 * f.level:g}%"
    what = (
        f"Each cell: {unit} with its {pct} interval ({min(TOP_COLUMNS, len(order))} best models "
        "overall; the app and the CSV list all); “best here”: the best model in that row."
    )
    out = {}
    for key, title, frame, label in (
        ("categories", "Per category", d.categories, "category"),
        ("tasks", "Per task", d.tasks, "task"),
    ):
        if not frame.empty:
            out[key] = (group_frame(frame, order, scale, label), title, what)
    return out


def _group_html(g: pd.DataFrame, title: str, what: str) -> str:
    cls = ["label", "model", *["num"] * (len(g.columns) - 2)]
    return f"<h2>{title}</h2><p class=what>{text(what)}</p>{_table(g, cls, model_heads=True)}"


def _runs_html(d: Details | None) -> str:
    if d is None:
        return ""
    if d.runs.empty:
        return f"<h2>Run details</h2><p class=what>{NO_RUN_DETAILS}</p>"
    return (
        "<h2>Run details</h2><p class=what>What the result files say about how they were "
        "made (dates from the file names).</p>" + _table(d.runs, ["", "num", "num", "", "", "", ""])
    )


def _methods(f: Findings, prov: Provenance) -> str:
    pct, cmp = f"{100 * f.level:g}%", f"{100 * f.comparison_level:g}%"
    test = f"{100 * overlap_test_level(f.level):.0f}%"
    items = [
        f"Uncertainty: {prov.plain_method} (technically: {prov.method}); {prov.reps} "
        "replicates: resampled or simulated copies of every model's score on every task "
        "(the app's Replicates); every number in this report is a summary of them.",
        f"Scores and their intervals: {pct} percentile intervals of the replicates. Two such "
        f"intervals that do not overlap are about a {test} test of one pair (Goldstein and "
        "Healy 1995), which is why page 1 draws them at this level.",
        f"“≈ leader”, “told apart” and the gap chart: the leader's lead over each model, taken "
        f"inside every replicate, has a {test} interval that includes 0; one model at a time.",
        f"Pairwise differences and rank sets: {cmp} for all pairs (or all models) together "
        "(simultaneous intervals by the max-T method), so no pair is singled out by chance.",
        "The methods and their references: docs/METHODS.md in the benchuq repository.",
    ]
    return "".join(f"<li>{text(s)}</li>" for s in items)


def two_runs_html(
    result: DiffResult, fig: go.Figure, *, scale: float, div_id: str = "fig-runs"
) -> str:
    """The report's "Two runs" section: the verdicts in words, the chart of differences with
    the margin, and the paired counts with the standard errors side by side (METHODS 13)."""
    e = text
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
    kind = "confidence sequences" if result.sequential else "intervals"
    return f"""<h2>Two runs: {e(result.candidate)} vs base {e(result.base)}</h2>
<ul class=findings>{verdicts}</ul>
<p>{e(result.note())}</p>
<figure>{figure_div(fig, div_id)}<figcaption>Each bar is candidate − base on the items
both runs scored ({100 * result.level:g}% {kind}); left of 0 is a regression; the shaded
band is the margin.</figcaption></figure>
<table><tr>{head}</tr>{body}</table>
"""


#: The printable height of an A4 page with the report's margins, in CSS pixels; figures print
#: at :data:`PRINT_ZOOM` of their size.
PRINT_HEIGHT = (297 - 2 * 14) / 25.4 * 96
PRINT_ZOOM = round(PRINT_WIDTH / WIDTH, 3)
#: Pixels of page 1 left free: its blocks' heights below are estimates (a block that ran past
#: the page would push the chart to page 2 and leave page 1 half blank).
SLACK = 40
#: Page 1's chart may draw a model's row this many pixels high (its usual height:
#: ``SCORES_ROW``) to leave room for a table, and shows at least :data:`MIN_ROWS` models (more
#: models than fit: the top ones, and the chart of all models follows with the other figures).
MIN_ROW = 14
MIN_ROWS = 12
#: At most this many times a row's height per model when page 1's chart is stretched to fill.
MAX_STRETCH = 9
#: A per-group table starts on page 1 only with at least this many rows there (the rest of it
#: follows the leaderboard, "continued").
FEW_ROWS = 4


def _height(text: str, chars: float, line: float) -> float:
    """Estimated printed height of ``text`` wrapped at ``chars`` characters a line."""
    return line * max(1, math.ceil(len(text) / chars))


def _table_height(frame: pd.DataFrame, what: str) -> float:
    """Estimated printed height of a per-group section of :func:`_groups_html` (heading,
    explanation, header of model names, one row per group; 13.8 px type)."""
    heads = [len(str(c)) for c in frame.columns[2:]] or [1]
    head = 20 * max(math.ceil(h / 18) for h in heads) + 6
    rows = sum(
        20 * max(1, math.ceil(len(str(r[0])) / 20), math.ceil(len(str(r[1])) / 18)) + 7
        for r in frame.itertuples(index=False)
    )
    return 63 + _height(what, 88, 21.3) + 16 + head + rows


def figure_pages(figs: Sequence[ReportFigure]) -> list[ReportFigure]:
    """The figures after page 1, sized to fill whole pages: one that fits in half a page at
    most half again its own height gets exactly half a page, every other one a whole
    page; the whole-page ones first, then the halves in pairs (so no page is left half blank
    before a figure that does not fit; an odd last half is followed by the text)."""
    halves: list[ReportFigure] = []
    wholes: list[ReportFigure] = []
    for r in figs:
        caption = _height(r.reading, 88, 21.3) + 2 * 19.2 + 16  # margins and a spare line
        half = (PRINT_HEIGHT / 2 - caption - 8) / PRINT_ZOOM
        whole = (PRINT_HEIGHT - caption - 8) / PRINT_ZOOM
        natural = float(r.fig.layout.height or 450)
        small = natural <= 1.5 * half
        fig = go.Figure(r.fig).update_layout(height=math.floor(half if small else whole))
        (halves if small else wholes).append(ReportFigure(fig, r.reading))
    return wholes + halves


@dataclass(frozen=True)
class PageOne:
    """What page 1 holds besides the title and the answer: the chart (its ``fig`` sized to fill
    the page) and the per-group tables that fit (``tables``: ``("categories", rows shown)``,
    then ``("tasks", rows)``; a table's other rows follow the leaderboard)."""

    chart: ReportFigure
    tables: tuple[tuple[str, int], ...]
    whole: bool  # the chart shows every model (else the top ones: the whole one follows)


def page_one(
    f: Findings,
    prov: Provenance,
    chart: ReportFigure,
    *,
    head: Sequence[str],
    groups: dict[str, tuple[pd.DataFrame, str, str]],
    options: FigureOptions | None,
) -> PageOne:
    """Page 1's chart and tables: the per-category table (then the per-task one) when it fits
    beside a chart of at least :data:`MIN_ROWS` models (or half the page), or its first rows
    (at least :data:`FEW_ROWS`); the chart then fills what is left (at most
    :data:`MAX_STRETCH` row heights a model), showing the top models that fit.
    ``head``: the texts above the chart (title, subtitle, answer; estimated by length)."""
    title, sub, *answer = head
    used = _height(title, 44, 39.4) + 21 + _height(sub, 80, 23.2) + 16
    said = [a for a in answer if a.strip()]
    used += (
        sum(
            _height(a, 70 if k == 0 else 82, 26 if k == 0 else 23.5) + 13
            for k, a in enumerate(said)
        )
        + 16
    )
    used += 2 * 19.2 + _height(chart.reading, 88, 21.3)  # the figure's margins and caption
    room = PRINT_HEIGHT - SLACK - used
    n = len(f.table)
    frame = float(chart.fig.layout.height or 450) - SCORES_ROW * max(n, 2)
    need = (frame + MIN_ROW * max(min(n, MIN_ROWS), 2)) * PRINT_ZOOM
    comfortable = (frame + SCORES_ROW * max(n, 2)) * PRINT_ZOOM
    free = room - max(need, min(comfortable, room / 2))  # for tables
    tables: list[tuple[str, int]] = []
    for key in ("categories", "tasks"):
        if key not in groups or (key == "tasks" and "categories" in groups and not tables):
            continue
        g, _, what = groups[key]
        shown = len(g)
        while shown >= FEW_ROWS and _table_height(g.head(shown), what) > free:
            shown -= 1
        if shown < min(FEW_ROWS, len(g)) or _table_height(g.head(shown), what) > free:
            break
        tables.append((key, shown))
        free -= _table_height(g.head(shown), what)
        room -= _table_height(g.head(shown), what)
        if shown < len(g):
            break
    height = room / PRINT_ZOOM
    rows = min(n, int((height - frame) // MIN_ROW))
    if rows < n and options is not None:
        # the top ones' chart has its own frame (its longer title may wrap): fit it again
        for _ in range(3):
            chart = scores_figure(f, options, prov, top=max(rows, 1))
            frame = float(chart.fig.layout.height or 450) - SCORES_ROW * max(rows, 2)
            fits = min(n, int((height - frame) // MIN_ROW))
            if fits >= rows:
                break
            rows = fits
        else:
            chart = scores_figure(f, options, prov, top=max(rows, 1))
    height = min(height, frame + MAX_STRETCH * SCORES_ROW * max(rows, 2))
    fig = go.Figure(chart.fig).update_layout(height=round(height))
    fig.update_yaxes(dtick=1)  # every model's name, also when its row is narrow (plotly skips)
    return PageOne(ReportFigure(fig, chart.reading), tuple(tables), rows >= n or options is None)


def to_html(
    f: Findings,
    prov: Provenance,
    figs: list[ReportFigure],
    *,
    scale: float,
    unit: str,
    details: Details | None = None,
    description: str = "",
    two_runs: tuple[DiffResult, go.Figure] | None = None,
    options: FigureOptions | None = None,
) -> str:
    """The report as one self-contained HTML document (figures: :func:`figure_div`, plotly.js
    once in the head; the same inputs give the same bytes).

    Page 1 states one level (the report's): the data set's name and shape, the aggregate behind
    the score, the method and the level; the answer (``Findings.answer``: who leads and how
    sure, and why "told apart" is a test at another level); one chart, every model's score at
    that level (``figs[0]``), sized to fill the page (:func:`page_one`); and the per-category
    table (and the per-task one) when it fits. The findings, the leaderboard, the other
    per-group tables, the other figures, ``two_runs`` (a comparison of two runs and its chart),
    run details, caveats, methods and how to reproduce the numbers follow. ``options``: the
    figures' options, to draw page 1's chart of the top models when all do not fit (without them
    it shows all)."""
    e = text
    runs = "" if two_runs is None else two_runs_html(*two_runs, scale=scale)
    pct, cmp = f"{100 * f.level:g}%", f"{100 * f.comparison_level:g}%"
    answer_lines = f.answer or f.headline[:2]
    answer = "".join(f"<p>{e(s)}</p>" for s in answer_lines)
    rest = [s for s in f.headline if s not in f.answer and s not in f.covered]
    findings = "".join(f"<li>{e(s)}</li>" for s in rest)
    caveats = "".join(f"<li>{e(s)}</li>" for s in f.caveats)

    title = f"{prov.data} — {prov.shape}" if prov.shape else prov.data
    sub = (
        f"Benchmark report · Score = {f.label} · {prov.plain_method}, {prov.reps} replicates"
        f" · scores with {pct} intervals · benchuq {prov.version}"
    )
    groups = _group_tables(details, f, scale, unit)
    first = ""
    later = list(figs[1:])
    on_page_one: dict[str, int] = {}
    if figs:
        one = page_one(
            f, prov, figs[0], head=[title, sub, description, *answer_lines], groups=groups,
            options=options,
        )  # fmt: skip
        first = figure_html(one.chart, "fig-1")
        on_page_one = dict(one.tables)
        if not one.whole:
            later.insert(1, figs[0])
    tables_one = "".join(
        _group_html(groups[k][0].head(shown), *groups[k][1:]) for k, shown in on_page_one.items()
    )
    tables_rest = "".join(
        _group_html(
            g.iloc[on_page_one.get(k, 0) :], title + " (continued)" * (k in on_page_one), what
        )
        for k, (g, title, what) in groups.items()
        if on_page_one.get(k, 0) < len(g)
    )
    placed = figure_pages(later)
    fig_html = "".join(figure_html(r, f"fig-{k}") for k, r in enumerate(placed, start=2))
    repro = [
        ("Data", f"{prov.data} ({prov.shape})" if prov.shape else prov.data),
        ("Data hash", f"sha256 {prov.data_hash}"),
        ("Method", prov.method),
        ("Simulations", str(prov.reps)),
        ("Seed", "none" if prov.seed is None else str(prov.seed)),
        ("Level", f"{pct} (scores), {cmp} (comparisons, rank sets)"),
        ("benchuq", prov.version),
        ("Share link", prov.query),
        ("Command", prov.command),
    ]
    dl = "".join(f"<dt>{e(k)}</dt><dd><code>{e(v)}</code></dd>" for k, v in repro)
    about = f"<p>{e(description)}</p>" if description.strip() else ""
    body = f"""<div class=page1>
<h1>{e(title)}</h1>
<p class=sub>{e(sub)}</p>
{about}
<div class=answer>{answer}</div>
{first}
{tables_one}
</div><!-- /page1 -->
{fig_html}
{runs}<h2>Findings</h2>
<ul class=findings>{findings}</ul>
<h2>Leaderboard</h2>
<p>Score: {e(f.label)}; shown as {e(unit)}. “≈ leader”: the data cannot tell the
model apart from the leader; “top in”: how often the model comes out on top in the replicates;
“rank”: the ranks the model could truly hold; “note”: what to keep in mind when reading that
row.</p>
{_table(table_frame(f, scale, unit))}
{tables_rest}
{_runs_html(details)}
<h2>Caveats</h2>
<ul>{caveats}</ul>
<h2>Methods</h2>
<ul>{_methods(f, prov)}</ul>
<h2>Reproduce these numbers</h2>
<dl class=repro>{dl}</dl>
"""
    return page(f"benchuq report: {prov.data}", body)

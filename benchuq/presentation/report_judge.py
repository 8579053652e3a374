"""The report's section for judge scores (METHODS 15), pure: the corrected estimates beside the
judge's own and the labels' alone, the agreement and the labels needed, as one self-contained HTML
document (the layout of ``presentation.report``), plus the tables the Judge page shows."""

from __future__ import annotations

import pandas as pd

from benchuq.core.analyses.judge import JudgeResult
from benchuq.core.small_samples import FEW_ITEMS
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.judge import (
    judge_agreement_figure,
    judge_estimates_figure,
    labels_curve_figure,
)
from benchuq.presentation.report.layout import WIDTH, ReportFigure
from benchuq.presentation.report.render import page, text
from benchuq.presentation.report_arena import closing_sections

__all__ = [
    "METHOD_LABELS",
    "agreement_table",
    "caption",
    "column_help",
    "estimates_table",
    "judge_figures",
    "judge_html",
    "planning_sentence",
    "table_formats",
]

METHOD_LABELS = {
    "ppi++": "PPI++ (judge + labels, power-tuned)",
    "rogan-gladen": "Rogan-Gladen (binary, calibration set)",
    "classical": "Human labels alone",
}


#: the estimates table's shares, as the chart shows them (percent): core row key -> column
ESTIMATE_SHARES = {
    "estimate": "corrected (%)",
    "low": "low (%)",
    "high": "high (%)",
    "judge_mean": "judge alone (%)",
    "human_mean": "labels alone (%)",
}
#: the agreement table's shares (percent); kappa and alpha stay coefficients (-1 to 1)
AGREEMENT_SHARES = ("agreement", "decisive", "sensitivity", "specificity")
#: what each column is (the app's column tooltips, the report's header titles)
COLUMN_HELP = {
    "corrected (%)": "The judge's scores corrected with the human labels (the chosen method).",
    "low (%)": "Lower end of the corrected score's interval, at the stated level.",
    "high (%)": "Upper end of the corrected score's interval, at the stated level.",
    "judge alone (%)": "The judge's mean, as if the judge were right (uncorrected).",
    "labels alone (%)": "The mean of the human labels only.",
    "labels": "Items with a human label.",
    "unlabelled": "Items with a judge score only.",
    "judge weight": "How far the correction leans on the judge (lambda): 0 is the labels "
    "alone, 1 the full prediction-powered estimate; PPI++ picks it for the narrowest interval.",
    "worth labels": "Human labels alone that would give the same precision (effective number "
    "of labels).",
    "agreement (%)": "Labelled items where the judge's score equals the label.",
    "agreement without ties (%)": "Agreement on the items where both gave 0 or 1 (neither "
    "said tie).",
    "kappa": "Cohen's kappa: agreement beyond chance (0 is chance, 1 the people's labels exactly).",
    "alpha": "Krippendorff's alpha: agreement beyond chance on the scores' scale.",
    "sensitivity (%)": "Of the items people scored 1, the share the judge scored 1.",
    "specificity (%)": "Of the items people scored 0, the share the judge scored 0.",
}


def estimates_table(result: JudgeResult) -> pd.DataFrame:
    """One row per model (and overall): the corrected score with its interval, the judge's own
    mean and the labels' mean beside it (percent, as the chart), the judge's weight and the
    effective number of labels."""
    rows = pd.DataFrame(result.rows())
    table = rows[["model", "task", *ESTIMATE_SHARES, "n_labelled", "n_unlabelled", "lambda",
                  "effective_n"]]  # fmt: skip
    table = table.assign(**{k: 100 * table[k] for k in ESTIMATE_SHARES})
    return table.rename(columns={**ESTIMATE_SHARES, "n_labelled": "labels",
                                 "n_unlabelled": "unlabelled", "lambda": "judge weight",
                                 "effective_n": "worth labels"})  # fmt: skip


def agreement_table(result: JudgeResult) -> pd.DataFrame:
    """The agreement per model with intervals: shares in percent, kappa and alpha as
    coefficients."""
    t = result.agreement_table()
    shares = [f"{k}{end}" for k in AGREEMENT_SHARES for end in ("", "_low", "_high")]
    t = t.assign(**{k: 100 * t[k] for k in shares if k in t})

    def name(column: str) -> str:
        base, _, end = column.partition("_")
        base = "agreement without ties" if base == "decisive" else base
        label = f"{base} {end}" if end else base
        return f"{label} (%)" if base.split()[0] in AGREEMENT_SHARES else label

    intervals = [f"{k}{end}" for k in ("kappa", "alpha", "sensitivity", "specificity")
                 for end in ("", "_low", "_high")]  # fmt: skip
    columns = ["model", "task", "n", "agreement", "decisive", *intervals]
    return t[columns].rename(columns={"n": "labels", **{c: name(c) for c in columns[3:]}})


def table_formats(table: pd.DataFrame) -> dict[str, str]:
    """printf formats of a judge table's number columns: percent with one decimal, labels worth
    as a whole number, coefficients and weights with two decimals."""
    return {
        c: "%.1f" if c.endswith("(%)") else "%.0f" if c == "worth labels" else "%.2f"
        for c in table.columns
        if pd.api.types.is_float_dtype(table[c])
    }


def column_help(table: pd.DataFrame) -> dict[str, str]:
    """Each column's tooltip (an interval's ends share their estimate's)."""
    out = {}
    for c in map(str, table.columns):
        base = c.replace(" low", "").replace(" high", "")
        if c in COLUMN_HELP or base in COLUMN_HELP:
            end = f"Interval end of {base.removesuffix(' (%)')} at the stated level."
            out[c] = COLUMN_HELP.get(c, end)
    return out


def caption(result: JudgeResult) -> str:
    """What the numbers are: data, method, level, labels."""
    o = result.overall.chosen
    return (
        f"{result.name}: {o.n_labelled + o.n_unlabelled:,} judged items, {o.n_labelled:,} with a "
        f"human label ({result.human_column}); judge scores from '{result.judge_column}'. "
        f"{METHOD_LABELS[result.method]}, {100 * result.level:g}% intervals [METHODS 15]."
    )


def planning_sentence(result: JudgeResult) -> str:
    """How many labels the target half-width needs overall, with the judge and without."""
    plan = result.planning_table().iloc[-1]
    t = f"± {100 * result.target:g} points"
    items = int(plan["n_items"])

    def words(x: object) -> str:
        if x is None or x != x:
            return f"more labels than the {items:,} judged items"
        return f"{int(x):,} labels"  # type: ignore[call-overload]

    n = int(plan["n_labelled"])
    now = (
        f"the {n:,} labels now are worth {plan['effective_n']:,.0f} labels alone"
        if n >= FEW_ITEMS
        else f"with {n:,} labels now (fewer than {FEW_ITEMS}) the interval is the labels' own "
        "(METHODS 15g)"
    )
    return (
        f"For {t} overall: {words(plan['labels_ppi'])} with the judge (PPI++), "
        f"{words(plan['labels_classical'])} with labels alone; {now}."
    )


def judge_figures(result: JudgeResult) -> list[ReportFigure]:
    """The estimates side by side, the agreement, the labels-needed curve, each with how to read
    it."""
    pct = f"{100 * result.level:g}%"

    def opts(title: str) -> FigureOptions:
        return FigureOptions({}, 100.0, "score (%)", f"{result.name}: {title}")

    out = [
        ReportFigure(
            judge_estimates_figure(result, opts(f"estimates with {pct} intervals")),
            "Red: the judge's own mean, as if it were right; grey: the human labels alone; "
            "blue (and purple): corrected with both. A red dot far from the others is the "
            "judge's bias.",
        ),
        ReportFigure(
            judge_agreement_figure(result, opts("agreement with the people")),
            "Chance-corrected agreement per model: 0 is chance, 1 the people's labels exactly.",
        ),
        ReportFigure(
            labels_curve_figure(
                result, FigureOptions({}, 100.0, "points", f"{result.name}: labels needed")
            ),
            "The interval's half-width against the number of human labels: with the judge "
            "(PPI++) and with labels alone; the dashed line is the target.",
        ),
    ]
    for r in out:
        r.fig.update_layout(width=WIDTH)
    return out


#: the report's interval cells: an estimate's column -> its ends' columns (one cell
#: ``value [low–high]``: 17 columns of the agreement did not fit a printed page)
REPORT_INTERVALS = {
    "corrected (%)": ("low (%)", "high (%)"),
    **{k: (f"{k} low", f"{k} high") for k in ("kappa", "alpha")},
    **{f"{k} (%)": (f"{k} low (%)", f"{k} high (%)") for k in ("sensitivity", "specificity")},
}


def _table_html(table: pd.DataFrame) -> str:
    """A judge table for the report: numbers in :func:`table_formats`, each estimate with its
    interval in one cell (:data:`REPORT_INTERVALS`), each header titled with its help."""
    e = text
    formats, helps = table_formats(table), column_help(table)
    ends = {c: REPORT_INTERVALS[c] for c in map(str, table.columns) if c in REPORT_INTERVALS}
    shown = [c for c in map(str, table.columns) if not any(c in pair for pair in ends.values())]

    def number(column: str, v: object) -> str:
        if v is None or (isinstance(v, float) and v != v):
            return ""
        return formats[column] % v if column in formats else e(str(v))

    def cell(column: str, row: dict) -> str:
        value = number(column, row[column])
        if column in ends and value:
            low, high = (number(k, row[k]) for k in ends[column])
            value += f" [{low}–{high}]"
        return f"<td class=num>{value}</td>" if column in formats else f"<td>{value}</td>"

    def header(column: str) -> str:
        name = f"{column} [interval]" if column in ends else column
        return (
            f'<th title="{e(helps[column])}">{e(name)}</th>'
            if column in helps
            else f"<th>{e(name)}</th>"
        )

    rows = table.to_dict(orient="records")
    head = "".join(header(c) for c in shown)
    body = "".join("<tr>" + "".join(cell(c, r) for c in shown) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _one_task(result: JudgeResult, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` without its task column when the data hold one task (the headings name it)."""
    return table.drop(columns="task") if len(result.tasks) == 1 else table


def judge_html(result: JudgeResult, *, command: str, version: str) -> str:
    """The judge report as one HTML document (``report.render``: figures drawn by plotly.js,
    inline once)."""
    e = text
    scope = f" (task {e(result.tasks[0])})" if len(result.tasks) == 1 else ""
    body = f"""<h1>Judge report: {e(result.name)}</h1>
<p class=sub>{e(caption(result))}</p>
<h2>Findings</h2>
<ul class=findings><li>{e(result.sentence())}</li><li>{e(planning_sentence(result))}</li></ul>
<h2>Estimates{scope}</h2>
{_table_html(_one_task(result, estimates_table(result)))}
<h2>Agreement with the people{scope}</h2>
{_table_html(_one_task(result, agreement_table(result)))}
{closing_sections(judge_figures(result), result.notes, command=command, version=version)}"""
    return page(f"benchuq judge report: {result.name}", body)

"""The report's section for judge scores (METHODS 15), pure: the corrected estimates beside the
judge's own and the labels' alone, the agreement and the labels needed, as one self-contained HTML
document (the layout of ``presentation.report``), plus the tables the Judge page shows."""

from __future__ import annotations

import pandas as pd

from benchuq.core.analyses.judge import JudgeResult
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
    "estimates_table",
    "judge_figures",
    "judge_html",
    "planning_sentence",
]

METHOD_LABELS = {
    "ppi++": "PPI++ (judge + labels, power-tuned)",
    "rogan-gladen": "Rogan-Gladen (binary, calibration set)",
    "classical": "Human labels alone",
}


def estimates_table(result: JudgeResult) -> pd.DataFrame:
    """One row per model (and overall): the corrected estimate with its interval, the judge's
    own mean and the labels' mean beside it, lambda and the effective number of labels."""
    rows = pd.DataFrame(result.rows())
    return rows[
        ["model", "task", "estimate", "low", "high", "judge_mean", "human_mean", "n_labelled",
         "n_unlabelled", "lambda", "effective_n"]
    ].rename(columns={"judge_mean": "judge alone", "human_mean": "labels alone",
                      "n_labelled": "labels", "n_unlabelled": "unlabelled",
                      "effective_n": "worth labels"})  # fmt: skip


def agreement_table(result: JudgeResult) -> pd.DataFrame:
    """The agreement per model with intervals (readable columns)."""
    t = result.agreement_table()
    return t[
        ["model", "task", "n", "agreement", "decisive", "kappa", "kappa_low", "kappa_high",
         "alpha", "alpha_low", "alpha_high", "sensitivity", "sensitivity_low",
         "sensitivity_high", "specificity", "specificity_low", "specificity_high"]
    ].rename(columns={"n": "labels", "decisive": "agreement without ties"})  # fmt: skip


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

    def words(x: object) -> str:
        return "more than the judged items" if x is None or x != x else f"{int(x):,}"  # type: ignore[call-overload]

    return (
        f"For {t} overall: {words(plan['labels_ppi'])} labels with the judge (PPI++), "
        f"{words(plan['labels_classical'])} with labels alone; the {int(plan['n_labelled']):,} "
        f"labels now are worth {plan['effective_n']:,.0f} labels alone."
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


def _table_html(table: pd.DataFrame) -> str:
    e = text
    head = "".join(f"<th>{e(str(c))}</th>" for c in table.columns)
    body = "".join(
        "<tr>"
        + "".join(
            "<td></td>"
            if v is None or (isinstance(v, float) and v != v)
            else f"<td class=num>{v:.3f}</td>"
            if isinstance(v, float)
            else f"<td>{e(str(v))}</td>"
            for v in row
        )
        + "</tr>"
        for row in table.itertuples(index=False)
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def judge_html(result: JudgeResult, *, command: str, version: str) -> str:
    """The judge report as one HTML document (``report.render``: figures drawn by plotly.js,
    inline once)."""
    e = text
    body = f"""<h1>Judge report: {e(result.name)}</h1>
<p class=sub>{e(caption(result))}</p>
<h2>Findings</h2>
<ul class=findings><li>{e(result.sentence())}</li><li>{e(planning_sentence(result))}</li></ul>
<h2>Estimates</h2>
{_table_html(estimates_table(result))}
<h2>Agreement with the people</h2>
{_table_html(agreement_table(result))}
{closing_sections(judge_figures(result), result.notes, command=command, version=version)}"""
    return page(f"benchuq judge report: {result.name}", body)

"""Judge (METHODS 15): LLM-judge scores corrected with human labels, agreement, labels needed."""

from typing import Any

import pandas as pd
import streamlit as st

import benchuq
from benchuq.dashboard import cache, controls, plain
from benchuq.dashboard.context import current, guard
from benchuq.dashboard.export import chart_with_download, download_csv, pdf_download
from benchuq.dashboard.judge import cached
from benchuq.dashboard.judge import view as vj
from benchuq.dashboard.words import say
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.judge import (
    judge_agreement_figure,
    judge_estimates_figure,
    labels_curve_figure,
)
from benchuq.presentation.report_judge import column_help, judge_html, table_formats
from benchuq.presentation.text import md_escape


def _columns(table: pd.DataFrame) -> dict[str, Any]:
    """The table's number formats (percent as the chart) and each column's tooltip."""
    formats, helps = table_formats(table), column_help(table)
    return {
        c: st.column_config.NumberColumn(format=formats[c], help=helps.get(c))
        if c in formats
        else st.column_config.Column(help=helps.get(c))
        for c in table.columns
    }


ctx = current()
st.title("Judge")
plain.intro("judge")
st.caption(
    "Scores from an LLM judge, corrected with a few human labels: PPI++ (any scores in [0, 1]) "
    "or Rogan–Gladen (binary), beside the judge's own mean and the labels' mean alone, with the "
    "judge's agreement with the people and the labels a narrower interval needs [METHODS 15]."
)
with guard("The judge analysis"):
    with st.expander("Your judge scores (an item table, or item-level results and labels)"):
        st.caption(
            "An item table with columns model, task, item, judge, human (human empty where no "
            "one labelled the item); or item-level results (inspect logs with a model-graded "
            "scorer, lm-eval samples, EEE instance files) plus a labels file item[, model][, "
            "task], human. Uploads stay in this session; links carry the sample only."
        )
        up1, up2 = st.columns(2)
        uploads = up1.file_uploader("Judge scores", accept_multiple_files=True, key="judge_files")
        label_up = up2.file_uploader("Labels (optional)", key="judge_labels")
        c1, c2 = st.columns(2)
        jcol = c1.text_input("Judge score column", "judge", key="judge_col")
        hcol = c2.text_input("Human label column", "human", key="judge_human_col")
    files = tuple((f.name, f.getvalue()) for f in uploads or ())
    labels = (label_up.name, label_up.getvalue()) if label_up is not None else None
    key = cache.files_digest((*files, *([labels] if labels else []))) if files else vj.JUDGE_SAMPLE
    if not files:
        st.info(
            f"Showing the bundled sample ({vj.JUDGE_SAMPLE}): MT-Bench answer pairs judged by "
            "GPT-4, human labels kept on a random 20% (1 a win, 0.5 a tie, 0 a loss). Upload "
            "your own above."
        )
    data = cached.judge_data(key, jcol, hcol, files, labels)
    choices = (vj.OVERALL, *data.models)
    link = controls.bind(vj.JudgeSettings, choices={"curve": ("", *choices)})
    c1, c2, c3 = st.columns(3)
    c1.radio(
        "Estimator", vj.METHOD_LABELS, format_func=vj.METHOD_LABELS.get, key="judge_method",
        help="PPI++: the judge's scores on every item, debiased by the labelled items (never "
        "worse than the labels alone). Rogan–Gladen: corrects the judge's pass rate by its "
        "sensitivity and specificity (binary scores). Labels alone: ignore the judge.",
    )  # fmt: skip
    controls.ranged(
        c2.number_input, vj.JudgeSettings, "judge_target", "Target half-width (points)",
        step=0.5, format="%.1f",
        help="The planning's goal: how many labels an interval of ± this many points needs.",
    )  # fmt: skip
    c3.selectbox(
        "Labels-needed curve for", ("", *data.models), key="judge_curve",
        format_func=lambda m: m or "overall",
    )  # fmt: skip
    s = link.read()
    result = cached.judge_summary(
        data.content_hash(), s.method, ctx.level, s.target, int(ctx.settings.seed), data
    )
    st.caption(md_escape(vj.caption(result)))
    st.markdown(f"**{md_escape(result.sentence())}**")
    st.markdown(md_escape(vj.planning_sentence(result)))
    command = vj.command(key, s, result.level)

    def html() -> bytes:
        """The judge report (METHODS 15) as one HTML file."""
        return judge_html(result, command=command, version=benchuq.__version__).encode()

    left, right, _ = st.columns([2, 2, 3])
    left.download_button(
        "Download report (HTML)", html, file_name=f"judge_report_{data.name}.html",
        mime="text/html", on_click="ignore", icon=":material/download:", key="judge_html",
    )  # fmt: skip
    pdf_download(right, html, f"judge_report_{data.name}.pdf", "judge_pdf")
    pct = f"{100 * result.level:g}%"
    opts = FigureOptions({}, 100.0, "score (%)", f"Estimates with and without correction ({pct})")
    chart_with_download(
        judge_estimates_figure(result, opts), "judge_chart_estimates", "judge_estimates"
    )
    table = vj.estimates_table(result)
    st.dataframe(table, hide_index=True, column_config=_columns(table))
    download_csv(table, f"judge_{data.name}", "Download estimates (CSV)")
    left, right = st.columns(2)
    with left:
        opts = FigureOptions({}, 100.0, "score (%)", "Agreement with the people")
        chart_with_download(
            judge_agreement_figure(result, opts), "judge_chart_agreement", "judge_agreement"
        )
    with right:
        who = s.curve or vj.OVERALL
        opts = FigureOptions({}, 100.0, "points", f"Labels needed ({who})")
        task = vj.OVERALL if who == vj.OVERALL else result.tasks[0]
        chart_with_download(
            labels_curve_figure(result, opts, model=who, task=task),
            "judge_chart_curve",
            "judge_curve",
        )
    agree = vj.agreement_table(result)
    st.dataframe(agree, hide_index=True, column_config=_columns(agree))
    download_csv(agree, f"judge_agreement_{data.name}", "Download agreement (CSV)")
    st.code(command, language="bash")
    for note in result.notes:
        st.caption(say(note))

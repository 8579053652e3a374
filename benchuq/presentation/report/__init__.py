"""The one-click report: findings, figures, caveats and provenance as one self-contained HTML file,
and that file printed to PDF by chromium (pure; no streamlit).

The report model is :func:`core.findings.findings`; ``layout`` lays it out (provenance, the titled
figures, the tables, :class:`Report`) and ``render`` writes the HTML (interactive plotly figures,
plotly.js inline once: no network, no browser needed to write it). The PDF is that HTML printed
by chromium (``presentation.chromium.to_pdf``), the one part that needs a browser. The CLI
(``benchuq report``), the Report page and ``bq.report`` share this one document builder.
"""

from __future__ import annotations

from benchuq.presentation.chromium import ChromiumError, ChromiumMissing, to_pdf
from benchuq.presentation.chromium import require as require_chromium
from benchuq.presentation.report.layout import (
    NO_RUN_DETAILS,
    Details,
    Provenance,
    Report,
    ReportFigure,
    bayes_flags,
    build,
    command,
    details,
    display_unit,
    figures,
    group_frame,
    provenance,
    run_details,
    table_frame,
)
from benchuq.presentation.report.render import CSS, page, to_html, two_runs_html
from benchuq.presentation.report_link import NOT_SHARED

__all__ = [
    "CSS",
    "NOT_SHARED",
    "NO_RUN_DETAILS",
    "ChromiumError",
    "ChromiumMissing",
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
    "page",
    "provenance",
    "require_chromium",
    "run_details",
    "table_frame",
    "to_html",
    "to_pdf",
    "two_runs_html",
]

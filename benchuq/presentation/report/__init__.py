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
from benchuq.presentation.report import layout
from benchuq.presentation.report.layout import *  # noqa: F403 - the layout's public names, as they are
from benchuq.presentation.report.render import CSS, page, to_html, two_runs_html
from benchuq.presentation.report_link import NOT_SHARED

#: The layout's names come from its own ``__all__`` (one list: a name the layout adds is re-exported
#: here without a second edit); then the renderer's, the browser's and the link's.
__all__ = [
    "CSS",
    "NOT_SHARED",
    "ChromiumError",
    "ChromiumMissing",
    "page",
    "require_chromium",
    "to_html",
    "to_pdf",
    "two_runs_html",
]
__all__ += layout.__all__

"""The report's share link: the app view that shows what a report shows (pure; no streamlit).

A report (``benchuq report``, ``bq.report`` or the Report page) is about one view: the sidebar's
settings (:class:`~benchuq.presentation.state.Settings`) and the score it leads with, the overall
score or the sidebar's category weights (:class:`ReportSettings`, the Report page's setting in
the link). :func:`share_query` writes that view's link with the app's own writers
(``state.view_query``, ``state.settings_query``), so the CLI, ``bq.report`` and the app write
the same link for the same view; files that are not a sample or a published data set cannot
travel in a link, and the report then says to publish them first (:data:`NOT_SHARED`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchuq.core.reading.sources import parse_source
from benchuq.presentation.state import (
    Settings,
    format_value,
    link,
    parse_fields,
    query_string,
    settings_query,
    view_query,
)

__all__ = ["NOT_SHARED", "REPORT_SCORES", "ReportSettings", "share_query", "weights_flags"]

#: The share link's place in a report of files (no link can carry them).
NOT_SHARED = (
    "none yet: these data are files (uploaded, or read from disk), and no link can carry files. "
    "Publish them first (the app's Data page, 'Share these results', or benchuq publish), then "
    "share the published view's link."
)
#: The scores a report can lead with: the overall score, or the sidebar's category weights.
REPORT_SCORES = ("overall", "weighted")


@dataclass(frozen=True)
class ReportSettings:
    """Report page: the score the report leads with (its findings, table and figures)."""

    score: str = link(
        "report_score",
        "overall",
        "the score the report is about; weighted: by the sidebar's category weights",
        choices=REPORT_SCORES,
    )


def share_query(settings: Settings, models: Sequence[str], *, score: str = "overall") -> str:
    """Return the share link's query (``?data=...``) of a report on ``settings`` and ``score``.

    ``models`` are the data set's models (in data order: "all models" is left out). The data
    always travels (the report is about it); every other parameter only when it is not its
    default, as the app's address bar writes it. For files (not a sample or a published data
    set) the result is :data:`NOT_SHARED` followed by the view's other parameters.

    Examples
    --------
    >>> share_query(Settings(data="sample:toy", level=0.9), ["A", "B"])
    '?data=sample:toy&level=0.9'
    >>> share_query(Settings(data="sample:toy", weights=(1.0,)), ["A", "B"], score="weighted")
    '?data=sample:toy&report_score=weighted'
    >>> share_query(Settings(data="sample:toy", reps=100), ["A", "B"])  # doctest: +ELLIPSIS
    '?data=sample:toy&reps=100 (the app opens this link with other settings: reps=100: ...2000.)'
    """
    view = view_query(settings, models) | settings_query(ReportSettings(score))
    view.pop("data", None)
    if not parse_source(settings.data).linkable:
        after = f" This view's settings, to add after data=shared:<id>: {query_string(view)}"
        return NOT_SHARED + (after + _outside_the_app(view) if view else "")
    return "?" + query_string({"data": settings.data} | view) + _outside_the_app(view)


def _outside_the_app(view: dict[str, str]) -> str:
    """What the app cannot open as written (e.g. fewer replicates than its slider allows), in
    words after the link: the link then opens a nearby view, and the report says so."""
    _, notices = parse_fields(view)  # models and weights come from the data
    if not notices:
        return ""
    notes = "; ".join(f"{n.param}={n.value}: {n.message}" for n in notices)
    return f" (the app opens this link with other settings: {notes})"


def weights_flags(weights: Sequence[float] | None) -> list[str]:
    """``["--weights", "w1,w2,..."]`` (shortest exact numbers) of ``benchuq report``'s command,
    or ``[]`` for the overall score."""
    if weights is None:
        return []
    return ["--weights", format_value(tuple(float(w) for w in weights))]

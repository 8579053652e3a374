"""Every link parameter of the app: the sidebar's and each page's settings (the registry).

To put a page's choices in the link: declare a frozen dataclass of ``state.link`` fields in the
page's views module (URL name, allowed values, default), add it to :data:`PAGE_SETTINGS` with
the page's title, and on the page call ``controls.bind(TheSettings, ...)`` before its widgets
(widget keys = the link names) and ``.read()`` after them. :func:`readme_table` is the README's
table of link parameters (a test keeps the two equal).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchuq.dashboard.arena.view import ArenaSettings
from benchuq.dashboard.bayes.view import BayesSettings, BayesView
from benchuq.dashboard.compare.settings import CompareSettings, RanksSettings
from benchuq.dashboard.embeddings.view import (
    EmbeddingsInputs,
    EmbeddingsSettings,
    EmbeddingsView,
)
from benchuq.dashboard.epp.view import EppPair, EppSettings
from benchuq.dashboard.leaderboard.view import LeaderboardView
from benchuq.dashboard.plan.view import PlanSettings
from benchuq.dashboard.subgroups.view import SubgroupsSettings, SubgroupsUnits, SubgroupsView
from benchuq.dashboard.table.view import TableSettings
from benchuq.dashboard.two_runs.view import TwoRunsSettings
from benchuq.dashboard.weights.view import WeightsSettings
from benchuq.presentation.state import LinkSpec, Settings, format_value, link_fields

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


@dataclass(frozen=True)
class Page:
    """One page of the app: its file in ``pages/``, menu title, icon and settings classes."""

    file: str
    title: str
    icon: str
    settings: tuple[type[DataclassInstance], ...] = ()


#: Every page, written once, in menu order (the first is the default): ``app.py`` builds the
#: navigation from it and :data:`PAGE_SETTINGS` the link registry.
PAGES: tuple[Page, ...] = (
    Page("leaderboard.py", "Leaderboard", ":material/leaderboard:", (LeaderboardView,)),
    Page("table.py", "Leaderboard table", ":material/table_view:", (TableSettings,)),
    Page("report.py", "Report", ":material/summarize:"),
    Page("compare.py", "Compare models", ":material/compare_arrows:", (CompareSettings,)),
    Page("two_runs.py", "Two runs", ":material/difference:", (TwoRunsSettings,)),
    Page("ranks.py", "Ranks", ":material/format_list_numbered:", (RanksSettings,)),
    Page("weights.py", "Task weights", ":material/change_history:", (WeightsSettings,)),
    Page("epp.py", "Win probabilities (EPP)", ":material/sports_score:", (EppSettings, EppPair)),
    Page("arena.py", "Arena", ":material/swords:", (ArenaSettings,)),
    Page("bayes.py", "Bayesian model", ":material/model_training:", (BayesSettings, BayesView)),
    Page(
        "embeddings.py",
        "Embeddings",
        ":material/scatter_plot:",
        (EmbeddingsInputs, EmbeddingsSettings, EmbeddingsView),
    ),
    Page(
        "subgroups.py",
        "Small subgroups",
        ":material/group_work:",
        (SubgroupsUnits, SubgroupsSettings, SubgroupsView),
    ),
    Page("plan.py", "Plan the next evaluation", ":material/calculate:", (PlanSettings,)),
    Page("data.py", "Data", ":material/upload_file:"),
    Page("methods.py", "Methods", ":material/menu_book:"),
)

#: (settings class, title of the page that owns it), in menu order.
PAGE_SETTINGS: tuple[tuple[type[DataclassInstance], str], ...] = tuple(
    (cls, page.title) for page in PAGES for cls in page.settings
)
#: Parameters outside the settings classes: a sample's category edits.
EXTRA = (
    (
        "categories",
        "all pages",
        'JSON object `{"task": "category"}` of the tasks whose category was edited (Data page)',
        "none",
    ),
)


def page_names() -> list[str]:
    """Return the URL names of every page setting."""
    return [spec.name for cls, _ in PAGE_SETTINGS for _, spec, _ in link_fields(cls)]


def _values(spec: LinkSpec, default: object) -> str:
    if isinstance(default, bool):
        return f"`on` or `off` ({spec.doc})"
    if spec.choices and not isinstance(default, tuple):
        return ", ".join(f"`{format_value(c)}`" for c in spec.choices) + f" ({spec.doc})"
    if spec.bounds is not None:
        lo, hi = spec.bounds
        span = f"whole number {lo:.0f} to {hi:.0f}" if type(default) is int else f"{lo:g} to {hi:g}"
        unit = " (a proportion: `0.95` = 95%)" if spec.percent else ""
        return f"{spec.doc}: {span}{unit}"
    return spec.doc


def _default(spec: LinkSpec, default: object) -> str:
    """Return the default as written in the URL (an empty one is explained under values)."""
    return "see values" if default in ("", ()) else f"`{format_value(default, spec.sep)}`"


def rows() -> list[tuple[str, str, str, str]]:
    """``(name, page, values, default)`` of every link parameter."""
    out = [
        (spec.name, "all pages (sidebar)", _values(spec, d), _default(spec, d))
        for _, spec, d in link_fields(Settings)
    ]
    out += [
        (spec.name, page, _values(spec, d), _default(spec, d))
        for cls, page in PAGE_SETTINGS
        for _, spec, d in link_fields(cls)
    ]
    return out + list(EXTRA)


def readme_table() -> str:
    """Return the README's markdown table of link parameters."""
    lines = ["| name | page | values | default |", "|---|---|---|---|"]
    lines += [f"| `{n}` | {p} | {v} | {d} |" for n, p, v, d in rows()]
    return "\n".join(lines)

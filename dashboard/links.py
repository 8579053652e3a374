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
from benchuq.dashboard.judge.view import JudgeSettings
from benchuq.dashboard.leaderboard.view import LeaderboardView
from benchuq.dashboard.plan.view import PlanSettings
from benchuq.dashboard.subgroups.view import SubgroupsSettings, SubgroupsUnits, SubgroupsView
from benchuq.dashboard.table.view import TableSettings
from benchuq.dashboard.two_runs.view import TwoRunsSettings
from benchuq.dashboard.weights.view import WeightsSettings
from benchuq.presentation.report_link import ReportSettings
from benchuq.presentation.state import (
    LinkSpec,
    Settings,
    format_value,
    link_fields,
    query_string,
)

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


@dataclass(frozen=True)
class Page:
    """One page of the app: its file in ``pages/``, menu title, icon and settings classes;
    ``own_data``: the page analyses data of its own (battles, judge scores, embeddings), so the
    notes on the sidebar's data set name it."""

    file: str
    title: str
    icon: str
    settings: tuple[type[DataclassInstance], ...] = ()
    own_data: bool = False


#: Every page, written once, in menu order (the first is the default): ``app.py`` builds the
#: navigation from it and :data:`PAGE_SETTINGS` the link registry.
PAGES: tuple[Page, ...] = (
    Page("leaderboard.py", "Leaderboard", ":material/leaderboard:", (LeaderboardView,)),
    Page("table.py", "Leaderboard table", ":material/table_view:", (TableSettings,)),
    Page("report.py", "Report", ":material/summarize:", (ReportSettings,)),
    Page("compare.py", "Compare models", ":material/compare_arrows:", (CompareSettings,)),
    Page("two_runs.py", "Two runs", ":material/difference:", (TwoRunsSettings,)),
    Page("ranks.py", "Ranks", ":material/format_list_numbered:", (RanksSettings,)),
    Page("weights.py", "Task weights", ":material/change_history:", (WeightsSettings,)),
    Page("epp.py", "Win probabilities (EPP)", ":material/sports_score:", (EppSettings, EppPair)),
    Page("arena.py", "Arena", ":material/swords:", (ArenaSettings,), own_data=True),
    Page("judge.py", "Judge", ":material/gavel:", (JudgeSettings,), own_data=True),
    Page("bayes.py", "Bayesian model", ":material/model_training:", (BayesSettings, BayesView)),
    Page(
        "embeddings.py",
        "Embeddings",
        ":material/scatter_plot:",
        (EmbeddingsInputs, EmbeddingsSettings, EmbeddingsView),
        own_data=True,
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


#: An example value of each parameter whose values are text or depend on the data (on a bundled
#: sample that has them); the others get one from their spec (:func:`example`).
EXAMPLES = {
    "data": "sample:mmlu",
    "method": "bayes",
    "weights": "2,1,0.5",
    "models": "Rotation,Jigsaw,VAE",
    "statistic": "pass@5",
    "table_query": "Sup",
    "table_sort": "SVHN",
    "compare_score": "structured",
    "compare_models": "VAE,Rotation",
    "runs_base": "VAE",
    "runs_candidate": "Rotation",
    "weights_pick": "STEM,other,humanities",
    "weights_merge": "1,2,2,0",
    "epp_rounds": "items",
    "epp_a": "VAE",
    "epp_b": "Rotation",
    "arena_anchor": "claude-2",
    "arena_control": "length",
    "judge_curve": "gpt-4",
    "priors": "*:a=normal(50,5)",
    "bayes_model": "B",
    "embeddings_columns": "dataset,length_words",
    "embeddings_reference": "gpt4",
    "embeddings_prior": "dataset=2",
    "embeddings_against": "gpt4",
    "embeddings_confusion": "gpt4",
    "subgroups_units": "category",
    "subgroups_features": "log_n",
    "subgroups_model": "VAE",
    "plan_models": "claude-2,phi-2",
    "plan_group": "weighted",
    "plan_acc": "60,65",
    "categories": '{"SVHN":"digits"}',
}


def example(spec: LinkSpec, default: object) -> str:
    """Return an example value of a parameter, not its default, as written in a link."""
    if spec.name in EXAMPLES:
        return EXAMPLES[spec.name]
    if isinstance(default, bool):
        return format_value(not default)
    if spec.choices:
        if isinstance(default, tuple):
            return format_value(spec.choices[:1], spec.sep)
        return format_value(next(c for c in spec.choices if c != default))
    if spec.bounds is None:
        raise ValueError(f"link parameter {spec.name!r} needs an entry in links.EXAMPLES")
    lo, hi = spec.bounds
    kind = int if type(default) is int else float
    middle = kind(float(f"{(lo + hi) / 2:.2g}"))  # a round number inside the range
    return format_value(kind(lo) if middle == default else middle)


def rows() -> list[tuple[str, str, str, str, str]]:
    """``(name, page, values, default, example link)`` of every link parameter."""
    fields = [(spec, d, "all pages (sidebar)") for _, spec, d in link_fields(Settings)]
    fields += [(spec, d, page) for cls, page in PAGE_SETTINGS for _, spec, d in link_fields(cls)]
    out = [
        (
            spec.name,
            page,
            _values(spec, d),
            _default(spec, d),
            f"`?{query_string({spec.name: example(spec, d)})}`",
        )
        for spec, d, page in fields
    ]
    return out + [(*extra, f"`?{query_string({extra[0]: EXAMPLES[extra[0]]})}`") for extra in EXTRA]


def readme_table() -> str:
    """Return the README's markdown table of link parameters."""
    lines = ["| name | page | values | default | example |", "|---|---|---|---|---|"]
    lines += [f"| `{n}` | {p} | {v} | {d} | {e} |" for n, p, v, d, e in rows()]
    return "\n".join(lines)

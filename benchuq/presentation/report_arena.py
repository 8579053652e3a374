"""The report's section for pairwise battles (METHODS 8b), pure: arena ratings, rank sets and
win probabilities as one self-contained HTML document (the layout and rendering of
``presentation.report``: interactive plotly figures, no browser needed, the same bytes for the
same battles)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from benchuq.core.analyses.arena import ArenaResult
from benchuq.presentation.colors import model_colors
from benchuq.presentation.figures.arena import arena_forest_figure, arena_heatmap
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.ranks import rank_set_figure
from benchuq.presentation.report.layout import WIDTH, ReportFigure
from benchuq.presentation.report.render import figure_html, page, text

__all__ = [
    "INTERVAL_LABELS",
    "TIES_LABELS",
    "arena_figures",
    "arena_html",
    "caption",
    "closing_sections",
    "leaderboard_table",
]

TIES_LABELS = {"half": "Half a win (LMArena)", "davidson": "Davidson tie model"}
TIES_WORDS = {"half": "a tie counts half a win (LMArena)", "davidson": "Davidson's tie model"}
INTERVAL_LABELS = {"sandwich": "Sandwich (robust)", "bootstrap": "Bootstrap"}
#: what the rank columns mean (LMArena calls the first "rank (UB)": docs/METHODS.md 8b)
RANK_WORDS = (
    "Rank = 1 + the number of models whose interval lies entirely above (as LMArena ranks); "
    "the rank set holds for all models together."
)


def leaderboard_table(result: ArenaResult) -> pd.DataFrame:
    """One row per model, best first (the CLI's columns, readable names); ratings and their
    intervals as whole Elo points (a decimal says more than the data do; JSON keeps them)."""
    table = result.table().rename(
        columns={
            "rank_ub": "rank",
            "rank_low": "rank set from",
            "rank_high": "rank set to",
            "win_rate": "win rate",
        }
    )
    if result.uncontrolled is not None:
        plain = result.uncontrolled
        table["without control"] = [plain.rating[plain.models.index(m)] for m in table["model"]]
    whole = [c for c in ("rating", "low", "high", "without control") if c in table]
    table[whole] = table[whole].round(0).astype("Int64")
    return table


def caption(result: ArenaResult) -> str:
    """What the numbers are: data, model, scale, interval method and level."""
    anchor = f"{result.anchor} fixed at 1000" if result.anchor else "the mean rating is 1000"
    cluster = f", clustered by {result.cluster}" if result.cluster else ""
    method = INTERVAL_LABELS[result.method].lower()
    boot = f" ({result.reps} replicates, seed {result.seed})" if result.reps else ""
    return (
        f"{result.name}: {result.n_battles:,} battles among {len(result.models)} models. "
        f"Bradley–Terry ratings on the Elo scale (400 points = a factor 10 in the odds; "
        f"{anchor}); {TIES_WORDS[result.ties]}; {100 * result.level:g}% "
        f"{method} intervals{cluster}{boot}. {RANK_WORDS}"
    )


def arena_figures(result: ArenaResult) -> list[ReportFigure]:
    """The ratings, the rank sets and the win-probability matrix, each with how to read it."""
    colors = model_colors(result.models)
    pct = f"{100 * result.level:g}%"

    def opts(title: str) -> FigureOptions:
        return FigureOptions(colors, 1.0, "rating", f"{result.name}: {title}")

    out = [
        ReportFigure(
            arena_forest_figure(result, opts(f"ratings with {pct} intervals")),
            f"Dot: the Bradley–Terry rating on the Elo scale; bar: its {pct} interval "
            f"({result.method}). 400 points are a factor 10 in the odds of winning"
            + ("; open circles: the ratings without style control." if result.controls else "."),
        ),
        ReportFigure(
            rank_set_figure(result.rank_sets, opts(f"rank sets ({pct})")),
            "Each bar spans the ranks the model could truly hold (thick: for that model alone, "
            "thin: for all models together).",
        ),
        ReportFigure(
            arena_heatmap(result, opts("expected score of row vs column")),
            "The fitted chance that the row model beats the column model, a tie counting half.",
        ),
    ]
    for r in out:
        r.fig.update_layout(width=WIDTH)
    return out


def closing_sections(
    figures: Sequence[ReportFigure], notes: Sequence[str], *, command: str, version: str
) -> str:
    """The sections the arena and judge reports end with: the figures, the caveats (``none``
    without notes) and the command and version that reproduce the numbers."""
    e = text
    figs = "".join(figure_html(r, f"fig-{k}") for k, r in enumerate(figures, start=1))
    items = "".join(f"<li>{e(n)}</li>" for n in notes) or "<li>none</li>"
    return f"""<h2>Figures</h2>
{figs}
<h2>Caveats</h2>
<ul>{items}</ul>
<h2>Reproduce these numbers</h2>
<dl class=repro><dt>Command</dt><dd><code>{e(command)}</code></dd>
<dt>benchuq</dt><dd><code>{e(version)}</code></dd></dl>
"""


def arena_html(result: ArenaResult, *, command: str, version: str) -> str:
    """The battles report as one HTML document (``report.render``: figures drawn by plotly.js,
    inline once)."""
    e = text
    table = leaderboard_table(result)
    head = "".join(f"<th>{e(str(c))}</th>" for c in table.columns)
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td class=num>{v:.3f}</td>"
            if c == "win rate"
            else f"<td class=num>{v:.1f}</td>"
            if isinstance(v, float)
            else f"<td>{e(str(v))}</td>"
            for c, v in zip(table.columns, row, strict=True)
        )
        + "</tr>"
        for row in table.itertuples(index=False)
    )
    effects = "".join(
        f"<li>style control {e(c)}: {v:+.1f} Elo points per standard deviation (se {s:.1f})</li>"
        for c, v, s in zip(result.controls, result.coefficients, result.coefficient_se, strict=True)
    )
    body = f"""<h1>Arena report: {e(result.name)}</h1>
<p class=sub>{e(caption(result))}</p>
<h2>Findings</h2>
<ul class=findings><li>{e(result.sentence())}</li>{effects}</ul>
<h2>Leaderboard</h2>
<table><tr>{head}</tr>{rows}</table>
{closing_sections(arena_figures(result), result.notes, command=command, version=version)}"""
    return page(f"benchuq arena report: {result.name}", body)

"""Task-weight maps as static images for slides: python-ternary on matplotlib's Agg backend.

The same hexagonal tiling, colours (``presentation.colors``) and legend as the interactive map,
with a subtitle stating z, rho, the level and the data set. Uses matplotlib's object API
(``matplotlib.figure.Figure``), never pyplot, so concurrent sessions do not share state.
Two-category maps are drawn as line charts with a strip underneath: the SE rule as each model's
weighted score with the winner strip, the probability view as stacked P(best) bands with a strip
of the most likely best model shaded by its probability band (as the ternary tiles are).
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib
import numpy as np

matplotlib.use("Agg")  # python-ternary imports pyplot: set the headless backend first

import ternary
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.ticker import PercentFormatter
from ternary.heatmapping import polygon_generator
from ternary.helpers import project_point

from benchuq.core.summaries.dominance import BestProbabilityMap, DominanceMap
from benchuq.presentation.colors import INDETERMINATE
from benchuq.presentation.figures.weights import PROB_BANDS

FORMATS = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf"}
#: A model gets its own band in the two-category P(best) image when its P(best) passes this
#: somewhere (the app's line uses the same cut).
LINE_MIN_PROBABILITY = 0.01


def _grid_keys(weights: np.ndarray) -> tuple[int, list[tuple[int, int, int]]]:
    """python-ternary lattice keys: (right corner, top, left) = (3rd, 1st, 2nd) category."""
    r = round((np.sqrt(1 + 8 * len(weights)) - 3) / 2)
    counts = np.rint(weights * r).astype(int)
    return r, [(int(c), int(a), int(b)) for a, b, c in counts]


def _ternary_figure(
    weights: np.ndarray,
    rgba: Sequence[tuple[float, float, float, float]],
    categories: Sequence[str],
    handles: Sequence[Artist],
    legend_title: str,
    title: str,
    subtitle: str,
    marker: np.ndarray | None,
) -> Figure:
    r, keys = _grid_keys(weights)
    fig = Figure(figsize=(9.0, 6.6), dpi=150)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.03, 0.06, 0.62, 0.78))
    tax = ternary.TernaryAxesSubplot(ax=ax, scale=r)
    # python-ternary's hexagonal tiles, drawn as one collection (one fill per tile is slow)
    tiles = polygon_generator(dict(zip(keys, rgba, strict=True)), r, "h")
    verts, faces = zip(*((list(v), c) for v, c in tiles), strict=True)
    ax.add_collection(PolyCollection(verts, facecolors=faces, edgecolors=faces, linewidths=0.3))
    tax.boundary(linewidth=1.2)
    step = max(r // 5, 1)
    tax.ticks(
        axis="lbr",
        multiple=step,
        linewidth=1,
        offset=0.02,
        fontsize=8,
        tick_formats="%d",
        ticks=[f"{100 * t / r:.0f}%" for t in range(0, r + 1, step)],
    )
    h = r * np.sqrt(3) / 2
    corners = [(r / 2, h + 0.07 * r, "bottom"), (-0.04 * r, -0.1 * r, "top")]
    corners.append((1.04 * r, -0.1 * r, "top"))
    for (x, y, va), name in zip(corners, categories, strict=True):
        ax.text(x, y, name, ha="center", va=va, fontsize=12, fontweight="bold")
    if marker is not None:
        m = np.asarray(marker, dtype=float) * r
        x, y = project_point((m[2], m[0], m[1]))
        handles = [
            *handles,
            ax.scatter(
                [x],
                [y],
                marker="x",
                s=120,
                color="black",
                linewidths=3,
                zorder=5,
                label="current weights",
            ),
        ]
    tax.clear_matplotlib_ticks()
    ax.set_axis_off()
    ax.set_aspect("equal")
    ax.set_xlim(-0.12 * r, 1.12 * r)
    ax.set_ylim(-0.2 * r, h + 0.15 * r)
    fig.legend(
        handles=handles,
        title=legend_title,
        loc="upper left",
        bbox_to_anchor=(0.66, 0.84),
        frameon=False,
        fontsize=9,
        title_fontsize=10,
        alignment="left",
    )
    fig.suptitle(title, x=0.03, y=0.97, ha="left", fontsize=14, fontweight="bold")
    fig.text(0.03, 0.905, subtitle, ha="left", va="top", fontsize=9.5, color="#333333", wrap=True)
    return fig


def subtitle_text(dm: DominanceMap, data: str) -> str:
    """z, rho, level and data set, as the static images state them."""
    if dm.rho_source == "assumed":
        rho = f"rho = {dm.rho[0]:.2f} assumed"
    else:
        rho = f"rho read from the paired replicates (median {np.nanmedian(dm.rho):.2f})"
    return (
        f"Data: {data}. Grey: lead smaller than z x SE (indeterminate). "
        f"z = {dm.z:.2f} (two-sided level {dm.level:.1%}), {rho}."
    )


def dominance_image(
    dm: DominanceMap,
    colors: dict[str, str],
    fmt: str,
    *,
    data: str,
    title: str = "Which model wins at each task weighting?",
    marker: np.ndarray | None = None,
) -> bytes:
    """Return the SE-rule map (METHODS 5) as PNG, SVG or PDF bytes."""
    shares = dm.shares()
    palette = {
        k: INDETERMINATE if k < 0 else colors.get(dm.models[k], INDETERMINATE)
        for k in set(dm.winner.tolist())
    }
    handles = [
        Patch(
            color=INDETERMINATE if m is None else colors.get(m, INDETERMINATE),
            label=f"{'indeterminate' if m is None else m} ({s:.0%})",
        )
        for m, s in shares.items()
    ]
    subtitle = subtitle_text(dm, data)
    if len(dm.categories) == 2:
        fig = _line_figure(dm, colors, handles, title, subtitle, marker)
    else:
        rgba = [to_rgba(palette[int(k)]) for k in dm.winner]
        fig = _ternary_figure(
            dm.weights,
            rgba,
            dm.categories,
            handles,
            "Winner (share of map)",
            title,
            subtitle,
            marker,
        )
    return _save(fig, fmt)


def _band_rgba(color: str, p: float) -> tuple[float, float, float, float]:
    """``color`` mixed with white by the ``PROB_BANDS`` shade of probability ``p``."""
    alpha = next(a for lo, hi, a in PROB_BANDS if lo <= p < hi)
    base = np.array(to_rgba(color))
    return (*(1 - alpha * (1 - base[:3])), 1.0)


def probability_image(
    pm: BestProbabilityMap,
    colors: dict[str, str],
    fmt: str,
    *,
    data: str,
    title: str = "Which model is most likely best at each task weighting?",
    marker: np.ndarray | None = None,
) -> bytes:
    """Return the probability view as PNG, SVG or PDF (shade = P(best) band, as in the app).

    Three categories give the hexagon-tiled triangle; two give stacked P(best) bands along the
    weight of the first category with a strip of the most likely best model.
    """
    rgba = [
        _band_rgba(colors.get(pm.models[i], INDETERMINATE), p)
        for i, p in zip(pm.best, pm.best_probability, strict=True)
    ]
    counts = np.bincount(pm.best, minlength=len(pm.models)) / len(pm.best)
    listed = counts > 0
    if len(pm.categories) == 2:  # every band of the line gets a legend entry
        listed |= pm.probability.max(axis=0) > LINE_MIN_PROBABILITY
    handles = [
        Patch(color=colors.get(pm.models[i], INDETERMINATE), label=f"{pm.models[i]} ({c:.0%})")
        for i, c in sorted(enumerate(counts), key=lambda ic: -ic[1])
        if listed[i]
    ]
    handles += [
        Patch(
            color=_band_rgba("#555555", lo),
            label=f"first in {lo:.0%}–{min(hi, 1):.0%} of replicates",
        )
        for lo, hi, _ in reversed(PROB_BANDS)
    ]
    if len(pm.categories) == 2:
        subtitle = (
            f"Data: {data}. Bands: each model's share of {pm.reps} replicates in which it has the "
            "best weighted score; strip: the model with the largest share, shaded by it."
        )
        fig = _probability_line_figure(pm, colors, rgba, handles, title, subtitle, marker)
    else:
        subtitle = (
            f"Data: {data}. Colour: the model with the largest share of {pm.reps} replicates in "
            "which it has the best weighted score; shade: that share."
        )
        fig = _ternary_figure(
            pm.weights, rgba, pm.categories, handles, "Most likely best", title, subtitle, marker
        )
    return _save(fig, fmt)


def _line_axes(categories: Sequence[str]) -> tuple[Figure, Axes, Axes]:
    """Return a line chart over the first category's weight, and the strip underneath it."""
    fig = Figure(figsize=(9.0, 5.0), dpi=150)
    FigureCanvasAgg(fig)
    ax, strip = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [5, 1]})
    strip.set_yticks([])
    strip.set_xlabel(f"weight on {categories[0]} (rest on {categories[1]})")
    ax.set_xlim(0, 1)
    return fig, ax, strip


def _finish_line(
    fig: Figure,
    axes: tuple[Axes, Axes],
    x: np.ndarray,
    strip_colors: Sequence[object],
    handles: Sequence[Artist],
    legend_title: str,
    title: str,
    subtitle: str,
    marker: np.ndarray | None,
) -> Figure:
    """Strip, sidebar-weights line, legend, title and subtitle shared by both line images."""
    ax, strip = axes
    step = 1 / max(len(x) - 1, 1)
    strip.bar(x, np.ones_like(x), width=step, color=strip_colors)
    if marker is not None:
        for a in (ax, strip):
            a.axvline(float(marker[0]), color="black", ls=":", lw=2)
    ax.grid(alpha=0.3)
    fig.subplots_adjust(top=0.8, right=0.7)
    fig.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(0.71, 0.8),
        frameon=False,
        fontsize=9,
        title=legend_title,
    )
    fig.suptitle(title, x=0.03, y=0.97, ha="left", fontsize=14, fontweight="bold")
    fig.text(0.03, 0.90, subtitle, ha="left", va="top", fontsize=9.5, color="#333333", wrap=True)
    return fig


def _line_figure(
    dm: DominanceMap,
    colors: dict[str, str],
    handles: Sequence[Artist],
    title: str,
    subtitle: str,
    marker: np.ndarray | None,
) -> Figure:
    """Two categories, SE rule: each model's weighted score, winner strip below.

    Models drawn as a line (leader or runner-up somewhere) that win nowhere join the legend as
    lines with a 0% share.
    """
    fig, ax, strip = _line_axes(dm.categories)
    x = dm.weights[:, 0]
    winners = set(dm.winner.tolist())
    for i in sorted(set(dm.leader.tolist()) | set(dm.runner_up.tolist())):
        color = colors.get(dm.models[i], INDETERMINATE)
        (line,) = ax.plot(x, dm.scores[:, i], color=color, lw=2, label=f"{dm.models[i]} (0%)")
        if i not in winners:
            handles = [*handles, line]
    ax.set_ylabel("weighted score")
    strip_colors = [
        INDETERMINATE if k < 0 else colors.get(dm.models[k], INDETERMINATE) for k in dm.winner
    ]
    return _finish_line(
        fig, (ax, strip), x, strip_colors, handles, "Winner (share)", title, subtitle, marker
    )


def _probability_line_figure(
    pm: BestProbabilityMap,
    colors: dict[str, str],
    rgba: Sequence[tuple[float, float, float, float]],
    handles: Sequence[Artist],
    title: str,
    subtitle: str,
    marker: np.ndarray | None,
) -> Figure:
    """Two categories, probability view: stacked P(best) bands, most-likely-best strip below.

    Models whose P(best) never exceeds 1% share one light grey "other models" band on top (the
    app's line leaves them out), so the bands always stack to 1. Every model with a band is in
    the legend with its share of the line as most likely best (0% for some).
    """
    fig, ax, strip = _line_axes(pm.categories)
    x = pm.weights[:, 0]
    shown = np.flatnonzero(pm.probability.max(axis=0) > LINE_MIN_PROBABILITY)
    bands = [pm.probability[:, i] for i in shown]
    band_colors = [colors.get(pm.models[i], INDETERMINATE) for i in shown]
    rest = 1 - np.sum(bands, axis=0)
    if np.any(rest > 1e-9):
        bands.append(np.clip(rest, 0, None))
        band_colors.append("#DDDDDD")
        handles = [*handles, Patch(color="#DDDDDD", label="other models (each ≤ 1%)")]
    ax.stackplot(x, *bands, colors=band_colors, linewidth=0.3, edgecolor="white")
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylabel("share of replicates ranked first")
    return _finish_line(
        fig, (ax, strip), x, rgba, handles, "Most likely best", title, subtitle, marker
    )


def _save(fig: Figure, fmt: str) -> bytes:
    """Render ``fig`` as ``fmt`` bytes; every text is drawn literally.

    A ``$`` in a model, category or data set name would otherwise start matplotlib mathtext,
    which can fail to parse.
    """
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: use one of {sorted(FORMATS)}.")
    for text in fig.findobj(Text):
        text.set_parse_math(False)
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, facecolor="white")
    return buf.getvalue()

"""Small subgroups page (METHODS 7): settings, the units' sources, tables, sentences (pure).

The settings are as they travel in the link.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchuq.api.summaries import (
    FsCorrection,
    Grouping,
    LabResult,
    SubgroupResult,
    Units,
    UnitWeights,
    parse_kappa,
    simulate,
    units_from_table,
)
from benchuq.core.data import Benchmark
from benchuq.presentation.state import link

SOURCES = {"data": "The loaded data set", "table": "A table: unit, estimate, se"}
GROUP_LABELS = {
    "task": "Task (e.g. an MMLU subject)",
    "category": "Task category",
    "subgroup": "Items' subgroup column",
}
FS_LABELS = {"PMT": "PMT (default)", "FPLIB": "FPLIB", "none": "none (plain positive part)"}
KAPPA_LABELS = {"estimated": "estimated", "inf": "∞ (second moment only)"}
WEIGHT_LABELS = {"equal": "equal", "precision": "precision 1/se²"}


@dataclass(frozen=True)
class SubgroupsUnits:
    """Small subgroups page: where the units come from and what a subgroup is."""

    source: str = link(
        "subgroups_source", "data", "where the units come from", choices=tuple(SOURCES)
    )
    units: str = link(
        "subgroups_units",
        "",
        "`task`, `category` or `subgroup`: what a subgroup is (default: the items' subgroup "
        "column when there is one, else task)",
        data=True,
    )


@dataclass(frozen=True)
class SubgroupsSettings:
    """Small subgroups page: the regression, the EB options and the simulation lab's sizes."""

    features: tuple[str, ...] = link(
        "subgroups_features",
        (),
        "regression features, comma-separated (default: the data's)",
        data=True,
    )
    fs: FsCorrection = link(
        "subgroups_fs", "PMT", "finite-sample correction", choices=tuple(FS_LABELS)
    )
    kappa: str = link("subgroups_kappa", "estimated", "kurtosis", choices=tuple(KAPPA_LABELS))
    crossfit: bool = link("subgroups_crossfit", True, "cross-fit the regression")
    weights: UnitWeights = link(
        "subgroups_weights", "equal", "unit weights", choices=tuple(WEIGHT_LABELS)
    )
    lab_n: int = link("subgroups_lab_n", 10, "simulation lab: items per subgroup", bounds=(2, 1000))
    lab_reps: int = link("subgroups_lab_reps", 100, "simulation lab: repetitions", bounds=(10, 500))


@dataclass(frozen=True)
class SubgroupsView:
    """Small subgroups page: the model of the direct-vs-EB chart."""

    model: str = link(
        "subgroups_model", "", "model shown in the chart (default: the first)", data=True
    )


def units_of(settings: SubgroupsUnits) -> Grouping:
    """Return the resolved grouping of the units (``""``, automatic, counts as task)."""
    if settings.units == "category":
        return "category"
    return "subgroup" if settings.units == "subgroup" else "task"


def group_options(bench: Benchmark) -> list[str]:
    """Return what a subgroup can be for this data set (the items' own subgroup column first)."""
    options = ["task"]
    if bench.kind in ("counts", "items") and len(bench.category_names) > 1:
        options.append("category")
    if bench.item_tasks is not None and any(it.subgroup is not None for it in bench.item_tasks):
        options.insert(0, "subgroup")
    return options


def read_table(name: str, data: bytes) -> Units:
    """Units from an uploaded CSV (or ``.tsv``) table ``unit, estimate, se``."""
    sep = "\t" if name.lower().endswith(".tsv") else ","
    return units_from_table(pd.read_csv(io.BytesIO(data), sep=sep), file=name)


def can_simulate(bench: Benchmark | None) -> bool:
    """Tell whether the lab can run: it resamples items, so it needs counts or items."""
    return bench is not None and (bench.kind == "counts" or bench.item_tasks is not None)


def proportions(result: SubgroupResult) -> bool:
    """Whether every direct estimate lies in [0, 1] (then they are shown as percent)."""
    direct = result.rows["direct"]
    return bool(0 <= direct.min() and direct.max() <= 1)


SPREAD_LABEL = "Spread around f (√A)"


def spread_text(mu2: float, *, percent: bool) -> str:
    """√A, the typical distance of a true score from f: in points when the scores are
    proportions shown as percent, else in the scores' units; a dash when A is not finite."""
    if not math.isfinite(mu2):
        return "—"
    root = math.sqrt(max(mu2, 0.0))
    return f"{100 * root:.1f} points" if percent else f"{root:.3g}"


def finite(x: float, fmt: str) -> str:
    """``x`` formatted, or a dash when it is not finite."""
    return format(x, fmt) if math.isfinite(x) else "—"


def promise_text(level: float) -> str:
    """Return what the EB intervals promise (markdown)."""
    pct = f"{100 * level:g}%"
    return (
        f"**What the {pct} EB intervals promise:** *average* coverage: over all units together, "
        f"about {pct} of the intervals hold the true score. A single unit far from the "
        "regression can be covered less often; the direct intervals are the ones with coverage "
        "for each unit on its own."
    )


def lab_text(lab: LabResult, level: float) -> str:
    """Return the lab's result in words."""
    return (
        f"{lab.reps} repetitions, {lab.n_per_group} items per subgroup (MSE and widths in "
        "the data's own units, proportions for accuracies). EB's MSE is "
        f"{lab.mean_ratio_eb_by_model:.2f} × the direct estimate's (averaged over models); "
        f"coverage is the share of units and repetitions whose interval held the full-data "
        f"score (target {100 * level:g}%, on average over units for EB)."
    )


def result_table(result: SubgroupResult) -> pd.DataFrame:
    """Return the rows for display and download, with readable column names."""
    return result.rows.rename(
        columns={
            "direct": "direct estimate",
            "direct_low": "direct low",
            "direct_high": "direct high",
            "f": "regression f",
            "eb": "EB estimate",
            "low": "EB low",
            "high": "EB high",
            "w": "weight w",
        }
    )


def shown_columns(table: pd.DataFrame) -> list[str]:
    """The columns the page shows, in order: each unit by name (its ``model`` and ``subgroup``
    when the table has them: ``unit`` repeats them), then the direct and EB estimates with their
    intervals side by side, then the rest (se, f, features), which may scroll out of sight. The
    download keeps every column in the table's order."""
    first = [c for c in ("model", "subgroup") if c in table.columns] or ["unit"]
    pairs = [f"{k} {x}" for k in ("direct", "EB") for x in ("estimate", "low", "high")]
    lead = [*first, *(c for c in ("n", *pairs, "weight w") if c in table.columns)]
    rest = [c for c in table.columns if c not in lead and (c != "unit" or first == ["unit"])]
    return [*lead, *rest]


def lab_table(lab: LabResult) -> pd.DataFrame:
    """Overall lab summary: one row per method (DT, SR, EB) with MSE, ratio, coverage, width."""
    o = lab.overall.iloc[0]
    return pd.DataFrame(
        {
            "method": ["direct (DT)", "regression (SR)", "empirical Bayes (EB)"],
            "MSE": [o["mse_dt"], o["mse_sr"], o["mse_eb"]],
            "MSE / MSE(DT)": [1.0, o["ratio_sr"], o["ratio_eb"]],
            "coverage": [o["cover_dt"], np.nan, o["cover_eb"]],
            "mean width": [o["width_dt"], np.nan, o["width_eb"]],
        }
    )


def run_lab(
    bench: Benchmark,
    group_by: Grouping,
    settings: SubgroupsSettings,
    level: float,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
) -> LabResult:
    """``core.analyses.subgroups.simulate`` with the page's settings at ``level`` (the sidebar's;
    the [FPAM] protocol, METHODS 7)."""
    return simulate(
        bench,
        group_by=group_by,
        n_per_group=settings.lab_n,
        reps=settings.lab_reps,
        features=settings.features or None,
        level=level,
        fs_correction=settings.fs,
        kappa=parse_kappa(settings.kappa),
        crossfit=settings.crossfit,
        seed=seed,
        progress=progress,
        weights=settings.weights,
    )

"""Plan page (METHODS 10): its settings as they travel in the link, and what it shows (pure).

:class:`PlanSettings` is a page settings class of the app's one link mechanism
(``presentation.state.link`` fields, registered in ``dashboard.links``): each field travels as its
``plan_*`` query parameter when it differs from its default.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchuq.api import summaries as pw
from benchuq.core.data import Benchmark, DataError
from benchuq.core.defaults import COMPARISON_LEVEL, LEVEL_BOUNDS, POWER_CORRECTIONS
from benchuq.presentation.state import link
from benchuq.presentation.text import csv_bytes

MODES = {"data": "From the loaded data", "new": "A new benchmark (no data yet)"}
GROW = {"keep": "Keep today's items", "add": "Write new items"}
HELP = {
    "plan_acc": "Comma-separated, e.g. 70, 72 (right/wrong scores); mean scores when a per-item SD "
    "is given.",
    "plan_corr": "Between two models' scores on the same item: 0 is conservative; 0.3-0.6 is "
    "typical for models answering one test.",
    "plan_tasks": "Tasks of this many items each, averaged with equal weights. With the same "
    "per-item variance everywhere the task count only changes how items are counted.",
    "plan_cluster": "Items that share a passage, prompt or source move together: the design effect "
    "1 + (m - 1) ICC multiplies the variance.",
    "plan_sd": "Standard deviation of one model's per-item score for continuous scores (F1, judge "
    "scores); 0 for right/wrong answers.",
    "plan_correction": "The critical value for the family of comparisons: max-T (simultaneous "
    "intervals, the Compare page's method) is exact for correlated pairs; Bonferroni is "
    "simpler and a little wider.",
    "plan_family": "Comparisons you will make: 0 counts the pairs shown (as the Compare page "
    "does). Any other number takes them as independent (Sidak for max-T).",
    "plan_rho": "Task counts cannot show how models co-vary: this is an assumption (0 is "
    "conservative when models succeed on the same items). Item-level data give their own.",
    "sampling": "With stochastic generation each item can be answered K times and scored by the "
    "mean (Miller 2024, resampling): the item score's variance is between + within / K. A "
    "budget buys items x answers; more answers pay only while within / K is large against the "
    "between-item variance, or when new items are scarce or costly.",
    "plan_budget": "Answers (generations) per model you can afford; 0 = four answers per item now.",
    "plan_cost": "Writing or checking one more item, in answers' worth (used with 'Write new "
    "items'); with a cost, the best K is about sqrt(cost x within / between).",
    "plan_within": "The part of the per-item variance that is sampling noise (two answers to the "
    "same item differ). For right/wrong answers: (rA + rB) / 2 divided by the per-item variance "
    "of the difference, with r a model's share of items whose two answers disagree.",
}

# The page's input rows: (widget, label, positional arguments, keyword arguments); the keys are
# the link names; help texts are in HELP under the same keys. A slider or number input without
# positional arguments takes the range of its link field (``state.link_range``).
Input = tuple[str, str, tuple, dict]
NEW_INPUTS: tuple[Input, ...] = (
    ("text_input", "Accuracies (%), one per model", (), {"key": "plan_acc"}),
    ("slider", "Correlation between models", (), {"step": 0.01, "key": "plan_corr"}),
    ("number_input", "Items per task", (), {"step": 100, "key": "plan_items"}),
    ("number_input", "Tasks", (), {"key": "plan_tasks"}),
    ("number_input", "Items per cluster", (), {"step": 1.0, "key": "plan_cluster"}),
    ("slider", "Within-cluster correlation (ICC)", (), {"step": 0.01, "key": "plan_icc"}),
    ("number_input", "Per-item SD (0 = right/wrong)", (), {"key": "plan_sd"}),
)
COMMON_INPUTS: tuple[Input, ...] = (
    ("slider", "Family-wise level (%)", (), {"step": 0.5, "key": "plan_level"}),
    ("slider", "Power (%)", (), {"step": 1.0, "key": "plan_power"}),
    ("number_input", "Difference to detect ({unit})", (), {"key": "plan_delta"}),
    (
        "selectbox",
        "Multiplicity",
        (tuple(POWER_CORRECTIONS),),
        {"format_func": POWER_CORRECTIONS.get, "key": "plan_correction"},
    ),
    ("number_input", "Comparisons (0 = the pairs shown)", (), {"key": "plan_family"}),
)
NEW_DELTA: Input = (
    "number_input",
    "Difference to detect ({unit}; 0 = the assumed ones)",
    (),
    {"key": "plan_new_delta"},
)
SAMPLING_INPUTS: tuple[Input, ...] = (
    ("slider", "Within-item share (%)", (), {"step": 1.0, "key": "plan_within"}),
    (
        "number_input",
        "Budget: answers per model (0 = 4x items)",
        (),
        {"key": "plan_budget"},
    ),
    ("radio", "Items", (tuple(GROW),), {"format_func": GROW.get, "key": "plan_grow"}),
    ("number_input", "Answers one new item costs", (), {"key": "plan_cost"}),
)


@dataclass(frozen=True)
class PlanSettings:
    """The Plan page's inputs (units as on screen, except ``level`` and ``power``: proportions).

    ``delta``: difference to detect, in display units (points for proportions); ``new_delta``:
    the same without data, 0 = each pair's assumed difference; ``family``:
    comparisons in the family, 0 = the pairs shown; ``models``: empty = the top three;
    ``accuracies``: comma-separated percentages (no-data form); ``sd``: per-item standard
    deviation of continuous scores, 0 = right/wrong scores; ``within``: share (%) of the
    per-item variance that is sampling noise; ``budget``: answers per model, 0 = four times
    today's items; ``grow``: keep today's items or write new ones at ``cost`` answers each.
    """

    mode: str = link(
        "plan_mode",
        "data",
        "plan from the loaded data or for a new benchmark",
        choices=tuple(MODES),
    )
    level: float = link(
        "plan_level", COMPARISON_LEVEL, "family-wise level", bounds=LEVEL_BOUNDS, percent=True
    )
    power: float = link("plan_power", 0.8, "power", bounds=(0.5, 0.99), percent=True)
    delta: float = link(
        "plan_delta", 1.0, "difference to detect (points for proportions)", bounds=(1e-6, 1e6)
    )
    new_delta: float = link(
        "plan_new_delta",
        0.0,
        "difference to detect without data (0 = each pair's assumed one)",
        bounds=(0.0, 1e6),
    )
    correction: str = link(
        "plan_correction", "maxt", "multiplicity correction", choices=tuple(POWER_CORRECTIONS)
    )
    family: int = link(
        "plan_family", 0, "comparisons in the family (0 = the pairs shown)", bounds=(0, 100_000)
    )
    models: tuple[str, ...] = link(
        "plan_models", (), "models planned for, comma-separated (default: the top three)", data=True
    )
    group: str = link(
        "plan_group", "overall", "`overall`, `weighted` or a category name", data=True
    )
    rho: float = link(
        "plan_rho", 0.0, "assumed correlation between models (task counts)", bounds=(0.0, 0.99)
    )
    accuracies: str = link("plan_acc", "70, 72", "no data: assumed accuracies (%), comma-separated")
    corr: float = link(
        "plan_corr", 0.0, "no data: correlation between models on an item", bounds=(0.0, 0.99)
    )
    items: int = link("plan_items", 1000, "no data: items per task", bounds=(2, 10**9))
    tasks: int = link("plan_tasks", 1, "no data: tasks", bounds=(1, 100_000))
    cluster: float = link("plan_cluster", 1.0, "no data: items per cluster", bounds=(1.0, 1e6))
    icc: float = link("plan_icc", 0.0, "no data: within-cluster correlation", bounds=(0.0, 1.0))
    sd: float = link(
        "plan_sd", 0.0, "no data: per-item SD (0 = right/wrong scores)", bounds=(0.0, 1e9)
    )
    within: float = link(
        "plan_within", 0.0, "K answers: within-item share of the variance (%)", bounds=(0.0, 100.0)
    )
    budget: int = link(
        "plan_budget", 0, "K answers: answers per model (0 = 4x items)", bounds=(0, 10**12)
    )
    grow: str = link(
        "plan_grow", "keep", "K answers: keep today's items or write new ones", choices=tuple(GROW)
    )
    cost: float = link("plan_cost", 0.0, "K answers: answers one new item costs", bounds=(0.0, 1e9))


def top_three(bench: Benchmark, design_of: Callable[..., pw.Design]) -> tuple[str, ...]:
    """The three best models of ``bench`` (the Plan page's default), or none when its models
    share no task (the page then says so for the models chosen); ``design_of`` is the cached
    ``power.design_from_benchmark`` (``dashboard.plan.cached.power_design``)."""
    try:
        design = design_of(bench, bench.models, "overall", 0)
    except DataError:
        return ()
    return tuple(top_models(design))


def top_models(design: pw.Design, k: int = 3) -> list[str]:
    """The ``k`` models with the highest score in the design (the Compare page's default)."""
    order = np.argsort(-design.estimate, kind="stable")[:k]
    return [design.models[i] for i in order]


def accuracies(text: str) -> list[float]:
    """Comma-separated numbers (``"70, 72"``: percentages, or mean scores), or a DataError."""
    try:
        values = [float(x) for x in text.replace(";", ",").split(",") if x.strip()]
    except ValueError:
        raise DataError(
            f"accuracies {text!r} are not numbers.", hint="write percentages: 70, 72"
        ) from None
    if len(values) < 2:
        raise DataError("give at least two accuracies, one per model.", hint="e.g. 70, 72")
    return values


def assumptions_design(s: PlanSettings) -> pw.Design:
    """The no-data design of the settings: accuracies in percent (right/wrong scores) or mean
    scores with the per-item SD ``sd``; models named A, B, C, ... with their score."""
    values = accuracies(s.accuracies)
    pct = "%" if s.sd == 0 else ""
    names = [f"{chr(65 + i % 26)}{i // 26 or ''} ({v:g}{pct})" for i, v in enumerate(values)]
    sd = None if s.sd == 0 else [s.sd] * len(values)
    return pw.design_from_assumptions(
        [v / 100 for v in values] if sd is None else values,
        s.items,
        corr=s.corr,
        cluster_size=s.cluster,
        icc=s.icc,
        tasks=s.tasks,
        sd=sd,
        models=names,
    )


def common_inputs(mode: str) -> tuple[Input, ...]:
    """The level, power, difference, multiplicity row; without data the difference defaults to
    each pair's assumed one."""
    if mode == "data":
        return COMMON_INPUTS
    return (*COMMON_INPUTS[:2], NEW_DELTA, *COMMON_INPUTS[3:])


def target(
    s: PlanSettings, design: pw.Design, pairs: Sequence[tuple[str, str]], scale: float
) -> float | np.ndarray:
    """The difference to detect in the scores' unit: one for all pairs, or without data and
    ``new_delta`` 0 each pair's assumed difference."""
    if s.mode == "data":
        return s.delta / scale
    return s.new_delta / scale if s.new_delta > 0 else pw.assumed_differences(design, pairs)


def pairs_of(models: Sequence[str]) -> list[tuple[str, str]]:
    return list(itertools.combinations(models, 2))


def reading_key(level: float, power: float, sidebar: float) -> str:
    """How to read the sentences, in plain words, with the page's level named against the
    sidebar's (issue 30: one level story)."""
    return (
        f"How to read these: *detectable at x* is the smallest true difference that today's "
        f"items would show as real in {100 * power:g}% of evaluations ({100 * power:g}% power), "
        f"judged at the {100 * level:g}% level for all pairs together — not the sidebar's "
        f"{100 * sidebar:g}%, which is for one score at a time. *Power now* is that chance for "
        "the difference you care about."
    )


def pair_table(plan: pw.PowerPlan, scale: float) -> pd.DataFrame:
    """One row per pair in display units (rounded for reading), columns named for people."""
    return pd.DataFrame(
        {
            "model A": plan.a,
            "model B": plan.b,
            "A − B now": np.round(plan.estimate * scale, 2),
            "MDE now": np.round(plan.mde * scale, 2),
            "items now": plan.design.n,
            "items needed": plan.n_required,
            "power now (%)": np.round(100 * plan.power_now, 1),
            "design effect": np.round(plan.deff, 3),
            "ICC": np.round(plan.icc, 3),
            "correlation": np.round(plan.rho, 3),
        }
    )


def plan_csv(plan: pw.PowerPlan, scale: float, unit: str) -> bytes:
    """The pair table with each pair's sentence, as CSV."""
    sentences = [plan.sentence(k, scale=scale, unit=unit) for k in range(len(plan.a))]
    return csv_bytes(pair_table(plan, scale).assign(sentence=sentences))


def caveats(plan: pw.PowerPlan) -> list[str]:
    """What the reader must know about where the variances came from."""
    d = plan.design
    out = []
    if d.rho is not None and d.name != pw.ASSUMPTIONS:
        out.append(
            f"The correlation between models ({d.rho:g}) is assumed: task counts cannot show "
            "it. Item-level results would give it."
        )
    if d.cluster_size > 1 and d.name != pw.ASSUMPTIONS:
        out.append(
            f"Clusters (mean size {d.cluster_size:.1f}): the design effect and ICC are "
            "estimated from the data."
        )
    out.append(
        "Power is per pair: the chance its family-wise interval excludes 0 when the true "
        "difference is the one to detect. More items means every task grows in proportion."
    )
    return out + list(d.notes)


NO_VARIANCE = (
    "{pair}: the two models score alike on every item (both right or both wrong), so the data "
    "show no spread of their difference to plan answers per item with; choose another pair or "
    "load more items."
)


def sampling(plan: pw.PowerPlan, k: int, s: PlanSettings) -> tuple[pw.SamplingPlan, str]:
    """K answers per item for pair ``k`` at the settings' budget, and what it means."""
    n = plan.design.n or 1000
    var_item = float(plan.var_item[k] * plan.deff[k])
    budget = s.budget or 4 * n
    sp = pw.split_budget(
        var_item,
        var_item * s.within / 100,
        budget,
        critical=plan.critical,
        z_power=plan.z_power,
        item_cost=s.cost if s.grow == "add" else 0.0,
        pool=n if s.grow == "keep" else None,
    )
    scale, unit = pw.display_scale(plan.design)
    b = sp.best
    how = "today's items only" if s.grow == "keep" else f"a new item costs {s.cost:g} answers"
    setting = f"within-item share {s.within:g}% · {how}"
    text = (
        f"Best use of {budget:,} answers per model: {sp.items[b]:,} items x {sp.k[b]} "
        f"answer(s) each, detectable at {sp.mde[b] * scale:.2f} {unit} "
        f"(one answer per item: {sp.mde[0] * scale:.2f} {unit} with {sp.items[0]:,} items)."
    )
    return sp, text, setting

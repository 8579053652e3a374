"""Analyses beyond the leaderboard: :func:`epp`, :func:`arena` (METHODS 8), :func:`diff`
(METHODS 13), :func:`subgroups` (METHODS 7) and :func:`power` (METHODS 10)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from benchuq.api.loading import load, load_battles
from benchuq.core.defaults import COMPARISON_LEVEL, POWER, REPS, SEED
from benchuq.core.validation import InvalidArgument, check_known, check_level, check_types
from benchuq.deprecation import renamed_keywords, warn_deprecated
from benchuq.results import (
    AnswersPlanResult,
    ArenaResult,
    DiffResult,
    EPPResult,
    PowerResult,
    SubgroupsResult,
)

if TYPE_CHECKING:
    import pandas as pd

    from benchuq.core.analyses.subgroups.estimates import Units
    from benchuq.core.data import Benchmark
    from benchuq.core.reading.battles import Battles

__all__ = ["answers_plan", "arena", "diff", "epp", "power", "subgroups"]


def epp(
    bench: Benchmark,
    *,
    rounds: Literal["tasks", "items"] = "tasks",
    level: float = COMPARISON_LEVEL,
    interval: Literal["rounds", "glm", "bootstrap"] = "rounds",
    reps: int = 1000,
    seed: int = SEED,
) -> EPPResult:
    """The EPP meta-score: Bradley-Terry strengths from every round as a match (METHODS 8).

    Examples
    --------
    >>> import benchuq as bq
    >>> e = bq.epp(bq.load("sample:vtab1k"))
    >>> list(e.to_frame().columns)
    ['model', 'epp', 'se', 'low', 'high', 'p_beats_average']
    """
    check_types(locals())
    from benchuq.core.analyses.epp import epp as _epp

    level = check_level(level)
    res = _epp(bench, rounds=rounds, level=level, interval=interval, reps=reps, seed=seed)
    return EPPResult(res, bench.name)


def arena(
    data: Battles,
    *,
    anchor: str | None = None,
    level: float = COMPARISON_LEVEL,
    ties: Literal["half", "davidson"] = "half",
    interval: Literal["sandwich", "bootstrap"] = "sandwich",
    control: Sequence[str] = (),
    cluster: Literal["auto", "prompt", "judge", "none"] = "auto",
    both_bad: Literal["tie", "drop"] = "tie",
    reps: int = 1000,
    seed: int | None = SEED,
) -> ArenaResult:
    """Arena ratings from pairwise battles (``model_a, model_b, winner``), as ``benchuq arena``.

    ``data``: the loaded battles (:func:`load_battles`; file paths and ``sample:`` names still
    work, deprecated: load them first). Bradley-Terry on the Elo scale with robust intervals and
    rank sets (METHODS 8b); the options are ``benchuq arena``'s (``--anchor``, ``--ties``,
    ``--interval``, ``--control``, ...).

    Examples
    --------
    >>> import benchuq as bq
    >>> battles = bq.load_battles("sample:alpaca_eval")
    >>> a = bq.arena(battles, anchor="gpt4_1106_preview")
    >>> a.to_frame().columns[:4].tolist()
    ['model', 'rating', 'low', 'high']
    """
    if isinstance(data, str | Path | list | tuple):  # the old first argument (issue 41)
        warn_deprecated("bq.arena(paths)", "bq.arena(bq.load_battles(paths))")
        data = load_battles(data)
    check_types(locals())
    from benchuq.core.analyses.arena import arena as _arena

    level = check_level(level)
    res = _arena(
        data,
        anchor=anchor,
        level=level,
        ties=ties,
        interval=interval,
        control=list(control),
        cluster=cluster,
        both_bad=both_bad,
        reps=reps,
        seed=seed,
    )
    return ArenaResult(res)


@renamed_keywords(weights="task_weights")
def diff(
    base: Benchmark,
    candidate: Benchmark | None = None,
    *,
    base_model: str | None = None,
    candidate_model: str | None = None,
    level: float = COMPARISON_LEVEL,
    margin: float = 0.0,
    task_weights: Mapping[str, float] | None = None,
    sequential: bool = False,
    fail_on: Literal["worse", "inferior", "difference", "never"] = "never",
    per_task: bool = False,
    reps: int = REPS,
    seed: int = SEED,
    statistic: str = "mean",
) -> DiffResult:
    """Did it get better? Two runs compared item by item, as ``benchuq diff`` (METHODS 13).

    Parameters
    ----------
    base, candidate
        Two runs, loaded (:func:`load`; paths still work, deprecated); or one data set as
        ``base`` with ``base_model`` and ``candidate_model`` naming the two models in it.
    level
        Interval level; per-task intervals are simultaneous over the tasks.
    margin
        In the unit the output shows: points for scores between 0 and 1 (``5`` = 5 points),
        else score units; ``equivalent`` and ``non-inferior`` verdicts test against it (the
        result and its JSON keep score units, named by ``margin_unit``).
    task_weights
        ``{task: weight}`` of the overall difference (default: the mean over tasks;
        ``weights=`` is its deprecated spelling).
    sequential
        Anytime-valid confidence sequences (valid however often the comparison is re-run).
    fail_on, per_task
        The CI gate of :meth:`DiffResult.exit_code`.
    statistic
        What each item scores when it holds several answers (METHODS 2e): ``"mean"``,
        ``"pass@K"`` or ``"pass^K"``; both runs are scored alike.

    Examples
    --------
    >>> import benchuq as bq
    >>> alpaca = bq.load("sample:alpaca_eval")
    >>> d = bq.diff(alpaca, base_model="claude-2", candidate_model="claude-2.1")
    >>> d.to_frame()[["task", "verdict"]].iloc[0].tolist()
    ['overall', 'inconclusive']
    """
    base, candidate = _loaded(base), None if candidate is None else _loaded(candidate)
    check_types(locals())
    from benchuq.core.analyses.diff import diff as _diff
    from benchuq.core.item_statistic import parse_statistic, per_item

    level = check_level(level)
    stat = parse_statistic(statistic)
    first = per_item(base, stat)
    second = None if candidate is None else per_item(candidate, stat)
    result = _diff(
        first,
        second,
        base_model=base_model,
        candidate_model=candidate_model,
        level=level,
        margin=margin,
        weights=task_weights,
        sequential=sequential,
        reps=reps,
        seed=seed,
        margin_unit="shown",
    )
    return DiffResult(result, fail_on, per_task)


def _loaded(run: Any) -> Any:
    """``run`` loaded: paths (the old first argument of :func:`diff`, deprecated) through
    :func:`load`; anything else as given (``check_types`` names a wrong type)."""
    if isinstance(run, str | Path) or (
        isinstance(run, list | tuple) and all(isinstance(r, str | Path) for r in run)
    ):
        warn_deprecated("bq.diff(paths)", "bq.diff(bq.load(paths))", stacklevel=4)
        return load(run)
    return run


@renamed_keywords(weights="unit_weights")
def subgroups(
    data: Benchmark | pd.DataFrame | Units | str | Path | Sequence[str | Path],
    *,
    group_by: Literal["task", "category", "subgroup"] | None = None,
    features: Sequence[str] | None = None,
    level: float = COMPARISON_LEVEL,
    fs_correction: Literal["PMT", "none", "FPLIB"] = "PMT",
    kappa: str | float = "estimated",
    crossfit: bool = True,
    unit_weights: Literal["equal", "precision"] = "equal",
    seed: int = SEED,
    format: str = "auto",
    tasks: str | None = None,
    metric: str | None = None,
) -> SubgroupsResult:
    """Small subgroups: direct and empirical-Bayes estimates with robust intervals (METHODS 7).

    Parameters
    ----------
    data
        A benchmark (units are model x subgroup), a DataFrame with columns
        ``unit, estimate, se`` used as given, units made by
        ``core.analyses.subgroups.estimates`` (``units_from_benchmark``, ``units_from_table``),
        or ``benchuq eb``'s ``DATA``: a ``unit, estimate, se`` CSV/TSV file (detected from its
        header), else data :func:`load` reads with ``format``, ``tasks`` and ``metric``.
    group_by
        What a subgroup is: ``"task"``, ``"category"`` or ``"subgroup"`` (the items' column);
        default ``"subgroup"`` for item data that has one, else ``"task"``.
    features
        Regression features of the shrinkage target (see ``benchuq eb --help``).
    level
        Average coverage over units of the robust EB intervals.
    unit_weights
        How units weigh in the fit of the shrinkage target: ``"equal"`` or ``"precision"``
        (``benchuq eb --weights``; ``weights=`` is its deprecated spelling).
    fs_correction, kappa, crossfit, seed
        As ``benchuq eb`` (EBCI.md).

    Examples
    --------
    >>> import pandas as pd
    >>> import benchuq as bq
    >>> units = pd.DataFrame({"unit": list("abcdefgh"),
    ...                       "estimate": [0.1, 0.4, 0.3, 0.2, 0.5, 0.35, 0.25, 0.3],
    ...                       "se": [0.1] * 8})
    >>> s = bq.subgroups(units)
    >>> list(s.to_frame().columns)
    ['unit', 'estimate', 'se', 'eb', 'low', 'high', 'w', 'cva']
    """
    check_types(locals())
    import pandas as pd

    from benchuq.core.analyses.subgroups.ebci import parse_kappa
    from benchuq.core.analyses.subgroups.estimates import (
        Units,
        analyze,
        units_from_benchmark,
        units_from_table,
    )

    level = check_level(level)
    k = parse_kappa(kappa) if isinstance(kappa, str) else kappa
    notes: tuple[str, ...] = ()
    if isinstance(data, str | Path | list | tuple):
        units, notes = _read_units(data, group_by, format=format, tasks=tasks, metric=metric)
    elif isinstance(data, Units):
        if group_by is not None:
            raise InvalidArgument("group_by does not apply to units (they are grouped already).")
        units = data
    elif isinstance(data, pd.DataFrame):
        if group_by is not None:
            raise InvalidArgument("group_by does not apply to a unit table (each row is a unit).")
        units = units_from_table(data, file="data frame")
    else:
        bench: Benchmark = data  # type: ignore[assignment]  # the one case left
        units = units_from_benchmark(bench, group_by=group_by or _group_by(bench))
    res = analyze(
        units,
        features=features,
        level=level,
        fs_correction=fs_correction,
        kappa=k,
        crossfit=crossfit,
        weights=unit_weights,
        seed=seed,
    )
    return SubgroupsResult(res, notes)


def _group_by(bench: Benchmark) -> Literal["task", "subgroup"]:
    """Subgroups of the items' column when the data has one, else tasks."""
    items = bench.item_tasks or ()
    return "subgroup" if any(it.subgroup is not None for it in items) else "task"


def _read_units(
    data: str | Path | Sequence[str | Path],
    group_by: Literal["task", "category", "subgroup"] | None,
    *,
    format: str,
    tasks: str | None,
    metric: str | None,
) -> tuple[Units, tuple[str, ...]]:
    """``benchuq eb``'s ``DATA``: a ``unit, estimate, se`` table if it is one, else units of the
    data read (with the data's notes)."""
    import io

    import pandas as pd

    from benchuq.core.analyses.subgroups.estimates import (
        is_unit_table,
        units_from_benchmark,
        units_from_table,
    )
    from benchuq.core.budget import check_read
    from benchuq.core.data import DataError
    from benchuq.core.options import option
    from benchuq.core.reading.files import read_capped
    from benchuq.core.reading.loaders import resolve
    from benchuq.core.reading.table import check_width

    sources = [str(data)] if isinstance(data, str | Path) else [str(d) for d in data]
    path = Path(sources[0])
    if len(sources) == 1 and path.is_file() and path.suffix.lower() in (".csv", ".tsv", ".txt"):
        sep = "\t" if path.suffix.lower() == ".tsv" else ","
        raw = read_capped(str(path))
        check_width(raw[: raw.find(b"\n")].count(sep.encode()) + 1, str(path))
        try:
            head = pd.read_csv(io.BytesIO(raw), sep=sep, nrows=0)
        except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as err:
            raise DataError(f"cannot read the table: {err}", file=str(path)) from None
        if is_unit_table(head.columns):
            if group_by is not None:
                raise DataError(
                    f"{option('group_by')} does not apply to a unit table (each row is a unit).",
                    file=str(path),
                )
            check_read(str(path), len(raw), path="pandas")
            table = pd.read_csv(io.BytesIO(raw), sep=sep)
            return units_from_table(table, file=str(path)), ()
    bench = resolve(sources, format=format, tasks=tasks, metric=metric)
    units = units_from_benchmark(bench, group_by=group_by or _group_by(bench))
    return units, bench.notes


@renamed_keywords(corr="rho")
def power(
    data: Benchmark | None = None,
    *,
    models: Sequence[str] | None = None,
    delta: float | None = None,
    power: float = POWER,
    level: float = COMPARISON_LEVEL,
    pairs: int | None = None,
    correction: Literal["maxt", "bonferroni", "none"] = "maxt",
    group: str = "overall",
    rho: float | None = None,
    accuracy: Sequence[float] | None = None,
    items: int | None = None,
    tasks: int = 1,
    cluster_size: float = 1.0,
    icc: float = 0.0,
    sd: Sequence[float] | None = None,
) -> PowerResult:
    """The smallest difference each pair can detect now, and the items needed (METHODS 10).

    From ``data`` (variances and correlations of the data), or without data from
    ``accuracy`` per model and ``items`` per task (with ``tasks``, ``cluster_size``, ``icc``,
    ``rho`` and, for continuous scores, ``sd``).

    Parameters
    ----------
    data
        The benchmark (``None``: plan from assumptions).
    models
        Two or more models (default: all).
    delta
        A difference to detect (a proportion: 0.01 is one point); gives the items needed.
    power
        Power, from 0.5 to below 1.
    level
        Family-wise level.
    pairs
        Comparisons in the family (default: every pair of the models).
    correction
        Critical value: ``"maxt"``, ``"bonferroni"`` or ``"none"``.
    group
        The score: ``"overall"`` or a category.
    rho
        Correlation between two models' item scores, assumed for counts and without data (as
        :func:`weights`'s ``rho``; ``benchuq power --corr``; ``corr=`` is its deprecated
        spelling).

    Examples
    --------
    >>> import benchuq as bq
    >>> p = bq.power(accuracy=[0.70, 0.75], items=500)
    >>> p.to_frame()[["a", "b", "n"]]
             a        b    n
    0  model 1  model 2  500
    """
    check_types(locals())
    import itertools

    from benchuq.core.analyses import power as pw
    from benchuq.core.validation import check_power

    level = check_level(level)
    check_power(power)
    if pairs is not None and (not isinstance(pairs, int) or pairs < 1):
        raise InvalidArgument(f"pairs {pairs!r}: use a whole number of comparisons >= 1.")
    notes: list[str] = []
    if accuracy is not None:
        if data is not None:
            raise InvalidArgument("give data or accuracy (planning without data), not both.")
        if items is None:
            raise InvalidArgument("accuracy needs items (items per task).")
        design = pw.design_from_assumptions(
            list(accuracy),
            items,
            corr=0.0 if rho is None else rho,
            cluster_size=cluster_size,
            icc=icc,
            tasks=tasks,
            sd=None if sd is None else list(sd),
            models=None if models is None else list(models),
        )
    else:
        if data is None:
            raise InvalidArgument("give data, or accuracy and items to plan without data.")
        if cluster_size != 1 or icc != 0 or sd is not None or items is not None:
            raise InvalidArgument(
                "items, cluster_size, icc and sd are for planning without data; with data the "
                "sizes, variances and clusters come from the data."
            )
        chosen = None if models is None else list(dict.fromkeys(models))
        if chosen is not None:
            check_known(chosen, data.models, what="models")
            if len(chosen) < 2:
                raise InvalidArgument("models: give two or more of the data's models.")
        if data.kind == "items" and rho is not None:
            notes.append("the assumed correlation is not used: paired item scores give it.")
        design = pw.design_from_benchmark(
            data, models=chosen, group=group, rho=0.0 if rho is None else rho
        )
    scale, _ = pw.display_scale(design)
    if delta is not None and scale == 100 and delta >= 1:
        raise InvalidArgument(f"delta {delta} is a proportion: write 0.01 for 1 point.")
    pair_list = list(itertools.combinations(design.models, 2))
    asked = delta is not None or design.name == pw.ASSUMPTIONS
    target: Any = delta
    if delta is None and design.name == pw.ASSUMPTIONS:
        target = pw.assumed_differences(design, pair_list)
    plan = pw.plan(
        design,
        pairs=pair_list,
        level=level,
        power=power,
        delta=target,
        family=pairs,
        correction=correction,
    )
    return PowerResult(plan, design, delta, asked, (*notes, *design.notes, *plan.notes))


def answers_plan(
    bench: Benchmark,
    *,
    statistic: str = "mean",
    budget: int | None = None,
    level: float = COMPARISON_LEVEL,
    pool: int | None = -1,
    item_cost: float = 0.0,
) -> AnswersPlanResult:
    """More items or more answers per item? The trade-off at a budget of answers per model and
    task, from the data's own between- and within-item variance (METHODS 10b, issue 43).

    Parameters
    ----------
    bench
        Item-level data with right/wrong answers (several per item or one).
    statistic
        ``"mean"``, ``"pass@K"`` or ``"pass^K"`` (answers per item below K are left out).
    budget
        Answers per model and task (default: what the data hold).
    level
        Interval level of the half-widths.
    pool
        Items there are per task (default ``-1``: the data's own; ``None``: no limit).
    item_cost
        A new item's cost in answers (writing or checking it).

    Examples
    --------
    >>> import benchuq as bq
    >>> import pandas as pd
    >>> rows = [("m", "t", f"q{i}", e, (i + e) % 3 == 0) for i in range(60) for e in (1, 2, 3)]
    >>> df = pd.DataFrame(rows, columns=["model", "task", "item", "epoch", "score"])
    >>> bench = bq.from_frame(df.astype({"score": int}), item="item", score="score", epoch="epoch")
    >>> plan = bq.answers_plan(bench, budget=180)
    >>> plan.to_frame()[["answers", "items"]].head(3).values.tolist()
    [[1, 60], [2, 60], [3, 60]]
    """
    from benchuq.core.analyses.answers_plan import answers_plan as _plan

    check_types(locals())
    level = check_level(level)
    return AnswersPlanResult(
        _plan(
            bench,
            statistic=statistic,
            budget=budget,
            level=level,
            pool=pool,
            item_cost=item_cost,
        ),
        bench.name,
    )

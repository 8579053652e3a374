"""The flat Python API, ``import benchuq as bq``: data in, draws, results out.

Every function validates its arguments once (bad options raise
:class:`~benchuq.core.validation.InvalidArgument`, bad data
:class:`~benchuq.core.data.DataError`), takes its options keyword-only and returns a small
frozen result (:mod:`benchuq.results`) with ``to_frame()``, ``figure()`` and the CLI's JSON
(``payload()``). The CLI subcommands call these same functions.

Examples
--------
>>> import benchuq as bq
>>> bench = bq.load("sample:toy")
>>> draws = bq.bootstrap(bench, reps=500, seed=0)
>>> draws.values.shape  # (replicates, models, tasks)
(500, 2, 3)
>>> board = bq.leaderboard(draws, level=0.95)
>>> board.to_frame().query("group == 'overall'")[["model", "estimate"]].round(3)
  model  estimate
0     B     0.525
1     A     0.500

Long on purpose: one documented function per public name of ``benchuq`` with its numpydoc
example; about half the lines are docstrings.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from benchuq.core.reading.sources import parse_source
from benchuq.core.validation import InvalidArgument, check_choice, check_known, check_level
from benchuq.results import (
    EPP,
    Arena,
    Comparison,
    Leaderboard,
    PowerResult,
    Ranks,
    RankSetsResult,
    Statistic,
    Subgroups,
    TwoRuns,
    WeightMap,
)

if TYPE_CHECKING:
    import pandas as pd

    from benchuq.core.analyses.diff import DiffResult
    from benchuq.core.analyses.subgroups.estimates import Units
    from benchuq.core.data import Benchmark
    from benchuq.core.draws import Draws
    from benchuq.core.export_eee import EEEExport
    from benchuq.core.reading.meta import Group, Meta
    from benchuq.presentation.state import Settings

__all__ = [
    "arena",
    "bayes",
    "bootstrap",
    "compare",
    "diff",
    "epp",
    "export",
    "from_frame",
    "leaderboard",
    "load",
    "normalize",
    "power",
    "rank_sets",
    "ranks",
    "report",
    "samples",
    "statistic",
    "subgroups",
    "weights",
    "write_report",
]

Weights = Sequence[float] | np.ndarray | None
Overall = Literal["auto", "benchmarks", "tasks"]
# the lm-eval groups of each benchmark :func:`load` read (what "overall" stands for)
_GROUPS: weakref.WeakKeyDictionary[Benchmark, tuple[Group, ...]] = weakref.WeakKeyDictionary()
# the app's data value (``sample:<name>``, ``shared:<id>``) of each benchmark :func:`load` read
# from a sample or a published set: what a report's share link opens (:func:`report`)
_SOURCES: weakref.WeakKeyDictionary[Benchmark, str] = weakref.WeakKeyDictionary()


def _with_headline(draws: Draws, bench: Benchmark, overall: Overall) -> Draws:
    """``draws`` whose "overall" is the headline aggregate of ``bench`` (``core.summaries.
    headline``: lm-eval's groups as benchmarks for files that have them, else the task mean)."""
    from benchuq.core.summaries.headline import headline

    return draws.with_headline(headline(bench, groups=_GROUPS.get(bench, ()), overall=overall))


# ---- data ---------------------------------------------------------------------------------
def load(
    source: str | Path | Sequence[str | Path],
    *,
    format: str = "auto",
    tasks: str | Path | None = None,
    metric: str | None = None,
    name: str | None = None,
    failed: Literal["exclude", "wrong"] = "exclude",
    runs: Literal["newest", "all"] = "newest",
) -> Benchmark:
    """Read a benchmark: anything ``DATA`` takes on the command line.

    Parameters
    ----------
    source
        ``sample:<name>`` (see :func:`samples`), ``shared:<id>`` (a published data set), or one
        or more files, folders, zip archives or glob patterns read together (lm-eval output
        folders, HELM runs, inspect_ai logs, item or long tables, ...).
    format
        The input format (``"auto"`` detects it from the content).
    tasks
        A task table (``task, category, n[, chance]``).
    metric
        The metric read from lm-eval and HELM files (default: each format's own).
    name
        The data set's name in titles (default: a sample's name, or one from the files'
        content, e.g. ``"lm-eval v0.4: 2 models x 16 benchmarks"``, as the CLI and the app say).
    failed
        Samples that failed (errors, limits): left out (``"exclude"``) or scored 0 (``"wrong"``).
    runs
        Two runs of one model on the same tasks: the newest kept, or ``"all"``.

    Returns
    -------
    Benchmark
        The immutable, content-hashed data set; its ``notes`` say what was read and skipped.

    Raises
    ------
    DataError
        A file that cannot be read, naming file, row, column and a fix.

    Examples
    --------
    >>> import benchuq as bq
    >>> bench = bq.load("sample:vtab1k")
    >>> bench.name, len(bench.models), len(bench.tasks)
    ('vtab1k', 16, 19)
    """
    sources = [str(source)] if isinstance(source, str | Path) else [str(s) for s in source]
    if not sources:
        raise InvalidArgument("no data given.", hint="pass a path or 'sample:vtab1k'.")
    shared = [s for s in sources if s.startswith("shared:")]
    if shared:
        if len(sources) > 1:
            raise InvalidArgument(f"{shared[0]} cannot be combined with other data.")
        from benchuq.store import read_shared

        loaded = read_shared(shared[0])
        _GROUPS[loaded.bench] = tuple(loaded.meta.groups)
        _SOURCES[loaded.bench] = parse_source(shared[0]).text
        return loaded.bench
    from benchuq.core.reading.loaders import FORMATS, read_data

    check_choice(format, FORMATS, name="format")
    tasks_path = None if tasks is None else str(tasks)
    loaded = read_data(
        sources, format=format, tasks=tasks_path, metric=metric, name=name, failed=failed, runs=runs
    )
    bench = loaded.bench
    one = parse_source(sources)
    if name is None and one.kind != "sample":
        from benchuq.core.reading.naming import data_name

        bench = bench._replace(name=data_name(loaded))  # as the CLI and the app name it
    _GROUPS[bench] = tuple(loaded.meta.groups)  # the headline of its draws (bootstrap)
    if one.kind == "sample":
        _SOURCES[bench] = one.text
    return bench


def samples() -> dict[str, str]:
    """The bundled sample data sets: ``{name: one-line description}`` (``load("sample:NAME")``).

    Examples
    --------
    >>> import benchuq as bq
    >>> sorted(bq.samples())
    ['alpaca_eval', 'mmlu', 'toy', 'vtab1k']
    """
    from benchuq.core.reading.loaders import SAMPLES

    return dict(SAMPLES)


def from_frame(
    df: pd.DataFrame,
    *,
    model: str = "model",
    task: str = "task",
    item: str | None = None,
    score: str | None = None,
    category: str | None = None,
    epoch: str | None = None,
    n: str | None = None,
    correct: str | None = None,
    estimate: str | None = None,
    se: str | None = None,
    name: str = "data frame",
) -> Benchmark:
    """A benchmark from a pandas DataFrame in long form, read exactly as the same table in a file.

    Three forms, by the columns named:

    - items: ``item`` and ``score`` (one row per model, task and item; binary or continuous
      scores; with ``epoch``, one row per answer: an item's score is the mean of its answers
      and it stays one item, the unit of resampling);
    - counts: ``n`` and ``correct`` (one row per model and task);
    - estimate/se: ``estimate`` and ``se`` (one row per model and task).

    Parameters
    ----------
    df
        The table.
    model, task, item, score, category, epoch, n, correct, estimate, se
        The names of the columns holding each field (``category`` optional).
    name
        The data set's name in titles and messages.

    Returns
    -------
    Benchmark
        The same benchmark as writing ``df`` (with these columns) to a CSV file and loading it.

    Raises
    ------
    InvalidArgument
        A column name that is not in ``df``, or no complete form named.
    DataError
        Bad values (missing scores, duplicates, ...), naming the row and column.

    Examples
    --------
    >>> import pandas as pd
    >>> import benchuq as bq
    >>> df = pd.DataFrame({
    ...     "system": ["a", "a", "b", "b"] * 2,
    ...     "benchmark": ["t"] * 8,
    ...     "question": [1, 2, 1, 2, 3, 4, 3, 4],
    ...     "correct": [1, 0, 1, 1, 0, 1, 1, 1],
    ... })
    >>> bench = bq.from_frame(df, model="system", task="benchmark", item="question",
    ...                       score="correct")
    >>> bench.kind, bench.models
    ('items', ('a', 'b'))
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise InvalidArgument(f"df must be a pandas DataFrame, not {type(df).__name__}.")
    named = {"model": model, "task": task, "category": category}
    if item is not None or score is not None:
        named |= {"item": item, "score": score}
        form = "items"
    elif n is not None or correct is not None:
        named |= {"n": n, "correct": correct}
        form = "long"
    elif estimate is not None or se is not None:
        named |= {"estimate": estimate, "se": se}
        form = "long"
    else:
        raise InvalidArgument(
            "name the columns of one form.",
            hint="item= and score= (item level), n= and correct= (counts), or estimate= and se=.",
        )
    missing = [ours for ours, theirs in named.items() if theirs is None and ours != "category"]
    if missing:
        raise InvalidArgument(f"from_frame needs the column names {missing} for this form.")
    columns = {ours: theirs for ours, theirs in named.items() if theirs is not None}
    if epoch is not None:
        if form != "items":
            raise InvalidArgument("epoch= needs item-level scores (item= and score=).")
        columns["epoch"] = epoch
    check_known(list(columns.values()), [str(c) for c in df.columns], what="columns of df")
    table = df[list(columns.values())].set_axis(list(columns), axis=1)
    from benchuq.core.data import DataError
    from benchuq.core.reading.loaders import load_files

    text = table.to_csv(index=False).encode()
    try:
        bench = load_files([(f"{name}.csv", text)], format=form, name=name)
    except DataError as err:  # name the DataFrame's own columns and rows
        at = ""
        if err.row is not None:
            at = f" Row {err.row} is df.iloc[{err.row - 2}]."
        raise DataError(
            err.message + at,
            file=name,
            row=err.row,
            column=columns.get(err.column or "", err.column),
            hint=err.hint,
        ) from None
    return bench


# ---- draws --------------------------------------------------------------------------------
def bootstrap(
    bench: Benchmark, *, reps: int = 2000, seed: int = 0, overall: Overall = "auto"
) -> Draws:
    """Bootstrap draws of per-task performance, the engine chosen by the data (METHODS 2).

    Item-level data: the paired item bootstrap (all models resampled on the same items; clusters
    kept); counts: task-level confidence draws; estimate/se: normal draws.

    Parameters
    ----------
    bench
        The data (:func:`load`, :func:`from_frame`).
    reps
        Replicates (at least 1; 2000 is typical, 1000 or more for 95% intervals).
    seed
        Random seed.
    overall
        What the group "overall" stands for: ``"auto"`` (lm-eval's groups as benchmarks when
        the files :func:`load` read have them, else the mean over tasks), ``"benchmarks"`` or
        ``"tasks"`` (as ``--overall``).

    Returns
    -------
    Draws
        ``values`` ``(reps, models, tasks)``, with method, seed and notes.

    Raises
    ------
    InvalidArgument
        ``reps`` not a whole number >= 1, or over the replicate cap (``core.budget``).

    Examples
    --------
    >>> import benchuq as bq
    >>> d = bq.bootstrap(bq.load("sample:vtab1k"), reps=200, seed=1)
    >>> d.values.shape
    (200, 16, 19)
    """
    from benchuq.core.budget import check_cap, check_cells
    from benchuq.core.methods.bootstrap import bootstrap as _bootstrap

    if isinstance(reps, bool) or not isinstance(reps, int | np.integer) or reps < 1:
        raise InvalidArgument(
            f"reps must be a whole number >= 1, got {reps!r}.", hint="2000 is typical."
        )
    check_cap("reps", int(reps), flag="reps")
    check_cells(int(reps), len(bench.models), len(bench.tasks))
    return _with_headline(_bootstrap(bench, reps=int(reps), seed=seed), bench, overall)


def bayes(
    bench: Benchmark,
    *,
    priors: Sequence[str] | Mapping[str, Any] | None = None,
    chains: int = 4,
    draws: int = 2000,
    warmup: int = 1000,
    seed: int = 0,
    sampler: Literal["imh", "gibbs"] = "imh",
    interval: Literal["parameter", "predictive"] = "parameter",
) -> Draws:
    """Posterior draws of the Bayesian hierarchical model (METHODS 6; counts data).

    Parameters
    ----------
    bench
        Counts data (``n`` and ``correct`` per model and task).
    priors
        Prior specs as on the command line (``["*:a=gamma(2,0.01),b=gamma(2,0.01)"]``), or a
        ``{model: ModelPrior}`` mapping (``core.methods.bayes.priors``); default
        ``exponential(1e-4)``.
    chains, draws, warmup
        MCMC chains, kept draws per chain, warm-up sweeps per chain.
    seed
        Random seed.
    sampler
        ``"imh"`` (independence Metropolis-Hastings, fast) or ``"gibbs"``; same posterior.
    interval
        ``"parameter"`` (theta) or ``"predictive"`` (k/n of a fresh test set of the same size).

    Returns
    -------
    Draws
        ``chains * draws`` posterior draws; convergence warnings are in ``notes``.

    Examples
    --------
    >>> import benchuq as bq
    >>> d = bq.bayes(bq.load("sample:toy"), chains=2, draws=200, warmup=100, seed=0)
    >>> d.values.shape
    (400, 2, 3)
    """
    from benchuq.core.methods.bayes.model import fit
    from benchuq.core.methods.bayes.priors import parse_prior_specs

    check_choice(sampler, ("imh", "gibbs"), name="sampler")
    check_choice(interval, ("parameter", "predictive"), name="interval")
    if chains < 1 or draws < 100 or warmup < 0:
        raise InvalidArgument(
            f"chains {chains}, draws {draws}, warmup {warmup}: use chains >= 1 (4 recommended), "
            "draws >= 100 (2000 typical) and warmup >= 0 (1000 typical)."
        )
    if priors is None or isinstance(priors, Mapping):
        parsed = None if priors is None else dict(priors)
    else:
        parsed = parse_prior_specs(list(priors), bench.models)
    result = fit(
        bench,
        priors=parsed,
        chains=chains,
        draws=draws,
        warmup=warmup,
        seed=seed,
        sampler=sampler,
    )
    from benchuq.core.reading.answers import answer_counts

    posterior = result.to_draws(kind=interval)
    posterior = replace(posterior, data=bench.name, counts=answer_counts(bench))
    return _with_headline(posterior, bench, "auto")


def normalize(
    draws: Draws,
    *,
    mode: Literal["minmax", "paper", "chance"] = "minmax",
    chance: np.ndarray | Sequence[float] | None = None,
) -> Draws:
    """Per-task normalized draws (METHODS 3): ``(x - low) / (high - low)``.

    ``mode``: ``"minmax"`` (observed min/max over models, chance level as low where given),
    ``"paper"`` (min/max over models and replicates, as [LGC]) or ``"chance"``
    (``(x - chance) / (1 - chance)``); ``chance`` per task, e.g. ``bench.chance``.

    Examples
    --------
    >>> import benchuq as bq
    >>> bench = bq.load("sample:vtab1k")
    >>> bq.normalize(bq.bootstrap(bench, reps=100), chance=bench.chance).normalization
    'minmax'
    """
    from benchuq.core.summaries.normalization import normalize as _normalize

    return _normalize(draws, mode=mode, chance=None if chance is None else np.asarray(chance))


# ---- results ------------------------------------------------------------------------------
def leaderboard(draws: Draws, *, level: float = 0.834, weights: Weights = None) -> Leaderboard:
    """Scores with percentile intervals, overall and per category (METHODS 2).

    Parameters
    ----------
    draws
        From :func:`bootstrap` or :func:`bayes`.
    level
        Interval level. The default 0.834 makes non-overlap of two independent intervals
        about a 5% test [GH]; ``tied_with_leader`` is the paired test against the leader.
    weights
        Category weights (one per category, summing to 1): adds the group ``"weighted"``, the
        score ``S(w)`` the app's sidebar weights give.

    Returns
    -------
    Leaderboard
        ``to_frame()``: ``model, group, estimate, low, high, mc_error_low, mc_error_high,
        tied_with_leader, se, n_items, n_answers`` (the rows of ``benchuq leaderboard --json``,
        best first within each group; the items and answers behind each score).

    Examples
    --------
    >>> import benchuq as bq
    >>> board = bq.leaderboard(bq.bootstrap(bq.load("sample:toy"), reps=500), level=0.9)
    >>> board
    Leaderboard(data='toy', level=0.9, 4 rows)
    >>> list(board.to_frame().columns)[:5]
    ['model', 'group', 'estimate', 'low', 'high']
    """
    from benchuq.core.reading.answers import group_counts
    from benchuq.core.summaries import leaderboard as _leaderboard
    from benchuq.core.summaries.leader import overlap_test_level

    level = check_level(level)
    table = group_counts(draws, _leaderboard(draws, level=level, weights=weights))
    return Leaderboard(table, level, overlap_test_level(level), draws)


def compare(
    draws: Draws,
    *,
    models: Sequence[str] | None = None,
    level: float = 0.95,
    correction: Literal["maxt", "bonferroni", "holm", "none"] = "maxt",
    group: str | Sequence[float] = "overall",
) -> Comparison:
    """Differences ``a - b`` for every pair of ``models``, simultaneous intervals (METHODS 4b).

    Parameters
    ----------
    draws
        Paired draws (item data) make the differences honest about correlation.
    models
        Two or more models (default: all), in the order pairs are formed.
    level
        Family-wise level.
    correction
        ``"maxt"`` (bootstrap max-T, default), ``"bonferroni"``, ``"holm"`` or ``"none"``.
    group
        The score: ``"overall"``, a category or category weights.

    Returns
    -------
    Comparison
        ``to_frame()``: ``a, b, estimate, low, high, p_value, prob_a_better, ...``, the items
        behind each score (``items_a``, ``n_items_a``, ``n_answers_a`` and the same for ``b``).

    Examples
    --------
    >>> import benchuq as bq
    >>> d = bq.bootstrap(bq.load("sample:toy"), reps=500)
    >>> bq.compare(d, level=0.95).to_frame()[["a", "b"]]
       a  b
    0  A  B
    """
    from benchuq.core.reading.answers import model_counts
    from benchuq.core.summaries import pairwise_differences
    from benchuq.core.summaries.scores import WEIGHTED

    level = check_level(level)
    chosen = list(dict.fromkeys(draws.models if models is None else models))
    check_known(chosen, draws.models, what="models")
    if len(chosen) < 2:
        raise InvalidArgument("compare needs at least two different models.")
    table = pairwise_differences(draws, chosen, level=level, correction=correction, group=group)
    counts = model_counts(draws, group=group if isinstance(group, str) else WEIGHTED)
    table = table.join(counts.add_suffix("_a"), on="a").join(counts.add_suffix("_b"), on="b")
    return Comparison(table, level, correction, draws)


def _group(draws: Draws, weights: Weights) -> str | np.ndarray:
    return "overall" if weights is None else np.asarray(weights, dtype=float)


def rank_sets(draws: Draws, *, level: float = 0.95, weights: Weights = None) -> RankSetsResult:
    """Rank confidence sets, marginal and simultaneous, of the overall or weighted score
    (METHODS 4b).

    Examples
    --------
    >>> import benchuq as bq
    >>> sets = bq.rank_sets(bq.bootstrap(bq.load("sample:vtab1k"), reps=300), level=0.95)
    >>> len(sets.top_set(k=1)) >= 1
    True
    """
    from benchuq.core.summaries import group_scores
    from benchuq.core.summaries.rank_sets import rank_sets as _rank_sets

    level = check_level(level)
    sc = group_scores(draws, group=_group(draws, weights))
    sets = _rank_sets(
        sc.values,
        sc.observed,
        draws.models,
        level=level,
        higher_is_better=sc.higher_is_better,
        label=sc.label,
    )
    return RankSetsResult(sets, draws)


def ranks(draws: Draws, *, level: float = 0.95, weights: Weights = None) -> Ranks:
    """Five rank aggregations with intervals, rank probabilities and rank sets (METHODS 4).

    ``weights`` (one per category, summing to 1) choose the score of the rank probabilities and
    sets; default the mean over all tasks.

    Examples
    --------
    >>> import benchuq as bq
    >>> r = bq.ranks(bq.bootstrap(bq.load("sample:toy"), reps=300))
    >>> sorted(set(r.to_frame()["method"]))[:2]
    ['average_rank', 'average_rank_bins']
    """
    from benchuq.core.reading.answers import model_counts
    from benchuq.core.small_samples import FEW_ITEMS, group_items
    from benchuq.core.summaries import rank_aggregations, rank_probabilities

    level = check_level(level)
    group = _group(draws, weights)
    sets = rank_sets(draws, level=level, weights=weights)
    table = rank_aggregations(draws, level=level)
    items = group_items(draws)  # items behind each model's scores (few flagged, METHODS 2d)
    table = table.assign(
        items=table["model"].map(dict(zip(draws.models, items, strict=True))),
        few_items=table["model"].map(dict(zip(draws.models, items < FEW_ITEMS, strict=True))),
    ).join(model_counts(draws), on="model")
    probs = rank_probabilities(draws, group=group)
    w = None if weights is None else tuple(float(x) for x in np.asarray(weights, dtype=float))
    return Ranks(table, probs, sets, w, level, draws)


def weights(
    data: Benchmark | Draws,
    *,
    categories: Sequence[str] | None = None,
    merge: Mapping[str, str] | None = None,
    at: Sequence[float] | np.ndarray | None = None,
    z: float = 2.0,
    rho: float = 0.0,
    resolution: int = 100,
    use_pairing: bool = True,
) -> WeightMap:
    """Who leads at each weighting of 2 or 3 categories, with the SE rule (METHODS 5).

    Parameters
    ----------
    data
        A :class:`Benchmark` (analytic variances, models independent with correlation
        ``rho``) or :class:`Draws` (variances of the draws; paired draws give each
        difference its own correlation).
    categories
        The 2 or 3 categories to weight (the others get weight 0).
    merge
        ``{category: group}``: merge categories into 2 or 3 groups (instead of ``categories``).
    at
        One weight vector to report (default: a grid of ``resolution`` steps per side).
    z
        SE multiplier: a lead counts where ``S_A - S_B >= z * SE_AB`` (2: about 95%).
    rho
        Assumed between-model correlation (without paired draws).
    use_pairing
        Read the correlation from paired draws (``False``: assume ``rho``).

    Examples
    --------
    >>> import benchuq as bq
    >>> m = bq.weights(bq.load("sample:vtab1k"), resolution=10)
    >>> len(m.to_frame())
    66
    """
    from benchuq.core.data import Benchmark as _Benchmark
    from benchuq.core.summaries.dominance import (
        dominance_map,
        map_categories,
        moments_from_benchmark,
        moments_from_draws,
    )

    names = data.category_names
    if categories is not None and merge is not None:
        raise InvalidArgument("give categories or merge, not both.")
    if len(names) > 3 and categories is None and merge is None:
        raise InvalidArgument(
            f"the data has {len(names)} categories ({', '.join(names)}); a map shows 2 or 3.",
            hint="pick them with categories=[...] (the others get weight 0) or merge them with "
            "merge={category: group}.",
        )
    mapping = map_categories(names, pick=categories, merge=merge)
    if isinstance(data, _Benchmark):
        moments, name = moments_from_benchmark(data, mapping=mapping), data.name
    else:
        moments, name = moments_from_draws(data, mapping=mapping), data.data
    point = None
    if at is not None:
        point = np.asarray(at, dtype=float)
        if point.ndim != 1 or np.any(~np.isfinite(point)) or np.any(point < 0) or point.sum() <= 0:
            raise InvalidArgument(f"at={list(np.ravel(point))}: give non-negative weights.")
        point = (point / point.sum())[None, :]
    dm = dominance_map(
        moments, z=z, rho=rho, resolution=resolution, weights=point, use_pairing=use_pairing
    )
    return WeightMap(dm, name)


def epp(
    bench: Benchmark,
    *,
    rounds: Literal["tasks", "items"] = "tasks",
    level: float = 0.95,
    interval: Literal["rounds", "glm", "bootstrap"] = "rounds",
    reps: int = 1000,
    seed: int = 0,
) -> EPP:
    """The EPP meta-score: Bradley-Terry strengths from every round as a match (METHODS 8).

    Examples
    --------
    >>> import benchuq as bq
    >>> e = bq.epp(bq.load("sample:vtab1k"))
    >>> list(e.to_frame().columns)
    ['model', 'epp', 'se', 'low', 'high', 'p_beats_average']
    """
    from benchuq.core.analyses.epp import epp as _epp

    level = check_level(level)
    res = _epp(bench, rounds=rounds, level=level, interval=interval, reps=reps, seed=seed)
    return EPP(res, bench.name)


def arena(
    data: str | Path | Sequence[str | Path],
    *,
    anchor: str | None = None,
    level: float = 0.95,
    ties: Literal["half", "davidson"] = "half",
    interval: Literal["sandwich", "bootstrap"] = "sandwich",
    control: Sequence[str] = (),
    cluster: Literal["auto", "prompt", "judge", "none"] = "auto",
    both_bad: Literal["tie", "drop"] = "tie",
    reps: int = 1000,
    seed: int | None = 0,
) -> Arena:
    """Arena ratings from pairwise battles (``model_a, model_b, winner``), as ``benchuq arena``.

    Bradley-Terry on the Elo scale with robust intervals and rank sets (METHODS 8b); the options
    are ``benchuq arena``'s (``--anchor``, ``--ties``, ``--interval``, ``--control``, ...).

    Examples
    --------
    >>> import benchuq as bq
    >>> a = bq.arena("sample:alpaca_eval", anchor="gpt4_1106_preview")
    >>> a.to_frame().columns[:4].tolist()
    ['model', 'rating', 'low', 'high']
    """
    from benchuq.core.analyses.arena import arena as _arena
    from benchuq.core.reading.battles import load_battles

    level = check_level(level)
    sources = [data] if isinstance(data, str | Path) else list(data)
    battles = load_battles([str(s) for s in sources])
    res = _arena(
        battles,
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
    return Arena(res)


def diff(
    base: Benchmark | str | Path | Sequence[str | Path],
    candidate: Benchmark | str | Path | Sequence[str | Path] | None = None,
    *,
    base_model: str | None = None,
    candidate_model: str | None = None,
    level: float = 0.95,
    margin: float = 0.0,
    weights: Mapping[str, float] | None = None,
    sequential: bool = False,
    fail_on: Literal["worse", "inferior", "difference", "never"] = "never",
    per_task: bool = False,
    reps: int = 2000,
    seed: int = 0,
) -> TwoRuns:
    """Did it get better? Two runs compared item by item, as ``benchuq diff`` (METHODS 13).

    Parameters
    ----------
    base, candidate
        Two runs (a :class:`Benchmark` or anything :func:`load` takes); or one data set as
        ``base`` with ``base_model`` and ``candidate_model`` naming the two models in it.
    level
        Interval level; per-task intervals are simultaneous over the tasks.
    margin
        In the unit the output shows: points for scores between 0 and 1 (``5`` = 5 points),
        else score units; ``equivalent`` and ``non-inferior`` verdicts test against it (the
        result and its JSON keep score units, named by ``margin_unit``).
    weights
        ``{task: weight}`` of the overall difference (default: the mean over tasks).
    sequential
        Anytime-valid confidence sequences (valid however often the comparison is re-run).
    fail_on, per_task
        The CI gate of :meth:`TwoRuns.exit_code`.

    Examples
    --------
    >>> import benchuq as bq
    >>> alpaca = bq.load("sample:alpaca_eval")
    >>> d = bq.diff(alpaca, base_model="claude-2", candidate_model="claude-2.1")
    >>> d.to_frame()[["task", "verdict"]].iloc[0].tolist()
    ['overall', 'inconclusive']
    """
    from benchuq.core.analyses.diff import diff as _diff
    from benchuq.core.data import Benchmark as Data

    level = check_level(level)
    first = base if isinstance(base, Data) else load(base)
    second = candidate if candidate is None or isinstance(candidate, Data) else load(candidate)
    result = _diff(
        first,
        second,
        base_model=base_model,
        candidate_model=candidate_model,
        level=level,
        margin=margin,
        weights=weights,
        sequential=sequential,
        reps=reps,
        seed=seed,
        margin_unit="shown",
    )
    return TwoRuns(result, fail_on, per_task)


def subgroups(
    data: Benchmark | pd.DataFrame | Units,
    *,
    group_by: Literal["task", "category", "subgroup"] | None = None,
    features: Sequence[str] | None = None,
    level: float = 0.95,
    fs_correction: Literal["PMT", "none", "FPLIB"] = "PMT",
    kappa: str | float = "estimated",
    crossfit: bool = True,
    weights: Literal["equal", "precision"] = "equal",
    seed: int = 0,
) -> Subgroups:
    """Small subgroups: direct and empirical-Bayes estimates with robust intervals (METHODS 7).

    Parameters
    ----------
    data
        A benchmark (units are model x subgroup), a DataFrame with columns
        ``unit, estimate, se`` used as given, or units made by
        ``core.analyses.subgroups.estimates`` (``units_from_benchmark``, ``units_from_table``).
    group_by
        What a subgroup is: ``"task"``, ``"category"`` or ``"subgroup"`` (the items' column);
        default ``"subgroup"`` for item data that has one, else ``"task"``.
    features
        Regression features of the shrinkage target (see ``benchuq eb --help``).
    level
        Average coverage over units of the robust EB intervals.
    fs_correction, kappa, crossfit, weights, seed
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
    if isinstance(data, Units):
        if group_by is not None:
            raise InvalidArgument("group_by does not apply to units (they are grouped already).")
        units = data
    elif isinstance(data, pd.DataFrame):
        if group_by is not None:
            raise InvalidArgument("group_by does not apply to a unit table (each row is a unit).")
        units = units_from_table(data, file="data frame")
    else:
        if group_by is None:
            items = data.item_tasks or ()
            group_by = "subgroup" if any(it.subgroup is not None for it in items) else "task"
        units = units_from_benchmark(data, group_by=group_by)
    res = analyze(
        units,
        features=features,
        level=level,
        fs_correction=fs_correction,
        kappa=k,
        crossfit=crossfit,
        weights=weights,
        seed=seed,
    )
    return Subgroups(res)


def power(
    data: Benchmark | None = None,
    *,
    models: Sequence[str] | None = None,
    delta: float | None = None,
    power: float = 0.8,
    level: float = 0.95,
    pairs: int | None = None,
    correction: Literal["maxt", "bonferroni", "none"] = "maxt",
    group: str = "overall",
    corr: float | None = None,
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
    ``corr`` and, for continuous scores, ``sd``).

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
    corr
        Correlation between two models' item scores (assumed for counts and without data).

    Examples
    --------
    >>> import benchuq as bq
    >>> p = bq.power(accuracy=[0.70, 0.75], items=500)
    >>> p.to_frame()[["a", "b", "n"]]
             a        b    n
    0  model 1  model 2  500
    """
    import itertools

    from benchuq.core.analyses import power as pw

    level = check_level(level)
    if not 0.5 <= power < 1:
        raise InvalidArgument(f"power {power} must be from 0.5 to below 1 (e.g. 0.8).")
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
            corr=0.0 if corr is None else corr,
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
        if data.kind == "items" and corr is not None:
            notes.append("corr is not used: paired item scores give the correlation.")
        rho = 0.0 if corr is None else corr
        design = pw.design_from_benchmark(data, models=chosen, group=group, rho=rho)
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
    return PowerResult(plan, design, delta, asked, (*notes, *design.notes))


def statistic(
    draws: Draws,
    fn: Callable[[np.ndarray], Any],
    *,
    level: float = 0.95,
    name: str | None = None,
) -> Statistic:
    """Any statistic of the per-task scores, with a percentile interval over the draws.

    ``fn`` takes the ``(models, tasks)`` score matrix and returns one number or one number per
    model (e.g. an interquartile mean over tasks, as rliable); it is applied to the observed
    scores and to every draw, and the interval is the percentile interval of the draws' values
    (METHODS 2). Orientation is ``fn``'s: scores are as in the data (higher is better unless a
    task says otherwise).

    Parameters
    ----------
    draws
        From :func:`bootstrap` or :func:`bayes`.
    fn
        ``(M, T) array -> float or (M,) or (K,) array``.
    level
        Interval level.
    name
        The statistic's name (default ``fn.__name__``).

    Returns
    -------
    Statistic
        ``to_frame()``: ``label, estimate, low, high`` (labels are the models when ``fn``
        gives one value per model).

    Examples
    --------
    >>> import numpy as np
    >>> import benchuq as bq
    >>> d = bq.bootstrap(bq.load("sample:toy"), reps=400)
    >>> worst = bq.statistic(d, lambda s: np.nanmin(s, axis=1), name="worst task")
    >>> worst.labels
    ('A', 'B')
    """
    level = check_level(level)
    if not callable(fn):
        raise InvalidArgument(f"fn must be a function of the (models, tasks) scores, not {fn!r}.")
    observed = np.atleast_1d(np.asarray(fn(np.array(draws.observed)), dtype=float))
    if observed.ndim != 1:
        raise InvalidArgument(
            f"fn must return a number or a 1-D array, got shape {observed.shape}."
        )
    values = np.empty((draws.reps, observed.size))
    for r in range(draws.reps):
        v = np.atleast_1d(np.asarray(fn(draws.values[r]), dtype=float))
        if v.shape != observed.shape:
            raise InvalidArgument(
                f"fn returned shape {v.shape} on draw {r}, {observed.shape} on the observed scores."
            )
        values[r] = v
    q = np.nanquantile(values, [(1 - level) / 2, (1 + level) / 2], axis=0)
    label = str(name or getattr(fn, "__name__", "statistic"))
    if label == "<lambda>":
        label = "statistic"
    labels = draws.models if observed.size == len(draws.models) else (label,)
    if observed.size not in (1, len(draws.models)):
        labels = tuple(f"{label}[{k}]" for k in range(observed.size))
    return Statistic(label, tuple(labels), observed, q[0], q[1], values, level, draws)


# ---- the report ---------------------------------------------------------------------------
def report(
    bench: Benchmark,
    path: str | Path,
    *,
    draws: Draws | None = None,
    level: float = 0.834,
    reps: int = 2000,
    seed: int = 0,
    models: Sequence[str] | None = None,
    weights: Weights = None,
    format: Literal["html", "pdf"] | None = None,
) -> Path:
    """Write the report ``benchuq report`` writes (self-contained HTML, or PDF via chromium).

    Parameters
    ----------
    bench
        The data.
    path
        Where to write; the format follows the suffix (``.pdf``) unless ``format`` is given.
    draws
        The draws to report on (default: :func:`bootstrap` with ``reps`` and ``seed``).
    level
        Interval level.
    models
        Report on these models only (default: all).
    weights
        Category weights (one per category, summing to 1) of the score the report is about
        (default: the overall score, as the app's Report page; see :func:`bootstrap`'s
        ``overall``).

    Returns
    -------
    Path
        The file written. Its share link opens the app on the same view (data, method, level,
        replicates, seed, metric, overall score, models and weights) when the data are a sample
        or a published data set (``load("shared:<id>")``); for other data it says to publish
        them first.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import benchuq as bq
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "toy.html"
    >>> bq.report(bq.load("sample:toy"), out, reps=200).suffix
    '.html'
    """
    path = Path(path)
    fmt = format or ("pdf" if path.suffix.lower() == ".pdf" else "html")
    check_choice(fmt, ("html", "pdf"), name="format")
    level = check_level(level)
    if draws is None:
        draws = bootstrap(bench, reps=reps, seed=seed)
    if models is not None:
        check_known(list(models), draws.models, what="models")
        draws = draws.select_models(list(dict.fromkeys(models)))
    from benchuq.presentation.report import command
    from benchuq.presentation.report_link import share_query, weights_flags

    view = _view(bench, draws, level, weights)
    data = view.data if parse_source(view.data).linkable else "DATA"
    shown = list(view.models) if view.models != bench.models else []
    extra = weights_flags(None if weights is None else view.weights)
    extra += ["--overall", view.overall] if view.overall != "auto" else []
    extra += ["--normalize"] if view.metric == "normalized" else []
    cmd = command([data], view.method, draws.reps, view.seed, level, shown, extra)
    score = "overall" if weights is None else "weighted"
    query = share_query(view, bench.models, score=score)
    write_report(
        bench, draws, path, fmt=fmt, level=level, weights=weights, query=query, command=cmd
    )
    return path


def _view(bench: Benchmark, draws: Draws, level: float, weights: Weights) -> Settings:
    """The app's settings of a report on ``draws`` of ``bench`` (:func:`report`'s link): the data
    value is ``upload`` (no link) unless ``bench`` was loaded from a sample or a published set."""
    from benchuq.core.reading.sources import UPLOAD
    from benchuq.core.summaries.headline import headline
    from benchuq.presentation.state import Settings

    source = _SOURCES.get(bench, UPLOAD) if draws.data == bench.name else UPLOAD
    auto = headline(bench, groups=_GROUPS.get(bench, ()), overall="auto").kind
    kind = draws.headline.kind if draws.headline is not None else "tasks"
    return Settings(
        data=source,
        method="bayes" if draws.method.startswith("Bayesian") else "bootstrap",
        level=level,
        reps=draws.reps,
        seed=draws.seed or 0,
        metric="raw" if draws.normalization is None else "normalized",
        overall="auto" if kind == auto else kind,
        weights=() if weights is None else tuple(float(w) for w in np.asarray(weights)),
        models=tuple(m for m in bench.models if m in draws.models),  # data order, as the app
    )


def export(
    bench: Benchmark,
    path: str | Path,
    *,
    draws: Draws | None = None,
    level: float = 0.95,
    reps: int = 2000,
    seed: int = 0,
    format: Literal["eee"] = "eee",
    timestamp: str | None = None,
) -> EEEExport:
    """Write Every Eval Ever files with benchuq's uncertainty, as ``benchuq export --format eee``.

    One aggregate JSON per model (schema 0.3.0; ``score_details.uncertainty`` filled with the
    draws' standard error, the percentile interval at ``level``, the number of items and of
    replicates) and, for item-level data, the instance-level JSONL (METHODS 12).

    Parameters
    ----------
    bench
        The data.
    path
        The folder to write into (made if missing).
    draws
        The draws behind the uncertainty (default: :func:`bootstrap` with ``reps`` and ``seed``).
    level
        Confidence level of the intervals.
    format
        ``"eee"`` (Every Eval Ever), the one format so far.
    timestamp
        The ``retrieved_timestamp`` written (Unix seconds as text; default: now).

    Returns
    -------
    EEEExport
        The files written (``files``, ``documents()``, ``zip_bytes()``).

    Examples
    --------
    >>> import tempfile
    >>> import benchuq as bq
    >>> out = bq.export(bq.load("sample:toy"), tempfile.mkdtemp(), reps=200, timestamp="0")
    >>> out.aggregates, out.instances
    (2, 0)
    """
    from benchuq.core.export_eee import export_eee

    check_choice(format, ("eee",), name="format")
    level = check_level(level)
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise InvalidArgument(f"path {str(target)!r} is a file; give a folder to write into.")
    if draws is None:
        draws = bootstrap(bench, reps=reps, seed=seed)
    result = export_eee(bench, draws, level=level, retrieved_timestamp=timestamp)
    result.write(target)
    return result


def write_report(
    bench: Benchmark,
    draws: Draws,
    path: Path,
    *,
    fmt: str,
    level: float,
    weights: Weights = None,
    query: str = "",
    command: str = "",
    warnings: Sequence[str] = (),
    diagnostics: pd.DataFrame | None = None,
    two_runs: DiffResult | None = None,
    meta: Meta | None = None,
) -> None:
    """The report of ``draws`` written to ``path`` (the one path of ``benchuq report`` and
    :func:`report`), with a "Two runs" section when ``two_runs`` is given; ``meta`` (what the
    files said) gives the run details."""
    from benchuq.core.findings import findings
    from benchuq.presentation import report as layout
    from benchuq.presentation.colors import model_colors
    from benchuq.presentation.figures.common import FigureOptions

    group = _group(draws, weights)
    scale, axis, suffix = layout.display_unit(bench, normalized=draws.normalization is not None)
    f = findings(
        bench,
        draws,
        level=level,
        group=group,
        scale=scale,
        suffix=suffix,
        warnings=warnings,
        diagnostics=diagnostics,
    )
    options = FigureOptions(model_colors(bench.models), scale, axis)
    built = layout.build(
        f,
        bench,
        draws,
        level,
        query=query,
        command=command,
        options=options,
        scale=scale,
        unit=axis,
        group=group,
        meta=meta,
    )
    runs = None
    if two_runs is not None:
        from benchuq.presentation.figures.diff import difference_figure

        runs = (two_runs, difference_figure(two_runs, options))
    with layout.kaleido_svg() as svg:
        document = built.html(svg, two_runs=runs)
    if fmt == "pdf":
        path.write_bytes(layout.to_pdf(document))
    else:
        path.write_text(document, encoding="utf-8")

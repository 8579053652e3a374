"""Files out: :func:`report` (HTML/PDF, as ``benchuq report``), :func:`export` (Every Eval
Ever, METHODS 12) and :func:`write_report`, the one path both the CLI and :func:`report` write
through."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from benchuq.api.draws import bootstrap
from benchuq.api.options import Group, score_group, weights_of
from benchuq.core.defaults import COMPARISON_LEVEL, LEVEL, REPS, SEED
from benchuq.core.reading.sources import parse_source
from benchuq.core.validation import (
    InvalidArgument,
    check_choice,
    check_known,
    check_level,
    check_types,
)
from benchuq.deprecation import renamed_keywords

if TYPE_CHECKING:
    import pandas as pd

    from benchuq.core.analyses.diff import DiffResult
    from benchuq.core.data import Benchmark
    from benchuq.core.draws import Draws
    from benchuq.core.export_eee import EEEExport
    from benchuq.core.reading.meta import Meta
    from benchuq.presentation.state import Settings

__all__ = ["export", "output_draws", "report", "write_report"]


def output_draws(
    bench: Benchmark, path: str | Path, draws: Draws | None, *, reps: int, seed: int
) -> tuple[Path, Draws]:
    """The folder ``path`` (refused when it is a file) and the draws to write from: ``draws``,
    else :func:`bootstrap` of ``bench`` with ``reps`` and ``seed`` (:func:`export`,
    :func:`benchuq.api.site`)."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise InvalidArgument(f"path {str(target)!r} is a file; give a folder to write into.")
    return target, bootstrap(bench, reps=reps, seed=seed) if draws is None else draws


@renamed_keywords(weights="group")
def report(
    bench: Benchmark,
    path: str | Path,
    *,
    draws: Draws | None = None,
    level: float = LEVEL,
    reps: int = REPS,
    seed: int = SEED,
    models: Sequence[str] | None = None,
    group: Group = "overall",
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
    group
        The score the report is about: ``"overall"`` (default, as the app's Report page; see
        :func:`bootstrap`'s ``overall``) or category weights (one per category, summing to 1;
        ``weights=`` is its deprecated spelling).

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
    check_types(locals())
    if isinstance(group, str) and group != "overall":
        raise InvalidArgument(
            f"group {group!r}: a report is about the overall score or category weights.",
            hint="pass group='overall' or one weight per category.",
        )
    weights = weights_of(group)
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
    write_report(bench, draws, path, fmt=fmt, level=level, group=group, query=query, command=cmd)
    return path


def _view(bench: Benchmark, draws: Draws, level: float, weights: np.ndarray | None) -> Settings:
    """The app's settings of a report on ``draws`` of ``bench`` (:func:`report`'s link): the data
    value is ``upload`` (no link) unless ``bench`` was loaded from a sample or a published set."""
    from benchuq.core.reading.sources import UPLOAD
    from benchuq.core.summaries.headline import headline
    from benchuq.presentation.state import Settings

    source = bench.context.source if draws.data == bench.name else ""
    auto = headline(bench, groups=bench.context.groups, overall="auto").kind
    kind = draws.headline.kind if draws.headline is not None else "tasks"
    return Settings(
        data=source or UPLOAD,
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
    level: float = COMPARISON_LEVEL,
    reps: int = REPS,
    seed: int = SEED,
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
    check_types(locals())
    from benchuq.core.export_eee import export_eee

    check_choice(format, ("eee",), name="format")
    level = check_level(level)
    target, draws = output_draws(bench, path, draws, reps=reps, seed=seed)
    result = export_eee(
        bench, draws, level=level, meta=bench.context.meta, retrieved_timestamp=timestamp
    )
    result.write(target)
    return result


@renamed_keywords(weights="group")
def write_report(
    bench: Benchmark,
    draws: Draws,
    path: Path,
    *,
    fmt: str,
    level: float,
    group: Group = "overall",
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
    check_types(locals())
    from benchuq.core.findings import findings
    from benchuq.presentation import report as layout
    from benchuq.presentation.colors import model_colors
    from benchuq.presentation.figures.common import FigureOptions

    if fmt == "pdf":  # at once, before any work: without chromium, say so (issue 38)
        layout.require_chromium("A PDF report")
    group = score_group(group)
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
    document = built.html(two_runs=runs)
    if fmt == "pdf":
        path.write_bytes(layout.to_pdf(document))
    else:
        path.write_text(document, encoding="utf-8")

"""``benchuq report``: one self-contained HTML or PDF report of a data set (findings, figures,
caveats, how to reproduce it); ``core.findings`` computes it, ``presentation.report`` lays it
out."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from benchuq.cli.cmd_ranks import parse_weights
from benchuq.cli.common import (
    add_data_arguments,
    add_method_arguments,
    add_normalize_arguments,
    add_notes,
    bayes_settings,
    check_level,
    load_benchmark,
    make_draws,
    maybe_normalize,
    note_headline,
)
from benchuq.core.defaults import LEVEL

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

    from benchuq.core.data import Benchmark
    from benchuq.core.draws import Draws
    from benchuq.core.reading.judge_data import JudgeData
    from benchuq.results import DiffResult

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq report`` to the subcommands."""
    p = sub.add_parser(
        "report",
        help="a self-contained HTML or PDF report: findings, figures, caveats",
        description="Write one report a manager can read in two minutes: who leads and how sure, "
        "which models cannot be told apart, the leaderboard, differences and rank figures, the "
        "caveats, and what reproduces the numbers. HTML works offline (figures embedded); PDF is "
        "that HTML printed by chromium.",
    )
    add_data_arguments(p, format_flag="--input-format")  # --format is the report's
    p.add_argument(
        "--format",
        dest="output_format",
        default=None,
        choices=("html", "pdf"),
        help="report format (default: from the -o suffix, else html)",
    )
    p.add_argument("-o", "--output", default=None, metavar="FILE", help="default report.FORMAT")
    add_method_arguments(p)
    p.add_argument(
        "--level",
        type=float,
        default=LEVEL,
        help="leaderboard interval level (0-1; battles: 0.95 unless given)",
    )
    p.add_argument("--models", nargs="+", default=None, metavar="MODEL", help="default: all")
    p.add_argument(
        "--weights",
        default=None,
        metavar="W1,W2,...",
        help="category weights (one per category, summing to 1): report on the weighted score "
        "instead of the overall score (--overall)",
    )
    add_normalize_arguments(p)
    g = p.add_argument_group("two runs (a section comparing them; as benchuq diff)")
    g.add_argument("--base", default=None, metavar="MODEL", help="the base run's model")
    g.add_argument("--candidate", default=None, metavar="MODEL", help="the candidate's model")
    g.add_argument("--margin", type=float, default=0.0, help="margin for equivalent / "
                   "non-inferior in the unit shown: points for 0-1 scores (5 = 5 points), else "
                   "score units (as benchuq diff)")  # fmt: skip
    p.set_defaults(func=run)


def _target(args: argparse.Namespace) -> tuple[str, Path]:
    fmt = args.output_format
    if fmt is None:
        fmt = "pdf" if args.output and args.output.lower().endswith(".pdf") else "html"
    return fmt, Path(args.output or f"report.{fmt}")


def _draws(
    args: argparse.Namespace, bench: Benchmark
) -> tuple[Draws, tuple[str, ...], pd.DataFrame | None]:
    """Draws by the flags' method, the fit's convergence warnings and diagnostics (Bayes)."""
    if args.method == "bayes":
        import sys

        from benchuq.api import bayes_model
        from benchuq.api.draws import with_headline

        fit = bayes_model(bench, **bayes_settings(args)).fit
        for warning in fit.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        draws = with_headline(fit.to_draws(kind=args.interval), bench, args.overall)
        note_headline(args, draws)
        return draws, tuple(fit.warnings), fit.diagnostics
    return make_draws(args, bench), (), None


def _command(args: argparse.Namespace) -> str:
    """The command that reproduces the numbers (settings flags only)."""
    from benchuq.presentation.report import bayes_flags, command

    extra = ["--input-format", args.format] if args.format != "auto" else []
    if args.method == "bayes":
        extra += bayes_flags(args.chains, args.draws, args.warmup, args.sampler, args.prior)
    if args.weights:
        extra += ["--weights", args.weights]
    if args.overall != "auto":
        extra += ["--overall", args.overall]
    if args.normalize:
        extra += ["--normalize", "--normalize-mode", args.normalize_mode]
    return command(
        args.data, args.method, args.reps, args.seed, args.level, args.models or (), extra
    )


def _query(args: argparse.Namespace, models: Sequence[str]) -> str:
    """The app link's query string for the same view on data with ``models``
    (``presentation.report_link.share_query``: the one writer of a report's link)."""
    from benchuq.core.reading.sources import UPLOAD, parse_source
    from benchuq.presentation.report_link import share_query
    from benchuq.presentation.state import Settings

    one = args.data[0] if len(args.data) == 1 else ""
    weights = () if args.weights is None else tuple(float(w) for w in args.weights.split(","))
    settings = Settings(
        data=one if parse_source(one).linkable else UPLOAD,  # files: no link can carry them
        method=args.method,
        level=args.level,
        reps=args.reps if args.method == "bootstrap" else args.draws * args.chains,
        seed=args.seed,
        metric="normalized" if args.normalize else "raw",
        overall=args.overall,
        weights=weights,
        models=tuple(m for m in models if m in (args.models or ())),  # data order, as the app
    )
    return share_query(settings, models, score="overall" if args.weights is None else "weighted")


def _two_runs(args: argparse.Namespace, bench: Benchmark) -> DiffResult | None:
    """``--base`` and ``--candidate`` compared (``benchuq.api.diff``), or None."""
    from benchuq.api import diff
    from benchuq.cli.common import UsageError

    if args.base is None and args.candidate is None:
        return None
    if args.base is None or args.candidate is None:
        raise UsageError("a two-run section needs both --base MODEL and --candidate MODEL.")
    result = diff(
        bench,
        base_model=args.base,
        candidate_model=args.candidate,
        margin=args.margin,
        reps=args.reps,
        seed=args.seed,
    )
    return result


def run(args: argparse.Namespace) -> int:
    """Write the report; returns the exit code."""
    from benchuq.api.reporting import write_report
    from benchuq.core.data import DataError
    from benchuq.core.defaults import COMPARISON_LEVEL
    from benchuq.core.reading.battles import BattlesNotScores
    from benchuq.core.validation import check_known

    fmt, path = _target(args)
    level = check_level(args.level)
    if fmt == "pdf":  # without chromium: one line and exit 2 at once, not a hang (issue 38)
        _require_chromium()
    try:
        bench = load_benchmark(args)
    except BattlesNotScores:
        return _arena_report(args, fmt, path)
    except DataError:  # judge scores with human labels (METHODS 15)?
        judged = _judge_data(args.data)
        if judged is None:
            raise
        if args.level == LEVEL:
            args.level = COMPARISON_LEVEL
        return _judge_report(args, fmt, path, judged)
    if args.models:
        check_known(args.models, bench.models, what="models in --models")
    draws, warnings, diagnostics = _draws(args, bench)
    draws = maybe_normalize(args, bench, draws)
    if args.models:
        draws = draws.select_models(list(dict.fromkeys(args.models)))
    weights = parse_weights(args.weights, draws.category_names)
    runs = _two_runs(args, bench)
    with _chromium_errors():
        write_report(
            bench,
            draws,
            path,
            fmt=fmt,
            level=level,
            group="overall" if weights is None else weights,
            query=_query(args, bench.models),
            command=_command(args),
            warnings=warnings,
            diagnostics=diagnostics,
            two_runs=None if runs is None else runs.result,
            meta=bench.context.meta,
        )
    add_notes(args, draws.notes)
    print(f"wrote {path} ({fmt}, {path.stat().st_size // 1024} KB)")
    return 0


@contextmanager
def _chromium_errors() -> Iterator[None]:
    """A PDF that chromium cannot make (missing, timed out): one line, exit 2 (``UsageError``)."""
    from benchuq.cli.common import UsageError
    from benchuq.presentation.chromium import ChromiumError

    try:
        yield
    except ChromiumError as err:
        raise UsageError(str(err)) from None


def _require_chromium() -> None:
    """Stop at once, before any work, when a PDF is asked for without chromium."""
    from benchuq.presentation.chromium import require

    with _chromium_errors():
        require("A PDF report")


def _pdf(document: str) -> bytes:
    """``document`` printed by chromium (errors as :func:`_chromium_errors`)."""
    from benchuq.presentation.chromium import to_pdf

    with _chromium_errors():
        return to_pdf(document)


def _judge_data(data: list[str]) -> JudgeData | None:
    """The data as judge scores with human labels, or ``None`` when they are not."""
    from benchuq.core.data import DataError
    from benchuq.core.reading.judge_data import load_judge

    try:
        return load_judge(data)
    except DataError:
        return None


def _judge_report(args: argparse.Namespace, fmt: str, path: Path, data: JudgeData) -> int:
    """The report of judge scores with human labels (METHODS 15): PPI++ at the comparison
    level (95%) unless ``--level`` is given."""
    import shlex

    import benchuq
    from benchuq.api.judge import judge
    from benchuq.presentation.report_judge import judge_html

    level = check_level(args.level)
    result = judge(data, level=level, seed=args.seed).result
    command = shlex.join(["benchuq", "judge", *args.data, "--level", f"{level:g}"])
    document = judge_html(result, command=command, version=benchuq.__version__)
    if fmt == "pdf":
        path.write_bytes(_pdf(document))
    else:
        path.write_text(document, encoding="utf-8")
    add_notes(args, result.notes)
    print(f"wrote {path} ({fmt}, {path.stat().st_size // 1024} KB; judge scores: judge)")
    return 0


def _arena_report(args: argparse.Namespace, fmt: str, path: Path) -> int:
    """The report of a battles table (METHODS 8b): arena ratings at the comparison level (95%)
    unless ``--level`` is given."""
    import shlex

    import benchuq
    from benchuq.api import arena, load_battles
    from benchuq.core.defaults import COMPARISON_LEVEL
    from benchuq.presentation.report_arena import arena_html

    level = COMPARISON_LEVEL if args.level == LEVEL else check_level(args.level)
    result = arena(load_battles(args.data), level=level, seed=args.seed).result
    command = shlex.join(["benchuq", "arena", *args.data, "--level", f"{level:g}"])
    document = arena_html(result, command=command, version=benchuq.__version__)
    if fmt == "pdf":
        path.write_bytes(_pdf(document))
    else:
        path.write_text(document, encoding="utf-8")
    add_notes(args, result.notes)
    print(f"wrote {path} ({fmt}, {path.stat().st_size // 1024} KB; pairwise battles: arena)")
    return 0

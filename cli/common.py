"""Arguments and steps shared by the subcommands: reading DATA, making draws, printing JSON."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from benchuq.cli.errors import UsageError
from benchuq.core import validation
from benchuq.core.data import Benchmark, DataError
from benchuq.core.defaults import BAYES_CHAINS, BAYES_DRAWS, BAYES_WARMUP, REPS, SEED
from benchuq.core.draws import Draws

if TYPE_CHECKING:
    from benchuq.api.options import Overall
    from benchuq.core.reading.backends import DataSource
    from benchuq.results import Result

__all__ = [
    "FEW_ITEMS_LEGEND",
    "FORMATS",
    "METHOD_HELP",
    "UsageError",
    "add_bayes_arguments",
    "add_data_arguments",
    "add_leaderboard_arguments",
    "add_method_arguments",
    "add_output_arguments",
    "add_overall_argument",
    "add_statistic_argument",
    "bayes_settings",
    "check_caps",
    "check_level",
    "check_output",
    "check_pairwise",
    "data_header",
    "emit",
    "items_text",
    "load_benchmark",
    "make_draws",
    "print_json",
    "read_file",
    "split_format",
]


class VisibleText:
    """A text stream that writes bidi, zero-width and control characters (other than tab and
    newline) as ``[U+XXXX]``: a name from the data cannot move the terminal's cursor, colour it or
    reverse the text shown (``presentation.text.visible``); and the options core's messages name
    as the CLI's flags (``cli.words.cli_words``: ``--statistic pass@3``)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        from benchuq.cli.words import cli_words
        from benchuq.presentation.text import visible

        return self.stream.write(visible(cli_words(text)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def check_caps(args: argparse.Namespace) -> None:
    """Hard limits of ``--reps``, ``--chains``, ``--draws`` and ``--warmup`` (``core.budget.CAPS``),
    at least 50 replicates (fewer give percentile intervals of no width) and a seed of 0 or more,
    before any work."""
    from benchuq.core.budget import CAPS, check_cap

    for name in CAPS:
        value = getattr(args, name, None)
        if isinstance(value, int):
            check_cap(name, value, flag=f"--{name}")
    reps = getattr(args, "reps", None)
    if isinstance(reps, int):
        validation.check_reps(reps, least=50, typical=2000, name="--reps")
    seed = getattr(args, "seed", None)
    if isinstance(seed, int):
        validation.check_seed(seed, name="--seed")


#: subcommands whose ``-o`` names a folder they create (its missing parents too)
FOLDER_OUTPUTS = ("export", "site")


def check_output(args: argparse.Namespace) -> None:
    """``-o FILE`` can be written: its folder exists and it is not itself a folder, checked
    before any work, so a typo in the path costs no bootstrap and gives no traceback."""
    target = getattr(args, "output", None)
    if not isinstance(target, str) or getattr(args, "command", "") in FOLDER_OUTPUTS:
        return
    path = Path(target)
    if path.is_dir():
        raise UsageError(f"-o {target}: that is a folder. How to fix: name a file in it.")
    folder = path.parent
    if not folder.is_dir():
        if folder.exists():
            raise UsageError(
                f"-o {target}: '{folder}' is a file, not a folder. How to fix: write to a file "
                "in an existing folder."
            )
        raise UsageError(
            f"-o {target}: the folder '{folder}' does not exist. How to fix: create the folder "
            f"first (mkdir -p '{folder}') or write to an existing one."
        )


def output_error(args: argparse.Namespace, err: OSError) -> str | None:
    """The message for ``err`` when it is a failure to write ``-o``'s path (no permission, a
    read-only or full disk), else ``None`` (the error is not about the output)."""
    target = getattr(args, "output", None)
    name = getattr(err, "filename", None)
    if not isinstance(target, str) or name is None:
        return None
    try:
        ours = Path(str(name)).resolve().is_relative_to(Path(target).resolve())
    except (OSError, ValueError):
        return None
    if not ours:
        return None
    reason = err.strerror or str(err)
    return f"-o {target}: cannot write it ({reason}). How to fix: pick a folder you may write to."


# core.reading.loaders.FORMATS, repeated so that building the parser does not import pandas
FORMATS = ("auto", "long", "wide", "items", "lm_eval", "lm_eval_samples", "alpaca_eval", "inspect",
           "helm", "lighteval", "oaieval", "eee")  # fmt: skip
DATA_HELP = (
    "files, folders, zip archives or glob patterns (read together; in a folder, files that are "
    "not results are skipped with a note), sample:<name>, or shared:<id>"
)
METRIC_HELP = (
    "metric read from lm-eval and HELM files (acc, acc_norm, exact_match, ...; default: acc for "
    "lm-eval, the scenario's main metric for HELM); for inspect_ai logs a scorer, or "
    "SCORER/KEY for a scorer with named values (default: the log's first scorer)"
)
METHOD_HELP = (
    "how the uncertainty is found: bootstrap (resample the items, or each task's count of right "
    "answers; default, METHODS 2) or bayes (a Bayesian hierarchical model, METHODS 6)"
)
FAILED_HELP = (
    "samples of inspect_ai logs that errored or hit a limit: left out of the scores and counted "
    "in a note (exclude, the default) or counted as wrong (wrong)"
)


class _Paths(argparse.Action):
    """``DATA`` paths; none given (an optional ``DATA``) is ``None``."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, list(values or ()) or None)


def add_data_arguments(
    parser: argparse.ArgumentParser, *, optional: bool = False, format_flag: str = "--format"
) -> None:
    """``DATA`` (one or more paths, ``sample:<name>`` or ``shared:<id>``) with ``--format``,
    ``--tasks``, ``--metric`` and ``--verbose``; ``optional`` for a command that also works
    without data (``args.data`` is then ``None``); ``format_flag`` names the input-format flag
    (``--input-format`` where ``--format`` is the output's)."""
    parser.add_argument(
        "data", metavar="DATA", nargs="*" if optional else "+", action=_Paths, help=DATA_HELP
    )
    parser.add_argument(
        format_flag, dest="format", default="auto", choices=FORMATS, help="input format"
    )
    parser.add_argument("--tasks", default=None, help="task table CSV: task, category, n[, chance]")
    parser.add_argument("--metric", default=None, help=METRIC_HELP)
    parser.add_argument(
        "--failed", default="exclude", choices=("exclude", "wrong"), help=FAILED_HELP
    )
    parser.add_argument(
        "--runs",
        default="newest",
        choices=("newest", "all"),
        help="two runs of one model on the same tasks: keep the newest (default; when the file "
        "names carry run times, as lm-eval's do) or all (the older shown as 'name (2)')",
    )
    parser.add_argument(
        "--name",
        default=None,
        help="the data set's name in reports, chart subtitles and the published set (default: "
        "from its content, e.g. 'lm-eval v0.4: 13 models x 16 benchmarks'; samples keep theirs)",
    )
    add_statistic_argument(parser)
    add_verbose_argument(parser)


STATISTIC_HELP = (
    "what each item scores when it holds several answers (epochs, samples): mean (default: "
    "every answer), pass@K (right in at least one of K tries, the unbiased estimator) or pass^K "
    "(right in all K tries); intervals resample items with their answers (METHODS 2e)"
)


def add_statistic_argument(parser: argparse.ArgumentParser) -> None:
    """``--statistic mean|pass@K|pass^K`` (issue 43)."""
    parser.add_argument("--statistic", default="mean", metavar="STAT", help=STATISTIC_HELP)


def add_verbose_argument(parser: argparse.ArgumentParser) -> None:
    """``--verbose``: every note in full."""
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="print every note on the data in full (default: a summary; notes go to stderr)",
    )


def add_notes(args: argparse.Namespace, notes: Sequence[str]) -> None:
    """Notes for stderr, printed by ``main`` once the command has succeeded."""
    args.data_notes = (*getattr(args, "data_notes", ()), *notes)


def print_notes(notes: Sequence[str], args: argparse.Namespace) -> None:
    """Notes to stderr: headlines (at most 8) or, with ``--verbose``, every note in full."""
    from benchuq.core.reading.notes import summarize

    if not notes:
        return
    verbose = getattr(args, "verbose", False)
    lines = list(notes) if verbose else summarize(notes)
    for line in lines:
        print("note: " + line.replace("\n", "\n      "), file=sys.stderr)
    if not verbose and (len(lines) < len(notes) or any("\n" in n for n in notes)):
        print("      (--verbose lists every file and task)", file=sys.stderr)


def add_method_arguments(parser: argparse.ArgumentParser, *, reps: int = REPS) -> None:
    """The uncertainty method and its settings (bootstrap, METHODS 2; Bayesian model, METHODS 6)."""
    parser.add_argument(
        "--method", default="bootstrap", choices=("bootstrap", "bayes"), help=METHOD_HELP
    )
    parser.add_argument("--reps", type=int, default=reps, help="bootstrap replicates")
    parser.add_argument("--seed", type=int, default=SEED, help="random seed")
    add_backend_arguments(parser)
    add_bayes_arguments(parser)
    add_overall_argument(parser)


def add_overall_argument(parser: argparse.ArgumentParser) -> None:
    """``--overall auto|benchmarks|tasks``: the aggregate "overall" stands for
    (``core.summaries.headline``)."""
    parser.add_argument(
        "--overall",
        default="auto",
        choices=("auto", "benchmarks", "tasks"),
        help="the overall score: benchmarks = the mean over benchmarks, each lm-eval group (e.g. "
        "mmlu) counting once as lm-eval scores it; tasks = the mean over all tasks; auto "
        "(default) = benchmarks for lm-eval files with groups, else tasks",
    )


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """Where item-level data is aggregated and bootstrapped (core.reading.backends, issue 18)."""
    g = parser.add_argument_group("backend (large item-level data: Parquet shards)")
    g.add_argument(
        "--backend",
        default=None,
        choices=("memory", "duckdb", "dask"),
        help="memory: load, then bootstrap (default); duckdb: aggregate Parquet shards out of "
        "core, same draws; dask: aggregate on a dask.distributed cluster, same draws; default "
        "duckdb when the data would not fit in memory",
    )
    g.add_argument("--workers", type=int, default=None, help="dask: a LocalCluster of N processes")
    g.add_argument("--scheduler", default=None, help="dask: a running scheduler tcp://HOST:PORT")


# ---- Bayesian hierarchical model (--method bayes; METHODS 6) --------------------------------
def add_bayes_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of the Bayesian model: priors, chains, draws, warm-up, sampler, interval kind."""
    g = parser.add_argument_group("Bayesian model (--method bayes)")
    g.add_argument(
        "--prior",
        action="append",
        default=[],
        metavar="SPEC",
        help="MODEL:a=FAMILY(..),b=FAMILY(..), MODEL '*' for all; families exponential(rate), "
        "normal(mean,sd) (truncated at 0), gamma(shape,rate); repeatable, later ones win; "
        "default exponential(1e-4) on a and b",
    )
    g.add_argument("--chains", type=int, default=BAYES_CHAINS, help=f"MCMC chains ({BAYES_CHAINS})")
    g.add_argument(
        "--draws", type=int, default=BAYES_DRAWS, help=f"kept draws per chain ({BAYES_DRAWS})"
    )
    g.add_argument(
        "--warmup",
        type=int,
        default=BAYES_WARMUP,
        help=f"warm-up sweeps per chain ({BAYES_WARMUP})",
    )
    g.add_argument(
        "--sampler",
        default="imh",
        choices=("imh", "gibbs"),
        help="imh: independence Metropolis-Hastings on the collapsed posterior of a, b, then "
        "conjugate theta (default, fast); gibbs: the Gibbs sampler with slice steps; same "
        "posterior",
    )
    g.add_argument(
        "--interval",
        default="parameter",
        choices=("parameter", "predictive"),
        help="intervals for theta (parameter) or for k~/n of a fresh test set (predictive)",
    )


def bayes_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The Bayesian model's settings from the flags of :func:`add_bayes_arguments` and ``--seed``,
    as keywords of ``benchuq.api.bayes`` and ``benchuq.api.bayes_model`` (METHODS 6)."""
    return {
        "priors": args.prior,
        "chains": args.chains,
        "draws": args.draws,
        "warmup": args.warmup,
        "seed": args.seed,
        "sampler": getattr(args, "sampler", "imh"),
        "interval": args.interval,
    }


# ---- end of the Bayesian block --------------------------------------------------------------


def read_file(path: str) -> bytes:
    """The bytes of the file ``path`` (read up to the size cap of ``core.reading.files``); a
    missing, unreadable or too large file is a DataError naming it."""
    from benchuq.core.reading.files import read_capped

    if not Path(path).exists():
        raise DataError("no such file.", file=path, hint="check the path.")
    return read_capped(path)


def load_benchmark(args: argparse.Namespace) -> Benchmark:
    """The benchmark ``DATA`` names (``benchuq.api.load`` with ``--format``, ``--tasks``,
    ``--metric``, ``--name``, ``--failed`` and ``--runs``, or an out-of-core backend's); its
    notes go to stderr after the output (stdout stays the table or JSON)."""
    from benchuq.api import load

    split_format(args)
    if hasattr(args, "backend") and (source := _out_of_core(args)) is not None:
        args.source = source
        bench = source.bench
    else:
        bench = load(
            args.data,
            format=args.format,
            tasks=args.tasks,
            metric=args.metric,
            name=getattr(args, "name", None),
            failed=getattr(args, "failed", "exclude"),
            runs=getattr(args, "runs", "newest"),
            statistic=getattr(args, "statistic", "mean"),
        )
    add_notes(args, bench.notes)
    return bench


def _out_of_core(args: argparse.Namespace) -> DataSource | None:
    """DATA opened by an out-of-core backend (``core.reading.backends``, issue 18); ``None``: in
    memory."""
    from benchuq.core.reading.backends import choose_backend, open_data

    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers {args.workers}: use 1 or more worker processes.")
    if len(args.data) != 1 or args.tasks is not None or args.format not in ("auto", "items"):
        if args.backend not in (None, "memory"):  # these backends read neither --tasks nor formats
            raise UsageError(
                f"--backend {args.backend} reads one DATA (a Parquet file, a folder or a glob "
                f"of Parquet item shards; got {len(args.data)}), without --tasks and with "
                "--format auto or items."
            )
        return None
    backend = choose_backend(args.data[0], backend=args.backend)
    if backend == "memory":
        return None
    return open_data(args.data[0], backend, workers=args.workers, scheduler=args.scheduler)


def make_draws(args: argparse.Namespace, bench: Benchmark) -> Draws:
    """Draws of per-task performance by the method the flags name (``benchuq.api.bootstrap``,
    ``benchuq.api.bayes``, or an out-of-core backend's), "overall" as ``--overall`` says; the
    headline's notes go to stderr."""
    from benchuq.api import bayes, bootstrap
    from benchuq.api.draws import with_headline
    from benchuq.core.budget import check_cells

    overall: Overall = getattr(args, "overall", "auto")
    if getattr(args, "method", "bootstrap") == "bayes":
        draws = bayes(bench, **bayes_settings(args), overall=overall)
    else:
        validation.check_reps(args.reps, least=100, typical=2000, name="--reps")
        if getattr(args, "source", None) is not None:  # opened by an out-of-core backend
            check_cells(args.reps, len(bench.models), len(bench.tasks))
            draws = with_headline(args.source.draws(args.reps, args.seed), bench, overall)
        else:
            draws = bootstrap(bench, reps=args.reps, seed=args.seed, overall=overall)
    note_headline(args, draws)
    if getattr(args, "command", "") != "leaderboard":  # it prints every note of the draws
        from benchuq.api.summaries import zero_spread_notes

        add_notes(args, zero_spread_notes(draws.notes))  # METHODS 2g
    return draws


def note_headline(args: argparse.Namespace, draws: Draws) -> None:
    """The notes of what "overall" stands for, once, for stderr."""
    notes = () if draws.headline is None else draws.headline.notes
    add_notes(args, [n for n in notes if n not in getattr(args, "data_notes", ())])


def check_pairwise(
    args: argparse.Namespace, bench: Benchmark, what: str, models: int | None = None
) -> None:
    """Refuse pairwise work (``reps x models^2``; default all models) over the per-request
    budget (core.budget)."""
    from benchuq.core.budget import check_pairs

    check_pairs(getattr(args, "reps", 1) or 1, models or len(bench.models), what=what)


def add_normalize_arguments(parser: argparse.ArgumentParser) -> None:
    """``--normalize`` with ``--normalize-mode minmax|paper|chance`` (METHODS 3)."""
    parser.add_argument(
        "--normalize",
        action="store_true",
        help="normalize each task: (x - low) / (high - low) (METHODS 3)",
    )
    parser.add_argument(
        "--normalize-mode",
        default="minmax",
        choices=("minmax", "paper", "chance"),
        help="minmax: low/high = min/max of the observed scores over models (chance level as low "
        "where the task table gives one), fixed across replicates (default); paper: min/max over "
        "models x replicates as [LGC] (depends on --reps); chance: (x - chance) / (1 - chance)",
    )


def add_leaderboard_arguments(parser: argparse.ArgumentParser, *, level: float) -> None:
    """The flag block of a leaderboard of the data: ``DATA`` (:func:`add_data_arguments`), the
    method (:func:`add_method_arguments`), ``--level`` (default ``level``) and ``--normalize``
    (:func:`add_normalize_arguments`); ``benchuq leaderboard``, ``site`` and ``ranks``."""
    add_data_arguments(parser)
    add_method_arguments(parser)
    parser.add_argument("--level", type=float, default=level, help="interval level (0-1)")
    add_normalize_arguments(parser)


def maybe_normalize(args: argparse.Namespace, bench: Benchmark, draws: Draws) -> Draws:
    """``draws`` normalized as the flags say (unchanged without ``--normalize``)."""
    if not getattr(args, "normalize", False):
        return draws
    from benchuq.api import normalize

    return normalize(draws, mode=args.normalize_mode, chance=bench.chance)


def check_level(level: float, *, flag: str = "--level") -> float:
    """``level`` if it is a proportion in (0, 1), else :class:`InvalidArgument` naming ``flag``."""
    return validation.check_level(level, name=flag)


OUTPUT_FORMATS = ("text", "json", "csv", "parquet")
TABLE_FORMATS = ("csv", "parquet")


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """``--json``, ``--output-format text|json|csv|parquet`` and ``-o FILE``: the result as the
    text table (default), the JSON document, or a tidy CSV/Parquet table (``benchuq.results``:
    the JSON's rows as rows, its settings such as ``level`` and ``unit`` as columns; Parquet also
    keeps the settings as the file's ``benchuq`` metadata)."""
    parser.add_argument("--json", action="store_true", help="print JSON (--output-format json)")
    parser.add_argument(
        "--output-format",
        default=None,
        choices=OUTPUT_FORMATS,
        help="text (default), json, or a tidy table: csv, parquet (needs -o); default from the "
        "suffix of -o",
    )
    parser.add_argument(
        "-o", "--output", default=None, metavar="FILE", help="write to FILE instead of stdout"
    )
    formats = [a for a in parser._actions if a.dest == "format" and a.choices is not None]
    for action in formats:  # --format also takes csv|parquet (no input format has them)
        action.choices = (*action.choices, *TABLE_FORMATS)  # type: ignore[misc]
        action.help = (
            f"{action.help}; csv or parquet instead set the output: a tidy table (as "
            "--output-format)"
        )
    if not formats:
        parser.add_argument(
            "--format",
            default=None,
            choices=TABLE_FORMATS,
            help="the output as a tidy table (as --output-format)",
        )


def split_format(args: argparse.Namespace) -> None:
    """``--format csv|parquet`` is the output's format (``--output-format``); the input's is
    then auto-detected."""
    if getattr(args, "format", None) in TABLE_FORMATS:
        if getattr(args, "output_format", None) not in (None, args.format):
            raise UsageError(f"--format {args.format} and --output-format disagree; give one.")
        args.output_format, args.format = args.format, "auto"


def output_format(args: argparse.Namespace) -> str:
    """The output format the flags ask for: ``--json``, ``--output-format`` (or ``--format
    csv|parquet``), the suffix of ``-o``, else text."""
    split_format(args)
    fmt = getattr(args, "output_format", None)
    if getattr(args, "json", False):
        if fmt not in (None, "json"):
            raise UsageError(f"--json and --output-format {fmt} disagree; give one.")
        return "json"
    if fmt is not None:
        return str(fmt)
    suffix = Path(getattr(args, "output", None) or "").suffix.lower().lstrip(".")
    return suffix if suffix in ("json", "csv", "parquet") else "text"


def emit(args: argparse.Namespace, result: Result, payload: dict[str, Any] | None = None) -> bool:
    """Write ``result`` as JSON (``payload``, default ``result.payload()``), CSV or Parquet as
    the flags ask; ``False``: the caller prints its text table (stdout only)."""
    from benchuq.results import write_table

    fmt = output_format(args)
    target = getattr(args, "output", None)
    if fmt == "text":
        if target is not None:
            raise UsageError(
                f"-o {target}: -o writes json, csv or parquet (by its suffix or --output-format)."
            )
        return False
    if fmt == "json":
        doc = result.payload() if payload is None else payload
        if target is None:
            print_json(doc)
        else:
            Path(target).write_text(json_text(doc) + "\n", encoding="utf-8")
    elif fmt == "csv" and target is None:
        write_table(result, sys.stdout, format="csv")
    else:
        if target is None:
            raise UsageError("--output-format parquet writes a file: add -o FILE.parquet.")
        write_table(result, target, format="csv" if fmt == "csv" else "parquet")
    if target is not None:
        print(f"wrote {target} ({fmt})", file=sys.stderr)
    return True


def json_text(payload: dict[str, Any]) -> str:
    """``payload`` as indented JSON (numpy scalars as numbers, NaN and infinity as null:
    ``benchuq.results.clean``), the options its notes name as the CLI's flags
    (``cli.words.cli_doc``)."""
    from benchuq.cli.words import cli_doc
    from benchuq.results import clean

    text = json.dumps(clean(payload), indent=2)
    return json.dumps(cli_doc(json.loads(text)), indent=2) if "`" in text else text


def print_json(payload: dict[str, Any]) -> None:
    """Print ``payload`` as JSON (:func:`json_text`)."""
    sys.stdout.write(json_text(payload) + "\n")


FEW_ITEMS_LEGEND = (
    "items: the items behind each score; 'few' marks fewer than 30 (wide intervals), 'too few "
    "to tell' fewer than 6, with which no difference can be shown at 95% (METHODS 2d)."
)


def data_header(bench: Benchmark) -> str:
    """The output's first line: the data set's name and, in parentheses, the shape it does not
    already say (``core.reading.naming.unsaid_shape``).

    Examples
    --------
    >>> from benchuq.core.reading.loaders import load_sample
    >>> data_header(load_sample("toy"))
    'toy (2 models x 3 tasks)'
    """
    from benchuq.core.reading.naming import unsaid_shape

    shape = unsaid_shape(bench.name, len(bench.models), len(bench.tasks))
    return f"{bench.name.strip()} ({shape})" if shape else bench.name.strip()


def items_text(n: float) -> str:
    """An ``items`` cell for a table: the count, marked 'few' below 30 and 'too few to tell'
    below the 95% floor (empty where the data carry no item counts)."""
    from benchuq.core.small_samples import FEW_ITEMS, min_items_to_tell

    if math.isnan(n):
        return ""
    if n < min_items_to_tell(0.95):
        return f"{n:.0f} (too few to tell)"
    return f"{n:.0f} (few)" if n < FEW_ITEMS else f"{n:.0f}"

"""Arguments and steps shared by the subcommands: reading DATA, making draws, printing JSON."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import TYPE_CHECKING, Any

from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws

if TYPE_CHECKING:
    from benchuq.core.bayes.model import BayesFit


class UsageError(Exception):
    """A bad flag value found after parsing (reported like an argparse error, exit code 2)."""


FORMATS = ("auto", "long", "wide", "items", "lm_eval", "lm_eval_samples", "alpaca_eval", "inspect")


def add_data_arguments(parser: argparse.ArgumentParser, *, optional: bool = False) -> None:
    """``DATA`` (file, folder or ``sample:<name>``) with ``--format``, ``--tasks``, ``--metric``;
    ``optional`` for a command that also works without data."""
    parser.add_argument(
        "data",
        metavar="DATA",
        nargs="?" if optional else None,
        help="a file, a folder, or sample:<name>",
    )
    parser.add_argument("--format", default="auto", choices=FORMATS, help="input format")
    parser.add_argument("--tasks", default=None, help="task table CSV: task, category, n[, chance]")
    parser.add_argument(
        "--metric", default="acc", help="metric read from lm-eval files (acc, acc_norm, ...)"
    )


def add_method_arguments(parser: argparse.ArgumentParser, *, reps: int = 2000) -> None:
    """The uncertainty method and its settings (bootstrap, METHODS 2; Bayesian model, METHODS 6)."""
    parser.add_argument("--method", default="bootstrap", choices=("bootstrap", "bayes"))
    parser.add_argument("--reps", type=int, default=reps, help="bootstrap replicates")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    add_backend_arguments(parser)
    add_bayes_arguments(parser)


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """Where item-level data is aggregated and bootstrapped (core.backends, issue 18)."""
    g = parser.add_argument_group("backend (large item-level data: Parquet shards)")
    g.add_argument(
        "--backend",
        default=None,
        choices=("memory", "duckdb", "dask"),
        help="memory: load, then bootstrap (default); duckdb: aggregate Parquet shards out of "
        "core, same draws; dask: aggregate and bootstrap on a dask.distributed cluster (Poisson "
        "bootstrap); default duckdb when the data would not fit in memory",
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
    g.add_argument("--chains", type=int, default=4, help="MCMC chains (4)")
    g.add_argument("--draws", type=int, default=2000, help="kept draws per chain (2000)")
    g.add_argument("--warmup", type=int, default=1000, help="warm-up sweeps per chain (1000)")
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


def fit_bayes(args: argparse.Namespace, bench: Benchmark) -> BayesFit:
    """Fit the hierarchical model with the flags' priors and settings; warnings go to stderr."""
    from benchuq.core.bayes.model import fit
    from benchuq.core.bayes.priors import parse_prior_specs

    if args.chains < 1 or args.draws < 100 or args.warmup < 0:
        raise UsageError(
            f"--chains {args.chains} --draws {args.draws} --warmup {args.warmup}: use chains "
            ">= 1 (4 recommended), draws >= 100 (2000 typical) and warmup >= 0 (1000 typical)."
        )
    priors = parse_prior_specs(args.prior, bench.models)
    result = fit(
        bench,
        priors,
        chains=args.chains,
        draws=args.draws,
        warmup=args.warmup,
        seed=args.seed,
        sampler=getattr(args, "sampler", "imh"),
    )
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return result


# ---- end of the Bayesian block --------------------------------------------------------------


def load_benchmark(args: argparse.Namespace) -> Benchmark:
    from benchuq.core.readers.loaders import resolve

    if hasattr(args, "backend"):  # commands that bootstrap: maybe out of core (issue 18)
        from benchuq.core.backends import choose_backend, open_data

        if args.workers is not None and args.workers < 1:
            raise UsageError(f"--workers {args.workers}: use 1 or more worker processes.")
        backend = choose_backend(args.data, args.backend)
        if backend != "memory":
            args.source = open_data(
                args.data, backend, workers=args.workers, scheduler=args.scheduler
            )
            return args.source.bench
    return resolve(args.data, format=args.format, tasks=args.tasks, metric=args.metric)


def make_draws(args: argparse.Namespace, bench: Benchmark) -> Draws:
    """Draws of per-task performance by the method the flags name."""
    from benchuq.core.bootstrap import bootstrap

    if getattr(args, "method", "bootstrap") == "bayes":
        return fit_bayes(args, bench).to_draws(args.interval)

    if args.reps < 100:
        raise UsageError(f"--reps {args.reps} is too few; use at least 100 (2000 is typical).")
    if getattr(args, "source", None) is not None:  # opened by an out-of-core backend
        return args.source.draws(args.reps, args.seed)
    return bootstrap(bench, reps=args.reps, seed=args.seed)


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


def maybe_normalize(args: argparse.Namespace, bench: Benchmark, draws: Draws) -> Draws:
    """``draws`` normalized as the flags say (unchanged without ``--normalize``)."""
    if not getattr(args, "normalize", False):
        return draws
    from benchuq.core.normalize import normalize

    return normalize(draws, mode=args.normalize_mode, chance=bench.chance)


def check_level(level: float, flag: str = "--level") -> float:
    if not 0.0 < level < 1.0:
        raise UsageError(f"{flag} {level} must be between 0 and 1 (e.g. 0.95), not a percent.")
    return level


def _clean(x: Any) -> Any:
    """JSON-safe values: numpy scalars to Python, NaN/inf to null."""
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, str):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def print_json(payload: dict[str, Any]) -> None:
    json.dump(_clean(payload), sys.stdout, indent=2)
    sys.stdout.write("\n")

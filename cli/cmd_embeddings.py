"""``benchuq embeddings``: consistency of embeddings with meta features (METHODS 9, [MHP])."""

from __future__ import annotations

import argparse

from benchuq.cli.common import add_output_arguments
from benchuq.core.defaults import (
    COMPARISON_LEVEL,
    EMBEDDING_DIMS,
    EMBEDDING_EPS,
    EMBEDDING_HEADS,
    SEED,
)

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq embeddings`` to the subcommands."""
    p = sub.add_parser(
        "embeddings",
        help="ALP and cluster accuracy of embeddings against meta features",
        description="Average log posterior (ALP) and accuracy of each embedding's Gaussian "
        "clusters, multi-head, with bootstrap intervals over entities. EMB: .npy, .npz (an 'ids' "
        "array and one array per model or layer), CSV or Parquet (an 'id' column and one column "
        "per dimension), or sample:alpaca_eval / sample:synthetic.",
    )
    p.add_argument("emb", metavar="EMB", nargs="+", help="embedding files (or sample:<name>)")
    p.add_argument("--meta", default=None, help="meta table (CSV/Parquet): id + features")
    p.add_argument(
        "--label",
        nargs="+",
        default=None,
        metavar="COL",
        help="meta column defining the clusters; several columns grow an EmbeddingTree whose "
        "leaves are the clusters (fitted on the first embedding)",
    )
    p.add_argument("--heads", type=int, default=EMBEDDING_HEADS, help="random heads")
    p.add_argument("--dims", type=int, default=EMBEDDING_DIMS, help="dimensions per head")
    p.add_argument("--clip", type=float, default=1e-6, help="leave out posteriors below this")
    p.add_argument(
        "--eps",
        type=float,
        default=EMBEDDING_EPS,
        help="covariance ridge: eps x within-cluster variance x dims / mean cluster size",
    )
    p.add_argument("--folds", type=int, default=5, help="cross-fitting folds (1 = in-sample)")
    p.add_argument("--bins", type=int, default=4, help="quantile bins of numeric features")
    p.add_argument("--depth", type=int, default=3, help="tree depth limit (several --label)")
    p.add_argument("--min-leaf", type=int, default=20, help="tree leaf-size limit")
    p.add_argument(
        "--min-gain",
        action="store_true",
        help="tree: split only where the likelihood rises (several --label)",
    )
    p.add_argument(
        "--prior",
        nargs="+",
        default=(),
        metavar="COL=W",
        help="tree prior weight per meta column (default 1; above 1 favours splitting on it)",
    )
    p.add_argument(
        "--bootstrap",
        choices=("auto", "refit", "linear", "scores"),
        default="auto",
        help="refit: refit the Gaussians in every replicate (intervals carry the fitting error; "
        "they target the expected out-of-fold score of the procedure); linear: the first-order "
        "(infinitesimal-jackknife) version of refit, one pass per head and fold, fast at large "
        "sizes (its accuracy interval leaves out the fitting error); scores: resample "
        "per-entity scores with the Gaussians fixed (fast; too narrow when clusters are small "
        "relative to --dims); auto (default): refit unless that would take more than about "
        "10 s, else linear, else scores",
    )
    p.add_argument(
        "--reps",
        type=int,
        default=None,
        help="bootstrap replicates (default 200 when refitting, 1000 for linear and scores)",
    )
    p.add_argument("--level", type=float, default=COMPARISON_LEVEL, help="interval level (0-1)")
    p.add_argument("--seed", type=int, default=SEED, help="random seed")
    add_output_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print ALP and cluster accuracy per model (or JSON); returns the exit code."""
    from benchuq.api import consistency
    from benchuq.cli.common import check_level, emit

    level = check_level(args.level)
    analysis = consistency(
        args.emb,
        meta=args.meta,
        label=args.label,
        bins=args.bins,
        depth=args.depth,
        min_leaf=args.min_leaf,
        prior=args.prior,
        min_gain=args.min_gain,
        heads=args.heads,
        dims=args.dims,
        clip=args.clip,
        eps=args.eps,
        folds=args.folds,
        reps=args.reps,
        level=level,
        seed=args.seed,
        bootstrap=args.bootstrap,
    )
    result, tree = analysis.result, analysis.tree
    table = result.table()
    if emit(args, analysis):
        return 0
    print(
        f"{len(result.clusters)} clusters from {', '.join(analysis.columns)}; "
        f"ALP in nats (0 = perfect); {level:g} intervals: {result.scores[0].alp.method}"
    )
    first = result.scores[0]
    if first.accuracy.method != first.alp.method:
        print(f"accuracy intervals: {first.accuracy.method}")
    if tree is not None:
        print(tree.text())
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    return 0

"""``benchuq judge``: scores from an LLM judge corrected with a few human labels (METHODS 15)."""

from __future__ import annotations

import argparse

from benchuq.cli.common import (
    UsageError,
    add_notes,
    add_output_arguments,
    add_verbose_argument,
    check_level,
    emit,
)
from benchuq.core.defaults import COMPARISON_LEVEL

__all__ = ["register", "run"]

_METHODS = ("ppi++", "rogan-gladen", "classical")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq judge`` to the subcommands."""
    p = sub.add_parser(
        "judge",
        help="judge scores corrected with human labels (PPI++, Rogan-Gladen)",
        description="Scores from an LLM judge, corrected with a few human labels: the corrected "
        "score with its interval per model and task and overall (PPI++ or Rogan-Gladen), the "
        "judge's own mean and the labels' mean beside it, the judge's agreement with the people "
        "(Cohen's kappa, Krippendorff's alpha, sensitivity, specificity) and the labels a "
        "target interval half-width needs. DATA: an item table model, task, item, judge, human "
        "(human empty where unlabelled), item-level results benchuq reads (inspect logs, "
        "lm-eval samples, EEE instance files) with --labels, or sample:mt_bench.",
    )
    p.add_argument("data", metavar="DATA", nargs="+", help="files, folders, zips, globs")
    p.add_argument(
        "--labels",
        default=None,
        metavar="FILE",
        help="human labels: a table item[, model][, task], human joined on the columns it has",
    )
    p.add_argument("--judge", default="judge", metavar="COL", help="the judge's score column")
    p.add_argument("--human", default="human", metavar="COL", help="the human label column")
    p.add_argument(
        "--method",
        default="ppi++",
        choices=_METHODS,
        help="ppi++ (default; any scores in [0, 1]), rogan-gladen (binary), classical (labels "
        "alone)",
    )
    p.add_argument("--level", type=float, default=COMPARISON_LEVEL, help="interval level (0-1)")
    p.add_argument(
        "--target",
        type=float,
        default=0.03,
        metavar="H",
        help="the interval half-width the planning asks labels for (default 0.03)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the agreement's bootstrap")
    p.add_argument(
        "--base", default=None, metavar="MODEL", help="with --candidate: candidate - base, paired"
    )
    p.add_argument(
        "--candidate",
        default=None,
        metavar="MODEL",
        help="the difference candidate - base in human score, item by item (METHODS 15f)",
    )
    add_output_arguments(p)
    add_verbose_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the corrected scores (or JSON); returns the exit code."""
    from benchuq.api.judge import judge
    from benchuq.core.reading.judge_data import load_judge
    from benchuq.core.small_samples import FEW_ITEMS
    from benchuq.presentation.report_judge import planning_sentence

    level = check_level(args.level)
    if not 0 < args.target < 1:
        raise UsageError(f"--target {args.target} is not a half-width in (0, 1); e.g. 0.03.")
    data = load_judge(args.data, labels=args.labels, judge=args.judge, human=args.human)
    result = judge(data, method=args.method, level=level, target=args.target, seed=args.seed)
    res = result.result
    if (args.base is None) != (args.candidate is None):
        raise UsageError("--base and --candidate go together: give both models.")
    diff = None if args.base is None else res.difference(args.base, args.candidate)
    payload = None
    if diff is not None:
        payload = {**result.payload(), "differences": diff.to_dict(orient="records")}
    if emit(args, result, payload):
        add_notes(args, res.notes)
        return 0
    n_lab = int(data.labelled.sum())
    print(f"{res.name}: {data.n:,} judged items, {n_lab:,} with a human label")
    print(f"{res.method} estimates of the human score, {100 * level:g}% intervals")
    names = [
        r["model"] if len(res.tasks) == 1 else f"{r['model']} / {r['task']}" for r in res.rows()
    ]
    width = max(5, *(len(n) for n in names))
    print(
        f"{'model':<{width}}  {'estimate':>8}  {'low':>6}  {'high':>6}  {'judge':>6}  "
        f"{'human':>6}  {'lambda':>6}  {'eff. n':>7}  {'kappa':>6}  {'sens':>5}  {'spec':>5}"
    )
    for name, r in zip(names, res.rows(), strict=True):
        lam = "" if r["lambda"] is None else f"{r['lambda']:.2f}"
        print(
            f"{name:<{width}}  {r['estimate']:8.3f}  {r['low']:6.3f}  {r['high']:6.3f}  "
            f"{r['judge_mean']:6.3f}  {r['human_mean']:6.3f}  {lam:>6}  "
            f"{r['effective_n']:7.0f}  {_num(r['kappa'], 6)}  {_num(r['sensitivity'], 5)}  "
            f"{_num(r['specificity'], 5)}"
        )
    print(JUDGE_LEGEND)
    print()
    print(res.sentence())
    print(planning_sentence(res))
    a = res.overall.agreement
    print(
        f"Agreement on {a.n:,} labelled items: {a.agreement:.1%}"
        + (
            f" ({a.decisive:.1%} on the {a.n_decisive:,} where neither is a tie)"
            if a.n_decisive < a.n
            else ""
        )
    )
    if diff is not None:
        for d in diff.to_dict(orient="records"):
            print(
                f"{d['candidate']} - {d['base']} on {d['task']}: {d['estimate']:+.3f} "
                f"[{d['low']:+.3f}, {d['high']:+.3f}] ({d['method']}, {d['n_labelled']:,} "
                f"items labelled for both, {d['n_unlabelled']:,} judged only; the judge alone "
                f"says {d['judge_difference']:+.3f})"
                + (
                    f"; fewer than {FEW_ITEMS} labelled for both, so the interval is at least "
                    "as wide as those labels alone give"
                    if d["n_labelled"] < FEW_ITEMS
                    else ""
                )
            )
    add_notes(args, res.notes)
    return 0


def _num(x: float | None, width: int) -> str:
    return f"{'':>{width}}" if x is None or x != x else f"{x:{width}.2f}"


#: the table's columns in words (METHODS 15)
JUDGE_LEGEND = (
    "(judge: the judge's own mean; human: the human labels' mean; lambda: how much the "
    "correction leans on the judge, 0 = labels alone, 1 = fully (PPI++ only); eff. n: the "
    "number of labels alone that would be as precise; kappa: the judge's agreement with the "
    "people beyond chance, 1 = perfect, 0 = chance; sens: the share of items people marked good "
    "that the judge marked good; spec: the same for bad)"
)

"""Build the bundled sample data sets from the reference files (run by hand, not at run time).

Usage: ``python sample_data/build_samples.py [/work/shared/data]``. Writes small files next to this
script; ``core.loaders.load_sample`` reads them. Sources and licences: sample_data/README.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent


def build_vtab1k(src: Path, out: Path = HERE) -> None:
    """16 models x 19 tasks: correct = round(accuracy / 100 * n_scored), n = n_scored."""
    acc = pd.read_csv(src / "vtab1k" / "accuracy.csv")
    tasks = pd.read_csv(src / "vtab1k" / "tasks.csv")
    df = acc.merge(tasks, on="task", how="left", validate="many_to_one")
    if df["n_scored"].isna().any():
        raise SystemExit("vtab1k: a task in accuracy.csv is missing from tasks.csv")
    exact = df["accuracy"] / 100 * df["n_scored"]
    df["n"] = df["n_scored"].astype(int)
    df["correct"] = exact.round().astype(int)
    off = (exact - df["correct"]).abs()
    not_whole = sorted(set(df.loc[off > 0.01, "model"]))
    if not_whole != ["From-Scratch"]:
        raise SystemExit(f"vtab1k: unexpected models with non-whole counts: {not_whole}")
    df[["model", "task", "category", "n", "correct"]].to_csv(out / "vtab1k.csv", index=False)


def build_toy(out: Path = HERE) -> None:
    """Two models, three tasks; the same counts except A vs B on the small task."""
    rows = [
        ("A", "small", 200, 100),
        ("A", "medium", 10000, 5000),
        ("A", "large", 20000, 10000),
        ("B", "small", 200, 115),
        ("B", "medium", 10000, 5000),
        ("B", "large", 20000, 10000),
    ]
    df = pd.DataFrame(rows, columns=["model", "task", "n", "correct"])
    df.insert(2, "category", "all")
    df.to_csv(out / "toy.csv", index=False)


def build_mmlu(src: Path, out: Path = HERE) -> None:
    """5-shot MMLU of the 20 bundled models: the lm-eval results files with their
    ``hendrycksTest-*`` entries only (some Pythia files also hold 8 other tasks), numbers unchanged.
    """
    dst = out / "mmlu"
    dst.mkdir(exist_ok=True)
    for f in sorted((src / "lm_eval" / "results_v03" / "mmlu_5shot").glob("*.json")):
        data = json.loads(f.read_text())
        for key in ("results", "versions"):
            data[key] = {k: v for k, v in data[key].items() if k.startswith("hendrycksTest-")}
        (dst / f.name).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def build_alpaca_eval(src: Path, out: Path = HERE) -> None:
    """Item level: 9 models x 805 instructions, one CSV of all annotations (the columns the
    loader reads; preference text copied verbatim so no digit changes)."""
    keep = ["instruction_index", "dataset", "generator_1", "generator_2", "preference"]
    frames = [
        pd.read_csv(f, dtype=str)[keep]
        for f in sorted((src / "alpaca_eval").glob("*__weighted_alpaca_eval_gpt4_turbo.csv"))
    ]
    pd.concat(frames, ignore_index=True).to_csv(out / "alpaca_eval.csv", index=False)


def build_mt_bench_battles(src: Path, out: Path = HERE) -> None:
    """The 1,751 human judgments of MT-Bench answer pairs as battles (``sample:mt_bench_battles``
    for ``benchuq arena`` and the Arena page): question_id (the prompt), category, model_a,
    model_b, judge (the human judge) and winner (the human verdict), values copied verbatim."""
    import csv

    with open(src / "mt_bench_judgments" / "mt_bench_human_vs_gpt4.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    with open(out / "mt_bench_battles.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["question_id", "category", "model_a", "model_b", "judge", "winner"])
        keys = ("question_id", "category", "model_a", "model_b", "human_judge", "winner_human")
        for r in rows:
            w.writerow([r[k] for k in keys])


MT_BENCH_ROWS = 600  # judgments kept in sample:mt_bench (of 1,751)


def build_mt_bench(src: Path, out: Path = HERE) -> None:
    """600 of the 1,751 MT-Bench judgments (human and GPT-4 on the same answer pair), drawn with
    seed 0 and kept in file order, every field copied verbatim (``benchuq judge``'s sample)."""
    import numpy as np

    text = (src / "mt_bench_judgments" / "mt_bench_human_vs_gpt4.csv").read_text()
    header, *rows = text.splitlines()
    keep = np.sort(np.random.default_rng(0).choice(len(rows), MT_BENCH_ROWS, replace=False))
    lines = [header, *(rows[i] for i in keep)]
    (out / "mt_bench_judgments.csv").write_text("\n".join(lines) + "\n")


def build_all(src: Path, out: Path = HERE) -> None:
    build_vtab1k(src, out)
    build_toy(out)
    build_mmlu(src, out)
    build_alpaca_eval(src, out)
    build_mt_bench_battles(src, out)
    build_mt_bench(src, out)


def main(argv: list[str]) -> None:
    build_all(Path(argv[1]) if len(argv) > 1 else Path("/work/shared/data"))


if __name__ == "__main__":
    main(sys.argv)

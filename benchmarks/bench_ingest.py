"""Reading evaluation-tool folders as they are: time of ``read_paths`` against plain ``json.load``.

Usage: ``python benchmarks/bench_ingest.py [--copies 20] [--repeat 3]``. Cases (real files from
tests/fixtures/real): the lm-eval v0.4 folder with stray files (README, YAML, logs, .DS_Store),
that folder copied ``--copies`` times as ``<output>/<model>/results_*.json`` (one model per copy),
the nested ``--log_samples`` output, and the HELM suite. The baseline is what a user would
otherwise write: ``json.load`` of every result file (no checks, no notes). The ratio is the price
of classification, validation, grouping of notes and merging.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchuq.core.reading.loaders import read_paths

REAL = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real"
STRAYS = {
    "README.md": b"# runs\n",
    ".DS_Store": b"\x00\x00\x00\x01Bud1",
    "config.yaml": b"batch_size: 8\n",
    "eval.log": b"INFO done\n",
    "_provenance.txt": b"Copied from lm-evaluation-harness pull request 2809.\n",
}


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def plain_json(root: Path) -> None:
    for p in root.rglob("*.json"):
        json.loads(p.read_text())
    for p in root.rglob("*.jsonl"):
        [json.loads(line) for line in p.read_text().splitlines() if line.strip()]


def build(tmp: Path, copies: int) -> dict[str, Path]:
    strays = tmp / "v04"
    shutil.copytree(REAL / "lm_eval" / "results_v04", strays)
    for name, data in STRAYS.items():
        (strays / name).write_bytes(data)
    many = tmp / "output"
    for k in range(copies):
        src = sorted((REAL / "lm_eval" / "results_v04").glob("*.json"))[k % 2]
        obj = json.loads(src.read_text())
        obj["model_name"] = obj["config"]["model_args"] = f"pretrained=org/model-{k}"
        (many / f"org__model-{k}").mkdir(parents=True)
        (many / f"org__model-{k}" / "results_2025-01-01T00-00-00.json").write_text(json.dumps(obj))
        (many / f"org__model-{k}" / "README.md").write_text("# run\n")
    return {
        "lm-eval v0.4 folder + 5 strays": strays,
        f"lm-eval output, {copies} model folders": many,
        "lm-eval --log_samples output": REAL / "lm_eval" / "samples",
        "HELM suite (18 runs)": REAL / "helm" / "safety_v3",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for label, root in build(Path(tmp), a.copies).items():
            base = best_of(a.repeat, lambda root=root: plain_json(root))
            ours = best_of(a.repeat, lambda root=root: read_paths([root]))
            bench = read_paths([root]).bench
            print(
                f"{label:38s} {bench.shape[0]:>3d} models x {bench.shape[1]:>3d} tasks: "
                f"json.load {base:.3f} s, read_paths {ours:.3f} s, ratio {ours / base:.1f}x"
            )


if __name__ == "__main__":
    main()

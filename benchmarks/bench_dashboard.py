"""Dashboard speed on VTAB-1k, measured with AppTest (headless, in this process).

Prints: the first render of the default page (Leaderboard) with cold caches; the rerun after
moving the interval-level slider with warm caches (target <= 300 ms), and after changing the
category weights and the model selection; and, as a same-process baseline, a rerun of a
trivial one-widget app (Streamlit's own overhead). Ratios are against that baseline and against
the cold first render.

Then the Ranks page's own server runs (issue 32), as the app logs them (``BENCHUQ_RUN_LOG``:
wall and CPU seconds of each script run, without Streamlit's messaging): on VTAB-1k and on an
uploaded item-level table of 50 models x 20,000 items (4 tasks of 5,000 binary items), the
first visit (draws already made on the Leaderboard), a rerun after moving the rank-level slider
(new rank intervals) and a rerun with nothing changed (every cache warm: the figures and the
page). Targets: <= 0.2 s on VTAB-1k and <= 1 s on 50 x 20,000.

Run: ``python benchmarks/bench_dashboard.py [--repeat N]``; ``--quick`` (2 reruns, 50 models x
2,000 items) for a short check; ``--ranks-only`` skips the Leaderboard measurements.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import streamlit as st
from streamlit.testing.v1 import AppTest

ENTRY = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"
TARGET_MS = 300.0
PAGES = ENTRY.parent.parent / "pages"
RANKS_TARGET_S = {"VTAB-1k": 0.2, "50 models x 20,000 items": 1.0}
TRIVIAL = """
import streamlit as st
st.slider("x", 0.0, 1.0, 0.5, key="x")
st.write(st.session_state.x)
"""


def _ms(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return 1000 * (time.perf_counter() - t0)


def _median(times: list[float]) -> float:
    return statistics.median(times)


def items_parquet(models: int, items: int, tasks: int = 4) -> bytes:
    """An item-level table (``model, task, item, score``) of binary scores as Parquet bytes."""
    rng = np.random.default_rng(0)
    per_task = items // tasks
    skill = rng.uniform(0.4, 0.8, models)
    difficulty = rng.normal(0.0, 1.0, items)
    logit = np.log(skill / (1 - skill))[:, None] - difficulty[None, :]
    score = (rng.random((models, items)) < 1 / (1 + np.exp(-logit))).astype(np.int8)
    task = np.repeat([f"task_{t}" for t in range(tasks)], per_task)
    table = pa.table(
        {
            "model": pa.array(np.repeat([f"model_{m:02d}" for m in range(models)], items)),
            "task": pa.array(np.tile(task, models)),
            "item": pa.array(np.tile(np.arange(items) % per_task, models)),
            "score": pa.array(score.ravel()),
        }
    )
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def _last_run(log: Path) -> dict:
    return json.loads(log.read_text().splitlines()[-1])


def ranks_runs(label: str, upload: bytes | None, repeat: int, log: Path) -> list[tuple]:
    """The Ranks page's server runs on VTAB-1k (``upload`` None) or an uploaded table."""
    st.cache_resource.clear()
    st.cache_data.clear()
    at = AppTest.from_file(str(ENTRY), default_timeout=900)
    at.run()
    if upload is not None:
        at.switch_page(str(PAGES / "data.py")).run()
        at.file_uploader(key="uploader").set_value(
            [("items.parquet", upload, "application/octet-stream")]
        ).run()
        at.switch_page(str(PAGES / "leaderboard.py")).run()  # draws made here, as a user would
    assert not at.exception and not at.error, (at.exception, at.error)
    at.switch_page(str(PAGES / "ranks.py")).run()
    assert not at.exception and not at.error, (at.exception, at.error)
    first = _last_run(log)
    assert first["page"] == "Ranks", first
    slider: list[dict] = []
    for k in range(repeat):
        at.slider(key="ranks_level").set_value(90.0 + 0.5 * (k % 8)).run()
        slider.append(_last_run(log))
    same: list[dict] = []
    for _ in range(repeat):
        at.run()
        same.append(_last_run(log))
    assert not at.exception and not at.error, (at.exception, at.error)

    def med(runs: list[dict], key: str) -> float:
        return statistics.median(r[key] for r in runs)

    return [
        (f"{label}: first visit", first["seconds"], first["cpu"]),
        (f"{label}: rank-level slider", med(slider, "seconds"), med(slider, "cpu")),
        (f"{label}: rerun, all cached", med(same, "seconds"), med(same, "cpu")),
    ]


def ranks_page(repeat: int, items: int) -> None:
    """Print the Ranks page's server runs (``BENCHUQ_RUN_LOG``) on VTAB-1k and on 50 models."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "runs.jsonl"
        os.environ["BENCHUQ_RUN_LOG"] = str(log)
        big = f"50 models x {items:,} items"
        rows = ranks_runs("VTAB-1k", None, repeat, log)
        rows += ranks_runs(big, items_parquet(50, items), repeat, log)
        del os.environ["BENCHUQ_RUN_LOG"]
    print(f"\nRanks page server runs (BENCHUQ_RUN_LOG), median of {repeat} reruns")
    print(f"{'run':58s} {'wall s':>7s} {'CPU s':>7s}")
    for name, wall, cpu in rows:
        print(f"{name:58s} {wall:7.3f} {cpu:7.3f}")
    targets = ", ".join(f"{k} <= {v:g} s" for k, v in RANKS_TARGET_S.items())
    print(f"targets (issue 32): {targets}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="warm reruns per measurement")
    parser.add_argument("--quick", action="store_true", help="2 reruns, 50 x 2,000 items")
    parser.add_argument("--ranks-only", action="store_true", help="only the Ranks page runs")
    args = parser.parse_args()
    repeat = 2 if args.quick else args.repeat
    if not args.ranks_only:
        leaderboard(repeat)
    ranks_page(repeat, 2_000 if args.quick else 20_000)


def leaderboard(repeat: int) -> None:
    """The Leaderboard's first render and warm reruns against a trivial app's rerun."""

    st.cache_resource.clear()
    st.cache_data.clear()
    at = AppTest.from_file(str(ENTRY), default_timeout=300)
    first = _ms(at.run)
    assert not at.exception, at.exception

    levels = [84.0 + 0.5 * k for k in range(repeat)]
    level = [_ms(at.slider(key="level_pct").set_value(v).run) for v in levels]
    assert not at.exception and not at.error
    weights = [_ms(at.number_input(key="weight_0").set_value(1.0 + k).run) for k in range(repeat)]
    models_all = list(at.multiselect(key="models").value)
    models = [
        _ms(at.multiselect(key="models").set_value(models_all[: 4 + k % 8]).run)
        for k in range(repeat)
    ]

    base_app = AppTest.from_string(TRIVIAL).run()
    base = [_ms(base_app.slider(key="x").set_value(0.1 + 0.05 * k).run) for k in range(repeat)]

    b = _median(base)
    rows = [
        ("first render, cold caches (R=2000)", first),
        ("rerun after level slider, warm", _median(level)),
        ("rerun after weight change, warm", _median(weights)),
        ("rerun after model selection, warm", _median(models)),
        ("baseline: trivial app rerun", b),
    ]
    print(f"{'measurement':40s} {'ms':>9s} {'x baseline':>11s} {'x first':>8s}")
    for name, ms in rows:
        print(f"{name:40s} {ms:9.1f} {ms / b:11.1f} {ms / first:8.3f}")
    verdict = "meets" if _median(level) <= TARGET_MS else "MISSES"
    print(
        f"level-slider rerun {_median(level):.0f} ms {verdict} the {TARGET_MS:.0f} ms target "
        f"(median of {repeat})"
    )


if __name__ == "__main__":
    main()

"""Dashboard speed on VTAB-1k, measured with AppTest (headless, in this process).

Prints: the first render of the default page (Leaderboard) with cold caches; the rerun after
moving the interval-level slider with warm caches (target <= 300 ms), and after changing the
category weights and the model selection; and, as a same-process baseline, a rerun of a
trivial one-widget app (Streamlit's own overhead). Ratios are against that baseline and against
the cold first render. Run: ``python benchmarks/bench_dashboard.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

ENTRY = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"
TARGET_MS = 300.0
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="warm reruns per measurement")
    args = parser.parse_args()

    st.cache_resource.clear()
    st.cache_data.clear()
    at = AppTest.from_file(str(ENTRY), default_timeout=300)
    first = _ms(at.run)
    assert not at.exception, at.exception

    levels = [84.0 + 0.5 * k for k in range(args.repeat)]
    level = [_ms(at.slider(key="level_pct").set_value(v).run) for v in levels]
    assert not at.exception and not at.error
    weights = [
        _ms(at.number_input(key="weight_0").set_value(1.0 + k).run) for k in range(args.repeat)
    ]
    models_all = list(at.multiselect(key="models").value)
    models = [
        _ms(at.multiselect(key="models").set_value(models_all[: 4 + k % 8]).run)
        for k in range(args.repeat)
    ]

    base_app = AppTest.from_string(TRIVIAL).run()
    base = [_ms(base_app.slider(key="x").set_value(0.1 + 0.05 * k).run) for k in range(args.repeat)]

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
        f"(median of {args.repeat})"
    )


if __name__ == "__main__":
    main()

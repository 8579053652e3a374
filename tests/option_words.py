"""One bad input and its fix in each surface's words (issue 41; a fixture module, not a test
module): items answered three times with partial credit, scored by pass@2. Core says "score
by the mean" once (``core.options``); the Python API shows `` `statistic="mean"` ``, the CLI
``--statistic mean``, the app its sidebar control, **Item score**: The mean of every answer."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["APP", "CLI", "PYTHON", "REFUSED", "partial_credit_csv", "two_runs"]

_LM_EVAL = Path(__file__).parent / "fixtures" / "real" / "lm_eval" / "results_v04"

#: the error's words all surfaces share
REFUSED = "pass@2 counts answers that are right or wrong"
#: the fix as each surface says it
PYTHON = 'use `statistic="mean"` for partial credit'
CLI = "use --statistic mean for partial credit"
APP = "use the sidebar's **Item score**: The mean of every answer for partial credit"


def partial_credit_csv() -> bytes:
    """Two models, one task, 20 items x 3 answers scored 0, 0.5 or 1 (seeded)."""
    rng = np.random.default_rng(1)
    rows = [
        (model, "t1", f"q{i}", epoch, rng.choice([0.0, 0.5, 1.0]))
        for model in ("north", "south")
        for i in range(20)
        for epoch in (1, 2, 3)
    ]
    frame = pd.DataFrame(rows, columns=["model", "task", "item", "epoch", "score"])
    return frame.to_csv(index=False).encode()


def two_runs() -> list[tuple[str, bytes]]:
    """Two lm-eval results files of one model on the same tasks, three days apart: the loader
    keeps the newer and its note names the option that keeps both (``runs="all"``)."""
    qwen = next(_LM_EVAL.glob("Qwen*.json"))
    old, new = json.loads(qwen.read_text()), json.loads(qwen.read_text())
    old["results"]["arc_easy"]["acc,none"] = 0.5
    return [
        ("results_2025-03-01T09-00-00.000000.json", json.dumps(old).encode()),
        ("results_2025-03-04T10-00-00.000000.json", json.dumps(new).encode()),
    ]

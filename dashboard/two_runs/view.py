"""Two runs page: its settings (as they travel in the link) and tables (pure, METHODS 13)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from benchuq.api.summaries import DiffResult
from benchuq.presentation.state import link

#: Where the candidate run comes from: a model of the loaded data, or a second upload.
SOURCES = ("data", "upload")
SOURCE_LABELS = {"data": "a model of the loaded data", "upload": "a second upload"}


@dataclass(frozen=True)
class TwoRunsSettings:
    """Two runs page: base and candidate models, level, margin, sequential, candidate source."""

    base: str = link("runs_base", "", "the base run's model (default: the first)", data=True)
    candidate: str = link(
        "runs_candidate", "", "the candidate run's model (default: the second)", data=True
    )
    source: str = link(
        "runs_source",
        "data",
        "the candidate is a model of the loaded data or of a second upload",
        choices=SOURCES,
    )
    level: float = link("runs_level", 0.95, "interval level", bounds=(0.8, 0.99), percent=True)
    margin: float = link(
        "runs_margin", 0.0, "margin in points for equivalent / non-inferior", bounds=(0.0, 20.0)
    )
    sequential: bool = link(
        "runs_sequential", False, "anytime-valid confidence sequences instead of fixed-n intervals"
    )


def number_formats(table: pd.DataFrame) -> dict[str, str]:
    """printf formats of the number columns: scores and errors with two decimals, p-values and
    design effects with three significant digits."""
    return {
        name: "%.3g" if name in ("p", "design effect") else "%.2f"
        for name in table.columns
        if pd.api.types.is_float_dtype(table[name])
    }


def results_table(result: DiffResult, scale: float) -> pd.DataFrame:
    """Per task and overall: scores, difference with interval, p-value, verdict, method."""
    rows = result.rows
    return pd.DataFrame(
        {
            "task": [r.task for r in rows],
            "base": [r.base_score * scale for r in rows],
            "candidate": [r.candidate_score * scale for r in rows],
            "difference": [r.difference * scale for r in rows],
            "low": [r.low * scale for r in rows],
            "high": [r.high * scale for r in rows],
            "p": [r.p_value for r in rows],
            "verdict": [r.label for r in rows],
            "method": [r.method for r in rows],
        }
    )


def counts_table(result: DiffResult) -> pd.DataFrame:
    """Per task: items paired, only in the base, only in the candidate; answers per run."""
    rows = result.rows
    return pd.DataFrame(
        {
            "task": [r.task for r in rows],
            "paired items": [r.n_paired for r in rows],
            "only in base": [r.n_base_only for r in rows],
            "only in candidate": [r.n_candidate_only for r in rows],
            "answers (base)": [r.n_answers_base for r in rows],
            "answers (candidate)": [r.n_answers_candidate for r in rows],
        }
    )


def errors_table(result: DiffResult, scale: float) -> pd.DataFrame:
    """Standard errors side by side: each run naive and clustered; the difference naive,
    unpaired and paired; the design effect ``(paired / naive)^2``."""
    rows = result.rows
    return pd.DataFrame(
        {
            "task": [r.task for r in rows],
            "base, naive": [r.base_se_naive * scale for r in rows],
            "base, clustered": [r.base_se_clustered * scale for r in rows],
            "candidate, naive": [r.candidate_se_naive * scale for r in rows],
            "candidate, clustered": [r.candidate_se_clustered * scale for r in rows],
            "difference, naive": [r.se_naive * scale for r in rows],
            "difference, unpaired": [r.se_unpaired * scale for r in rows],
            "difference, paired": [r.se_paired * scale for r in rows],
            "design effect": [r.design_effect for r in rows],
        }
    )

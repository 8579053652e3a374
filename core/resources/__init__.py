"""Bundled reference tables (read at run time from the installed package)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pandas as pd

__all__ = ["HERE", "mmlu_subject_table"]

HERE = Path(__file__).resolve().parent


@cache
def mmlu_subject_table() -> pd.DataFrame:
    """The 57 MMLU subjects indexed by subject: ``subcategory``, ``category``, ``n_test``."""
    return pd.read_csv(HERE / "mmlu_subjects.csv").set_index("subject")

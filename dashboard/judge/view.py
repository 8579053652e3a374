"""Judge page (METHODS 15): settings as they travel in the link, the reproducing command (the
tables, caption and labels are the report's, :mod:`benchuq.presentation.report_judge`)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Literal

from benchuq.api.judge import DEFAULT_TARGET, METHODS, OVERALL
from benchuq.presentation.report_judge import (
    METHOD_LABELS,
    agreement_table,
    caption,
    estimates_table,
    planning_sentence,
)
from benchuq.presentation.state import link

__all__ = [
    "JUDGE_SAMPLE",
    "METHOD_LABELS",
    "OVERALL",
    "JudgeSettings",
    "agreement_table",
    "caption",
    "command",
    "estimates_table",
    "planning_sentence",
]

JUDGE_SAMPLE = "sample:mt_bench"  # the bundled judge sample, shown until files are uploaded


@dataclass(frozen=True)
class JudgeSettings:
    """Judge page: the estimator, the planning's target half-width, the curve's model."""

    method: Literal["ppi++", "rogan-gladen", "classical"] = link(
        "judge_method", "ppi++", "the estimator of the corrected score", choices=METHODS
    )
    target: float = link(
        "judge_target",
        DEFAULT_TARGET,
        "target interval half-width of the planning (± points on the page)",
        bounds=(0.005, 0.25),
        percent=True,  # points on screen, a proportion in the link (`benchuq judge --target`)
    )
    curve: str = link(
        "judge_curve", "", "model of the labels-needed curve (default: overall)", data=True
    )


def command(key: str, settings: JudgeSettings, level: float) -> str:
    """The ``benchuq judge`` command that reproduces the page (``key``: the data)."""
    data = key if key.startswith("sample:") else "YOUR_FILES"
    flags = [
        "--method",
        settings.method,
        "--level",
        f"{level:g}",
        "--target",
        f"{settings.target:g}",
    ]
    return shlex.join(["benchuq", "judge", data, *flags])

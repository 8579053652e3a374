"""Scores from an LLM judge corrected with human labels: :func:`judge` (METHODS 15), and the
names the Judge page takes (the front ends reach the statistics through :mod:`benchuq.api`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from benchuq import results
from benchuq.core.analyses.judge import (
    DEFAULT_TARGET,
    METHODS,
    OVERALL,
    JudgeReplicates,
    JudgeResult,
    Method,
    judge_replicates,
)
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.validation import check_level

if TYPE_CHECKING:
    import pandas as pd

    from benchuq.core.reading.judge_data import JudgeData

__all__ = [
    "DEFAULT_TARGET",
    "METHODS",
    "OVERALL",
    "JudgeReplicates",
    "JudgeResult",
    "Method",
    "judge",
    "judge_replicates",
]


def judge(
    data: str | Path | Sequence[str | Path] | pd.DataFrame | JudgeData,
    *,
    labels: str | Path | pd.DataFrame | None = None,
    judge: str = "judge",
    human: str = "human",
    columns: Mapping[str, str] | None = None,
    method: Method = "ppi++",
    level: float = COMPARISON_LEVEL,
    target: float = 0.03,
    seed: int = 0,
) -> results.JudgeResult:
    """Judge scores corrected with a few human labels, as ``benchuq judge`` (METHODS 15).

    Parameters
    ----------
    data
        An item table ``model[, task], item, judge[, human]`` (a file or a DataFrame),
        item-level results benchuq reads (with ``labels``), or ``"sample:mt_bench"``.
    labels
        A labels table ``item[, model][, task], human`` (file or DataFrame), joined on the
        columns it has.
    judge, human
        The names of the judge's score column and the human label column.
    columns
        Other column names mapped to ours (``{"their name": "model"}``).
    method
        ``"ppi++"`` (any scores in [0, 1]), ``"rogan-gladen"`` (binary), ``"classical"``.
    level, target, seed
        Interval level; the half-width the planning asks labels for; the agreement's seed.

    Examples
    --------
    >>> import benchuq as bq
    >>> j = bq.judge("sample:mt_bench")
    >>> j.to_frame()[["model", "estimate", "judge_mean"]].round(3).head(2)
               model  estimate  judge_mean
    0          gpt-4     0.744       0.861
    1  gpt-3.5-turbo     0.589       0.592
    >>> lb = bq.leaderboard(bq.bootstrap(j.to_benchmark(), seed=0), level=0.95)
    """
    import io

    import pandas as pd

    from benchuq.core.analyses.judge import judge as _judge
    from benchuq.core.reading.judge_data import (
        JudgeData,
        join_labels,
        judge_from_frame,
        load_judge,
    )
    from benchuq.core.reading.table import Source

    level = check_level(level)
    label_frame = labels if isinstance(labels, pd.DataFrame) else None
    label_path = None if label_frame is not None else labels
    if isinstance(data, JudgeData):
        loaded = data
    elif isinstance(data, pd.DataFrame):
        loaded = judge_from_frame(data, judge=judge, human=human, name="data")
    else:
        loaded = load_judge(
            [str(d) for d in ([data] if isinstance(data, str | Path) else data)],
            labels=label_path,
            judge=judge,
            human=human,
            columns=columns,
        )
    if label_frame is not None:
        buf = io.StringIO()
        label_frame.to_csv(buf, index=False)
        loaded = join_labels(loaded, Source("labels", buf.getvalue().encode()), human=human)
    return results.JudgeResult(_judge(loaded, method=method, level=level, target=target, seed=seed))

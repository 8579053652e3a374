"""What the Data page shows, built from a loaded data set (pure; no streamlit).

Notes are shown once, grouped and counted (``core.reading.notes``): the Data page lists them in
one collapsed expander, every other page has a one-line pointer. The run details table says
where each model's results come from (harness and version, n-shot, task versions, metric).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchuq.core.data import Benchmark
from benchuq.core.reading.answers import answer_counts
from benchuq.core.reading.meta import Meta
from benchuq.core.reading.notes import count, headline

__all__ = [
    "DEFAULT_METRIC",
    "MAPPABLE_COLUMNS",
    "NoteItem",
    "answers_frame",
    "categories_frame",
    "metric_label",
    "metric_options",
    "note_items",
    "notes_title",
    "pointer_text",
    "preview",
    "run_details",
    "sidebar_data_prefix",
]

#: The metric selector's "each format's own default" (acc for lm-eval, HELM's main metric).
DEFAULT_METRIC = ""
#: What a column of an uploaded table can be mapped to.
MAPPABLE_COLUMNS = (
    *("model", "task", "category", "n", "correct", "accuracy", "estimate", "se", "chance"),
    *("higher_is_better", "item", "score", "cluster", "subgroup", "epoch"),
    *("model_a", "model_b", "winner", "judge", "prompt"),  # battles (METHODS 8b)
)


@dataclass(frozen=True)
class NoteItem:
    """One note: its headline and the detail lines (files, tasks), possibly empty."""

    headline: str
    details: tuple[str, ...]


def note_items(notes: tuple[str, ...]) -> list[NoteItem]:
    """Each note as a headline (its first line) and its detail lines; a list of files is named
    once: a later note from the same files says so instead of repeating every path (issue 30)."""
    out = []
    seen: dict[str, int] = {}  # a "files: ..." line -> the number of the note that listed it
    for k, n in enumerate(notes, start=1):
        details = []
        for line in n.split("\n")[1:]:
            if line.startswith("files: ") and line in seen:
                n_files = line.count(", ") + 1
                line = f"files: the same {n_files} as note {seen[line]}"
            elif line.startswith("files: "):
                seen[line] = k
            details.append(line)
        out.append(NoteItem(headline(n), tuple(details)))
    return out


def notes_title(notes: tuple[str, ...]) -> str:
    """The notes expander's title."""
    return f"Notes on this data ({len(notes)})"


def pointer_text(notes: tuple[str, ...], *, sidebar_data: str | None = None) -> str:
    """The one line other pages show (``""`` when there is nothing to read). ``sidebar_data``:
    the sidebar data set's name, on a page that analyses its own data (the line names whose
    notes these are)."""
    if not notes:
        return ""
    about = "this data" if sidebar_data is None else _sidebar_data(sidebar_data)
    return f"{count(len(notes), 'note')} on {about}: see the Data page."


def _sidebar_data(name: str) -> str:
    return f"the sidebar's data set ({name})"


def sidebar_data_prefix(sidebar_data: str | None) -> str:
    """What starts a note about the sidebar's data on a page that analyses its own data."""
    if sidebar_data is None:
        return ""
    about = _sidebar_data(sidebar_data)
    return f"{about[0].upper()}{about[1:]}, not this page's: "


def metric_options(offered: Sequence[str]) -> list[str]:
    """Metric choices for an upload: the default, then every metric its files offer."""
    return [DEFAULT_METRIC, *offered]


def metric_label(metric: str) -> str:
    """How the metric picker shows ``metric``."""
    if metric == DEFAULT_METRIC:
        return "default (acc; HELM: the main metric; inspect_ai: the first scorer)"
    return metric


def run_details(meta: Meta) -> pd.DataFrame:
    """Per model and harness: tasks, n-shot, task versions and metrics (values joined when
    they vary over tasks)."""
    runs = meta.runs_frame()
    if runs.empty:
        return runs

    def joined(values: pd.Series) -> str:
        distinct = [v for v in dict.fromkeys(values.astype(str)) if v]
        return ", ".join(distinct[:6]) + (f", … ({len(distinct)})" if len(distinct) > 6 else "")

    out = runs.groupby(["model", "harness"], sort=False).agg(
        tasks=("task", "nunique"),
        n_shot=("n_shot", joined),
        versions=("version", joined),
        metric=("metric", joined),
        files=("file", "nunique"),
    )
    return out.reset_index().rename(columns={"n_shot": "n-shot", "versions": "task versions"})


KIND_WORDS = {
    "counts": "correct answers out of n per model and task",
    "estimate_se": "a score and its standard error per model and task",
    "items": "a score per item, model and task",
}


def kind_words(kind: str) -> str:
    """What the data holds, in plain words (``Benchmark.kind``)."""
    return KIND_WORDS.get(kind, kind.replace("_", " "))


def categories_frame(bench: Benchmark) -> pd.DataFrame:
    """Task and category, for the category editor."""
    return pd.DataFrame({"task": bench.tasks, "category": bench.categories})


def preview(bench: Benchmark) -> pd.DataFrame:
    """Observed score per model (rows) and task (columns)."""
    return pd.DataFrame(bench.estimate, index=list(bench.models), columns=list(bench.tasks))


def answers_frame(bench: Benchmark) -> pd.DataFrame | None:
    """Items and answers behind each model's score on each task (``n_items``, ``n_answers``,
    answers per item); ``None`` when the data does not say (estimates with standard errors)."""
    items, answers = answer_counts(bench)
    if np.isnan(items).all():
        return None
    M, T = bench.shape
    frame = pd.DataFrame(
        {
            "model": np.repeat(bench.models, T),
            "task": np.tile(bench.tasks, M),
            "n_items": items.ravel().astype(int),
            "n_answers": answers.ravel().astype(int),
        }
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        frame["answers per item"] = frame["n_answers"] / frame["n_items"]
    return frame[frame["n_items"] > 0].reset_index(drop=True)

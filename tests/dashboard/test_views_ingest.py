"""The Data page's and the leaderboard table's view models, without streamlit."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchuq.core import summaries
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.reading.loaders import read_paths, read_sample
from benchuq.dashboard.data import view as views_data
from benchuq.dashboard.table import view as views_table

V04 = Path(__file__).parents[1] / "fixtures" / "real" / "lm_eval" / "results_v04"


@pytest.fixture(scope="module")
def v04():
    loaded = read_paths([V04])
    return loaded, bootstrap(loaded.bench, reps=300, seed=1)


def test_columns_of_a_sample_and_of_lm_eval_groups(v04) -> None:
    vtab = read_sample("vtab1k").bench
    labels = [c.label for c in views_table.table_columns(vtab)]
    assert labels[:2] == ["Overall (mean of 19 tasks)", "Average of 3 categories"]
    assert labels[2:5] == [f"{c} (mean of {vtab.categories.count(c)} tasks)" for c in
                           vtab.category_names]  # fmt: skip
    assert labels[5:] == list(vtab.tasks)
    loaded, _ = v04
    cols = views_table.table_columns(loaded.bench, loaded.meta.groups)
    labels = [c.label for c in cols]
    assert labels[2:4] == ["mmlu (lm-eval, size-weighted)", "mmlu (mean of 57 tasks)"]
    assert "mmlu_stem (lm-eval, size-weighted)" in labels
    assert not any(c.kind == "category" for c in cols)  # category mmlu is the group mmlu


def test_cells_are_summaries_of_the_draws(v04) -> None:
    loaded, draws = v04
    cols = views_table.table_columns(loaded.bench, loaded.meta.groups)
    table = views_table.wide_table(draws, 0.9, cols, loaded.bench)
    overall = summaries.percentile_interval(
        summaries.group_scores(draws, group="overall"), level=0.9
    )
    assert np.allclose(table.estimate[:, 0], overall.estimate)
    assert np.allclose(table.low[:, 0], overall.low) and np.allclose(table.high[:, 0], overall.high)
    reported = {}
    for f in V04.glob("*.json"):
        obj = json.loads(f.read_text())
        reported[obj["model_name"]] = obj["groups"]["mmlu"]["acc,none"]
    j = [c.label for c in cols].index("mmlu (lm-eval, size-weighted)")
    assert table.estimate[:, j] == pytest.approx([reported[m] for m in table.models], abs=1e-12)
    assert np.all(table.low <= table.estimate + 1e-12) and np.all(table.estimate <= table.high)


def test_search_sort_kinds_and_download(v04) -> None:
    loaded, draws = v04
    cols = views_table.table_columns(loaded.bench, loaded.meta.groups)
    table = views_table.wide_table(draws, 0.834, cols, loaded.bench)
    assert views_table.select(table, query="LLAMA").models == ("meta-llama/Llama-3.2-1B",)
    by_col = views_table.select(table, query="hellaswag")
    assert [c.label for c in by_col.columns] == [cols[0].label, cols[1].label, "hellaswag"]
    tasks_only = views_table.select(table, kinds=["Tasks"])
    assert all(c.kind == "task" for c in tasks_only.columns)
    worst_first = views_table.select(table, sort_by=cols[0].label, descending=False)
    assert worst_first.models == ("meta-llama/Llama-3.2-1B", "Qwen/Qwen2.5-1.5B")
    texts = views_table.cell_texts(by_col)
    assert texts.columns[0] == "model"
    assert texts.iloc[0, 1] == (
        f"{100 * by_col.estimate[0, 0]:.1f} [{100 * by_col.low[0, 0]:.1f}, "
        f"{100 * by_col.high[0, 0]:.1f}]"
    )
    csv = pd.read_csv(io.BytesIO(views_table.to_csv(by_col)))
    assert list(csv.columns[:5]) == ["model", "level", cols[0].label, f"{cols[0].label} low",
                                     f"{cols[0].label} high"]  # fmt: skip
    assert csv[cols[0].label].tolist() == pytest.approx(by_col.estimate[:, 0].tolist())


def test_missing_scores_sort_last_and_show_a_dash() -> None:
    col = views_table.Column("t", "task", ("t",))
    table = views_table.WideTable(
        ("a", "b", "c"), (col,), np.array([[0.2], [np.nan], [0.5]]),
        np.array([[0.1], [np.nan], [0.4]]), np.array([[0.3], [np.nan], [0.6]]), 0.9,
    )  # fmt: skip
    assert views_table.select(table, sort_by="t").models == ("c", "a", "b")
    assert views_table.cell_texts(table)["t"].tolist()[1] == "—"


def test_data_page_texts(v04) -> None:
    loaded, _ = v04
    notes = loaded.bench.notes
    assert views_data.pointer_text(notes) == f"{len(notes)} notes on this data: see the Data page."
    assert views_data.pointer_text(()) == ""
    assert views_data.pointer_text(notes, sidebar_data="vtab1k") == (
        f"{len(notes)} notes on the sidebar's data set (vtab1k): see the Data page."
    )
    items = views_data.note_items(notes)
    assert items[0].headline == "2 files: task 'cola' skipped — its metric is mcc, not acc."
    assert items[0].details[0].startswith("files: ")
    assert views_data.metric_options(loaded.meta.metrics)[:3] == ["", "acc", "acc_norm"]
    details = views_data.run_details(loaded.meta)
    assert list(details.model) == ["Qwen/Qwen2.5-1.5B", "meta-llama/Llama-3.2-1B"]
    assert set(details.tasks) == {72} and set(details["n-shot"]) == {"0"}

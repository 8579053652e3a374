"""Judge data: a judge's score per item and a human label for some items (METHODS 15).

Two ways in (``benchuq judge``, ``bq.judge``, the Judge page):

- an **item table** (CSV, TSV, JSON Lines, Parquet) with columns ``model, task, item, judge,
  human`` (``task`` optional; ``human`` empty where no one labelled the item; the judge and human
  column names are options, the others follow the column mapping);
- **any item-level data benchuq reads** (inspect logs with a model-graded scorer, lm-eval sample
  files, EEE instance files, long item tables), the score being the judge's, plus a **labels
  file** ``item[, model][, task], human`` joined on the columns it has.

Scores are in [0, 1]: binary (0/1) or graded (e.g. 0, 0.5, 1 for a pairwise loss, tie, win).
``sample:mt_bench`` is MT-Bench's pairwise judgments (:func:`mt_bench_frame`): each judgment is
an item for each of its two models (1 a win, 0.5 a tie, 0 a loss), GPT-4 the judge, the human
label kept on a seeded random 20% of the judgments.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from benchuq.core.data import Benchmark, DataError
from benchuq.core.options import option
from benchuq.core.reading.table import (
    Source,
    Table,
    number_column,
    read_mapped_table,
    read_table,
    rename_columns,
    text_column,
)

__all__ = [
    "JUDGE_SAMPLES",
    "MT_BENCH_LABELLED",
    "JudgeData",
    "join_labels",
    "judge_from_benchmark",
    "judge_from_frame",
    "load_judge",
    "mask_labels",
    "mt_bench_frame",
    "read_judge_files",
]

#: the bundled judge samples (``sample:<name>``) and what they hold
JUDGE_SAMPLES: dict[str, str] = {
    "mt_bench": "MT-Bench: 600 human judgments of answer pairs of 6 models with GPT-4's verdict "
    "on the same pair; human labels kept on a random 20% (Zheng et al. 2023).",
}
#: the share of MT-Bench judgments whose human label ``sample:mt_bench`` keeps
MT_BENCH_LABELLED = 0.2
_MT_BENCH_FILE = "mt_bench_judgments.csv"
_OUTCOME = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (inconsistent)": 0.5}
_TABLE_HINT = (
    "an item table needs columns model, item and the judge's score (optionally task and the "
    f"human label); name yours with {option('judge')} and {option('human')} or the column "
    "mapping."
)


@dataclass(frozen=True, eq=False)
class JudgeData:
    """Items scored by a judge, some also labelled by people (arrays aligned over rows).

    Attributes
    ----------
    name
        The data set's name.
    models, tasks
        Names; ``model`` and ``task`` are int codes into them.
    item
        ``(N,)`` item names (unique within a model and task).
    judge
        ``(N,)`` the judge's score in [0, 1].
    human
        ``(N,)`` the human label in [0, 1], ``nan`` where the item is unlabelled.
    file, judge_column, human_column
        Where the scores and labels came from (named in messages).
    notes
        What the reader did.
    """

    name: str
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    model: np.ndarray
    task: np.ndarray
    item: np.ndarray
    judge: np.ndarray
    human: np.ndarray
    file: str = ""
    judge_column: str = "judge"
    human_column: str = "human"
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (
            f"JudgeData({self.name!r}: {self.n} items, {int(self.labelled.sum())} labelled, "
            f"{len(self.models)} models, {len(self.tasks)} tasks)"
        )

    @property
    def n(self) -> int:
        """Number of judged items (rows)."""
        return len(self.judge)

    @property
    def labelled(self) -> np.ndarray:
        """``(N,)`` True where a person labelled the item."""
        return ~np.isnan(self.human)

    @property
    def binary(self) -> bool:
        """Whether every judge score and label is 0 or 1."""
        h = self.human[self.labelled]
        return bool(np.isin(self.judge, (0.0, 1.0)).all() and np.isin(h, (0.0, 1.0)).all())

    def content_hash(self) -> str:
        """A hash of the rows (cache keys)."""
        h = hashlib.sha256()
        h.update("\0".join((*self.models, "|", *self.tasks)).encode())
        h.update("\0".join(map(str, self.item)).encode())
        for arr in (self.model, self.task, self.judge, self.human):
            h.update(np.ascontiguousarray(arr).tobytes())
        return h.hexdigest()[:24]

    def frame(self) -> pd.DataFrame:
        """The rows as ``model, task, item, judge, human``."""
        return pd.DataFrame(
            {
                "model": np.asarray(self.models, object)[self.model],
                "task": np.asarray(self.tasks, object)[self.task],
                "item": self.item,
                "judge": self.judge,
                "human": self.human,
            }
        )


def _codes(values: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    names, codes = np.unique(values.astype(str), return_inverse=True)
    return codes.astype(np.int32), tuple(str(n) for n in names)


def _find(table: Table, name: str) -> str | None:
    """The table's column called ``name`` (case-insensitive), or ``None``."""
    lower = {str(c).lower(): str(c) for c in table.frame.columns}
    return str(name) if name in table.frame.columns else lower.get(str(name).lower())


def _unit_scores(table: Table, column: str, *, allow_missing: bool, what: str) -> np.ndarray:
    raw = table.frame[column]
    if allow_missing and pd.api.types.is_numeric_dtype(raw):  # NaN: no label
        raw = raw.astype(object).where(raw.notna(), "")
        table = replace(table, frame=table.frame.assign(**{column: raw}))
    x = number_column(table, column, allow_missing=allow_missing)
    bad = np.flatnonzero(np.isfinite(x) & ((x < 0) | (x > 1)))
    if bad.size:
        i = int(bad[0])
        raise DataError(
            f"the {what} {x[i]:g} is outside [0, 1] ({bad.size} such rows).",
            file=table.name,
            row=table.row(i),
            column=column,
            hint="give scores as 0/1 or as proportions in [0, 1] (divide percentages by 100).",
        )
    return x


def _check_unique(
    table: Table, keys: list[np.ndarray], columns: tuple[str, ...], *, what: str
) -> None:
    frame = pd.DataFrame({c: k for c, k in zip(columns, keys, strict=True)})
    dup = np.flatnonzero(frame.duplicated().to_numpy())
    if dup.size:
        i = int(dup[0])
        key = ", ".join(f"{c}={frame.iloc[i][c]!r}" for c in columns)
        raise DataError(
            f"{what} {key} appears twice ({dup.size} repeated rows).",
            file=table.name,
            row=table.row(i),
            column=columns[-1],
            hint="give each item one row (drop or average the repeats).",
        )


def _from_table(
    table: Table, *, judge: str, human: str, name: str, with_human: bool
) -> tuple[JudgeData, bool]:
    """Rows of an item table; the flag says whether it had a human column."""
    cols: dict[str, str] = {}
    for c in ("model", "item", judge):
        found = _find(table, c)
        if found is None:
            raise DataError(
                f"missing column '{c}'; the file's columns are "
                f"{sorted(map(str, table.frame.columns))}.",
                file=table.name,
                column=c,
                hint=_TABLE_HINT,
            )
        cols[c] = found
    if len(table.frame) == 0:
        raise DataError("the table has a header but no rows.", file=table.name, hint=_TABLE_HINT)
    models = text_column(table, cols["model"])
    items = text_column(table, cols["item"])
    task_col = _find(table, "task")
    tasks = (
        text_column(table, task_col)
        if task_col is not None
        else np.full(len(items), name, dtype=object)
    )
    scores = _unit_scores(table, cols[judge], allow_missing=False, what="judge's score")
    human_col = _find(table, human)
    if human_col is not None and with_human:
        labels = _unit_scores(table, human_col, allow_missing=True, what="human label")
    else:
        labels = np.full(len(items), np.nan)
    _check_unique(table, [models, tasks, items], ("model", "task", "item"), what="the item")
    m, mnames = _codes(models)
    t, tnames = _codes(tasks)
    data = JudgeData(
        name=name,
        models=mnames,
        tasks=tnames,
        model=m,
        task=t,
        item=items.astype(str).astype(object),
        judge=scores,
        human=labels,
        file=table.name,
        judge_column=cols[judge],
        human_column=human_col or human,
    )
    return data, human_col is not None


def judge_from_frame(
    frame: pd.DataFrame, *, judge: str = "judge", human: str = "human", name: str = "judge"
) -> JudgeData:
    """Judge data from a DataFrame with columns ``model[, task], item, judge[, human]``."""
    table = Table(name, frame.reset_index(drop=True), 2)
    return _from_table(table, judge=judge, human=human, name=name, with_human=True)[0]


def judge_from_benchmark(bench: Benchmark, *, file: str = "") -> JudgeData:
    """Judge data from item-level scores (the judge's), no labels yet (:func:`join_labels`)."""
    if bench.kind != "items" or bench.item_tasks is None:
        raise DataError(
            f"this data holds {bench.kind.replace('_', ' ')} per model and task, not a score "
            "per item.",
            file=file or bench.name,
            hint="judge corrections need the judge's score of each item: an item table, inspect "
            "logs with a model-graded scorer, lm-eval samples or EEE instance files.",
        )
    parts = []
    for t, it in enumerate(bench.item_tasks):
        scores = it.scores
        names = np.asarray(list(it.items), dtype=object)
        for m in range(len(bench.models)):
            ok = ~np.isnan(scores[m])
            k = int(ok.sum())
            parts.append(
                (np.full(k, m, np.int32), np.full(k, t, np.int32), names[ok], scores[m, ok])
            )
    judge = np.concatenate([p[3] for p in parts]).astype(float)
    if judge.size and ((judge < 0) | (judge > 1)).any():
        raise DataError(
            "the judge's scores are outside [0, 1].",
            file=file or bench.name,
            hint="judge corrections need scores in [0, 1] (0/1, or a proportion).",
        )
    return JudgeData(
        name=bench.name,
        models=bench.models,
        tasks=bench.tasks,
        model=np.concatenate([p[0] for p in parts]),
        task=np.concatenate([p[1] for p in parts]),
        item=np.concatenate([p[2] for p in parts]).astype(str).astype(object),
        judge=judge,
        human=np.full(judge.size, np.nan),
        file=file or bench.name,
        judge_column="score",
        notes=tuple(bench.notes),
    )


def join_labels(data: JudgeData, src: Source, *, human: str = "human") -> JudgeData:
    """``data`` with the human labels of a labels file ``item[, model][, task], human`` (joined
    on the key columns the file has); a label for an item the data lacks is an error."""
    table = read_mapped_table(src)
    item_col = _find(table, "item")
    human_col = _find(table, human)
    for c, found in (("item", item_col), (human, human_col)):
        if found is None:
            raise DataError(
                f"the labels file has no column '{c}'; its columns are "
                f"{sorted(map(str, table.frame.columns))}.",
                file=table.name,
                column=c,
                hint="a labels file has columns item, human (optionally model and task); name "
                f"the label column with {option('human')}.",
            )
    assert item_col is not None and human_col is not None
    keys: dict[str, np.ndarray] = {}
    for c in ("model", "task"):
        found = _find(table, c)
        if found is not None:
            keys[c] = text_column(table, found)
    keys["item"] = text_column(table, item_col)
    labels = _unit_scores(table, human_col, allow_missing=False, what="human label")
    _check_unique(table, list(keys.values()), tuple(keys), what="the label of")
    rows = data.frame()
    left = pd.DataFrame({c: rows[c].astype(str).to_numpy() for c in keys})
    right = pd.DataFrame({**keys, "_label": labels, "_row": np.arange(len(labels))})
    joined = left.merge(right, on=list(keys), how="left", sort=False)
    matched = np.zeros(len(labels), bool)
    matched[joined["_row"].dropna().astype(int).to_numpy()] = True
    if not matched.all():
        i = int(np.flatnonzero(~matched)[0])
        key = ", ".join(f"{c}={keys[c][i]!r}" for c in keys)
        raise DataError(
            f"{int((~matched).sum())} label(s) name items the data does not have (first: {key}).",
            file=table.name,
            row=table.row(i),
            column="item",
            hint="check that the labels file's item names (and model/task names, when given) "
            f"match the data's exactly, e.g. {rows['item'].iloc[0]!r}; delete labels of items "
            "that were not judged.",
        )
    return replace(
        data,
        human=joined["_label"].to_numpy(float),
        human_column=human_col,
        notes=(
            *data.notes,
            f"labels: {len(labels)} from {table.name}, joined on {', '.join(keys)}"
            + (
                f"; without a model column each label applies to the item of all "
                f"{len(data.models)} models."
                if "model" not in keys and len(data.models) > 1
                else "."
            ),
        ),
    )


def read_judge_files(
    files: Sequence[tuple[str, bytes]],
    *,
    labels: tuple[str, bytes] | None = None,
    judge: str = "judge",
    human: str = "human",
    columns: Mapping[str, str] | None = None,
    name: str | None = None,
) -> JudgeData:
    """Judge data from files ``[(name, bytes), ...]``: one item table with a ``judge`` column,
    or item-level results of any format benchuq reads; ``labels`` joins a labels file."""
    if not files:
        raise DataError("no files were given.", hint="give an item table or item-level results.")
    stem = Path(files[0][0]).stem
    if len(files) == 1:
        src = Source(Path(files[0][0]).name, files[0][1])
        table = _try_table(src)
        if table is not None:
            table = rename_columns(table, dict(columns or {}))
            if _find(table, judge) is not None and _find(table, "item") is not None:
                data, had_human = _from_table(
                    table, judge=judge, human=human, name=name or stem, with_human=labels is None
                )
                if labels is not None and had_human:
                    raise DataError(
                        f"the table has a human column '{human}' and a labels file was given.",
                        file=table.name,
                        column=human,
                        hint="give the labels one way: in the table's column or in "
                        f"{option('labels')}.",
                    )
                if labels is not None:
                    data = join_labels(data, Source(Path(labels[0]).name, labels[1]), human=human)
                elif not had_human:
                    raise _no_labels(data)
                return data
    from benchuq.core.reading.loaders import read_files

    bench = read_files(list(files), columns=dict(columns or {}), name=name).bench
    data = judge_from_benchmark(bench, file=files[0][0] if len(files) == 1 else bench.name)
    if labels is None:
        raise _no_labels(data)
    return join_labels(data, Source(Path(labels[0]).name, labels[1]), human=human)


def _try_table(src: Source) -> Table | None:
    """The file as a table, or ``None`` when it is not one (a log, a JSON document)."""
    try:
        table = read_mapped_table(src)
    except DataError:
        return None
    return table if isinstance(table.frame, pd.DataFrame) else None


def _no_labels(data: JudgeData) -> DataError:
    return DataError(
        f"no human labels: the data has no '{data.human_column}' column and no labels file was "
        "given.",
        file=data.file,
        column=data.human_column,
        hint="add a human column (empty where no one labelled the item) or give a labels file "
        f"item[, model][, task], human with {option('labels')}.",
    )


def mt_bench_frame(data: bytes | None = None) -> pd.DataFrame:
    """MT-Bench judgments as an item table with every human label: each judgment is an item for
    model_a and for model_b (1 a win, 0.5 a tie, 0 a loss; GPT-4's "tie (inconsistent)" a tie).

    ``data``: the judgments CSV (default: the bundled sample, ``sample_data/README.md``).
    """
    if data is None:
        from benchuq.core.reading.loaders import SAMPLE_DIR

        data = (SAMPLE_DIR / _MT_BENCH_FILE).read_bytes()
    raw = read_table(Source(_MT_BENCH_FILE, data)).frame
    item = (
        raw["question_id"].astype(str)
        + "-t"
        + raw["turn"].astype(str)
        + "-"
        + raw["human_judge"].astype(str)
        + "-"
        + raw["model_a"].astype(str)
        + "-vs-"
        + raw["model_b"].astype(str)
    )
    a_judge = raw["winner_gpt4"].map(_OUTCOME).to_numpy(float)
    a_human = raw["winner_human"].map(_OUTCOME).to_numpy(float)
    sides = [
        pd.DataFrame({"model": raw[side], "task": "mt_bench", "item": item, "judge": j, "human": h})
        for side, j, h in (("model_a", a_judge, a_human), ("model_b", 1 - a_judge, 1 - a_human))
    ]
    return pd.concat(sides, ignore_index=True)


def mask_labels(
    frame: pd.DataFrame, *, labelled: float, seed: int, by: str = "item"
) -> pd.DataFrame:
    """``frame`` with the human label kept on a random share ``labelled`` of the ``by`` values
    (both rows of a pairwise judgment share it) and emptied elsewhere."""
    keys = frame[by].astype(str).to_numpy()
    unique = np.unique(keys)
    rng = np.random.default_rng(seed)
    chosen = rng.choice(unique.size, round(labelled * unique.size), replace=False)
    keep = np.isin(keys, unique[chosen])
    out = frame.copy()
    out["human"] = np.where(keep, out["human"].to_numpy(float), np.nan)
    return out


def load_judge(
    data: str | Path | Sequence[str | Path],
    *,
    labels: str | Path | None = None,
    judge: str = "judge",
    human: str = "human",
    columns: Mapping[str, str] | None = None,
    name: str | None = None,
) -> JudgeData:
    """Judge data from paths (files, folders, zips, globs) or ``sample:mt_bench`` (the CLI's
    ``DATA`` and ``--labels``).

    Examples
    --------
    >>> load_judge("sample:mt_bench")
    JudgeData('mt_bench': 1200 items, 240 labelled, 6 models, 1 tasks)
    """
    from benchuq.core.reading.files import gather_paths, read_capped

    items = [data] if isinstance(data, (str, Path)) else list(data)
    label_file = None
    if labels is not None:
        label_file = (Path(labels).name, read_capped(labels))
    if len(items) == 1 and str(items[0]).startswith("sample:"):
        sample = str(items[0]).split(":", 1)[1]
        if sample not in JUDGE_SAMPLES:
            raise DataError(
                f"sample:{sample} holds no judge scores.",
                hint=f"use {', '.join('sample:' + s for s in JUDGE_SAMPLES)}, or an item table "
                "model, task, item, judge, human.",
            )
        frame = mask_labels(mt_bench_frame(), labelled=MT_BENCH_LABELLED, seed=0)
        out = judge_from_frame(frame, name=name or sample)
        note = (
            f"sample:{sample}: GPT-4's verdict on every judgment, the human label kept on a "
            f"random {MT_BENCH_LABELLED:.0%} of them (seed 0). Each judgment is an item of both "
            "its models, so the overall row is 0.5 by construction: read the per-model rows."
        )
        if label_file is not None:
            raise DataError(
                f"sample:{sample} brings its own labels.", hint=f"leave out {option('labels')}."
            )
        return replace(out, file=f"sample:{sample}", notes=(note,))
    got = gather_paths(items)
    return read_judge_files(
        list(got.files),
        labels=label_file,
        judge=judge,
        human=human,
        columns=columns,
        name=name or got.name,
    )

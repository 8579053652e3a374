"""Pairwise battles: tables of ``model_a, model_b, winner`` (Chatbot Arena, MT-Bench pairwise,
Arena-Hard, reward-model preferences), and AlpacaEval annotations read as battles against their
baseline (METHODS 8b).

A battles table is not per-task scores: it loads into :class:`Battles` (its own type), which only
``core.arena`` reads. Columns (names matched case-insensitively, mapped by the upload's column
mapping like any table):

- ``model_a``, ``model_b``: the two models; ``winner``: ``model_a``, ``model_b``, ``tie``,
  ``tie (bothbad)`` or ``both_bad`` (``a``/``b`` and ``bothbad`` also read);
- optional ``judge`` and ``prompt`` (also ``question_id``, ``prompt_id``): clusters for the
  sandwich and the bootstrap;
- any other numeric column is a battle-level covariate for style control (``core.arena``'s
  ``control``): a column ``X`` is used as it is, a pair ``X_a``, ``X_b`` as the normalised
  difference ``(X_a - X_b) / (X_a + X_b)`` (LMArena's style features).

AlpacaEval annotations (``generator_1`` baseline, ``generator_2`` model, ``preference`` in 1..2):
``model_a`` = generator_2, ``model_b`` = generator_1, the outcome is ``preference - 1`` (a's share
of the win; continuous preferences stay fractional, so only ``ties="half"`` fits them), prompt =
the instruction.

The module follows the readers' table of formats: :data:`KIND`, :data:`LABEL`,
:func:`claims` (is a file mine, by content) and :func:`read`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from benchuq.core.data import DataError
from benchuq.core.reading.arrow import header_table
from benchuq.core.reading.judged import ALPACA_COLUMNS, is_alpaca
from benchuq.core.reading.table import (
    ROW_NOTE,
    Source,
    Table,
    number_column,
    read_mapped_table,
    rename_columns,
    text_column,
)

__all__ = [
    "BATTLE_COLUMNS",
    "KIND",
    "LABEL",
    "OPTIONAL_COLUMNS",
    "WINNERS",
    "Battles",
    "BattlesNotScores",
    "battles_from_frame",
    "claims",
    "is_battles",
    "load_battles",
    "not_scores",
    "read",
    "read_battle_files",
]

KIND = "battles"
LABEL = "a battles table (model_a, model_b, winner)"
BATTLE_COLUMNS = ("model_a", "model_b", "winner")
OPTIONAL_COLUMNS = ("judge", "prompt")
#: ``winner`` values -> (model_a's share of the win, both answers bad).
WINNERS: dict[str, tuple[float, bool]] = {
    "model_a": (1.0, False),
    "a": (1.0, False),
    "model_b": (0.0, False),
    "b": (0.0, False),
    "tie": (0.5, False),
    "tie (bothbad)": (0.5, True),
    "both_bad": (0.5, True),
    "bothbad": (0.5, True),
}
_PROMPT_ALIASES = ("prompt", "question_id", "prompt_id")


#: Bundled samples that read as battles, with the note on their source (sample_data/README.md).
BATTLE_SAMPLES: dict[str, tuple[str, ...]] = {
    "mt_bench_battles": (
        "MT-Bench human judgments (Zheng et al. 2023, lmsys mt_bench_human_judgments, "
        "CC-BY-4.0): 1,751 expert and author verdicts on answer pairs of 6 models to 80 "
        "questions (both turns); prompt = question_id, judge = the human judge.",
    ),
    "alpaca_eval": (),
}


class BattlesNotScores(DataError):
    """A battles table given where per-task or per-item scores are needed."""


def not_scores(file: str) -> BattlesNotScores:
    """The error for a battles table given to a command or page that needs scores."""
    return BattlesNotScores(
        "this is a table of pairwise battles (model_a, model_b, winner), not per-task or "
        "per-item scores.",
        file=file,
        column="winner",
        hint="rate the models with `benchuq arena DATA` (or on the app's Arena page); the "
        "other commands and pages need scores per model and task or item.",
    )


@dataclass(frozen=True, eq=False)
class Battles:
    """A table of pairwise battles, coded (arrays over battles, aligned).

    Attributes
    ----------
    name
        the data set's name.
    models
        model names (sorted); ``a`` and ``b`` index into them.
    a, b
        ``(N,)`` int32 model codes of the two sides.
    score
        ``(N,)`` model_a's share of the win: 1, 0, 0.5 for a tie, fractional for graded
        preferences (AlpacaEval).
    both_bad
        ``(N,)`` True where the tie was "both bad".
    prompt, judge
        ``(N,)`` int codes of the prompt and the judge (``None`` when the table has no such
        column); ``prompts`` / ``judges`` name them.
    covariates
        numeric columns by name (candidates for style control).
    baseline
        AlpacaEval's baseline model when read from annotations (else ``None``).
    notes
        what the reader did (rows left out, conventions).
    """

    name: str
    models: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    score: np.ndarray
    both_bad: np.ndarray
    prompt: np.ndarray | None = None
    prompts: tuple[str, ...] = ()
    judge: np.ndarray | None = None
    judges: tuple[str, ...] = ()
    covariates: Mapping[str, np.ndarray] = field(default_factory=dict)
    baseline: str | None = None
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        extra = [c for c, v in (("prompt", self.prompt), ("judge", self.judge)) if v is not None]
        return (
            f"Battles({self.name!r}: {len(self.a)} battles, {len(self.models)} models"
            + (f", {', '.join(extra)}" if extra else "")
            + ")"
        )

    @property
    def n(self) -> int:
        """Number of battles."""
        return len(self.a)

    @property
    def graded(self) -> bool:
        """Whether some outcomes are fractional (neither win, loss nor tie)."""
        return bool(np.any((self.score != 0) & (self.score != 1) & (self.score != 0.5)))

    def content_hash(self) -> str:
        """A hash of the coded battles (cache keys)."""
        h = hashlib.sha256()
        h.update("\0".join(self.models).encode())
        for arr in (self.a, self.b, self.score, self.both_bad, self.prompt, self.judge):
            if arr is not None:
                h.update(np.ascontiguousarray(arr).tobytes())
        for k in sorted(self.covariates):
            h.update(k.encode())
            h.update(np.ascontiguousarray(self.covariates[k]).tobytes())
        return h.hexdigest()[:24]


def is_battles(columns: set[str]) -> bool:
    """Whether a table's columns (lower case) are a battles table's."""
    return set(BATTLE_COLUMNS) <= columns


def claims(src: Source, *, columns: dict[str, str] | None = None) -> bool:
    """Whether ``src`` is a battles table, judged by its header (after ``columns`` mapping)."""
    head = header_table(src)
    try:
        table = head if head is not None else read_mapped_table(src)
    except DataError:
        return False
    cols = {str(c).lower() for c in rename_columns(table, columns).frame.columns}
    return is_battles(cols)


def read(
    src: Source,
    *,
    metric: str | None = None,
    tasks: object = None,
    name: str | None = None,
    columns: dict[str, str] | None = None,
) -> Battles:
    """One battles table (or AlpacaEval annotations) as :class:`Battles` (``metric`` and
    ``tasks`` belong to score formats and are ignored)."""
    table = read_mapped_table(src, columns=columns)
    return _from_table(table, name=name or _stem(src.name))


def _from_table(table: Table, *, name: str) -> Battles:
    frame = table.frame
    cols = set(frame.columns)
    if not is_battles(cols) and is_alpaca(cols):
        return _alpaca(table, name=name)
    missing = [c for c in BATTLE_COLUMNS if c not in cols]
    if missing:
        raise DataError(
            f"missing column '{missing[0]}'; a battles table needs model_a, model_b and winner "
            f"(the file's columns are {sorted(map(str, cols))}).",
            file=table.name,
            column=missing[0],
            hint="name the columns model_a, model_b, winner (or map them in the column "
            "mapping); per-task or per-item scores go to the other commands and pages.",
        )
    if len(frame) == 0:
        raise DataError("the table has a header but no battles.", file=table.name)
    ma, mb = text_column(table, "model_a"), text_column(table, "model_b")
    winner = pd.Series(text_column(table, "winner")).str.lower().to_numpy(object)
    known = np.isin(winner, list(WINNERS))
    if not known.all():
        i = int(np.flatnonzero(~known)[0])
        raise DataError(
            f"winner {winner[i]!r} is not one of model_a, model_b, tie, tie (bothbad), both_bad "
            f"{ROW_NOTE}.",
            file=table.name,
            row=table.row(i),
            column="winner",
            hint="write who won as model_a, model_b, tie, tie (bothbad) or both_bad.",
        )
    same = np.flatnonzero(ma == mb)
    if same.size:
        i = int(same[0])
        raise DataError(
            f"model_a and model_b are both '{ma[i]}' {ROW_NOTE}: a model cannot battle itself.",
            file=table.name,
            row=table.row(i),
            column="model_b",
            hint="delete self-battles or fix the model names.",
        )
    score = np.array([WINNERS[w][0] for w in winner])
    bad = np.array([WINNERS[w][1] for w in winner], bool)
    prompt_col = next((c for c in _PROMPT_ALIASES if c in cols), None)
    taken = {*BATTLE_COLUMNS, "judge", *_PROMPT_ALIASES}
    covariates = _covariates(table, [c for c in frame.columns if c not in taken])
    return _coded(
        name,
        ma,
        mb,
        score,
        bad,
        prompt=text_column(table, prompt_col) if prompt_col else None,
        judge=text_column(table, "judge") if "judge" in cols else None,
        covariates=covariates,
        notes=(),
    )


def _covariates(table: Table, columns: list[str]) -> dict[str, np.ndarray]:
    """Columns of finite numbers throughout (others are not covariates and are ignored)."""
    out = {}
    for c in columns:
        raw = table.frame[c]
        if pd.api.types.is_bool_dtype(raw):
            continue
        x = pd.to_numeric(raw, errors="coerce").to_numpy(float)
        if len(x) and np.isfinite(x).all():
            out[str(c)] = x
    return out


def _alpaca(table: Table, *, name: str) -> Battles:
    """AlpacaEval annotations as battles of each model against its baseline."""
    cols = set(table.frame.columns)
    if "generator_1" not in cols:
        raise DataError(
            "AlpacaEval annotations without a generator_1 (baseline) column cannot be read as "
            "battles.",
            file=table.name,
            column="generator_1",
            hint="keep generator_1 (the baseline model) with each annotation.",
        )
    pref = number_column(table, "preference", allow_missing=True)
    keep = ~np.isnan(pref)
    bad = np.flatnonzero(keep & ((pref < 1) | (pref > 2)))
    if bad.size:
        raise DataError(
            f"preference {pref[bad[0]]:g} is outside 1..2 {ROW_NOTE}.",
            file=table.name,
            row=table.row(int(bad[0])),
            column="preference",
            hint="AlpacaEval preferences are 1 (baseline wins) to 2 (model wins).",
        )
    if not keep.any():
        raise DataError("no annotation has a preference.", file=table.name, column="preference")
    base = text_column(table, "generator_1")
    model = text_column(table, ALPACA_COLUMNS[0])
    item = next((c for c in ("instruction_index", "instruction") if c in cols), None)
    prompt = text_column(table, item)[keep] if item else None
    notes = [
        "AlpacaEval annotations read as battles against the baseline: outcome = preference - 1 "
        "(model_a = generator_2, model_b = generator_1)."
    ]
    if not keep.all():
        notes.append(f"{int((~keep).sum())} annotations without a preference left out.")
    baselines = sorted(set(base[keep]))
    return _coded(
        name,
        model[keep],
        base[keep],
        pref[keep] - 1.0,
        np.zeros(int(keep.sum()), bool),
        prompt=prompt,
        judge=None,
        covariates={},
        notes=tuple(notes),
        baseline=baselines[0] if len(baselines) == 1 else None,
    )


def _codes(values: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    codes, names = pd.factorize(pd.Series(values, dtype=object), sort=True)
    return codes.astype(np.int32), tuple(map(str, names))


def _coded(
    name: str,
    ma: np.ndarray,
    mb: np.ndarray,
    score: np.ndarray,
    bad: np.ndarray,
    *,
    prompt: np.ndarray | None,
    judge: np.ndarray | None,
    covariates: dict[str, np.ndarray],
    notes: tuple[str, ...],
    baseline: str | None = None,
) -> Battles:
    codes, models = _codes(np.concatenate([ma, mb]))
    n = len(ma)
    p, prompts = _codes(prompt) if prompt is not None else (None, ())
    j, judges = _codes(judge) if judge is not None else (None, ())
    return Battles(
        name=name,
        models=models,
        a=codes[:n],
        b=codes[n:],
        score=np.asarray(score, float),
        both_bad=np.asarray(bad, bool),
        prompt=p,
        prompts=prompts,
        judge=j,
        judges=judges,
        covariates=covariates,
        baseline=baseline,
        notes=notes,
    )


def battles_from_frame(frame: pd.DataFrame, *, name: str = "battles") -> Battles:
    """A :class:`pandas.DataFrame` of battles (columns as in the module docstring).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "x"],
    ...                    "winner": ["model_a", "tie"]})
    >>> battles_from_frame(df)
    Battles('battles': 2 battles, 2 models)
    """
    frame = frame.rename(columns={c: str(c).strip().lower() for c in frame.columns})
    return _from_table(Table(name, frame.reset_index(drop=True), 2), name=name)


def read_battle_files(
    files: Sequence[tuple[str, bytes]],
    *,
    columns: dict[str, str] | None = None,
    name: str | None = None,
) -> Battles:
    """Battles from files ``[(name, bytes), ...]`` (zips expanded), read as one table.

    A file that is not a battles table (nor AlpacaEval annotations) is a :class:`DataError`
    saying what it is and where it belongs.
    """
    from benchuq.core.reading.files import expand_archives

    expanded, _ = expand_archives([(str(n), bytes(b)) for n, b in files])
    if not expanded:
        raise DataError("no files were given.", hint="give a battles table (CSV, JSONL, Parquet).")
    tables = []
    for fname, data in expanded:
        table = read_mapped_table(Source(fname, data), columns=columns)
        cols = set(map(str, table.frame.columns))
        if not (is_battles(cols) or is_alpaca(cols)):
            raise _not_battles(Source(fname, data), cols)
        tables.append(table)
    if len(tables) == 1:
        return _from_table(tables[0], name=name or _stem(expanded[0][0]))
    kinds = {is_battles(set(map(str, t.frame.columns))) for t in tables}
    if len(kinds) > 1:
        raise DataError(
            "battles tables and AlpacaEval annotations cannot be read together.",
            file=tables[0].name,
            hint="give one kind of file.",
        )
    parts = [_from_table(t, name=name or "battles") for t in tables]
    frames = [_frame(p) for p in parts]
    joined = pd.concat(frames, ignore_index=True)
    out = battles_from_frame(joined, name=name or "battles")
    return replace(out, notes=tuple(dict.fromkeys(n for p in parts for n in p.notes)))


def _frame(b: Battles) -> pd.DataFrame:
    m = np.asarray(b.models, object)
    winner = np.where(
        b.score == 1,
        "model_a",
        np.where(b.score == 0, "model_b", np.where(b.both_bad, "both_bad", "tie")),
    )
    out = pd.DataFrame({"model_a": m[b.a], "model_b": m[b.b], "winner": winner})
    if b.prompt is not None:
        out["prompt"] = np.asarray(b.prompts, object)[b.prompt]
    if b.judge is not None:
        out["judge"] = np.asarray(b.judges, object)[b.judge]
    for k, v in b.covariates.items():
        out[k] = v
    return out


def load_battles(
    data: str | Path | Sequence[str | Path],
    *,
    columns: dict[str, str] | None = None,
    name: str | None = None,
) -> Battles:
    """Battles from paths (files, folders, zips, globs), ``sample:mt_bench_battles`` or
    ``sample:alpaca_eval`` (the CLI's ``DATA``).

    Examples
    --------
    >>> load_battles("sample:alpaca_eval")
    Battles('alpaca_eval': 7243 battles, 10 models, prompt)
    """
    from benchuq.core.reading.files import gather_paths

    items = [data] if isinstance(data, (str, Path)) else list(data)
    if len(items) == 1 and str(items[0]).startswith("sample:"):
        from benchuq.core.reading.loaders import SAMPLE_DIR

        sample = str(items[0]).split(":", 1)[1]
        if sample not in BATTLE_SAMPLES:
            raise DataError(
                f"sample:{sample} holds per-task scores, not battles.",
                hint="use sample:mt_bench_battles (human judgments of MT-Bench answer pairs), "
                "sample:alpaca_eval (annotations read as battles against the baseline), or a "
                "battles table (model_a, model_b, winner).",
            )
        path = SAMPLE_DIR / f"{sample}.csv"
        read = read_battle_files([(path.name, path.read_bytes())], name=name or sample)
        return replace(read, notes=(*BATTLE_SAMPLES[sample], *read.notes))
    got = gather_paths(items)
    return read_battle_files(list(got.files), columns=columns, name=name or got.name)


def _not_battles(src: Source, cols: set[str]) -> DataError:
    from benchuq.core.reading.classify import classify

    try:
        kind = classify(src, None).kind
    except DataError:
        kind = "other"
    what = {
        "long": "per-task scores (a long table)",
        "wide": "a table of scores",
        "items": "per-item scores",
        "lm_eval": "lm-evaluation-harness results",
        "lm_eval_samples": "lm-evaluation-harness samples",
        "inspect": "an inspect_ai log",
        "helm": "a HELM run",
    }.get(kind, f"not a battles table (its columns are {sorted(cols)[:12]})")
    return DataError(
        f"this file is {what}, not a table of pairwise battles.",
        file=src.name,
        column="model_a",
        hint="arena ratings need columns model_a, model_b, winner (map yours in the column "
        "mapping); per-task or per-item scores go to leaderboard, compare, ranks and epp.",
    )


def _stem(name: str) -> str:
    base = name.rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base else base

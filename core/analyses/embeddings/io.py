"""Embedding and meta files, their alignment, cluster labels and the bundled samples (METHODS 9).

Readers take a file name and its bytes (the CLI and the dashboard's uploader read the files) and
raise :class:`~benchuq.core.data.DataError` naming file, row and column.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd

from benchuq.core.budget import check_read
from benchuq.core.data import DataError
from benchuq.core.reading.table import check_width
from benchuq.core.validation import check_columns

__all__ = [
    "EMBEDDING_SAMPLES",
    "EMBEDDING_SUFFIXES",
    "ID_COLUMN",
    "META_SUFFIXES",
    "SAMPLE_LABELS",
    "EmbeddingSet",
    "align",
    "check_clusters",
    "cluster_labels",
    "load_embedding_sample",
    "read_embeddings",
    "read_meta",
]

EMBEDDING_SUFFIXES: tuple[str, ...] = (".npy", ".npz", ".csv", ".parquet")
META_SUFFIXES: tuple[str, ...] = (".csv", ".parquet")
ID_COLUMN = "id"


@dataclass(frozen=True, eq=False)
class EmbeddingSet:
    """Vectors of one model or layer: ``vectors[i]`` belongs to entity ``ids[i]``.

    ``ids`` is ``None`` for a bare ``.npy`` array (rows then follow the meta table's row order).
    ``file`` and ``columns`` (the name of each dimension in the file) make error messages precise.
    """

    model: str
    vectors: np.ndarray
    ids: tuple[str, ...] | None
    file: str
    columns: tuple[str, ...] | None = None


def _suffix(name: str) -> str:
    return Path(name).suffix.lower()


def _read_table(name: str, data: bytes) -> pd.DataFrame:
    """A CSV or Parquet table, within the read budget and the column limit (checked from the
    header before the rows are parsed)."""
    if _suffix(name) != ".parquet":
        check_width(data[: data.find(b"\n")].count(b",") + 1, name)
    check_read(name, len(data), path="pandas")
    try:
        if _suffix(name) == ".parquet":
            return pd.read_parquet(io.BytesIO(data))
        return pd.read_csv(io.BytesIO(data))
    except Exception as err:  # pandas raises many types for a malformed file
        raise DataError(
            f"cannot read the table ({err}).",
            file=name,
            hint="save it as CSV with a header row, or as Parquet.",
        ) from err


def _id_column(frame: pd.DataFrame, name: str) -> str:
    if ID_COLUMN in frame.columns:
        return ID_COLUMN
    if len(frame.columns) == 0:
        raise DataError("the table has no columns.", file=name)
    return str(frame.columns[0])


def read_embeddings(name: str, data: bytes) -> list[EmbeddingSet]:
    """Embedding sets in one file (METHODS 9).

    - ``.npy``: one ``(N, D)`` array, model = file stem; rows follow the meta table.
    - ``.npz``: optional ``ids`` (1-D) and one or more ``(N, D)`` arrays; each array is a model
      (or layer) named by its key (by the file stem if there is only one).
    - ``.csv`` / ``.parquet``: an ``id`` column (else the first column) and one numeric column
      per dimension, or a single column holding each vector as a list (Parquet) or as text
      ``[0.1, 0.2, ...]`` (CSV); model = file stem.
    """
    stem, suffix = Path(name).stem, _suffix(name)
    if suffix not in EMBEDDING_SUFFIXES:
        raise DataError(
            f"unsupported embedding file type '{suffix}'.",
            file=name,
            hint=f"use one of {', '.join(EMBEDDING_SUFFIXES)}.",
        )
    if suffix in (".npy", ".npz"):
        try:
            loaded = np.load(io.BytesIO(data), allow_pickle=False)
        except Exception as err:
            raise DataError(f"cannot read the array file ({err}).", file=name) from err
        if suffix == ".npy":
            return [_checked(EmbeddingSet(stem, np.asarray(loaded), None, name))]
        try:
            with loaded:
                arrays = {k: np.asarray(loaded[k]) for k in loaded.files}
        except ValueError as err:
            raise DataError(
                f"cannot read an array of the .npz file ({err}).",
                file=name,
                hint="store ids as a string array (dtype 'U'), not Python objects.",
            ) from err
        ids = arrays.pop("ids", None)
        if not arrays:
            raise DataError("the .npz file holds no embedding array.", file=name)
        id_tuple = None if ids is None else tuple(str(x) for x in ids.ravel())
        sets = [
            EmbeddingSet(stem if len(arrays) == 1 else key, arr, id_tuple, name)
            for key, arr in arrays.items()
        ]
        return [_checked(s) for s in sets]
    frame = _read_table(name, data)
    id_col = _id_column(frame, name)
    value_cols = [c for c in frame.columns if c != id_col]
    row_ids = tuple(str(x) for x in frame[id_col])
    first = frame[value_cols[0]].iloc[0] if len(value_cols) == 1 and len(frame) else None
    if isinstance(first, list | np.ndarray) or (isinstance(first, str) and first.startswith("[")):
        vectors = _vector_column(frame[value_cols[0]], name, str(value_cols[0]))
        return [_checked(EmbeddingSet(stem, vectors, row_ids, name))]
    for col in value_cols:
        if not pd.api.types.is_numeric_dtype(frame[col]):
            bad = pd.to_numeric(frame[col], errors="coerce").isna() & frame[col].notna()
            row = int(np.argmax(bad.to_numpy())) + 1 if bad.any() else None
            raise DataError(
                "embedding values must be numbers.",
                file=name,
                row=row,
                column=str(col),
                hint=f"keep only '{id_col}' and one numeric column per dimension.",
            )
    vectors = frame[value_cols].to_numpy(dtype=float)
    return [_checked(EmbeddingSet(stem, vectors, row_ids, name, tuple(map(str, value_cols))))]


def _vector_column(values: pd.Series, name: str, column: str) -> np.ndarray:
    """One vector per row from a list column (Parquet) or JSON-style ``[0.1, 0.2]`` text (CSV)."""
    rows: list[np.ndarray] = []
    for i, v in enumerate(values):
        try:
            vec = np.asarray(json.loads(v) if isinstance(v, str) else v, dtype=float)
        except (TypeError, ValueError) as err:
            raise DataError(
                f"cannot read the vector {str(v)[:40]!r}.",
                file=name,
                row=i + 1,
                column=column,
                hint="store one number per column, or a list of numbers such as [0.1, 0.2].",
            ) from err
        if vec.ndim != 1 or (rows and len(vec) != len(rows[0])):
            raise DataError(
                f"vector of {vec.size} values where the first row has "
                f"{len(rows[0]) if rows else 'a list of'} values.",
                file=name,
                row=i + 1,
                column=column,
                hint="give every entity a vector of the same length.",
            )
        rows.append(vec)
    return np.stack(rows)


def _checked(s: EmbeddingSet) -> EmbeddingSet:
    v = s.vectors
    if v.ndim != 2 or v.shape[0] < 2 or v.shape[1] < 1:
        raise DataError(
            f"embedding '{s.model}' has shape {v.shape}; expected (entities, dimensions).",
            file=s.file,
            hint="store one row per entity and one column per dimension.",
        )
    if not np.issubdtype(v.dtype, np.number):
        raise DataError(f"embedding '{s.model}' is not numeric.", file=s.file)
    if np.issubdtype(v.dtype, np.complexfloating):  # float64 would drop the imaginary part
        raise DataError(
            f"embedding '{s.model}' is complex ({v.dtype}).",
            file=s.file,
            hint="store real vectors (e.g. the real and imaginary parts as separate dimensions).",
        )
    v = np.asarray(v, dtype=np.float64)
    finite = np.isfinite(v)
    if not finite.all():
        r, c = np.argwhere(~finite)[0]
        column = s.columns[c] if s.columns else f"dimension {c}"
        raise DataError(
            f"embedding '{s.model}' has a non-finite value ({v[r, c]}) for entity "
            f"{s.ids[r] if s.ids else r}.",
            file=s.file,
            row=int(r) + 1,
            column=column,
            hint="recompute or drop that entity; embeddings must be finite numbers.",
        )
    if s.ids is not None:
        if len(s.ids) != v.shape[0]:
            raise DataError(
                f"{len(s.ids)} ids for {v.shape[0]} embedding rows.", file=s.file, column="ids"
            )
        seen: dict[str, int] = {}
        for i, x in enumerate(s.ids):
            if x in seen:
                raise DataError(
                    f"entity id '{x}' appears twice (rows {seen[x] + 1} and {i + 1}).",
                    file=s.file,
                    row=i + 1,
                    column=ID_COLUMN,
                    hint="give every entity one row.",
                )
            seen[x] = i
    v.setflags(write=False)
    return EmbeddingSet(s.model, v, s.ids, s.file, s.columns)


def read_meta(name: str, data: bytes) -> pd.DataFrame:
    """The meta table: an ``id`` column (else the first column) and feature columns.

    Returns a frame indexed by the id (as text), features as columns, row order kept.
    """
    if _suffix(name) not in META_SUFFIXES:
        raise DataError(
            f"unsupported meta file type '{_suffix(name)}'.", file=name, hint="use CSV or Parquet."
        )
    frame = _read_table(name, data)
    id_col = _id_column(frame, name)
    ids = frame[id_col].astype(str)
    dup = ids.duplicated()
    if dup.any():
        row = int(np.argmax(dup.to_numpy())) + 1
        raise DataError(
            f"entity id '{ids.iloc[row - 1]}' appears twice.",
            file=name,
            row=row,
            column=id_col,
            hint="give every entity one row in the meta table.",
        )
    out = frame.drop(columns=[id_col])
    out.index = pd.Index(ids, name=ID_COLUMN)
    out.attrs["file"] = name
    return out


def align(sets: Sequence[EmbeddingSet], meta: pd.DataFrame) -> dict[str, np.ndarray]:
    """Vectors per model in the meta table's entity order; ids must match exactly.

    A bare array (no ids) must have one row per meta row. Raises :class:`DataError` naming the
    first id that is missing on either side.
    """
    meta_file = meta.attrs.get("file", "meta")
    meta_ids = [str(x) for x in meta.index]
    out: dict[str, np.ndarray] = {}
    for s in sets:
        if s.model in out:
            raise DataError(
                f"two embeddings are named '{s.model}'.",
                file=s.file,
                hint="rename one file (or .npz key) so every model or layer has its own name.",
            )
        if s.ids is None:
            if s.vectors.shape[0] != len(meta_ids):
                raise DataError(
                    f"the array has {s.vectors.shape[0]} rows but the meta table has "
                    f"{len(meta_ids)} entities.",
                    file=s.file,
                    hint="a .npy array must have one row per meta row, in the same order; "
                    "or store ids (an 'ids' array in .npz, or an 'id' column in CSV).",
                )
            out[s.model] = s.vectors
            continue
        pos = {x: i for i, x in enumerate(s.ids)}
        missing = [x for x in meta_ids if x not in pos]
        if missing:
            row = meta_ids.index(missing[0]) + 1
            raise DataError(
                f"{len(missing)} entity id(s) of the meta table have no embedding, e.g. "
                f"'{missing[0]}' (embedding '{s.model}' from '{s.file}').",
                file=meta_file,
                row=row,
                column=ID_COLUMN,
                hint="use the same entity ids in the embedding file and the meta table.",
            )
        extra = sorted(set(s.ids) - set(meta_ids))
        if extra:
            raise DataError(
                f"{len(extra)} entity id(s) have an embedding '{s.model}' but no meta row, "
                f"e.g. '{extra[0]}'.",
                file=s.file,
                row=pos[extra[0]] + 1,
                column=ID_COLUMN,
                hint="add them to the meta table or drop them from the embedding file.",
            )
        out[s.model] = s.vectors[[pos[x] for x in meta_ids]]
    return out


def cluster_labels(meta: pd.DataFrame, column: str, *, bins: int = 4) -> np.ndarray:
    """One cluster label per entity from a meta column (METHODS 9).

    Categorical columns are used as they are; numeric columns with more than ``bins`` distinct
    values are cut into ``bins`` quantile bins labelled ``"column in [low, high]"``.
    """
    file = meta.attrs.get("file", "meta")
    check_columns(
        meta.columns, [column], what="meta column", file=file, hint="pick one of the listed ones."
    )
    values = meta[column]
    if values.isna().any():
        row = int(np.argmax(values.isna().to_numpy())) + 1
        raise DataError(
            "a meta value is missing.",
            file=file,
            row=row,
            column=column,
            hint="fill it in or drop that entity.",
        )
    if pd.api.types.is_numeric_dtype(values) and values.nunique() > bins:
        cut = pd.qcut(values.astype(float), q=bins, duplicates="drop", precision=3)
        return np.array([f"{column} in [{iv.left:g}, {iv.right:g}]" for iv in cut], dtype=object)
    return values.astype(str).to_numpy(dtype=object)


def check_clusters(labels: np.ndarray, *, file: str = "meta", column: str | None = None) -> None:
    """A cluster needs at least two entities (a Gaussian of one point has no covariance)."""
    names, counts = np.unique(labels.astype(str), return_counts=True)
    if len(names) < 2:
        raise DataError(
            f"all entities are in one cluster ('{names[0]}'); nothing to tell apart.",
            file=file,
            column=column,
            hint="choose a meta column with at least two values.",
        )
    small = names[counts < 2]
    if len(small):
        row = int(np.flatnonzero(labels.astype(str) == small[0])[0]) + 1
        raise DataError(
            f"cluster '{small[0]}' has only one entity"
            + (f" ({len(small)} such clusters)" if len(small) > 1 else "")
            + "; a Gaussian needs at least two.",
            file=file,
            row=row,
            column=column,
            hint="merge rare values into an 'other' category, drop those entities, "
            "or use fewer quantile bins.",
        )


# ---- samples -------------------------------------------------------------------------------
SAMPLE_DIR = Path(str(files("benchuq.sample_data"))) / "embeddings"
EMBEDDING_SAMPLES: dict[str, str] = {
    "alpaca_eval": "805 AlpacaEval instructions: all-MiniLM-L6-v2 layers 1, 2, 4, 6, TF-IDF + SVD, "
    "random; meta: source data set, length",
    "synthetic": "[MHP] synthetic study: 10 Gaussian clusters, separated / partial / overlapping",
}
SAMPLE_LABELS: dict[str, str] = {"alpaca_eval": "dataset", "synthetic": "cluster"}


def load_embedding_sample(name: str) -> tuple[list[EmbeddingSet], pd.DataFrame]:
    """The embedding sets and meta table of a sample in ``sample_data/embeddings``."""
    if name not in EMBEDDING_SAMPLES:
        raise DataError(
            f"unknown embedding sample '{name}'.",
            hint=f"use one of {', '.join(EMBEDDING_SAMPLES)}.",
        )
    emb, meta = SAMPLE_DIR / f"{name}.npz", SAMPLE_DIR / f"{name}_meta.csv"
    return read_embeddings(emb.name, emb.read_bytes()), read_meta(meta.name, meta.read_bytes())

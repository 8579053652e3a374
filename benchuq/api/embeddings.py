"""Embedding consistency: :func:`consistency` (ALP and cluster accuracy per model, METHODS 9),
as ``benchuq embeddings``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from benchuq.core.defaults import (
    COMPARISON_LEVEL,
    EMBEDDING_DIMS,
    EMBEDDING_EPS,
    EMBEDDING_HEADS,
    SEED,
)
from benchuq.core.validation import InvalidArgument, check_level, check_types
from benchuq.results import ConsistencyResult

__all__ = ["consistency"]


def _read(path: str | Path) -> bytes:
    """The bytes of ``path`` (capped, ``core.reading.files``); a missing file names itself."""
    from benchuq.core.data import DataError
    from benchuq.core.reading.files import read_capped

    if not Path(path).exists():
        raise DataError("no such file.", file=str(path), hint="check the path.")
    return read_capped(str(path))


def consistency(
    embeddings: str | Path | Sequence[str | Path],
    *,
    meta: str | Path | None = None,
    label: Sequence[str] | None = None,
    bins: int = 4,
    depth: int = 3,
    min_leaf: int = 20,
    prior: Sequence[str] = (),
    min_gain: bool = False,
    heads: int = EMBEDDING_HEADS,
    dims: int = EMBEDDING_DIMS,
    clip: float = 1e-6,
    eps: float = EMBEDDING_EPS,
    folds: int = 5,
    reps: int | None = None,
    level: float = COMPARISON_LEVEL,
    seed: int = SEED,
    bootstrap: Literal["auto", "refit", "linear", "scores"] = "auto",
) -> ConsistencyResult:
    """How consistently each model's embeddings separate clusters of entities (METHODS 9).

    Parameters
    ----------
    embeddings
        Embedding files (``.npy``, ``.npz``, CSV, Parquet) or ``sample:alpaca_eval`` /
        ``sample:synthetic``.
    meta
        The meta table (``id`` + features; a sample brings its own).
    label
        Meta columns defining the clusters (a sample has a default); several grow a tree.
    heads, dims, eps
        Random heads, dimensions per head and covariance ridge (``core.defaults``).

    The other options are ``benchuq embeddings``'s flags.

    Examples
    --------
    >>> import benchuq as bq
    >>> c = bq.consistency("sample:synthetic", heads=4, dims=8, reps=50)
    >>> list(c.to_frame().columns)[:2]
    ['model', 'alp']
    """
    check_types(locals())
    from benchuq.core.analyses.embeddings import (
        SAMPLE_LABELS,
        align,
        load_embedding_sample,
        read_embeddings,
        read_meta,
    )
    from benchuq.core.analyses.embeddings.workflow import score_embeddings
    from benchuq.core.reading.sources import parse_source

    level = check_level(level)
    items = [embeddings] if isinstance(embeddings, str | Path) else list(embeddings)
    sets, table, default_label = [], None, None
    for item in items:
        if (source := parse_source(str(item))).kind == "sample":
            sample_sets, sample_meta = load_embedding_sample(source.name)
            sets += sample_sets
            table = table if table is not None else sample_meta
            default_label = SAMPLE_LABELS[source.name]
        else:
            sets += read_embeddings(Path(item).name, _read(item))
    if meta is not None:
        table = read_meta(Path(meta).name, _read(meta))
    if table is None:
        raise InvalidArgument("meta is required (a CSV or Parquet table: id + features).")
    columns = list(label) if label else ([default_label] if default_label else [])
    if not columns:
        raise InvalidArgument(f"label is required; meta columns: {list(table.columns)}.")
    analysis = score_embeddings(
        align(sets, table),
        table,
        columns,
        bins=bins,
        depth=depth,
        min_leaf=min_leaf,
        prior=prior,
        min_gain=min_gain,
        heads=heads,
        dims=dims,
        clip=clip,
        eps=eps,
        folds=folds,
        reps=reps,
        level=level,
        seed=seed,
        bootstrap=bootstrap,
    )
    return ConsistencyResult(analysis.result, analysis.tree, tuple(columns))

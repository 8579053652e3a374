"""Published battles: a table of pairwise battles kept in the store like any data set (#41).

A published battles table is stored as the coded battles (never the uploaded file): Parquet
``battles.parquet`` (``model_a``, ``model_b``, ``score`` = model_a's share of the win,
``both_bad``, optional ``prompt`` and ``judge``), ``covariates.parquet`` when the table has
numeric columns for style control, and ``meta.json`` (format ``benchuq.shared.battles``: name,
models, notes, baseline, provenance, description). It shares the store's ids, tokens, index,
expiry, size cap and deletion (:mod:`benchuq.store`); the same Parquet rules apply (no embedded
Arrow schema is written or read, exact column types), and a read is checked as a fresh load is
and against the content hash recorded at publish time, so ``shared:<id>`` gives the same
ratings as the table that was published (METHODS 8b).
"""

from __future__ import annotations

import io
import json
import secrets
from collections.abc import Mapping
from dataclasses import replace
from datetime import timedelta
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from benchuq.core.data import DataError
from benchuq.core.reading.battles import Battles, not_scores
from benchuq.store import config as _config
from benchuq.store import store as _store
from benchuq.store.codec import read_stored_parquet
from benchuq.store.index import Record

__all__ = [
    "FORMAT",
    "decode_battles",
    "encode_battles",
    "is_battles_id",
    "publish_battles",
    "read_battles",
    "refuse_battles",
    "verify_battles",
]

FORMAT = "benchuq.shared.battles"
VERSION = 1
META_LIMIT = 1 << 20
BATTLES = "battles.parquet"
COVARIATES = "covariates.parquet"
META = "meta.json"
_SCHEMA: dict[str, pa.DataType] = {
    "model_a": pa.string(),
    "model_b": pa.string(),
    "score": pa.float64(),
    "both_bad": pa.bool_(),
    "prompt": pa.string(),
    "judge": pa.string(),
}
_REQUIRED = {"model_a", "model_b", "score", "both_bad"}
_META_TYPES: dict[str, type | tuple[type, ...]] = {
    "format": str,
    "version": int,
    "name": str,
    "models": list,
    "notes": list,
    "provenance": dict,
    "baseline": (str, type(None)),
}


def _damaged(what: str, file: str) -> _config.StoreError:
    return _config.StoreError(
        f"the stored battles are damaged or not benchuq's: {what}.",
        file=file,
        hint="ask the publisher to publish the battles again.",
    )


def _parquet(columns: Mapping[str, pa.Array]) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table(dict(columns)), buf, store_schema=False)
    return buf.getvalue()


def encode_battles(
    battles: Battles, provenance: Mapping[str, str], description: str = ""
) -> dict[str, bytes]:
    """The files of one stored battles table (see the module docstring)."""
    models = np.asarray(battles.models, dtype=object)
    cols: dict[str, pa.Array] = {
        "model_a": pa.array(models[battles.a], pa.string()),
        "model_b": pa.array(models[battles.b], pa.string()),
        "score": pa.array(np.asarray(battles.score, float), pa.float64()),
        "both_bad": pa.array(np.asarray(battles.both_bad, bool), pa.bool_()),
    }
    for name, codes, labels in (
        ("prompt", battles.prompt, battles.prompts),
        ("judge", battles.judge, battles.judges),
    ):
        if codes is not None:
            cols[name] = pa.array(np.asarray(labels, dtype=object)[codes], pa.string())
    files = {BATTLES: _parquet(cols)}
    if battles.covariates:
        files[COVARIATES] = _parquet(
            {k: pa.array(np.asarray(v, float), pa.float64()) for k, v in battles.covariates.items()}
        )
    meta: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "name": battles.name,
        "models": list(battles.models),
        "notes": list(battles.notes),
        "provenance": dict(provenance),
        "baseline": battles.baseline,
    }
    if description.strip():
        meta["description"] = description.strip()[: _config.DESCRIPTION_LIMIT]
    files[META] = json.dumps(meta, ensure_ascii=False, indent=1).encode()
    return files


def _table(name: str, data: bytes) -> pa.Table:
    return read_stored_parquet(name, data, damaged=_damaged)


def _meta(data: bytes) -> dict[str, Any]:
    if len(data) > META_LIMIT:
        raise _damaged("meta.json is too large", META)
    try:
        meta = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise _damaged(f"meta.json is not JSON ({err})", META) from None
    if not isinstance(meta, dict) or set(meta) - {"description"} != set(_META_TYPES):
        raise _damaged("meta.json has other fields than expected", META)
    if meta["format"] != FORMAT or meta["version"] != VERSION:
        raise _damaged(f"format {meta['format']!r} version {meta['version']!r}", META)
    for key, kind in (_META_TYPES | {"description": str}).items():
        if key in meta and not isinstance(meta[key], kind):
            raise _damaged(f"meta.json field '{key}' has the wrong type", META)
    texts = [*meta["models"], *meta["notes"], *meta["provenance"].values()]
    if not all(isinstance(s, str) for s in texts):
        raise _damaged("meta.json lists hold something other than text", META)
    return meta


def decode_battles(files: Mapping[str, bytes]) -> Battles:
    """The :class:`Battles` of stored files (see :func:`encode_battles`), checked as a fresh
    read is (exact column types, known models, scores in 0..1, no self-battles). Never executes
    anything from the files."""
    meta = _meta(files[META])
    table = _table(BATTLES, files[BATTLES])
    have = {f.name: f.type for f in table.schema}
    wrong = [c for c, t in have.items() if _SCHEMA.get(c) != t]
    if wrong or _REQUIRED - set(have) or table.num_rows == 0:
        raise _damaged(f"columns {sorted(have)}, {table.num_rows} rows", BATTLES)
    text = {c: np.array(table.column(c).to_pylist(), dtype=object) for c in have if c in (
        "model_a", "model_b", "prompt", "judge")}  # fmt: skip
    if any(x is None for c in text for x in text[c]):
        raise _damaged("empty names", BATTLES)
    if table.column("score").null_count or table.column("both_bad").null_count:
        raise _damaged("missing outcomes", BATTLES)
    score = table.column("score").to_numpy()
    both_bad = table.column("both_bad").to_numpy(zero_copy_only=False).astype(bool)
    if not np.all((score >= 0) & (score <= 1)):
        raise _damaged("outcomes outside 0..1", BATTLES)
    models = tuple(meta["models"])
    if list(models) != sorted(set(models)) or set(text["model_a"]) | set(text["model_b"]) != set(
        models
    ):
        raise _damaged("the battles do not match the listed models", BATTLES)
    if np.any(text["model_a"] == text["model_b"]):
        raise _damaged("a model battles itself", BATTLES)
    covariates: dict[str, np.ndarray] = {}
    if COVARIATES in files:
        cov = _table(COVARIATES, files[COVARIATES])
        if cov.num_rows != table.num_rows or any(f.type != pa.float64() for f in cov.schema):
            raise _damaged("covariates do not line up with the battles", COVARIATES)
        for col in cov.column_names:
            x = cov.column(col).to_numpy(zero_copy_only=False)
            if not np.isfinite(x).all():
                raise _damaged(f"covariate '{col}' is not finite", COVARIATES)
            covariates[col] = x
    index = {m: i for i, m in enumerate(models)}

    def codes(values: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
        labels = tuple(sorted(set(values)))
        lookup = {v: i for i, v in enumerate(labels)}
        return np.array([lookup[v] for v in values], np.int32), labels

    prompt, prompts = codes(text["prompt"]) if "prompt" in text else (None, ())
    judge, judges = codes(text["judge"]) if "judge" in text else (None, ())
    return Battles(
        name=meta["name"],
        models=models,
        a=np.array([index[m] for m in text["model_a"]], np.int32),
        b=np.array([index[m] for m in text["model_b"]], np.int32),
        score=score.astype(float),
        both_bad=both_bad,
        prompt=prompt,
        prompts=prompts,
        judge=judge,
        judges=judges,
        covariates=covariates,
        baseline=meta["baseline"],
        notes=tuple(meta["notes"]),
    )


def publish_battles(
    battles: Battles,
    *,
    days: int | None = None,
    source: str = "",
    description: str = "",
    store: _store.Store | None = None,
) -> _config.Receipt:
    """Store ``battles`` behind a new ``shared:<id>`` for ``days`` (default: the configured
    expiry) in ``store`` (default: the one ``BENCHUQ_STORE`` names); returns the receipt with
    the delete token, as :meth:`benchuq.store.Store.publish` does for scores."""
    st = store or _store.open_store()
    try:
        return _publish(st, battles, days=days, source=source, description=description)
    except DataError:
        raise
    except Exception as err:
        raise _store._unusable(st.config, err) from err


def _publish(
    st: _store.Store, battles: Battles, *, days: int | None, source: str, description: str
) -> _config.Receipt:
    days = st.config.days if days is None else days
    if not 1 <= days <= st.config.max_days:
        raise _config.StoreError(
            f"an expiry of {days} days is not allowed.",
            hint=f"choose 1 to {st.config.max_days} days.",
        )
    now = st.clock().replace(microsecond=0)
    expires = now + timedelta(days=days)
    provenance = {
        "published": _config._iso(now),
        "expires": _config._iso(expires),
        "benchuq": _store._version(),
        "source": source[:500],
        "content_hash": battles.content_hash(),
    }
    files = encode_battles(battles, provenance, description)
    size = sum(len(b) for b in files.values())
    if size > st.config.max_bytes:
        raise _config.StoreError(
            f"the battles take {size / 1e6:.1f} MB stored; this server keeps at most "
            f"{st.config.max_bytes / 1e6:g} MB per data set.",
            hint="publish fewer battles, or raise BENCHUQ_STORE_MAX_MB on the server.",
        )
    st.purge()
    ident = _config.new_id()
    token = secrets.token_hex(32)
    key = _config._sha(ident)
    folder = f"data/{expires:%Y-%m-%d}/{key}"
    st._write(folder, files)  # data first: an index record always has whole files
    record = Record(key, _config._sha(token), battles.content_hash(), now, expires, folder, size)
    try:
        st.index.add(record)
    except BaseException:
        st._remove(folder)
        raise
    return _config.Receipt(ident, token, expires)


def _files(st: _store.Store, folder: str, limit: int) -> dict[str, bytes]:
    out = {}
    for name in (META, BATTLES, COVARIATES, "tasks.parquet"):
        path = f"{st.root}/{folder}/{name}"
        try:
            if st.fs.size(path) > limit:
                raise _damaged(f"{name} is larger than the size cap", name)
            out[name] = st.fs.cat_file(path)
        except FileNotFoundError:
            continue
    return out


def is_battles_id(data: str, *, store: _store.Store | None = None) -> bool:
    """Whether the published data set ``shared:<id>`` is a battles table (the Arena page opens
    it; the score pages say it holds battles). Unknown, expired or deleted ids raise the
    store's :class:`~benchuq.store.StoreError`."""
    st = store or _store.open_store()
    try:
        rec = st.record(data)
        return st.fs.exists(f"{st.root}/{rec.folder}/{BATTLES}")
    except DataError:
        raise
    except Exception as err:
        raise _store._unusable(st.config, err) from err


def read_battles(data: str, *, store: _store.Store | None = None) -> Battles:
    """The published battles ``shared:<id>``, checked against what was published, with a note
    saying where they come from. A published score table is a :class:`DataError` that says to
    open it on the score pages."""
    st = store or _store.open_store()
    try:
        rec = st.record(data)
        files = _files(st, rec.folder, max(st.config.max_bytes, rec.size))
    except DataError:
        raise
    except Exception as err:
        raise _store._unusable(st.config, err) from err
    label = f"{_config.PREFIX}{_config.parse_shared(data)}"
    if BATTLES not in files:
        if "tasks.parquet" in files:
            raise DataError(
                f"{label} holds per-task or per-item scores, not pairwise battles.",
                hint="open it on the Leaderboard (or with benchuq leaderboard); arena ratings "
                "need a published battles table (model_a, model_b, winner).",
            )
        raise _damaged(f"{BATTLES} is missing", BATTLES)
    if META not in files:
        raise _damaged(f"{META} is missing", META)
    battles = decode_battles(files)
    if battles.content_hash() != rec.content_hash:
        raise _damaged("the content does not match what was published", BATTLES)
    meta = _meta(files[META])
    prov = meta["provenance"]
    note = (
        f"Published battles {label}: published {prov.get('published', '?')[:10]} with benchuq "
        f"{prov.get('benchuq', '?')}"
        + (f" from {prov['source']}" if prov.get("source") else "")
        + f"; available until {_config._iso(rec.expires)[:10]}."
        + (f" About the data: {meta['description']}" if meta.get("description") else "")
    )
    return replace(battles, notes=(note, *battles.notes))


def refuse_battles(data: str, *, store: _store.Store | None = None) -> None:
    """Raise :class:`~benchuq.core.reading.battles.BattlesNotScores` when ``shared:<id>`` is a
    published battles table (a score page or command was asked for it); otherwise nothing
    (the score reader then says anything else that is wrong with the id)."""
    try:
        battles = is_battles_id(data, store=store)
    except DataError:
        return  # the score reader gives the same message (unknown, expired, deleted)
    if battles:
        raise not_scores(f"{_config.PREFIX}{_config.parse_shared(data)}")


def verify_battles(st: _store.Store, rec: Record, names: set[str]) -> list[str]:
    """The integrity check of one published battles folder (:meth:`Store.verify` calls it):
    its files decode and match what was published; returns the problems found."""
    if META not in names:
        return [f"{rec.folder}: missing ['{META}']"]
    files = {n: st.fs.cat_file(f"{st.root}/{rec.folder}/{n}") for n in names}
    try:
        battles = decode_battles(files)
    except DataError as err:
        return [f"{rec.folder}: {err}"]
    if battles.content_hash() != rec.content_hash:
        return [f"{rec.folder}: content differs from what was published"]
    return []

"""The publishing store (benchuq.store): round trips, limits and security, on a local folder and
on a real S3-compatible server (moto's server mode, started by the test session)."""

from __future__ import annotations

import base64
import io
import json
import pickle
import sqlite3
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchuq.core.data import Benchmark, ItemTask
from benchuq.core.reading.loaders import load_files, load_path, load_sample
from benchuq.store import (
    ID_RE,
    Store,
    StoreConfig,
    StoreError,
    decode,
    encode,
    new_id,
    parse_shared,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real"
ESTIMATE_SE = b"model,task,category,estimate,se\na,t1,x,0.5,0.1\nb,t1,x,0.6,0.05\na,t2,y,0.2,0.01\n"
ITEMS = (
    b"model,task,item,score,cluster,subgroup\n"
    b"a,t1,q1,1,c1,easy\nb,t1,q1,0,c1,easy\na,t1,q2,0.5,c2,hard\n"
    b"a,t2,q3,1,c3,easy\nb,t2,q3,1,c3,easy\nb,t2,q4,0,c3,hard\n"
)


def _datasets() -> dict[str, Benchmark]:
    return {
        "counts": load_sample("vtab1k"),
        "counts_lm_eval": load_path(FIXTURES / "lm_eval" / "results_v04"),
        "estimate_se": load_files([("e.csv", ESTIMATE_SE)]),
        "items_clusters": load_files([("i.csv", ITEMS)]),
        "items_subgroups": load_sample("alpaca_eval"),
        "items_missing": load_path(FIXTURES / "lm_eval" / "samples"),
        "items_epochs": load_path(FIXTURES / "inspect_ai" / "eval_zip" / "log_streaming.eval"),
    }


DATASETS = _datasets()


class Clock:
    """A settable clock for expiry tests."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(params=["local", "s3"])
def make_store(request, tmp_path):
    """``make_store(**config)``: a store in a fresh folder or a fresh prefix of the S3 bucket."""
    if request.param == "local":
        base = {"location": str(tmp_path / "store")}
    else:
        env = request.getfixturevalue("s3_env")
        prefix = f"{env['BENCHUQ_STORE']}-{uuid.uuid4().hex}"
        base = {"location": prefix, "endpoint": env["BENCHUQ_STORE_ENDPOINT"]}

    def make(clock=None, **config) -> Store:
        return Store(StoreConfig(**{**base, **config}), clock=clock)

    return make


def _stored_bytes(store: Store) -> bytes:
    """Every byte the store holds (index and files), for "what does a copy reveal" checks."""
    paths = store.fs.find(store.root)
    return b"".join(store.fs.cat_file(p) for p in paths)


@pytest.mark.parametrize("name", list(DATASETS))
def test_every_kind_round_trips_exactly(make_store, name) -> None:
    bench = DATASETS[name]
    store = make_store()
    receipt = store.publish(bench, source="test files")
    back = store.load(receipt.id)
    assert back.content_hash == bench.content_hash
    assert back.kind == bench.kind and back.name == bench.name
    assert back.notes[1:] == bench.notes  # the provenance note comes first
    assert f"shared:{receipt.id}" in back.notes[0] and "test files" in back.notes[0]
    for a, b in zip(back.item_tasks or (), bench.item_tasks or (), strict=True):
        assert (a.items, a.cluster, a.subgroup) == (b.items, b.cluster, b.subgroup)
        np.testing.assert_array_equal(a.scores, b.scores)
        np.testing.assert_array_equal(a.answer_counts, b.answer_counts)  # epochs (#26)
    assert store.load(f"shared:{receipt.id}") == bench


def test_items_keep_their_cluster_and_subgroup_labels() -> None:
    bench = DATASETS["items_clusters"]
    back = decode(encode(bench, {"source": "x"}))
    assert back.item_tasks[0].cluster == ("c1", "c2")
    assert back.item_tasks[1].subgroup == ("easy", "hard")
    assert np.isnan(back.item_tasks[0].scores[1, 1])  # b has no score for q2


def test_ids_are_random_160_bit_strings() -> None:
    ids = [new_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    assert all(ID_RE.fullmatch(i) for i in ids)
    raw = np.array(
        [np.unpackbits(np.frombuffer(base64.b32decode(i.upper()), np.uint8)) for i in ids]
    )
    assert raw.shape == (2000, 160)
    # every bit position is a fair coin (4.5 sigma band), and ids share no prefix
    assert np.all(np.abs(raw.mean(axis=0) - 0.5) < 4.5 * 0.5 / np.sqrt(2000))
    assert len({i[:6] for i in ids}) > 1990


def test_the_store_holds_no_id_and_no_token(make_store) -> None:
    store = make_store()
    receipts = [store.publish(DATASETS["counts"]) for _ in range(3)]
    held = _stored_bytes(store)
    for r in receipts:
        assert r.id.encode() not in held and r.delete_token.encode() not in held
    # and the index cannot be used to list links: its keys are hashes
    if not store.config.is_s3:
        with sqlite3.connect(Path(store.root) / "index.db") as db:
            keys = [k for (k,) in db.execute("SELECT key FROM published")]
        assert len(keys) == 3 and not {r.id for r in receipts} & set(keys)


def test_unknown_and_malformed_ids_get_clear_messages(make_store) -> None:
    store = make_store()
    store.publish(DATASETS["estimate_se"])
    with pytest.raises(StoreError, match="no published data set has the id"):
        store.load(new_id())
    for bad in ["../../etc/passwd", "shared:", "abc", "shared:" + "a" * 31 + "/", "A" * 32]:
        with pytest.raises(StoreError, match="is not a published data set id"):
            store.load(bad)
    with pytest.raises(StoreError, match="not a published data set id"):
        parse_shared("shared:../index.db")


def test_expiry_is_honoured_and_expired_data_is_removed(make_store) -> None:
    clock = Clock()
    store = make_store(clock=clock, days=90, max_days=120)
    default = store.publish(DATASETS["estimate_se"])
    assert default.expires == clock.now + timedelta(days=90)
    short = store.publish(DATASETS["counts"], days=1)
    clock.now += timedelta(days=1, seconds=-1)
    assert store.load(short.id) == DATASETS["counts"]
    clock.now += timedelta(seconds=1)
    with pytest.raises(StoreError, match=r"expired on 2026-03-02 12:00 UTC"):
        store.load(short.id)
    assert store.load(default.id) == DATASETS["estimate_se"]
    folder = store.index.get(parse_shared_key(short.id)).folder
    assert not store.fs.exists(f"{store.root}/{folder}")
    # a publish purges every past expiry date; the live data set stays
    clock.now += timedelta(days=100)
    store.publish(DATASETS["counts"], days=5)
    dates = [p.rsplit("/", 1)[-1] for p in store.fs.ls(f"{store.root}/data", detail=False)]
    assert dates == ["2026-06-15"]  # 2026-06-10 + 5 days; the 90-day one (05-30) is gone
    for days in (0, 121):
        with pytest.raises(StoreError, match="choose 1 to 120 days"):
            store.publish(DATASETS["counts"], days=days)


def parse_shared_key(ident: str) -> str:
    import hashlib

    return hashlib.sha256(ident.encode()).hexdigest()


def test_delete_works_only_with_the_token(make_store) -> None:
    store = make_store()
    receipt = store.publish(DATASETS["items_clusters"])
    other = store.publish(DATASETS["items_clusters"])
    for token in ("", "wrong", other.delete_token):
        with pytest.raises(StoreError, match="cannot be deleted with this token"):
            store.unpublish(receipt.id, token)
    assert store.load(receipt.id) == DATASETS["items_clusters"]
    store.unpublish(f"shared:{receipt.id}", receipt.delete_token)
    with pytest.raises(StoreError, match="was deleted by its publisher"):
        store.load(receipt.id)
    with pytest.raises(StoreError, match="was deleted"):
        store.unpublish(receipt.id, receipt.delete_token)
    with pytest.raises(StoreError, match="cannot be deleted"):
        store.unpublish(new_id(), receipt.delete_token)
    assert store.load(other.id) == DATASETS["items_clusters"]


def test_oversized_data_is_refused_and_nothing_is_stored(make_store) -> None:
    store = make_store(max_bytes=20_000)
    with pytest.raises(StoreError, match=r"takes 0\.\d MB stored; this server keeps at most 0\.02"):
        store.publish(DATASETS["items_subgroups"])
    assert [p for p in store.fs.find(store.root) if "/data/" in p] == []
    assert store.publish(DATASETS["estimate_se"]).id  # a small one still fits


def _damage(store: Store, ident: str, name: str, data: bytes) -> None:
    folder = store.index.get(parse_shared_key(ident)).folder
    store.fs.pipe_file(f"{store.root}/{folder}/{name}", data)


class _Payload:
    """A pickle that would create ``path`` if anything unpickled it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self):
        return (Path.touch, (self.path,))


def _extension_parquet(payload: bytes) -> bytes:
    """results.parquet whose embedded Arrow schema names pyarrow's pickled extension type
    (CVE-2023-47248: old pyarrow unpickled its metadata on read)."""
    field = pa.field(
        "estimate",
        pa.binary(),
        metadata={
            "ARROW:extension:name": "arrow.py_extension_type",
            "ARROW:extension:metadata": payload,
        },
    )
    table = pa.table(
        {"model": ["a"], "task": ["t"], "estimate": pa.array([b"x"], pa.binary())}
    ).cast(pa.schema([pa.field("model", pa.string()), pa.field("task", pa.string()), field]))
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def test_a_stored_data_set_cannot_execute_code(make_store, tmp_path) -> None:
    store = make_store()
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Payload(marker))
    receipt = store.publish(DATASETS["counts"])
    attacks = {
        "results.parquet": payload,  # a pickle where Parquet should be
        "tasks.parquet": _extension_parquet(payload),
        "meta.json": payload,
    }
    for name, data in attacks.items():
        fresh = store.publish(DATASETS["counts"])
        _damage(store, fresh.id, name, data)
        with pytest.raises(StoreError, match="damaged or not benchuq's"):
            store.load(fresh.id)
        assert not marker.exists(), name
    assert store.load(receipt.id) == DATASETS["counts"]


def test_damaged_or_inconsistent_files_are_refused(make_store) -> None:
    store = make_store()
    bench = DATASETS["items_clusters"]
    files = encode(bench, {"source": "x"})
    meta = json.loads(files["meta.json"])
    bad_scores = _items_with(bench, score=2.0)
    cases = {
        "meta.json": json.dumps({**meta, "code": "__import__('os')"}).encode(),
        "items.parquet": bad_scores,
        "results.parquet": encode(DATASETS["estimate_se"], {})["results.parquet"],
    }
    for name, data in cases.items():
        receipt = store.publish(bench)
        _damage(store, receipt.id, name, data)
        with pytest.raises(StoreError, match="damaged"):
            store.load(receipt.id)
    # numbers changed behind the index's back: the content hash no longer matches
    receipt = store.publish(bench)
    first = bench.item_tasks[0]
    changed = ItemTask(first.items, first.scores * 0.5, first.cluster, first.subgroup)
    other = bench._replace(item_tasks=(changed, bench.item_tasks[1]))
    _damage(store, receipt.id, "items.parquet", encode(other, {})["items.parquet"])
    with pytest.raises(StoreError, match="does not match what was published"):
        store.load(receipt.id)


def _items_with(bench: Benchmark, score: float) -> bytes:
    table = pq.read_table(pa.BufferReader(encode(bench, {})["items.parquet"]))
    scores = table.column("score").to_numpy().copy()
    scores[0] = score
    table = table.set_column(table.schema.get_field_index("score"), "score", pa.array(scores))
    buf = io.BytesIO()
    pq.write_table(table, buf, store_schema=False)
    return buf.getvalue()


def test_configuration_from_the_environment(tmp_path) -> None:
    env = {"BENCHUQ_STORE": str(tmp_path), "BENCHUQ_STORE_DAYS": "7", "BENCHUQ_STORE_MAX_MB": "2"}
    config = StoreConfig.from_env(env)
    assert (config.location, config.days, config.max_bytes) == (str(tmp_path), 7, 2_000_000)
    assert StoreConfig.from_env({}).location == "~/.benchuq/store"
    assert StoreConfig.from_env({}).days == 90
    s3 = StoreConfig.from_env({"BENCHUQ_STORE": "s3://b/p", "BENCHUQ_STORE_ENDPOINT": "http://h"})
    assert s3.is_s3 and s3.endpoint == "http://h"
    with pytest.raises(StoreError, match="BENCHUQ_STORE_DAYS='soon' must be a whole number > 0"):
        StoreConfig.from_env({"BENCHUQ_STORE_DAYS": "soon"})


@pytest.mark.slow  # botocore's connection retries: a few seconds
def test_an_unreachable_store_is_a_clear_error(monkeypatch) -> None:
    from browser_utils import free_port

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "y")
    config = StoreConfig(location="s3://bucket/p", endpoint=f"http://127.0.0.1:{free_port()}")
    with pytest.raises(StoreError, match=r"object store cannot be used: .*BENCHUQ_STORE_ENDPOINT"):
        Store(config).record(new_id())
    # the endpoint and bucket are for the operator's log, not for a visitor's page

"""Published battles (benchuq.store.battles, #41): a battles table round trips through the store
(local folder and moto's S3 server) to the same ratings, and damaged or mixed-up stored data is
refused with a message."""

from __future__ import annotations

import json
import uuid

import numpy as np
import pandas as pd
import pytest

import benchuq as bq
from benchuq.core.data import DataError
from benchuq.core.reading.battles import Battles, BattlesNotScores, battles_from_frame
from benchuq.core.reading.loaders import load_sample
from benchuq.store import Store, StoreConfig, StoreError
from benchuq.store.battles import (
    decode_battles,
    encode_battles,
    is_battles_id,
    publish_battles,
    read_battles,
    refuse_battles,
)


@pytest.fixture(params=["local", "s3"])
def store(request, tmp_path) -> Store:
    """A store in a fresh folder or a fresh prefix of the S3 bucket."""
    if request.param == "local":
        return Store(StoreConfig(location=str(tmp_path / "store")))
    env = request.getfixturevalue("s3_env")
    prefix = f"{env['BENCHUQ_STORE']}-{uuid.uuid4().hex}"
    return Store(StoreConfig(location=prefix, endpoint=env["BENCHUQ_STORE_ENDPOINT"]))


def _styled() -> Battles:
    """Battles with prompt, judge, a both-bad tie and style covariates."""
    frame = pd.DataFrame(
        {
            "model_a": ["x", "y", "z", "x", "y", "z"],
            "model_b": ["y", "z", "x", "z", "x", "y"],
            "winner": ["model_a", "tie", "both_bad", "model_b", "model_a", "tie (bothbad)"],
            "prompt": ["p1", "p1", "p2", "p2", "p3", "p3"],
            "judge": ["h1", "h2", "h1", "h2", "h1", "h2"],
            "length_a": [10.0, 20, 30, 40, 50, 60],
            "length_b": [5.0, 25, 35, 45, 55, 65],
        }
    )
    return battles_from_frame(frame, name="styled")


CASES = {
    "mt_bench": lambda: bq.load_battles("sample:mt_bench_battles"),
    "alpaca_graded": lambda: bq.load_battles("sample:alpaca_eval"),
    "styled": _styled,
}


@pytest.mark.parametrize("case", list(CASES))
def test_battles_round_trip_to_the_same_ratings(store, case) -> None:
    battles = CASES[case]()
    receipt = publish_battles(battles, source="votes.csv", store=store)
    assert is_battles_id(f"shared:{receipt.id}", store=store)
    back = read_battles(f"shared:{receipt.id}", store=store)
    assert back.content_hash() == battles.content_hash()
    assert (back.name, back.models, back.baseline) == (
        battles.name,
        battles.models,
        battles.baseline,
    )
    assert back.notes[1:] == battles.notes and "votes.csv" in back.notes[0]
    assert back.prompts == battles.prompts and back.judges == battles.judges
    mine = bq.arena(battles, reps=200).result.table()
    theirs = bq.arena(back, reps=200).result.table()
    pd.testing.assert_frame_equal(mine, theirs)


def test_unpublished_battles_say_they_were_deleted(store) -> None:
    receipt = publish_battles(_styled(), store=store)
    store.unpublish(receipt.id, receipt.delete_token)
    with pytest.raises(StoreError, match="deleted"):
        read_battles(receipt.id, store=store)


def test_scores_and_battles_ids_say_what_they_hold(store) -> None:
    scores = store.publish(load_sample("toy"))
    with pytest.raises(DataError, match="per-task or per-item scores, not pairwise battles"):
        read_battles(scores.id, store=store)
    assert not is_battles_id(scores.id, store=store)
    refuse_battles(scores.id, store=store)  # scores: nothing to refuse
    votes = publish_battles(_styled(), store=store)
    with pytest.raises(BattlesNotScores, match="pairwise battles"):
        refuse_battles(votes.id, store=store)


def test_the_verify_check_reads_published_battles(store) -> None:
    publish_battles(_styled(), store=store)
    store.publish(load_sample("toy"))
    assert store.verify() == []


def _files() -> dict[str, bytes]:
    return encode_battles(_styled(), {"source": "x"})


def test_damaged_files_are_refused() -> None:
    files = _files()
    meta = json.loads(files["meta.json"])
    for change in (
        {"format": "benchuq.shared"},
        {"models": ["x", "y"]},
        {"extra": 1},
        {"baseline": 3},
    ):
        bad = dict(files, **{"meta.json": json.dumps(meta | change).encode()})
        with pytest.raises(StoreError, match="damaged"):
            decode_battles(bad)
    with pytest.raises(StoreError, match="not a Parquet file"):
        decode_battles(dict(files, **{"battles.parquet": b"not parquet"}))
    with pytest.raises(StoreError, match="covariates"):
        decode_battles(dict(files, **{"covariates.parquet": _files()["battles.parquet"]}))


def test_a_parquet_with_an_embedded_schema_is_refused() -> None:
    import io

    import pyarrow.parquet as pq

    files = _files()
    table = pq.read_table(io.BytesIO(files["battles.parquet"]))
    buf = io.BytesIO()
    pq.write_table(table, buf)  # store_schema=True: Arrow metadata in the footer
    with pytest.raises(StoreError, match="Arrow schema metadata"):
        decode_battles(dict(files, **{"battles.parquet": buf.getvalue()}))


def test_outcomes_outside_zero_one_are_refused() -> None:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    files = _files()
    table = pq.read_table(io.BytesIO(files["battles.parquet"]))
    score = np.array(table.column("score").to_pylist())
    score[0] = 1.5
    table = table.set_column(table.schema.get_field_index("score"), "score", pa.array(score))
    buf = io.BytesIO()
    pq.write_table(table, buf, store_schema=False)
    with pytest.raises(StoreError, match=r"outside 0\.\.1"):
        decode_battles(dict(files, **{"battles.parquet": buf.getvalue()}))

"""``benchuq publish``, ``benchuq unpublish`` and ``shared:<id>`` as DATA (local and S3 stores)."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from benchuq.cli.main import main
from benchuq.store import ID_RE, open_store

LM_EVAL = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "lm_eval" / "results_v04"


@pytest.fixture(params=["local", "s3"])
def store_env(request, tmp_path, monkeypatch) -> dict[str, str]:
    """``BENCHUQ_STORE`` (and the endpoint) for a fresh folder or S3 prefix."""
    if request.param == "local":
        env = {"BENCHUQ_STORE": str(tmp_path / "store")}
    else:
        s3 = request.getfixturevalue("s3_env")
        env = {
            "BENCHUQ_STORE": f"{s3['BENCHUQ_STORE']}-{uuid.uuid4().hex}",
            "BENCHUQ_STORE_ENDPOINT": s3["BENCHUQ_STORE_ENDPOINT"],
        }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return env


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_publish_then_every_command_reads_shared_data(store_env, capsys) -> None:
    code, out, _ = _run(capsys, "publish", str(LM_EVAL), "--expires", "7", "--json")
    assert code == 0
    receipt = json.loads(out)
    assert {"id", "link", "delete_token", "expires"} <= receipt.keys()
    assert ID_RE.fullmatch(receipt["id"]) and receipt["link"] == f"?data=shared:{receipt['id']}"
    expires = datetime.strptime(receipt["expires"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert abs(expires - datetime.now(UTC) - timedelta(days=7)) < timedelta(minutes=5)
    shared = f"shared:{receipt['id']}"
    for argv in (
        ("leaderboard", "--reps", "300", "--json"),
        ("ranks", "--reps", "300", "--json"),
        ("weights", "--reps", "300", "--resolution", "10", "--categories", "mmlu,piqa", "--json"),
    ):
        a = json.loads(_run(capsys, argv[0], str(LM_EVAL), *argv[1:])[1])
        code, out, _ = _run(capsys, argv[0], shared, *argv[1:])
        assert code == 0, argv
        b = json.loads(out)
        a.pop("notes", None)
        notes = b.pop("notes", [])
        assert a == b, argv
        if argv[0] == "leaderboard":
            assert notes[0].startswith(f"Published data set {shared}: published ")
            assert "from results_v04" in notes[0]


def test_publish_prints_the_link_and_the_delete_command(store_env, capsys) -> None:
    code, out, _ = _run(capsys, "publish", "sample:toy")
    assert code == 0
    ident = out.split("id:", 1)[1].split()[0]
    token = out.split("delete token:", 1)[1].split()[0]
    assert f"?data=shared:{ident}" in out and "Anyone who has the link can see the data" in out
    assert f"benchuq unpublish {ident} --token {token}" in out


def test_unpublish_needs_the_token_and_then_the_id_says_deleted(store_env, capsys) -> None:
    receipt = json.loads(_run(capsys, "publish", "sample:toy", "--json")[1])
    shared = f"shared:{receipt['id']}"
    code, _, err = _run(capsys, "unpublish", shared, "--token", "0" * 64)
    assert code == 2 and "cannot be deleted with this token" in err
    assert _run(capsys, "leaderboard", shared, "--reps", "200")[0] == 0
    code, out, _ = _run(capsys, "unpublish", receipt["id"], "--token", receipt["delete_token"])
    assert code == 0 and f"Deleted {shared}" in out
    code, _, err = _run(capsys, "leaderboard", shared, "--reps", "200")
    assert code == 2 and "was deleted by its publisher" in err


def test_bad_publish_attempts_are_refused_with_a_message(store_env, capsys, tmp_path) -> None:
    broken = tmp_path / "broken.csv"
    broken.write_text("model,task,n,correct\na,t1,10,12\n")
    code, _, err = _run(capsys, "publish", str(broken))
    assert code == 2 and "broken.csv" in err and "How to fix" in err
    code, _, err = _run(capsys, "publish", "sample:toy", "--expires", "0")
    assert code == 2 and "--expires 0" in err
    code, _, err = _run(capsys, "publish", "sample:toy", "--expires", "1000")
    assert code == 2 and "choose 1 to 365 days" in err
    code, _, err = _run(capsys, "leaderboard", "shared:" + "a" * 32)
    assert code == 2 and "no published data set has the id" in err
    code, _, err = _run(capsys, "leaderboard", "shared:../../etc")
    assert code == 2 and "not a published data set id" in err
    # nothing was stored by the refused attempts
    store = open_store()
    assert [p for p in store.fs.find(store.root) if "/data/" in p] == []


def test_oversized_publish_is_refused(store_env, capsys, monkeypatch) -> None:
    monkeypatch.setenv("BENCHUQ_STORE_MAX_MB", "0.01")
    code, _, err = _run(capsys, "publish", "sample:alpaca_eval")
    assert code == 2 and "this server keeps at most 0.01 MB per data set" in err


def test_published_battles_give_the_same_arena(store_env, capsys, tmp_path) -> None:
    votes = tmp_path / "votes.csv"
    votes.write_bytes(
        b"model_a,model_b,winner,question_id\n"
        + b"".join(
            f"{a},{b},{w},q{i % 7}\n".encode()
            for i, (a, b, w) in enumerate(
                [("x", "y", "model_a"), ("y", "z", "tie"), ("z", "x", "model_b")] * 20
                + [("x", "z", "model_a"), ("y", "x", "model_b")] * 5
            )
        )
    )
    code, out, _ = _run(capsys, "publish", str(votes), "--json")
    assert code == 0
    receipt = json.loads(out)
    assert receipt["arena_link"] == f"arena?data=shared:{receipt['id']}"
    shared = f"shared:{receipt['id']}"
    mine = json.loads(_run(capsys, "arena", str(votes), "--json")[1])
    code, out, err = _run(capsys, "arena", shared, "--json")
    assert code == 0
    assert json.loads(out) == mine  # the same ratings, intervals and rank sets
    assert f"Published battles {shared}" in err and "from votes.csv" in err  # notes on stderr
    code, _, err = _run(capsys, "leaderboard", shared)
    assert code != 0 and "pairwise battles" in err and "benchuq arena" in err


def test_the_bundled_battles_sample_publishes(store_env, capsys) -> None:
    code, out, _ = _run(capsys, "publish", "sample:mt_bench_battles")
    assert code == 0
    ident = out.split("id:", 1)[1].split()[0]
    assert f"arena?data=shared:{ident}" in out and f"benchuq arena shared:{ident}" in out
    code, out, _ = _run(capsys, "arena", f"shared:{ident}")
    assert code == 0 and "gpt-4" in out and "1,751 battles" in out

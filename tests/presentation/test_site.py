"""The static leaderboard site (issue 44, ``presentation.site``, ``core.summaries.tiers``):
tiers against the leaderboard's ≈ leader and an independent recursion, rank ranges against the
rank sets, badges, determinism, size and the JSON's keys."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
import zipfile
from functools import cache
from io import BytesIO

import numpy as np
import pandas as pd
import pytest

import benchuq as bq
from benchuq.core.summaries import group_scores
from benchuq.core.summaries.leader import overlap_test_level
from benchuq.core.summaries.tiers import tiers
from benchuq.core.validation import InvalidArgument
from benchuq.presentation.badges import badge_text, safe_names
from benchuq.presentation.site import build_site

LEVEL = 0.834
HOSTILE = ["<script>alert(1)</script>", "org/model v2", "../up", "CON", 'a&b "q"', "Ä", "ä"]


@cache
def vtab() -> tuple[object, object]:
    bench = bq.load("sample:vtab1k")
    return bench, bq.bootstrap(bench, reps=1000, seed=3)


@cache
def vtab_site() -> dict[str, bytes]:
    bench, draws = vtab()
    return dict(build_site(bench, draws, level=LEVEL, date="2026-01-31").files)


def blocks(names: list[str]) -> object:
    """Counts data with known tiers: accuracies 0.8 (3 models), 0.6 (2), 0.4 (2), 100,000 items
    per task: equal within a block, far apart across blocks."""
    p = [0.8, 0.8, 0.8, 0.6, 0.6, 0.4, 0.4]
    rows = [
        {"model": m, "task": t, "n": 100_000, "correct": int(acc * 100_000), "category": c}
        for m, acc in zip(names, p, strict=True)
        for t, c in (("t1", "x"), ("t2", "x"), ("t3", "y"))
    ]
    return bq.from_frame(pd.DataFrame(rows), n="n", correct="correct", category="category",
                         name="blocks <b>")  # fmt: skip


def test_tier_one_is_exactly_tied_with_leader_in_every_group() -> None:
    _, draws = vtab()
    board = json.loads(vtab_site()["leaderboard.json"])
    for group in ("overall", *draws.category_names):
        rows = [r for r in board["rows"] if r["group"] == group]
        assert {r["model"] for r in rows if r["tier"] == 1} == {
            r["model"] for r in rows if r["tied_with_leader"]
        }
    table = bq.leaderboard(draws, level=LEVEL).table
    for group, part in table.groupby("group"):
        t = dict(zip(draws.models, tiers(draws, level=LEVEL, group=str(group)), strict=True))
        assert {m for m in part["model"] if t[m] == 1} == set(
            part.loc[part.tied_with_leader, "model"]
        )


def test_tiers_follow_the_recursion_by_independent_code() -> None:
    """Tier k + 1: the best of the models left leads; the paired difference's percentile interval
    at the test level contains 0 (numpy here, not core.summaries.leader)."""
    _, draws = vtab()
    sc = group_scores(draws, group="overall")
    q = overlap_test_level(LEVEL)
    left, expected, k = list(range(len(draws.models))), {}, 0
    while left:
        k += 1
        lead = max(left, key=lambda i: sc.observed[i])
        d = sc.values[:, [lead]] - sc.values[:, left]
        lo, hi = np.quantile(d, [(1 - q) / 2, (1 + q) / 2], axis=0)
        tied = [i for i, a, b in zip(left, lo, hi, strict=True) if a <= 0 <= b]
        expected |= dict.fromkeys(tied, k)
        left = [i for i in left if i not in tied]
    assert tiers(draws, level=LEVEL).tolist() == [expected[i] for i in range(len(draws.models))]
    assert k >= 4  # vtab1k's 16 models fall in several tiers


def test_tiers_recover_known_blocks_and_names_are_safe(tmp_path) -> None:
    names = ["m[1]", *HOSTILE[:6]]
    bench = blocks(names)
    draws = bq.bootstrap(bench, reps=400, seed=0)
    assert tiers(draws, level=LEVEL).tolist() == [1, 1, 1, 2, 2, 3, 3]
    assert tiers(draws, level=LEVEL, group="y").tolist() == [1, 1, 1, 2, 2, 3, 3]
    site = build_site(bench, draws, level=LEVEL, title="Blocks & <i>co</i>")
    files = dict(site.files)
    badges = sorted(p for p in files if p.startswith("badges/"))
    assert len(badges) == len(names) == len(set(b.lower() for b in badges))
    assert all(re.fullmatch(r"badges/[A-Za-z0-9][A-Za-z0-9._-]*\.svg", b) for b in badges)
    for b in badges:  # well-formed XML whatever the name
        root = ET.fromstring(files[b])
        assert root.tag.endswith("svg")
    index = files["index.html"].decode()
    assert "<script>alert(1)</script>" not in index and "&lt;script&gt;" in index
    assert "<i>co</i>" not in index and "Blocks &amp; &lt;i&gt;co&lt;/i&gt;" in index
    assert index.count("<script>") == 1
    assert "![m\\[1\\]](badges/m_1-" in index  # Markdown alt text escaped
    site.write(tmp_path)
    assert sorted(p.name for p in (tmp_path / "badges").iterdir()) == [b[7:] for b in badges]


def test_safe_names_distinct_on_case_insensitive_file_systems() -> None:
    stems = safe_names(["Model", "model", "a/b", "a_b", "CON", "", "..."])
    assert len({s.lower() for s in stems.values()}) == 7
    assert stems["Model"] == "Model" and stems["a_b"] == "a_b"
    assert all(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", s) for s in stems.values())


def test_badge_text() -> None:
    assert badge_text(2, 4, 71.34, 1.16) == "rank 2-4 · 71.3 ± 1.2"
    assert badge_text(3, 3, 50.0, 0.04) == "rank 3 · 50.0 ± 0.0"
    assert badge_text(float("nan"), float("nan"), float("nan"), float("nan")) == "no score"


def test_rank_ranges_are_the_simultaneous_rank_sets_and_badges_say_them() -> None:
    _, draws = vtab()
    files = vtab_site()
    board = json.loads(files["leaderboard.json"])
    sets = bq.rank_sets(draws, level=LEVEL).sets
    rows = {r["model"]: r for r in board["rows"] if r["group"] == "overall"}
    for i, m in enumerate(draws.models):
        assert (rows[m]["rank_low"], rows[m]["rank_high"]) == (
            sets.simultaneous_low[i],
            sets.simultaneous_high[i],
        )
    stems = safe_names(draws.models)
    assert sorted(p for p in files if p.startswith("badges/")) == sorted(
        f"badges/{s}.svg" for s in stems.values()
    )
    for m in draws.models:
        r = rows[m]
        svg = files[f"badges/{stems[m]}.svg"].decode()
        text = badge_text(r["rank_low"], r["rank_high"], 100 * r["estimate"],
                          50 * (r["high"] - r["low"]))  # fmt: skip
        assert f">{text}</text>" in svg
        assert text.startswith("rank ")


def test_json_is_the_leaderboard_payload_plus_tier_and_ranks() -> None:
    bench, draws = vtab()
    board = json.loads(vtab_site()["leaderboard.json"])
    plain = bq.leaderboard(draws, level=LEVEL).payload()
    assert board.keys() == plain.keys()
    assert board["notes"] == list(bench.notes) + plain["notes"]  # as `benchuq leaderboard --json`
    assert [set(r) - set(p) for r, p in zip(board["rows"], plain["rows"], strict=True)] == [
        {"tier", "rank_low", "rank_high"}
    ] * len(plain["rows"])
    for r, p in zip(board["rows"], plain["rows"], strict=True):
        assert {k: r[k] for k in p} == p
        assert isinstance(r["tier"], int) and isinstance(r["rank_low"], int)


def test_byte_identical_small_and_offline() -> None:
    bench, draws = vtab()
    again = dict(build_site(bench, draws, level=LEVEL, date="2026-01-31").files)
    first = vtab_site()
    assert again == first
    assert sum(len(b) for b in first.values()) < 5 * 1024 * 1024
    index = first["index.html"].decode()
    assert "Content-Security-Policy" in index and "default-src 'none'" in index
    refs = re.findall(r'(?:src|href)="([^"]*)"', index)
    assert refs and all(r.startswith(("#", "data:")) or "/" not in r.split("badges/")[-1]
                        for r in refs)  # fmt: skip
    assert not [r for r in refs if re.match(r"[a-z]+://", r) or r.startswith("//")]
    with zipfile.ZipFile(BytesIO(first["every_eval_ever.zip"])) as z:
        assert len(z.namelist()) == len(bench.models)
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        doc = json.loads(z.read(z.namelist()[0]))
        assert doc["retrieved_timestamp"] == str(
            int(pd.Timestamp("2026-01-31", tz="UTC").timestamp())
        )
    assert "results of 2026-01-31" in index


def test_by_category_puts_categories_first_and_bad_input_is_refused() -> None:
    bench, draws = vtab()
    index = dict(build_site(bench, draws, level=LEVEL, by="category").files)["index.html"]
    text = index.decode()
    assert text.index('id="categories"') < text.index('id="overall"')
    assert "undated results" in text
    with pytest.raises(InvalidArgument, match="YYYY-MM-DD"):
        build_site(bench, draws, level=LEVEL, date="31/01/2026")
    with pytest.raises(InvalidArgument):
        build_site(bench, draws, level=LEVEL, by="task")  # type: ignore[arg-type]


def test_api_site_writes_what_the_cli_writes(tmp_path, monkeypatch) -> None:
    from benchuq.cli.main import main

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01
    out = bq.site(bq.load("sample:toy"), tmp_path / "api", reps=200)
    assert out.date == "2026-01-01" and out.index.is_file() and out.leaderboard.is_file()
    assert sorted(out.badges) == ["A", "B"] and all(p.is_file() for p in out.badges.values())
    assert out.size == sum(p.stat().st_size for p in out.files)
    assert main(["site", "sample:toy", "-o", str(tmp_path / "cli"), "--reps", "200"]) == 0
    for rel in ("leaderboard.json", "leaderboard.csv", "every_eval_ever.zip", "badges/A.svg"):
        assert (tmp_path / "api" / rel).read_bytes() == (tmp_path / "cli" / rel).read_bytes()
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidArgument, match="is a file"):
        bq.site(bq.load("sample:toy"), tmp_path / "file", reps=200)


def test_models_without_a_score_in_a_group_get_no_tier_and_no_rank() -> None:
    rows = [
        {"model": m, "task": t, "n": 100, "correct": c, "category": cat}
        for m, t, c, cat in [
            ("A", "t1", 80, "x"),
            ("A", "t2", 70, "y"),
            ("B", "t1", 60, "x"),
            ("C", "t2", 75, "y"),
            ("D", "t1", 5, "x"),
        ]
    ]
    frame = pd.DataFrame(rows)
    bench = bq.from_frame(frame, n="n", correct="correct", category="category", name="sparse")
    files = dict(build_site(bench, bq.bootstrap(bench, reps=300, seed=0), level=LEVEL).files)
    board = json.loads(files["leaderboard.json"])
    y = {r["model"]: r for r in board["rows"] if r["group"] == "y"}
    assert [(y[m]["tier"], y[m]["rank_low"]) for m in ("B", "D")] == [(None, None)] * 2
    assert all(isinstance(r["tier"], int) for r in board["rows"] if r["estimate"] is not None)
    x = [r for r in board["rows"] if r["group"] == "x" and r["estimate"] is not None]
    assert [r["tier"] for r in x] == [1, 2, 3]  # 80 vs 60 vs 5 of 100 are told apart

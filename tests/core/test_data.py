"""The data model: validation on construction, immutability, content hashing, subsetting."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from benchuq.core.data import Benchmark, DataError, ItemTask


def _counts(**over: object) -> Benchmark:
    kw: dict[str, object] = dict(
        name="t",
        models=("A", "B"),
        tasks=("x", "y", "z"),
        categories=("c1", "c1", "c2"),
        kind="counts",
        estimate=np.array([[0.5, 0.5, 0.5], [0.575, 0.5, 0.5]]),
        n=np.array([[200, 10000, 20000], [200, 10000, 20000]]),
        correct=np.array([[100, 5000, 10000], [115, 5000, 10000]]),
    )
    kw.update(over)
    return Benchmark(**kw)  # type: ignore[arg-type]


def test_derived_views() -> None:
    b = _counts()
    assert b.shape == (2, 3)
    assert b.category_names == ("c1", "c2")
    assert b.category_index.tolist() == [0, 0, 1]
    assert b.n_items == 30200
    assert b.higher_is_better.all() and np.isnan(b.chance).all()


def test_immutable_arrays() -> None:
    b = _counts()
    with pytest.raises(ValueError):
        b.estimate[0, 0] = 1.0
    with pytest.raises(AttributeError):
        b.name = "other"  # type: ignore[misc]


def test_hash_is_by_content() -> None:
    a, b = _counts(), _counts()
    assert a is not b and a.content_hash == b.content_hash and a == b
    c = _counts(correct=np.array([[101, 5000, 10000], [115, 5000, 10000]]))
    assert c.content_hash != a.content_hash
    assert _counts(name="other").content_hash != a.content_hash


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"models": ("A", "A")}, "duplicate model"),
        ({"categories": ("c1", "", "c2")}, "without a category"),
        ({"correct": np.array([[300, 5000, 10000], [115, 5000, 10000]])}, "correct <= n"),
        ({"n": np.array([[-1, 10000, 20000], [200, 10000, 20000]])}, "n > 0"),
        ({"categories": ("c1", "c2")}, "categories for 3 tasks"),
        ({"kind": "bogus"}, "unknown data kind"),
    ],
)
def test_invalid_construction(change: dict[str, object], where: str) -> None:
    with pytest.raises(DataError, match=where):
        _counts(**change)


def test_error_message_names_place_and_fix() -> None:
    err = DataError("not a number", file="r.csv", row=4, column="n", hint="write an integer.")
    text = str(err)
    assert "file 'r.csv'" in text and "row 4" in text and "column 'n'" in text
    assert text.endswith("How to fix: write an integer.")


def test_subset_and_categories() -> None:
    b = _counts()
    s = b.subset(models=["B"], tasks=["z", "x"])
    assert s.models == ("B",) and s.tasks == ("z", "x") and s.categories == ("c2", "c1")
    assert s.correct.tolist() == [[10000, 115]]
    r = b.with_categories({"z": "c1"})
    assert r.category_names == ("c1",) and r.content_hash != b.content_hash


def test_items_kind() -> None:
    scores = np.array([[1.0, 0.0, np.nan], [1.0, 1.0, 0.0]])
    it = ItemTask(items=("i1", "i2", "i3"), scores=scores)
    b = Benchmark(
        name="items",
        models=("A", "B"),
        tasks=("x",),
        categories=("all",),
        kind="items",
        estimate=np.nanmean(scores, axis=1, keepdims=True),
        item_tasks=(it,),
    )
    assert it.binary and b.n_items == 3
    assert b.subset(models=["B"]).item_tasks[0].scores.tolist() == [[1.0, 1.0, 0.0]]


# ---- the lean item model (issue 18) ---------------------------------------------------------


def test_item_scores_are_kept_lean() -> None:
    """Binary scores as bytes, exact float32 where it holds every score, float64 otherwise."""
    binary = ItemTask(("a", "b", "c"), np.array([[1.0, 0.0, np.nan], [0.0, 1.0, 1.0]]))
    assert binary.binary and binary.state.dtype == np.uint8 and binary.values is None
    assert binary.state.tolist() == [[1, 0, 255], [0, 1, 1]]
    assert np.array_equal(binary.scores, [[1, 0, np.nan], [0, 1, 1]], equal_nan=True)
    assert binary.answered.tolist() == [2, 3] and binary.sums().tolist() == [1.0, 2.0]
    halves = ItemTask(("a", "b"), np.array([[0.5, 0.25], [1.0, np.nan]]))
    assert not halves.binary and halves.values.dtype == np.float32
    tenths = ItemTask(("a", "b"), np.array([[0.1, 0.2], [0.3, 0.4]]))
    assert tenths.values.dtype == np.float64 and tenths.scores[0, 0] == 0.1  # never rounded
    assert halves.means().tolist() == [0.375, 1.0]


def test_stored_keeps_the_array_and_labels_are_codes() -> None:
    state = np.array([[1, 0, 1, 1], [0, 0, 255, 1]], np.uint8)
    it = ItemTask.stored(("i1", "i2", "i3", "i4"), state, cluster=("c0", "c0", "c1", "c1"))
    assert np.shares_memory(it.state, state) and not it.state.flags.writeable
    assert it.cluster == ("c0", "c0", "c1", "c1") and it.cluster.codes.tolist() == [0, 0, 1, 1]
    assert len(it.cluster.names) == 2  # each name once
    assert it.items[2] == "i3" and list(it.items) == ["i1", "i2", "i3", "i4"]
    with pytest.raises(AttributeError):
        it.state = state  # type: ignore[misc]
    with pytest.raises(DataError, match="3 cluster labels for 4 items"):
        ItemTask.stored(("a", "b", "c", "d"), state, cluster=("x", "y", "z"))


def test_items_content_hash_follows_content_not_storage() -> None:
    scores = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, np.nan]])

    def bench(it: ItemTask) -> Benchmark:
        return Benchmark(
            name="i",
            models=("A", "B"),
            tasks=("x",),
            categories=("all",),
            kind="items",
            estimate=it.means()[:, None],
            item_tasks=(it,),
        )

    a = bench(ItemTask(("p", "q", "r"), scores, subgroup=("g", "h", "g")))
    state = np.array([[1, 0, 1], [0, 1, 255]], np.uint8)
    b = bench(ItemTask.stored(("p", "q", "r"), state, subgroup=("g", "h", "g")))
    c = bench(ItemTask.stored(("p", "q", "s"), state, subgroup=("g", "h", "g")))
    assert a == b and a.content_hash == b.content_hash and c != a
    assert pickle.loads(pickle.dumps(a)) == a  # caches pickle benchmarks
    sub = a.subset(models=["B"]).item_tasks[0]
    assert sub.binary and sub.state.tolist() == [[0, 1, 255]] and sub.subgroup == ("g", "h", "g")

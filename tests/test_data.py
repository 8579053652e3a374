"""The data model: validation on construction, immutability, content hashing, subsetting."""

from __future__ import annotations

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

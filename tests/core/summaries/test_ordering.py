"""core.summaries.ordering: the one tie rule (best first, equal to 12 significant digits by name,
nan last), so orders do not depend on the machine's last digits (issue 25)."""

from __future__ import annotations

import doctest

import numpy as np

from benchuq.core.summaries import ordering
from benchuq.core.summaries.ordering import best_first


def test_ties_by_name_whatever_the_last_digits() -> None:
    a = 1.8542463205700108
    for x, y in ((a, a), (a, a * (1 + 1e-15)), (a * (1 + 1e-15), a)):
        assert best_first([x, y], ["Sup-Rotation", "Sup-Exemplar"]).tolist() == [1, 0]
    assert best_first([a, a * (1 + 1e-9)], ["b", "a"]).tolist() == [1, 0]  # a real difference


def test_direction_and_missing() -> None:
    est, names = [0.10, np.nan, 0.40, 0.11], ["a", "b", "c", "d"]
    assert best_first(est, names, higher_is_better=False).tolist() == [0, 3, 2, 1]
    assert best_first(est, names).tolist() == [2, 3, 0, 1]


def test_examples_run() -> None:
    assert doctest.testmod(ordering).failed == 0

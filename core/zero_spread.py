"""Zero spread is named, never shown as certainty (issue #39, METHODS 2g).

An interval of width 0 can mean that the data measured no uncertainty (every given standard
error is 0, every battle a tie, identical models), not that the result is certain. Each such
output carries a note from :func:`zero_spread_note` saying so and why.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchuq.core.data import Benchmark

__all__ = ["PREFIX", "given_se_note", "zero_spread_note", "zero_spread_notes"]

PREFIX = "No uncertainty was measured"


def zero_spread_note(names: Sequence[str], flat: np.ndarray, why: str) -> str | None:
    """One sentence for the ``names`` whose spread is 0 (``flat`` ``(K,)`` bool), with the
    reason ``why`` (e.g. ``"every given standard error is 0"``); ``None`` when none is flat."""
    flat = np.asarray(flat, dtype=bool)
    if not flat.any():
        return None
    if flat.all():
        who = "any result" if len(flat) > 1 else str(names[0])
    else:
        shown = [str(n) for n, f in zip(names, flat, strict=True) if f]
        who = ", ".join(shown[:8]) + (f" and {len(shown) - 8} more" if len(shown) > 8 else "")
    return (
        f"{PREFIX} for {who}: {why}, so the interval has width 0. That says "
        "the data hold no measure of the spread, not that the result is certain."
    )


def zero_spread_notes(notes: Sequence[str]) -> list[str]:
    """The zero-spread notes among ``notes`` (for outputs that show only these)."""
    return [n for n in notes if n.startswith(PREFIX)]


def given_se_note(bench: Benchmark) -> str | None:
    """The note for models whose every given standard error is 0 (estimate ± se data)."""
    if bench.se is None:
        return None
    have = ~np.isnan(bench.estimate)
    flat = np.all((np.asarray(bench.se) == 0) | ~have, axis=1) & have.any(axis=1)
    return zero_spread_note(bench.models, flat, "every standard error the data give is 0")

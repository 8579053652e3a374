"""What a data set's loader knew besides its numbers (issue 38: context travels with the data):
:class:`Context` rides on :attr:`benchuq.core.data.Benchmark.context` (``core.data`` re-exports
it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchuq.core.reading.meta import Group, Meta

__all__ = ["NO_CONTEXT", "Context"]


@dataclass(frozen=True)
class Context:
    """What a data set's loader knew besides its numbers (issue 38: context travels with the data).

    ``source``: the app's data value of a sample or a published set (``sample:<name>``,
    ``shared:<id>``; ``""`` for other data): what a report's share link opens. ``meta``: what
    the files said (:class:`~benchuq.core.reading.meta.Meta`: run details, lm-eval groups,
    metrics). ``statistic``: what each item scores when it holds several answers
    (``core.item_statistic``: ``mean``, ``pass@k``, ``pass^k``; set when applied, so it is applied
    once). Nothing here changes a number of the data: a :class:`Benchmark`'s equality, hash
    and :attr:`~Benchmark.content_hash` leave it out; the groups choose what "overall" stands
    for (``core.summaries.headline``).
    """

    source: str = ""
    meta: Meta | None = None
    statistic: str = "mean"

    @property
    def groups(self) -> tuple[Group, ...]:
        """The files' lm-eval groups (``()`` when they define none)."""
        return () if self.meta is None else tuple(self.meta.groups)


NO_CONTEXT = Context()

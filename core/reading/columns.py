"""Which columns a table needs in each format (for the Data page's column mapper)."""

from __future__ import annotations

from benchuq.core.reading.items import ITEM_COLUMNS
from benchuq.core.reading.long import ALIASES

__all__ = ["OPTIONAL", "REQUIRED", "missing_columns", "required_columns"]


def required_columns(format: str) -> tuple[str, ...]:
    """The columns a table of ``format`` needs (the long format also accepts ``accuracy`` with
    n, or ``estimate, se``, in place of ``n, correct``; see :func:`missing_columns`)."""
    return REQUIRED.get(format, ())


REQUIRED: dict[str, tuple[str, ...]] = {
    "long": ("model", "task", "n", "correct"),
    "wide": ("model",),
    "items": ITEM_COLUMNS,
    "alpaca_eval": ("generator_2", "preference", "instruction_index"),
}
OPTIONAL: dict[str, tuple[str, ...]] = {
    "long": ("category", "accuracy", "estimate", "se", "chance", "higher_is_better"),
    "items": ("cluster", "subgroup", "category"),
    "alpaca_eval": ("dataset", "instruction"),
}


def missing_columns(
    columns: list[str], *, format: str = "long", task_table: bool = False
) -> list[str]:
    """Which of our columns a table with ``columns`` still lacks for ``format`` (for a column
    mapper). For ``long``: ``n, correct``, or ``accuracy`` with ``n`` (``n`` may come from a task
    table), or ``estimate, se``."""
    have = {c.strip().lower() for c in columns}
    for ours, alts in ALIASES.items():
        if have & set(alts):
            have.add(ours)
    if format == "long":
        need = ["model", "task"]
        if "correct" in have or "accuracy" in have:
            need += [] if task_table else ["n"]
            need += ["correct"] if "accuracy" not in have else []
        elif "estimate" in have:
            need += ["se"]
        else:
            need += ["correct"] + ([] if task_table else ["n"])
        return [c for c in need if c not in have]
    if format == "alpaca_eval" and "instruction" in have:
        have.add("instruction_index")
    return [c for c in required_columns(format) if c not in have]

"""Notes a person can read: the same note from many files said once, with a count.

Readers write a note without the file's name (``"task 'cola' skipped — its metric is mcc, not
acc"``); the loader pairs each note with its file and :func:`group_notes` says it once per text:
``"13 files: task 'cola' skipped — its metric is mcc, not acc"``. A note is one headline line,
optionally followed by detail lines (the full list of files or tasks); :func:`headline` is what a
summary shows, the whole text is what ``--verbose`` and the app's notes expander show.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["count", "group_notes", "headline", "listing", "summarize"]

#: Names a headline shows before "... (N)"; the detail lines list all of them.
SHOWN = 5


def count(n: int, word: str, *, plural: str | None = None) -> str:
    """``"1 task"``, ``"3 tasks"`` (``plural`` for irregular words)."""
    return f"{n} {word if n == 1 else plural or word + 's'}"


def listing(names: Sequence[str], *, shown: int = SHOWN) -> str:
    """``a, b, c`` or ``a, b, c, d, e, … (57)`` when there are more than ``shown``."""
    names = list(names)
    if len(names) <= shown:
        return ", ".join(names)
    return ", ".join(names[:shown]) + f", … ({len(names)})"


def headline(note: str) -> str:
    """The first line of a note (what a summary shows)."""
    return note.split("\n", 1)[0]


def group_notes(pairs: Iterable[tuple[str, str]], *, named: bool = True) -> tuple[str, ...]:
    """``[(file, note), ...]`` -> one note per distinct text, counted over the files.

    A text from one file reads ``"x.json: text"`` (just ``"text"`` when ``named`` is false: the
    data came from that one file); from k files ``"k files: text"`` with a detail line naming the
    files (all of them). Order: first appearance.
    """
    files: dict[str, list[str]] = {}
    for file, note in pairs:
        seen = files.setdefault(note, [])
        if file not in seen:
            seen.append(file)
    out = []
    for note, names in files.items():
        head, _, detail = note.partition("\n")
        if len(names) == 1:
            text = f"{names[0]}: {head}" if names[0] and named else head
            out.append(text + (f"\n{detail}" if detail else ""))
            continue
        lines = [f"{len(names)} files: {head}"]
        if detail:
            lines.append(detail)
        lines.append("files: " + ", ".join(names))
        out.append("\n".join(lines))
    return tuple(out)


def summarize(notes: Sequence[str], *, limit: int = 8) -> list[str]:
    """Headlines of the first ``limit`` notes, then ``"… and N more"`` if there are more."""
    heads = [headline(n) for n in notes]
    if len(heads) <= limit:
        return heads
    return [*heads[: limit - 1], f"… and {len(heads) - limit + 1} more notes"]

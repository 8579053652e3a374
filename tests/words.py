"""The jargon a user must not read (issue 41, Build 4) and the visible text of an AppTest run (a
fixture module, not a test module).

:data:`BANNED` lists the technical words that were on the pages and in the terminal, each with
what replaced it; the technical terms stay in tooltips (``help=``), ``--help``, the Methods page
(the app's glossary and reference) and docs/METHODS.md, which :func:`visible_text` leaves out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from google.protobuf.json_format import MessageToDict

__all__ = ["BANNED", "jargon", "visible_text"]

#: pattern -> what users read instead
BANNED: dict[str, str] = {
    r"\bdraws\b": "replicates, resamples, samples or simulated leaderboards",
    r"confidence draws|Clopper": "task-level resampling (METHODS 2)",
    r"max-T": "simultaneous (all pairs together)",
    r"Sidak|Šidák": "simultaneous over tasks",
    r"rank ?\(UB\)": "rank (1 + models clearly above)",
    r"S\(w\)": "weighted score (by category weights)",
    r"\b1 points\b": "1 point",
    r"the other 1 never": "the other model never",
    r"Score \(score": "Score",
    r"Try the VTAB-1k exam": "Show the VTAB-1k example",
    r"the sample '?sample:": "the bundled sample (sample:NAME)",
    r"labels \(ppi\+\+\)": "labels (PPI++): the estimator as its radio names it",
}
_BANNED = re.compile("|".join(f"(?:{p})" for p in BANNED))

#: proto fields that users do not read as text (tooltips, ids, styles, plotly's template)
_HIDDEN = re.compile(
    r"(^|\.)(help|id|formId|key|elementId|widgetId|deferredFileId|pageScriptHash|url|icon|type|"
    r"format|dataType|template|config|theme|color|colorscale|symbol|font|gapConfig|"
    r"flexContainer|page)($|\.)"
)


def _strings(obj: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v, path)
    elif isinstance(obj, str):
        yield path, obj


def visible_text(at: Any) -> list[str]:
    """Every string a user can read on the AppTest page ``at``: markdown, captions, alerts,
    labels, options, table headers and text cells, chart titles, axes, legends and hover texts;
    not tooltips (``help``) nor styles. Markdown escapes are removed."""
    out: list[str] = []

    def walk(node: Any) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            try:
                d = MessageToDict(proto)
            except (TypeError, AttributeError):
                d = {}
            if isinstance(d.get("spec"), str) and d["spec"].startswith("{"):  # a plotly chart
                d["spec"] = json.loads(d["spec"])
            if isinstance(d.get("columns"), str) and d["columns"].startswith("{"):  # a table
                d["columns"] = json.loads(d["columns"])
            if type(node).__name__ == "Dataframe":
                frame = node.value
                d["header"] = [str(c) for c in frame.columns]
                d["cells"] = [v for c in frame.columns for v in frame[c] if isinstance(v, str)]
                d.pop("data", None)
            out.extend(s.replace("\\", "") for p, s in _strings(d) if not _HIDDEN.search(p))
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            for child in children.values():
                walk(child)

    walk(at._tree)
    return out


def jargon(texts: list[str]) -> list[str]:
    """The banned words found in ``texts``, each with some context."""
    found = []
    for text in texts:
        for m in _BANNED.finditer(text):
            found.append(text[max(0, m.start() - 60) : m.end() + 40])
    return found

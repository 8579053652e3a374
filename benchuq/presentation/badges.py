"""Model badges of a leaderboard site: a small SVG ("rank 2-4 · 71.3 ± 1.2") per model, and
safe file names for any model name (pure; no streamlit). docs/METHODS.md 4c says what the
numbers are.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable
from xml.sax.saxutils import escape

__all__ = ["badge_files", "badge_svg", "badge_text", "safe_names"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
# names Windows will not create, whatever the extension
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)),
             *(f"LPT{i}" for i in range(10))}  # fmt: skip
_STEM = 60  # characters of a model's name kept in its file name
_CHAR = 6.6  # pixels per character of 11px Verdana (shields.io's badge font), rounded up
_LABEL = 60  # characters of the data set's name shown on the badge's left part


def safe_names(models: Iterable[str]) -> dict[str, str]:
    """``{model: file stem}``: letters, digits and ``. _ -`` only, no leading dot, unique also on
    case-insensitive file systems. A name changed by that (or reserved on Windows) gets 8
    characters of its SHA-256, so two names never share a file.

    Examples
    --------
    >>> safe_names(["gpt-4", "org/model v2", "GPT-4"])
    {'gpt-4': 'gpt-4', 'org/model v2': 'org_model_v2-ecfd1a79', 'GPT-4': 'GPT-4-29f11dbc'}
    """
    out: dict[str, str] = {}
    taken: set[str] = set()
    for model in models:
        stem = _UNSAFE.sub("_", model).strip("._-")[:_STEM] or "model"
        if stem != model or stem.upper() in _RESERVED or stem.lower() in taken:
            stem = f"{stem}-{hashlib.sha256(model.encode('utf-8')).hexdigest()[:8]}"
        taken.add(stem.lower())
        out[model] = stem
    return out


def badge_text(rank_low: float, rank_high: float, estimate: float, half: float) -> str:
    """The badge's value: ``rank 2-4 · 71.3 ± 1.2`` (``rank 3`` when the set is one rank; a
    model without a score: ``no score``); ``estimate`` and ``half`` (half the interval's width)
    already in display units."""
    if not (math.isfinite(estimate) and math.isfinite(rank_low) and math.isfinite(rank_high)):
        return "no score"
    lo, hi = int(rank_low), int(rank_high)
    ranks = f"rank {lo}" if lo == hi else f"rank {lo}-{hi}"
    spread = f" ± {half:.1f}" if math.isfinite(half) else ""
    return f"{ranks} · {estimate:.1f}{spread}"


def badge_svg(label: str, value: str, *, tier: int) -> str:
    """A flat badge (as shields.io draws them): ``label`` on grey, ``value`` on the tier's
    colour (tier 1 green, 2 blue, then grey); text XML-escaped, widths from a fixed per-character
    width so the same text gives the same bytes."""
    label = label if len(label) <= _LABEL else label[: _LABEL - 1] + "…"
    left = math.ceil(len(label) * _CHAR) + 10
    right = math.ceil(len(value) * _CHAR) + 10
    width = left + right
    color = {1: "#2e7d32", 2: "#1565c0"}.get(tier, "#616161")
    title = escape(f"{label}: {value} (tier {tier})" if tier else f"{label}: {value}")
    lab, val = escape(label), escape(value)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
        f'aria-label="{escape(title, {chr(34): "&quot;"})}">'
        f"<title>{title}</title>"
        f'<rect width="{left}" height="20" fill="#555"/>'
        f'<rect x="{left}" width="{right}" height="20" fill="{color}"/>'
        '<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">'
        f'<text x="{left / 2:g}" y="14" text-anchor="middle">{lab}</text>'
        f'<text x="{left + right / 2:g}" y="14" text-anchor="middle">{val}</text>'
        "</g></svg>\n"
    )


def badge_files(
    label: str, rows: Iterable[tuple[str, int, float, float, float, float]]
) -> dict[str, tuple[str, str]]:
    """``{model: (file name under badges/, SVG text)}`` from rows ``(model, tier, rank_low,
    rank_high, estimate, half)`` (display units)."""
    rows = list(rows)
    stems = safe_names(r[0] for r in rows)
    return {
        model: (
            f"{stems[model]}.svg",
            badge_svg(label, badge_text(lo, hi, est, half), tier=tier),
        )
        for model, tier, lo, hi, est, half in rows
    }

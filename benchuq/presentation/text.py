"""Showing user-supplied strings safely: one helper per output context.

- :func:`md_escape`: Markdown (``st.markdown``, ``st.caption``, ``st.error``, widget labels);
  :func:`md_cell`: a cell of a Markdown table (also no line break, ``|`` escaped);
- :func:`plotly_escape`: Plotly text (titles, hover text, legends, tick labels render a subset of
  HTML, ``<a href>`` included);
- :func:`write_csv` / :func:`csv_bytes`: every CSV benchuq writes (the app's downloads, the
  CLI's ``--format csv`` and ``-o x.csv``, the API's ``write_table``): cells that a spreadsheet
  would run as a formula are neutralised with a leading ``'``, OWASP "CSV injection"; numeric
  columns stay numbers.

Each first makes invisible characters visible (:func:`visible`): a right-to-left override
(``U+202E``) would make ``\u202egnp.exe`` read as "exe.png", a NUL byte would cut a label. The
choice: show them as ``[U+202E]`` rather than drop them, so two names that differ only there stay
distinct and the user sees why.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import numpy as np
import pandas as pd

from benchuq.core.data import cut_label, file_name_part

__all__ = [
    "csv_bytes",
    "csv_cell",
    "file_stem",
    "md_cell",
    "md_escape",
    "plotly_escape",
    "visible",
    "weighted_order_note",
    "write_csv",
]

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")
_SETEXT = re.compile(r"(?m)^(\s*)=")  # a line of '=' would turn the line above into a heading
# bidi embeddings/overrides/isolates and marks, zero-width and BOM characters, C0/C1 controls
# other than tab and newline
_INVISIBLE = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u2069\u061c\ufeff\x00-\x08\x0b-\x1f\x7f-\x9f]"
)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def visible(text: object) -> str:
    """``text`` with bidi controls, zero-width and control characters written as ``[U+XXXX]``."""
    return _INVISIBLE.sub(lambda m: f"[U+{ord(m.group()):04X}]", str(text))


def md_escape(text: object) -> str:
    """``text`` for Markdown: invisible characters shown, every Markdown/HTML-significant
    character backslash-escaped (``.`` and ``:`` too, so a URL in a name is not auto-linked).

    Use it whenever a model, task, category or file name, or a message quoting one (a
    :class:`~benchuq.core.data.DataError`), goes into ``st.markdown``, ``st.caption``,
    ``st.error``/``st.warning`` or a widget label (all of which render Markdown).
    """
    return _SETEXT.sub(r"\1\\=", _MD_SPECIAL.sub(r"\\\1", visible(text)))


_LINE_BREAK = re.compile("\r\n|[\n\r\u2028\u2029\x85\x0b\x0c]")


def md_cell(text: object) -> str:
    """``text`` for one cell of a Markdown table: :func:`md_escape` (``|`` included) and every
    line break written as ``<br>`` (a raw newline would end the table, and every row after it,
    the overall one included, would render as plain text in a CI summary)."""
    return "<br>".join(md_escape(part) for part in _LINE_BREAK.split(str(text)))


def plotly_escape(text: object) -> str:
    """``text`` for Plotly labels (titles, hover text, legends, ticks): cut to
    :data:`~benchuq.core.data.LABEL_LIMIT` characters (a 1 MB model name made the report's
    figures time out), invisible characters shown and ``& < >`` as entities, so a name cannot
    open a tag such as ``<a href=...>``."""
    return html.escape(visible(cut_label(str(text))), quote=False)


def csv_cell(value: object) -> object:
    """A CSV cell: a string starting with ``= + - @``, tab or carriage return gets a leading
    ``'`` (a spreadsheet then shows it as text) and its control characters made visible
    (:func:`visible`); other values are returned as they are."""
    if not isinstance(value, str):
        return value
    if value.startswith(_FORMULA_START):
        value = "'" + value
    return visible(value)


def _safe_table(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its text cells and column names passed through :func:`csv_cell`."""
    out = table.rename(columns=lambda c: csv_cell(str(c)))
    text_cols = [c for c in out.columns if not pd.api.types.is_numeric_dtype(out[c].dtype)]
    if text_cols:
        out = out.assign(**{c: out[c].map(csv_cell) for c in text_cols})
    return out


def write_csv(table: pd.DataFrame, target: str | Path | TextIO) -> None:
    """Write ``table`` as CSV without the index to a path or a text stream: the one CSV writer
    (text cells and column names neutralised with :func:`csv_cell`, numbers as numbers)."""
    _safe_table(table).to_csv(target, index=False)


def csv_bytes(table: pd.DataFrame) -> bytes:
    """``table`` as UTF-8 CSV bytes (a download), written by :func:`write_csv`."""
    buf = io.StringIO()
    write_csv(table, buf)
    return buf.getvalue().encode()


_UNSAFE_FILE = re.compile(r"[^\w.+-]+")


def file_stem(text: str, limit: int = 100) -> str:
    """``text`` as a file name's stem: letters, digits and ``. + - _`` kept, every other run
    of characters one ``_`` (a data set's name such as ``"lm-eval v0.4: 13 models x 16
    benchmarks"`` becomes ``lm-eval_v0.4_13_models_x_16_benchmarks``), cut to ``limit``
    characters and bytes (:func:`~benchuq.core.data.file_name_part`)."""
    return file_name_part(_UNSAFE_FILE.sub("_", text).strip("_."), limit) or "benchuq"


def weighted_order_note(
    categories: Sequence[str],
    weights: Sequence[float] | np.ndarray,
    *,
    whose: str = "the sidebar's weights",
) -> str:
    """Why the weighted score's order can differ from Overall's: one line under a weighted
    score (issue 41; ``whose`` names where the weights come from)."""
    total = float(sum(weights))
    parts = ", ".join(
        f"{c} {100 * float(x) / total:.0f}%" for c, x in zip(categories, weights, strict=True)
    )
    return (
        f"The weighted score counts each category by {whose} ({parts}); Overall counts every "
        "task once, so a category with more tasks weighs more there. The two orders can differ "
        "when models are strong in different categories."
    )

"""Showing user-supplied strings safely: one helper per output context.

- :func:`md_escape`: Markdown (``st.markdown``, ``st.caption``, ``st.error``, widget labels);
- :func:`plotly_escape`: Plotly text (titles, hover text, legends, tick labels render a subset of
  HTML, ``<a href>`` included);
- :func:`csv_bytes`: CSV downloads (cells that a spreadsheet would run as a formula are
  neutralised with a leading ``'``, OWASP "CSV injection"; numeric columns stay numbers).

Each first makes invisible characters visible (:func:`visible`): a right-to-left override
(``U+202E``) would make ``\u202egnp.exe`` read as "exe.png", a NUL byte would cut a label. The
choice: show them as ``[U+202E]`` rather than drop them, so two names that differ only there stay
distinct and the user sees why.
"""

from __future__ import annotations

import html
import re

import pandas as pd

__all__ = ["csv_bytes", "csv_cell", "file_stem", "md_escape", "plotly_escape", "visible"]

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


def plotly_escape(text: object) -> str:
    """``text`` for Plotly labels (titles, hover text, legends, ticks): invisible characters
    shown and ``& < >`` as entities, so a name cannot open a tag such as ``<a href=...>``."""
    return html.escape(visible(text), quote=False)


def csv_cell(value: object) -> object:
    """A CSV cell: a string starting with ``= + - @``, tab or carriage return gets a leading
    ``'`` (a spreadsheet then shows it as text); other values are returned as they are."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def csv_bytes(table: pd.DataFrame) -> bytes:
    """``table`` as UTF-8 CSV without the index; text cells and column names neutralised with
    :func:`csv_cell`, numeric columns written as numbers."""
    out = table.rename(columns=lambda c: csv_cell(str(c)))
    text_cols = [c for c in out.columns if not pd.api.types.is_numeric_dtype(out[c].dtype)]
    if text_cols:
        out = out.assign(**{c: out[c].map(csv_cell) for c in text_cols})
    return out.to_csv(index=False).encode()


_UNSAFE_FILE = re.compile(r"[^\w.+-]+")


def file_stem(text: str, limit: int = 100) -> str:
    """``text`` as a file name's stem: letters, digits and ``. + - _`` kept, every other run
    of characters one ``_`` (a data set's name such as ``"lm-eval v0.4: 13 models x 16
    benchmarks"`` becomes ``lm-eval_v0.4_13_models_x_16_benchmarks``)."""
    return _UNSAFE_FILE.sub("_", text).strip("_.")[:limit] or "benchuq"

"""The protocol every result follows (:class:`Result`: ``to_frame()``, ``payload()``,
``figure()``, ``_repr_html_``), the JSON sanitiser :func:`clean` and :func:`write_table`
(CSV/Parquet), shared by the result kinds of :mod:`benchuq.results`."""

from __future__ import annotations

import html
import io
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TextIO

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from benchuq.core.draws import Draws
    from benchuq.presentation.figures.common import FigureOptions

__all__ = [
    "MARGIN_UNIT",
    "TABLE_FORMATS",
    "Result",
    "TableFormat",
    "clean",
    "overall_words",
    "write_table",
    "zero_note",
]


TableFormat = Literal["csv", "parquet"]
TABLE_FORMATS: tuple[str, ...] = ("csv", "parquet")
HTML_ROWS = 20  # rows shown by _repr_html_
MARGIN_UNIT = "score units (0.01 = 1 point on a 0-1 score)"  # the JSON's margin (issue #39)


def zero_note(notes: Sequence[str]) -> dict[str, str]:
    """``{"note": ...}`` when ``notes`` say no spread was measured (METHODS 2g), else ``{}``."""
    from benchuq.core.zero_spread import zero_spread_notes

    found = zero_spread_notes(notes)
    return {"note": " ".join(found)} if found else {}


def clean(x: Any) -> Any:
    """JSON-safe values: numpy scalars and arrays to Python, NaN and infinity to ``None``."""
    if isinstance(x, Mapping):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return clean(x.tolist())
    if isinstance(x, list | tuple):
        return [clean(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, str):
        x = x.item()
    if isinstance(x, float) and not np.isfinite(x):
        return None
    return x


def _unit(observed: np.ndarray, normalization: str | None = None) -> str:
    """The unit of scores: proportions when every observed score is in [0, 1]."""
    if normalization is not None:
        return f"normalized ({normalization}, 0-1)"
    from benchuq.core.data import is_proportion

    return "proportion" if is_proportion(observed) else "score"


def _options(models: tuple[str, ...], unit: str, title: str = "") -> FigureOptions:
    """The app's figure options: one colour per model, percent for proportions."""
    from benchuq.presentation.colors import model_colors
    from benchuq.presentation.figures.common import FigureOptions

    if unit == "proportion":
        return FigureOptions(model_colors(models), 100.0, "score (%)", title)
    if unit.startswith("normalized"):
        return FigureOptions(model_colors(models), 100.0, "normalized score (0–100)", title)
    return FigureOptions(model_colors(models), 1.0, "score", title)


def _subtitled(fig: go.Figure, draws: Draws, level: float) -> go.Figure:
    """``fig`` with the app's export subtitle: data set, method, draws, seed, level."""
    from benchuq.presentation.figures.common import chart_subtitle, with_subtitle

    sub = chart_subtitle(draws.data or "data", draws.method, draws.reps, draws.seed, level)
    return with_subtitle(fig, sub)


def _draws_meta(draws: Draws) -> dict[str, Any]:
    from benchuq.core.summaries.headline import overall_label

    return {
        "data": draws.data,
        "method": draws.method,
        "reps": draws.reps,
        "seed": draws.seed,
        "overall": overall_label(draws),
    }


def overall_words(draws: Draws) -> str:
    """What "overall" is for ``draws``, in words (``core.summaries.headline.overall_label``)."""
    from benchuq.core.summaries.headline import overall_label

    return overall_label(draws)


def _overall(draws: Draws) -> dict[str, object]:
    """The CLI JSON's ``overall`` object: the aggregate the group "overall" stands for."""
    from benchuq.core.summaries.headline import Headline, overall_label

    if draws.headline is not None:
        return draws.headline.describe()
    return Headline("tasks", overall_label(draws), ("tasks",)).describe()


@dataclass(frozen=True, repr=False, eq=False)
class Result(ABC):
    """What every result has; subclasses add their fields, rows and figure."""

    kind: ClassVar[str] = "result"
    #: Columns the app shows in percent (points for differences) when the scores are
    #: proportions; ``_repr_html_`` shows them alike.
    PERCENT: ClassVar[tuple[str, ...]] = ()

    def to_frame(self) -> pd.DataFrame:
        """The rows as a tidy DataFrame (the CLI JSON's ``rows``); ``attrs`` hold the settings."""
        frame = pd.DataFrame(self._rows())
        frame.attrs.update(self.meta())
        return frame

    def meta(self) -> dict[str, Any]:
        """The scalar settings behind the numbers (method, level, replicates, seed, unit)."""
        return {}

    def payload(self) -> dict[str, Any]:
        """The CLI's ``--json`` document."""
        return clean({**self.meta(), "rows": self._rows()})

    @abstractmethod
    def figure(self) -> go.Figure:
        """The app's figure of this result."""

    def to_csv(self, target: str | Path | TextIO | None = None) -> str | None:
        """:meth:`to_frame` as spreadsheet-safe CSV (:func:`write_table`): the text when no
        ``target`` is given, else written to ``target`` (a path or a text stream)."""
        if target is not None:
            write_table(self, target, format="csv")
            return None
        buf = io.StringIO()
        write_table(self, buf, format="csv")
        return buf.getvalue()

    @abstractmethod
    def _rows(self) -> list[dict[str, Any]]:
        """The rows of the CLI's JSON."""

    def _summary(self) -> str:
        meta = self.meta()
        parts = []
        for key in ("data", "level"):
            value = meta.get(key)
            if isinstance(value, float):
                parts.append(f"{key}={value:.4g}")
            elif value not in (None, ""):
                parts.append(f"{key}={value!r}")
        return ", ".join(parts)

    def __repr__(self) -> str:
        """One line: the result's name, data set, level and number of rows."""
        rows = len(self._rows())
        summary = self._summary()
        return f"{type(self).__name__}({summary + ', ' if summary else ''}{rows} rows)"

    def _in_percent(self) -> bool:
        """Whether the app shows this result's :attr:`PERCENT` columns in percent."""
        return self.meta().get("unit") == "proportion"

    def _repr_html_(self) -> str:
        """The rows as a table in the app's units (percent or points for proportions), every
        column shown, the first :data:`HTML_ROWS` rows."""
        frame = self.to_frame()
        percent = [c for c in self.PERCENT if c in frame.columns] if self._in_percent() else []
        frame = frame.assign(**{c: 100 * frame[c] for c in percent})
        shown = frame.head(HTML_ROWS).to_html(
            index=False,
            float_format=_number,
            formatters={c: (lambda v: f"{v:.1f}") for c in percent},
            border=0,
            max_cols=None,
        )
        more = f"<p>… {len(frame) - HTML_ROWS} more rows</p>" if len(frame) > HTML_ROWS else ""
        summary = self._summary()
        if percent:
            summary += f"; {', '.join(percent)} in percent (differences in points), as the app"
        return f"<p><b>{type(self).__name__}</b> {html.escape(summary)}</p>{shown}{more}"


def _number(v: float) -> str:
    """A table cell: whole numbers whole (``30200``, not ``3.02e+04``), others to 4 digits."""
    return f"{v:.0f}" if np.isfinite(v) and float(v).is_integer() and abs(v) < 1e15 else f"{v:.4g}"


def write_table(result: Result, target: str | Path | TextIO, *, format: TableFormat) -> None:
    """Write ``result.to_frame()`` as CSV or Parquet to ``target`` (a path; CSV also a text
    stream). The settings (``level``, ``unit``, ``method``, ...) become constant columns;
    Parquet also keeps the JSON document without its rows as the file's ``benchuq`` metadata."""
    from benchuq.core.validation import InvalidArgument, check_choice

    check_choice(format, TABLE_FORMATS, name="format")
    frame = result.to_frame()
    meta = {k: v for k, v in frame.attrs.items() if k not in frame.columns}
    table = frame.assign(**{k: _cell(v) for k, v in meta.items()})
    table.attrs = {}
    if format == "csv":  # the one spreadsheet-safe writer, as the app's downloads
        from benchuq.presentation.text import write_csv

        write_csv(table, target)
        return
    if not isinstance(target, str | Path):
        raise InvalidArgument("Parquet is binary: give a file to write it to.", hint="-o FILE")
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrow = pa.Table.from_pandas(table, preserve_index=False)
    payload = result.payload()
    doc = {**meta, **{k: v for k, v in payload.items() if k not in ("rows", "points")}}
    arrow = arrow.replace_schema_metadata(
        {**(arrow.schema.metadata or {}), b"benchuq": json.dumps(clean(doc)).encode()}
    )
    pq.write_table(arrow, target)


def _cell(value: Any) -> Any:
    """A setting as a table cell (lists and dicts as JSON text)."""
    value = clean(value)
    return json.dumps(value) if isinstance(value, list | dict) else value

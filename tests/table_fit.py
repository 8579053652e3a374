"""Whether a table fits the app's main area without scrolling sideways, estimated from its text
(AppTest has no layout): the manager's window of 1400 px (issue 30)."""

from __future__ import annotations

import pandas as pd

# Width (px) of a table in the main area of a 1400 px wide window, sidebar open (measured with
# chromium on the Ranks page: the stDataFrame element is 940 px wide).
MAIN_WIDTH_1400 = 940
CHAR_PX = 7.0  # 14 px Source Sans; an overestimate (the old 9-column rank table: 1811 px drawn)
CELL_PAD_PX = 16  # the grid's padding per column
AUTO_MAX_PX = 500  # the grid's widest automatic column (streamlit's maxColumnAutoWidth)


def column_width(frame: pd.DataFrame, column: str) -> float:
    """Estimated px ``column`` needs to show its header and longest cell whole (the grid cuts
    a cell beyond :data:`AUTO_MAX_PX`)."""
    chars = max(len(str(column)), int(frame[column].astype(str).str.len().max()))
    return CHAR_PX * chars + CELL_PAD_PX


def table_width(frame: pd.DataFrame) -> float:
    """Estimated px of ``frame`` shown without its index."""
    return sum(min(column_width(frame, c), AUTO_MAX_PX) for c in frame.columns)

"""Task weights page: widget groups (category picker, chart clicks, table, slide exports).

Widget keys are the page's link names (``view.WeightsSettings``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from benchuq.api.summaries import BestProbabilityMap, DominanceMap, from_map_weights
from benchuq.dashboard import controls
from benchuq.dashboard.export import download_menu
from benchuq.dashboard.weights import view as vw
from benchuq.presentation.figures.ternary_static import FORMATS, dominance_image, probability_image
from benchuq.presentation.figures.weights import clicked_point
from benchuq.presentation.text import md_escape


def map_categories_picker(cats: tuple[str, ...], merge: tuple[str, ...]) -> tuple[str, ...]:
    """Task weights: of three or more categories, pick two or three or merge them.

    With exactly three the choice sits in a collapsed expander (default: all three, a ternary).
    ``merge`` is the stored merge (one group per category); returns the merge the widgets show.
    """
    box: DeltaGenerator
    if len(cats) == 3:
        box = st.expander("Categories on the map: all three, two of them, or merged")
        label = "Choose the map's categories by"
    else:
        box = st.container()
        box.markdown(f"This data set has {len(cats)} categories; the map shows two or three.")
        label = "Reduce to three by"
    with box:
        how = st.radio(
            label,
            ("pick", "merge"),
            key="weights_reduce",
            horizontal=True,
            format_func=vw.REDUCE_LABELS.get,
        )
        if how == "pick":
            st.multiselect(
                "Categories on the map (2 or 3)", cats, key="weights_pick", max_selections=3
            )
            return merge
        cols = st.columns(min(len(cats), 4))
        for k, c in enumerate(cats):
            controls.seed(f"weights_merge_{k}", merge[k], tuple(vw.GROUPS))
            cols[k % len(cols)].selectbox(
                md_escape(c),
                tuple(vw.GROUPS),
                key=f"weights_merge_{k}",
                format_func=vw.GROUPS.__getitem__,
            )
    return tuple(str(st.session_state[f"weights_merge_{k}"]) for k in range(len(cats)))


def set_weights_from_click(
    key: str, cats: Sequence[str], task_cats: Sequence[str], mapping: dict[str, str]
) -> None:
    """Chart callback: the clicked point's weights go to the sidebar.

    A ternary tile gives its ``a, b, c``, a point of the two-category line its ``x`` and
    ``1 - x`` (``clicked_point``); ``from_map_weights`` spreads them over the data categories
    (merged ones by task count, left-out ones 0).
    """
    point = clicked_point(st.session_state.get(key), len(dict.fromkeys(mapping.values())))
    if point is None:
        return
    for i, x in enumerate(from_map_weights(point, cats, task_cats, mapping)):
        st.session_state[f"weight_{i}"] = round(float(x), 4)


def weighted_scores_table(table: pd.DataFrame) -> None:
    """Task weights: the leaderboard at one weighting, the share of draws best as a bar."""
    numbers = {
        c: st.column_config.NumberColumn(format="%.2f", width="small")
        for c in ("score", "low", "high")
    }
    st.dataframe(
        table,
        hide_index=True,
        column_config={
            "model": st.column_config.TextColumn(width="medium"),
            **numbers,
            vw.SHARE_FIRST: st.column_config.ProgressColumn(
                format="%.0f%%",
                min_value=0,
                max_value=100,  # whole percent (scores_table)
            ),
        },
    )


def slides_downloads(
    dm: DominanceMap,
    pm: BestProbabilityMap | None,
    colors: dict[str, str],
    data: str,
    marker: np.ndarray | None,
) -> None:
    """Task weights: the static maps (python-ternary) as PNG/SVG/PDF, rendered on click."""
    maps: list[tuple[str, str, Callable[[str], bytes]]] = [
        ("SE map", "weights", lambda f: dominance_image(dm, colors, f, data=data, marker=marker))
    ]
    if pm is not None:
        maps.append(
            (
                "Share best",
                "weights_pbest",
                lambda f: probability_image(pm, colors, f, data=data, marker=marker),
            )
        )
    for col, (what, stem, draw) in zip(st.columns([1, 1, 3]), maps, strict=False):
        with col:
            download_menu(
                f"{what} for slides",
                f"{stem}_{data}",
                f"w_dl_{stem}",
                {f: (f"{what} {f.upper()}", partial(draw, f)) for f in FORMATS},
            )

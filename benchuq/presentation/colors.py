"""One colour per model, stable across pages and charts.

A model's colour depends only on its position in the data set's full model list (the order the
loader gives), never on which models are currently shown, so hiding a model does not repaint the
others. Models beyond the palette's length reuse it cyclically.
"""

from __future__ import annotations

from collections.abc import Sequence

# Plotly's "Dark24" qualitative palette with its near-black entry moved last: 24 colours that stay
# distinguishable on a white background.
PALETTE: tuple[str, ...] = (
    "#2E91E5",
    "#E15F99",
    "#1CA71C",
    "#FB0D0D",
    "#DA16FF",
    "#B68100",
    "#750D86",
    "#EB663B",
    "#511CFB",
    "#00A08B",
    "#FB00D1",
    "#FC0080",
    "#B2828D",
    "#6C7C32",
    "#778AAE",
    "#862A16",
    "#A777F1",
    "#620042",
    "#1616A7",
    "#DA60CA",
    "#6C4516",
    "#0D2A63",
    "#AF0038",
    "#222A2A",
)

#: Colour of "indeterminate" (cannot tell which model is better) in every chart.
INDETERMINATE = "#BDBDBD"


def model_colors(all_models: Sequence[str]) -> dict[str, str]:
    """``{model: colour}`` for every model of a data set, in the data set's model order."""
    return {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(all_models)}

"""Pure plotly figure builders ``(result, options) -> go.Figure``, one module per analysis:
``common`` (:class:`~benchuq.presentation.figures.common.FigureOptions`, the leaderboard's
forest plot, differences, ranks, subtitles), ``bayes``, ``embeddings``, ``epp``, ``power``,
``ranks``, ``subgroups``, ``weights``, ``diff`` (two runs) and
``ternary_static`` (python-ternary slide export)."""

__all__: list[str] = []

"""benchuq's statistics: numpy, scipy, pandas and statsmodels only; never imports the screen.

Every uncertainty method yields draws of per-task performance ``(R, M, T)``
(:class:`~benchuq.core.draws.Draws`); every summary, rank and dominance map is a function of
draws (``docs/METHODS.md``; the map of modules is ``ARCHITECTURE.md``).
"""

__all__: list[str] = []

"""The leaderboard page: view models and cached calls (wired by pages/leaderboard.py)."""

__all__: list[str] = []

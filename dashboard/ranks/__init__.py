"""The Ranks page: its cached calls (wired by pages/ranks.py)."""

__all__: list[str] = []

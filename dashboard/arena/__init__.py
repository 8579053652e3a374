"""The Arena page: its view models and cached calls (wired by pages/arena.py)."""

__all__: list[str] = []

"""The weights page: its view models, widgets and cached calls (wired by pages/weights.py)."""

__all__: list[str] = []

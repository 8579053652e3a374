"""The data page: its view models, widgets and cached calls (wired by pages/data.py)."""

__all__: list[str] = []

"""The compare page: its view models, widgets and cached calls (wired by pages/compare.py)."""

__all__: list[str] = []

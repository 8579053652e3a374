"""The table page: its view models, widgets and cached calls (wired by pages/table.py)."""

__all__: list[str] = []

"""The epp page: its view models, widgets and cached calls (wired by pages/epp.py)."""

__all__: list[str] = []

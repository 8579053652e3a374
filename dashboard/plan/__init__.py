"""The plan page: its view models, widgets and cached calls (wired by pages/plan.py)."""

__all__: list[str] = []

"""The subgroups page: its view models, widgets and cached calls (wired by pages/subgroups.py)."""

__all__: list[str] = []

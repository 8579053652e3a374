"""The bayes page: its view models, widgets and cached calls (wired by pages/bayes.py)."""

__all__: list[str] = []

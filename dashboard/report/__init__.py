"""The Report page: its cached calls (wired by pages/report.py)."""

__all__: list[str] = []

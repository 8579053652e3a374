"""The Report page: its cached call (wired by pages/report.py)."""

__all__: list[str] = []

"""The embeddings page: its view models, widgets and cached calls (wired by pages/embeddings.py)."""

__all__: list[str] = []

"""The ``benchuq`` command line: a stable contract for scripts and CI pipelines."""

__all__: list[str] = []

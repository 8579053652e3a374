"""The CLI's own error: a bad flag value found after parsing (no statistics imported)."""

from __future__ import annotations

__all__ = ["UsageError"]


class UsageError(Exception):
    """A bad flag value found after parsing (reported like an argparse error, exit code 2)."""

"""Bundled sample data sets (package data; see ``README.md`` in this folder)."""

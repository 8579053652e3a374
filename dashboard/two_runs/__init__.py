"""The Two runs page (``pages/two_runs.py``): its settings and view, and its cached call."""
